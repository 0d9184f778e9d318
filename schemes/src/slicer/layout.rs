//! `slicer` as a [`ChangingLayout`]: the hash space in slices on tasks, one round of the
//! balancer ([`super::round`]) at every window end on the window's requests.
//!
//! A key's load is its point events in the window, at its pinned hash (`xxh3_64(key)`);
//! scans contact every task holding a slice and add no slice load. The next window routes
//! with the slices as the round left them.
//!
//! Moves are instant without `move_rate`; with it, each window adds `move_rate` bytes per
//! second of trace time since the last window's end (per event without timestamps,
//! [`MoveBudget`]) and the round makes a move only while the bytes of the range it moves (the
//! keys seen in it: length plus the size of their last event that carried one) fit in what
//! is left ([`round_paced`]); the budget resets when a round ends with nothing waiting.
//!
//! Under a scenario ([`ChangingLayout::apply_action`]): `add K` adds K tasks with no slice,
//! which the next rounds load as they would any cold task; `drain S` retires task S: the
//! next rounds reassign its slices (to the least loaded task, paced), then it holds nothing.

use std::collections::BTreeMap;

use workloads::{Event, Spec};

use super::final_layout::FinalSlices;
use super::metrics::METRICS;
use super::params::SlicerParams;
use super::round::{imbalance, round_paced, task_loads, RoundOptions};
use super::slices::{share, HashLoads, Slices, SPACE};
use crate::changing::{
    no_rule, Cell, ChangingLayout, KeyBytes, LayoutOutput, LayoutSetup, MoveBudget, Settling,
    Table, WindowLoad, WindowLog, GENERIC_COLUMNS,
};
use crate::pinned_hash::hash64;
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
    "slices",
    "splits",
    "merges",
    "moves",
    "churn",
    "imbalance",
    "bytes_moved",
];

/// The columns of `slicer_slices.csv`.
const SLICES_COLUMNS: [&str; 5] = ["slice", "start", "width_share", "task", "last_load"];

/// A `slicer` layout and what it did so far.
pub struct Slicer {
    label: String,
    params: SlicerParams,
    slices: Slices,
    /// Each slice's requests in the last window.
    last_loads: Vec<u64>,
    /// Moves between tasks.
    graph: MoveGraph,
    moves: u64,
    /// Hash space moved over the run (out of 2^64 per whole space).
    churn: u128,
    /// Imbalance after the last round of a window with requests.
    imbalance: f64,
    /// Last value size of every key seen.
    sizes: KeyBytes,
    /// The bytes of the keys seen, by pinned hash.
    hash_bytes: BTreeMap<u64, u64>,
    budget: MoveBudget,
    bytes_moved: u64,
    /// Tasks drained (they take no slice).
    retired: Vec<u32>,
    /// The windows, for converge_secs.
    settling: Settling,
}

impl Slicer {
    /// The layout of `spec` on `setup.nodes` tasks; a spec error when `grown_from` is above
    /// them.
    pub fn start(spec: &Spec, setup: &LayoutSetup) -> Result<Slicer, AnalysisError> {
        let tasks = setup.nodes;
        let params = SlicerParams::parse(spec)?;
        let on = params.start_tasks(spec, tasks)?;
        let slices = Slices::round_robin(params.slices_per_task, on, tasks);
        Ok(Slicer {
            label: spec.to_string(),
            last_loads: vec![0; slices.len()],
            budget: MoveBudget::new(params.move_rate, setup.time_unit_ns),
            params,
            slices,
            graph: MoveGraph::default(),
            moves: 0,
            churn: 0,
            imbalance: 1.0,
            sizes: KeyBytes::default(),
            hash_bytes: BTreeMap::new(),
            bytes_moved: 0,
            retired: Vec::new(),
            settling: Settling::new(setup.time_unit_ns),
        })
    }

    /// The slices as they stand.
    pub fn slices(&self) -> &Slices {
        &self.slices
    }

    /// The metrics' values, in [`METRICS`] order.
    pub fn metric_values(&self) -> Vec<MetricValue> {
        [
            self.moves as f64,
            share(self.churn),
            self.graph.redundant() as f64,
            self.imbalance,
        ]
        .iter()
        .map(|&v| Some(v))
        .chain([self.settling.after_start()])
        .zip(METRICS)
        .map(|(value, m)| MetricValue {
            name: m.name,
            unit: m.unit,
            value,
        })
        .collect()
    }

