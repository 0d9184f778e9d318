//! `pd-hot` as a [`ChangingLayout`]: regions (key ranges) on stores, hot regions moved off
//! the hottest store at window ends.
//!
//! Before the first window's events are routed, its distinct keys (sorted) cut the key
//! space into `regions` ranges at their quantiles (as `range` learns its boundaries from the
//! warm-up, [`RangePartitioner::learn`]); region `i` starts on store `i mod M` (`M` =
//! `grown_from`, default every store). A point event counts one request to its region, a
//! scan or range write one to every region it overlaps; a point event also updates its
//! region's bytes (key length plus the last value size the key carried).
//!
//! At the end of each window, in this order:
//! 1. a region whose window requests reach `min_hot_rate` extends its hot streak, any other
//!    restarts it at 0; a region is hot with a streak of at least `hot_degree`;
//! 2. the scheduler ([`super::scheduler::plan`]) plans up to `max_moves` moves on the
//!    window's requests;
//! 3. moves are made in the plan's order: all of them without `move_rate`; with it, the
//!    window adds `move_rate` bytes per second of trace time since the last window's end (per
//!    event without timestamps, [`MoveBudget`]) to a budget and each move is made while its region's
//!    bytes fit in what is left; the first that does not fit ends the window's moves (the
//!    rest of the plan is dropped, the next window plans again) and the budget is carried;
//!    when every planned move was made the budget resets to 0;
//! 4. a region moved restarts its hot streak at 0 (it must be hot `hot_degree` windows on
//!    its new store before it moves again).
//!
//! Under a scenario ([`ChangingLayout::apply_action`]): `add K` adds K empty stores, which
//! the scheduler fills with hot regions as it would any cool store; `drain S` closes store S
//! (PD's store deletion): from the next window end, step 2 first plans [`drain_moves`] (each
//! region of S, in key order, to the open store with the least window requests) and plans no
//! hot move while one of them waits; S is never a destination again and, once its regions
//! are gone, holds nothing.

use workloads::{Event, Spec};

use super::final_layout::{FinalRegions, SavedRegions};
use super::metrics::METRICS;
use super::params::PdHotParams;
use super::scheduler::{drain_moves, plan};
use crate::changing::{
    no_rule, Cell, ChangingLayout, KeyBytes, LayoutOutput, LayoutSetup, MoveBudget, Settling,
    Table, WindowLoad, WindowLog, GENERIC_COLUMNS,
};
use crate::citus::Placement;
use crate::range::RangePartitioner;
use crate::scenario::{Action, MoveGraph};
use crate::value::MetricValue;
use crate::{AnalysisError, ShardSet};

/// Every column of its `timeline.csv`, in order.
const TIMELINE_COLUMNS: &[&str] = &[
    GENERIC_COLUMNS[0],
    GENERIC_COLUMNS[1],
    GENERIC_COLUMNS[2],
    GENERIC_COLUMNS[3],
    GENERIC_COLUMNS[4],
    "hot_regions",
    "region_moves",
    "bytes_moved",
];

/// The columns of `pd_hot_regions.csv`.
const REGIONS_COLUMNS: [&str; 7] = [
    "region",
    "start_key",
    "start_store",
    "store",
    "moves",
    "requests",
    "bytes",
];

/// A `pd-hot` cluster and what it did so far.
pub struct PdHot {
    label: String,
    params: PdHotParams,
    stores: u32,
    /// Stores holding the regions at the start.
    on: u32,
    /// The regions on their stores; `None` until the first window cut them.
    ranges: Option<RangePartitioner>,
    /// Each region's store at the start.
    start: Vec<u32>,
    /// Requests of the current window, per region.
    flows: Vec<u64>,
    /// Requests of the run, per region.
    requests: Vec<u64>,
    /// Hot windows in a row, per region.
    streak: Vec<u32>,
    /// Bytes of each region.
    bytes: Vec<u64>,
    sizes: KeyBytes,
    /// Moves made per region.
    region_moves: Vec<u64>,
    /// Each region's moves between stores.
    graphs: Vec<MoveGraph>,
    budget: MoveBudget,
    hot_regions: u64,
    moves: u64,
    bytes_moved: u64,
    /// Stores drained (closed to regions).
    closed: Vec<u32>,
    /// The windows, for converge_secs.
    settling: Settling,
}

