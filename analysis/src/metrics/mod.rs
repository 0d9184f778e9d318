//! The metrics shardlab reports: one plain result struct per workload and scheme, and the
//! table of metric names, units and definitions that every output reads.

pub mod capacity;
pub mod confidence;
pub mod estimate;
pub mod failure;
pub mod fanout;
pub mod growth;
mod key_sample;
pub mod latency;
pub mod load;
pub mod remap;
pub mod router;
pub mod split;
mod value;

use serde::Serialize;
use workloads::KeyType;

pub use fanout::ScanFanout;
pub use latency::{Latency, LatencyConfig};
pub use load::ShardLoad;
pub use remap::Remap;
pub use router::RouterCost;
pub use split::SplitBalance;
pub use value::{MetricDef, MetricValue};

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
    /// Metrics only this scheme has (e.g. the split and merge counts of `range-dynamic`),
    /// written after the common ones.
    #[serde(skip)]
    pub extra_metrics: Vec<MetricValue>,
    /// 95% intervals by metric name (see [`confidence`]); metrics without one are absent.
    #[serde(skip)]
    pub intervals: Vec<(&'static str, confidence::Interval)>,
}

impl SchemeResult {
    /// The 95% interval of a metric, when one was estimated.
    pub fn interval(&self, name: &str) -> Option<confidence::Interval> {
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
    /// The full runs of the `range-dynamic` schemes (timeline, split decisions), in the order
    /// of their rows in `schemes`.
    #[serde(skip)]
    pub dynamic: Vec<std::sync::Arc<crate::dynamic::DynamicRun>>,
}

macro_rules! metric_table {
    ($($name:literal, $unit:literal, $def:literal;)*) => {
        /// Every metric in `summary.csv`, in row order.
        pub static METRICS: &[MetricDef] = &[$(MetricDef { name: $name, unit: $unit, definition: $def }),*];
    };
}

metric_table! {
    "events_measured", "events", "Events the metrics cover (after the warm-up); the same events for every scheme.";
    "warmup_events", "events", "Leading events used only to learn range boundaries (0 when no scheme learns).";
    "requests", "requests", "Shard requests: one per point operation, one per shard contacted by a scan.";
    "distinct_keys", "keys", "Distinct keys of measured point operations.";
    "hottest_key_share", "share", "Point requests of the most requested key / all point requests. No scheme can spread one key.";
    "hottest_shard_share", "share", "Max shard requests / all requests, over the whole trace.";
    "hottest_shard_ratio", "ratio", "hottest_shard_share x N; 1.0 is a perfect spread. With --weights: the largest share / weight share over the shards.";
    "load_cv", "ratio", "Coefficient of variation (population) of shard requests (with --weights: of requests / weight).";
    "hottest_shard_share_windowed", "share", "Mean over consecutive windows of --window events of the hottest shard's share within the window.";
    "requests_per_event", "requests/event", "requests / events_measured: 1 without scans, more as scans fan out.";
    "usable_capacity", "share", "Share of the cluster's request capacity usable before the hottest shard saturates, a scan costing one request per shard contacted: 1 / (N x hottest_shard_share_windowed x requests_per_event), at most 1.";
    "remap_fraction", "share", "Distinct keys whose owner changes from N to M shards / distinct keys.";
    "remap_fraction_traffic", "share", "Point requests whose key changes owner from N to M / point requests.";
    "remap_ideal", "share", "The least any scheme must move: |M-N| / max(M,N).";
    "remap_to_new_shards", "share", "Of the keys that move, the share that moves to a shard added by the growth.";
    "grow_added_share", "share", "Measured point requests, replayed on the layout grown to M shards, that land on the added shards / all point requests (empty for a shrink).";
    "grow_added_fair", "share", "The added shards' fair share (M-N)/M (empty for a shrink); below half of it the new shards stay nearly idle.";
    "hottest_shard_share_grown", "share", "Max shard point requests / all point requests on the layout resized to M shards.";
    "scans", "scans", "Measured scans.";
    "scan_fanout_mean", "shards", "Mean shards contacted per scan.";
    "scan_fanout_p99", "shards", "99th percentile of shards contacted per scan.";
    "scan_fanout_max", "shards", "Most shards contacted by one scan.";
    "lookup_ns_p50", "ns", "Median ns per shard_of lookup (per-batch means, timer overhead subtracted).";
    "lookup_ns_p99", "ns", "99th percentile ns per lookup (of per-batch means).";
    "lookup_ns_p999", "ns", "99.9th percentile ns per lookup (of per-batch means).";
    "lookup_ns_mean", "ns", "Mean ns per lookup.";
    "lookups_per_sec", "lookups/s", "Single-threaded lookups per second (1e9 / mean).";
    "router_bytes", "bytes", "Memory of the lookup structure (table, points, arrays); empty when the scheme does not say.";
    "build_ns", "ns", "Time to build the lookup structure from its spec (one build; learning the arrival order not included).";
    "split_balance", "ratio", "Range only: |L-R|/(L+R) of the hottest range's point load split at its median distinct key.";
    "split_balance_optimal", "ratio", "Range only: the same at the exact load-halving key.";
}

impl WorkloadResult {
    /// The metric values of one scheme, in [`METRICS`] order; metrics that do not apply to the
    /// scheme (split balance for hashed schemes) are left out.
    pub fn metric_values(&self, s: &SchemeResult) -> Vec<MetricValue> {
        METRICS
            .iter()
            .filter_map(|m| {
                self.value_of(s, m.name).map(|value| MetricValue {
                    name: m.name,
                    unit: m.unit,
                    value,
                })
            })
            .chain(s.extra_metrics.iter().copied())
            .collect()
    }

