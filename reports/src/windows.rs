//! `windows.csv`: requests per shard in each window of `--window` events, one tidy row per
//! workload, scheme, window and shard. It is what the load heatmap and the hottest-shard-over-time
//! chart are drawn from.

use engine::metrics::WorkloadResult;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::csv_rows::{self, number};
use crate::scheme_load::SchemeLoad;
use crate::ReportError;

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

/// One row of `windows.csv` borrowing its labels from the results.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WindowCell<'a> {
    /// Workload label.
    pub workload: &'a str,
    /// Scheme label.
    pub scheme: &'a str,
    /// Shard count N.
    pub shards: u32,
    /// Window index.
    pub window: u32,
    /// Shard number.
    pub shard: u32,
    /// Requests the shard received in the window.
    pub requests: u64,
    /// The window's hottest shard's share of its requests.
    pub window_hottest_share: Option<f64>,
}

impl WindowRow {
    /// The row as a [`WindowCell`].
    pub fn cell(&self) -> WindowCell<'_> {
        WindowCell {
            workload: &self.workload,
            scheme: &self.scheme,
            shards: self.shards,
            window: self.window,
            shard: self.shard,
            requests: self.requests,
            window_hottest_share: self.window_hottest_share,
        }
    }
}

/// The rows of `windows.csv` of `results`, in file order, without copying their labels
/// (trimmed, as a row holds them: [`csv_rows::label`]): once per workload and shard count,
/// however many growth targets ([`csv_rows::distinct_loads`]).
pub fn window_cells(results: &[WorkloadResult]) -> impl Iterator<Item = WindowCell<'_>> + '_ {
    csv_rows::distinct_loads(results).flat_map(|(r, s)| {
        let (workload, scheme) = (r.workload.trim(), s.scheme.trim());
        s.load
            .window_requests
            .iter()
            .zip(&s.load.window_hottest_share)
            .enumerate()
            .flat_map(move |(window, (counts, &hottest))| {
                counts
                    .iter()
                    .enumerate()
                    .map(move |(shard, &requests)| WindowCell {
                        workload,
                        scheme,
                        shards: s.shards,
                        window: window as u32,
                        shard: shard as u32,
                        requests: u64::from(requests),
                        window_hottest_share: Some(hottest),
                    })
            })
    })
}

/// Renders `windows.csv` of `loads`: the bytes `csv_rows::write` gives for their rows,
/// written without a row struct per line. A long trace has millions of rows, which the csv
/// crate's serializer formats at about 300 ns each; here the labels are rendered (and quoted)
/// once per scheme by the csv writer and the share once per window, and only the three
/// integers of a row are formatted per line.
pub fn windows_csv(loads: &[SchemeLoad]) -> Result<Vec<u8>, ReportError> {
    let header = csv_rows::write(Vec::<WindowRow>::new())?;
    // Each scheme's rows are written on their own, in parallel, then put one after another.
    let blocks = loads
        .par_iter()
        .map(scheme_rows)
        .collect::<Result<Vec<Vec<u8>>, ReportError>>()?;
    let mut out = Vec::with_capacity(header.len() + blocks.iter().map(Vec::len).sum::<usize>());
    out.extend_from_slice(&header);
    blocks.iter().for_each(|block| out.extend_from_slice(block));
    Ok(out)
}

