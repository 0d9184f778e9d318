//! Range dynamics: the `range-dynamic` scheme, a cluster of key ranges that split by size and
//! load, merge when cold and move between nodes while a trace replays in windows, and the
//! judgement of every split key it considers.
//!
//! The pieces, one per file:
//! - [`range_map`]: the map of ranges that always tiles the key space;
//! - [`params`]: the spec parameters and their defaults;
//! - [`requests`]: a window's requests and the side of a boundary each falls on;
//! - [`diagnose`]: the popular-key and clear-direction refusals;
//! - [`finder`]: the `median`, `sampled`, `reservoir` and `optimal` split-key finders;
//! - [`rebalance`]: ownership moves first, then capped data moves;
//! - [`output`]: timeline rows, split rows, finder summaries, final ranges;
//! - `simulation`, `window`, `cluster`, `remap`: the replay itself.
//!
//! Turning a run into the rows every scheme has: [`DynamicRun::scheme_result`] gives the
//! [`SchemeResult`] for `summary.csv` and `shards.csv` (node requests, windowed shares, load
//! CV, scan fan-out, a remap figure); [`DynamicRun::metric_values`] adds the dynamic counts.
//!
//! ```
//! use analysis::dynamic::simulate;
//! use workloads::{Spec, WorkloadSpec};
//! let mut source = WorkloadSpec::parse("zipf:keys=10000,s=0.99").unwrap().open(1, 40_000).unwrap();
//! let spec = Spec::parse("range-dynamic:max_load=800").unwrap();
//! let run = simulate(&spec, 4, source.as_mut(), 4_000).unwrap();
//! assert_eq!(run.timeline.len(), 10);
//! assert!(run.totals.load_splits > 0);
//! let row = run.scheme_result(5);
//! assert_eq!((row.scheme.as_str(), row.shards, row.load.requests), ("range-dynamic:max_load=800", 4, 40_000));
//! ```

mod cluster;
pub mod diagnose;
pub mod finder;
pub mod output;
pub mod params;
pub mod range_map;
pub mod rebalance;
mod remap;
pub mod requests;
mod simulation;
mod window;

pub use diagnose::{Diagnosis, Refusal};
pub use finder::{FinderInput, FinderKind};
pub use output::{DynamicTotals, FinalRange, FinderSummary, SplitRow, TimelineRow, WindowClock};
pub use params::{DynamicParams, LoadLimit, WindowTime};
pub use range_map::{RangeEntry, RangeMap, RangeMapError};
pub use simulation::{simulate, simulate_with, DynamicOptions};
pub use window::MAX_IDLE_WINDOWS;

use crate::metrics::{MetricDef, MetricValue, Remap, ScanFanout, SchemeResult, ShardLoad};
use crate::KeyCounts;

/// Everything a dynamic run produced.
#[derive(Clone, Debug)]
pub struct DynamicRun {
    /// The scheme's label (its spec string).
    pub label: String,
    /// The parameters used.
    pub params: DynamicParams,
    /// Nodes `N`.
    pub nodes: u32,
    /// How events were cut into windows.
    pub clock: WindowClock,
    /// Events replayed (warm-up included).
    pub events: u64,
    /// Events after the warm-up.
    pub measured_events: u64,
    /// One row per window.
    pub timeline: Vec<TimelineRow>,
    /// One row per load-split decision and finder.
    pub splits: Vec<SplitRow>,
    /// Totals of the actions.
    pub totals: DynamicTotals,
    /// Measured requests per node (a scan counts once per node it contacts).
    pub node_requests: Vec<u64>,
    /// Measured requests per node in each window holding measured events.
    pub window_node_requests: Vec<Vec<u32>>,
    /// Nodes contacted per measured scan (`None` without scans).
    pub fanout: Option<ScanFanout>,
    /// The ranges at the end, in key order.
    pub ranges: Vec<FinalRange>,
    /// Measured point requests per distinct key.
    pub keys: KeyCounts,
}

