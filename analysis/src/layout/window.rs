//! [`WindowIndex`] (the previous layout, kept for one side-by-side benchmark run): rank queries over sorted `u64`s through a bucket table on the key bits.
//!
//! Why not a crate or `partition_point`: a binary search over K sorted keys makes log2(K)
//! dependent memory accesses (17 at 100,000 ranges), and the static-tree layouts that cut
//! that number (Eytzinger, S+ trees) only pay off with prefetch or SIMD compares, which
//! need `unsafe` that this workspace denies. A bucket table on the bits below the keys'
//! common prefix resolves almost every query with two accesses instead: one into the table
//! and one into a short window of the sorted keys, scanned without branches. No crate offers
//! this predecessor search on a fixed sorted set with exact answers; measured in
//! `benches/lookup.rs` (BENCHMARKS.md).
//!
//! Exactness does not depend on the key distribution, only speed does: skewed keys make some
//! buckets hold many keys, and the window search then takes log2(window) steps, never more
//! than a binary search over all keys.

/// Table bits beyond those needed for one bucket per key: the bucket tables have between 2
/// and 4 entries per key.
const EXTRA_BITS: u32 = 1;

/// The most table bits (16 Mi entries, 64 MiB) whatever the key count.
const MAX_BITS: u32 = 24;

/// Windows up to this many keys are counted with straight-line compares; longer ones are
/// binary-searched.
const COUNTED_WINDOW: usize = 8;

/// How many of the `window` sorted keys from `at` on are `<= x`: straight-line compares for
/// the power-of-two widths up to [`COUNTED_WINDOW`], a branch-free binary search beyond.
/// `keys` must hold `window` keys from `at` on (the layouts pad with `u64::MAX`).
#[inline(always)]
fn window_rank(keys: &[u64], at: usize, window: usize, x: u64) -> usize {
    match window {
        1 => count::<1>(keys, at, x),
        2 => count::<2>(keys, at, x),
        4 => count::<4>(keys, at, x),
        COUNTED_WINDOW => count::<COUNTED_WINDOW>(keys, at, x),
        _ => search(keys, at, window, x),
    }
}

/// How many of the `W` keys from `at` on are `<= x` (straight-line, no branches).
#[inline(always)]
fn count<const W: usize>(keys: &[u64], at: usize, x: u64) -> usize {
    let window: &[u64; W] = keys[at..at + W]
        .try_into()
        .expect("the padding keeps every window in bounds");
    window.iter().map(|&k| usize::from(k <= x)).sum()
}

/// How many of the `width` sorted keys from `at` on are `<= x`, by a branch-free binary
/// search.
#[inline(always)]
fn search(keys: &[u64], at: usize, width: usize, x: u64) -> usize {
    let window = &keys[at..at + width];
    let (mut base, mut size) = (0usize, width);
    while size > 1 {
        let half = size / 2;
        let mid = base + half;
        base = if window[mid] <= x { mid } else { base };
        size -= half;
    }
    base + usize::from(window[base] <= x)
}

/// Answers "how many of the keys are `<= x`" for a fixed, sorted multiset of `u64` keys.
///
/// ```
/// use analysis::layout::WindowIndex;
/// let index = WindowIndex::new(&[10, 20, 20, 30]);
/// assert_eq!((index.rank_le(5), index.rank_le(20), index.rank_le(u64::MAX)), (0, 3, 4));
/// ```
#[derive(Clone, Debug)]
pub struct WindowIndex {
    /// The keys in order, then `window` copies of `u64::MAX` so that every window is in
    /// bounds.
    keys: Vec<u64>,
    /// `table[h]`: how many keys lie in buckets below `h`; one entry per bucket.
    table: Vec<u32>,
    /// The smallest key (0 when there are none).
    low: u64,
    /// The bucket of `x >= low` is `(x - low) >> shift`.
    shift: u32,
    /// The most keys in one bucket (at least 1).
    window: usize,
    /// Number of keys.
    len: usize,
}

impl WindowIndex {
    /// Indexes `sorted`, which must be in non-decreasing order (repeats allowed). Panics
    /// when it is not sorted or holds `u32::MAX` keys or more.
    pub fn new(sorted: &[u64]) -> Self {
        Self::with_window(sorted, 1)
    }

