//! The tidy CSV files: `summary.csv` (one row per metric) and `shards.csv` (one row per shard).

use engine::metrics::{MetricId, WorkloadResult};
use serde::{Deserialize, Serialize};

pub use crate::csv_rows::number::format_value;
use crate::csv_rows::{self, number};

/// One row of `summary.csv`: one metric of one scheme on one workload at N shards (and the
/// growth target M its remap and growth figures are of). Written by [`summary_csv`], read
/// back by [`crate::data::RunData`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SummaryRow {
    /// Workload label.
    pub workload: String,
    /// Scheme label.
    pub scheme: String,
    /// Shard count N.
    pub shards: u32,
    /// Metric name (see the metric tables of docs/metrics.md).
    pub metric: String,
    /// The value; empty when undefined (e.g. scan fan-out without scans).
    #[serde(with = "number")]
    pub value: Option<f64>,
    /// The metric's unit.
    pub unit: String,
    /// Shard count M of the remap measurement.
    pub target_shards: u32,
    /// 1 when the value was estimated from a hash sample of the key space, else 0.
    #[serde(default)]
    pub estimate: u8,
    /// Share of the key space the value was measured on (1 for exact values).
    #[serde(default, with = "number")]
    pub sample_rate: Option<f64>,
    /// Lower end of the 95% confidence interval (key sample, block bootstrap or repeats;
    /// empty where none was estimated).
    #[serde(default, with = "number")]
    pub ci_low: Option<f64>,
    /// Upper end of the 95% confidence interval (empty where none was estimated).
    #[serde(default, with = "number")]
    pub ci_high: Option<f64>,
}

impl SummaryRow {
    /// The 95% interval, when the row gives both ends.
    pub fn ci(&self) -> Option<(f64, f64)> {
        self.ci_low.zip(self.ci_high)
    }
}

/// One row of `shards.csv`: the load of one shard of one scheme on one workload.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ShardRow {
    /// Workload label.
    pub workload: String,
    /// Scheme label.
    pub scheme: String,
    /// Shard number.
    pub shard: u32,
    /// Requests the shard received.
    pub requests: u64,
    /// Distinct point keys the shard owns.
    pub distinct_keys: u64,
    /// Shard count N.
    pub shards: u32,
    /// requests / all requests of the scheme (computed by `analysis`).
    #[serde(default, with = "number")]
    pub request_share: Option<f64>,
}

/// The rows of `summary.csv`: every metric of every scheme of every result, in order.
pub fn summary_rows(results: &[WorkloadResult]) -> Vec<SummaryRow> {
    results
        .iter()
        .flat_map(|r| {
            r.schemes.iter().flat_map(move |s| {
                r.metric_values(s).into_iter().map(move |m| {
                    let estimate = m.value.and(r.estimate_of(s, MetricId(m.name)));
                    let ci = m.value.and(r.interval_of(s, MetricId(m.name)));
                    SummaryRow {
                        workload: csv_rows::label(&r.workload),
                        scheme: csv_rows::label(&s.scheme),
                        shards: s.shards,
                        metric: m.name.to_string(),
                        value: m.value,
                        unit: m.unit.to_string(),
                        target_shards: s.remap.target_shards,
                        estimate: u8::from(estimate.is_some()),
                        sample_rate: Some(estimate.map_or(1.0, |e| e.sample_rate)),
                        ci_low: ci.map(|c| c.0),
                        ci_high: ci.map(|c| c.1),
                    }
                })
            })
        })
        .collect()
}

/// The rows of `shards.csv`: one per shard of each scheme's load on each workload and shard
/// count (once, however many growth targets).
pub fn shard_rows(results: &[WorkloadResult]) -> Vec<ShardRow> {
    csv_rows::distinct_loads(results)
        .flat_map(|(r, s)| {
            let shares = s.load.shard_shares();
            s.load
                .shard_requests
                .iter()
                .enumerate()
                .map(move |(shard, &requests)| ShardRow {
                    workload: csv_rows::label(&r.workload),
                    scheme: csv_rows::label(&s.scheme),
                    shard: shard as u32,
                    requests,
                    distinct_keys: r.shard_distinct_keys(s, shard),
                    shards: s.shards,
                    request_share: shares.as_ref().map(|v| v[shard]),
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_exactly() {
        assert_eq!(format_value(Some(3.0)), "3");
        assert_eq!(format_value(Some(0.25)), "0.25");
        assert_eq!(format_value(None), "");
        assert_eq!(format_value(Some(1.0 / 3.0)), "0.3333333333333333");
    }

    #[test]
    fn empty_results_still_have_headers() {
        let (summary, shards) = (summary_rows(&[]), shard_rows(&[]));
        assert_eq!(
            String::from_utf8(csv_rows::write_all(&summary).unwrap()).unwrap(),
            "workload,scheme,shards,metric,value,unit,target_shards,estimate,sample_rate,ci_low,ci_high\n"
        );
        assert_eq!(
            String::from_utf8(csv_rows::write_all(&shards).unwrap()).unwrap(),
            "workload,scheme,shard,requests,distinct_keys,shards,request_share\n"
        );
    }
}
