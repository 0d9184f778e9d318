//! Replaying layouts that change while events replay ([`schemes::changing::ChangingLayout`]):
//! the stream cut into windows and fed to the layout in order, and every figure a fixed
//! scheme has counted on the way ([`drive`]), then the run as the rows every scheme has
//! ([`LayoutRun::scheme_result_on`]), its remap and growth measured through the final
//! layout's own resize rule, as every scheme's are.
//!
//! ```
//! use engine::changing::{drive, LayoutOptions};
//! use schemes::SchemeSpec;
//! use workloads::WorkloadSpec;
//! let mut source = WorkloadSpec::parse("zipf:keys=10000,s=0.99").unwrap().open(1, 40_000).unwrap();
//! let spec = &SchemeSpec::parse_list("range-dynamic:max_load=800").unwrap()[0];
//! let opts = LayoutOptions { nodes: 4, window: 4_000, warmup_events: 0, distinct_key_limit: 1 << 20 };
//! let run = drive(spec, &opts, source.as_mut()).unwrap();
//! assert_eq!(run.timeline.rows.len(), 10);
//! let row = run.scheme_result_on(5, &run.keys);
//! assert_eq!((row.scheme.as_str(), row.shards, row.load.requests), ("range-dynamic:max_load=800", 4, 40_000));
//! ```

mod drive;

pub use drive::{drive, drive_layout, LayoutOptions};

use crate::metrics::fanout::ScanFanout;
use crate::metrics::load::ShardLoad;
use crate::metrics::remap::{self, Remap};
use crate::metrics::SchemeResult;
use schemes::changing::{LayoutOutput, Table, WindowClock};
use schemes::{KeyCounts, Partitioner};

/// Everything the replay of one changing layout produced.
pub struct LayoutRun {
    /// The scheme's label (its spec string).
    pub label: String,
    /// Nodes `N` at the start.
    pub nodes: u32,
    /// How events were cut into windows.
    pub clock: WindowClock,
    /// Events replayed (warm-up included).
    pub events: u64,
    /// Events after the warm-up.
    pub measured_events: u64,
    /// `timeline.csv`: one row per window.
    pub timeline: Table,
    /// The layout's other tables and its own metrics.
    pub output: LayoutOutput,
    /// The layout at the end, as a fixed layout.
    pub final_layout: Box<dyn Partitioner>,
    /// Measured requests per node (a scan counts once per node it contacts).
    pub node_requests: Vec<u64>,
    /// Measured requests per node in each window holding measured events.
    pub window_node_requests: Vec<Vec<u32>>,
    /// Measured events in each window of `window_node_requests`.
    pub window_events: Vec<u64>,
    /// Nodes contacted per measured scan (`None` without scans).
    pub fanout: Option<ScanFanout>,
    /// Measured point requests per distinct key.
    pub keys: KeyCounts,
}

impl std::fmt::Debug for LayoutRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LayoutRun")
            .field("label", &self.label)
            .field("nodes", &self.nodes)
            .field("events", &self.events)
            .field("windows", &self.timeline.rows.len())
            .finish_non_exhaustive()
    }
}

impl LayoutRun {
    /// Node loads and their spread, as for any scheme.
    pub fn load(&self) -> ShardLoad {
        ShardLoad::from_counts(
            self.node_requests.clone(),
            self.window_node_requests.clone(),
            self.window_events.clone(),
        )
    }

    /// Distinct keys of `keys` served by each node at the end.
    pub fn node_distinct_keys(&self, keys: &KeyCounts) -> Vec<u64> {
        let mut counts = vec![0u64; self.node_requests.len()];
        for (key, _) in keys.iter() {
            if let Some(c) = counts.get_mut(self.final_layout.shard_of(key) as usize) {
                *c += 1;
            }
        }
        counts
    }

    /// The remap of the final layout to `target` nodes by its own rule, judged on `keys`.
    pub fn remap_of(&self, target: u32, keys: &KeyCounts) -> Remap {
        remap::of_resize(self.final_layout.as_ref(), target, keys)
            .unwrap_or_else(|e| Remap::refused(target, e.to_string()))
    }

    /// The row the layout contributes beside the fixed schemes (latency and static split
    /// balance are not measured), with its distinct-key figures (remap, growth, keys per
    /// node) judged on `keys`: the replay passes its own table of the same measured events,
    /// so that past `--distinct-limit` they are measured on the consistent key sample the
    /// workload's estimates (sample rate, intervals, per-shard key scaling) describe, as for
    /// every scheme.
    pub fn scheme_result_on(&self, target: u32, keys: &KeyCounts) -> SchemeResult {
        SchemeResult {
            scheme: self.label.clone(),
            shards: self.nodes,
            load: self.load(),
            shard_distinct_keys: self.node_distinct_keys(keys),
            remap: self.remap_of(target, keys),
            fanout: self.fanout,
            latency: None,
            split: None,
            router: Default::default(),
            extra_metrics: self.output.metrics.clone(),
            intervals: Vec::new(),
        }
    }
}
