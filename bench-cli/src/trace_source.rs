//! The event stream of `run --trace` and `plan --trace`, read once: the stream opened to
//! check the trace is the one replayed. A regular file may be opened again (a sweep over
//! shard counts, a scheme placing keys in arrival order); standard input, a FIFO or `<(cmd)` may not, and nothing
//! is copied aside.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use reports::manifest::InputFile;
use workloads::inspect::{InspectConfig, Profiler};
use workloads::trace::files::FileChain;
use workloads::trace::{ByteTally, TraceOptions};
use workloads::{EventChunk, EventSource, KeyType, Piece, PieceDecoder, WorkloadError};

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

/// The `shardlab inspect` profile of the first events of a stream, taken as they go by:
/// raw bytes as the thread that decodes them decodes them, in stream order.
#[derive(Clone)]
pub struct PrefixProfile {
    state: Arc<Mutex<ProfileState>>,
    limit: usize,
    cfg: InspectConfig,
}

/// The profile so far and the runs of events decoded before their turn.
struct ProfileState {
    profiler: Profiler,
    /// Events added.
    seen: usize,
    /// The number of the next run of events to add, in stream order.
    next: usize,
    /// Runs decoded before the ones ahead of them (at most about one per replay worker).
    waiting: BTreeMap<usize, EventChunk>,
}

impl ProfileState {
    /// Adds the events of `chunk` at `events` up to the profile's `limit`.
    fn add(&mut self, chunk: &EventChunk, events: Range<usize>, limit: usize) {
        let take = events.len().min(limit - self.seen);
        if take == 0 {
            return;
        }
        self.profiler
            .add_events(chunk, events.start..events.start + take);
        self.seen += take;
    }
}

impl PrefixProfile {
    /// A profile of the first `limit` events of a trace with keys of `key_type`.
    pub fn new(limit: usize, key_type: KeyType) -> Self {
        let cfg = InspectConfig {
            key_type,
            ..InspectConfig::default()
        };
        PrefixProfile {
            state: Arc::new(Mutex::new(ProfileState {
                profiler: Profiler::new(&cfg),
                seen: 0,
                next: 0,
                waiting: BTreeMap::new(),
            })),
            limit,
            cfg,
        }
    }

    /// `source`, whose first events are added to this profile as they are read.
    pub fn watch(&self, source: Box<dyn EventSource>) -> Box<dyn EventSource> {
        Box::new(Watched {
            inner: source,
            profile: self.clone(),
            next: 0,
        })
    }

    /// The profiler and the number of events it saw (it starts again empty).
    pub fn take(&self) -> (Profiler, usize) {
        let mut state = self.lock();
        let fresh = Profiler::new(&self.cfg);
        (std::mem::replace(&mut state.profiler, fresh), state.seen)
    }

    /// True once the profile has all its events.
    fn full(&self) -> bool {
        self.lock().seen == self.limit
    }

    /// Adds the events of `chunk` at `events`, run number `seq` of the stream: at once when
    /// every run before it was added, else (copied) once they are.
    fn add(&self, seq: usize, chunk: &EventChunk, events: Range<usize>) {
        let mut guard = self.lock();
        let state = &mut *guard;
        if seq != state.next {
            let mut early = EventChunk::with_capacity(events.len());
            events.for_each(|i| early.push(chunk.get(i)));
            state.waiting.insert(seq, early);
            return;
        }
        state.add(chunk, events, self.limit);
        state.next += 1;
        while let Some(early) = state.waiting.remove(&state.next) {
            state.add(&early, 0..early.len(), self.limit);
            state.next += 1;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ProfileState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A stream that feeds its first events to a [`PrefixProfile`], each run of events (decoded
/// here, or raw bytes decoded later) numbered in stream order.
struct Watched {
    inner: Box<dyn EventSource>,
    profile: PrefixProfile,
    /// The number of the next run.
    next: usize,
}

impl EventSource for Watched {
    fn fill(&mut self, chunk: &mut EventChunk, max: usize) -> Result<usize, WorkloadError> {
        let before = chunk.len();
        let n = self.inner.fill(chunk, max)?;
        if !self.profile.full() {
            self.profile.add(self.next, chunk, before..before + n);
            self.next += 1;
        }
        Ok(n)
    }

    /// Raw bytes stay raw: their decoder adds them to the profile once it has decoded them.
    fn fill_piece(&mut self, piece: &mut Piece, max: usize) -> Result<usize, WorkloadError> {
        if self.profile.full() {
            return self.inner.fill_piece(piece, max);
        }
        // Bytes left raw before this call are profiled by their decoders, before these.
        piece.decode()?;
        let (before, runs) = (piece.chunk().len(), piece.raw_runs());
        let n = self.inner.fill_piece(piece, max)?;
        let decoded = before..piece.chunk().len();
        if !decoded.is_empty() {
            self.profile.add(self.next, piece.chunk(), decoded);
            self.next += 1;
        }
        piece.wrap_decoders(runs, |inner| {
            self.next += 1;
            Arc::new(Profiled {
                inner: Arc::clone(inner),
                profile: self.profile.clone(),
                seq: self.next - 1,
            })
        });
        Ok(n)
    }

    fn len_hint(&self) -> Option<u64> {
        self.inner.len_hint()
    }
}

/// Decodes raw bytes, then adds their events to a profile as run `seq` of the stream.
struct Profiled {
    inner: Arc<dyn PieceDecoder>,
    profile: PrefixProfile,
    seq: usize,
}

impl PieceDecoder for Profiled {
    fn decode(&self, bytes: &[u8], at: u64, chunk: &mut EventChunk) -> Result<(), WorkloadError> {
        let before = chunk.len();
        self.inner.decode(bytes, at, chunk)?;
        self.profile.add(self.seq, chunk, before..chunk.len());
        Ok(())
    }
}
