//! Errors of the reports crate.

use std::path::PathBuf;

/// Anything that can go wrong while rendering or writing outputs.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The output directory exists and `--force` was not given.
    #[error("output directory '{0}' already exists; choose another --out or pass --force to replace its files")]
    Exists(PathBuf),
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
}
