//! The metrics shardlab reports: one plain result struct per workload and scheme, the
//! registry of metrics ([`REGISTRY`], see [`metric`]) and the table of metric names, units
//! and definitions that every output reads ([`METRICS`]).

pub mod capacity;
pub mod confidence;
pub mod estimate;
pub mod failure;
pub mod fanout;
pub mod growth;
mod key_sample;
pub mod latency;
pub mod load;
pub mod metric;
pub mod placement;
pub mod registry;
pub mod remap;
pub mod router;
pub mod split;
mod table;

use serde::Serialize;
use workloads::KeyType;

pub use fanout::ScanFanout;
pub use latency::{Latency, LatencyConfig};
pub use load::ShardLoad;
pub use metric::Metric;
pub use registry::REGISTRY;
pub use remap::Remap;
pub use router::RouterCost;
pub use schemes::value::{MetricDef, MetricId, MetricValue};
pub use split::SplitBalance;
pub use table::METRICS;

/// Everything measured for one scheme on one workload.
#[derive(Clone, Debug, Serialize)]
pub struct SchemeResult {
    /// The scheme's label (its spec string).
    pub scheme: String,
    /// Shard count `N`.
    pub shards: u32,
    /// Requests per shard and their spread.
    pub load: ShardLoad,
    /// Distinct point-operation keys owned by each shard.
    pub shard_distinct_keys: Vec<u64>,
    /// What changes owner from `N` to the target shard count.
    pub remap: Remap,
    /// Shards contacted per scan (`None` without scans).
    pub fanout: Option<ScanFanout>,
    /// Lookup latency (`None` when not measured).
    pub latency: Option<Latency>,
    /// Split quality of the hottest range (static range scheme only).
    pub split: Option<SplitBalance>,
    /// Memory and build time of the lookup structure.
    pub router: RouterCost,
    /// Values that are not fields of this struct: those of registered metrics without a
    /// field of their own (read by [`Metric::value`]) and the rows only this scheme has (e.g.
    /// the split and merge counts of `range-dynamic`), written after the common ones.
    #[serde(skip)]
    pub extra_metrics: Vec<MetricValue>,
    /// 95% intervals by metric name (see [`confidence`]); metrics without one are absent.
    #[serde(skip)]
    pub intervals: Vec<(&'static str, schemes::value::Interval)>,
}

impl SchemeResult {
    /// The value of a row of [`SchemeResult::extra_metrics`]: outer `None` when there is no
    /// such row, inner `None` when its value is undefined.
    pub fn extra_value(&self, id: MetricId) -> Option<Option<f64>> {
        self.extra_metrics
            .iter()
            .find(|v| v.name == id.name())
            .map(|v| v.value)
    }

    /// The 95% interval of a metric, when one was estimated.
    pub fn interval(&self, name: &str) -> Option<schemes::value::Interval> {
        self.intervals
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, ci)| *ci)
    }
}

/// Everything measured for one workload.
#[derive(Clone, Debug, Serialize)]
pub struct WorkloadResult {
    /// The workload's label (spec string or trace path).
    pub workload: String,
    /// A sentence describing the workload.
    pub description: String,
    /// How keys are displayed.
    pub key_type: KeyType,
    /// Events counted in the metrics (after the warm-up).
    pub events_measured: u64,
    /// Events used only to learn range boundaries.
    pub warmup_events: u64,
    /// Distinct keys of measured point operations.
    pub distinct_keys: u64,
    /// Measured point operations.
    pub point_requests: u64,
    /// Measured scans.
    pub scans: u64,
    /// The most requested key and its point requests.
    pub hottest_key: Option<(Vec<u8>, u64)>,
    /// How the key space was sampled when it had more distinct keys than the limit; `None`
    /// when every key was counted (see [`estimate`]).
    pub key_sample: Option<estimate::KeySample>,
    /// One result per scheme, in the order the schemes were given.
    pub schemes: Vec<SchemeResult>,
    /// The full runs of the changing layouts (timeline, their tables), in the order of their
    /// rows in `schemes`.
    #[serde(skip)]
    pub changing: Vec<std::sync::Arc<crate::changing::LayoutRun>>,
}

/// True for metrics that measure time and so differ between identical runs.
pub fn is_timing(name: &str) -> bool {
    name.starts_with("lookup_ns_") || name == "lookups_per_sec" || name == "build_ns"
}
