//! The errors of `shardlab keys`.

/// Why `shardlab keys` failed: the command line (exit 2) or the data (exit 1).
#[derive(Debug, thiserror::Error)]
pub enum KeysError {
    /// Only a different command line fixes it.
    #[error("{0}")]
    Usage(String),
    /// The trace cannot be read or does not fit the options.
    #[error("{0}")]
    Data(String),
}
