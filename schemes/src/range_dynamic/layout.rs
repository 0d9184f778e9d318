//! `range-dynamic` as a [`ChangingLayout`]: a cluster of ranges replayed window by window.
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

use workloads::Event;
use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::cluster::{Cluster, SplitCause};
use super::diagnose::Diagnosis;
use super::final_layout::FinalRanges;
use super::finder::{decide, exact_best, FinderInput, FinderKind};
use super::output::{DynamicTotals, FinalRange, FinderSummary, SplitRow, TimelineRow};
use super::params::DynamicParams;
use super::rebalance::{self, MoveKind, RebalanceLimits};
use super::requests::{scan_end, SideCounts};
use crate::changing::{
    no_rule, Cell, ChangingLayout, LayoutOutput, WindowLoad, WindowLog, WindowTime,
};
use crate::scenario::Action;
use crate::value::{MetricDef, MetricValue};
use crate::{AnalysisError, ShardSet};

/// Every column of its `timeline.csv`, in order.
const TIMELINE_COLUMNS: &[&str] = &[
    "window",
    "ranges",
    "splits",
    "merges",
    "ownership_moves",
    "data_moves",
    "bytes_moved",
    "hottest_node_share",
    "hottest_range_share",
    "size_splits",
    "load_splits",
    "refusals",
    "oscillations",
    "events",
    "requests",
    "measured",
];

/// A load-split decision waiting for the next window to be judged.
struct Pending {
    start: Vec<u8>,
    end: Option<Vec<u8>>,
    optimal_key: Option<Vec<u8>>,
    rows: std::ops::Range<usize>,
}

/// A `range-dynamic` cluster and what it did so far.
pub struct RangeDynamic {
    label: String,
    params: DynamicParams,
    cluster: Cluster,
    windows: u64,
    cluster_load: f64,
    pending: Vec<Pending>,
    timeline: Vec<TimelineRow>,
    splits: Vec<SplitRow>,
    totals: DynamicTotals,
    /// Nodes drained (they receive nothing).
    draining: Vec<u32>,
}

impl ChangingLayout for RangeDynamic {
    fn window_time(&self) -> WindowTime {
        self.params.window_time
    }

    fn nodes(&self) -> u32 {
        self.cluster.nodes()
    }

    fn begin_window(&mut self, _index: u64, log: &WindowLog) {
        if self.windows == 0 && self.params.presplit > 1 {
            let mut keys: Vec<&[u8]> = log.events().map(|e| e.key).collect();
            keys.sort_unstable();
            keys.dedup();
            self.cluster.presplit(&keys, self.params.presplit);
        }
    }

    fn route(&mut self, e: &Event<'_>, out: &mut ShardSet) {
        match scan_end(e) {
            None => {
                out.insert(self.cluster.record_point(e));
            }
            Some(end) => {
                for (_, r) in self.cluster.map.overlapping_mut(e.key, end) {
                    r.data.requests += 1;
                    out.insert(r.owner());
                }
            }
        }
    }

    fn end_window(&mut self, log: &WindowLog, load: &WindowLoad<'_>) -> Vec<Cell> {
        let index = load.index;
        let mut row = TimelineRow {
            window: index,
            ranges: 0,
            splits: 0,
            merges: 0,
            ownership_moves: 0,
            data_moves: 0,
            bytes_moved: 0,
            hottest_node_share: load.hottest_node_share,
            hottest_range_share: 0.0,
            size_splits: 0,
            load_splits: 0,
            refusals: 0,
            oscillations: 0,
            events: load.events,
            requests: load.requests,
            measured: load.measured,
        };
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
        let cells = own_cells(&row);
        self.timeline.push(row);
        self.windows += 1;
        cells
    }

