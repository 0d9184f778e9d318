//! [`KeyIndex`]: predecessor search over sorted byte-string split keys through 8-byte prefixes.

use super::RadixIndex;

/// The first 8 bytes of `bytes` as a big-endian number, zero-padded when shorter.
///
/// For byte strings `a < b` implies `prefix8(a) <= prefix8(b)`, and when every split key is at
/// most 8 bytes long, a key of 8 bytes or more is at or after a split exactly when its
/// `prefix8` is (a split that is a prefix of the key, or equal to its first 8 bytes, sorts
/// before it).
#[inline]
pub fn prefix8(bytes: &[u8]) -> u64 {
    match bytes.first_chunk::<8>() {
        Some(head) => u64::from_be_bytes(*head),
        None => {
            let mut padded = [0u8; 8];
            padded[..bytes.len()].copy_from_slice(bytes);
            u64::from_be_bytes(padded)
        }
    }
}

/// Counts the split keys `<=` or `<` a byte key, for a fixed sorted list of split keys.
///
/// The index holds the 8-byte prefix of every split (after the bytes that all splits share,
/// when some split is longer than 8 bytes) in a [`RadixIndex`]. When every split fits in 8
/// bytes after that common prefix, a key with at least 8 more bytes is answered from the
/// prefixes alone (`u64` keys always are). Otherwise the splits whose prefix equals the
/// key's are compared in full, which the caller passes in (the index does not copy them).
///
/// ```
/// use schemes::layout::KeyIndex;
/// let splits = vec![b"b".to_vec(), b"m".to_vec(), b"m\x00".to_vec()];
/// let index = KeyIndex::new(&splits);
/// assert_eq!(index.rank_le(&splits, b"a"), 0);
/// assert_eq!(index.rank_le(&splits, b"m"), 2);
/// assert_eq!(index.rank_lt(&splits, b"m"), 1);
/// assert_eq!(index.rank_le(&splits, b"zebra"), 3);
/// ```
#[derive(Clone, Debug)]
pub struct KeyIndex {
    /// `prefix8` of every split after `common`.
    prefixes: RadixIndex,
    /// The bytes every split starts with; empty unless some split is longer than 8 bytes.
    common: Box<[u8]>,
    /// Every split is at most `common.len() + 8` bytes long.
    short_splits: bool,
    /// `short_splits` and `common` is empty (see [`KeyIndex::is_u64_exact`]), kept so that
    /// the lookup's fast-path test is one load rather than two.
    u64_exact: bool,
}

impl KeyIndex {
    /// Indexes `splits`, which must be strictly increasing.
    pub fn new(splits: &[Vec<u8>]) -> Self {
        debug_assert!(splits.windows(2).all(|w| w[0] < w[1]));
        let longest = splits.iter().map(Vec::len).max().unwrap_or(0);
        let common: &[u8] = match (splits.first(), splits.last()) {
            (Some(first), Some(last)) if longest > 8 => {
                // In sorted order, the first and last share exactly what all share.
                let n = first.iter().zip(last).take_while(|(a, b)| a == b).count();
                &first[..n]
            }
            _ => &[],
        };
        let prefixes: Vec<u64> = splits.iter().map(|s| prefix8(&s[common.len()..])).collect();
        let short_splits = longest <= common.len() + 8;
        KeyIndex {
            prefixes: RadixIndex::new(&prefixes),
            common: common.into(),
            short_splits,
            u64_exact: short_splits && common.is_empty(),
        }
    }

    /// True when `rank_le` of a key of 8 bytes or more is the prefix index's rank of its
    /// first 8 bytes as a big-endian number: every split is at most 8 bytes long and there is
    /// no common prefix to strip.
    #[inline]
    pub fn is_u64_exact(&self) -> bool {
        self.u64_exact
    }

    /// The prefix index (for merge walks over `u64` keys).
    pub fn prefixes(&self) -> &RadixIndex {
        &self.prefixes
    }

    /// How many of `splits` (the list this index was built from) are `<= key`.
    #[inline(always)]
    pub fn rank_le(&self, splits: &[Vec<u8>], key: &[u8]) -> usize {
        match self.rank_le_from_prefixes(key) {
            Some(rank) => rank,
            None => self.rank_le_slow(splits, key),
        }
    }

