//! Salted range partitioning: a hash bucket prefix in front of every key, then ranges.
//!
//! The salted key is the bucket `hash64(key) % B` as a 2-byte big-endian number followed by
//! the key. Salted keys are range-partitioned by an inner [`RangePartitioner`] whose
//! boundaries are learned from the salted warm-up keys, so a monotonic key stream spreads
//! over B places, while a scan `[a, b)` becomes B sub-scans `[bucket || a, bucket || b)`.

use smallvec::SmallVec;
use workloads::Spec;

use super::pinned_hash::hash64;
use super::range::{RangePartitioner, DEFAULT_RANGES_PER_SHARD};
use super::{BuildContext, SchemeKind};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// The largest bucket count: the bucket is a 2-byte prefix.
pub const MAX_BUCKETS: u64 = 65_536;

/// Keys up to this many bytes are salted on the stack (at least 64; 96 is the nearest inline
/// capacity that `smallvec` offers without its `const_generics` feature).
pub const INLINE_KEY_BYTES: usize = 96 - 2;

/// A salted key: 2 bucket bytes and the key, inline for keys up to [`INLINE_KEY_BYTES`].
pub type SaltedKey = SmallVec<[u8; 96]>;

/// Registration of `salted`.
pub const KIND: SchemeKind = SchemeKind {
    name: "salted",
    about: "hash-bucket prefix, then ranges learned from the warm-up; scans fan out per bucket",
    params: &[
        (
            "buckets",
            "hash buckets B, 1..=65536 (default: the shard count, at most 65536)",
        ),
        (
            "ranges_per_shard",
            "ranges per shard learned from the salted warm-up keys (default 8)",
        ),
    ],
    needs_warmup: |_| true,
    build,
};

/// Builds `salted` from the warm-up keys.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let default_buckets = u64::from(ctx.shards).min(MAX_BUCKETS);
    let buckets = spec.u64_at_least("buckets", default_buckets, 1)?;
    if buckets > MAX_BUCKETS {
        let message = format!("buckets={buckets} must be at most {MAX_BUCKETS} (a 2-byte prefix)");
        return Err(spec.error(message).into());
    }
    let per_shard = spec.u64_at_least("ranges_per_shard", DEFAULT_RANGES_PER_SHARD, 1)?;
    let label = spec.to_string();
    let salted = SaltedRangePartitioner::learn(
        label,
        ctx.shards,
        buckets as u32,
        per_shard,
        ctx.warmup_keys,
    )?;
    Ok(Box::new(salted))
}

/// Writes `bucket` (2 bytes, big-endian) followed by `key` into `out`, replacing its content.
pub fn salt_into(bucket: u16, key: &[u8], out: &mut SaltedKey) {
    out.clear();
    out.extend_from_slice(&bucket.to_be_bytes());
    out.extend_from_slice(key);
}

/// Range partitioning of salted keys `bucket || key`.
///
/// Growth and shrink rule: the bucket count stays B (changing it would re-salt every key) and
/// the inner ranges move by the range rule ([`RangePartitioner::resized_with`]), weighing each
/// range by the distinct salted keys in it.
///
/// [`Partitioner::range_starts`] is `None`: the starts are salted keys, which raw keys cannot
/// be compared with; [`SaltedRangePartitioner::inner`] gives them.
#[derive(Clone, Debug)]
pub struct SaltedRangePartitioner {
    label: String,
    buckets: u32,
    inner: RangePartitioner,
}

impl SaltedRangePartitioner {
    /// Salts the sorted distinct warm-up keys and learns `shards * ranges_per_shard` ranges
    /// of them ([`RangePartitioner::learn`]; no warm-up keys put everything on shard 0).
    /// `buckets` must be in `1..=65536`.
    pub fn learn(
        label: impl Into<String>,
        shards: u32,
        buckets: u32,
        ranges_per_shard: u64,
        warmup_keys: &[Vec<u8>],
    ) -> Result<Self, AnalysisError> {
        if buckets == 0 || u64::from(buckets) > MAX_BUCKETS {
            let message = format!("the bucket count must be in 1..={MAX_BUCKETS} (got {buckets})");
            return Err(AnalysisError::Config(message));
        }
        let label = label.into();
        let salt = |key: &Vec<u8>| {
            let mut salted = Vec::with_capacity(2 + key.len());
            salted.extend_from_slice(&bucket_of(buckets, key).to_be_bytes());
            salted.extend_from_slice(key);
            salted
        };
        let mut salted: Vec<Vec<u8>> = warmup_keys.iter().map(salt).collect();
        salted.sort_unstable();
        salted.dedup();
        let inner = RangePartitioner::learn(label.clone(), shards, ranges_per_shard, &salted)?;
        Ok(SaltedRangePartitioner {
            label,
            buckets,
            inner,
        })
    }