    fn timeline_columns(&self) -> Vec<&'static str> {
        TIMELINE_COLUMNS.to_vec()
    }

    fn final_state(&self) -> Result<Vec<u8>, AnalysisError> {
        FinalRanges::new(&self.label, self.final_ranges(), self.cluster.nodes()).state()
    }

    fn output(&self) -> LayoutOutput {
        LayoutOutput {
            tables: vec![
                super::output::splits_table(&self.splits),
                super::output::finders_table(&self.finder_summaries()),
            ],
            metrics: self.metric_values(),
        }
    }

    fn apply_action(&mut self, action: &Action) -> Result<(), String> {
        let (nodes, replicas) = (self.cluster.nodes() as usize, self.params.replicas as usize);
        match *action {
            Action::Add(k) => self.cluster.add_nodes(k),
            Action::Drain(s) if nodes - self.draining.len() <= replicas => {
                return Err(format!(
                    "draining node {s} would leave fewer nodes than replicas={replicas}"
                ))
            }
            Action::Drain(s) => self.draining.push(s),
            _ => return Err(no_rule(action)),
        }
        Ok(())
    }

    fn holds_nothing(&self, node: u32) -> bool {
        !self.cluster.holds(node)
    }

    fn moves_made(&self) -> (u64, Option<u64>) {
        let t = &self.totals;
        (t.ownership_moves + t.data_moves, Some(t.bytes_moved))
    }
}

/// The cells of `row` that are not generic, in [`TIMELINE_COLUMNS`] order.
fn own_cells(row: &TimelineRow) -> Vec<Cell> {
    [
        row.ranges,
        row.splits,
        row.merges,
        row.ownership_moves,
        row.data_moves,
        row.bytes_moved,
    ]
    .into_iter()
    .map(Cell::Count)
    .chain([Cell::Number(Some(row.hottest_range_share))])
    .chain(
        [
            row.size_splits,
            row.load_splits,
            row.refusals,
            row.oscillations,
        ]
        .into_iter()
        .map(Cell::Count),
    )
    .collect()
}

impl RangeDynamic {
    /// A cluster of `nodes` nodes (at least 1) holding one range, labelled `label`.
    pub fn new(label: String, params: DynamicParams, nodes: u32) -> RangeDynamic {
        RangeDynamic {
            label,
            cluster: Cluster::new(nodes, params.replicas),
            params,
            windows: 0,
            cluster_load: 0.0,
            pending: Vec::new(),
            timeline: Vec::new(),
            splits: Vec::new(),
            totals: DynamicTotals::default(),
            draining: Vec::new(),
        }
    }

    /// The parameters.
    pub fn params(&self) -> &DynamicParams {
        &self.params
    }

    /// One row per window so far.
    pub fn timeline(&self) -> &[TimelineRow] {
        &self.timeline
    }

    /// One row per load-split decision and finder so far.
    pub fn splits(&self) -> &[SplitRow] {
        &self.splits
    }

    /// Totals of the actions so far.
    pub fn totals(&self) -> &DynamicTotals {
        &self.totals
    }

    /// One summary per finder.
    pub fn finder_summaries(&self) -> Vec<FinderSummary> {
        FinderSummary::from_rows(&self.splits)
    }

    /// The ranges now, in key order.
    pub fn final_ranges(&self) -> Vec<FinalRange> {
        self.cluster
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
            .collect()
    }

    /// Its own metrics, in [`super::metrics::METRICS`] order.
    pub fn metric_values(&self) -> Vec<MetricValue> {
        let t = &self.totals;
        let applied: Vec<&SplitRow> = self.splits.iter().filter(|r| r.applied).collect();
        let mean = |f: fn(&SplitRow) -> Option<f64>| {
            let v: Vec<f64> = applied
                .iter()
                .filter(|r| r.balance_after.is_some())
                .filter_map(|r| f(r))
                .collect();
            (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
        };
        let values = [
            Some(self.timeline.len() as f64),
            Some(self.cluster.map.len() as f64),
            Some(t.size_splits as f64),
            Some(t.load_splits as f64),
            Some(t.refusals as f64),
            Some(t.merges as f64),
            Some(t.oscillations as f64),
            Some(t.ownership_moves as f64),
            Some(t.data_moves as f64),
            Some(t.bytes_moved as f64),
            mean(|r| r.balance_after),
            mean(|r| r.optimal_balance),
        ];
        MetricDef::values(super::metrics::METRICS, values)
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
        let (p, merge_bytes) = (&self.params, self.params.merge_bytes());
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
        let (ranges, nodes) = (self.cluster.loads(), self.cluster.nodes());
        let leaving = |n: u32| self.draining.contains(&n);
        // A drain's moves first; the load plan once every drained node is empty.
        let moves = match self.draining.iter().any(|&n| self.cluster.holds(n)) {
            true => rebalance::drain_plan(&ranges, nodes, limits.byte_cap, &leaving),
            false => rebalance::plan(&ranges, nodes, &limits, &|n| !leaving(n)),
        };
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
