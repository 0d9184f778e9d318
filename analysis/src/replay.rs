//! The parallel replay engine.
//!
//! One workload at a time: a reader thread streams the events in chunks cut at window
//! boundaries; one worker per rayon thread routes every chunk through every scheme into its
//! own accumulators; the accumulators are merged at the end. Counts and histograms add
//! exactly and windows are kept by index, so the results do not depend on the thread count.
//! Lookup latency is then timed single-threaded, scheme by scheme, with nothing else running.

use std::sync::Arc;

use crossbeam_channel::bounded;
use rayon::prelude::*;
use workloads::{EventChunk, EventSource, KeyType, WorkloadError};

use crate::dynamic::{simulate_with, DynamicOptions, DynamicParams, DynamicRun};
use crate::key_counts::{KeyParts, PartCounts};
use crate::metrics::failure::{self, FailTarget};
use crate::metrics::fanout::FanoutAccumulator;
use crate::metrics::load::LoadAccumulator;
use crate::metrics::{
    confidence, latency, remap, router, split, LatencyConfig, SchemeResult, WorkloadResult,
};
use crate::schemes::{BuildContext, SchemeSpec};
use crate::warmup::WarmupKeys;
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

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
            distinct_key_limit: crate::key_counts::DEFAULT_DISTINCT_LIMIT,
            fail: None,
            weights: None,
        }
    }
}

