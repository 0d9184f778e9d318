//! What `run` and `plan` replay: the trace (opened once to check it), the synthetic
//! workloads (or the built-in suite), and the checksums of the input files for the manifest.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread::JoinHandle;

use anyhow::{Context, Result};
use engine::replay::WorkloadInput;
use reports::manifest::InputFile;
use schemes::SchemeSpec;
use workloads::trace::files::FileChain;
use workloads::trace::TraceFormat;
use workloads::trace::{ByteTally, TraceOptions};
use workloads::{EventSource, KeyType, WorkloadSpec};

use crate::cli::{InputArgs, TraceArgs};
use crate::trace_source;

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
        let formats: Vec<&str> = t.files.iter().map(|f| f.format.name()).collect();
        Input {
            label: t.label.clone(),
            description: trace_description(&t.label, &formats),
            key_type: t.key_type,
            open: match &t.candidate {
                Some(candidate) => candidate_opener(candidate.clone(), t.take_first()),
                None => trace_source::opener(
                    t.files.iter().map(|f| f.opts.clone()).collect(),
                    t.key_type,
                    t.len_hint,
                    t.take_first(),
                ),
            },
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
            watch: None,
        }
    }
}

/// Opens a candidate-keyed trace: `first` (the stream opened to check it) once, then the file
/// again.
fn candidate_opener(candidate: Candidate, first: Option<Box<dyn EventSource>>) -> Opener {
    let first = Mutex::new(first);
    Box::new(
        move || match first.lock().unwrap_or_else(|e| e.into_inner()).take() {
            Some(source) => Ok(source),
            None => candidate.open(),
        },
    )
}

/// How a recorded trace is described in reports: its label and its files' formats (in
/// order, each run of one format named once).
pub fn trace_description(label: &str, formats: &[&str]) -> String {
    let mut formats_used = formats.to_vec();
    formats_used.dedup();
    let how = match formats.len() {
        1 => formats[0].to_string(),
        n => format!("{n} files, {}", formats_used.join(", ")),
    };
    format!("recorded trace {label} ({how})")
}

/// The label of the trace of `--trace` whose files are `paths`: the one file's path, or the
/// `--trace` arguments as given, joined by ` + `.
pub fn trace_label(input: &InputArgs, read: &TraceArgs, paths: &[PathBuf]) -> Result<String> {
    Ok(match paths {
        [one] => read
            .options(one, input.format)
            .map_err(crate::usage::usage)?
            .shown()
            .display()
            .to_string(),
        _ => patterns_label(input),
    })
}

/// The `--trace` arguments as given, joined by ` + `.
fn patterns_label(input: &InputArgs) -> String {
    input
        .trace
        .iter()
        .map(|t| t.display().to_string())
        .collect::<Vec<_>>()
        .join(" + ")
}

/// The thread checksumming a trace's files, one after the other.
pub type Checksums = JoinHandle<std::io::Result<Vec<InputFile>>>;

/// One file of a recorded trace.
pub struct TraceFile {
    /// The path (a pattern's match, or as given; `-` for standard input).
    pub given: PathBuf,
    /// How it is read.
    pub opts: TraceOptions,
    /// Its format, given or detected.
    pub format: TraceFormat,
}

/// How the keys of a command's inputs are read, and so the files its schemes read
/// (boundaries): the trace's key type, given or detected, else `--key-type`. `run` and `plan`
/// both read them so, as `route` reads them by its own `--key-type`.
pub fn key_type(trace: Option<&TraceInput>, read: &TraceArgs) -> KeyType {
    match trace {
        Some(t) => t.key_type,
        None => KeyType::from_name(&read.key_type).unwrap_or_default(),
    }
}

/// The recorded trace of a command: one file, or several read in order as one trace (see
/// [`workloads::trace::files`]), each opened once to check it and learn its format and key
/// type.
pub struct TraceInput {
    /// The trace's name in reports: the `--trace` arguments as given, joined by ` + `.
    pub label: String,
    /// Its files, in the order they are read.
    pub files: Vec<TraceFile>,
    /// The key type of every file, given or detected.
    pub key_type: KeyType,
    /// The number of events, when every file knows it on opening.
    len_hint: Option<u64>,
    /// The stream opened to check the trace, until the replay takes it.
    first: Mutex<Option<Box<dyn EventSource>>>,
    /// The bytes `first` read, when the trace is one regular file.
    first_tally: Option<ByteTally>,
    /// The candidate key of a multi-column trace (`--key-col tenant,user`), read by
    /// [`shardkeys::events::CandidateEvents`].
    candidate: Option<Candidate>,
}

/// A multi-column trace keyed by a candidate: its file, the candidate and how ops are read.
#[derive(Clone)]
pub(crate) struct Candidate {
    path: PathBuf,
    key: String,
    op_col: String,
    op_map: workloads::trace::OpMap,
}

