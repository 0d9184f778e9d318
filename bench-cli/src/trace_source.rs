//! The event stream of `run --trace` and `plan --trace`, read once: the stream opened to
//! check the trace is the one replayed. A regular file may be opened again (a sweep over
//! shard counts, a scheme placing keys in arrival order); standard input, a FIFO or `<(cmd)` may not, and nothing
//! is copied aside.

use std::sync::{Arc, Mutex};

use reports::manifest::InputFile;
use workloads::inspect::{InspectConfig, Profiler};
use workloads::trace::files::FileChain;
use workloads::trace::{ByteTally, TraceOptions};
use workloads::{EventChunk, EventSource, KeyType, Piece, WorkloadError};

/// Opens a workload's events from the start (called once per pass).
pub type Opener = Box<dyn Fn() -> Result<Box<dyn EventSource>, WorkloadError> + Sync>;

/// The opener of a trace whose first stream, `first`, is already open: it is handed out
/// once; later calls reopen regular files (several in order as one stream, every one with
/// keys of `key_type` and `len_hint` events in all when known) and refuse an input read once.
pub fn opener(
    files: Vec<TraceOptions>,
    key_type: KeyType,
    len_hint: Option<u64>,
    first: Option<Box<dyn EventSource>>,
) -> Opener {
    let first = Mutex::new(first);
    Box::new(move || {
        if let Some(source) = first.lock().ok().and_then(|mut f| f.take()) {
            return Ok(source);
        }
        if let [opts] = files.as_slice() {
            if !workloads::trace::rereadable(&opts.path) {
                return Err(WorkloadError::Trace {
                    path: opts.shown(),
                    message: "is read once (standard input, a FIFO or a process substitution) \
                              but was needed a second time; give a regular file"
                        .into(),
                });
            }
            return workloads::trace::open(opts);
        }
        Ok(Box::new(FileChain::new(
            files.clone(),
            None,
            key_type,
            len_hint,
        )))
    })
}

/// The checksum of an input read once, from the tally of its bytes (the path is left to fill).
pub fn tallied(tally: &ByteTally) -> InputFile {
    InputFile {
        path: String::new(),
        bytes: tally.bytes(),
        xxh3_128: format!("{:032x}", tally.xxh3_128()),
        format: None,
        invalid_records_skipped: None,
    }
}

/// The `shardlab inspect` profile of the first events of a stream, taken as they go by.
#[derive(Clone)]
pub struct PrefixProfile {
    state: Arc<Mutex<(Profiler, usize)>>,
    limit: usize,
    cfg: InspectConfig,
}

impl PrefixProfile {
    /// A profile of the first `limit` events of a trace with keys of `key_type`.
    pub fn new(limit: usize, key_type: KeyType) -> Self {
        let cfg = InspectConfig {
            key_type,
            ..InspectConfig::default()
        };
        PrefixProfile {
            state: Arc::new(Mutex::new((Profiler::new(&cfg), 0))),
            limit,
            cfg,
        }
    }

    /// `source`, whose first events are added to this profile as they are read.
    pub fn watch(&self, source: Box<dyn EventSource>) -> Box<dyn EventSource> {
        Box::new(Watched {
            inner: source,
            profile: self.clone(),
            full: false,
        })
    }

    /// The profiler and the number of events it saw (it starts again empty).
    pub fn take(&self) -> (Profiler, usize) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let fresh = Profiler::new(&self.cfg);
        (std::mem::replace(&mut state.0, fresh), state.1)
    }
}

/// A stream that feeds its first events to a [`PrefixProfile`].
struct Watched {
    inner: Box<dyn EventSource>,
    profile: PrefixProfile,
    /// The profile has all its events.
    full: bool,
}

impl EventSource for Watched {
    fn fill(&mut self, chunk: &mut EventChunk, max: usize) -> Result<usize, WorkloadError> {
        let before = chunk.len();
        let n = self.inner.fill(chunk, max)?;
        if self.full {
            return Ok(n);
        }
        if let Ok(mut state) = self.profile.state.lock() {
            let (profiler, seen) = &mut *state;
            let take = n.min(self.profile.limit - *seen);
            profiler.add_events(chunk, before..before + take);
            *seen += take;
            self.full = *seen == self.profile.limit;
        }
        Ok(n)
    }

    /// Decoded here while the profile takes events (it needs them decoded, in order); raw
    /// pieces from the inner stream afterwards.
    fn fill_piece(&mut self, piece: &mut Piece, max: usize) -> Result<usize, WorkloadError> {
        if self.full {
            return self.inner.fill_piece(piece, max);
        }
        piece.push_decoded(|chunk| self.fill(chunk, max))
    }

    fn len_hint(&self) -> Option<u64> {
        self.inner.len_hint()
    }
}
