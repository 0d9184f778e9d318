//! Usable capacity: the share of the cluster a scheme lets the workload use before its
//! hottest shard saturates.
//!
//! With N shards of equal capacity C requests/s, a workload issuing E events/s that cost `r`
//! shard requests each (one per point operation, one per shard a scan contacts) sends
//! `E·r·h` requests/s to the hottest shard, `h` being that shard's share of requests. It
//! saturates at `E = C / (r·h)`, while a perfect spread of one request per event would reach
//! `E = N·C`. So
//!
//! ```text
//! usable_capacity = 1 / (N · h · r) = events / (N · h · requests)
//! ```
//!
//! with `h` = `hottest_shard_share_windowed` (the hottest shard of each window, since a hot
//! spot that moves saturates one shard at a time) and `r` = `requests_per_event`.

use super::ShardLoad;

/// Shard requests per measured event: 1 without scans, more as scans fan out (0 without
/// events).
pub fn requests_per_event(requests: u64, events: u64) -> f64 {
    if events == 0 {
        0.0
    } else {
        requests as f64 / events as f64
    }
}

/// `events / (N · hottest_windowed · requests)`, at most 1; 0 without requests.
pub fn usable(shards: usize, events: u64, requests: u64, hottest_windowed: f64) -> f64 {
    let denominator = shards as f64 * hottest_windowed * requests as f64;
    if denominator > 0.0 {
        (events as f64 / denominator).min(1.0)
    } else {
        0.0
    }
}

/// The usable capacity of a measured load over `events` events.
pub fn usable_of(load: &ShardLoad, events: u64) -> f64 {
    usable(
        load.shard_requests.len(),
        events,
        load.requests,
        load.hottest_shard_share_windowed,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_perfect_spread_of_point_requests_uses_the_whole_cluster() {
        let even = ShardLoad::from_counts(vec![5, 5, 5, 5], vec![vec![5, 5, 5, 5]], vec![20]);
        assert_eq!(usable_of(&even, 20), 1.0);
    }

    #[test]
    fn the_hottest_shard_and_scan_fan_out_both_divide_the_capacity() {
        // 4 shards, windows of 6 events [6,2,2,0] and [3,1,2,2]: hottest shares 0.6 and 0.375,
        // mean 0.4875; 18 requests for 12 events (r = 1.5): 12 / (4 · 0.4875 · 18).
        let load = ShardLoad::from_counts(
            vec![9, 3, 4, 2],
            vec![vec![6, 2, 2, 0], vec![3, 1, 2, 2]],
            vec![6, 6],
        );
        let u = usable_of(&load, 12);
        assert!((u - 1.0 / (4.0 * 0.4875 * 1.5)).abs() < 1e-12, "{u}");
        assert_eq!(requests_per_event(18, 12), 1.5);
        assert_eq!(usable(4, 0, 0, 0.0), 0.0);
    }
}