impl Candidate {
    /// The candidate `--key-col` names, when it is one: several columns (`tenant,user`) or a
    /// hashed one (`hashed(user)`); a single plain column is read as ever.
    pub(crate) fn of(read: &TraceArgs) -> Option<String> {
        match &read.key_col {
            Some(workloads::trace::Column::Name(n)) if n.contains(',') || n.contains("hashed(") => {
                Some(n.clone())
            }
            _ => None,
        }
    }

    fn open(&self) -> Result<Box<dyn EventSource>, workloads::WorkloadError> {
        shardkeys::events::CandidateEvents::open(&self.path, &self.key, &self.op_col, &self.op_map)
            .map(|e| Box::new(e) as Box<dyn EventSource>)
            .map_err(|e| workloads::WorkloadError::Trace {
                path: self.path.clone(),
                message: e.to_string(),
            })
    }
}

impl TraceInput {
    /// `--trace` (each pattern expanded) with the trace-reading options, checked before
    /// anything is written: every file is opened once, its first stream kept for the replay;
    /// `None` without `--trace`.
    pub fn open(input: &InputArgs, read: &TraceArgs) -> Result<Option<TraceInput>> {
        if input.trace.is_empty() {
            return Ok(None);
        }
        let paths = workloads::trace::files::expand(&input.trace).map_err(crate::usage::usage)?;
        if let Some(key) = Candidate::of(read) {
            return Self::open_candidate(input, read, paths, key).map(Some);
        }
        let all = 0..paths.len();
        Self::open_files(input, read, paths, all).map(Some)
    }

    /// The files `share` of the trace's files `paths` (a part of a run cut into parts, see
    /// [`engine::part`]), opened as [`TraceInput::open`] opens the whole trace; the label is
    /// the whole trace's. `None` when the share is empty.
    pub fn open_share(
        input: &InputArgs,
        read: &TraceArgs,
        paths: &[PathBuf],
        share: std::ops::Range<usize>,
    ) -> Result<Option<TraceInput>> {
        if share.is_empty() {
            return Ok(None);
        }
        Self::open_files(input, read, paths.to_vec(), share).map(Some)
    }

    /// Opens the files `share` of `paths`, labelled as the trace of all of `paths`.
    fn open_files(
        input: &InputArgs,
        read: &TraceArgs,
        mut paths: Vec<PathBuf>,
        share: std::ops::Range<usize>,
    ) -> Result<TraceInput> {
        let several = paths.len() > 1;
        let whole = paths.len();
        paths.truncate(share.end);
        paths.drain(..share.start);
        let mut files = Vec::with_capacity(paths.len());
        let mut first = None;
        let mut first_tally = None;
        let mut key_type = None;
        let mut len_hint = Some(0u64);
        for given in paths {
            if several && !workloads::trace::rereadable(&given) {
                return Err(crate::usage::usage(format!(
                    "trace file '{}' is not a regular file; the files of a trace given in \
                     several parts must be regular files",
                    given.display()
                )));
            }
            let (opts, opened) = if whole == 1 && workloads::trace::rereadable(&given) {
                // One regular file: the replay reads it whole from this stream, whose bytes
                // are tallied for its checksum instead of reading the file a second time.
                let opts = read
                    .options(&given, input.format)
                    .map_err(crate::usage::usage)?;
                let tally = ByteTally::default();
                let tallied = TraceOptions {
                    tally: Some(tally.clone()),
                    ..opts.clone()
                };
                first_tally = Some(tally);
                (opts, workloads::trace::open_detected(&tallied)?)
            } else {
                read.open_checked(&given, input.format)?
            };
            let first_type = *key_type.get_or_insert(opened.key_type);
            workloads::trace::files::check_key_type(&opts.shown(), opened.key_type, first_type)?;
            len_hint = len_hint.zip(opened.source.len_hint()).map(|(a, b)| a + b);
            if first.is_none() {
                first = Some(opened.source);
            }
            files.push(TraceFile {
                given,
                opts,
                format: opened.format,
            });
        }
        let key_type = key_type.unwrap_or_default();
        let first = first.map(|source| -> Box<dyn EventSource> {
            match files.len() {
                1 => source,
                _ => Box::new(FileChain::new(
                    files.iter().map(|f| f.opts.clone()).collect(),
                    Some(source),
                    key_type,
                    len_hint,
                )),
            }
        });
        let label = match files.as_slice() {
            [one] if whole == 1 => one.opts.shown().display().to_string(),
            _ => patterns_label(input),
        };
        Ok(TraceInput {
            label,
            files,
            key_type,
            len_hint,
            first: Mutex::new(first),
            first_tally,
            candidate: None,
        })
    }

