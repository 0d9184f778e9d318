//! shardlab's outputs: tidy CSV, the run manifest, console tables (and, later, charts and the
//! design-review report). Exporters render bytes; [`output::OutputDir`] writes them safely.
//!
//! A run's results become its model ([`data::RunData::of_run`]): the rows of its files, which
//! the exporters write and `shardlab report DIR` reads back ([`data::RunData::load`]).
//!
//! ```
//! use reports::{data::RunData, exporters, Exporter, Manifest};
//! let run = RunData::of_run(&[], Manifest::default()).unwrap();
//! let files = exporters::SummaryCsv.render(&run).unwrap();
//! let header = reports::csv_rows::header::<reports::summary::SummaryRow>();
//! assert_eq!(String::from_utf8(files[0].1.clone()).unwrap().lines().next(), Some(header.as_str()));
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
pub mod refusals_csv;
pub mod report;
pub mod scheme_load;
pub mod summary;
pub mod table;
pub mod timeline_table;
pub mod value_checks;
pub mod windows;

pub use error::ReportError;
pub use exporter::Exporter;
pub use manifest::Manifest;
