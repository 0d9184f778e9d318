//! The one pass over the stream for layouts that change while events replay
//! ([`schemes::changing`]):
//! each such layout runs on a thread of its own, fed every event of the stream in order from
//! the replay that routes the fixed schemes, so every input (standard input and FIFOs
//! included) is read once for all schemes. A [`StreamWatch`] is fed the same way, until it
//! wants no more.
//!
//! The warm-up is handed over as it is read ([`Feed::send`]); the measured pieces, decoded by
//! the replay's workers in parallel and out of order, are put back in stream order
//! ([`Feed::push`]). A piece waits here only until the pieces before it are decoded: the
//! workers cut pieces in turn and each holds one at a time, so at most one piece per worker
//! waits. Each layout's queue holds [`QUEUE_CHUNKS`] chunks; a layout slower than the replay
//! holds the workers back rather than letting chunks pile up, so memory stays bounded.

use std::collections::BTreeMap;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{Scope, ScopedJoinHandle};

use workloads::{EventChunk, EventSource, WorkloadError};

use super::watch::StreamWatch;
use crate::changing::{drive_layout, LayoutOptions, LayoutRun};
use schemes::changing::{ChangingLayout, LayoutEnd};
use schemes::{AnalysisError, SchemeSpec};

/// Chunks queued for each changing layout before the replay waits for it.
const QUEUE_CHUNKS: usize = 2;

/// Hands the stream's chunks, in order, to every changing layout's thread.
pub(crate) struct Feed<'w> {
    state: Mutex<FeedState<'w>>,
}

struct FeedState<'w> {
    /// One queue per layout still reading (a layout that stopped early drops its queue).
    queues: Vec<SyncSender<Arc<EventChunk>>>,
    /// The watch, while it reads, when it runs on the replay's one worker rather than on a
    /// thread of its own (`--threads 1` replays on one core).
    inline: Option<&'w dyn StreamWatch>,
    /// The number of the next measured piece to hand over.
    next: usize,
    /// Measured pieces decoded before the ones ahead of them.
    waiting: BTreeMap<usize, Arc<EventChunk>>,
}

/// The threads of the changing layouts, started on a feed.
pub(crate) struct Simulations<'scope> {
    handles: Vec<ScopedJoinHandle<'scope, Result<LayoutRun, AnalysisError>>>,
    /// The watch's thread, when there is one.
    watching: Option<ScopedJoinHandle<'scope, ()>>,
}

