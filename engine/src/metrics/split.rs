//! Split-key quality of a static range layout: how well the hottest range's median key halves
//! its load, against the exact load-halving key.

use serde::Serialize;

use schemes::balance::{balance_at, optimal_balance};
use schemes::KeyCounts;

/// Balance of splitting the most loaded range, at its median distinct key and at the optimum.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SplitBalance {
    /// Index of the most loaded range (by point requests; ties: the lowest index).
    pub range_index: usize,
    /// Point requests on that range.
    pub range_requests: u64,
    /// Distinct keys in that range.
    pub range_distinct_keys: u64,
    /// |L-R|/(L+R) when split at the median distinct key (1.0 when it cannot be split).
    pub median_balance: f64,
    /// |L-R|/(L+R) at the exact load-halving key (1.0 when it cannot be split).
    pub optimal_balance: f64,
    /// The largest share of the range's load carried by one key.
    pub top_key_share: f64,
}

/// Finds the most loaded range of `starts` and judges its split keys.
///
/// The load of a range is the point requests of the keys it holds (scans are not counted,
/// since a scan's load does not belong to one key). Returns `None` when no key was requested.
pub fn measure(starts: &[Vec<u8>], keys: &KeyCounts) -> Option<SplitBalance> {
    let sorted = keys.sorted();
    if sorted.is_empty() || starts.is_empty() {
        return None;
    }
    // Keys are sorted, so each range's keys are one contiguous run: cut at the range starts.
    let cut = |i: usize| sorted.partition_point(|(k, _)| *k < starts[i].as_slice());
    let mut best: Option<(usize, usize, usize, u64)> = None;
    for i in 0..starts.len() {
        let (lo, hi) = (
            cut(i),
            if i + 1 < starts.len() {
                cut(i + 1)
            } else {
                sorted.len()
            },
        );
        let load: u64 = sorted[lo..hi].iter().map(|(_, c)| c).sum();
        if best.is_none_or(|b| load > b.3) {
            best = Some((i, lo, hi, load));
        }
    }
    let (range_index, lo, hi, load) = best?;
    let counts: Vec<u64> = sorted[lo..hi].iter().map(|(_, c)| *c).collect();
    Some(SplitBalance {
        range_index,
        range_requests: load,
        range_distinct_keys: counts.len() as u64,
        median_balance: balance_at(&counts, counts.len() / 2),
        optimal_balance: optimal_balance(&counts),
        top_key_share: if load == 0 {
            0.0
        } else {
            *counts.iter().max().unwrap_or(&0) as f64 / load as f64
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pairs: &[(&[u8], u64)]) -> KeyCounts {
        let mut k = KeyCounts::new();
        for (key, n) in pairs {
            k.add(key, *n);
        }
        k
    }

    #[test]
    fn the_hottest_range_is_judged_at_its_median_and_its_optimum() {
        // Ranges [ "", "m") and ["m", inf). Second holds m:1 n:1 o:6 p:2 = 10 requests.
        let keys = counts(&[(b"a", 3), (b"m", 1), (b"n", 1), (b"o", 6), (b"p", 2)]);
        let starts = vec![vec![], b"m".to_vec()];
        let s = measure(&starts, &keys).unwrap();
        assert_eq!(s.range_index, 1);
        assert_eq!(s.range_requests, 10);
        assert_eq!(s.range_distinct_keys, 4);
        // median key "o": left m+n = 2, right 8 -> 0.6
        assert!((s.median_balance - 0.6).abs() < 1e-12);
        // optimum: left m+n+o = 8, right 2 -> 0.6; left m+n = 2 -> 0.6; left m = 1 -> 0.8
        assert!((s.optimal_balance - 0.6).abs() < 1e-12);
        assert!((s.top_key_share - 0.6).abs() < 1e-12);
    }

    #[test]
    fn a_single_key_range_cannot_be_split() {
        let keys = counts(&[(b"x", 5)]);
        let s = measure(&[vec![]], &keys).unwrap();
        assert_eq!(s.median_balance, 1.0);
        assert_eq!(s.optimal_balance, 1.0);
        assert_eq!(s.top_key_share, 1.0);
    }

    #[test]
    fn the_optimum_is_never_worse_than_the_median() {
        let c = [5, 1, 1, 1, 1, 9, 2];
        assert!(optimal_balance(&c) <= balance_at(&c, c.len() / 2));
        assert!((optimal_balance(&[1, 1]) - 0.0).abs() < 1e-12);
    }
}
