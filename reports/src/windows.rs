//! `windows.csv`: requests per shard in each window of `--window` events, one tidy row per
//! workload, scheme, window and shard. It is what the load heatmap and the hottest-shard-over-time
//! chart are drawn from.

use analysis::metrics::WorkloadResult;
use serde::{Deserialize, Serialize};

use crate::csv_rows::{self, number};
use crate::{Exporter, ReportError, RunReport};

/// One row of `windows.csv`: one shard's requests in one window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WindowRow {
    /// Workload label.
    pub workload: String,
    /// Scheme label.
    pub scheme: String,
    /// Shard count N.
    pub shards: u32,
    /// 0-based index of the window of `--window` measured events.
    pub window: u32,
    /// Shard number.
    pub shard: u32,
    /// Requests the shard received in the window.
    pub requests: u64,
    /// The window's hottest shard's share of its requests (the same on every row of the
    /// window; computed by `analysis`).
    #[serde(default, with = "number")]
    pub window_hottest_share: Option<f64>,
}

/// `windows.csv`: one row per workload, scheme, window and shard.
pub struct WindowsCsv;

impl Exporter for WindowsCsv {
    fn file_name(&self) -> &'static str {
        "windows.csv"
    }
    fn render(&self, report: &RunReport) -> Result<Vec<u8>, ReportError> {
        windows_csv(&report.results)
    }
}

/// Renders `windows.csv`.
pub fn windows_csv(results: &[WorkloadResult]) -> Result<Vec<u8>, ReportError> {
    csv_rows::write(results.iter().flat_map(|r| {
        r.schemes.iter().flat_map(move |s| {
            s.load
                .window_requests
                .iter()
                .zip(&s.load.window_hottest_share)
                .enumerate()
                .flat_map(move |(window, (counts, &hottest))| {
                    counts
                        .iter()
                        .enumerate()
                        .map(move |(shard, &requests)| WindowRow {
                            workload: r.workload.clone(),
                            scheme: s.scheme.clone(),
                            shards: s.shards,
                            window: window as u32,
                            shard: shard as u32,
                            requests: u64::from(requests),
                            window_hottest_share: Some(hottest),
                        })
                })
        })
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_run_still_has_the_header() {
        assert_eq!(
            String::from_utf8(windows_csv(&[]).unwrap()).unwrap(),
            "workload,scheme,shards,window,shard,requests,window_hottest_share\n"
        );
    }
}