impl DynamicRun {
    /// One summary per finder.
    pub fn finder_summaries(&self) -> Vec<FinderSummary> {
        FinderSummary::from_rows(&self.splits)
    }

    /// Node loads and their spread, as for any scheme.
    pub fn load(&self) -> ShardLoad {
        ShardLoad::from_counts(
            self.node_requests.clone(),
            self.window_node_requests.clone(),
        )
    }

    /// Distinct measured point keys served by each node at the end.
    pub fn node_distinct_keys(&self) -> Vec<u64> {
        let mut counts = vec![0u64; self.nodes as usize];
        for (key, _) in self.keys.iter() {
            let owner = self
                .ranges
                .get(output::range_index(&self.ranges, key))
                .map_or(0, |r| r.owner as usize);
            if let Some(c) = counts.get_mut(owner) {
                *c += 1;
            }
        }
        counts
    }

    /// The remap from `N` to `target_nodes` nodes (see the `remap` module: new nodes are filled
    /// to the mean load with whole ranges; removed nodes hand their ranges to survivors).
    pub fn remap(&self, target_nodes: u32) -> Remap {
        remap::measure(&self.ranges, &self.keys, self.nodes, target_nodes)
    }

    /// The row `range-dynamic` contributes beside the static schemes (latency and static split
    /// balance are not measured).
    pub fn scheme_result(&self, target_nodes: u32) -> SchemeResult {
        SchemeResult {
            scheme: self.label.clone(),
            shards: self.nodes,
            load: self.load(),
            shard_distinct_keys: self.node_distinct_keys(),
            remap: self.remap(target_nodes),
            fanout: self.fanout,
            latency: None,
            split: None,
            extra_metrics: self.metric_values(),
            intervals: Vec::new(),
        }
    }

    /// The dynamic metrics, in [`DYNAMIC_METRICS`] order, for extra `summary.csv` rows.
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
            Some(self.ranges.len() as f64),
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
        DYNAMIC_METRICS
            .iter()
            .zip(values)
            .map(|(m, value)| MetricValue {
                name: m.name,
                unit: m.unit,
                value,
            })
            .collect()
    }
}

/// The metrics only `range-dynamic` has, for `summary.csv`.
pub static DYNAMIC_METRICS: &[MetricDef] = &[
    MetricDef { name: "dynamic_windows", unit: "windows", definition: "Windows simulated." },
    MetricDef { name: "dynamic_ranges", unit: "ranges", definition: "Ranges at the end of the run." },
    MetricDef { name: "dynamic_size_splits", unit: "splits", definition: "Splits of ranges holding more than max_bytes." },
    MetricDef { name: "dynamic_load_splits", unit: "splits", definition: "Splits at the configured finder's key." },
    MetricDef {
        name: "dynamic_load_split_refusals",
        unit: "decisions",
        definition: "Load-split decisions the configured finder refused (popular key, no split key, clear direction).",
    },
    MetricDef { name: "dynamic_merges", unit: "merges", definition: "Merges of small, cold neighbours." },
    MetricDef {
        name: "dynamic_oscillations",
        unit: "merges",
        definition: "Merges that removed a boundary a split had made less than cooldown windows before.",
    },
    MetricDef { name: "dynamic_ownership_moves", unit: "moves", definition: "Ownership (lease) moves: no bytes copied." },
    MetricDef { name: "dynamic_data_moves", unit: "moves", definition: "Data moves: a replica copied to another node." },
    MetricDef { name: "dynamic_bytes_moved", unit: "bytes", definition: "Bytes copied by data moves." },
    MetricDef {
        name: "dynamic_split_balance",
        unit: "ratio",
        definition: "Mean |L-R|/(L+R) in the next window of the load splits made.",
    },
    MetricDef {
        name: "dynamic_split_balance_optimal",
        unit: "ratio",
        definition: "The same at the exact optimal key of each decision window.",
    },
];
