//! The simulation: events replayed in order, window by window, through a cluster whose
//! ranges split, merge and move at the end of every window.
//!
//! At the end of each window, in this order:
//! 1. (first window, `presplit=K`) the single range is cut at K-quantiles of the window's
//!    keys, before its requests are counted: a pre-split made knowing the key space;
//! 2. the window's requests are routed to ranges and nodes, and the stored keys updated;
//! 3. the load-split decisions of the previous window are judged on this window's requests;
//! 4. each range's EWMA load is updated; a range over the split threshold extends its streak;
//! 5. load splits: a range with a streak of `load_windows` is decided by every finder on this
//!    window's requests; the configured finder's key is applied, or its refusal counted, and
//!    the streak restarts;
//! 6. size splits at the median stored key, repeated until no range holds more than
//!    `max_bytes` (or the range cannot be cut);
//! 7. merges of neighbours that are small and cold together, not split less than `cooldown`
//!    windows ago (with hysteresis), and whose replicas are on the same nodes;
//! 8. rebalancing: ownership moves, then data moves within the bytes-per-window cap.

use workloads::{EventChunk, EventSource};
use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::DynamicRun;
use crate::metrics::fanout::FanoutAccumulator;
use schemes::range_dynamic::cluster::{Cluster, SplitCause};
use schemes::range_dynamic::diagnose::Diagnosis;
use schemes::range_dynamic::finder::{decide, exact_best, FinderInput, FinderKind};
use schemes::range_dynamic::output::{
    DynamicTotals, FinalRange, SplitRow, TimelineRow, WindowClock,
};
use schemes::range_dynamic::params::DynamicParams;
use schemes::range_dynamic::rebalance::{self, MoveKind, RebalanceLimits};
use schemes::range_dynamic::requests::{scan_end, SideCounts, WindowLog};
use schemes::range_dynamic::window::{WindowSink, Windower};
use schemes::{AnalysisError, KeyCounts, ShardSet};

/// How a run is set up besides the scheme's own parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DynamicOptions {
    /// Nodes `N` (at least 1).
    pub nodes: u32,
    /// Window length in events (with timestamps: the average the time windows are sized for).
    pub window: u64,
    /// Leading events that the cluster replays (it splits, merges and moves) but that the
    /// node loads, scan fan-out and key counts of the result leave out, as the replay engine
    /// leaves out the warm-up of learned schemes.
    pub warmup_events: u64,
    /// Distinct measured point keys counted exactly (`--distinct-limit`); past it the run's
    /// key counts are a consistent sample, so its memory stays bounded as the replay's does.
    pub distinct_key_limit: usize,
}

/// Replays `source` through a `range-dynamic` cluster of `nodes` nodes with windows of
/// `window` events (see [`DynamicOptions::window`]), without warm-up.
pub fn simulate(
    spec: &workloads::Spec,
    nodes: u32,
    source: &mut dyn EventSource,
    window: u64,
) -> Result<DynamicRun, AnalysisError> {
    let params = DynamicParams::parse(spec)?;
    let mut run = simulate_with(
        &params,
        &DynamicOptions {
            nodes,
            window,
            warmup_events: 0,
            distinct_key_limit: workloads::stats::DEFAULT_DISTINCT_LIMIT,
        },
        source,
    )?;
    run.label = spec.to_string();
    Ok(run)
}

/// Replays `source` through a cluster with checked parameters.
pub fn simulate_with(
    params: &DynamicParams,
    opts: &DynamicOptions,
    source: &mut dyn EventSource,
) -> Result<DynamicRun, AnalysisError> {
    if opts.nodes == 0 {
        return Err(AnalysisError::Config(
            "range-dynamic needs at least 1 node (got 0)".into(),
        ));
    }
    if opts.window == 0 {
        return Err(AnalysisError::Config(
            "range-dynamic needs windows of at least 1 event (got 0)".into(),
        ));
    }
    let mut sim = Simulation::new(params, opts);
    let mut windower = Windower::new(params.window_time, opts.window);
    let mut chunk = EventChunk::with_capacity(1 << 14);
    loop {
        chunk.clear();
        if source.fill(&mut chunk, 1 << 14)? == 0 {
            break;
        }
        for e in chunk.iter() {
            windower.push(e, &mut sim);
        }
    }
    let clock = windower.finish(&mut sim);
    Ok(sim.finish(clock))
}

/// A load-split decision waiting for the next window to be judged.
struct Pending {
    start: Vec<u8>,
    end: Option<Vec<u8>>,
    optimal_key: Option<Vec<u8>>,
    rows: std::ops::Range<usize>,
}

