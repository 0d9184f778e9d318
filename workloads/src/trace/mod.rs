//! Recorded trace readers, one file per format, behind one [`open`].
//!
//! Every reader streams its file through [`EventSource`] in bounded memory and reports a
//! malformed record as [`WorkloadError::Invalid`] with its line (or byte offset), never by
//! panicking. Adding a format = one new file, one [`TraceFormat`] variant and one match arm.
//!
//! ```no_run
//! use workloads::trace::{self, TraceOptions};
//! use workloads::{collect, KeyType};
//! let opts = TraceOptions { path: "trace.csv".into(), key_type: KeyType::U64 };
//! let events = collect(trace::open(&opts)?.as_mut())?;
//! # Ok::<(), workloads::WorkloadError>(())
//! ```

pub mod csv;

use std::path::{Path, PathBuf};

use crate::{EventSource, KeyType, WorkloadError};

/// Where a trace is and how to read it.
#[derive(Clone, Debug)]
pub struct TraceOptions {
    /// The trace file.
    pub path: PathBuf,
    /// How key text is read.
    pub key_type: KeyType,
}

/// The trace formats shardlab reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    /// CSV with a header naming the columns `key`, `op`, `end`, `timestamp`, `size`.
    Csv,
}

impl TraceFormat {
    /// The format of the file at `path`, from its extension; CSV when nothing else matches.
    pub fn of_path(path: &Path) -> TraceFormat {
        // Only one format so far; later formats match on the extension here.
        let _ = path;
        TraceFormat::Csv
    }

    /// The format's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Csv => "csv",
        }
    }
}

/// Opens a trace as an event stream, in the format its path implies.
pub fn open(opts: &TraceOptions) -> Result<Box<dyn EventSource>, WorkloadError> {
    match TraceFormat::of_path(&opts.path) {
        TraceFormat::Csv => Ok(Box::new(csv::CsvTraceReader::open(
            &opts.path,
            opts.key_type,
        )?)),
    }
}