/// A workload to replay: its label, description and a way to open its event stream (read
/// once, but opened again to simulate a dynamic scheme).
pub struct WorkloadInput<'a> {
    /// Label in reports.
    pub label: String,
    /// One sentence for people.
    pub description: String,
    /// How keys are displayed.
    pub key_type: KeyType,
    /// Opens the stream from its start.
    pub open: &'a (dyn Fn() -> Result<Box<dyn EventSource>, WorkloadError> + Sync),
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
        crate::ShardCount::new(n)?;
    }
    let source = (input.open)()?;
    progress(Progress::Started {
        workload: &input.label,
        events: source.len_hint(),
    });
    // The input is read once: the warm-up is sized without counting the events first.
    let learns = schemes.iter().any(SchemeSpec::needs_warmup);
    let (warmup_events, mut source) =
        crate::warmup::size_warmup(source, if learns { cfg.warmup_fraction } else { 0.0 })?;
    let warmup_keys = read_warmup(source.as_mut(), warmup_events, progress)?;
    let ctx = BuildContext {
        shards: cfg.shards,
        warmup_keys: &warmup_keys,
        key_type: input.key_type,
        weights: cfg.weights.as_deref(),
    };
    let fixed: Vec<&SchemeSpec> = schemes.iter().filter(|s| !s.is_dynamic()).collect();
    let (mut parts, build_ns): (Vec<Box<dyn Partitioner>>, Vec<f64>) = fixed
        .iter()
        .map(|s| router::build_timed(s, &ctx))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .unzip();
    drop(warmup_keys);
    if parts.iter().any(|p| p.learns_arrival()) {
        progress(Progress::Phase("arrival order"));
        learn_arrival(&mut parts, (input.open)()?.as_mut())?;
    }

    progress(Progress::Phase("replay"));
    let acc = replay_measured(source, &parts, cfg, progress)?;
    if acc.events == 0 {
        return Err(AnalysisError::Config(format!(
            "workload '{}' has no events to measure after a warm-up of {warmup_events} events",
            input.label
        )));
    }
    progress(Progress::Phase("remap"));
    let mut results = Vec::with_capacity(parts.len());
    let mut remaps: Vec<Vec<remap::Remap>> = Vec::with_capacity(parts.len());
    for (((spec, part), sacc), build_ns) in fixed.iter().zip(&parts).zip(acc.schemes).zip(build_ns)
    {
        remaps.push(
            targets
                .iter()
                .map(|&m| {
                    if let Some(why) = part.resize_refusal(m) {
                        return Ok(remap::Remap::refused(m, why));
                    }
                    Ok(remap::measure(
                        part.as_ref(),
                        part.resized(m, &acc.keys)?.as_ref(),
                        &acc.keys,
                    ))
                })
                .collect::<Result<_, AnalysisError>>()?,
        );
        let load = match &cfg.weights {
            Some(w) => sacc.load.finish().per_weight(w),
            None => sacc.load.finish(),
        };
        let mut extra_metrics = part.shard_load_metrics(&load.shard_requests);
        if let Some(target) = cfg.fail {
            extra_metrics
                .extend(failure::measure(part.as_ref(), target, &acc.keys)?.metric_values());
        }
        let split = part
            .range_starts()
            .and_then(|starts| split::measure(starts, &acc.keys));
        results.push(SchemeResult {
            scheme: spec.label(),
            shards: part.shard_count(),
            shard_distinct_keys: distinct_per_shard(part.as_ref(), &acc.keys),
            load,
            remap: remaps[remaps.len() - 1][0].clone(),
            fanout: sacc.fanout.finish(),
            latency: None,
            split,
            router: router::cost(part.as_ref(), build_ns),
            extra_metrics,
            intervals: Vec::new(),
        });
    }
    if let Some(lcfg) = &cfg.latency {
        progress(Progress::Phase("latency"));
        let mut sample = acc.sample;
        sample.sort_unstable_by_key(|(i, _)| *i);
        let keys: Vec<Vec<u8>> = sample.into_iter().map(|(_, k)| k).collect();
        for (r, part) in results.iter_mut().zip(&parts) {
            r.latency = latency::measure(part.as_ref(), &keys, lcfg);
        }
    }
    let dynamic = simulate_dynamic(input, schemes, cfg, warmup_events, progress)?;
    // Put every row back in the order the schemes were given.
    let (mut fixed_rows, mut dynamic_rows) = (results.into_iter().zip(remaps), dynamic.iter());
    let (mut results, mut remaps) = (
        Vec::with_capacity(schemes.len()),
        Vec::with_capacity(schemes.len()),
    );
    for spec in schemes {
        let (row, remap) = if spec.is_dynamic() {
            let run = dynamic_rows
                .next()
                .ok_or_else(|| AnalysisError::Config("missing dynamic run".into()))?;
            (
                run.scheme_result(targets[0]),
                targets.iter().map(|&m| run.remap(m)).collect(),
            )
        } else {
            fixed_rows
                .next()
                .ok_or_else(|| AnalysisError::Config("missing scheme result".into()))?
        };
        results.push(row);
        remaps.push(remap);
    }
    // The resampling seed depends on the scheme and shard count only, not on the workload's
    // label: the same events give the same intervals whether they come from a generator or
    // from the trace it wrote.
    for row in &mut results {
        let seed = xxhash_rust::xxh3::xxh3_64(format!("{}\0{}", row.scheme, row.shards).as_bytes());
        row.intervals = confidence::bootstrap(&row.load, cfg.window, acc.events, seed);
    }
    let hottest_key = acc.keys.hottest().map(|h| (h.key, h.count));
    let result = WorkloadResult {
        workload: input.label.clone(),
        description: input.description.clone(),
        key_type: input.key_type,
        events_measured: acc.events,
        warmup_events,
        distinct_keys: acc.keys.distinct().value.round() as u64,
        point_requests: acc.keys.total(),
        scans: acc.scans,
        hottest_key,
        key_sample: crate::metrics::estimate::KeySample::of(&acc.keys),
        schemes: results,
        dynamic,
    };
    Ok((0..targets.len())
        .map(|t| {
            let mut r = result.clone();
            for (s, remap) in r.schemes.iter_mut().zip(&remaps) {
                s.remap = remap[t].clone();
            }
            r
        })
        .collect())
}

