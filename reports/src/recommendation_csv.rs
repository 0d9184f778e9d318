//! `recommendation.csv`: the decision procedure's outcome (see [`planning::advice`]), one row
//! per workload and shard count, every growth target weighed.

use planning::advice::{self, Criterion};
use serde::{Deserialize, Serialize};

use engine::metrics::WorkloadResult;

use crate::csv_rows::{self, list, number};

/// The file name inside a run directory.
pub const FILE: &str = "recommendation.csv";

/// One row of `recommendation.csv`: the outcome of the decision procedure for one workload
/// and shard count.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RecommendationRow {
    /// Workload label.
    pub workload: String,
    /// Shard count N.
    pub shards: u32,
    /// The growth (or shrink) targets M weighed, separated by `;`.
    #[serde(with = "list")]
    pub grow_to: Vec<u32>,
    /// The recommended scheme; `None` (an empty cell) for a tie or too little data.
    pub scheme: Option<String>,
    /// The deciding criterion (`usable_capacity`, `idle_new_shards`, `growth_cost`,
    /// `failure_cost`, `scan_fanout`, `lookup_time`, `tie`; empty when nothing was compared).
    pub decided_by: String,
    /// The margin in the criterion's unit.
    #[serde(with = "number")]
    pub margin: Option<f64>,
    /// The unit of `margin` ([`Criterion::unit`]: `share`, `shards` or `ratio`).
    pub margin_unit: String,
    /// Schemes tied with the winner on usable capacity (every tied scheme for a tie),
    /// separated by `;` (labels may hold commas).
    #[serde(with = "list")]
    pub tied_with: Vec<String>,
    /// Of those, the schemes still tied with the winner on the growth cost.
    #[serde(with = "list")]
    pub tied_growth_cost: Vec<String>,
    /// ... then on the failure cost (with `--fail`).
    #[serde(with = "list")]
    pub tied_failure_cost: Vec<String>,
    /// ... then on the scenario cost (with `--scenario`; missing in older run directories).
    #[serde(default, with = "list")]
    pub tied_scenario_cost: Vec<String>,
    /// ... then on the scan fan-out.
    #[serde(with = "list")]
    pub tied_scan_fanout: Vec<String>,
    /// ... then on the lookup time.
    #[serde(with = "list")]
    pub tied_lookup_time: Vec<String>,
    /// Why no scheme is named, or a caveat about the one named.
    pub warning: String,
}

impl RecommendationRow {
    /// The schemes tied on each criterion the procedure reached, in its order, with the
    /// criterion's name (usable capacity first); criteria that left none tied are left out.
    pub fn ties(&self) -> Vec<(&'static str, &[String])> {
        let later = [
            &self.tied_growth_cost,
            &self.tied_failure_cost,
            &self.tied_scenario_cost,
            &self.tied_scan_fanout,
            &self.tied_lookup_time,
        ];
        std::iter::once((Criterion::UsableCapacity.name(), &self.tied_with))
            .chain(Criterion::LATER.iter().map(|c| c.name()).zip(later))
            .filter(|(_, tied)| !tied.is_empty())
            .map(|(name, tied)| (name, tied.as_slice()))
            .collect()
    }

    /// [`RecommendationRow::ties`] for people: `usable capacity: a, b; growth cost: b`.
    pub fn ties_text(&self) -> String {
        let parts: Vec<String> = self
            .ties()
            .iter()
            .map(|(name, tied)| format!("{}: {}", name.replace('_', " "), tied.join(", ")))
            .collect();
        parts.join("; ")
    }
}

impl From<advice::Decision> for RecommendationRow {
    fn from(d: advice::Decision) -> Self {
        let on = |c: Criterion| {
            d.tied_on
                .iter()
                .find(|(x, _)| *x == c)
                .map(|(_, tied)| tied.clone())
                .unwrap_or_default()
        };
        RecommendationRow {
            tied_growth_cost: on(Criterion::GrowthCost),
            tied_failure_cost: on(Criterion::FailureCost),
            tied_scenario_cost: on(Criterion::ScenarioCost),
            tied_scan_fanout: on(Criterion::ScanFanout),
            tied_lookup_time: on(Criterion::LookupTime),
            workload: csv_rows::label(&d.workload),
            shards: d.shards,
            grow_to: d.grow_to,
            scheme: d.scheme.as_deref().map(csv_rows::label),
            decided_by: d.decided_by.map_or("", Criterion::name).to_string(),
            margin_unit: match (d.decided_by, d.margin) {
                (Some(c), Some(_)) => c.unit().to_string(),
                _ => String::new(),
            },
            margin: d.margin,
            tied_with: d.tied_with,
            warning: d.warning,
        }
    }
}

/// The rows of `recommendation.csv`: the decision for every workload and shard count of
/// `results`.
pub fn recommendation_rows(results: &[WorkloadResult]) -> Vec<RecommendationRow> {
    advice::decide_all(results)
        .into_iter()
        .map(RecommendationRow::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_is_the_one_the_docs_document() {
        let header = csv_rows::header::<RecommendationRow>();
        assert_eq!(
            header,
            "workload,shards,grow_to,scheme,decided_by,margin,margin_unit,tied_with,tied_growth_cost,tied_failure_cost,tied_scenario_cost,tied_scan_fanout,tied_lookup_time,warning"
        );
        let page =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/outputs.md"))
                .unwrap();
        assert!(page.contains(&format!("`{header}`")));
    }
}
