//! [`SegmentedIndex`]: one [`super::RadixIndex`]-style search over many sorted `u64` segments.

use super::{window_rank, EXTRA_BITS, MAX_BITS};

/// Rank queries `(segment, x)` over a list of sorted `u64` segments, e.g. the range starts of
/// each salt bucket: "how many keys of the segments before `segment`, plus keys of `segment`
/// `<= x`". All segments share one key array, one bucket table (the same bits of the key for
/// every segment) and one window width, so a query costs what a [`super::RadixIndex`] query
/// costs, with no per-segment structure to load first.
///
/// ```
/// use analysis::layout::SegmentedIndex;
/// let index = SegmentedIndex::new(&[&[10, 20], &[], &[5]]);
/// assert_eq!((index.rank_le(0, 15), index.rank_le(1, 99), index.rank_le(2, 4)), (1, 2, 2));
/// ```
#[derive(Clone, Debug)]
pub struct SegmentedIndex {
    /// Each segment's keys followed by `window` copies of `u64::MAX`.
    keys: Vec<u64>,
    /// Per segment, `per_segment` entries: the position in `keys` of the first key of each
    /// bucket of that segment.
    table: Vec<u32>,
    /// `first[s]`: keys in segments before `s`; one more entry than segments.
    first: Vec<u32>,
    /// The smallest key of all segments.
    low: u64,
    /// The bucket of `x >= low` is `(x - low) >> shift`, at most `per_segment - 1`.
    shift: u32,
    /// Table entries per segment.
    per_segment: usize,
    /// Keys searched after the table, a power of two at least the fullest bucket.
    window: usize,
}

impl SegmentedIndex {
    /// Indexes the segments, each in non-decreasing order. Panics when one is not sorted or
    /// there are `u32::MAX` keys or more in all.
    pub fn new(segments: &[&[u64]]) -> Self {
        assert!(
            segments.iter().all(|s| s.windows(2).all(|w| w[0] <= w[1])),
            "SegmentedIndex segments must be sorted"
        );
        let low = segments
            .iter()
            .filter_map(|s| s.first())
            .min()
            .copied()
            .unwrap_or(0);
        let high = segments
            .iter()
            .filter_map(|s| s.last())
            .max()
            .copied()
            .unwrap_or(0);
        let largest = segments.iter().map(|s| s.len()).max().unwrap_or(0);
        let span_bits = 64 - (high - low).leading_zeros();
        let want_bits = (usize::BITS - largest.leading_zeros() + EXTRA_BITS).min(MAX_BITS);
        let shift = span_bits.saturating_sub(want_bits);
        let per_segment = (((high - low) >> shift) + 1) as usize;
        let bucket = |k: u64| ((k - low) >> shift) as usize;
        let mut window = 1usize;
        let mut counts = vec![0usize; per_segment];
        for segment in segments {
            counts.iter_mut().for_each(|c| *c = 0);
            for &k in *segment {
                counts[bucket(k)] += 1;
            }
            window = window.max(counts.iter().copied().max().unwrap_or(0));
        }
        let window = window.next_power_of_two();
        let total: usize = segments.iter().map(|s| s.len()).sum();
        let padded = total + segments.len() * window;
        assert!(
            padded < u32::MAX as usize,
            "too many keys for a SegmentedIndex"
        );
        let mut keys = Vec::with_capacity(padded);
        let mut table = Vec::with_capacity(segments.len() * per_segment);
        let mut first = Vec::with_capacity(segments.len() + 1);
        first.push(0u32);
        for segment in segments {
            let start = keys.len();
            // Bucket h starts after the keys of buckets below h.
            let mut at = 0usize;
            for h in 0..per_segment {
                while at < segment.len() && bucket(segment[at]) < h {
                    at += 1;
                }
                table.push((start + at) as u32);
            }
            keys.extend_from_slice(segment);
            keys.resize(keys.len() + window, u64::MAX);
            first.push(first.last().copied().unwrap_or(0) + segment.len() as u32);
        }
        SegmentedIndex {
            keys,
            table,
            first,
            low,
            shift,
            per_segment,
            window,
        }
    }

    /// Number of segments.
    pub fn segments(&self) -> usize {
        self.first.len() - 1
    }

    /// Keys in the segments before `segment`, plus the keys of `segment` that are `<= x`.
    /// Panics when `segment >= segments()`.
    #[inline(always)]
    pub fn rank_le(&self, segment: usize, x: u64) -> usize {
        if x == u64::MAX {
            // Every key is <= x, and so is the padding, which the count must not include.
            return self.first[segment + 1] as usize;
        }
        let h = ((x.saturating_sub(self.low) >> self.shift) as usize).min(self.per_segment - 1);
        let at = self.table[segment * self.per_segment + h] as usize;
        // Before position `at` lie the keys of the earlier segments, the keys of this one
        // below the bucket, and `segment` paddings of `window` keys. Below u64::MAX the count
        // never reaches the padding after this segment.
        at - segment * self.window + window_rank(&self.keys, at, self.window, x)
    }

    /// Bytes of memory the index holds.
    pub fn heap_bytes(&self) -> usize {
        self.keys.capacity() * 8 + self.table.capacity() * 4 + self.first.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_match_partition_point_per_segment() {
        let segments: Vec<Vec<u64>> = vec![
            vec![],
            vec![3, 3, 9],
            (0..300).map(|i| i * 1_000_003).collect(),
            vec![u64::MAX],
            vec![0],
        ];
        let refs: Vec<&[u64]> = segments.iter().map(|s| s.as_slice()).collect();
        let index = SegmentedIndex::new(&refs);
        assert_eq!(index.segments(), 5);
        let probes = [
            0,
            1,
            2,
            3,
            4,
            9,
            10,
            1_000_003,
            299_000_000,
            u64::MAX - 1,
            u64::MAX,
        ];
        let mut before = 0;
        for (s, segment) in segments.iter().enumerate() {
            for x in probes {
                let want = before + segment.partition_point(|&k| k <= x);
                assert_eq!(index.rank_le(s, x), want, "segment {s} x {x}");
            }
            before += segment.len();
        }
    }
}
