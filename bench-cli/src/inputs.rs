//! What `run` and `plan` replay: the trace (opened once to check it), the synthetic
//! workloads (or the built-in suite), and the checksums of the input files for the manifest.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread::JoinHandle;

use analysis::replay::WorkloadInput;
use analysis::schemes::SchemeSpec;
use anyhow::{Context, Result};
use reports::manifest::InputFile;
use workloads::trace::TraceFormat;
use workloads::trace::TraceOptions;
use workloads::{EventSource, KeyType, WorkloadSpec};

use crate::cli::{InputArgs, TraceArgs};
use crate::trace_source::{self, PrefixProfile};

pub use crate::trace_source::Opener;

/// A workload ready to open, with its label.
pub struct Input {
    /// The label in reports.
    pub label: String,
    /// What it is, for the report.
    pub description: String,
    /// How its keys are read.
    pub key_type: KeyType,
    /// Opens its events.
    pub open: Opener,
}

impl Input {
    /// The trace as a workload: its first opening is the stream opened to check it (read
    /// once, nothing is copied aside).
    pub fn of_trace(t: &TraceInput) -> Input {
        let shown = t.opts.shown().display().to_string();
        Input {
            label: shown.clone(),
            description: format!("recorded trace {shown} ({})", t.format),
            key_type: t.key_type,
            open: trace_source::opener(t.opts.clone(), t.take_first()),
        }
    }

    /// A synthetic workload of `events` events from `seed`, described as `description`.
    pub fn of_spec(spec: WorkloadSpec, description: String, seed: u64, events: u64) -> Input {
        Input {
            label: spec.label(),
            description,
            key_type: spec.key_type(),
            open: Box::new(move || spec.open(seed, events)),
        }
    }

    /// The workload as the replay takes it.
    pub fn workload(&self) -> WorkloadInput<'_> {
        WorkloadInput {
            label: self.label.clone(),
            description: self.description.clone(),
            key_type: self.key_type,
            open: &*self.open,
        }
    }
}

/// The recorded trace of a command, opened once to check it and learn its format and key
/// type.
pub struct TraceInput {
    /// The path as given (`-` for standard input).
    pub given: PathBuf,
    /// How it is read.
    pub opts: TraceOptions,
    /// Its format, given or detected.
    pub format: TraceFormat,
    /// Its key type, given or detected.
    pub key_type: KeyType,
    /// The stream opened to check it, until the replay takes it.
    first: Mutex<Option<Box<dyn EventSource>>>,
}

impl TraceInput {
    /// `--trace` with the trace-reading options, checked before anything is written; `None`
    /// without `--trace`.
    pub fn open(input: &InputArgs, read: &TraceArgs) -> Result<Option<TraceInput>> {
        let Some(given) = &input.trace else {
            return Ok(None);
        };
        let (opts, opened) = read.open_checked(given, input.format)?;
        Ok(Some(TraceInput {
            given: given.clone(),
            format: opened.format,
            key_type: opened.key_type,
            opts,
            first: Mutex::new(Some(opened.source)),
        }))
    }

    /// True when the trace is read once (standard input, a FIFO, `<(cmd)`): it cannot be
    /// replayed a second time.
    pub fn read_once(&self) -> bool {
        self.opts.tally.is_some()
    }

    /// The profile of the trace's first `limit` events, taken as the replay reads them.
    pub fn watch_profile(&self, limit: usize) -> PrefixProfile {
        let profile = PrefixProfile::new(limit);
        let mut first = self.first.lock().unwrap_or_else(|e| e.into_inner());
        *first = first.take().map(|source| profile.watch(source));
        profile
    }

    /// The stream opened to check the trace (once).
    fn take_first(&self) -> Option<Box<dyn EventSource>> {
        self.first.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Starts checksumming the trace on its own thread (it runs beside the replay); `None`
    /// for a trace read once, whose bytes are tallied as the replay reads them.
    pub fn spawn_checksum(&self) -> Option<JoinHandle<std::io::Result<InputFile>>> {
        if self.read_once() {
            return None;
        }
        let path = self.opts.path.clone();
        Some(std::thread::spawn(move || InputFile::checksum(&path)))
    }
}

/// The synthetic workloads of `--workload` (or the built-in suite), each spec parsed as a
/// sweep when `sweep` is true (`zipf:s=0.6,0.8` is two workloads) and as one spec otherwise.
pub fn workload_specs(input: &InputArgs, sweep: bool) -> Result<Vec<WorkloadSpec>> {
    let mut specs = Vec::new();
    for text in input.specs() {
        if sweep {
            specs.extend(WorkloadSpec::parse_sweep(&text)?);
        } else {
            specs.push(WorkloadSpec::parse(&text)?);
        }
    }
    Ok(specs)
}

/// The inputs with their checksums: the trace (with its format and the records skipped,
/// which are also printed), whose checksum is computed on its own thread (or tallied as it
/// was read, for a trace read once), and every boundaries file of the schemes.
pub fn input_checksums(
    schemes: &[SchemeSpec],
    trace: Option<(&TraceInput, Option<JoinHandle<std::io::Result<InputFile>>>)>,
) -> Result<Vec<InputFile>> {
    let failed = |p: &Path| format!("cannot checksum input '{}'", p.display());
    let mut inputs = Vec::new();
    if let Some((t, sum)) = trace {
        let skipped = t.opts.invalid.log.skipped();
        crate::inspect::report_skipped(&t.opts.invalid.log);
        let sum = match (sum, &t.opts.tally) {
            (Some(sum), _) => sum
                .join()
                .map_err(|_| anyhow::anyhow!("the checksum thread panicked"))?
                .with_context(|| failed(&t.opts.path))?,
            (None, tally) => trace_source::tallied(&tally.clone().unwrap_or_default()),
        };
        inputs.push(InputFile {
            path: t.given.display().to_string(),
            format: Some(t.format.name().to_string()),
            invalid_records_skipped: t.opts.invalid.skips().then_some(skipped),
            ..sum
        });
    }
    for p in schemes
        .iter()
        .filter_map(|s| s.spec.get("boundaries"))
        .map(PathBuf::from)
    {
        inputs.push(InputFile::checksum(&p).with_context(|| failed(&p))?);
    }
    Ok(inputs)
}