    /// [`WindowIndex::new`] with a search window of at least `window` keys. Indexes that are
    /// searched one after another at random (one per salt bucket) share one window width,
    /// so that the branch on the width is always predicted.
    pub fn with_window(sorted: &[u64], window: usize) -> Self {
        assert!(
            sorted.windows(2).all(|w| w[0] <= w[1]),
            "WindowIndex keys must be sorted"
        );
        assert!(
            sorted.len() < u32::MAX as usize,
            "too many keys for a WindowIndex"
        );
        let (low, high) = match (sorted.first(), sorted.last()) {
            (Some(&l), Some(&h)) => (l, h),
            _ => (0, 0),
        };
        let span_bits = 64 - (high - low).leading_zeros();
        let want_bits = (usize::BITS - sorted.len().leading_zeros() + EXTRA_BITS).min(MAX_BITS);
        let shift = span_bits.saturating_sub(want_bits);
        let buckets = (((high - low) >> shift) + 1) as usize;
        let mut table = vec![0u32; buckets];
        for &k in sorted {
            let h = ((k - low) >> shift) as usize;
            if h + 1 < buckets {
                table[h + 1] += 1;
            }
        }
        let mut window = window.max(1);
        let mut run = 0u32;
        for t in table.iter_mut() {
            window = window.max(*t as usize);
            run += *t;
            *t = run;
        }
        // The last bucket's size is not in the table: it is what is left.
        window = window.max(sorted.len() - *table.last().unwrap_or(&0) as usize);
        // Windows are searched at power-of-two widths (counted or binary-searched).
        let window = window.next_power_of_two();
        let mut keys = Vec::with_capacity(sorted.len() + window);
        keys.extend_from_slice(sorted);
        keys.resize(sorted.len() + window, u64::MAX);
        WindowIndex {
            keys,
            table,
            low,
            shift,
            window,
            len: sorted.len(),
        }
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are no keys.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The `i`-th smallest key. Panics when `i >= len()`.
    #[inline]
    pub fn key(&self, i: usize) -> u64 {
        self.keys[..self.len][i]
    }

    /// The keys in order.
    pub fn keys(&self) -> &[u64] {
        &self.keys[..self.len]
    }

    /// The number of keys a query searches after the table: at least the most keys that
    /// share one bucket, rounded up to a power of two.
    pub fn window(&self) -> usize {
        self.window
    }

    /// Bytes of memory the index holds (keys with padding, and the table).
    pub fn heap_bytes(&self) -> usize {
        self.keys.capacity() * 8 + self.table.capacity() * 4
    }

    /// How many keys are `<= x`.
    ///
    /// Keys in buckets below the bucket of `x` are below `x` and keys in buckets above it are
    /// above `x`, so the answer is the table entry of that bucket plus a count within one
    /// window that starts there (the padding after the keys is `u64::MAX`, which only
    /// `x == u64::MAX` counts, and the final `min` takes back).
    #[inline(always)]
    pub fn rank_le(&self, x: u64) -> usize {
        let h = ((x.saturating_sub(self.low) >> self.shift) as usize).min(self.table.len() - 1);
        let start = self.table[h] as usize;
        let counted = window_rank(&self.keys, start, self.window, x);
        (start + counted).min(self.len)
    }

    /// How many keys are `< x`.
    #[inline]
    pub fn rank_lt(&self, x: u64) -> usize {
        match x.checked_sub(1) {
            Some(below) => self.rank_le(below),
            None => 0,
        }
    }

    /// [`WindowIndex::rank_le`] of `x`, given the answer `hint` for an earlier query: when
    /// `x` is at or after the keys counted by `hint`, a few steps forward from `hint` find
    /// the answer (a merge walk); otherwise, or after two steps, the index answers. Exact
    /// for any hint; fast when queries come in order.
    #[inline]
    pub fn rank_le_from(&self, hint: usize, x: u64) -> usize {
        let keys = &self.keys[..self.len];
        if hint <= self.len && (hint == 0 || keys[hint - 1] <= x) {
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

impl WindowIndex {
    /// Cuts `xs` into runs of consecutive queries with the same [`WindowIndex::rank_le`] and
    /// calls `run(rank, length)` for each, in order (a merge walk).
    ///
    /// A run is every following query between the keys around the first one's answer, so
    /// queries in increasing order cost one lookup per run plus two comparisons per query.
    /// Exact for queries in any order; out-of-order queries only make runs shorter.
    pub fn rank_runs(&self, xs: &[u64], mut run: impl FnMut(usize, usize)) {
        let keys = &self.keys[..self.len];
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
        let index = WindowIndex::new(keys);
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
    fn skewed_keys_widen_the_window_but_keep_answers_exact() {
        let mut keys: Vec<u64> = (0..500u64).collect();
        keys.push(u64::MAX / 2);
        let index = WindowIndex::new(&keys);
        assert!(index.window() > COUNTED_WINDOW);
        check(&keys, &[0, 1, 250, 499, 500, 501, u64::MAX / 2, u64::MAX]);
    }
}
