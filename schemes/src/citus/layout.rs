//! `citus` as a [`ChangingLayout`]: logical shards hashed onto nodes, rebalanced by Citus's
//! planner at window ends.
//!
//! At the end of each window, in this order:
//! 1. the window's point events update the bytes of their shards (a key counts its length
//!    plus the size of its last event that carried one);
//! 2. when no move is waiting (Citus runs one rebalance at a time), the planner runs on the
//!    placement as it stands and its moves join the queue, in the plan's order;
//! 3. moves are made in order: all of them without `move_rate`; with it, the window adds
//!    `move_rate` bytes per second of trace time since the last window's end (per event
//!    without timestamps, [`MoveBudget`]) to a budget and the next move is made while its
//!    shard's bytes fit in what is left (the budget resets once the queue is empty). A shard
//!    not moved yet serves from its old node.
//!
//! Under a scenario ([`ChangingLayout::apply_action`]): `add K` adds K empty worker nodes
//! (Citus's `citus_add_node`), which the next plan (once the queue is empty) fills;
//! `drain S` is Citus's `citus_drain_node`: the queued moves are cancelled and the next plan
//! gives node S capacity 0 and allows it no shard, so every shard placement of S moves off
//! (paced as every move), then the node holds nothing and serves nothing; `weight S W` sets
//! node S's capacity to W (Citus's `node_capacity_function`), from the next plan.

use std::collections::VecDeque;

use workloads::{Event, Spec};

use super::final_layout::FinalShards;
use super::metrics::METRICS;
use super::params::CitusParams;
use super::placement::Placement;
use super::rebalance::ShardMove;
use crate::changing::{
    no_rule, Cell, ChangingLayout, KeyBytes, LayoutOutput, LayoutSetup, MoveBudget, Settling,
    Table, WindowLoad, WindowLog, GENERIC_COLUMNS,
};
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
    "shard_moves",
    "bytes_moved",
    "pending_moves",
];

/// The columns of `citus_shards.csv`.
const SHARDS_COLUMNS: [&str; 5] = ["shard", "start_node", "node", "moves", "bytes"];

/// A `citus` cluster and what it did so far.
pub struct Citus {
    label: String,
    params: CitusParams,
    placement: Placement,
    /// The node of each shard at the start.
    start: Vec<u32>,
    /// Moves made per shard.
    shard_moves: Vec<u64>,
    /// Last value size of every key seen.
    sizes: KeyBytes,
    queue: VecDeque<ShardMove>,
    budget: MoveBudget,
    /// Each shard's moves between nodes.
    graphs: Vec<MoveGraph>,
    moves: u64,
    bytes_moved: u64,
    /// Each node's capacity (1 by default; 0: drained).
    capacity: Vec<f32>,
    /// The windows, for converge_secs.
    settling: Settling,
}

impl Citus {
    /// The cluster of `spec` on `setup.nodes` nodes; a spec error when `grown_from` is above
    /// them.
    pub fn start(spec: &Spec, setup: &LayoutSetup) -> Result<Citus, AnalysisError> {
        let nodes = setup.nodes;
        let params = CitusParams::parse(spec)?;
        let on = params.start_nodes(spec, nodes)?;
        let placement = Placement::round_robin(params.shards, on, nodes);
        let budget = MoveBudget::new(params.move_rate, setup.time_unit_ns);
        Ok(Citus {
            label: spec.to_string(),
            start: placement.owner.clone(),
            shard_moves: vec![0; params.shards as usize],
            graphs: vec![MoveGraph::default(); params.shards as usize],
            params,
            placement,
            sizes: KeyBytes::default(),
            queue: VecDeque::new(),
            budget,
            moves: 0,
            bytes_moved: 0,
            capacity: vec![1.0; nodes as usize],
            settling: Settling::new(setup.time_unit_ns),
        })
    }