/// The rows of one scheme's windows, without the header.
fn scheme_rows(w: &SchemeLoad) -> Result<Vec<u8>, ReportError> {
    let mut integers = itoa::Buffer::new();
    let mut labels = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    labels.write_record([w.workload.as_str(), &w.scheme, integers.format(w.shards)])?;
    let mut prefix = labels.into_inner().map_err(|e| ReportError::Io {
        path: "<memory>".into(),
        source: e.into_error(),
    })?;
    // The record's terminator becomes the separator before the window column.
    prefix.pop();
    prefix.push(b',');
    // About 24 bytes after the labels: room for every row at once, without regrowing.
    let windows = w.window_requests.iter().zip(&w.window_hottest_share);
    let rows = windows.len() * w.shards as usize;
    let mut out = Vec::with_capacity(rows * (prefix.len() + 24));
    for (window, (counts, &hottest)) in windows.enumerate() {
        let share = number::format_value(Some(hottest));
        for (shard, &requests) in counts.iter().enumerate() {
            out.extend_from_slice(&prefix);
            for n in [window as u64, shard as u64, requests] {
                out.extend_from_slice(integers.format(n).as_bytes());
                out.push(b',');
            }
            out.extend_from_slice(share.as_bytes());
            out.push(b'\n');
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows of `windows.csv` as the row struct.
    fn window_rows(results: &[WorkloadResult]) -> impl Iterator<Item = WindowRow> + '_ {
        window_cells(results).map(|c| WindowRow {
            workload: c.workload.to_string(),
            scheme: c.scheme.to_string(),
            shards: c.shards,
            window: c.window,
            shard: c.shard,
            requests: c.requests,
            window_hottest_share: c.window_hottest_share,
        })
    }

    /// `windows.csv` of the model of `results`.
    fn written(results: &[WorkloadResult]) -> Vec<u8> {
        let run = crate::data::RunData::of_run(results, crate::Manifest::default()).unwrap();
        windows_csv(&run.loads).unwrap()
    }

    /// Results of one workload labelled `workload`, with `schemes` of 3 shards and 2 windows.
    fn results(workload: &str, schemes: &[&str]) -> Vec<WorkloadResult> {
        use engine::metrics::{Remap, RouterCost, SchemeResult, ShardLoad};
        let scheme = |(i, label): (usize, &&str)| SchemeResult {
            scheme: label.to_string(),
            shards: 3,
            load: ShardLoad::from_counts(
                vec![7 + i as u64, 2, 0],
                vec![vec![5 + i as u32, 1, 0], vec![2, 1, 0]],
                vec![6, 6],
            ),
            shard_distinct_keys: vec![1, 1, 0],
            remap: Remap::default(),
            fanout: None,
            latency: None,
            split: None,
            router: RouterCost::default(),
            extra_metrics: Vec::new(),
            intervals: Vec::new(),
        };
        vec![WorkloadResult {
            workload: workload.to_string(),
            description: String::new(),
            key_type: Default::default(),
            events_measured: 12,
            warmup_events: 0,
            distinct_keys: 2,
            point_requests: 12,
            scans: 0,
            hottest_key: None,
            key_sample: None,
            schemes: schemes.iter().enumerate().map(scheme).collect(),
            changing: Vec::new(),
        }]
    }

    #[test]
    fn the_file_is_what_the_row_serializer_writes_whatever_the_labels() {
        for (workload, schemes) in [
            ("zipf:s=1.1,keys=100", &["hash", "ring:vnodes=16"][..]),
            ("trace \"a,b\".csv", &["range", "salted,\"x\"", ""][..]),
            (" spaced \n label\r", &["#hash", " ring "][..]),
            ("", &["hash"][..]),
        ] {
            let results = results(workload, schemes);
            let fast = written(&results);
            let rows = csv_rows::write(window_rows(&results)).unwrap();
            assert_eq!(
                String::from_utf8(fast).unwrap(),
                String::from_utf8(rows).unwrap(),
                "{workload:?} {schemes:?}"
            );
        }
        let text = String::from_utf8(written(&results("w", &["hash"]))).unwrap();
        assert_eq!(
            text.lines().nth(1),
            Some("w,hash,3,0,0,5,0.8333333333333334")
        );
        assert_eq!(text.lines().count(), 1 + 2 * 3);
    }

    #[test]
    fn an_empty_run_still_has_the_header() {
        assert_eq!(
            String::from_utf8(written(&[])).unwrap(),
            "workload,scheme,shards,window,shard,requests,window_hottest_share\n"
        );
    }
}
