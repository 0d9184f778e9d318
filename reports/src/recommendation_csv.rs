//! `recommendation.csv`: the decision procedure's outcome (see [`analysis::advice`]), one row
//! per workload, shard count and growth target.

use analysis::advice;
use serde::Serialize;

use crate::summary::format_value;
use crate::{Exporter, ReportError, RunReport};

/// The file name inside a run directory.
pub const FILE: &str = "recommendation.csv";
/// The header of `recommendation.csv`.
pub const HEADER: &str = "workload,shards,grow_to,scheme,decided_by,margin,tied_with,warning";
/// Separates the schemes of `tied_with` (scheme labels may hold commas).
pub const LIST_SEPARATOR: char = ';';

/// One row of `recommendation.csv`.
#[derive(Debug, Serialize)]
struct Row<'a> {
    workload: &'a str,
    shards: u32,
    grow_to: u32,
    scheme: &'a str,
    decided_by: &'a str,
    margin: String,
    tied_with: String,
    warning: &'a str,
}

/// `recommendation.csv`.
pub struct RecommendationCsv;

impl Exporter for RecommendationCsv {
    fn file_name(&self) -> &'static str {
        FILE
    }
    fn render(&self, report: &RunReport) -> Result<Vec<u8>, ReportError> {
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        w.write_record(HEADER.split(','))?;
        for d in report.results.iter().map(advice::decide) {
            w.serialize(Row {
                workload: &d.workload,
                shards: d.shards,
                grow_to: d.grow_to,
                scheme: d.scheme.as_deref().unwrap_or(""),
                decided_by: d.decided_by.map_or("", advice::Criterion::name),
                margin: format_value(d.margin),
                tied_with: d.tied_with.join(&LIST_SEPARATOR.to_string()),
                warning: &d.warning,
            })?;
        }
        w.into_inner().map_err(|e| ReportError::Io {
            path: FILE.into(),
            source: e.into_error(),
        })
    }
}