    /// The placement as it stands.
    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    /// The metrics' values, in [`METRICS`] order.
    pub fn metric_values(&self) -> Vec<MetricValue> {
        let redundant: u64 = self.graphs.iter().map(MoveGraph::redundant).sum();
        [
            self.moves,
            self.bytes_moved,
            redundant,
            self.queue.len() as u64,
        ]
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

    /// `citus_shards.csv`: every shard's node at the start and at the end, its moves and
    /// its bytes.
    pub fn shards_table(&self) -> Table {
        let p = &self.placement;
        let rows = (0..p.owner.len())
            .map(|s| {
                [s as u64, u64::from(self.start[s]), u64::from(p.owner[s])]
                    .into_iter()
                    .chain([self.shard_moves[s], p.bytes[s]])
                    .map(Cell::Count)
                    .collect()
            })
            .collect();
        Table::new("citus_shards", &SHARDS_COLUMNS, rows)
    }

    fn record(&mut self, e: &Event<'_>) {
        if let Some((old, new)) = self.sizes.record(e) {
            let shard = self.placement.shard_of_key(e.key);
            if let Some(b) = self.placement.bytes.get_mut(shard) {
                *b = b.saturating_sub(old) + new;
            }
        }
    }

    /// Makes the moves the budget allows; returns (moves, bytes).
    fn make_moves(&mut self, log: &WindowLog) -> (u64, u64) {
        let (mut moves, mut bytes) = (0, 0);
        self.budget.earn(log);
        while let Some(m) = self.queue.front().copied() {
            let size = self
                .placement
                .bytes
                .get(m.shard as usize)
                .copied()
                .unwrap_or(0);
            if !self.budget.take(size) {
                break;
            }
            self.queue.pop_front();
            self.placement.apply(&m);
            if let Some(g) = self.graphs.get_mut(m.shard as usize) {
                g.add(m.from as u32, m.to as u32, 1);
            }
            if let Some(n) = self.shard_moves.get_mut(m.shard as usize) {
                *n += 1;
            }
            moves += 1;
            bytes += size;
        }
        if self.queue.is_empty() {
            self.budget.reset();
        }
        self.moves += moves;
        self.bytes_moved += bytes;
        (moves, bytes)
    }
}

impl ChangingLayout for Citus {
    fn nodes(&self) -> u32 {
        self.placement.nodes
    }

    fn route(&mut self, e: &Event<'_>, out: &mut ShardSet) {
        match e.covered_range() {
            Some(_) => self.placement.scan_nodes(out),
            _ => {
                out.insert(self.placement.node_of_key(e.key));
            }
        }
    }

    fn end_window(&mut self, log: &WindowLog, load: &WindowLoad<'_>) -> Vec<Cell> {
        self.settling.record(log, load);
        for e in log.events() {
            self.record(&e);
        }
        if self.queue.is_empty() {
            // The placement and parameters were checked at the start: a plan cannot fail.
            let capacity = |n: u32| self.capacity.get(n as usize).copied().unwrap_or(1.0);
            if let Ok(plan) = self.placement.plan(&self.params, capacity) {
                self.queue.extend(plan.moves);
            }
        }
        let (moves, bytes) = self.make_moves(log);
        [moves, bytes, self.queue.len() as u64]
            .into_iter()
            .map(Cell::Count)
            .collect()
    }

    fn timeline_columns(&self) -> Vec<&'static str> {
        TIMELINE_COLUMNS.to_vec()
    }

    fn final_state(&self) -> Result<Vec<u8>, AnalysisError> {
        FinalShards::new(&self.label, self.params.clone(), self.placement.clone()).state()
    }

    fn output(&self) -> LayoutOutput {
        LayoutOutput {
            tables: vec![self.shards_table()],
            metrics: self.metric_values(),
        }
    }

    fn apply_action(&mut self, action: &Action) -> Result<(), String> {
        match *action {
            Action::Add(k) => {
                self.placement.nodes = self.placement.nodes.saturating_add(k);
                self.capacity.resize(self.placement.nodes as usize, 1.0);
            }
            Action::Drain(s) => {
                *self
                    .capacity
                    .get_mut(s as usize)
                    .ok_or_else(|| no_rule(action))? = 0.0;
                self.queue.clear();
            }
            Action::Weight(s, w) if w > 0.0 => match self.capacity.get_mut(s as usize) {
                Some(c) if *c > 0.0 => *c = w as f32,
                _ => return Err(format!("node {s} is drained")),
            },
            Action::Weight(_, w) => {
                return Err(format!("a node's capacity must be above 0, not {w}"))
            }
            _ => return Err(no_rule(action)),
        }
        Ok(())
    }

    fn holds_nothing(&self, node: u32) -> bool {
        !self.placement.owner.contains(&node)
    }

    fn moves_made(&self) -> (u64, Option<u64>) {
        (self.moves, Some(self.bytes_moved))
    }
}
