//! Errors of the schemes and the engine that drives them.

use std::path::PathBuf;

/// Anything that can go wrong while building schemes or replaying workloads.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    /// A scheme spec is malformed, unknown or out of range.
    #[error(transparent)]
    Spec(#[from] workloads::SpecError),
    /// Reading the workload failed.
    #[error(transparent)]
    Workload(#[from] workloads::WorkloadError),
    /// A boundaries file could not be read.
    #[error("cannot read boundaries file '{path}': {source}")]
    Io {
        /// The boundaries file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A boundaries file is malformed (not sorted, bad key).
    #[error("{path}:{line}: {message}")]
    Boundaries {
        /// The boundaries file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong and what was expected.
        message: String,
    },
    /// A configuration that cannot be replayed (for example a target shard count of 0).
    #[error("{0}")]
    Config(String),
}
