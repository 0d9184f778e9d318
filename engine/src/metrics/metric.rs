//! What a registered metric is ([`Metric`]) and what it works on: the chunks of events routed
//! through one scheme ([`Routed`]) and, at the end, everything the replay knows about one
//! scheme ([`Finish`]).
//!
//! A metric declares its rows of [`super::METRICS`], starts an [`Accumulator`] per scheme
//! (when it counts something per event), and finishes the merged accumulator into the result
//! rows. Accumulators merge exactly (counts add, histograms merge) and encode to bytes and
//! back without loss, so the parts of a trace may be accumulated anywhere, in any order, and
//! merged into the numbers of the whole.
//!
//! Adding a metric: one file under `metrics/registry/` implementing [`Metric`] (with a
//! [`State`] when it counts per event) and one line in [`super::REGISTRY`]; its rows go in the
//! metric table of docs/metrics.md.

use std::any::Any;

use serde::de::DeserializeOwned;
use serde::Serialize;
use workloads::{Event, EventChunk, Op};

use super::failure::FailTarget;
use super::key_sample::{KeySample, MetricEstimate};
use super::load::LoadSample;
use super::{LatencyConfig, MetricDef, MetricId, SchemeResult, WorkloadResult};
use schemes::{AnalysisError, KeyCounts, Partitioner, ShardId};

/// One chunk of measured events routed through one scheme: what an accumulator records.
pub struct Routed<'a> {
    /// The events; event `i` is at measured position `chunk.first_index + i`.
    pub chunk: &'a EventChunk,
    /// The owner of each point event, in order.
    pub point_shards: &'a [ShardId],
    /// The shards of every scan and range write, one after another in event order (empty
    /// without them).
    pub range_shards: &'a [ShardId],
    /// Where each scan's or range write's shards end in `range_shards`, one per event, in
    /// order.
    pub range_ends: &'a [u32],
}

impl Routed<'_> {
    /// True when the chunk holds no scan and no range write (every event is one request,
    /// `point_shards[i]`).
    #[inline]
    pub fn points_only(&self) -> bool {
        self.range_ends.is_empty()
    }

    /// The shards each scan and range write contacts, in order.
    fn range_slices(&self) -> impl Iterator<Item = &[ShardId]> + '_ {
        let starts = std::iter::once(0).chain(self.range_ends.iter().copied());
        starts
            .zip(self.range_ends)
            .map(|(start, &end)| &self.range_shards[start as usize..end as usize])
    }

    /// Each scan and range write with the shards it contacts, in order.
    pub fn ranges(&self) -> impl Iterator<Item = (Event<'_>, &[ShardId])> + '_ {
        let shards = self.range_slices();
        let events = self.chunk.iter().filter(|ev| !ev.is_point());
        // A chunk of points only is not walked.
        events.take(self.range_ends.len()).zip(shards)
    }

    /// The shards contacted by each scan, in order (range writes left out).
    pub fn scans(&self) -> impl Iterator<Item = &[ShardId]> + '_ {
        self.ranges()
            .filter(|(ev, _)| ev.op == Op::Scan)
            .map(|(_, shards)| shards)
    }

    /// Calls `f(position, shard)` for every shard request, in event order: one per point
    /// event, one per shard a scan or range write contacts.
    pub fn for_each_request(&self, mut f: impl FnMut(u64, ShardId)) {
        let mut ranges = self.range_slices();
        let mut points = self.point_shards.iter();
        for (i, ev) in self.chunk.iter().enumerate() {
            let index = self.chunk.first_index + i as u64;
            if ev.is_point() {
                if let Some(&shard) = points.next() {
                    f(index, shard);
                }
            } else if let Some(shards) = ranges.next() {
                shards.iter().for_each(|&shard| f(index, shard));
            }
        }
    }
}

/// What an accumulator is started for: one scheme of a replay.
#[derive(Clone, Copy)]
pub struct Start<'a> {
    /// The scheme's lookup structure.
    pub part: &'a dyn Partitioner,
    /// Events per window of the windowed metrics.
    pub window: u64,
}

/// Everything the replay knows about one scheme once every event is recorded.
pub struct Finish<'a> {
    /// The scheme's lookup structure.
    pub part: &'a dyn Partitioner,
    /// Distinct measured point keys and their requests (a hash sample past the limit).
    pub keys: &'a KeyCounts,
    /// The shard counts the remap is measured to, one result row per target.
    pub targets: &'a [u32],
    /// Measured events.
    pub events: u64,
    /// Relative shard weights (`--weights`).
    pub weights: Option<&'a [f64]>,
    /// The shard that fails (`--fail`), when asked.
    pub fail: Option<FailTarget>,
    /// How lookups are timed and the point keys to time them on; `None` skips timing.
    pub latency: Option<(&'a LatencyConfig, &'a [Vec<u8>])>,
    /// Nanoseconds the scheme took to build.
    pub build_ns: f64,
}

