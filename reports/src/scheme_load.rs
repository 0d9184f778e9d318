//! The load of one scheme on one workload at one shard count, as a run's model holds it
//! ([`crate::data::RunData::loads`]): `shards.csv` and `windows.csv` gathered by scheme.

/// Requests per shard of one scheme on one workload at one shard count, whole-trace and per
/// window: `shards.csv` and `windows.csv` gathered by scheme (the same numbers, indexed).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SchemeLoad {
    /// Workload label.
    pub workload: String,
    /// Scheme label.
    pub scheme: String,
    /// Shard count N.
    pub shards: u32,
    /// Requests per shard over the whole trace.
    pub shard_requests: Vec<u64>,
    /// Distinct point keys per shard.
    pub shard_distinct_keys: Vec<u64>,
    /// Requests per shard in each window, in window order (empty without `windows.csv` rows).
    pub window_requests: Vec<Vec<u64>>,
    /// Each shard's share of all requests (`shards.csv`'s `request_share`).
    pub shard_share: Vec<f64>,
    /// The hottest shard's share of each window's requests, in window order
    /// (`windows.csv`'s `window_hottest_share`; empty when the file lacks the column).
    pub window_hottest_share: Vec<f64>,
}

impl SchemeLoad {
    /// For each window of `window_hottest_share`, whether it holds at least half the requests
    /// of the fullest window. A short window (the last one of a trace, cut short) has a
    /// hottest share biased towards 1 (all of it with one request), which is no hot spot.
    /// Every window counts as full when the per-shard window rows are missing.
    pub fn full_windows(&self) -> Vec<bool> {
        let shares = self.window_hottest_share.len();
        if self.window_requests.len() != shares {
            return vec![true; shares];
        }
        let totals: Vec<u64> = self
            .window_requests
            .iter()
            .map(|shards| shards.iter().sum())
            .collect();
        let fullest = totals.iter().copied().max().unwrap_or(0);
        totals
            .iter()
            .map(|&total| is_full_window(total, fullest))
            .collect()
    }
}

/// True when a window of `requests` holds at least half the requests of the fullest window
/// (`fullest`): the rule of [`SchemeLoad::full_windows`], shared with `range-dynamic`'s
/// timeline sentences.
pub fn is_full_window(requests: u64, fullest: u64) -> bool {
    2 * requests >= fullest
}
