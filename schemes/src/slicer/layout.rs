//! `slicer` as a [`ChangingLayout`]: the hash space in slices on tasks, one round of the
//! balancer ([`super::round`]) at every window end on the window's requests.
//!
//! A key's load is its point events in the window, at its pinned hash (`xxh3_64(key)`);
//! scans contact every task holding a slice and add no slice load. Moves are instant: the
//! next window routes with the slices as the round left them.

use workloads::{Event, Spec};

use super::final_layout::FinalSlices;
use super::metrics::METRICS;
use super::params::SlicerParams;
use super::round::{imbalance, round, task_loads, RoundOptions};
use super::slices::{share, HashLoads, Slices};
use crate::changing::{
    Cell, ChangingLayout, LayoutOutput, Table, WindowLoad, WindowLog, GENERIC_COLUMNS,
};
use crate::scenario::MoveGraph;
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
}

impl Slicer {
    /// The layout of `spec` on `tasks` tasks; a spec error when `grown_from` is above them.
    pub fn start(spec: &Spec, tasks: u32) -> Result<Slicer, AnalysisError> {
        let params = SlicerParams::parse(spec)?;
        let on = params.start_tasks(spec, tasks)?;
        let slices = Slices::round_robin(params.slices_per_task, on, tasks);
        Ok(Slicer {
            label: spec.to_string(),
            last_loads: vec![0; slices.len()],
            params,
            slices,
            graph: MoveGraph::default(),
            moves: 0,
            churn: 0,
            imbalance: 1.0,
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
        .zip(METRICS)
        .map(|(&v, m)| MetricValue {
            name: m.name,
            unit: m.unit,
            value: Some(v),
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
        match e.end {
            Some(end) if !e.is_point() && end > e.key => self.slices.scan_tasks(out),
            _ => {
                out.insert(self.slices.task_of_key(e.key));
            }
        }
    }

    fn end_window(&mut self, log: &WindowLog, _load: &WindowLoad<'_>) -> Vec<Cell> {
        let loads = HashLoads::of_keys(log.events().filter(|e| e.is_point()).map(|e| (e.key, 1)));
        let opts = RoundOptions::new(&self.params, self.slices.tasks);
        let r = round(&mut self.slices, &loads, &opts);
        for m in &r.moves {
            self.graph.add(m.from, m.to, 1);
        }
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
}