/// The state of a run.
struct Simulation<'p> {
    params: &'p DynamicParams,
    cluster: Cluster,
    warmup: u64,
    events_seen: u64,
    windows: u64,
    cluster_load: f64,
    pending: Vec<Pending>,
    nodes_hit: ShardSet,
    timeline: Vec<TimelineRow>,
    splits: Vec<SplitRow>,
    totals: DynamicTotals,
    node_requests: Vec<u64>,
    window_node_requests: Vec<Vec<u32>>,
    window_events: Vec<u64>,
    fanout: FanoutAccumulator,
    keys: KeyCounts,
}

impl WindowSink for Simulation<'_> {
    fn close(&mut self, index: u64, log: &WindowLog) {
        let mut row = self.route(index, log);
        self.judge_pending(log);
        row.hottest_range_share = self.hottest_range_share();
        let merge_limit = self.update_loads();
        if self.params.load_splits {
            self.load_splits(index, log, &mut row);
        }
        self.size_splits(index, log, &mut row);
        self.merges(index, merge_limit, &mut row);
        self.rebalance(&mut row);
        for (_, r) in self.cluster.map.iter_mut() {
            r.data.requests = 0;
        }
        row.ranges = self.cluster.map.len() as u64;
        row.splits = row.size_splits + row.load_splits;
        self.add_totals(&row);
        self.timeline.push(row);
        self.events_seen += log.len() as u64;
        self.windows += 1;
    }
}

impl<'p> Simulation<'p> {
    fn new(params: &'p DynamicParams, opts: &DynamicOptions) -> Self {
        let n = opts.nodes as usize;
        Simulation {
            params,
            cluster: Cluster::new(opts.nodes, params.replicas),
            warmup: opts.warmup_events,
            events_seen: 0,
            windows: 0,
            cluster_load: 0.0,
            pending: Vec::new(),
            nodes_hit: ShardSet::new(opts.nodes),
            timeline: Vec::new(),
            splits: Vec::new(),
            totals: DynamicTotals::default(),
            node_requests: vec![0; n],
            window_node_requests: Vec::new(),
            window_events: Vec::new(),
            fanout: FanoutAccumulator::default(),
            keys: KeyCounts::with_limit(opts.distinct_key_limit),
        }
    }

    /// Routes the window's events (after the pre-split of the first window) and starts its
    /// timeline row.
    fn route(&mut self, index: u64, log: &WindowLog) -> TimelineRow {
        if self.windows == 0 && self.params.presplit > 1 {
            let mut keys: Vec<&[u8]> = log.events().map(|e| e.key).collect();
            keys.sort_unstable();
            keys.dedup();
            self.cluster.presplit(&keys, self.params.presplit);
        }
        let n_nodes = self.node_requests.len();
        let measured_from = usize::try_from(self.warmup.saturating_sub(self.events_seen))
            .unwrap_or(usize::MAX)
            .min(log.len());
        let (mut window_nodes, mut measured_nodes) = (vec![0u64; n_nodes], vec![0u32; n_nodes]);
        for (i, e) in log.events().enumerate() {
            let measured = i >= measured_from;
            self.nodes_hit.clear();
            match scan_end(&e) {
                None => {
                    let owner = self.cluster.record_point(&e);
                    self.nodes_hit.insert(owner);
                }
                Some(end) => {
                    for (_, r) in self.cluster.map.overlapping_mut(e.key, end) {
                        r.data.requests += 1;
                        self.nodes_hit.insert(r.owner());
                    }
                    if measured {
                        self.fanout.record(self.nodes_hit.len());
                    }
                }
            }
            for node in self
                .nodes_hit
                .iter()
                .map(|n| n as usize)
                .filter(|&n| n < n_nodes)
            {
                window_nodes[node] += 1;
                if measured {
                    measured_nodes[node] = measured_nodes[node].saturating_add(1);
                    self.node_requests[node] += 1;
                }
            }
            if measured && e.op.is_point() {
                self.keys.add(e.key, 1);
            }
        }
        if measured_from < log.len() {
            self.window_node_requests.push(measured_nodes);
            self.window_events.push((log.len() - measured_from) as u64);
        }
        let requests: u64 = window_nodes.iter().sum();
        TimelineRow {
            window: index,
            ranges: 0,
            splits: 0,
            merges: 0,
            ownership_moves: 0,
            data_moves: 0,
            bytes_moved: 0,
            hottest_node_share: share(window_nodes.iter().copied().max().unwrap_or(0), requests),
            hottest_range_share: 0.0,
            size_splits: 0,
            load_splits: 0,
            refusals: 0,
            oscillations: 0,
            events: log.len() as u64,
            requests,
            measured: measured_from < log.len(),
        }
    }

