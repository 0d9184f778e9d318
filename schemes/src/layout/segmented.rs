//! [`SegmentedIndex`]: one [`super::RadixIndex`]-style search over many sorted `u64` segments.

use super::lines::LineTable;

/// Rank queries `(segment, x)` over a list of sorted `u64` segments, e.g. the range starts of
/// each salt bucket: "how many keys of the segments before `segment`, plus keys of `segment`
/// `<= x`". All segments share one key array and one bucket function (the same bits of the
/// key for every segment), with one line per bucket of each segment, so a query costs what a
/// [`super::RadixIndex`] query costs, with no per-segment structure to load first.
///
/// ```
/// use schemes::layout::SegmentedIndex;
/// let index = SegmentedIndex::new(&[&[10, 20], &[], &[5]]);
/// assert_eq!((index.rank_le(0, 15), index.rank_le(1, 99), index.rank_le(2, 4)), (1, 2, 2));
/// ```
#[derive(Clone, Debug)]
pub struct SegmentedIndex {
    /// The segments' keys, one after another.
    keys: Vec<u64>,
    /// The bucket lines of every segment over `keys`.
    lines: LineTable,
}

impl SegmentedIndex {
    /// Indexes the segments, each in non-decreasing order. Panics when one is not sorted or
    /// there are `u32::MAX` keys or more in all.
    pub fn new(segments: &[&[u64]]) -> Self {
        let keys = segments.concat();
        let bounds: Vec<usize> = std::iter::once(0)
            .chain(segments.iter().scan(0, |end, s| {
                *end += s.len();
                Some(*end)
            }))
            .collect();
        let lines = LineTable::new(&keys, &bounds);
        SegmentedIndex { keys, lines }
    }

    /// Number of segments.
    pub fn segments(&self) -> usize {
        self.lines.segments()
    }

    /// Keys in the segments before `segment`, plus the keys of `segment` that are `<= x`.
    /// Panics when `segment >= segments()`.
    #[inline(always)]
    pub fn rank_le(&self, segment: usize, x: u64) -> usize {
        self.lines.rank_le(&self.keys, segment, x)
    }

    /// Bytes of memory the index holds.
    pub fn heap_bytes(&self) -> usize {
        self.keys.capacity() * 8 + self.lines.heap_bytes()
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
