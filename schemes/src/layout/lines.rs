//! [`LineTable`]: the bucket search behind [`super::RadixIndex`] and [`super::SegmentedIndex`],
//! one 64-byte line of 31-bit key fingerprints per bucket.
//!
//! Why this layout: a binary search over K sorted keys makes log2(K) dependent memory accesses
//! (17 at 100,000 keys), and the static trees that cut that number (Eytzinger, S+ trees) pay
//! off with prefetch or SIMD intrinsics, which need `unsafe` that this workspace denies. The
//! previous layout here, a bucket table of 2 to 4 entries per key pointing into a window of the
//! sorted keys, made two dependent accesses over 1.8 MiB at 100,000 keys. Here the top bits of
//! `x - low` pick a bucket of about 4 to 8 keys, and the bucket's line holds the next 31 bits
//! of its first [`LINE`] keys: a query loads the line and the bucket's start position (two
//! independent loads, no chain) and counts the fingerprints below its own with straight-line
//! code that LLVM turns into SSE2 vector subtracts on plain x86-64. The lines take 8 to 16
//! bytes per key (1 MiB at 100,000 keys, within a 2 MiB L2); the sorted keys are read only by
//! the rare undecided query.
//!
//! Exactness does not depend on the key distribution. Within a bucket the fingerprint is
//! monotone in the key, so a key with a smaller fingerprint than `x`'s is below `x` and one
//! with a larger fingerprint is above. Only a key whose fingerprint equals `x`'s (or an unused
//! slot, filled with [`FINGERPRINT_MAX`], when `x`'s is that), or a bucket with more than
//! [`LINE`] keys all below `x`, leaves the answer open; then the bucket's keys are
//! binary-searched in full. For random keys that is rare; skewed keys make crowded buckets,
//! which cost a binary search over the bucket, never more than one over all keys.

/// Fingerprints per line (16 x 4 bytes: one cache line).
const LINE: usize = 16;

/// Bits of a fingerprint: with both sides below 2^31, `f < own` is the sign bit of `f - own`,
/// one subtract and one shift per four fingerprints in SSE2 (an unsigned compare needs a bias,
/// and a count of compare results a population count, which baseline x86-64 lacks).
const FINGERPRINT_BITS: u32 = 31;

/// The largest fingerprint, also the filler of unused slots.
const FINGERPRINT_MAX: u32 = (1 << FINGERPRINT_BITS) - 1;

/// Buckets are sized for about `2^KEYS_PER_BUCKET_BITS` keys (between half and twice that).
const KEYS_PER_BUCKET_BITS: u32 = 3;

/// The fingerprints of one bucket's first keys, in order, then [`FINGERPRINT_MAX`].
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Line([u32; LINE]);

/// Rank queries over sorted `u64` segments that share one bucket function: per segment, one
/// [`Line`] and one start position per bucket. The keys themselves stay with the caller, who
/// passes them back for the rare undecided query.
#[derive(Clone, Debug)]
pub(super) struct LineTable {
    /// `per_segment` lines per segment.
    lines: Vec<Line>,
    /// `starts[g]`: position in the caller's keys of the first key of bucket `g` (buckets of
    /// all segments numbered in order); one more entry than buckets, the number of keys.
    starts: Vec<u32>,
    /// The smallest key of all segments (0 when there are none).
    low: u64,
    /// The bucket of `x` is `(x - low) >> shift` (below 64).
    shift: u32,
    /// The fingerprint of `x` in its bucket is the low [`FINGERPRINT_BITS`] of
    /// `(x - low) >> fingerprint_shift`.
    fingerprint_shift: u32,
    /// Buckets per segment (at least 1).
    per_segment: usize,
}