    /// Judges last window's decisions on this window's requests.
    fn judge_pending(&mut self, log: &WindowLog) {
        for p in std::mem::take(&mut self.pending) {
            let requests = log.requests_in(&p.start, p.end.as_deref());
            if requests.is_empty() {
                continue;
            }
            let optimal = p
                .optimal_key
                .as_ref()
                .map(|k| SideCounts::at(&requests, k).balance());
            for row in self.splits.get_mut(p.rows).unwrap_or_default() {
                row.optimal_balance = optimal;
                if let Some(k) = &row.split_key {
                    let counts = SideCounts::at(&requests, k);
                    row.balance_after = Some(counts.balance());
                    row.contained = Some(counts.contained_share());
                }
            }
        }
    }

    fn hottest_range_share(&self) -> f64 {
        let (mut max, mut total) = (0, 0);
        for (_, r) in self.cluster.map.iter() {
            max = max.max(r.data.requests);
            total += r.data.requests;
        }
        share(max, total)
    }

    /// Folds the window's requests into the EWMA loads (the first window seeds them), updates
    /// the hot streaks and returns the merge load threshold.
    fn update_loads(&mut self) -> f64 {
        let alpha = self.params.ewma;
        let first = self.windows == 0;
        let blend = |old: f64, new: u64| {
            if first {
                new as f64
            } else {
                alpha * new as f64 + (1.0 - alpha) * old
            }
        };
        let total: u64 = self.cluster.map.iter().map(|(_, r)| r.data.requests).sum();
        self.cluster_load = blend(self.cluster_load, total);
        let (split, merge) = self
            .params
            .load_limits(self.cluster_load, self.cluster.nodes());
        for (_, r) in self.cluster.map.iter_mut() {
            let s = &mut r.data;
            s.ewma = blend(s.ewma, s.requests);
            s.hot_streak = if s.ewma > split {
                s.hot_streak.saturating_add(1)
            } else {
                0
            };
        }
        merge
    }

    /// Decides every range whose streak reached `load_windows`.
    fn load_splits(&mut self, index: u64, log: &WindowLog, row: &mut TimelineRow) {
        let due: Vec<(Vec<u8>, Option<Vec<u8>>)> = self
            .cluster
            .map
            .iter()
            .filter(|(_, r)| r.data.hot_streak >= self.params.load_windows)
            .map(|(s, r)| (s.to_vec(), r.end().map(<[u8]>::to_vec)))
            .collect();
        for (start, end) in due {
            let requests = log.requests_in(&start, end.as_deref());
            let median = self.cluster.median_key(&start);
            let input = FinderInput {
                start: &start,
                end: end.as_deref(),
                requests: &requests,
                stored_median: median.as_deref(),
                seed: xxh3_64_with_seed(&start, self.params.seed ^ index.rotate_left(32)),
            };
            let diagnosis = Diagnosis::of(&requests);
            let optimal_key = exact_best(&input).map(|(k, _)| k);
            let first_row = self.splits.len();
            let mut chosen = None;
            for finder in FinderKind::ALL {
                let outcome = decide(finder, &input, &diagnosis);
                let applied = finder == self.params.finder && outcome.is_ok();
                self.splits.push(SplitRow {
                    window: index,
                    finder,
                    range_start: start.clone(),
                    split_key: outcome.as_ref().ok().cloned(),
                    balance_after: None,
                    optimal_balance: None,
                    contained: None,
                    reason: outcome.as_ref().err().copied(),
                    range_end: end.clone(),
                    applied,
                    requests: requests.len() as u64,
                });
                if finder == self.params.finder {
                    chosen = outcome.ok();
                }
            }
            let split = chosen.is_some_and(|key| {
                let left_share = SideCounts::at(&requests, &key).left_load_share();
                self.cluster
                    .split(&key, SplitCause::Load(index), left_share)
                    .is_ok()
            });
            if split {
                row.load_splits += 1;
            } else {
                row.refusals += 1;
                if let Some(r) = self.cluster.map.get_mut(&start) {
                    r.data.hot_streak = 0;
                }
            }
            self.pending.push(Pending {
                start,
                end,
                optimal_key,
                rows: first_row..self.splits.len(),
            });
        }
    }

