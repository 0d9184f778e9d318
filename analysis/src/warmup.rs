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

use std::collections::HashSet;

use workloads::stats::sample_hash;
use xxhash_rust::xxh3::Xxh3DefaultBuilder;

/// The most distinct warm-up keys kept exactly (2^20).
pub const WARMUP_KEY_LIMIT: usize = 1 << 20;

/// Collects the distinct warm-up keys (exactly up to a limit, then a consistent sample).
///
/// ```
/// use analysis::warmup::WarmupKeys;
/// let mut w = WarmupKeys::new();
/// for key in [&b"b"[..], b"a", b"b"] {
///     w.add(key);
/// }
/// assert_eq!(w.into_sorted(), [b"a".to_vec(), b"b".to_vec()]);
/// ```
#[derive(Clone, Debug)]
pub struct WarmupKeys {
    /// 8-byte keys (every key of u64 and binary traces), as big-endian numbers: no allocation
    /// per key, and numeric order is byte order.
    numbers: HashSet<u64, Xxh3DefaultBuilder>,
    /// Keys of any other length.
    others: HashSet<Vec<u8>, Xxh3DefaultBuilder>,
    limit: usize,
    /// Keys are kept when their sample hash has at least this many leading zeros.
    level: u32,
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
            numbers: HashSet::default(),
            others: HashSet::default(),
            limit: limit.max(1),
            level: 0,
        }
    }

    /// Adds one warm-up key (a point key or a scan start).
    #[inline]
    pub fn add(&mut self, key: &[u8]) {
        if self.level > 0 && sample_hash(key).leading_zeros() < self.level {
            return;
        }
        let added = match key.first_chunk::<8>() {
            Some(head) if key.len() == 8 => self.numbers.insert(u64::from_be_bytes(*head)),
            _ if self.others.contains(key) => false,
            _ => self.others.insert(key.to_vec()),
        };
        if added && self.len() > self.limit {
            self.shrink();
        }
    }

    /// Number of keys held.
    pub fn len(&self) -> usize {
        self.numbers.len() + self.others.len()
    }

    /// True when no key is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Share of the distinct keys held: 1 while exact, 2^-level once sampling.
    pub fn sample_rate(&self) -> f64 {
        0.5f64.powi(self.level as i32)
    }

    /// Raises the level (halving the sample) until the set fits its limit.
    fn shrink(&mut self) {
        while self.len() > self.limit && self.level < 64 {
            self.level += 1;
            let level = self.level;
            self.numbers
                .retain(|n| sample_hash(&n.to_be_bytes()).leading_zeros() >= level);
            self.others
                .retain(|k| sample_hash(k).leading_zeros() >= level);
        }
    }

    /// The keys held, sorted in byte order.
    pub fn into_sorted(self) -> Vec<Vec<u8>> {
        let mut numbers: Vec<u64> = self.numbers.into_iter().collect();
        numbers.sort_unstable();
        let mut others: Vec<Vec<u8>> = self.others.into_iter().collect();
        others.sort_unstable();
        let mut sorted = Vec::with_capacity(numbers.len() + others.len());
        let mut others = others.into_iter().peekable();
        for number in numbers {
            let bytes = number.to_be_bytes();
            while let Some(other) = others.next_if(|o| o.as_slice() < bytes.as_slice()) {
                sorted.push(other);
            }
            sorted.push(bytes.to_vec());
        }
        sorted.extend(others);
        sorted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        keys.iter().for_each(|k| w.add(k));
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
                    w.add(&key);
                } else {
                    w.add(&[&key[..], &[0]].concat());
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
