//! Recorded trace readers (stub: being written).
use std::path::PathBuf;

use crate::{EventSource, KeyType, WorkloadError};

/// Where a trace is and how to read it.
#[derive(Clone, Debug)]
pub struct TraceOptions {
    /// The trace file.
    pub path: PathBuf,
    /// How key text is read.
    pub key_type: KeyType,
}

/// Opens a trace as an event stream.
pub fn open(_opts: &TraceOptions) -> Result<Box<dyn EventSource>, WorkloadError> {
    unimplemented!()
}