    /// Splits every range over `max_bytes` at its median stored key until none is.
    fn size_splits(&mut self, index: u64, log: &WindowLog, row: &mut TimelineRow) {
        let max_bytes = self.params.max_bytes;
        let mut work: Vec<Vec<u8>> = self
            .cluster
            .map
            .iter()
            .filter(|(_, r)| r.data.bytes > max_bytes)
            .map(|(s, _)| s.to_vec())
            .collect();
        while let Some(start) = work.pop() {
            let Some(range) = self
                .cluster
                .map
                .get(&start)
                .filter(|r| r.data.bytes > max_bytes)
            else {
                continue;
            };
            let end = range.end().map(<[u8]>::to_vec);
            let Some(median) = self.cluster.median_key(&start) else {
                continue;
            };
            let left_share =
                SideCounts::at(&log.requests_in(&start, end.as_deref()), &median).left_load_share();
            if self
                .cluster
                .split(&median, SplitCause::Size(index), left_share)
                .is_ok()
            {
                row.size_splits += 1;
                work.push(start);
                work.push(median);
            }
        }
    }

    /// Merges neighbours that are small and cold together (one merge per range per window).
    fn merges(&mut self, index: u64, merge_limit: f64, row: &mut TimelineRow) {
        let (p, merge_bytes) = (self.params, self.params.merge_bytes());
        let starts = self.cluster.map.starts();
        let mut i = 0;
        while i + 1 < starts.len() {
            let mergeable = match (
                self.cluster.map.get(&starts[i]),
                self.cluster.map.get(&starts[i + 1]),
            ) {
                (Some(a), Some(b)) => {
                    let (a, b) = (&a.data, &b.data);
                    p.cooled_down(a.split_at, index)
                        && p.cooled_down(b.split_at, index)
                        && a.bytes + b.bytes <= merge_bytes
                        && a.ewma + b.ewma <= merge_limit
                        && same_nodes(&a.replicas, &b.replicas)
                }
                _ => false,
            };
            if !mergeable {
                i += 1;
                continue;
            }
            if let Ok(boundary_split_at) = self.cluster.merge(&starts[i]) {
                row.merges += 1;
                if boundary_split_at.is_some_and(|w| index.saturating_sub(w) < p.cooldown) {
                    row.oscillations += 1;
                }
            }
            i += 2;
        }
    }

    fn rebalance(&mut self, row: &mut TimelineRow) {
        let limits = RebalanceLimits {
            threshold: self.params.rebalance_threshold,
            byte_cap: self.params.move_bytes_per_window,
        };
        let moves = rebalance::plan(
            &self.cluster.loads(),
            self.cluster.nodes(),
            &limits,
            &|_| true,
        );
        self.cluster.apply(&moves);
        for m in &moves {
            match m.kind {
                MoveKind::Ownership => row.ownership_moves += 1,
                MoveKind::Data => {
                    row.data_moves += 1;
                    row.bytes_moved += m.bytes;
                }
            }
        }
    }

    fn add_totals(&mut self, row: &TimelineRow) {
        let t = &mut self.totals;
        t.size_splits += row.size_splits;
        t.load_splits += row.load_splits;
        t.refusals += row.refusals;
        t.merges += row.merges;
        t.oscillations += row.oscillations;
        t.ownership_moves += row.ownership_moves;
        t.data_moves += row.data_moves;
        t.bytes_moved += row.bytes_moved;
    }

    fn finish(self, clock: WindowClock) -> DynamicRun {
        let ranges = self
            .cluster
            .map
            .iter()
            .map(|(start, r)| FinalRange {
                start: start.to_vec(),
                end: r.end().map(<[u8]>::to_vec),
                owner: r.owner(),
                replicas: r.data.replicas.to_vec(),
                generation: r.generation(),
                bytes: r.data.bytes,
                keys: r.data.keys,
                load: r.data.ewma,
            })
            .collect();
        DynamicRun {
            label: schemes::range_dynamic::params::NAME.to_string(),
            params: self.params.clone(),
            nodes: self.cluster.nodes(),
            clock,
            events: self.events_seen,
            measured_events: self.events_seen.saturating_sub(self.warmup),
            timeline: self.timeline,
            splits: self.splits,
            totals: self.totals,
            node_requests: self.node_requests,
            window_node_requests: self.window_node_requests,
            window_events: self.window_events,
            fanout: self.fanout.finish(),
            ranges,
            keys: self.keys,
        }
    }
}

/// True when two replica sets hold the same nodes.
fn same_nodes(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && a.iter().all(|n| b.contains(n))
}

/// `part / total`, 0 when `total` is 0.
fn share(part: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        part as f64 / total as f64
    }
}