impl PdHot {
    /// The cluster of `spec` on `setup.nodes` stores; a spec error when `grown_from` is above
    /// them.
    pub fn start(spec: &Spec, setup: &LayoutSetup) -> Result<PdHot, AnalysisError> {
        let stores = setup.nodes;
        let params = PdHotParams::parse(spec)?;
        let on = params.start_stores(spec, stores)?;
        let budget = MoveBudget::new(params.move_rate, setup.time_unit_ns);
        Ok(PdHot {
            label: spec.to_string(),
            params,
            stores: stores.max(1),
            on,
            ranges: None,
            start: Vec::new(),
            flows: Vec::new(),
            requests: Vec::new(),
            streak: Vec::new(),
            bytes: Vec::new(),
            sizes: KeyBytes::default(),
            region_moves: Vec::new(),
            graphs: Vec::new(),
            budget,
            hot_regions: 0,
            moves: 0,
            bytes_moved: 0,
            closed: Vec::new(),
            settling: Settling::new(setup.time_unit_ns),
        })
    }

    /// The final layout this cluster leaves (what [`ChangingLayout::final_state`] saves).
    pub fn final_layout(&self) -> Result<FinalRegions, AnalysisError> {
        FinalRegions::from_state(&self.final_state()?)
    }

    /// The regions on their stores (`None` before the first window).
    pub fn ranges(&self) -> Option<&RangePartitioner> {
        self.ranges.as_ref()
    }

    /// Cuts the regions from the sorted distinct `keys` and places them round-robin.
    fn cut(&mut self, keys: &[Vec<u8>]) -> Result<(), AnalysisError> {
        let learned = RangePartitioner::learn("", 1, u64::from(self.params.regions), keys)?;
        let count = learned.range_count();
        let owners = Placement::round_robin(count as u32, self.on, self.stores).owner;
        let ranges =
            RangePartitioner::with_shard_count("", self.stores, learned.starts().to_vec(), owners)?;
        self.start = ranges.owners().to_vec();
        self.ranges = Some(ranges);
        for v in [
            &mut self.flows,
            &mut self.requests,
            &mut self.bytes,
            &mut self.region_moves,
        ] {
            *v = vec![0; count];
        }
        self.streak = vec![0; count];
        self.graphs = vec![MoveGraph::default(); count];
        Ok(())
    }

    /// The metrics' values, in [`METRICS`] order.
    pub fn metric_values(&self) -> Vec<MetricValue> {
        let redundant: u64 = self.graphs.iter().map(MoveGraph::redundant).sum();
        [self.moves, self.bytes_moved, redundant, self.hot_regions]
            .iter()
            .map(|&v| Some(v as f64))
            .chain([self.settling.after_start()])
            .zip(METRICS)
            .map(|(value, m)| MetricValue {
                name: m.name,
                unit: m.unit,
                value,
            })
            .collect()
    }

    /// `pd_hot_regions.csv`: every region's start key, its store at the start and at the
    /// end, its moves, requests and bytes.
    pub fn regions_table(&self) -> Table {
        let rows = match &self.ranges {
            None => Vec::new(),
            Some(ranges) => (0..ranges.range_count())
                .map(|r| {
                    let mut row = vec![
                        Cell::Count(r as u64),
                        Cell::Key(Some(ranges.starts()[r].clone())),
                    ];
                    row.extend(
                        [
                            u64::from(self.start[r]),
                            u64::from(ranges.owners()[r]),
                            self.region_moves[r],
                            self.requests[r],
                            self.bytes[r],
                        ]
                        .map(Cell::Count),
                    );
                    row
                })
                .collect(),
        };
        Table::new("pd_hot_regions", &REGIONS_COLUMNS, rows)
    }

    /// Steps 1-4 of the module on `ranges`; returns (hot regions, moves, bytes moved).
    fn schedule(&mut self, ranges: &RangePartitioner) -> Result<(u64, u64, u64), AnalysisError> {
        let degree = self.params.hot_degree;
        let min = self.params.rule.min_hot_rate;
        for (s, &f) in self.streak.iter_mut().zip(&self.flows) {
            *s = if f >= min { s.saturating_add(1) } else { 0 };
        }
        let hot: Vec<bool> = self.streak.iter().map(|&s| s >= degree).collect();
        let hot_regions = hot.iter().filter(|&&h| h).count() as u64;
        let mut owners = ranges.owners().to_vec();
        let closed = &self.closed;
        let mut planned = drain_moves(&owners, &self.flows, self.stores, |s| closed.contains(&s));
        if planned.is_empty() {
            planned = plan(
                &owners,
                &self.flows,
                &hot,
                self.stores,
                closed,
                &self.params.rule,
            );
        }
        let mut made = Vec::new();
        for m in &planned {
            let size = self.bytes[m.region];
            if !self.budget.take(size) {
                break;
            }
            owners[m.region] = m.to;
            made.push((*m, size));
        }
        if made.len() == planned.len() {
            self.budget.reset();
        }
        if !made.is_empty() {
            self.ranges = Some(ranges.with_owners(self.stores, owners)?);
        }
        let (moves, mut bytes) = (made.len() as u64, 0u64);
        for (m, size) in made {
            self.streak[m.region] = 0;
            self.graphs[m.region].add(m.from, m.to, 1);
            self.region_moves[m.region] += 1;
            bytes += size;
        }
        Ok((hot_regions, moves, bytes))
    }
}