/// Simulates every dynamic scheme over the whole stream, in order, one at a time; the
/// warm-up is replayed (the cluster splits and moves) but not measured, as for fixed schemes.
fn simulate_dynamic(
    input: &WorkloadInput<'_>,
    schemes: &[SchemeSpec],
    cfg: &ReplayConfig,
    warmup_events: u64,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Vec<Arc<DynamicRun>>, AnalysisError> {
    let opts = DynamicOptions {
        nodes: cfg.shards,
        window: cfg.window,
        warmup_events,
    };
    schemes
        .iter()
        .filter(|s| s.is_dynamic())
        .map(|spec| {
            progress(Progress::Phase("range dynamics"));
            let params = DynamicParams::parse(&spec.spec)?;
            let mut run = simulate_with(&params, &opts, (input.open)()?.as_mut())?;
            run.label = spec.label();
            Ok(Arc::new(run))
        })
        .collect()
}

/// Reads the first `events` events and returns their distinct keys (point keys and scan
/// starts), sorted: all of them up to [`crate::warmup::WARMUP_KEY_LIMIT`], a consistent
/// sample beyond.
fn read_warmup(
    source: &mut dyn EventSource,
    events: u64,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Vec<Vec<u8>>, AnalysisError> {
    let mut keys = WarmupKeys::new();
    let mut chunk = EventChunk::with_capacity(1 << 16);
    let mut left = events;
    while left > 0 {
        chunk.clear();
        let n = source.fill(&mut chunk, left.min(1 << 16) as usize)?;
        if n == 0 {
            break;
        }
        keys.add_each(chunk.iter().map(|ev| ev.key));
        left -= n as u64;
        progress(Progress::Events(n as u64));
    }
    Ok(keys.into_sorted())
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
            .filter(|ev| ev.op.is_point())
            .map(|ev| ev.key)
            .collect();
        for part in parts.iter_mut().filter(|p| p.learns_arrival()) {
            part.learn_arrival(&keys);
        }
    }
}

/// Per-scheme accumulators of one worker.
#[derive(Clone)]
struct SchemeAcc {
    load: LoadAccumulator,
    fanout: FanoutAccumulator,
}

/// Everything one worker accumulates.
struct WorkerAcc {
    schemes: Vec<SchemeAcc>,
    /// The key-space parts this worker counts.
    keys: PartCounts,
    sample: Vec<(u64, Vec<u8>)>,
    events: u64,
    scans: u64,
    /// The owners of a chunk's point events under one scheme (reused between chunks).
    shards: Vec<ShardId>,
}

impl WorkerAcc {
    /// The accumulators of worker `worker` of `workers`, which counts the key-space parts
    /// `worker`, `worker + workers`, ...
    fn new(
        parts: &[Box<dyn Partitioner>],
        window: u64,
        keys: KeyParts,
        worker: usize,
        workers: usize,
    ) -> Self {
        WorkerAcc {
            schemes: parts
                .iter()
                .map(|p| SchemeAcc {
                    load: LoadAccumulator::new(p.shard_count(), window),
                    fanout: FanoutAccumulator::default(),
                })
                .collect(),
            keys: PartCounts::new(keys, (worker..keys.count).step_by(workers)),
            sample: Vec::new(),
            events: 0,
            scans: 0,
            shards: Vec::new(),
        }
    }

    /// Adds `other`'s accumulators to these (the key parts are taken apart beforehand).
    fn merge(mut self, other: WorkerAcc) -> WorkerAcc {
        for (a, b) in self.schemes.iter_mut().zip(other.schemes) {
            a.load.merge(b.load);
            a.fanout.merge(&b.fanout);
        }
        self.sample.extend(other.sample);
        self.events += other.events;
        self.scans += other.scans;
        self
    }

    /// Counts the point keys that fall in this worker's key-space parts, in order. Every
    /// worker sees every chunk's keys; each counts only its own parts.
    fn count_keys<'k>(&mut self, keys: impl IntoIterator<Item = &'k [u8]>) {
        // A worker without parts (fewer parts than workers, under a small limit) hashes nothing.
        if !self.keys.is_empty() {
            self.keys.add_each(keys);
        }
    }

    /// Routes every event of `chunk` through every scheme, and counts its keys.
    ///
    /// The point keys are collected once; each scheme then looks them all up in one call
    /// ([`Partitioner::shards_of`]: no dynamic dispatch per event), and a chunk without
    /// scans is counted as one run of consecutive events.
    fn record(
        &mut self,
        chunk: &EventChunk,
        parts: &[Box<dyn Partitioner>],
        sample_limit: u64,
        set: &mut ShardSet,
    ) {
        let mut points: Vec<&[u8]> = Vec::with_capacity(chunk.len());
        for (i, ev) in chunk.iter().enumerate() {
            let index = chunk.first_index + i as u64;
            if ev.op.is_point() {
                if index < sample_limit {
                    self.sample.push((index, ev.key.to_vec()));
                }
                points.push(ev.key);
            } else {
                self.scans += 1;
            }
        }
        self.events += chunk.len() as u64;
        self.count_keys(points.iter().copied());
        for (part, acc) in parts.iter().zip(&mut self.schemes) {
            self.shards.clear();
            part.shards_of(&points, &mut self.shards);
            if points.len() == chunk.len() {
                acc.load.record_run(chunk.first_index, &self.shards);
            } else {
                record_scheme(part.as_ref(), chunk, &self.shards, acc, set);
            }
        }
    }
}