    /// One multi-column trace file (CSV with a header, or Parquet) keyed by the candidate
    /// `key`: its events are the requests each operation makes under the candidate.
    fn open_candidate(
        input: &InputArgs,
        read: &TraceArgs,
        paths: Vec<PathBuf>,
        key: String,
    ) -> Result<TraceInput> {
        let usage = crate::usage::usage;
        let [path] = paths.as_slice() else {
            return Err(usage(format!(
                "--key-col '{key}' (a candidate key of a multi-column trace) reads one trace \
                 file, not {}",
                paths.len()
            )));
        };
        if !workloads::trace::rereadable(path) {
            return Err(usage(format!(
                "--key-col '{key}' reads a multi-column trace from a regular file, not '{}'",
                path.display()
            )));
        }
        let op_col = match &read.op_col {
            None => "op".to_string(),
            Some(workloads::trace::Column::Name(n)) => n.clone(),
            Some(workloads::trace::Column::Index(i)) => {
                return Err(usage(format!(
                    "--op-col {i}: a multi-column trace names its operation column by its \
                     header name"
                )))
            }
        };
        let op_map = match &read.op_map {
            Some(map) => workloads::trace::OpMap::parse(map).map_err(usage)?,
            None => Default::default(),
        };
        let candidate = Candidate {
            path: path.clone(),
            key,
            op_col,
            op_map,
        };
        let first = candidate.open().map_err(|e| match e {
            workloads::WorkloadError::Trace { message, .. } if message.contains("--") => {
                usage(message)
            }
            other => other.into(),
        })?;
        let opts = read.options(path, input.format).map_err(usage)?;
        Ok(TraceInput {
            label: format!("{} by {}", path.display(), candidate.key),
            files: vec![TraceFile {
                given: path.clone(),
                opts,
                format: TraceFormat::Csv,
            }],
            key_type: KeyType::Bytes,
            len_hint: None,
            first: Mutex::new(Some(first)),
            first_tally: None,
            candidate: Some(candidate),
        })
    }

    /// The format of the first file (which gives the unit of timestamps when the trace's
    /// files differ).
    pub fn format(&self) -> TraceFormat {
        self.files[0].format
    }

    /// True when the trace is read once (standard input, a FIFO, `<(cmd)`): it cannot be
    /// replayed a second time.
    pub fn read_once(&self) -> bool {
        self.files[0].opts.tally.is_some()
    }

    /// The stream opened to check the trace (once).
    fn take_first(&self) -> Option<Box<dyn EventSource>> {
        self.first.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Starts checksumming the trace's files, one after the other, on their own thread (it
    /// runs beside the replay); `None` for a trace read once or of one regular file, whose
    /// bytes are tallied as the replay reads them ([`TraceInput::tallied_checksum`]).
    pub fn spawn_checksum(&self) -> Option<Checksums> {
        if self.read_once() || self.first_tally.is_some() {
            return None;
        }
        Some(spawn_checksums(
            self.files.iter().map(|f| f.opts.path.clone()).collect(),
        ))
    }
}

impl TraceInput {
    /// The checksum of the trace's one file from the bytes its first stream read: all of
    /// them for a trace read once; a regular file is read again unless its stream read it
    /// whole (the replay stopped early, or read another opening).
    fn tallied_checksum(&self) -> Result<InputFile> {
        let path = &self.files[0].opts.path;
        let failed = || format!("cannot checksum the trace '{}'", path.display());
        match (&self.files[0].opts.tally, &self.first_tally) {
            (Some(tally), _) => Ok(trace_source::tallied(tally)),
            (None, Some(tally))
                if std::fs::metadata(path).with_context(failed)?.len() == tally.bytes() =>
            {
                Ok(trace_source::tallied(tally))
            }
            _ => InputFile::checksum(path).with_context(failed),
        }
    }
}

/// Checksums `paths` one after the other on their own thread.
pub fn spawn_checksums(paths: Vec<PathBuf>) -> Checksums {
    std::thread::spawn(move || {
        paths
            .iter()
            .map(|p| {
                InputFile::checksum(p)
                    .map_err(|e| std::io::Error::new(e.kind(), format!("'{}': {e}", p.display())))
            })
            .collect()
    })
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

/// The inputs with their checksums: every file of the trace (with its format and the
/// records skipped, which are also printed), whose checksums are computed on their own thread
/// (or tallied as it was read, for a trace read once), and every boundaries file of the
/// schemes.
pub fn input_checksums(
    schemes: &[SchemeSpec],
    trace: Option<(&TraceInput, Option<Checksums>)>,
) -> Result<Vec<InputFile>> {
    let failed = |p: &Path| format!("cannot checksum input '{}'", p.display());
    let mut inputs = Vec::new();
    if let Some((t, sums)) = trace {
        let sums = match sums {
            Some(sums) => sums
                .join()
                .map_err(|_| anyhow::anyhow!("the checksum thread panicked"))?
                .context("cannot checksum the trace")?,
            None => vec![t.tallied_checksum()?],
        };
        for (file, sum) in t.files.iter().zip(sums) {
            let log = &file.opts.invalid.log;
            crate::inspect::report_skipped(log);
            inputs.push(InputFile {
                path: file.given.display().to_string(),
                format: Some(file.format.name().to_string()),
                invalid_records_skipped: file.opts.invalid.skips().then_some(log.skipped()),
                ..sum
            });
        }
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
