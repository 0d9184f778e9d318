//! Errors of the workloads crate.

use std::path::PathBuf;

/// An I/O error's description without its `(os error N)` suffix.
fn plain(error: &std::io::Error) -> String {
    let text = error.to_string();
    match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_string(),
        _ => text,
    }
}

/// Anything that can go wrong while describing, opening or reading a workload.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    /// A workload spec string is malformed or names unknown things.
    #[error(transparent)]
    Spec(#[from] crate::spec::SpecError),
    /// A trace file could not be opened.
    #[error("cannot open trace '{path}': {}", plain(.error))]
    Open {
        /// The trace file.
        path: PathBuf,
        /// The underlying error (not a `source`: the message says it once).
        error: std::io::Error,
    },
    /// A trace file could not be read.
    #[error("cannot read trace '{path}': {source}")]
    Io {
        /// The trace file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// An output file could not be written.
    #[error("cannot write '{path}': {}", plain(.source))]
    Write {
        /// The output file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A trace record is malformed; `location` is `line N` for text or `byte N` for binary.
    #[error("{path}:{location}: {message}")]
    Invalid {
        /// The trace file.
        path: PathBuf,
        /// `line N` or `byte offset N`.
        location: String,
        /// What was wrong, and what was expected.
        message: String,
    },
    /// The trace as a whole is unusable (empty, missing column, wrong format).
    #[error("trace '{path}': {message}")]
    Trace {
        /// The trace file.
        path: PathBuf,
        /// What was wrong, and what to do about it.
        message: String,
    },
}