/// Routes a chunk with scans through one scheme; `point_shards` are the owners of its point
/// events, in order.
fn record_scheme(
    part: &dyn Partitioner,
    chunk: &EventChunk,
    point_shards: &[ShardId],
    acc: &mut SchemeAcc,
    set: &mut ShardSet,
) {
    let mut owners = point_shards.iter();
    for (i, ev) in chunk.iter().enumerate() {
        let index = chunk.first_index + i as u64;
        if ev.op.is_point() {
            if let Some(&shard) = owners.next() {
                acc.load.record(index, shard);
            }
        } else {
            set.clear();
            part.scan_shards(ev.key, ev.end.unwrap_or(ev.key), set);
            acc.fanout.record(set.len());
            for shard in set.iter() {
                acc.load.record(index, shard);
            }
        }
    }
}

/// The merged accumulators of the measured events.
struct Measured {
    schemes: Vec<SchemeAcc>,
    keys: KeyCounts,
    sample: Vec<(u64, Vec<u8>)>,
    events: u64,
    scans: u64,
}

/// Streams the measured events through the workers and merges their accumulators.
///
/// Every chunk goes to every worker: worker `w` of `W` routes chunks `w`, `w + W`, ...
/// through the schemes (whole chunks, so windows are never split), and counts the keys of
/// its key-space parts in every chunk. Each key is thus held once, and each part sees its
/// keys in stream order whatever the thread count.
fn replay_measured(
    mut source: Box<dyn EventSource>,
    parts: &[Box<dyn Partitioner>],
    cfg: &ReplayConfig,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Measured, AnalysisError> {
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
    let (txs, rxs): (Vec<_>, Vec<_>) = (0..workers).map(|_| bounded::<Arc<EventChunk>>(2)).unzip();
    // Chunks that every worker is done with go back to the reader, which refills them: no
    // allocation (and no fresh pages to fault in) per chunk.
    let (recycle, recycled) = bounded::<EventChunk>(workers * 2 + 4);
    let max_shards = parts.iter().map(|p| p.shard_count()).max().unwrap_or(1);
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || -> Result<(), WorkloadError> {
            let mut next = 0u64;
            loop {
                let mut chunk = recycled
                    .try_recv()
                    .unwrap_or_else(|_| EventChunk::with_capacity(chunk_events as usize));
                chunk.clear();
                while (chunk.len() as u64) < chunk_events {
                    let room = (chunk_events - chunk.len() as u64) as usize;
                    if source.fill(&mut chunk, room)? == 0 {
                        break;
                    }
                }
                if chunk.is_empty() {
                    return Ok(());
                }
                // Positions count measured events only (sources number from their own start).
                chunk.first_index = next;
                let full = chunk.len() as u64 == chunk_events;
                next += chunk.len() as u64;
                let chunk = Arc::new(chunk);
                for tx in &txs {
                    if tx.send(Arc::clone(&chunk)).is_err() {
                        return Ok(());
                    }
                }
                if !full {
                    return Ok(());
                }
            }
        });
        // Plain threads rather than rayon tasks: every worker must run at once, since each
        // one blocks the reader until it takes its copy of a chunk.
        let handles: Vec<_> = rxs
            .into_iter()
            .enumerate()
            .map(|(worker, rx)| {
                let recycle = recycle.clone();
                scope.spawn(move || {
                    let mut acc = WorkerAcc::new(parts, window, key_parts, worker, workers);
                    let mut set = ShardSet::new(max_shards);
                    for chunk in rx.iter() {
                        if (chunk.first_index / chunk_events) % workers as u64 == worker as u64 {
                            acc.record(&chunk, parts, cfg.latency_sample as u64, &mut set);
                            progress(Progress::Events(chunk.len() as u64));
                        } else {
                            acc.count_keys(
                                chunk.iter().filter(|ev| ev.op.is_point()).map(|ev| ev.key),
                            );
                        }
                        // The last worker done with a chunk recycles it; a full return queue
                        // (or a finished reader) just drops it.
                        if let Ok(chunk) = Arc::try_unwrap(chunk) {
                            let _ = recycle.try_send(chunk);
                        }
                    }
                    acc
                })
            })
            .collect();
        let accs = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .map_err(|_| AnalysisError::Config("a replay worker thread panicked".into()))
            })
            .collect::<Result<Vec<WorkerAcc>, _>>()?;
        reader
            .join()
            .map_err(|_| AnalysisError::Config("the trace reader thread panicked".into()))??;
        let mut key_counts: Vec<(usize, KeyCounts)> = Vec::with_capacity(key_parts.count);
        let merged = accs
            .into_iter()
            .map(|mut acc| {
                let keys = std::mem::replace(&mut acc.keys, PartCounts::new(key_parts, []));
                key_counts.extend(keys.into_parts());
                acc
            })
            .reduce(WorkerAcc::merge)
            .unwrap_or_else(|| WorkerAcc::new(parts, window, key_parts, 0, 1));
        key_counts.sort_unstable_by_key(|(part, _)| *part);
        Ok(Measured {
            schemes: merged.schemes,
            keys: KeyCounts::join(
                key_counts.into_iter().map(|(_, k)| k).collect(),
                key_parts.limit,
            ),
            sample: merged.sample,
            events: merged.events,
            scans: merged.scans,
        })
    })
}

/// Distinct keys owned by each shard.
fn distinct_per_shard(part: &dyn Partitioner, keys: &KeyCounts) -> Vec<u64> {
    let entries: Vec<&[u8]> = keys.iter().map(|(k, _)| k).collect();
    let n = part.shard_count() as usize;
    entries
        .par_chunks(4096)
        .map(|keys| {
            let mut counts = vec![0u64; n];
            for k in keys {
                counts[part.shard_of(k) as usize] += 1;
            }
            counts
        })
        .reduce(
            || vec![0; n],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        )
}

#[cfg(test)]
mod tests {
    use super::*;
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

    #[test]
    fn the_warm_up_stops_after_its_events() {
        let keys: Vec<Vec<u8>> = [&b"c"[..], b"a", b"a", b"b", b"d", b"e"]
            .iter()
            .map(|k| k.to_vec())
            .collect();
        let first_five = read_warmup(&mut Keys(keys, 0), 5, &|_| {}).unwrap();
        assert_eq!(
            first_five,
            [b"a".to_vec(), b"b".to_vec(), b"c".to_vec(), b"d".to_vec()]
        );
    }
}
