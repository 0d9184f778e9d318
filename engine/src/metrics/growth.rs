//! Where the measured point requests land once the layout is resized from N to M shards:
//! the share the added shards receive, their fair share, and the hottest shard afterwards.
//!
//! Computed from any [`schemes::Partitioner`] and its resized layout (or any owner function),
//! so a scheme's growth rule is judged by where its keys' requests go, not by its name.

use serde::Serialize;

/// The load of the resized layout, from the measured point requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Growth {
    /// Point requests owned by a shard added by the growth (index >= N) / all point
    /// requests; `None` when nothing is added (M <= N) or there are no point requests.
    pub added_share: Option<f64>,
    /// The share the added shards would hold in a perfect spread, (M-N)/M; `None` when
    /// M <= N.
    pub added_fair: Option<f64>,
    /// The busiest shard's point requests on the resized layout / all point requests
    /// (`None` without point requests).
    pub hottest_share_after: Option<f64>,
}

impl Growth {
    /// True when the added shards receive less than half their fair share: the growth
    /// leaves the new shards nearly idle.
    pub fn leaves_added_idle(&self) -> bool {
        matches!((self.added_share, self.added_fair), (Some(s), Some(f)) if s < 0.5 * f)
    }
}

/// Point requests per shard of the resized layout, summed exactly in integers.
#[derive(Clone, Debug)]
pub struct GrowthAccumulator {
    before: u32,
    requests: Vec<u64>,
}

impl GrowthAccumulator {
    /// An empty accumulator for a change from `before` to `after` shards.
    pub fn new(before: u32, after: u32) -> Self {
        GrowthAccumulator {
            before,
            requests: vec![0; after.max(1) as usize],
        }
    }

    /// Counts `requests` point requests of a key the resized layout places on `shard`.
    #[inline]
    pub fn add(&mut self, shard: u32, requests: u64) {
        if let Some(r) = self.requests.get_mut(shard as usize) {
            *r += requests;
        }
    }

    /// Adds another accumulator's counts (same shard counts).
    pub fn merge(mut self, other: GrowthAccumulator) -> Self {
        for (a, b) in self.requests.iter_mut().zip(other.requests) {
            *a += b;
        }
        self
    }

    /// The figures.
    pub fn finish(&self) -> Growth {
        let total: u64 = self.requests.iter().sum();
        let (n, m) = (self.before as usize, self.requests.len());
        let share = |part: u64| (total > 0).then(|| part as f64 / total as f64);
        let grows = m > n;
        Growth {
            added_share: if grows {
                share(self.requests[n..].iter().sum())
            } else {
                None
            },
            added_fair: grows.then(|| (m - n) as f64 / m as f64),
            hottest_share_after: share(self.requests.iter().copied().max().unwrap_or(0)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_added_shards_share_is_their_requests_over_all() {
        // 4 -> 5 shards: shard 4 is new and gets 10 of 50 requests, its fair share 1/5.
        let mut acc = GrowthAccumulator::new(4, 5);
        for (shard, n) in [(0, 20), (1, 10), (2, 5), (3, 5), (4, 10)] {
            acc.add(shard, n);
        }
        let g = acc.finish();
        assert_eq!(g.added_share, Some(0.2));
        assert_eq!(g.added_fair, Some(0.2));
        assert_eq!(g.hottest_share_after, Some(0.4));
        assert!(!g.leaves_added_idle());
    }

    #[test]
    fn an_added_shard_under_half_its_fair_share_is_idle_and_a_shrink_adds_nothing() {
        let mut acc = GrowthAccumulator::new(2, 4);
        acc.add(0, 90);
        acc.add(3, 10);
        let g = acc.finish();
        assert_eq!(g.added_fair, Some(0.5));
        assert_eq!(g.added_share, Some(0.1));
        assert!(g.leaves_added_idle());
        let mut shrink = GrowthAccumulator::new(4, 3);
        shrink.add(1, 3);
        let g = shrink.finish();
        assert_eq!((g.added_share, g.added_fair), (None, None));
        assert_eq!(g.hottest_share_after, Some(1.0));
        assert!(!g.leaves_added_idle());
    }
}
