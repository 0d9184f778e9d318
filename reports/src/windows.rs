//! `windows.csv`: requests per shard in each window of `--window` events, one tidy row per
//! workload, scheme, window and shard. It is what the load heatmap and the hottest-shard-over-time
//! chart are drawn from.

use analysis::metrics::WorkloadResult;
use serde::Serialize;

use crate::{Exporter, ReportError, RunReport};

/// The header of `windows.csv`.
pub const WINDOWS_HEADER: &str =
    "workload,scheme,shards,window,shard,requests,window_hottest_share";

/// One row of `windows.csv`.
#[derive(Debug, Serialize)]
pub struct WindowRow<'a> {
    /// Workload label.
    pub workload: &'a str,
    /// Scheme label.
    pub scheme: &'a str,
    /// Shard count N.
    pub shards: u32,
    /// 0-based index of the window of `--window` measured events.
    pub window: u32,
    /// Shard number.
    pub shard: u32,
    /// Requests the shard received in the window.
    pub requests: u32,
    /// The window's hottest shard's share of its requests (the same on every row of the
    /// window; computed by `analysis`).
    pub window_hottest_share: String,
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
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in results {
        for s in &r.schemes {
            for (window, (counts, &hottest)) in s
                .load
                .window_requests
                .iter()
                .zip(&s.load.window_hottest_share)
                .enumerate()
            {
                for (shard, &requests) in counts.iter().enumerate() {
                    w.serialize(WindowRow {
                        workload: &r.workload,
                        scheme: &s.scheme,
                        shards: s.shards,
                        window: window as u32,
                        shard: shard as u32,
                        requests,
                        window_hottest_share: crate::summary::format_value(Some(hottest)),
                    })?;
                }
            }
        }
    }
    let bytes = w.into_inner().map_err(|e| ReportError::Io {
        path: "<memory>".into(),
        source: e.into_error(),
    })?;
    // The writer emits the header with the first row; an empty table still gets one.
    Ok(if bytes.is_empty() {
        format!("{WINDOWS_HEADER}\n").into_bytes()
    } else {
        bytes
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_run_still_has_the_header() {
        assert_eq!(
            String::from_utf8(windows_csv(&[]).unwrap()).unwrap(),
            format!("{WINDOWS_HEADER}\n")
        );
    }
}
