//! Distinct keys and their request counts, mergeable across chunks: exact up to a limit of
//! distinct keys (default 10 million), then a consistent hash sample of the key space.
//!
//! This is [`workloads::stats::KeyTable`] (see it for the sampling rule) under the name and
//! methods the schemes and metrics use. While exact, every method means what it says. Once
//! sampling ([`KeyCounts::is_exact`] is false), [`len`](KeyCounts::len),
//! [`iter`](KeyCounts::iter) and [`sorted`](KeyCounts::sorted) cover the sampled keys, each
//! with its exact count, so shares computed over them are unbiased estimates;
//! [`distinct`](KeyCounts::distinct) scales the count up with a 95% interval;
//! [`total`](KeyCounts::total) stays the exact number of requests and
//! [`hottest`](KeyCounts::hottest) still finds the hottest key.

use workloads::stats::{sample_hash, Estimate, HeavyHitter, KeyTable};

pub use workloads::stats::DEFAULT_DISTINCT_LIMIT;

/// How a parallel count splits the key space: into parts by key hash, each counted by one
/// thread in stream order and joined in part order ([`KeyCounts::join`]), so that every key
/// is held once and the result does not depend on the thread count.
#[derive(Clone, Copy, Debug)]
pub struct KeyParts {
    /// Number of parts: up to 16, fewer for small limits (one part per 65,536 keys of the
    /// limit, so that each part's share of the limit is large enough to be even).
    pub count: usize,
    /// The limit of each part: its share of the whole limit plus six standard deviations of
    /// the share a hash gives it, so that a part samples only when the whole would.
    pub part_limit: usize,
    /// The limit of the joined count.
    pub limit: usize,
}

impl KeyParts {
    /// The parts for a count exact up to `limit` distinct keys.
    pub fn for_limit(limit: usize) -> Self {
        let count = (limit >> 16).clamp(1, 16);
        let share = limit.div_ceil(count);
        let part_limit = match count {
            1 => limit,
            _ => share + (6.0 * (share as f64).sqrt()).ceil() as usize,
        };
        KeyParts {
            count,
            part_limit,
            limit,
        }
    }

    /// The part of a key with this sample hash (from bits that neither the sample level nor
    /// a table's home slot uses).
    #[inline]
    pub fn part_of(&self, hash: u64) -> usize {
        (hash >> 32) as usize % self.count
    }
}

/// Distinct keys with the number of point requests each received.
#[derive(Clone, Debug, Default)]
pub struct KeyCounts {
    table: KeyTable,
}

impl KeyCounts {
    /// An empty table, exact up to [`DEFAULT_DISTINCT_LIMIT`] distinct keys.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty table, exact up to `limit` distinct keys.
    pub fn with_limit(limit: usize) -> Self {
        KeyCounts {
            table: KeyTable::with_limit(limit),
        }
    }

    /// Counts `n` more requests for `key`.
    #[inline]
    pub fn add(&mut self, key: &[u8], n: u64) {
        self.table.add(key, n);
    }

    /// Counts one more request for each `(hash, key)`, in order, where `hash` is the key's
    /// sample hash ([`KeyCounts::hash`]).
    pub fn add_each_hashed(&mut self, keys: &[(u64, &[u8])]) {
        self.table.add_each_hashed(keys);
    }

    /// The sample hash of a key (the hash [`KeyParts::part_of`] and the sample use).
    #[inline]
    pub fn hash(key: &[u8]) -> u64 {
        sample_hash(key)
    }

    /// Joins the counts of the parts of a key space ([`KeyParts`]), given in part order.
    pub fn join(parts: Vec<KeyCounts>, limit: usize) -> KeyCounts {
        KeyCounts {
            table: KeyTable::join(parts.into_iter().map(|p| p.table).collect(), limit),
        }
    }

    /// Number of distinct keys held: all of them while exact, the sample otherwise (see
    /// [`distinct`](KeyCounts::distinct) for the estimate).
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// True when no key is held.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Sum of all counts, sampled or not (exact).
    pub fn total(&self) -> u64 {
        self.table.total()
    }

    /// Sum of the counts of the keys held (equal to [`total`](KeyCounts::total) while exact):
    /// the denominator of traffic shares computed over [`iter`](KeyCounts::iter).
    pub fn held_total(&self) -> u64 {
        self.table.held_total()
    }

    /// The count of one key (0 when unseen, or outside the sample).
    pub fn count(&self, key: &[u8]) -> u64 {
        self.table.count(key)
    }

    /// The keys held and their counts, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], u64)> + '_ {
        self.table.iter()
    }

    /// The keys held and their counts, sorted by key (deterministic order for reports and
    /// parallel work).
    pub fn sorted(&self) -> Vec<(&[u8], u64)> {
        let mut v: Vec<(&[u8], u64)> = self.iter().collect();
        v.sort_unstable_by(|a, b| a.0.cmp(b.0));
        v
    }

    /// True while every key is held.
    pub fn is_exact(&self) -> bool {
        self.table.is_exact()
    }

    /// Share of the key space held: 1 while exact.
    pub fn sample_rate(&self) -> f64 {
        self.table.sample_rate()
    }

    /// The number of distinct keys, exact or estimated with its 95% interval.
    pub fn distinct(&self) -> Estimate {
        self.table.distinct()
    }

    /// The most requested key, its count and how much the count may overstate (0 while
    /// exact). Ties go to the smaller key.
    pub fn hottest(&self) -> Option<HeavyHitter> {
        self.table.hottest()
    }

    /// The effective number of keys behind a traffic-weighted share over the keys held:
    /// (sum of counts)^2 / sum of squared counts.
    pub fn effective_keys(&self) -> f64 {
        let squares = self.table.held_sum_of_squares();
        if squares == 0.0 {
            0.0
        } else {
            (self.held_total() as f64).powi(2) / squares
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_join_by_key() {
        // Each key goes to its part, as the replay splits them.
        let parts = KeyParts {
            count: 2,
            part_limit: 100,
            limit: 100,
        };
        let mut split = vec![KeyCounts::new(), KeyCounts::new()];
        for (key, n) in [(&b"x"[..], 2), (b"y", 1), (b"x", 3), (b"z", 4)] {
            split[parts.part_of(KeyCounts::hash(key))].add(key, n);
        }
        let m = KeyCounts::join(split, parts.limit);
        assert_eq!(m.len(), 3);
        assert_eq!(m.count(b"x"), 5);
        assert_eq!(m.total(), 10);
        assert!(m.is_exact());
        assert_eq!(
            m.sorted()
                .iter()
                .map(|(k, _)| k.to_vec())
                .collect::<Vec<_>>(),
            [b"x".to_vec(), b"y".to_vec(), b"z".to_vec()]
        );
        assert_eq!(m.hottest().unwrap().key, b"x");
    }

    #[test]
    fn past_the_limit_counts_are_sampled_and_the_total_stays_exact() {
        let mut a = KeyCounts::with_limit(1000);
        for i in 0..10_000u64 {
            a.add(&i.to_be_bytes(), 1 + i % 2);
        }
        assert!(!a.is_exact() && a.len() <= 1000);
        assert_eq!(a.total(), 15_000);
        assert!(a.held_total() < 15_000);
        let d = a.distinct();
        assert!(d.ci_low <= 10_000.0 && d.ci_high >= 10_000.0, "{d:?}");
        // Counts 1 and 2 in about equal numbers: (1.5 n)^2 / (2.5 n) = 0.9 n.
        let ratio = a.effective_keys() / a.len() as f64;
        assert!((ratio - 0.9).abs() < 0.02, "{ratio}");
    }
}
