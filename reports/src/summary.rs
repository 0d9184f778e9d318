//! The tidy CSV files: `summary.csv` (one row per metric) and `shards.csv` (one row per shard).

use analysis::metrics::{WorkloadResult, METRICS};
use serde::Serialize;

use crate::ReportError;

/// The header of `summary.csv`.
pub const SUMMARY_HEADER: &str =
    "workload,scheme,shards,metric,value,unit,target_shards,estimate,sample_rate,ci_low,ci_high";
/// The header of `shards.csv`.
pub const SHARDS_HEADER: &str = "workload,scheme,shard,requests,distinct_keys,shards,request_share";

/// One row of `summary.csv`.
#[derive(Debug, Serialize)]
pub struct SummaryRow<'a> {
    /// Workload label.
    pub workload: &'a str,
    /// Scheme label.
    pub scheme: &'a str,
    /// Shard count N.
    pub shards: u32,
    /// Metric name (see the README's metric table).
    pub metric: &'a str,
    /// The value; empty when undefined (e.g. scan fan-out without scans).
    pub value: String,
    /// The metric's unit.
    pub unit: &'a str,
    /// Shard count M of the remap measurement.
    pub target_shards: u32,
    /// 1 when the value was estimated from a hash sample of the key space, else 0.
    pub estimate: u8,
    /// Share of the key space the value was measured on (1 for exact values).
    pub sample_rate: String,
    /// Lower end of the 95% confidence interval (key sample, block bootstrap or repeats;
    /// empty where none was estimated).
    pub ci_low: String,
    /// Upper end of the 95% confidence interval (empty where none was estimated).
    pub ci_high: String,
}

/// One row of `shards.csv`.
#[derive(Debug, Serialize)]
pub struct ShardRow<'a> {
    /// Workload label.
    pub workload: &'a str,
    /// Scheme label.
    pub scheme: &'a str,
    /// Shard number.
    pub shard: u32,
    /// Requests the shard received.
    pub requests: u64,
    /// Distinct point keys the shard owns.
    pub distinct_keys: u64,
    /// Shard count N.
    pub shards: u32,
    /// requests / all requests of the scheme.
    pub request_share: String,
}

/// Formats a value exactly and reproducibly: integers without a fraction, other numbers in
/// Rust's shortest round-trip form.
pub fn format_value(v: Option<f64>) -> String {
    match v {
        None => String::new(),
        Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{}", x as i64),
        Some(x) => format!("{x}"),
    }
}

/// Renders `summary.csv`.
pub fn summary_csv(results: &[WorkloadResult]) -> Result<Vec<u8>, ReportError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in results {
        for s in &r.schemes {
            for m in r.metric_values(s) {
                let estimate = m.value.and(r.estimate_of(s, m.name));
                let ci = m.value.and(r.interval_of(s, m.name));
                w.serialize(SummaryRow {
                    workload: &r.workload,
                    scheme: &s.scheme,
                    shards: s.shards,
                    metric: m.name,
                    value: format_value(m.value),
                    unit: m.unit,
                    target_shards: s.remap.target_shards,
                    estimate: u8::from(estimate.is_some()),
                    sample_rate: format_value(Some(estimate.map_or(1.0, |e| e.sample_rate))),
                    ci_low: format_value(ci.map(|c| c.0)),
                    ci_high: format_value(ci.map(|c| c.1)),
                })?;
            }
        }
    }
    finish(w, SUMMARY_HEADER, results.is_empty())
}

/// Renders `shards.csv`.
pub fn shards_csv(results: &[WorkloadResult]) -> Result<Vec<u8>, ReportError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in results {
        for s in &r.schemes {
            let shares = s.load.shard_shares();
            for (shard, &requests) in s.load.shard_requests.iter().enumerate() {
                let distinct = r.shard_distinct_keys(s, shard);
                let share = shares.as_ref().map(|v| v[shard]);
                w.serialize(ShardRow {
                    workload: &r.workload,
                    scheme: &s.scheme,
                    shard: shard as u32,
                    requests,
                    distinct_keys: distinct,
                    shards: s.shards,
                    request_share: format_value(share),
                })?;
            }
        }
    }
    finish(w, SHARDS_HEADER, results.is_empty())
}

/// Returns the bytes; an empty table still gets its header.
fn finish(w: csv::Writer<Vec<u8>>, header: &str, empty: bool) -> Result<Vec<u8>, ReportError> {
    let bytes = w.into_inner().map_err(|e| ReportError::Io {
        path: "<memory>".into(),
        source: e.into_error(),
    })?;
    Ok(if empty || bytes.is_empty() {
        format!("{header}\n").into_bytes()
    } else {
        bytes
    })
}

/// Names of every metric, for checks that the table and the CSV agree.
pub fn metric_names() -> impl Iterator<Item = &'static str> {
    METRICS.iter().map(|m| m.name)
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
        assert_eq!(
            String::from_utf8(summary_csv(&[]).unwrap()).unwrap(),
            format!("{SUMMARY_HEADER}\n")
        );
        assert_eq!(
            String::from_utf8(shards_csv(&[]).unwrap()).unwrap(),
            format!("{SHARDS_HEADER}\n")
        );
    }
}
