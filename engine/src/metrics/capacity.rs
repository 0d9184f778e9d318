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
//!
//! With `--weights` the shards' capacities are taken to follow their weights (shard i holds
//! `w_i / W` of the cluster's capacity), so shard i saturates at `E = C·N·w_i / (W·r·s_i)`
//! and `h` becomes the largest `s_i·W / (N·w_i)` of each window
//! ([`ShardLoad::hottest_per_capacity_windowed`]): a scheme that gives every shard its
//! weight's share then uses the whole cluster, one that spreads evenly does not.

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

/// The usable capacity of a measured load over `events` events (per capacity with
/// `--weights`).
pub fn usable_of(load: &ShardLoad, events: u64) -> f64 {
    usable(
        load.shard_requests.len(),
        events,
        load.requests,
        load.hottest_per_capacity_windowed(),
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

    #[test]
    fn with_weights_each_shard_saturates_at_its_own_capacity() {
        // Weights 2, 1, 1: shard 0 holds half the capacity. Loads that follow the weights
        // (50%, 25%, 25% of every window) use all of it; an even spread (a third each)
        // saturates shards 1 and 2 at 1.5 of 2 capacity units: 0.75. Unweighted, the two
        // read 2/3 and 1, the wrong way round.
        let windows = |w: Vec<u32>| vec![w.clone(), w];
        let follows = ShardLoad::from_counts(vec![8, 4, 4], windows(vec![4, 2, 2]), vec![8, 8]);
        let even = ShardLoad::from_counts(vec![6, 6, 6], windows(vec![3, 3, 3]), vec![9, 9]);
        assert!((usable_of(&follows, 16) - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(usable_of(&even, 18), 1.0);
        let weights = [2.0, 1.0, 1.0];
        assert_eq!(usable_of(&follows.per_weight(&weights), 16), 1.0);
        assert!((usable_of(&even.per_weight(&weights), 18) - 0.75).abs() < 1e-12);
    }

    #[test]
    fn weights_leave_the_shares_and_equal_weights_leave_the_capacity() {
        let load = ShardLoad::from_counts(
            vec![9, 3, 4, 2],
            vec![vec![6, 2, 2, 0], vec![3, 1, 2, 2]],
            vec![6, 6],
        );
        let equal = load.clone().per_weight(&[3.0; 4]);
        assert_eq!(
            equal.hottest_shard_share_windowed,
            load.hottest_shard_share_windowed
        );
        assert!((usable_of(&equal, 12) - usable_of(&load, 12)).abs() < 1e-12);
    }
}
