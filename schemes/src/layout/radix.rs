//! [`RadixIndex`]: rank queries over sorted `u64`s through one line of fingerprints per
//! bucket of the key bits (the layout is in `lines.rs`).

use super::lines::LineTable;

/// Answers "how many of the keys are `<= x`" for a fixed, sorted multiset of `u64` keys.
///
/// ```
/// use schemes::layout::RadixIndex;
/// let index = RadixIndex::new(&[10, 20, 20, 30]);
/// assert_eq!((index.rank_le(5), index.rank_le(20), index.rank_le(u64::MAX)), (0, 3, 4));
/// ```
#[derive(Clone, Debug)]
pub struct RadixIndex {
    /// The keys in order.
    keys: Vec<u64>,
    /// The bucket lines over `keys` (one segment).
    lines: LineTable,
}

impl RadixIndex {
    /// Indexes `sorted`, which must be in non-decreasing order (repeats allowed). Panics
    /// when it is not sorted or holds `u32::MAX` keys or more.
    pub fn new(sorted: &[u64]) -> Self {
        RadixIndex {
            keys: sorted.to_vec(),
            lines: LineTable::new(sorted, &[0, sorted.len()]),
        }
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when there are no keys.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The `i`-th smallest key. Panics when `i >= len()`.
    #[inline]
    pub fn key(&self, i: usize) -> u64 {
        self.keys[i]
    }

    /// The keys in order.
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// Bytes of memory the index holds (keys and lines).
    pub fn heap_bytes(&self) -> usize {
        self.keys.capacity() * 8 + self.lines.heap_bytes()
    }

    /// How many keys are `<= x`: one bucket line and the bucket's start, and a binary search
    /// over the bucket only when the line leaves the answer open (see `lines.rs`).
    #[inline(always)]
    pub fn rank_le(&self, x: u64) -> usize {
        self.lines.rank_le(&self.keys, 0, x)
    }

    /// How many keys are `< x`.
    #[inline]
    pub fn rank_lt(&self, x: u64) -> usize {
        match x.checked_sub(1) {
            Some(below) => self.rank_le(below),
            None => 0,
        }
    }

    /// [`RadixIndex::rank_le`] of `x`, given the answer `hint` for an earlier query: when
    /// `x` is at or after the keys counted by `hint`, a few steps forward from `hint` find
    /// the answer (a merge walk); otherwise, or after two steps, the index answers. Exact
    /// for any hint; fast when queries come in order.
    #[inline]
    pub fn rank_le_from(&self, hint: usize, x: u64) -> usize {
        let keys = &self.keys;
        if hint <= keys.len() && (hint == 0 || keys[hint - 1] <= x) {
            for step in 0..2 {
                match keys.get(hint + step) {
                    Some(&k) if k <= x => {}
                    _ => return hint + step,
                }
            }
        }
        self.rank_le(x)
    }
}

impl RadixIndex {
    /// Cuts `xs` into runs of consecutive queries with the same [`RadixIndex::rank_le`] and
    /// calls `run(rank, length)` for each, in order (a merge walk).
    ///
    /// A run is every following query between the keys around the first one's answer, so
    /// queries in increasing order cost one lookup per run plus two comparisons per query.
    /// Exact for queries in any order; out-of-order queries only make runs shorter.
    pub fn rank_runs(&self, xs: &[u64], mut run: impl FnMut(usize, usize)) {
        let keys = &self.keys;
        let (mut at, mut rank, mut last_len) = (0usize, 0usize, 0usize);
        while let Some(&x) = xs.get(at) {
            // After a run of one query, queries are sparser than keys: stepping forward from
            // the last answer would mostly be wasted, so the index answers directly.
            rank = if last_len == 1 {
                self.rank_le(x)
            } else {
                self.rank_le_from(rank, x)
            };
            // x lies in [below, above): every query there has the same rank.
            let below = if rank == 0 { 0 } else { keys[rank - 1] };
            let rest = &xs[at..];
            let len = match keys.get(rank) {
                Some(&above) => rest
                    .iter()
                    .take_while(|&&k| below <= k && k < above)
                    .count(),
                None => rest.iter().take_while(|&&k| below <= k).count(),
            };
            run(rank, len);
            at += len;
            last_len = len;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(keys: &[u64], probes: &[u64]) {
        let index = RadixIndex::new(keys);
        for &x in probes {
            let want = keys.partition_point(|&k| k <= x);
            assert_eq!(index.rank_le(x), want, "x {x} keys {keys:?}");
            assert_eq!(index.rank_lt(x), keys.partition_point(|&k| k < x), "x {x}");
            for hint in [0, want.saturating_sub(1), want, keys.len()] {
                assert_eq!(index.rank_le_from(hint, x), want, "x {x} hint {hint}");
            }
        }
    }

    #[test]
    fn ranks_match_partition_point_at_the_edges() {
        let edges = [0, 1, 9, 10, 11, 20, 29, 30, 31, u64::MAX - 1, u64::MAX];
        check(&[], &edges);
        check(&[10], &edges);
        check(&[10, 20, 20, 30], &edges);
        check(&[0, 0, u64::MAX, u64::MAX], &edges);
        check(&[5; 40], &[0, 4, 5, 6, u64::MAX]);
        let spread: Vec<u64> = (0..1000u64).map(|i| i * i * 7919).collect();
        check(
            &spread,
            &(0..2000u64).map(|i| i * i * 3000).collect::<Vec<_>>(),
        );
    }

    #[test]
    fn crowded_buckets_and_fingerprint_ties_keep_answers_exact() {
        // 500 keys in the lowest of the buckets, far more than a line holds.
        let mut keys: Vec<u64> = (0..500u64).collect();
        keys.push(u64::MAX / 2);
        check(
            &keys,
            &[0, 1, 15, 16, 17, 250, 499, 500, 501, u64::MAX / 2, u64::MAX],
        );
        // Keys that differ only below the fingerprint bits: equal fingerprints.
        let ties: Vec<u64> = (0..40u64)
            .map(|i| (i / 4) << 40 | (i % 4))
            .chain([u64::MAX])
            .collect();
        let probes: Vec<u64> = ties
            .iter()
            .flat_map(|&k| [k, k.wrapping_add(1), k.wrapping_sub(1)])
            .collect();
        check(&ties, &probes);
    }
}
