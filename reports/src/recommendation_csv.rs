//! `recommendation.csv`: the decision procedure's outcome (see [`planning::advice`]), one row
//! per workload, shard count and growth target.

use planning::advice;
use serde::{Deserialize, Serialize};

use crate::csv_rows::{self, list, number};
use crate::{Exporter, ReportError, RunReport};

/// The file name inside a run directory.
pub const FILE: &str = "recommendation.csv";

/// One row of `recommendation.csv`: the outcome of the decision procedure for one workload,
/// shard count and growth target.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RecommendationRow {
    /// Workload label.
    pub workload: String,
    /// Shard count N.
    pub shards: u32,
    /// Growth (or shrink) target M.
    pub grow_to: u32,
    /// The recommended scheme; `None` (an empty cell) for a tie or too little data.
    pub scheme: Option<String>,
    /// The deciding criterion (`usable_capacity`, `idle_new_shards`, `growth_cost`,
    /// `scan_fanout`, `lookup_time`, `tie`; empty when nothing was compared).
    pub decided_by: String,
    /// The margin in the criterion's unit.
    #[serde(with = "number")]
    pub margin: Option<f64>,
    /// Schemes tied with the winner on usable capacity (every tied scheme for a tie),
    /// separated by `;` (labels may hold commas).
    #[serde(with = "list")]
    pub tied_with: Vec<String>,
    /// Why no scheme is named, or a caveat about the one named.
    pub warning: String,
}

impl From<advice::Decision> for RecommendationRow {
    fn from(d: advice::Decision) -> Self {
        RecommendationRow {
            workload: d.workload,
            shards: d.shards,
            grow_to: d.grow_to,
            scheme: d.scheme,
            decided_by: d.decided_by.map_or("", advice::Criterion::name).to_string(),
            margin: d.margin,
            tied_with: d.tied_with,
            warning: d.warning,
        }
    }
}

/// `recommendation.csv`.
pub struct RecommendationCsv;

impl Exporter for RecommendationCsv {
    fn file_name(&self) -> &'static str {
        FILE
    }
    fn render(&self, report: &RunReport) -> Result<Vec<u8>, ReportError> {
        csv_rows::write(
            report
                .results
                .iter()
                .map(|r| RecommendationRow::from(advice::decide(r))),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_is_the_one_the_readme_documents() {
        let header = csv_rows::header::<RecommendationRow>();
        assert_eq!(
            header,
            "workload,shards,grow_to,scheme,decided_by,margin,tied_with,warning"
        );
        let readme =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
        assert!(readme.contains(&format!("`{header}`")));
    }
}