    /// The bucket of `key`: `hash64(key) % B`.
    #[inline]
    pub fn bucket_of(&self, key: &[u8]) -> u16 {
        bucket_of(self.buckets, key)
    }

    /// The salted key `bucket || key`, on the stack for keys up to [`INLINE_KEY_BYTES`] bytes.
    #[inline]
    pub fn salt(&self, key: &[u8]) -> SaltedKey {
        let mut out = SaltedKey::new();
        salt_into(self.bucket_of(key), key, &mut out);
        out
    }

    /// The number of buckets B.
    pub fn buckets(&self) -> u32 {
        self.buckets
    }

    /// The range partitioner of the salted keys.
    pub fn inner(&self) -> &RangePartitioner {
        &self.inner
    }

    /// The same buckets and label over other inner ranges (e.g. after a shard is removed).
    pub fn with_inner(&self, inner: RangePartitioner) -> SaltedRangePartitioner {
        let (label, buckets) = (self.label.clone(), self.buckets);
        SaltedRangePartitioner { label, buckets, inner }
    }
}

/// `hash64(key) % buckets`, which fits in 2 bytes because `buckets <= 65536`.
#[inline]
fn bucket_of(buckets: u32, key: &[u8]) -> u16 {
    (hash64(key) % u64::from(buckets)) as u16
}

impl Partitioner for SaltedRangePartitioner {
    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.inner.shard_count()
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.inner.shard_of(&self.salt(key))
    }

    /// The union over every bucket of the shards of `[bucket || start, bucket || end)`. An
    /// empty scan (`end <= start`) contacts only the owner of `start`.
    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        if end <= start {
            out.insert(self.shard_of(start));
            return;
        }
        let (mut low, mut high) = (SaltedKey::new(), SaltedKey::new());
        for bucket in 0..self.buckets {
            salt_into(bucket as u16, start, &mut low);
            salt_into(bucket as u16, end, &mut high);
            self.inner.scan_shards(&low, &high, out);
        }
    }

    fn without_shard(&self, shard: ShardId, keys: &KeyCounts) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
        crate::placement::salted::without_shard(self, shard, keys)
    }

    /// Resizes the inner ranges by the range rule; the buckets stay.
    fn resized(
        &self,
        shards: u32,
        keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        let counts = self
            .inner
            .distinct_keys_per_range(keys.iter().map(|(k, _)| self.salt(k)));
        let inner = self.inner.resized_with(shards, &counts)?;
        let (label, buckets) = (self.label.clone(), self.buckets);
        Ok(Box::new(SaltedRangePartitioner {
            label,
            buckets,
            inner,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_salted_key_is_the_bucket_in_two_big_endian_bytes_then_the_key() {
        let p = SaltedRangePartitioner::learn("salted", 4, 300, 2, &[]).unwrap();
        let bucket = (0x9fdc_8e44_c5b9_267c_u64 % 300) as u16;
        assert_eq!(p.bucket_of(b"user42"), bucket);
        let salted = p.salt(b"user42");
        assert_eq!(&salted[..2], bucket.to_be_bytes());
        assert_eq!(&salted[2..], b"user42");
        assert!(!salted.spilled());
        assert!(!p.salt(&[7u8; INLINE_KEY_BYTES]).spilled());
        assert!(p.salt(&[7u8; INLINE_KEY_BYTES + 1]).spilled()); // longer keys use the heap
        assert_eq!(p.shard_of(b"user42"), 0); // no warm-up: one range on shard 0
    }

    #[test]
    fn salted_boundaries_are_learned_from_salted_warm_up_keys() {
        let keys: Vec<Vec<u8>> = (0u64..1000).map(|i| i.to_be_bytes().to_vec()).collect();
        let p = SaltedRangePartitioner::learn("salted", 4, 4, 1, &keys).unwrap();
        let starts = p.inner().starts();
        assert_eq!(starts.len(), 4);
        assert!(starts[1..]
            .iter()
            .all(|s| s.len() == 10 && keys.contains(&s[2..].to_vec())));
        let mut out = ShardSet::new(4);
        p.scan_shards(&keys[10], &keys[11], &mut out);
        assert!(out.contains(p.shard_of(&keys[10])));
        assert!(p.range_starts().is_none());
    }

    #[test]
    fn bucket_counts_outside_one_to_65536_are_refused() {
        assert!(SaltedRangePartitioner::learn("salted", 4, 0, 8, &[]).is_err());
        assert!(SaltedRangePartitioner::learn("salted", 4, 65_537, 8, &[]).is_err());
        assert!(SaltedRangePartitioner::learn("salted", 4, 65_536, 8, &[]).is_ok());
        assert!(SaltedRangePartitioner::learn("salted", 0, 4, 8, &[]).is_err());
    }
}
