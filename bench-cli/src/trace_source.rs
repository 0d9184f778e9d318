//! The event stream of `run --trace` and `plan --trace`, read once: the stream opened to
//! check the trace is the one replayed. A regular file may be opened again (a sweep over
//! shard counts, a scheme placing keys in arrival order); standard input, a FIFO or `<(cmd)` may not, and nothing
//! is copied aside.

use std::sync::Mutex;

use engine::replay::StreamWatch;

use reports::manifest::InputFile;
use workloads::inspect::{InspectConfig, Profiler, TraceProfile};
use workloads::trace::files::FileChain;
use workloads::trace::{ByteTally, TraceOptions};
use workloads::{EventChunk, EventSource, KeyType, WorkloadError};

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

/// The `shardlab inspect` profile of the first events of a stream, taken as the replay hands
/// them over in order ([`StreamWatch`]: on a thread of its own, from the events the workers
/// decoded), and finished there too, beside the rest of the run.
pub struct PrefixProfile {
    state: Mutex<Profile>,
    limit: usize,
    /// The unit of the trace's timestamps, when its format defines it.
    time_unit_ns: Option<u64>,
}

/// A profile being taken, or finished; with the number of events it saw.
enum Profile {
    Taking(Box<Profiler>, usize),
    Done(Box<TraceProfile>, usize),
}

impl PrefixProfile {
    /// A profile of the first `limit` events of a trace with keys of `key_type` and
    /// timestamps in units of `time_unit_ns`.
    pub fn new(limit: usize, key_type: KeyType, time_unit_ns: Option<u64>) -> Self {
        let cfg = InspectConfig {
            key_type,
            ..InspectConfig::default()
        };
        PrefixProfile {
            state: Mutex::new(Profile::Taking(Box::new(Profiler::new(&cfg)), 0)),
            limit,
            time_unit_ns,
        }
    }

    /// The profile and the number of events it saw.
    pub fn into_profile(self) -> (TraceProfile, usize) {
        match self.state.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Profile::Taking(profiler, seen) => (profiler.finish(self.time_unit_ns), seen),
            Profile::Done(profile, seen) => (*profile, seen),
        }
    }
}

impl StreamWatch for PrefixProfile {
    fn watch(&self, chunk: &EventChunk) -> bool {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let Profile::Taking(profiler, seen) = &mut *state else {
            return false;
        };
        let take = chunk.len().min(self.limit - *seen);
        profiler.add_events(chunk, 0..take);
        *seen += take;
        *seen < self.limit
    }

    fn finish(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Profile::Taking(profiler, seen) = &mut *state {
            let taken = std::mem::replace(profiler, Box::new(Profiler::new(&Default::default())));
            *state = Profile::Done(Box::new(taken.finish(self.time_unit_ns)), *seen);
        }
    }
}