/// A metric (or a group of metrics measured together) in the registry.
pub trait Metric: Sync {
    /// A short name for errors and partial results (e.g. `load`).
    fn name(&self) -> &'static str;

    /// Its rows of [`super::METRICS`], in order.
    fn defs(&self) -> &'static [MetricDef];

    /// The replay phase its finishing starts (shown as progress), when it takes time with
    /// these settings (`ctx` is the first scheme's).
    fn phase(&self, _ctx: &Finish<'_>) -> Option<&'static str> {
        None
    }

    /// True for a metric that times lookups: it finishes after every other metric, so that
    /// its phase holds the timing alone and nothing else runs meanwhile.
    fn finishes_last(&self) -> bool {
        false
    }

    /// The accumulator of one scheme, when the metric counts something per event.
    fn start(&self, _scheme: &Start<'_>) -> Option<Box<dyn Accumulator>> {
        None
    }

    /// Writes the metric into the result rows of one scheme (one row per remap target,
    /// identical but for target-dependent metrics); `acc` holds every measured event.
    fn finish(
        &self,
        _acc: Option<Box<dyn Accumulator>>,
        _ctx: &Finish<'_>,
        _rows: &mut [SchemeResult],
    ) -> Result<(), AnalysisError> {
        Ok(())
    }

    /// The value of one of its metrics: outer `None` = not applicable to the scheme, inner
    /// `None` = undefined. By default, the value the metric put in
    /// [`SchemeResult::extra_metrics`].
    fn value(&self, id: MetricId, _w: &WorkloadResult, s: &SchemeResult) -> Option<Option<f64>> {
        s.extra_value(id)
    }

    /// How one of its metrics (`id`) of `s` is estimated when the replay sampled the key
    /// space (`sample`): the sample rate and 95% interval; `None` for a metric it does not
    /// have or that stays exact (see [`super::estimate`]).
    fn estimate(
        &self,
        _id: MetricId,
        _w: &WorkloadResult,
        _s: &SchemeResult,
        _sample: &KeySample,
    ) -> Option<MetricEstimate> {
        None
    }

    /// The value of one of its metrics (`id`) on a load of resampled windows (or on the
    /// measured load itself), for its block-bootstrap interval (see [`super::confidence`]);
    /// `None` for a metric it does not have or that the bootstrap gives no interval.
    fn resampled(&self, _id: MetricId, _load: &LoadSample<'_>) -> Option<f64> {
        None
    }
}

/// The state a metric keeps per scheme while events replay: exact to merge and to encode.
pub trait State: Serialize + DeserializeOwned + Send + 'static {
    /// Records one chunk of events routed through the scheme.
    fn record(&mut self, chunk: &Routed<'_>);

    /// Adds the events another state recorded (of any other part of the trace).
    fn merge(&mut self, other: Self);
}

/// A [`State`] behind a pointer: what the replay holds without knowing the metric (one call
/// per chunk, never per event).
pub trait Accumulator: Send {
    /// See [`State::record`].
    fn record(&mut self, chunk: &Routed<'_>);

    /// See [`State::merge`]; fails when `other` belongs to another metric.
    fn merge(&mut self, other: Box<dyn Accumulator>) -> Result<(), AnalysisError>;

    /// The state as bytes (postcard: compact, and several times faster than JSON for the
    /// window counts of a long trace), exact: [`Accumulator::restore`] gives it back.
    fn encode(&self) -> Result<Vec<u8>, AnalysisError>;

    /// Replaces the state with one [`Accumulator::encode`] wrote (for the same metric).
    fn restore(&mut self, bytes: &[u8]) -> Result<(), AnalysisError>;

    /// The state itself, for the metric to finish.
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

impl<S: State> Accumulator for S {
    #[inline]
    fn record(&mut self, chunk: &Routed<'_>) {
        State::record(self, chunk)
    }

    fn merge(&mut self, other: Box<dyn Accumulator>) -> Result<(), AnalysisError> {
        State::merge(self, take::<S>(other)?);
        Ok(())
    }

    fn encode(&self) -> Result<Vec<u8>, AnalysisError> {
        postcard::to_stdvec(self).map_err(|e| state_error("encode", e))
    }

    fn restore(&mut self, bytes: &[u8]) -> Result<(), AnalysisError> {
        *self = postcard::from_bytes(bytes).map_err(|e| state_error("read", e))?;
        Ok(())
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

fn state_error(what: &str, e: postcard::Error) -> AnalysisError {
    AnalysisError::Config(format!("cannot {what} a metric's accumulator state: {e}"))
}

/// The state of type `S` behind `acc`; an error when `acc` holds another metric's state.
pub fn take<S: State>(acc: Box<dyn Accumulator>) -> Result<S, AnalysisError> {
    acc.into_any()
        .downcast::<S>()
        .map(|s| *s)
        .map_err(|_| AnalysisError::Config("accumulators of different metrics merged".into()))
}
