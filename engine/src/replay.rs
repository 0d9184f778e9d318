//! The parallel replay engine.
//!
//! One workload at a time: one worker per rayon thread cuts its pieces of the input in turn
//! (raw bytes where the source can cut them undecoded, see [`workloads::Piece`]), decodes
//! them and routes their events through every scheme into its own accumulators; the accumulators are merged at the end. Counts and histograms add
//! exactly and windows are kept by index, so the results do not depend on the thread count.
//! Lookup latency is then timed single-threaded, scheme by scheme, with nothing else running.

use std::sync::Arc;

use rayon::prelude::*;
use std::time::Instant;

use workloads::{EventChunk, EventSource, KeyType, Op, Piece, WorkloadError};

use crate::changing::{LayoutOptions, LayoutRun};
use serde::{Deserialize, Serialize};

mod feed;
mod key_post;
mod pieces;
mod positions;
mod watch;

use feed::Feed;
use key_post::Post;
use pieces::{PieceCutter, PieceError, Turns};
use positions::Positions;
pub use watch::StreamWatch;

use crate::metrics::failure::FailTarget;
use crate::metrics::metric::{Accumulator, Finish, Routed, Start};
use crate::metrics::{
    confidence, placement, LatencyConfig, Remap, RouterCost, SchemeResult, ShardLoad,
    WorkloadResult, REGISTRY,
};
use crate::warmup::WarmupKeys;
use schemes::key_counts::{HashedKeys, KeyParts, PartCounts, PartCountsState};
use schemes::pinned_hash::hash64;
use schemes::range_write::range_write_shards;
use schemes::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};
use schemes::{BuildContext, SchemeSpec};

/// How a replay is run.
#[derive(Clone, Debug)]
pub struct ReplayConfig {
    /// Shard count `N`.
    pub shards: u32,
    /// Shard count `M` for the remap measurement (grow or shrink).
    pub target_shards: u32,
    /// Events per window for windowed metrics.
    pub window: u64,
    /// Share of the events used as warm-up when a scheme learns boundaries.
    pub warmup_fraction: f64,
    /// Events per chunk (rounded up to a whole number of windows).
    pub chunk_events: usize,
    /// How lookups are timed; `None` skips timing.
    pub latency: Option<LatencyConfig>,
    /// Point keys kept (in trace order) for timing lookups.
    pub latency_sample: usize,
    /// Distinct keys counted exactly before the key metrics switch to a hash sample.
    pub distinct_key_limit: usize,
    /// Also measure the load after this shard fails (`run --fail`).
    pub fail: Option<FailTarget>,
    /// Relative shard weights (`--weights`), one per shard: schemes that can honour them
    /// do, the others refuse, and balance is measured per weight.
    pub weights: Option<Vec<f64>>,
    /// Nanoseconds of one timestamp unit of the trace, for the rates of changing layouts
    /// (a balancer's `move_rate` in bytes per second of trace time).
    pub time_unit_ns: u64,
}

impl Default for ReplayConfig {
    fn default() -> Self {
        ReplayConfig {
            shards: 16,
            target_shards: 17,
            window: 10_000,
            warmup_fraction: 0.1,
            chunk_events: 1 << 16,
            latency: Some(LatencyConfig::default()),
            latency_sample: 1 << 16,
            distinct_key_limit: schemes::key_counts::DEFAULT_DISTINCT_LIMIT,
            fail: None,
            weights: None,
            time_unit_ns: 1_000,
        }
    }
}

/// A workload to replay: its label, description and a way to open its event stream (read
/// once; opened a second time only for a scheme that learns the keys' arrival order).
pub struct WorkloadInput<'a> {
    /// Label in reports.
    pub label: String,
    /// One sentence for people.
    pub description: String,
    /// How keys are displayed.
    pub key_type: KeyType,
    /// Opens the stream from its start (read once; opened again only for a scheme that
    /// places keys in arrival order).
    pub open: &'a (dyn Fn() -> Result<Box<dyn EventSource>, WorkloadError> + Sync),
    /// Sees the events of the replay's pass in stream order, on a thread of its own beside
    /// the workers (see [`StreamWatch`]); `None` for none.
    pub watch: Option<&'a dyn StreamWatch>,
}