impl ChangingLayout for PdHot {
    fn nodes(&self) -> u32 {
        self.stores
    }

    fn begin_window(&mut self, _index: u64, log: &WindowLog) {
        if self.ranges.is_none() {
            let mut keys: Vec<&[u8]> = log.events().map(|e| e.key).collect();
            keys.sort_unstable();
            keys.dedup();
            let keys: Vec<Vec<u8>> = keys.into_iter().map(<[u8]>::to_vec).collect();
            if self.cut(&keys).is_err() {
                // Cannot happen (at least one store, learned starts are valid); one region
                // on store 0 then.
                let _ = self.cut(&[]);
            }
        }
    }

    fn route(&mut self, e: &Event<'_>, out: &mut ShardSet) {
        let Some(ranges) = &self.ranges else {
            out.insert(0);
            return;
        };
        match e.covered_range() {
            Some(end) => {
                for r in ranges.ranges_overlapping(e.key, end) {
                    self.flows[r] += 1;
                    out.insert(ranges.owner_of_range(r));
                }
            }
            _ => {
                let r = ranges.range_index_of(e.key);
                self.flows[r] += 1;
                if let Some((old, new)) = self.sizes.record(e) {
                    self.bytes[r] = self.bytes[r].saturating_sub(old) + new;
                }
                out.insert(ranges.owner_of_range(r));
            }
        }
    }

    fn end_window(&mut self, log: &WindowLog, load: &WindowLoad<'_>) -> Vec<Cell> {
        self.settling.record(log, load);
        self.budget.earn(log);
        let Some(ranges) = self.ranges.take() else {
            return vec![Cell::Count(0); 3];
        };
        let result = self.schedule(&ranges);
        if self.ranges.is_none() {
            self.ranges = Some(ranges);
        }
        // The owners were checked when the regions were cut and moves stay below the store
        // count: a failure here leaves the layout unchanged.
        let (hot, moves, bytes) = result.unwrap_or((0, 0, 0));
        for (total, f) in self.requests.iter_mut().zip(self.flows.iter_mut()) {
            *total += *f;
            *f = 0;
        }
        self.hot_regions = hot;
        self.moves += moves;
        self.bytes_moved += bytes;
        [hot, moves, bytes].into_iter().map(Cell::Count).collect()
    }

    fn timeline_columns(&self) -> Vec<&'static str> {
        TIMELINE_COLUMNS.to_vec()
    }

    fn final_state(&self) -> Result<Vec<u8>, AnalysisError> {
        let (starts, owners) = match &self.ranges {
            Some(r) => (r.starts().to_vec(), r.owners().to_vec()),
            None => (vec![Vec::new()], vec![0]),
        };
        let mut requests = self.requests.clone();
        requests.resize(owners.len(), 0);
        SavedRegions {
            label: self.label.clone(),
            params: self.params.clone(),
            stores: self.stores,
            starts,
            owners,
            requests,
        }
        .state()
    }

    fn output(&self) -> LayoutOutput {
        LayoutOutput {
            tables: vec![self.regions_table()],
            metrics: self.metric_values(),
        }
    }

    fn apply_action(&mut self, action: &Action) -> Result<(), String> {
        match *action {
            Action::Add(k) => self.stores = self.stores.saturating_add(k),
            Action::Drain(s) => self.closed.push(s),
            _ => return Err(no_rule(action)),
        }
        Ok(())
    }

    fn holds_nothing(&self, node: u32) -> bool {
        self.ranges
            .as_ref()
            .is_some_and(|r| !r.owners().contains(&node))
    }

    fn moves_made(&self) -> (u64, Option<u64>) {
        (self.moves, Some(self.bytes_moved))
    }
}
