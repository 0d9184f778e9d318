//! A dynamic run as the rows every scheme has: [`DynamicRun::scheme_result`] for
//! `summary.csv` and `shards.csv`, and the metrics only `range-dynamic` has. Apart from the
//! run itself, which the results hold, so that the results do not import a module that
//! imports them.

use super::{DynamicRun, SplitRow};
use crate::metrics::{MetricDef, MetricValue, SchemeResult};
use schemes::KeyCounts;

impl DynamicRun {
    /// The row `range-dynamic` contributes beside the static schemes (latency and static split
    /// balance are not measured), its key figures judged on the run's own key counts.
    pub fn scheme_result(&self, target_nodes: u32) -> SchemeResult {
        self.scheme_result_on(target_nodes, &self.keys)
    }

    /// The same row with its distinct-key figures (remap, growth, keys per node) judged on
    /// `keys`: the replay passes its own table of the same measured events, so that past
    /// `--distinct-limit` they are measured on the consistent key sample the workload's
    /// estimates (sample rate, intervals, per-shard key scaling) describe, as for every scheme.
    pub fn scheme_result_on(&self, target_nodes: u32, keys: &KeyCounts) -> SchemeResult {
        SchemeResult {
            scheme: self.label.clone(),
            shards: self.nodes,
            load: self.load(),
            shard_distinct_keys: self.node_distinct_keys(keys),
            remap: self.remap_of(target_nodes, keys),
            fanout: self.fanout,
            latency: None,
            split: None,
            router: Default::default(),
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
