//! Scan fan-out: how many shards each range scan contacts.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Mergeable counts of shards contacted per scan: for every fan-out, how many scans had it.
/// Exact for every shard count (a histogram of 3 significant digits would round fan-outs
/// above 2,048 up, past the shard count), and small: scans take few distinct fan-outs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FanoutAccumulator {
    scans_by_fanout: BTreeMap<u32, u64>,
}

impl FanoutAccumulator {
    /// Records one scan that contacted `shards` shards.
    #[inline]
    pub fn record(&mut self, shards: u32) {
        *self.scans_by_fanout.entry(shards).or_insert(0) += 1;
    }

    /// Adds another accumulator's scans.
    pub fn merge(&mut self, other: &FanoutAccumulator) {
        for (&fanout, &scans) in &other.scans_by_fanout {
            *self.scans_by_fanout.entry(fanout).or_insert(0) += scans;
        }
    }

    /// The summary, or `None` when there were no scans: the exact mean, the 99th percentile
    /// by nearest rank (the smallest fan-out at or above which 99% of the scans lie, counted
    /// from below) and the largest fan-out.
    pub fn finish(&self) -> Option<ScanFanout> {
        let scans: u64 = self.scans_by_fanout.values().sum();
        let (&max, _) = self.scans_by_fanout.last_key_value()?;
        let contacted: u128 = self
            .scans_by_fanout
            .iter()
            .map(|(&f, &n)| u128::from(f) * u128::from(n))
            .sum();
        // Nearest rank: the ceil(0.99 x scans)-th smallest fan-out (at least the first).
        let rank = ((0.99 * scans as f64).ceil() as u64).max(1);
        let mut below = 0u64;
        let p99 = self
            .scans_by_fanout
            .iter()
            .find(|(_, &n)| {
                below += n;
                below >= rank
            })
            .map_or(max, |(&f, _)| f);
        Some(ScanFanout {
            scans,
            mean: contacted as f64 / scans as f64,
            p99: u64::from(p99),
            max: u64::from(max),
        })
    }
}

/// Shards contacted per scan.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScanFanout {
    /// Number of scans.
    pub scans: u64,
    /// Mean shards per scan.
    pub mean: f64,
    /// 99th percentile of shards per scan.
    pub p99: u64,
    /// Largest number of shards one scan contacted.
    pub max: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fanout_statistics_are_exact_for_small_counts() {
        let mut a = FanoutAccumulator::default();
        let mut b = FanoutAccumulator::default();
        for f in [1, 1, 2] {
            a.record(f);
        }
        b.record(16);
        a.merge(&b);
        let s = a.finish().unwrap();
        assert_eq!(s.scans, 4);
        assert!((s.mean - 5.0).abs() < 1e-9);
        assert_eq!(s.max, 16);
        assert_eq!(s.p99, 16);
        assert!(FanoutAccumulator::default().finish().is_none());
    }

    #[test]
    fn fanouts_above_2048_shards_are_exact() {
        // A 3-significant-digit histogram gave 2049 for scans of 2048 shards and 4099 for
        // 4096: more shards than there are.
        let mut a = FanoutAccumulator::default();
        for f in [2048, 2048, 4096, 65_536] {
            a.record(f);
        }
        let s = a.finish().unwrap();
        assert_eq!((s.scans, s.p99, s.max), (4, 65_536, 65_536));
        assert_eq!(s.mean, (2048.0 + 2048.0 + 4096.0 + 65_536.0) / 4.0);
        let mut b = FanoutAccumulator::default();
        (0..100).for_each(|_| b.record(4096));
        b.record(3000);
        let s = b.finish().unwrap();
        assert_eq!((s.p99, s.max), (4096, 4096));
        let mut c = FanoutAccumulator::default();
        (0..99).for_each(|_| c.record(2));
        c.record(9);
        // 100 scans: the 99th smallest is 2, the 100th 9.
        assert_eq!(c.finish().unwrap().p99, 2);
    }

    #[test]
    fn the_counts_survive_their_encoding() {
        let mut a = FanoutAccumulator::default();
        for f in [1, 1, 2, 7, 300, 5000, 65_536] {
            a.record(f);
        }
        let text = serde_json::to_string(&a).unwrap();
        let b: FanoutAccumulator = serde_json::from_str(&text).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.finish(), b.finish());
    }
}
