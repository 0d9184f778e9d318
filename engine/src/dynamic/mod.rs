//! The range simulation of `range-dynamic` (whose layout, parameters and finders are in
//! `schemes::range_dynamic`): the events replayed in order, window by window (`simulation`),
//! the remap of the final ranges (`remap`) and the run as the rows every scheme has
//! (`summary`).
//!
//! Turning a run into the rows every scheme has: [`DynamicRun::scheme_result`] gives the
//! [`SchemeResult`] for `summary.csv` and `shards.csv` (node requests, windowed shares, load
//! CV, scan fan-out, a remap figure); [`DynamicRun::metric_values`] adds the dynamic counts.
//!
//! ```
//! use engine::dynamic::simulate;
//! use workloads::{Spec, WorkloadSpec};
//! let mut source = WorkloadSpec::parse("zipf:keys=10000,s=0.99").unwrap().open(1, 40_000).unwrap();
//! let spec = Spec::parse("range-dynamic:max_load=800").unwrap();
//! let run = simulate(&spec, 4, source.as_mut(), 4_000).unwrap();
//! assert_eq!(run.timeline.len(), 10);
//! assert!(run.totals.load_splits > 0);
//! let row = run.scheme_result(5);
//! assert_eq!((row.scheme.as_str(), row.shards, row.load.requests), ("range-dynamic:max_load=800", 4, 40_000));
//! ```

mod remap;
mod simulation;
mod summary;

pub use simulation::{simulate, simulate_with, DynamicOptions};
pub use summary::DYNAMIC_METRICS;

use crate::metrics::{Remap, ScanFanout, ShardLoad};
use schemes::range_dynamic::{
    DynamicParams, DynamicTotals, FinalRange, FinderSummary, SplitRow, TimelineRow, WindowClock,
};
use schemes::KeyCounts;

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
    /// Measured events in each window of `window_node_requests`.
    pub window_events: Vec<u64>,
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
            self.window_events.clone(),
        )
    }

    /// Distinct keys of `keys` (measured point keys) served by each node at the end.
    pub fn node_distinct_keys(&self, keys: &KeyCounts) -> Vec<u64> {
        let mut counts = vec![0u64; self.nodes as usize];
        for (key, _) in keys.iter() {
            let owner = self
                .ranges
                .get(schemes::range_dynamic::output::range_index(
                    &self.ranges,
                    key,
                ))
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
        self.remap_of(target_nodes, &self.keys)
    }

    /// [`DynamicRun::remap`] judged on `keys` instead of the run's own key counts.
    pub fn remap_of(&self, target_nodes: u32, keys: &KeyCounts) -> Remap {
        remap::measure(&self.ranges, keys, self.nodes, target_nodes)
    }
}