impl<'env> Feed<'env> {
    /// Starts every changing layout of `schemes` (errors in their parameters come first), each
    /// on a thread of its own replaying what the feed hands it through `opts`, and `watch` on
    /// a thread of its own (on the worker itself when the replay has one); `None` when there
    /// is neither.
    pub(crate) fn start<'scope>(
        scope: &'scope Scope<'scope, 'env>,
        schemes: &[SchemeSpec],
        opts: LayoutOptions,
        watch: Option<&'env dyn StreamWatch>,
    ) -> Result<Option<(Feed<'env>, Simulations<'scope>)>, AnalysisError> {
        let setup = opts.setup();
        let layouts: Vec<(String, &'static LayoutEnd, Box<dyn ChangingLayout>)> = schemes
            .iter()
            .filter(|spec| spec.is_changing())
            .map(|spec| {
                spec.start_layout(&setup)
                    .map(|(layout, end)| (spec.label(), end, layout))
            })
            .collect::<Result<_, _>>()?;
        if layouts.is_empty() && watch.is_none() {
            return Ok(None);
        }
        let mut queues = Vec::with_capacity(layouts.len() + 1);
        let mut handles = Vec::with_capacity(layouts.len());
        for (label, end, mut layout) in layouts {
            let (queue, chunks) = sync_channel(QUEUE_CHUNKS);
            queues.push(queue);
            handles.push(scope.spawn(move || {
                drive_layout(layout.as_mut(), (label, end), &opts, &mut Fed::new(chunks))
            }));
        }
        let one_worker = rayon::current_num_threads() == 1;
        let inline = watch.filter(|_| one_worker);
        let watching = watch.filter(|_| !one_worker).map(|watch| {
            let (queue, chunks) = sync_channel::<Arc<EventChunk>>(QUEUE_CHUNKS);
            queues.push(queue);
            // Once it wants no more, its queue is dropped and the feed stops handing it chunks.
            scope.spawn(move || {
                while chunks.recv().is_ok_and(|chunk| watch.watch(&chunk)) {}
                watch.finish();
            })
        });
        let feed = Feed {
            state: Mutex::new(FeedState {
                queues,
                inline,
                next: 0,
                waiting: BTreeMap::new(),
            }),
        };
        Ok(Some((feed, Simulations { handles, watching })))
    }

    /// Hands `chunk`, the next events of the stream, to every layout (the warm-up, read in
    /// order by one thread).
    pub(crate) fn send(&self, chunk: &EventChunk) {
        let mut state = self.lock();
        if state.reading() {
            state.hand_over(Arc::new(chunk.clone()));
        }
    }

    /// Numbers the measured pieces from `first_seq` on (the number of the replay's first
    /// piece).
    pub(crate) fn start_pieces(&self, first_seq: usize) {
        self.lock().next = first_seq;
    }

    /// Takes measured piece `seq`, handing it and every piece it was holding back to the
    /// layouts once the pieces before it are handed over.
    pub(crate) fn push(&self, seq: usize, chunk: &EventChunk) {
        let mut state = self.lock();
        if !state.reading() {
            // No one reads any more (a watch that has seen enough): nothing to copy.
            return;
        }
        state.waiting.insert(seq, Arc::new(chunk.clone()));
        loop {
            let next = state.next;
            let Some(chunk) = state.waiting.remove(&next) else {
                break;
            };
            state.hand_over(chunk);
            state.next += 1;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, FeedState<'env>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl FeedState<'_> {
    /// Whether anyone still reads.
    fn reading(&self) -> bool {
        !self.queues.is_empty() || self.inline.is_some()
    }

    /// Queues `chunk` for every layout still reading, waiting while a queue is full (and
    /// hands it to the watch on this worker, when it runs here).
    fn hand_over(&mut self, chunk: Arc<EventChunk>) {
        if let Some(watch) = self.inline {
            if !watch.watch(&chunk) {
                watch.finish();
                self.inline = None;
            }
        }
        // A layout whose thread stopped (an error it reports when joined) reads no more.
        self.queues.retain(|q| q.send(Arc::clone(&chunk)).is_ok());
    }
}

impl Simulations<'_> {
    /// Ends the stream (dropping `feed`) and waits for every layout's run, in the order of
    /// the schemes.
    pub(crate) fn finish(self, feed: Feed<'_>) -> Result<Vec<Arc<LayoutRun>>, AnalysisError> {
        if let Some(watch) = feed.lock().inline.take() {
            watch.finish();
        }
        drop(feed);
        if let Some(watching) = self.watching {
            watching
                .join()
                .map_err(|_| AnalysisError::Config("a stream watch's thread panicked".into()))?;
        }
        self.handles
            .into_iter()
            .map(|h| {
                h.join()
                    .map_err(|_| {
                        AnalysisError::Config("a changing layout's thread panicked".into())
                    })?
                    .map(Arc::new)
            })
            .collect()
    }
}

/// The events a layout's thread reads: the chunks the feed hands it, in order, until the feed
/// is dropped.
struct Fed {
    chunks: Receiver<Arc<EventChunk>>,
    current: Option<Arc<EventChunk>>,
    /// The next event of `current` to hand out.
    at: usize,
}

impl Fed {
    fn new(chunks: Receiver<Arc<EventChunk>>) -> Self {
        Fed {
            chunks,
            current: None,
            at: 0,
        }
    }
}

impl EventSource for Fed {
    fn fill(&mut self, chunk: &mut EventChunk, max: usize) -> Result<usize, WorkloadError> {
        if max == 0 {
            return Ok(0);
        }
        loop {
            if let Some(current) = &self.current {
                let n = (current.len() - self.at).min(max);
                if n > 0 {
                    for i in self.at..self.at + n {
                        chunk.push(current.get(i));
                    }
                    self.at += n;
                    return Ok(n);
                }
            }
            match self.chunks.recv() {
                Ok(next) => {
                    self.current = Some(next);
                    self.at = 0;
                }
                Err(_) => return Ok(0),
            }
        }
    }
}
