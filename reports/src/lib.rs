//! shardlab's outputs: tidy CSV, the run manifest, console tables (and, later, charts and the
//! design-review report). Exporters render bytes; [`output::OutputDir`] writes them safely.
//!
//! ```
//! use reports::{exporters, Exporter, Manifest, RunReport};
//! let report = RunReport { results: vec![], manifest: Manifest::default() };
//! let csv = exporters::SummaryCsv.render(&report).unwrap();
//! let header = reports::csv_rows::header::<reports::summary::SummaryRow>();
//! assert_eq!(String::from_utf8(csv).unwrap().lines().next(), Some(header.as_str()));
//! ```

pub mod charts;
pub mod csv_rows;
pub mod data;
pub mod dynamic_csv;
pub mod error;
pub mod exporter;
pub mod exporters;
pub mod layout_tables;
pub mod manifest;
pub mod output;
pub mod plan_csv;
pub mod recommendation_csv;
pub mod report;
pub mod summary;
pub mod table;
pub mod timeline_table;
pub mod value_checks;
pub mod windows;

pub use error::ReportError;
pub use exporter::Exporter;
pub use manifest::Manifest;

use engine::metrics::WorkloadResult;

/// Everything a run produced: the results of every workload and the manifest.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// One result per workload (and per sweep combination), in run order.
    pub results: Vec<WorkloadResult>,
    /// Configuration, version, seed, inputs and timing.
    pub manifest: Manifest,
}