/// Progress reported during a replay.
#[derive(Clone, Copy, Debug)]
pub enum Progress<'a> {
    /// A workload starts; `events` is its length when known.
    Started {
        /// The workload label.
        workload: &'a str,
        /// Events expected, when known.
        events: Option<u64>,
    },
    /// This many more events were processed (warm-up or measured).
    Events(u64),
    /// A named phase starts (`replay` after the warm-up, then `remap`, `latency`, `range
    /// dynamics`).
    Phase(&'static str),
    /// What the current phase is doing now, shown beside its name (which scheme, shard count
    /// and failure check a plan is on).
    Step(&'a str),
}

/// Replays one workload through every scheme, measuring remap to `cfg.target_shards`.
pub fn replay(
    input: &WorkloadInput<'_>,
    schemes: &[SchemeSpec],
    cfg: &ReplayConfig,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<WorkloadResult, AnalysisError> {
    let mut results = replay_targets(input, schemes, cfg, &[cfg.target_shards], progress)?;
    Ok(results.remove(0))
}

/// Replays one workload once and measures remap to each of `targets`: one result per
/// target, identical but for the remap figures (a sweep over growth needs one replay).
pub fn replay_targets(
    input: &WorkloadInput<'_>,
    schemes: &[SchemeSpec],
    cfg: &ReplayConfig,
    targets: &[u32],
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Vec<WorkloadResult>, AnalysisError> {
    if targets.is_empty() {
        return Err(AnalysisError::Config(
            "no target shard count to measure".into(),
        ));
    }
    for &n in targets.iter().chain([&cfg.shards]) {
        schemes::ShardCount::new(n)?;
    }
    let source = (input.open)()?;
    progress(Progress::Started {
        workload: &input.label,
        events: source.len_hint(),
    });
    let (warmup_events, mut source) = size_warmup(source, schemes, cfg.warmup_fraction)?;
    let opts = layout_options(cfg, warmup_events);
    // The layouts that change as events replay read the same pass as the fixed schemes, each
    // on a thread of its own (see `feed`).
    std::thread::scope(|scope| {
        let (feed, simulations) = Feed::start(scope, schemes, opts, input.watch)?.unzip();
        let warmup = Warmup {
            events: warmup_events,
            keys: read_warmup(source.as_mut(), warmup_events, feed.as_ref(), progress)?,
        };
        let mut built = build_fixed(schemes, cfg, &warmup, input.key_type)?;
        drop(warmup.keys);
        if built.parts.iter().any(|p| p.learns_arrival()) {
            progress(Progress::Phase("arrival order"));
            learn_arrival(&mut built.parts, (input.open)()?.as_mut())?;
        }
        progress(Progress::Phase("replay"));
        let measured = replay_measured(source, &built.parts, cfg, 0, feed.as_ref(), progress)?;
        let dynamic = match (feed, simulations) {
            (Some(feed), Some(simulations)) => simulations.finish(feed)?,
            _ => Vec::new(),
        };
        finish_with(
            input,
            schemes,
            &built,
            (cfg, targets),
            warmup_events,
            measured,
            dynamic,
            progress,
        )
    })
}

/// How the changing layouts of a replay under `cfg` are replayed.
fn layout_options(cfg: &ReplayConfig, warmup_events: u64) -> LayoutOptions {
    LayoutOptions {
        nodes: cfg.shards,
        window: cfg.window,
        warmup_events,
        time_unit_ns: cfg.time_unit_ns,
    }
}

/// Replays the whole stream of `source` (warm-up included, `warmup_events` long) through
/// every changing layout of `schemes` under `cfg`, in one pass, for a run cut into parts:
/// a layout changes with every event before it, so one part replays them all in order, and
/// [`finish_parts`] puts their runs beside the merged fixed schemes.
pub fn replay_layouts(
    mut source: Box<dyn EventSource>,
    schemes: &[SchemeSpec],
    cfg: &ReplayConfig,
    warmup_events: u64,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Vec<Arc<LayoutRun>>, AnalysisError> {
    let opts = layout_options(cfg, warmup_events);
    std::thread::scope(|scope| {
        let Some((feed, simulations)) = Feed::start(scope, schemes, opts, None)? else {
            return Ok(Vec::new());
        };
        progress(Progress::Phase("changing layouts"));
        read_events(source.as_mut(), u64::MAX, progress, |chunk| {
            feed.send(chunk)
        })?;
        simulations.finish(feed)
    })
}

/// The row changing layout `run` contributes beside the fixed schemes for growth to `target`
/// (latency and static split balance are not measured), with its distinct-key figures
/// (remap, growth, keys per node) judged on `keys`, the replay's table of the same measured
/// events: past `--distinct-limit` they are then measured on the consistent key sample the
/// workload's estimates (sample rate, intervals, per-shard key scaling) describe, as for
/// every scheme.
pub fn layout_result(run: &LayoutRun, target: u32, keys: &KeyCounts) -> SchemeResult {
    SchemeResult {
        scheme: run.label.clone(),
        shards: run.nodes.max(run.node_requests.len() as u32),
        load: run.load(),
        shard_distinct_keys: run.node_distinct_keys(keys),
        remap: run.remap_of(target, keys),
        fanout: run.fanout,
        latency: None,
        split: None,
        router: Default::default(),
        extra_metrics: run.metrics.clone(),
        intervals: Vec::new(),
    }
}

/// The warm-up of a workload, learned once from the start of its stream: how many events
/// it is ([`crate::warmup::size_warmup`]) and their distinct keys, sorted (a consistent
/// sample past [`crate::warmup::WARMUP_KEY_LIMIT`]). A run cut into parts learns it once and
/// hands it to every part ([`replay_part`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Warmup {
    /// Events of the warm-up (0 when no scheme learns boundaries).
    pub events: u64,
    /// Its distinct keys (point keys and scan starts), sorted.
    pub keys: Vec<Vec<u8>>,
}

/// Sizes and reads the warm-up at the start of `source` when one of `schemes` learns
/// boundaries (a `fraction` of the stream's start, see [`crate::warmup::size_warmup`]), and
/// returns it with the stream positioned after it: the input is read once.
pub fn learn_warmup(
    source: Box<dyn EventSource>,
    schemes: &[SchemeSpec],
    fraction: f64,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<(Warmup, Box<dyn EventSource>), AnalysisError> {
    let (events, mut source) = size_warmup(source, schemes, fraction)?;
    let keys = read_warmup(source.as_mut(), events, None, progress)?;
    Ok((Warmup { events, keys }, source))
}

/// The length of the warm-up at the start of `source` (none when no scheme of `schemes`
/// learns boundaries), with the stream still at its start.
fn size_warmup(
    source: Box<dyn EventSource>,
    schemes: &[SchemeSpec],
    fraction: f64,
) -> Result<(u64, Box<dyn EventSource>), AnalysisError> {
    let learns = schemes.iter().any(SchemeSpec::needs_warmup);
    Ok(crate::warmup::size_warmup(
        source,
        if learns { fraction } else { 0.0 },
    )?)
}

/// The fixed (not simulated) schemes of a run, built from its warm-up, with their build
/// times.
pub struct BuiltSchemes<'s> {
    /// Their specs, in the order given.
    pub specs: Vec<&'s SchemeSpec>,
    /// The partitioners.
    pub parts: Vec<Box<dyn Partitioner>>,
    /// Nanoseconds each took to build (a timing metric).
    pub build_ns: Vec<f64>,
}

/// Builds the fixed schemes of `schemes` on `cfg.shards` shards from `warmup`.
pub fn build_fixed<'s>(
    schemes: &'s [SchemeSpec],
    cfg: &ReplayConfig,
    warmup: &Warmup,
    key_type: KeyType,
) -> Result<BuiltSchemes<'s>, AnalysisError> {
    let ctx = BuildContext {
        shards: cfg.shards,
        warmup_keys: &warmup.keys,
        key_type,
        weights: cfg.weights.as_deref(),
    };
    let specs: Vec<&SchemeSpec> = schemes.iter().filter(|s| !s.is_changing()).collect();
    let (parts, build_ns) = specs
        .iter()
        .map(|s| build_timed(s, &ctx))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .unzip();
    Ok(BuiltSchemes {
        specs,
        parts,
        build_ns,
    })
}

/// Why the fixed schemes of `built` cannot be measured in parts ([`replay_part`]): a scheme
/// that places keys in their order of first appearance needs every key of the whole stream
/// before the replay.
pub fn refuse_parts(built: &BuiltSchemes<'_>) -> Result<(), AnalysisError> {
    let arrival = built
        .specs
        .iter()
        .zip(&built.parts)
        .find(|(_, p)| p.learns_arrival());
    match arrival {
        None => Ok(()),
        Some((s, _)) => Err(AnalysisError::Config(format!(
            "a run cut into parts cannot measure scheme '{}', which places keys in the order \
             they first appear in the whole stream; run it whole, or leave it out of --schemes",
            s.label()
        ))),
    }
}

/// Replays one part of a workload cut into parts: `source` holds the events of the whole
/// stream from position `first_event` on (counting the warm-up, as the whole stream does),
/// up to the next part's first event. Events before `warmup_events` are the warm-up, read
/// and not measured; the others are measured at their positions in the whole stream, so
/// windows and the latency sample come out as in a single run. The parts' [`Partial`]s
/// merge ([`Partial::merge`]) into what the whole replay accumulates, and
/// [`finish_parts`] finishes them.
pub fn replay_part(
    mut source: Box<dyn EventSource>,
    built: &BuiltSchemes<'_>,
    cfg: &ReplayConfig,
    warmup_events: u64,
    first_event: u64,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Partial, AnalysisError> {
    let skip = warmup_events.saturating_sub(first_event);
    let skipped = read_events(source.as_mut(), skip, progress, |_| {})?;
    if skipped < skip {
        // The part ends within the warm-up: nothing of it is measured.
        return Ok(empty_partial(&built.parts, cfg));
    }
    progress(Progress::Phase("replay"));
    let first = (first_event + skip) - warmup_events;
    replay_measured(source, &built.parts, cfg, first, None, progress)
}

/// A partial result that holds no events, for `parts`.
pub fn empty_partial(parts: &[Box<dyn Partitioner>], cfg: &ReplayConfig) -> Partial {
    let key_parts = KeyParts::for_limit(cfg.distinct_key_limit);
    Partial::new(parts, cfg.window.max(1), key_parts, 0..key_parts.count)
}

/// Finishes the merged [`Partial`] of every part of a run cut into parts (see
/// [`replay_part`]) and the runs of its changing layouts ([`replay_layouts`], in the order
/// of `schemes`) into the rows a single [`replay_targets`] gives: one result per target.
#[allow(clippy::too_many_arguments)]
pub fn finish_parts(
    input: &WorkloadInput<'_>,
    schemes: &[SchemeSpec],
    built: &BuiltSchemes<'_>,
    (cfg, targets): (&ReplayConfig, &[u32]),
    warmup_events: u64,
    merged: Partial,
    layouts: Vec<Arc<LayoutRun>>,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Vec<WorkloadResult>, AnalysisError> {
    let changing: Vec<String> = schemes
        .iter()
        .filter(|s| s.is_changing())
        .map(SchemeSpec::label)
        .collect();
    let given: Vec<&str> = layouts.iter().map(|r| r.label.as_str()).collect();
    if changing != given {
        return Err(AnalysisError::Config(format!(
            "the parts hold the runs of changing layouts {given:?}, not of {changing:?}"
        )));
    }
    finish_with(
        input,
        schemes,
        built,
        (cfg, targets),
        warmup_events,
        merged,
        layouts,
        progress,
    )
}

/// Finishes the fixed schemes' metrics and puts every scheme's rows (the simulated ones'
/// from their `dynamic` runs, in order) in the order the schemes were given, with their
/// intervals.
#[allow(clippy::too_many_arguments)]
fn finish_with(
    input: &WorkloadInput<'_>,
    schemes: &[SchemeSpec],
    built: &BuiltSchemes<'_>,
    (cfg, targets): (&ReplayConfig, &[u32]),
    warmup_events: u64,
    measured: Partial,
    dynamic: Vec<Arc<LayoutRun>>,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Vec<WorkloadResult>, AnalysisError> {
    let measured = measured.into_measured();
    if measured.events == 0 {
        return Err(AnalysisError::Config(format!(
            "workload '{}' has no events to measure after a warm-up of {warmup_events} events",
            input.label
        )));
    }
    let keys = &measured.keys;
    let finish_input = FinishInput {
        keys,
        events: measured.events,
        sample: measured.sample,
        targets,
        cfg,
    };
    let mut fixed_rows = finish(
        finish_input,
        measured.schemes,
        &built.specs,
        &built.parts,
        &built.build_ns,
        progress,
    )?
    .into_iter();
    // Put every scheme's rows back in the order the schemes were given.
    let mut dynamic_runs = dynamic.iter();
    let mut rows: Vec<Vec<SchemeResult>> = Vec::with_capacity(schemes.len());
    for spec in schemes {
        rows.push(if spec.is_changing() {
            let run = dynamic_runs
                .next()
                .ok_or_else(|| AnalysisError::Config("missing dynamic run".into()))?;
            targets
                .iter()
                .map(|&m| layout_result(run, m, keys))
                .collect()
        } else {
            fixed_rows
                .next()
                .ok_or_else(|| AnalysisError::Config("missing scheme result".into()))?
        });
    }
    // The resampling seed depends on the scheme and shard count only, not on the workload's
    // label: the same events give the same intervals whether they come from a generator or
    // from the trace it wrote.
    // Hashed schemes' intervals also cover the luck of their placement (see
    // `metrics::placement`); the fixed schemes' layouts are in `built.parts`, in order.
    let mut fixed_parts = built.parts.iter();
    let parts: Vec<Option<&dyn Partitioner>> = schemes
        .iter()
        .map(|spec| match spec.is_changing() {
            true => None,
            false => fixed_parts.next().map(|p| p.as_ref()),
        })
        .collect();
    let heavy = placement::HeavyKeys::of(keys);
    // Scheme by scheme in parallel: each one's intervals are its own.
    rows.par_iter_mut()
        .zip(parts)
        .for_each(|(scheme_rows, part)| {
            let row = &scheme_rows[0];
            let seed =
                xxhash_rust::xxh3::xxh3_64(format!("{}\0{}", row.scheme, row.shards).as_bytes());
            let mut intervals = confidence::bootstrap(&row.load, measured.events, seed);
            if let Some(part) = part {
                let spread = placement::spread(part, &heavy, &row.load, measured.events);
                placement::join(&mut intervals, spread);
            }
            for r in scheme_rows.iter_mut() {
                r.intervals = intervals.clone();
            }
        });
    let result = WorkloadResult {
        changing: dynamic,
        ..workload_figures(input, warmup_events, measured.events, measured.scans, keys)
    };
    let mut per_target: Vec<Vec<SchemeResult>> = targets.iter().map(|_| Vec::new()).collect();
    for scheme_rows in rows {
        for (t, row) in scheme_rows.into_iter().enumerate() {
            per_target[t].push(row);
        }
    }
    Ok(per_target
        .into_iter()
        .map(|schemes| WorkloadResult {
            schemes,
            ..result.clone()
        })
        .collect())
}

/// The figures of the whole workload (no scheme rows yet).
fn workload_figures(
    input: &WorkloadInput<'_>,
    warmup_events: u64,
    events: u64,
    scans: u64,
    keys: &KeyCounts,
) -> WorkloadResult {
    WorkloadResult {
        workload: input.label.clone(),
        description: input.description.clone(),
        key_type: input.key_type,
        events_measured: events,
        warmup_events,
        distinct_keys: keys.distinct().value.round() as u64,
        point_requests: keys.total(),
        scans,
        hottest_key: keys.hottest().map(|h| (h.key, h.count)),
        key_sample: crate::metrics::estimate::KeySample::of(keys),
        schemes: Vec::new(),
        changing: Vec::new(),
    }
}

/// What finishing the fixed schemes' metrics needs besides their accumulators.
struct FinishInput<'a> {
    keys: &'a KeyCounts,
    events: u64,
    /// Point keys with their positions, for timing lookups.
    sample: Vec<(u64, Vec<u8>)>,
    targets: &'a [u32],
    cfg: &'a ReplayConfig,
}

/// Finishes every registered metric of every fixed scheme: one row per scheme and target.
/// Metric by metric, so that each phase (remap, latency) runs for every scheme in turn, and
/// lookups are timed with nothing else running.
fn finish(
    input: FinishInput<'_>,
    mut accs: Vec<SchemeAccs>,
    specs: &[&SchemeSpec],
    parts: &[Box<dyn Partitioner>],
    build_ns: &[f64],
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Vec<Vec<SchemeResult>>, AnalysisError> {
    let FinishInput {
        keys,
        events,
        mut sample,
        targets,
        cfg,
    } = input;
    sample.sort_unstable_by_key(|(i, _)| *i);
    let latency_keys: Vec<Vec<u8>> = sample.into_iter().map(|(_, k)| k).collect();
    let mut rows: Vec<Vec<SchemeResult>> = specs
        .iter()
        .zip(parts)
        .map(|(spec, part)| {
            targets
                .iter()
                .map(|&m| empty_row(spec.label(), part.shard_count(), m))
                .collect()
        })
        .collect();
    // Lookup timing last (`Metric::finishes_last`): the phase times of the other metrics
    // are not counted as latency, and nothing else runs while lookups are timed.
    let (first, last): (Vec<_>, Vec<_>) = REGISTRY
        .iter()
        .enumerate()
        .partition(|(_, metric)| !metric.finishes_last());
    for (m, metric) in first.into_iter().chain(last) {
        let schemes = parts.iter().zip(&mut accs).zip(&mut rows).zip(build_ns);
        for (i, (((part, acc), scheme_rows), &build_ns)) in schemes.enumerate() {
            let ctx = Finish {
                part: part.as_ref(),
                keys,
                targets,
                events,
                weights: cfg.weights.as_deref(),
                fail: cfg.fail,
                latency: cfg.latency.as_ref().map(|l| (l, latency_keys.as_slice())),
                build_ns,
            };
            if let Some(phase) = metric.phase(&ctx).filter(|_| i == 0) {
                progress(Progress::Phase(phase));
            }
            metric.finish(acc.0[m].take(), &ctx, scheme_rows)?;
        }
    }
    Ok(rows)
}

/// The row of a scheme before its metrics are finished into it.
fn empty_row(scheme: String, shards: u32, target_shards: u32) -> SchemeResult {
    SchemeResult {
        scheme,
        shards,
        load: ShardLoad::default(),
        shard_distinct_keys: Vec::new(),
        remap: Remap {
            target_shards,
            ..Remap::default()
        },
        fanout: None,
        latency: None,
        split: None,
        router: RouterCost::default(),
        extra_metrics: Vec::new(),
        intervals: Vec::new(),
    }
}

/// Reads the first `events` events and returns their distinct keys (point keys and scan
/// starts), sorted: all of them up to [`crate::warmup::WARMUP_KEY_LIMIT`], a consistent
/// sample beyond.
fn read_warmup(
    source: &mut dyn EventSource,
    events: u64,
    feed: Option<&Feed<'_>>,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Vec<Vec<u8>>, AnalysisError> {
    let mut keys = WarmupKeys::new();
    read_events(source, events, progress, |chunk| {
        if let Some(feed) = feed {
            feed.send(chunk);
        }
        keys.add_each(chunk.iter().map(|ev| ev.key))
    })?;
    Ok(keys.into_sorted())
}

/// Reads up to `events` events, chunk by chunk, into `f`; returns how many there were.
fn read_events(
    source: &mut dyn EventSource,
    events: u64,
    progress: &(dyn Fn(Progress<'_>) + Sync),
    mut f: impl FnMut(&EventChunk),
) -> Result<u64, AnalysisError> {
    let mut chunk = EventChunk::with_capacity(1 << 16);
    let mut left = events;
    while left > 0 {
        chunk.clear();
        let n = source.fill(&mut chunk, left.min(1 << 16) as usize)?;
        if n == 0 {
            break;
        }
        f(&chunk);
        left -= n as u64;
        progress(Progress::Events(n as u64));
    }
    Ok(events - left)
}

/// Hands every point key of the whole stream (warm-up included), in order, to the schemes
/// whose placement depends on the order of first appearance ([`Partitioner::learns_arrival`]).
fn learn_arrival(
    parts: &mut [Box<dyn Partitioner>],
    source: &mut dyn EventSource,
) -> Result<(), AnalysisError> {
    let mut chunk = EventChunk::with_capacity(1 << 16);
    loop {
        chunk.clear();
        if source.fill(&mut chunk, 1 << 16)? == 0 {
            return Ok(());
        }
        let keys: Vec<&[u8]> = chunk
            .iter()
            .filter(|ev| ev.is_point())
            .map(|ev| ev.key)
            .collect();
        for part in parts.iter_mut().filter(|p| p.learns_arrival()) {
            part.learn_arrival(&keys);
        }
    }
}

/// The accumulators of one scheme: one per registered metric ([`REGISTRY`] order), `None`
/// for metrics that count nothing per event.
pub struct SchemeAccs(Vec<Option<Box<dyn Accumulator>>>);

impl SchemeAccs {
    /// Fresh accumulators for one scheme.
    pub fn start(part: &dyn Partitioner, window: u64) -> Self {
        let start = Start { part, window };
        SchemeAccs(REGISTRY.iter().map(|m| m.start(&start)).collect())
    }

    /// Adds the events `other` recorded (exact: see [`crate::metrics::metric::State`]).
    pub fn merge(&mut self, other: SchemeAccs) -> Result<(), AnalysisError> {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            match (a, b) {
                (Some(a), Some(b)) => a.merge(b)?,
                (a, b) => *a = a.take().or(b),
            }
        }
        Ok(())
    }

    /// Each accumulator's state with its metric's name, for a partial result.
    pub fn encode(&self) -> Result<Vec<(&'static str, Vec<u8>)>, AnalysisError> {
        REGISTRY
            .iter()
            .zip(&self.0)
            .filter_map(|(m, acc)| acc.as_ref().map(|a| Ok((m.name(), a.encode()?))))
            .collect()
    }

    /// Accumulators restored from [`SchemeAccs::encode`]'s output, started for `part`.
    pub fn decode(
        part: &dyn Partitioner,
        window: u64,
        states: &[(&str, Vec<u8>)],
    ) -> Result<Self, AnalysisError> {
        let mut accs = SchemeAccs::start(part, window);
        for (metric, acc) in REGISTRY.iter().zip(&mut accs.0) {
            let Some(acc) = acc else { continue };
            let (_, state) = states
                .iter()
                .find(|(name, _)| *name == metric.name())
                .ok_or_else(|| {
                    AnalysisError::Config(format!(
                        "the partial result has no state for metric '{}'",
                        metric.name()
                    ))
                })?;
            acc.restore(state)?;
        }
        Ok(accs)
    }
}

/// A [`Partial`] as plain data ([`Partial::state`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartialState {
    /// Per scheme, each accumulator's encoded state with its metric's name.
    pub schemes: Vec<Vec<(String, Vec<u8>)>>,
    /// The key-space parts counted, part by part.
    pub keys: PartCountsState,
    /// Point keys kept for timing lookups, with their positions.
    pub sample: Vec<(u64, Vec<u8>)>,
    /// Events recorded.
    pub events: u64,
    /// Scans recorded.
    pub scans: u64,
}

/// Reused buffers of one worker: where one chunk's events go under one scheme.
#[derive(Default)]
struct Routes {
    /// The placement hashes of the point keys, when more than one scheme places by them.
    hashes: Vec<u64>,
    point_shards: Vec<ShardId>,
    range_shards: Vec<ShardId>,
    range_ends: Vec<u32>,
}

/// Everything accumulated from some of the measured events: every scheme's accumulators, the
/// key counts of some key-space parts ([`KeyParts`]), the point keys kept for timing lookups
/// and the event counts. Partials of any cuts of the events merge exactly into the whole
/// ([`Partial::merge`]).
pub struct Partial {
    /// One per fixed scheme, in order.
    pub schemes: Vec<SchemeAccs>,
    /// The key-space parts counted here.
    pub keys: PartCounts,
    /// Point keys at positions below the latency sample size, with their positions.
    pub sample: Vec<(u64, Vec<u8>)>,
    /// Events recorded.
    pub events: u64,
    /// Scans recorded.
    pub scans: u64,
}

impl Partial {
    /// Empty accumulators that count the key-space parts `owned` of `keys`.
    pub fn new(
        parts: &[Box<dyn Partitioner>],
        window: u64,
        keys: KeyParts,
        owned: impl IntoIterator<Item = usize>,
    ) -> Self {
        Partial {
            schemes: parts
                .iter()
                .map(|p| SchemeAccs::start(p.as_ref(), window))
                .collect(),
            keys: PartCounts::new(keys, owned),
            sample: Vec::new(),
            events: 0,
            scans: 0,
        }
    }

    /// Adds `other`'s accumulators to these: scheme by scheme, and key-space part by part
    /// (a part both count is merged, a part only `other` counts is taken over).
    pub fn merge(mut self, other: Partial) -> Result<Partial, AnalysisError> {
        for (a, b) in self.schemes.iter_mut().zip(other.schemes) {
            a.merge(b)?;
        }
        self.keys.merge(other.keys);
        self.sample.extend(other.sample);
        self.events += other.events;
        self.scans += other.scans;
        Ok(self)
    }

    /// [`Partial::merge`] of the partial result `state` describes ([`Partial::from_state`]),
    /// its key tables added into these without being rebuilt first
    /// ([`PartCounts::merge_state`]).
    pub fn merge_state(
        self,
        parts: &[Box<dyn Partitioner>],
        window: u64,
        mut state: PartialState,
    ) -> Result<Partial, AnalysisError> {
        let keys = PartCountsState {
            parts: state.keys.parts,
            counted: std::mem::take(&mut state.keys.counted),
        };
        // The rest merges as `merge` does; its key tables are added in place after.
        let mut merged = self.merge(Partial::from_state(parts, window, state)?)?;
        merged.keys.merge_state(keys)?;
        Ok(merged)
    }

    /// Counts the point keys that fall in this partial's key-space parts, in order.
    pub fn count_keys<'k>(&mut self, keys: impl IntoIterator<Item = &'k [u8]>) {
        // A worker without parts (fewer parts than workers, under a small limit) hashes nothing.
        if !self.keys.is_empty() {
            self.keys.add_each(keys);
        }
    }

    /// Routes every event of `chunk` through every scheme into its accumulators, and counts
    /// its keys; point keys at positions below `sample_limit` are kept for timing lookups.
    pub fn record(
        &mut self,
        chunk: &EventChunk,
        parts: &[Box<dyn Partitioner>],
        sample_limit: u64,
    ) {
        let mut set = ShardSet::new(parts.iter().map(|p| p.shard_count()).max().unwrap_or(1));
        let mut routes = Routes::default();
        self.record_with(chunk, parts, sample_limit, (&mut routes, &mut set), None);
    }

    /// [`Partial::record`] with buffers reused between chunks; with `hand_off`, the point
    /// keys are hashed and sorted out to the workers that count their parts
    /// ([`KeyParts::sort_out`]) instead of being counted here.
    ///
    /// The point keys are collected once; each scheme then looks them all up in one call
    /// ([`Partitioner::shards_of`]) and each accumulator records the routed chunk in one
    /// call: no dynamic dispatch per event.
    fn record_with(
        &mut self,
        chunk: &EventChunk,
        parts: &[Box<dyn Partitioner>],
        sample_limit: u64,
        (routes, set): (&mut Routes, &mut ShardSet),
        hand_off: Option<(KeyParts, &mut [HashedKeys])>,
    ) {
        let mut points: Vec<&[u8]> = Vec::with_capacity(chunk.len());
        for (i, ev) in chunk.iter().enumerate() {
            let index = chunk.first_index + i as u64;
            if ev.is_point() {
                if index < sample_limit {
                    self.sample.push((index, ev.key.to_vec()));
                }
                points.push(ev.key);
            } else {
                self.scans += u64::from(ev.op == Op::Scan);
            }
        }
        self.events += chunk.len() as u64;
        match hand_off {
            Some((keys, outs)) => keys.sort_out(points.iter().copied(), outs),
            None => self.count_keys(points.iter().copied()),
        }
        let has_ranges = points.len() < chunk.len();
        // The placement hash of each point key, once for every scheme that places by it.
        routes.hashes.clear();
        if parts.iter().filter(|p| p.uses_placement_hash()).count() > 1 {
            routes.hashes.extend(points.iter().map(|key| hash64(key)));
        }
        for (part, accs) in parts.iter().zip(&mut self.schemes) {
            routes.point_shards.clear();
            if part.uses_placement_hash() && !routes.hashes.is_empty() {
                part.shards_of_hashed(&points, &routes.hashes, &mut routes.point_shards);
            } else {
                part.shards_of(&points, &mut routes.point_shards);
            }
            routes.range_shards.clear();
            routes.range_ends.clear();
            if has_ranges {
                for ev in chunk.iter().filter(|ev| !ev.is_point()) {
                    set.clear();
                    let end = ev.end.unwrap_or(ev.key);
                    if ev.is_range_write() {
                        range_write_shards(part.as_ref(), ev.key, end, set);
                    } else {
                        part.scan_shards(ev.key, end, set);
                    }
                    routes.range_shards.extend(set.iter());
                    routes.range_ends.push(routes.range_shards.len() as u32);
                }
            }
            let routed = Routed {
                chunk,
                point_shards: &routes.point_shards,
                range_shards: &routes.range_shards,
                range_ends: &routes.range_ends,
            };
            for acc in accs.0.iter_mut().flatten() {
                acc.record(&routed);
            }
        }
    }

    /// Everything accumulated, as plain data: a partial result that
    /// [`Partial::from_state`] reads back exactly (on another machine, to merge).
    pub fn state(&self) -> Result<PartialState, AnalysisError> {
        Ok(PartialState {
            schemes: self
                .schemes
                .iter()
                .map(|accs| {
                    let states = accs.encode()?;
                    Ok(states
                        .into_iter()
                        .map(|(n, b)| (n.to_string(), b))
                        .collect())
                })
                .collect::<Result<_, AnalysisError>>()?,
            keys: self.keys.state(),
            sample: self.sample.clone(),
            events: self.events,
            scans: self.scans,
        })
    }

    /// The partial [`Partial::state`] described, for the schemes `parts` (the same schemes,
    /// in the same order, built from the same warm-up) and windows of `window` events.
    pub fn from_state(
        parts: &[Box<dyn Partitioner>],
        window: u64,
        state: PartialState,
    ) -> Result<Partial, AnalysisError> {
        if state.schemes.len() != parts.len() {
            return Err(AnalysisError::Config(format!(
                "the partial result holds {} schemes, the run {}",
                state.schemes.len(),
                parts.len()
            )));
        }
        let schemes = parts
            .iter()
            .zip(&state.schemes)
            .map(|(part, states)| {
                let states: Vec<(&str, Vec<u8>)> = states
                    .iter()
                    .map(|(n, b)| (n.as_str(), b.clone()))
                    .collect();
                SchemeAccs::decode(part.as_ref(), window, &states)
            })
            .collect::<Result<_, _>>()?;
        Ok(Partial {
            schemes,
            keys: PartCounts::from_state(state.keys)?,
            sample: state.sample,
            events: state.events,
            scans: state.scans,
        })
    }

    /// The merged accumulators, once every key-space part is here.
    fn into_measured(self) -> Measured {
        let limit = self.keys.limit();
        let mut key_counts: Vec<(usize, KeyCounts)> = self.keys.into_parts().collect();
        key_counts.sort_unstable_by_key(|(part, _)| *part);
        Measured {
            schemes: self.schemes,
            keys: KeyCounts::join(key_counts.into_iter().map(|(_, k)| k).collect(), limit),
            sample: self.sample,
            events: self.events,
            scans: self.scans,
        }
    }
}

/// The merged accumulators of the measured events.
struct Measured {
    schemes: Vec<SchemeAccs>,
    keys: KeyCounts,
    sample: Vec<(u64, Vec<u8>)>,
    events: u64,
    scans: u64,
}

/// One worker's side: decodes pieces and routes their events into its accumulators.
struct PieceRouter<'a, 'w> {
    acc: Partial,
    parts: &'a [Box<dyn Partitioner>],
    routes: Routes,
    set: ShardSet,
    /// Point keys at positions below this are kept for timing lookups.
    sample_limit: u64,
    /// The key hand-off to the other workers; `None` for a single worker, which counts the
    /// keys as it routes them.
    post: Option<(KeyParts, Post)>,
    positions: &'a Positions,
    /// The changing layouts' feed, handed every decoded piece.
    feed: Option<&'a Feed<'w>>,
    progress: &'a (dyn Fn(Progress<'_>) + Sync),
}

impl<'a, 'w> PieceRouter<'a, 'w> {
    /// A worker adding to `acc` (of the schemes `parts`), handing keys off through `post`.
    fn new(
        (acc, parts): (Partial, &'a [Box<dyn Partitioner>]),
        sample_limit: u64,
        post: Option<(KeyParts, Post)>,
        (positions, feed): (&'a Positions, Option<&'a Feed<'w>>),
        progress: &'a (dyn Fn(Progress<'_>) + Sync),
    ) -> Self {
        let max_shards = parts.iter().map(|p| p.shard_count()).max().unwrap_or(1);
        PieceRouter {
            acc,
            parts,
            routes: Routes::default(),
            set: ShardSet::new(max_shards),
            sample_limit,
            post,
            positions,
            feed,
            progress,
        }
    }

    /// Decodes piece `seq` and routes its events; `Ok(false)` when a piece before it could
    /// not be decoded (the pieces after that one are not measured). On an error the caller
    /// stops the other workers ([`Positions::fail`]).
    fn route(&mut self, seq: usize, piece: &mut Piece) -> Result<bool, PieceError> {
        piece.decode().map_err(|e| (seq, e))?;
        let Some(at) = self.positions.take(seq, piece.chunk().len()) else {
            return Ok(false);
        };
        piece.chunk_mut().first_index = at;
        let chunk = piece.chunk();
        if let Some(feed) = self.feed {
            feed.push(seq, chunk);
        }
        let outs = self.post.as_mut().map(|(keys, post)| (*keys, post.outs()));
        let buffers = (&mut self.routes, &mut self.set);
        self.acc
            .record_with(chunk, self.parts, self.sample_limit, buffers, outs);
        (self.progress)(Progress::Events(chunk.len() as u64));
        Ok(true)
    }

    /// Counts the keys the other workers have sorted out to this one so far.
    fn count_handed(&mut self) {
        if let Some((_, post)) = &mut self.post {
            post.count_through(&mut self.acc.keys);
        }
    }

    /// The accumulators, once every key handed to this worker is counted.
    fn finish(mut self) -> Partial {
        if let Some((_, post)) = self.post {
            post.count_rest(&mut self.acc.keys);
        }
        self.acc
    }
}

/// Streams the measured events through the workers and merges their accumulators; the
/// first event is at measured position `first` (0 unless the stream is a part of one).
///
/// Worker `w` of `W` cuts chunks `w`, `w + W`, ... from the stream in its turn ([`Turns`]:
/// it reads their bytes itself, into its own cache) and decodes and routes them through the
/// schemes; each chunk's first position comes from the chunk before it ([`Positions`]),
/// since a chunk of text lines knows its length only once decoded. A window split between
/// chunks is added up from their counts. It hashes the point keys of those chunks once and
/// sorts them out to the workers that count their key-space parts
/// ([`KeyParts::owned_by`]); each worker counts the keys of its parts chunk after chunk, in
/// stream order. Each key is thus held once, and each part sees its keys in stream order
/// whatever the thread count. Worker 0 runs on the calling thread, so one worker uses one
/// thread.
fn replay_measured(
    source: Box<dyn EventSource>,
    parts: &[Box<dyn Partitioner>],
    cfg: &ReplayConfig,
    first: u64,
    feed: Option<&Feed<'_>>,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Partial, AnalysisError> {
    let window = cfg.window.max(1);
    // Chunks hold whole windows; a window longer than a chunk spans several, whose counts the
    // load accumulators add up (chunk memory never follows the window length).
    let base = cfg.chunk_events.max(1) as u64;
    let chunk_events = if window <= base {
        base.div_ceil(window) * window
    } else {
        base
    };
    let workers = rayon::current_num_threads().max(1);
    let key_parts = KeyParts::for_limit(cfg.distinct_key_limit);
    let first_seq = (first / chunk_events) as usize;
    let positions = &Positions::new(first_seq, first);
    if let Some(feed) = feed {
        feed.start_pieces(first_seq);
    }
    let turns = &Turns::new(PieceCutter::new(source, chunk_events, first, first_seq));
    // Worker `w`'s run: `None` when it stopped because a piece before one of its own could
    // not be decoded; an error with the number of the piece it was met in.
    let work = |worker: usize, post: Post| -> Result<Option<Partial>, PieceError> {
        let owned = key_parts.owned_by(worker, workers);
        let acc = Partial::new(parts, window, key_parts, owned);
        // A single worker counts the keys as it routes them: no one to hand off to.
        let post = (workers > 1).then_some((key_parts, post));
        let limit = cfg.latency_sample as u64;
        let mut router = PieceRouter::new((acc, parts), limit, post, (positions, feed), progress);
        let mut piece = Piece::with_capacity(chunk_events as usize);
        loop {
            // An error cutting the stream stops the cutting; the pieces cut before it are
            // still routed, so that a malformed record among them is the one reported.
            let Some((seq, next)) = turns.cut(worker, workers, piece)? else {
                break;
            };
            piece = next;
            match router.route(seq, &mut piece) {
                Ok(true) => router.count_handed(),
                Ok(false) => return Ok(None),
                Err(e) => {
                    turns.stop();
                    positions.fail();
                    return Err(e);
                }
            }
        }
        Ok(Some(router.finish()))
    };
    let mut posts = Post::all(workers, first_seq).into_iter();
    let Some(own_post) = posts.next() else {
        return Err(AnalysisError::Config("a replay needs one worker".into()));
    };
    let runs =
        std::thread::scope(|scope| {
            // Plain threads rather than rayon tasks: every worker must run at once, since each
            // one waits for its turn and for the keys the others sort out to it.
            let others: Vec<_> = posts
                .enumerate()
                .map(|(i, post)| scope.spawn(move || work(i + 1, post)))
                .collect();
            let mut runs = vec![work(0, own_post)];
            for handle in others {
                runs.push(handle.join().map_err(|_| {
                    AnalysisError::Config("a replay worker thread panicked".into())
                })?);
            }
            Ok::<_, AnalysisError>(runs)
        })?;
    let mut accs = Vec::with_capacity(workers);
    let mut first_error: Option<PieceError> = None;
    for run in runs {
        match run {
            Ok(acc) => accs.extend(acc),
            Err(e) if first_error.as_ref().is_none_or(|f| e.0 < f.0) => first_error = Some(e),
            Err(_) => {}
        }
    }
    if let Some((_, e)) = first_error {
        return Err(e.into());
    }
    let mut merged = Partial::new(parts, window, key_parts, []);
    for acc in accs {
        merged = merged.merge(acc)?;
    }
    Ok(merged)
}

/// Builds `spec`, timing the build (one build: a timing that differs between runs): the
/// replay builds every scheme; the router metric only reads the time.
pub(crate) fn build_timed(
    spec: &SchemeSpec,
    ctx: &BuildContext<'_>,
) -> Result<(Box<dyn Partitioner>, f64), AnalysisError> {
    let started = Instant::now();
    let part = spec.build(ctx)?;
    Ok((part, started.elapsed().as_nanos() as f64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::{MetricValue, METRICS};
    use schemes::BuildContext;
    use workloads::{Event, Op};

    /// The events of a list of keys, handed out a few at a time.
    struct Keys(Vec<Vec<u8>>, usize);

    impl EventSource for Keys {
        fn fill(&mut self, chunk: &mut EventChunk, max: usize) -> Result<usize, WorkloadError> {
            let n = max.min(3).min(self.0.len() - self.1);
            for key in &self.0[self.1..self.1 + n] {
                chunk.push(Event {
                    op: Op::Get,
                    key,
                    end: None,
                    timestamp: None,
                    size: None,
                });
            }
            self.1 += n;
            Ok(n)
        }
    }

    /// The events of a synthetic workload in chunks of `chunk` events, numbered from 0.
    fn chunks(spec: &str, events: u64, chunk: usize) -> Vec<EventChunk> {
        let mut source = workloads::WorkloadSpec::parse(spec)
            .unwrap()
            .open(3, events)
            .unwrap();
        let mut out = Vec::new();
        let mut next = 0;
        loop {
            let mut c = EventChunk::with_capacity(chunk);
            if source.fill(&mut c, chunk).unwrap() == 0 {
                return out;
            }
            c.first_index = next;
            next += c.len() as u64;
            out.push(c);
        }
    }

    /// One scheme's non-timing metric values, shard requests, window requests and distinct
    /// keys per shard.
    type Figures = (Vec<MetricValue>, Vec<u64>, Vec<Vec<u32>>, Vec<u64>);

    /// Every non-timing metric value of every scheme, with the shard rows, after finishing
    /// `partial`.
    fn figures(
        partial: Partial,
        specs: &[SchemeSpec],
        parts: &[Box<dyn Partitioner>],
        cfg: &ReplayConfig,
        targets: &[u32],
    ) -> Vec<Figures> {
        let measured = partial.into_measured();
        let open = || -> Result<Box<dyn EventSource>, WorkloadError> { unreachable!() };
        let input = WorkloadInput {
            label: "w".into(),
            description: String::new(),
            key_type: KeyType::U64,
            open: &open,
            watch: None,
        };
        let w = workload_figures(&input, 0, measured.events, measured.scans, &measured.keys);
        let specs: Vec<&SchemeSpec> = specs.iter().collect();
        let finish_input = FinishInput {
            keys: &measured.keys,
            events: measured.events,
            sample: measured.sample,
            targets,
            cfg,
        };
        let build_ns = vec![0.0; parts.len()];
        let rows = finish(
            finish_input,
            measured.schemes,
            &specs,
            parts,
            &build_ns,
            &|_| {},
        )
        .unwrap();
        rows.iter()
            .flatten()
            .map(|s| {
                let values = w
                    .metric_values(s)
                    .into_iter()
                    .filter(|v| !crate::metrics::is_timing(v.name))
                    .collect();
                let load = (
                    s.load.shard_requests.clone(),
                    s.load.window_requests.clone(),
                );
                (values, load.0, load.1, s.shard_distinct_keys.clone())
            })
            .collect()
    }

    /// Accumulates `chunks` cut at `cuts` (event positions) into one partial per piece, each
    /// sent through its encoded state and back, and merges them in reverse order.
    fn merged_from_cuts(
        chunks: &[EventChunk],
        cuts: &[u64],
        parts: &[Box<dyn Partitioner>],
        window: u64,
        keys: KeyParts,
    ) -> Partial {
        let mut pieces: Vec<Partial> = Vec::new();
        let mut bounds = cuts.to_vec();
        bounds.push(u64::MAX);
        let mut piece = Partial::new(parts, window, keys, 0..keys.count);
        for chunk in chunks {
            let mut chunk = chunk.clone();
            loop {
                let end = bounds[pieces.len()];
                let last = chunk.first_index + chunk.len() as u64;
                if last <= end {
                    piece.record(&chunk, parts, 100);
                    break;
                }
                let rest = chunk.split_off((end - chunk.first_index) as usize);
                piece.record(&chunk, parts, 100);
                pieces.push(std::mem::replace(
                    &mut piece,
                    Partial::new(parts, window, keys, 0..keys.count),
                ));
                chunk = rest;
            }
        }
        pieces.push(piece);
        let mut merged = Partial::new(parts, window, keys, []);
        for p in pieces.into_iter().rev() {
            // Through bytes, as a partial result written on one machine and read on another.
            let bytes = serde_json::to_vec(&p.state().unwrap()).unwrap();
            let state: PartialState = serde_json::from_slice(&bytes).unwrap();
            merged = merged
                .merge(Partial::from_state(parts, window, state).unwrap())
                .unwrap();
        }
        merged
    }

    #[test]
    fn partials_of_any_cuts_merge_into_the_whole_for_every_registered_metric() {
        let chunks = chunks("zipf:keys=3000,s=1.1,scans=0.05,scan_len=40", 20_000, 1000);
        let specs = SchemeSpec::parse_list("range,hash,ring,kafka:brokers=4,maglev").unwrap();
        let warmup: Vec<Vec<u8>> = (0..3000u64).map(|k| k.to_be_bytes().to_vec()).collect();
        let ctx = BuildContext {
            shards: 6,
            warmup_keys: &warmup,
            key_type: KeyType::U64,
            weights: None,
        };
        let parts: Vec<Box<dyn Partitioner>> =
            specs.iter().map(|s| s.build(&ctx).unwrap()).collect();
        let cfg = ReplayConfig {
            latency: None,
            fail: Some(FailTarget::Worst),
            ..ReplayConfig::default()
        };
        let (window, targets) = (700, [7, 9]);
        // Below the distinct limit (exact counts in 1 and 2 parts) and past it (a hash sample).
        for limit in [1 << 20, 150_000, 1000] {
            let keys = KeyParts::for_limit(limit);
            let mut whole = Partial::new(&parts, window, keys, 0..keys.count);
            chunks.iter().for_each(|c| whole.record(c, &parts, 100));
            let whole_sample = whole.sample.clone();
            let expected = figures(whole, &specs, &parts, &cfg, &targets);
            let names: Vec<&str> = expected[0].0.iter().map(|v| v.name).collect();
            // Every registered metric is compared, the toy one and the failure rows included.
            for m in REGISTRY.iter().flat_map(|m| m.defs()) {
                assert!(
                    crate::metrics::is_timing(m.name) || names.contains(&m.name),
                    "{}",
                    m.name
                );
            }
            assert!(names.contains(&"toy_even_shard_requests") && names.contains(&"fail_shard"));
            for cuts in [
                vec![10_000],
                vec![1, 6_999, 7_000, 13_333],
                vec![4_321, 19_999],
            ] {
                let merged = merged_from_cuts(&chunks, &cuts, &parts, window, keys);
                let mut sample = merged.sample.clone();
                sample.sort();
                assert_eq!(sample, whole_sample, "cuts {cuts:?}");
                let got = figures(merged, &specs, &parts, &cfg, &targets);
                assert_eq!(got, expected, "cuts {cuts:?}, limit {limit}");
            }
        }
    }

    #[test]
    fn a_metric_in_one_file_and_one_registration_line_is_measured_and_written() {
        // `registry/toy.rs`, registered in tests only: its row follows the table's and its
        // value is counted from the routed events.
        assert_eq!(METRICS.last().unwrap().name, "toy_even_shard_requests");
        let chunks = chunks("uniform:keys=100", 5000, 512);
        let specs = SchemeSpec::parse_list("hash").unwrap();
        let ctx = BuildContext {
            shards: 4,
            warmup_keys: &[],
            key_type: KeyType::U64,
            weights: None,
        };
        let parts = vec![specs[0].build(&ctx).unwrap()];
        let keys = KeyParts::for_limit(1000);
        let mut whole = Partial::new(&parts, 100, keys, 0..keys.count);
        chunks.iter().for_each(|c| whole.record(c, &parts, 0));
        let mut even = 0;
        for c in &chunks {
            even += c
                .iter()
                .filter(|ev| parts[0].shard_of(ev.key) % 2 == 0)
                .count();
        }
        let cfg = ReplayConfig {
            latency: None,
            ..ReplayConfig::default()
        };
        let rows = figures(whole, &specs, &parts, &cfg, &[5]);
        let toy = rows[0]
            .0
            .iter()
            .find(|v| v.name == "toy_even_shard_requests")
            .unwrap();
        assert_eq!(toy.value, Some(even as f64));
        assert!(even > 1000 && even < 4000, "{even}");
    }

    #[test]
    fn the_warm_up_stops_after_its_events() {
        let keys: Vec<Vec<u8>> = [&b"c"[..], b"a", b"a", b"b", b"d", b"e"]
            .iter()
            .map(|k| k.to_vec())
            .collect();
        let first_five = read_warmup(&mut Keys(keys, 0), 5, None, &|_| {}).unwrap();
        assert_eq!(
            first_five,
            [b"a".to_vec(), b"b".to_vec(), b"c".to_vec(), b"d".to_vec()]
        );
    }
}