impl LineTable {
    /// Indexes `keys`, the concatenation of the segments `keys[bounds[s]..bounds[s + 1]]`,
    /// each sorted. Panics when a segment is not sorted or there are `u32::MAX` keys or more.
    pub(super) fn new(keys: &[u64], bounds: &[usize]) -> Self {
        assert!(
            keys.len() < u32::MAX as usize,
            "too many keys for a layout index"
        );
        let segments = || bounds.windows(2).map(|b| &keys[b[0]..b[1]]);
        assert!(
            segments().all(|s| s.windows(2).all(|w| w[0] <= w[1])),
            "layout index keys must be sorted"
        );
        let low = segments().filter_map(|s| s.first()).min().copied();
        let high = segments().filter_map(|s| s.last()).max().copied();
        let (low, high) = (low.unwrap_or(0), high.unwrap_or(0));
        let largest = segments().map(<[u64]>::len).max().unwrap_or(0);
        let span_bits = 64 - (high - low).leading_zeros();
        let want_bits = (usize::BITS - (largest >> KEYS_PER_BUCKET_BITS).leading_zeros()).max(1);
        let shift = span_bits.saturating_sub(want_bits);
        let per_segment = (((high - low) >> shift) + 1) as usize;
        let bucket = |k: u64| ((k - low) >> shift) as usize;
        let fingerprint_shift = shift.saturating_sub(FINGERPRINT_BITS);
        let fingerprint = |k: u64| ((k - low) >> fingerprint_shift) as u32 & FINGERPRINT_MAX;

        let buckets = per_segment * (bounds.len().saturating_sub(1));
        let mut starts = Vec::with_capacity(buckets + 1);
        for b in bounds.windows(2) {
            // Bucket h starts after the segment's keys in buckets below h.
            let mut at = b[0];
            for h in 0..per_segment {
                while at < b[1] && bucket(keys[at]) < h {
                    at += 1;
                }
                starts.push(at as u32);
            }
        }
        starts.push(keys.len() as u32);
        let lines = starts
            .windows(2)
            .map(|s| {
                let mut line = [FINGERPRINT_MAX; LINE];
                let bucket_keys = &keys[s[0] as usize..s[1] as usize];
                for (slot, &k) in line.iter_mut().zip(bucket_keys) {
                    *slot = fingerprint(k);
                }
                Line(line)
            })
            .collect();
        LineTable {
            lines,
            starts,
            low,
            shift,
            fingerprint_shift,
            per_segment,
        }
    }

    /// Number of segments.
    pub(super) fn segments(&self) -> usize {
        self.lines.len() / self.per_segment
    }

    /// Position in `keys` (the keys this table was built from) after the keys of `segment`
    /// that are `<= x`: the keys of the segments before it plus that count.
    #[inline(always)]
    pub(super) fn rank_le(&self, keys: &[u64], segment: usize, x: u64) -> usize {
        let d = x.saturating_sub(self.low);
        let h = (d >> self.shift) as usize;
        let first = segment * self.per_segment;
        if h >= self.per_segment {
            // Above every bucket: after all keys of the segment.
            return self.starts[first + self.per_segment] as usize;
        }
        let g = first + h;
        let start = self.starts[g] as usize;
        let own = (d >> self.fingerprint_shift) as u32 & FINGERPRINT_MAX;
        let line = &self.lines[g].0;
        // The fingerprints are in order, so the ones below `own` come first; the next one
        // decides unless it equals `own` or the line is full of smaller ones.
        let below = line
            .iter()
            .map(|&f| f.wrapping_sub(own) >> (u32::BITS - 1))
            .sum::<u32>() as usize;
        if below < LINE && line[below % LINE] != own {
            start + below
        } else {
            self.rank_in_bucket(keys, g, x)
        }
    }

    /// [`LineTable::rank_le`] for an undecided query: a binary search over bucket `g`.
    #[cold]
    #[inline(never)]
    fn rank_in_bucket(&self, keys: &[u64], g: usize, x: u64) -> usize {
        let (start, end) = (self.starts[g] as usize, self.starts[g + 1] as usize);
        start + keys[start..end].partition_point(|&k| k <= x)
    }

    /// Bytes of memory the table holds.
    pub(super) fn heap_bytes(&self) -> usize {
        self.lines.capacity() * size_of::<Line>() + self.starts.capacity() * 4
    }
}