    /// [`KeyIndex::rank_le`] when the prefixes alone answer it, without the splits: for a key
    /// of 8 bytes or more when [`KeyIndex::is_u64_exact`]; `None` otherwise.
    #[inline(always)]
    pub fn rank_le_from_prefixes(&self, key: &[u8]) -> Option<usize> {
        match key.first_chunk::<8>() {
            Some(head) if self.u64_exact => Some(self.prefixes.rank_le(u64::from_be_bytes(*head))),
            _ => None,
        }
    }

    /// How many of `splits` are `< key`.
    #[inline]
    pub fn rank_lt(&self, splits: &[Vec<u8>], key: &[u8]) -> usize {
        let r = self.rank_le(splits, key);
        if r > 0 && splits[r - 1] == key {
            r - 1
        } else {
            r
        }
    }

    /// `rank_le` for keys off the fast path: strip the common prefix, then compare in full
    /// the splits whose prefix equals the key's.
    fn rank_le_slow(&self, splits: &[Vec<u8>], key: &[u8]) -> usize {
        let m = self.common.len();
        if m > 0 {
            let head = &key[..m.min(key.len())];
            match head.cmp(&self.common[..head.len()]) {
                std::cmp::Ordering::Less => return 0,
                std::cmp::Ordering::Greater => return splits.len(),
                // A key that is a proper prefix of the common bytes is below every split.
                std::cmp::Ordering::Equal if key.len() < m => return 0,
                std::cmp::Ordering::Equal => {}
            }
        }
        let rest = &key[m..];
        let p = prefix8(rest);
        let high = self.prefixes.rank_le(p);
        if (self.short_splits && rest.len() >= 8) || high == 0 || self.prefixes.key(high - 1) != p {
            return high;
        }
        // Splits with a smaller prefix are below the key and splits with a larger one above
        // it; those with the same prefix, at low..high, are compared in full.
        let low = self.prefixes.rank_lt(p);
        low + splits[low..high].partition_point(|s| s.as_slice() <= key)
    }

    /// Bytes of memory the index holds.
    pub fn heap_bytes(&self) -> usize {
        self.prefixes.heap_bytes() + self.common.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(splits: &[&[u8]], probes: &[&[u8]]) {
        let splits: Vec<Vec<u8>> = splits.iter().map(|s| s.to_vec()).collect();
        let index = KeyIndex::new(&splits);
        for &key in probes {
            let le = splits.partition_point(|s| s.as_slice() <= key);
            let lt = splits.partition_point(|s| s.as_slice() < key);
            assert_eq!(index.rank_le(&splits, key), le, "key {key:?}");
            assert_eq!(index.rank_lt(&splits, key), lt, "key {key:?}");
        }
    }

    #[test]
    fn short_splits_with_trailing_zeros_and_short_keys() {
        let splits: &[&[u8]] = &[b"\x00", b"a", b"a\x00", b"a\x00\x00", b"b", b"bbbbbbbb"];
        let probes: &[&[u8]] = &[
            b"",
            b"\x00",
            b"\x00\x00",
            b"a",
            b"a\x00",
            b"a\x00\x00",
            b"a\x00\x00\x00\x00\x00\x00\x00",
            b"a\x00\x00\x00\x00\x00\x00\x00\x00",
            b"a\x01",
            b"b",
            b"bbbbbbba",
            b"bbbbbbbb",
            b"bbbbbbbb\x00",
            b"c",
            b"\xff\xff\xff\xff\xff\xff\xff\xff\xff",
        ];
        check(splits, probes);
    }

    #[test]
    fn long_splits_with_a_common_prefix() {
        let splits: &[&[u8]] = &[
            b"user00000001",
            b"user000000010",
            b"user00000002",
            b"user0000000200000",
            b"user00000003",
        ];
        let probes: &[&[u8]] = &[
            b"",
            b"u",
            b"user",
            b"user0",
            b"user00000000",
            b"user00000001",
            b"user000000010",
            b"user0000000100",
            b"user00000002",
            b"user000000020",
            b"user00000002000000",
            b"user00000003",
            b"user9",
            b"usf",
            b"v",
        ];
        check(splits, probes);
    }

    #[test]
    fn no_splits_count_nothing() {
        check(&[], &[b"", b"a"]);
    }
}