    /// `slicer_slices.csv`: every slice's first hash, width, task and last window's load.
    pub fn slices_table(&self) -> Table {
        let s = &self.slices;
        let rows = (0..s.len())
            .map(|i| {
                vec![
                    Cell::Count(i as u64),
                    Cell::Count(s.starts[i]),
                    Cell::Number(Some(share(s.width(i)))),
                    Cell::Count(u64::from(s.owner[i])),
                    Cell::Count(self.last_loads.get(i).copied().unwrap_or(0)),
                ]
            })
            .collect();
        Table::new("slicer_slices", &SLICES_COLUMNS, rows)
    }
}

impl ChangingLayout for Slicer {
    fn nodes(&self) -> u32 {
        self.slices.tasks
    }

    fn route(&mut self, e: &Event<'_>, out: &mut ShardSet) {
        match e.covered_range() {
            Some(_) => self.slices.scan_tasks(out),
            _ => {
                out.insert(self.slices.task_of_key(e.key));
            }
        }
    }

    fn end_window(&mut self, log: &WindowLog, load: &WindowLoad<'_>) -> Vec<Cell> {
        self.settling.record(log, load);
        for e in log.events() {
            if let Some((old, new)) = self.sizes.record(&e) {
                let b = self.hash_bytes.entry(hash64(e.key)).or_default();
                *b = b.saturating_sub(old) + new;
            }
        }
        let loads = HashLoads::of_keys(log.events().filter(|e| e.is_point()).map(|e| (e.key, 1)));
        let live = self.slices.tasks - self.retired.len() as u32;
        let opts = RoundOptions::new(&self.params, live);
        self.budget.earn(log);
        let (budget, hash_bytes) = (&mut self.budget, &self.hash_bytes);
        let mut waiting = false;
        let mut pace = |start: u64, width: u128| {
            let fits = budget.take(range_bytes(hash_bytes, start, width));
            waiting |= !fits;
            fits
        };
        let r = round_paced(&mut self.slices, &loads, &opts, &self.retired, &mut pace);
        if !waiting {
            self.budget.reset();
        }
        let mut bytes = 0;
        for m in &r.moves {
            self.graph.add(m.from, m.to, 1);
            bytes += range_bytes(&self.hash_bytes, m.start, m.width);
        }
        self.bytes_moved += bytes;
        self.moves += r.moves.len() as u64;
        self.churn += r.churn();
        self.last_loads = loads.per_slice(&self.slices);
        let now = imbalance(&task_loads(&self.slices, &self.last_loads));
        if loads.total() > 0 {
            self.imbalance = now;
        }
        vec![
            Cell::Count(self.slices.len() as u64),
            Cell::Count(r.splits),
            Cell::Count(r.merges),
            Cell::Count(r.moves.len() as u64),
            Cell::Number(Some(r.churn_share())),
            Cell::Number(Some(now)),
            Cell::Count(bytes),
        ]
    }

    fn timeline_columns(&self) -> Vec<&'static str> {
        TIMELINE_COLUMNS.to_vec()
    }

    fn final_state(&self) -> Result<Vec<u8>, AnalysisError> {
        FinalSlices::new(&self.label, self.params.clone(), self.slices.clone()).state()
    }

    fn output(&self) -> LayoutOutput {
        LayoutOutput {
            tables: vec![self.slices_table()],
            metrics: self.metric_values(),
        }
    }

    fn apply_action(&mut self, action: &Action) -> Result<(), String> {
        match *action {
            Action::Add(k) => self.slices.tasks = self.slices.tasks.saturating_add(k),
            Action::Drain(s) => self.retired.push(s),
            _ => return Err(no_rule(action)),
        }
        Ok(())
    }

    fn holds_nothing(&self, node: u32) -> bool {
        !self.slices.owner.contains(&node)
    }

    fn moves_made(&self) -> (u64, Option<u64>) {
        (self.moves, Some(self.bytes_moved))
    }
}

/// The bytes of the keys seen whose hash is in `[start, start + width)`.
fn range_bytes(hash_bytes: &BTreeMap<u64, u64>, start: u64, width: u128) -> u64 {
    let end = u128::from(start) + width;
    let keys = match u64::try_from(end) {
        Ok(end) => hash_bytes.range(start..end),
        Err(_) => hash_bytes.range(start..),
    };
    debug_assert!(end <= SPACE);
    keys.map(|(_, b)| b).sum()
}
