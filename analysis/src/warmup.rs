//! The distinct warm-up keys that learned schemes (`range`, `salted`) take their boundaries
//! from, in bounded memory.
//!
//! Boundaries are quantiles of the distinct warm-up keys, and quantiles need only a uniform
//! sample of them. Up to [`WARMUP_KEY_LIMIT`] distinct keys are kept exactly; past it the set
//! becomes a consistent hash sample by the rule of the distinct-key table
//! ([`workloads::stats::KeyTable`]): a key is kept when its sample hash has at least `level`
//! leading zero bits, and the level rises until the set fits again. A trace with 10 million
//! distinct warm-up keys thus learns from 0.5 to 1 million of them, whose quantiles lie within
//! about 0.1% (by rank) of the exact ones, in some 60 MiB instead of over a gigabyte.

use workloads::stats::KeyTable;

/// The most distinct warm-up keys kept exactly (2^20).
pub const WARMUP_KEY_LIMIT: usize = 1 << 20;

/// Collects the distinct warm-up keys (exactly up to a limit, then a consistent sample): the
/// keys of a [`KeyTable`], whose counts are not needed here.
///
/// ```
/// use analysis::warmup::WarmupKeys;
/// let mut w = WarmupKeys::new();
/// w.add_each([&b"b"[..], b"a", b"b"]);
/// assert_eq!(w.into_sorted(), [b"a".to_vec(), b"b".to_vec()]);
/// ```
#[derive(Clone, Debug)]
pub struct WarmupKeys {
    table: KeyTable,
}

impl Default for WarmupKeys {
    fn default() -> Self {
        Self::with_limit(WARMUP_KEY_LIMIT)
    }
}

impl WarmupKeys {
    /// An empty set, exact up to [`WARMUP_KEY_LIMIT`] keys.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty set, exact up to `limit` keys (at least 1).
    pub fn with_limit(limit: usize) -> Self {
        WarmupKeys {
            table: KeyTable::with_limit(limit),
        }
    }

    /// Adds warm-up keys (point keys and scan starts).
    pub fn add_each<'k>(&mut self, keys: impl IntoIterator<Item = &'k [u8]>) {
        self.table.add_each(keys);
    }

    /// Number of keys held.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// True when no key is held.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Share of the distinct keys held: 1 while exact, 2^-level once sampling.
    pub fn sample_rate(&self) -> f64 {
        self.table.sample_rate()
    }

    /// The keys held, sorted in byte order.
    pub fn into_sorted(self) -> Vec<Vec<u8>> {
        // 8-byte keys (every key of u64 and binary traces) sort as numbers, the others as
        // bytes; the two lists are then merged.
        let mut numbers: Vec<u64> = Vec::with_capacity(self.table.len());
        let mut others: Vec<&[u8]> = Vec::new();
        for (key, _) in self.table.iter() {
            match key.first_chunk::<8>() {
                Some(head) if key.len() == 8 => numbers.push(u64::from_be_bytes(*head)),
                _ => others.push(key),
            }
        }
        numbers.sort_unstable();
        others.sort_unstable();
        let mut sorted = Vec::with_capacity(numbers.len() + others.len());
        let mut others = others.into_iter().peekable();
        for number in numbers {
            let bytes = number.to_be_bytes();
            while let Some(other) = others.next_if(|o| *o < bytes.as_slice()) {
                sorted.push(other.to_vec());
            }
            sorted.push(bytes.to_vec());
        }
        sorted.extend(others.map(<[u8]>::to_vec));
        sorted
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use workloads::stats::sample_hash;

    #[test]
    fn keys_of_mixed_lengths_come_out_distinct_and_in_byte_order() {
        let keys: [&[u8]; 12] = [
            b"\x00\x00\x00\x00\x00\x00\x00\x07",
            b"",
            b"a",
            b"\x00",
            b"\x00\x00\x00\x00\x00\x00\x00\x07",
            b"\x00\x00\x00\x00\x00\x00\x00\x07\x00",
            b"\xff\xff\xff\xff\xff\xff\xff\xff",
            b"abcdefgh",
            b"abcdefg",
            b"abcdefghi",
            b"a",
            b"\x00\x00\x00\x00\x00\x00\x00\x06",
        ];
        let mut want: Vec<Vec<u8>> = keys.iter().map(|k| k.to_vec()).collect();
        want.sort();
        want.dedup();
        let mut w = WarmupKeys::new();
        w.add_each(keys);
        assert_eq!(w.sample_rate(), 1.0);
        assert_eq!(w.into_sorted(), want);
    }

    #[test]
    fn past_the_limit_the_keys_are_a_consistent_sample_of_even_quantiles() {
        let mut w = WarmupKeys::with_limit(1000);
        // Mixed widths: u64 keys and 9-byte keys, each seen twice.
        for _ in 0..2 {
            for i in 0..20_000u64 {
                let key = i.to_be_bytes();
                if i % 2 == 0 {
                    w.add_each([&key[..]]);
                } else {
                    w.add_each([&[&key[..], &[0]].concat()[..]]);
                }
            }
        }
        let rate = w.sample_rate();
        assert!(rate < 1.0 && w.len() <= 1000, "{rate} {}", w.len());
        let level = rate.log2().round().abs() as u32;
        let sorted = w.into_sorted();
        // Exactly the keys whose hash passes the level: a sample, not the first keys seen.
        let want = (0..20_000u64)
            .map(|i| match i % 2 {
                0 => i.to_be_bytes().to_vec(),
                _ => [&i.to_be_bytes()[..], &[0]].concat(),
            })
            .filter(|k| sample_hash(k).leading_zeros() >= level)
            .count();
        assert_eq!(sorted.len(), want);
        assert!(sorted.windows(2).all(|p| p[0] < p[1]));
        // The median of the sample is near the median key (10,000).
        let mid = &sorted[sorted.len() / 2][..8];
        let median = u64::from_be_bytes(mid.try_into().unwrap());
        assert!((8_000..12_000).contains(&median), "{median}");
    }
}
