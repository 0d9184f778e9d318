//! Errors of the reports crate.

use std::path::PathBuf;

/// Anything that can go wrong while rendering or writing outputs.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The output directory exists and `--force` was not given.
    #[error("output directory '{0}' already exists; choose another --out or pass --force to replace its files")]
    Exists(PathBuf),
    /// `--force` names something that is not a run directory, which it would replace whole.
    #[error("'{0}' exists and is not a shardlab run directory (it has no manifest.json); --force replaces only a run directory, whole: choose another --out")]
    NotARun(PathBuf),
    /// A file could not be written.
    #[error("cannot write '{path}': {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Rendering CSV failed.
    #[error("cannot render CSV: {0}")]
    Csv(#[from] csv::Error),
    /// Rendering JSON failed.
    #[error("cannot render JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A file a report is rendered from is not there.
    #[error("'{0}' is missing: a run directory written by `shardlab run` has summary.csv, shards.csv, windows.csv and manifest.json")]
    Missing(PathBuf),
    /// A file a report is rendered from could not be read.
    #[error("cannot read '{path}': {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A file a report is rendered from does not have the expected form.
    #[error("{path}:{line}: {message}")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// 1-based line number (0 when the problem is not on one line).
        line: u64,
        /// What was expected and what was found.
        message: String,
    },
    /// A chart could not be drawn.
    #[error("cannot draw chart '{chart}': {message}")]
    Chart {
        /// The chart's file name stem.
        chart: String,
        /// The plotting library's message.
        message: String,
    },
}