    /// One metric of one scheme: outer `None` = not applicable, inner `None` = undefined.
    fn value_of(&self, s: &SchemeResult, name: &str) -> Option<Option<f64>> {
        let lat = |f: fn(&Latency) -> f64| Some(s.latency.as_ref().map(f));
        let fan = |f: fn(&ScanFanout) -> f64| Some(s.fanout.as_ref().map(f));
        let split = |f: fn(&SplitBalance) -> f64| s.split.as_ref().map(|x| Some(f(x)));
        let v = |x: f64| Some(Some(x));
        // A target the scheme cannot reach: its remap figures are not applicable (empty).
        let moved = |x: f64| Some(Some(x).filter(|_| s.remap.refusal.is_none()));
        match name {
            "events_measured" => v(self.events_measured as f64),
            "warmup_events" => v(self.warmup_events as f64),
            "requests" => v(s.load.requests as f64),
            "distinct_keys" => v(self.distinct_keys as f64),
            "hottest_key_share" => v(match &self.hottest_key {
                Some((_, n)) if self.point_requests > 0 => *n as f64 / self.point_requests as f64,
                _ => 0.0,
            }),
            "hottest_shard_share" => v(s.load.hottest_shard_share),
            "hottest_shard_ratio" => v(s.load.hottest_shard_ratio),
            "load_cv" => v(s.load.load_cv),
            "hottest_shard_share_windowed" => v(s.load.hottest_shard_share_windowed),
            "requests_per_event" => v(capacity::requests_per_event(
                s.load.requests,
                self.events_measured,
            )),
            "usable_capacity" => v(capacity::usable_of(&s.load, self.events_measured)),
            "remap_fraction" => moved(s.remap.remap_fraction),
            "remap_fraction_traffic" => moved(s.remap.remap_fraction_traffic),
            "remap_ideal" => moved(s.remap.remap_ideal),
            "remap_to_new_shards" => moved(s.remap.moved_to_new_shards),
            "grow_added_share" => Some(s.remap.growth.added_share),
            "grow_added_fair" => Some(s.remap.growth.added_fair),
            "hottest_shard_share_grown" => Some(s.remap.growth.hottest_share_after),
            "scans" => v(self.scans as f64),
            "scan_fanout_mean" => fan(|f| f.mean),
            "scan_fanout_p99" => fan(|f| f.p99 as f64),
            "scan_fanout_max" => fan(|f| f.max as f64),
            "lookup_ns_p50" => lat(|l| l.p50_ns),
            "lookup_ns_p99" => lat(|l| l.p99_ns),
            "lookup_ns_p999" => lat(|l| l.p999_ns),
            "lookup_ns_mean" => lat(|l| l.mean_ns),
            "lookups_per_sec" => lat(|l| l.lookups_per_sec),
            "router_bytes" => Some(s.router.bytes.map(|b| b as f64)),
            "build_ns" => Some(s.router.build_ns),
            "split_balance" => split(|x| x.median_balance),
            "split_balance_optimal" => split(|x| x.optimal_balance),
            _ => None,
        }
    }
}

impl WorkloadResult {
    /// A metric of one scheme with its 95% interval: the key-sample interval of an estimate
    /// and the bootstrap or repeat interval, joined when both exist; `None` when the metric
    /// is undefined or not applicable.
    pub fn figure(
        &self,
        s: &SchemeResult,
        name: &str,
    ) -> Option<(f64, Option<confidence::Interval>)> {
        let value = self.value_of(s, name).flatten()?;
        Some((value, self.interval_of(s, name)))
    }

    /// The 95% interval of a metric of one scheme (see [`WorkloadResult::figure`]).
    pub fn interval_of(&self, s: &SchemeResult, name: &str) -> Option<confidence::Interval> {
        let sample = self.estimate_of(s, name).and_then(|e| e.ci);
        match (sample, s.interval(name)) {
            (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.max(b.1))),
            (a, b) => a.or(b),
        }
    }
}

/// True for metrics that measure time and so differ between identical runs.
pub fn is_timing(name: &str) -> bool {
    name.starts_with("lookup_ns_") || name == "lookups_per_sec" || name == "build_ns"
}
