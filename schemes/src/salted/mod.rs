//! Salted range partitioning: a hash bucket prefix in front of every key, then ranges.
//!
//! The salted key is the bucket `hash64(key) % B` as a 2-byte big-endian number followed by
//! the key. Salted keys are range-partitioned by an inner [`RangePartitioner`] whose
//! boundaries are learned bucket by bucket from the salted warm-up keys (every bucket starts
//! a range, as operators pre-split at salt prefixes), so a monotonic key stream spreads over
//! B places, while a scan `[a, b)` becomes B sub-scans `[bucket || a, bucket || b)`.
//!
//! Lookups never build the salted key: the ranges of each bucket are searched with the key
//! itself (see [`SaltedRangePartitioner::range_index_of`]).

mod placement;

use std::sync::Arc;

use rayon::prelude::*;
use smallvec::SmallVec;
use workloads::Spec;

use super::growth::{group_stably, GrowRule, KeysByRange, GROW_PARAM};
use super::pinned_hash::{hash64, reduce};
use super::range::{RangePartitioner, DEFAULT_RANGES_PER_SHARD};
use super::{BuildContext, SchemeKind};
use crate::layout::{prefix8, KeyIndex, SegmentedIndex};
use crate::{AnalysisError, KeyCounts, Partitioner, RemovalEffect, ShardId, ShardSet};

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
    system: |_| None,
    params: &[
        (
            "buckets",
            "hash buckets B, 1..=65536 (default: the shard count, at most 65536)",
        ),
        (
            "ranges_per_shard",
            "ranges per shard learned from the salted warm-up keys (default 8)",
        ),
        GROW_PARAM,
    ],
    needs_warmup: |_| true,
    points: |spec, shards| {
        let buckets = crate::count_param(spec, "buckets", u64::from(shards).min(MAX_BUCKETS));
        let per_shard = crate::count_param(spec, "ranges_per_shard", DEFAULT_RANGES_PER_SHARD);
        let ranges = per_shard.saturating_mul(u64::from(shards));
        crate::Points::new(
            ranges.saturating_add(buckets),
            "ranges_per_shard x shards + buckets",
            "fewer ranges_per_shard, buckets or shards",
        )
    },
    build,
    changing: None,
};

/// Builds `salted` from the warm-up keys.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    super::weights::refuse(
        ctx,
        &spec.to_string(),
        "its ranges split an equal share per shard",
    )?;
    let default_buckets = u64::from(ctx.shards).min(MAX_BUCKETS);
    let buckets = spec.u64_at_least("buckets", default_buckets, 1)?;
    if buckets > MAX_BUCKETS {
        let message = format!("buckets={buckets} must be at most {MAX_BUCKETS} (a 2-byte prefix)");
        return Err(spec.error(message).into());
    }
    let per_shard = spec.u64_at_least("ranges_per_shard", DEFAULT_RANGES_PER_SHARD, 1)?;
    let grow = GrowRule::from_spec(spec)?;
    let label = spec.to_string();
    let salted = SaltedRangePartitioner::learn(
        label,
        ctx.shards,
        buckets as u32,
        per_shard,
        ctx.warmup_keys,
    )?;
    Ok(Box::new(salted.with_grow_rule(grow)))
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
/// the inner ranges are resized by the range rule of the `grow` parameter
/// ([`crate::growth`]) over the salted keys: `balanced` cuts inner ranges at salted
/// keys, `cheapest` moves whole inner ranges weighed by the distinct salted keys in them.
///
/// [`Partitioner::range_starts`] is `None`: the starts are salted keys, which raw keys cannot
/// be compared with; [`SaltedRangePartitioner::inner`] gives them.
#[derive(Clone, Debug)]
pub struct SaltedRangePartitioner {
    label: String,
    buckets: u32,
    inner: RangePartitioner,
    /// The inner ranges searched bucket by bucket with unsalted keys (shared by the layouts
    /// whose inner ranges share their starts).
    by_bucket: Arc<BucketIndex>,
}

/// The inner range starts grouped by bucket, with the bucket bytes stripped, so that the
/// range of `bucket || key` is found from `key` without building the salted key.
///
/// The range index of a salted key is the number of non-empty starts `<=` it: all starts of
/// lower buckets, plus the starts of its own bucket whose rest is `<= key`; starts of higher
/// buckets are above it.
#[derive(Clone, Debug)]
struct BucketIndex {
    /// `first[b]`: non-empty starts in buckets below `b`; `B + 1` entries.
    first: Vec<u32>,
    /// Every non-empty start without its 2 bucket bytes, in order.
    rests: Vec<Vec<u8>>,
    /// Per bucket, the search over its part of `rests`.
    search: Vec<KeyIndex>,
    /// When every rest is at most 8 bytes: their 8-byte prefixes, one segment per bucket,
    /// which answer keys of 8 bytes or more exactly (the `(bucket, u64)` path).
    numbers: Option<SegmentedIndex>,
}

impl BucketIndex {
    /// Groups `starts` (the inner starts; every non-empty one at least 2 bytes) by bucket.
    fn new(buckets: u32, starts: &[Vec<u8>]) -> BucketIndex {
        let splits = &starts[1..];
        assert!(
            splits.iter().all(|s| s.len() >= 2),
            "salted range starts are salted keys of at least 2 bytes"
        );
        let bucket = |s: &Vec<u8>| usize::from(u16::from_be_bytes([s[0], s[1]]));
        let mut first = vec![0u32; buckets as usize + 1];
        for s in splits {
            first[(bucket(s) + 1).min(buckets as usize)] += 1;
        }
        for b in 1..first.len() {
            first[b] += first[b - 1];
        }
        let rests: Vec<Vec<u8>> = splits.iter().map(|s| s[2..].to_vec()).collect();
        let group = |b: usize| &rests[first[b] as usize..first[b + 1] as usize];
        let search = (0..buckets as usize)
            .map(|b| KeyIndex::new(group(b)))
            .collect();
        let numbers = rests.iter().all(|r| r.len() <= 8).then(|| {
            let prefixes: Vec<u64> = rests.iter().map(|r| prefix8(r)).collect();
            let segments: Vec<&[u64]> = (0..buckets as usize)
                .map(|b| &prefixes[first[b] as usize..first[b + 1] as usize])
                .collect();
            SegmentedIndex::new(&segments)
        });
        BucketIndex {
            first,
            rests,
            search,
            numbers,
        }
    }

    /// The inner range index of `bucket || key`.
    #[inline(always)]
    fn range_index_of(&self, bucket: u16, key: &[u8]) -> usize {
        let b = usize::from(bucket);
        if let (Some(numbers), Some(head)) = (&self.numbers, key.first_chunk::<8>()) {
            return numbers.rank_le(b, u64::from_be_bytes(*head));
        }
        let (low, high) = (self.first[b] as usize, self.first[b + 1] as usize);
        low + self.search[b].rank_le(&self.rests[low..high], key)
    }

    /// The inner index of the last range starting before `bucket || end`.
    #[inline]
    fn last_range_before(&self, bucket: u16, end: &[u8]) -> usize {
        let b = usize::from(bucket);
        let (low, high) = (self.first[b] as usize, self.first[b + 1] as usize);
        low + self.search[b].rank_lt(&self.rests[low..high], end)
    }
}

impl SaltedRangePartitioner {
    /// Salts the sorted distinct warm-up keys and learns about `shards * ranges_per_shard`
    /// ranges of them, bucket by bucket, so that no range holds keys of two buckets that both
    /// have warm-up keys: each bucket gets `P = max(1, floor(K / B))` ranges (`K = shards *
    /// ranges_per_shard`) starting at its salted keys `keys_b[j * len_b / P]` for `j` in
    /// `0..P` (the quantiles of the bucket, its smallest key first; every key when the bucket
    /// has fewer than `P`). The very first range starts at the empty key instead of the
    /// smallest salted key. Owners are contiguous over the ranges, as for
    /// [`RangePartitioner::from_splits`]: with `B = N` buckets each bucket lies on one shard,
    /// so sequential keys, which hit the last range of every bucket, spread over all shards.
    /// No warm-up keys put everything on shard 0. `buckets` must be in `1..=65536`.
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
        // Salted order is (bucket, key) order, as the bucket is a fixed-width prefix: the
        // sorted distinct keys grouped stably by bucket (a counting sort) are in it, and no
        // salted key is built but the splits.
        let mut sorted_copy = Vec::new();
        let keys = if warmup_keys.windows(2).all(|w| w[0] < w[1]) {
            warmup_keys
        } else {
            sorted_copy.extend_from_slice(warmup_keys);
            sorted_copy.sort_unstable();
            sorted_copy.dedup();
            &sorted_copy[..]
        };
        let salted: Vec<(u16, &[u8])> = keys
            .par_iter()
            .map(|key| (bucket_of(buckets, key), &key[..]))
            .collect();
        let salted = group_stably(salted, buckets as usize, |&(bucket, _)| usize::from(bucket));
        let ranges = u64::from(shards).saturating_mul(ranges_per_shard);
        let per_bucket = (ranges / u64::from(buckets)).max(1);
        let splits = bucket_quantile_splits(&salted, per_bucket);
        let inner = RangePartitioner::from_splits(label.clone(), shards, splits)?;
        Ok(Self::with_parts(label, buckets, inner))
    }

    /// Assembles the partitioner and its per-bucket search.
    fn with_parts(label: String, buckets: u32, inner: RangePartitioner) -> Self {
        let by_bucket = Arc::new(BucketIndex::new(buckets, inner.starts()));
        SaltedRangePartitioner {
            label,
            buckets,
            inner,
            by_bucket,
        }
    }

    /// The same buckets and label over other inner ranges (e.g. after a shard is removed).
    /// The inner starts must be salted keys of this partitioner (as any layout derived from
    /// [`SaltedRangePartitioner::inner`] is).
    pub fn with_inner(&self, inner: RangePartitioner) -> SaltedRangePartitioner {
        if inner.shares_starts_with(&self.inner) {
            // Only owners changed: the same per-bucket search.
            return SaltedRangePartitioner {
                label: self.label.clone(),
                buckets: self.buckets,
                inner,
                by_bucket: Arc::clone(&self.by_bucket),
            };
        }
        Self::with_parts(self.label.clone(), self.buckets, inner)
    }

    /// The index of the inner range holding the salted key of `key`; exactly
    /// `inner().range_index_of(&salt(key))`, without building the salted key.
    #[inline(always)]
    pub fn range_index_of(&self, key: &[u8]) -> usize {
        self.by_bucket.range_index_of(self.bucket_of(key), key)
    }

    /// The bucket of `key`: `hash64(key) % B`.
    #[inline(always)]
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

    /// The same layout, resized by `grow` (kept by its inner ranges).
    pub fn with_grow_rule(self, grow: GrowRule) -> Self {
        let inner = self.inner.clone().with_grow_rule(grow);
        self.with_inner(inner)
    }
}

/// `hash64(key) % buckets`, which fits in 2 bytes because `buckets <= 65536`.
#[inline(always)]
fn bucket_of(buckets: u32, key: &[u8]) -> u16 {
    reduce(hash64(key), buckets) as u16
}

impl Partitioner for SaltedRangePartitioner {
    /// Growth cuts are placed by the keys' counts.
    fn resize_learns(&self) -> bool {
        true
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.inner.shard_count()
    }

    #[inline(always)]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.inner.owner_of_range(self.range_index_of(key))
    }

    fn uses_placement_hash(&self) -> bool {
        true
    }

    fn shards_of_hashed(&self, keys: &[&[u8]], hashes: &[u64], out: &mut Vec<ShardId>) {
        out.extend(keys.iter().zip(hashes).map(|(key, &hash)| {
            let bucket = reduce(hash, self.buckets) as u16;
            self.inner
                .owner_of_range(self.by_bucket.range_index_of(bucket, key))
        }));
    }

    /// The union over every bucket of the shards of `[bucket || start, bucket || end)`. An
    /// empty scan (`end <= start`) contacts only the owner of `start`.
    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        if end <= start {
            out.insert(self.shard_of(start));
            return;
        }
        let owners = self.inner.owners();
        for bucket in 0..self.buckets {
            let bucket = bucket as u16;
            let first = self.by_bucket.range_index_of(bucket, start);
            let last = self.by_bucket.last_range_before(bucket, end);
            for &owner in &owners[first..=last] {
                out.insert(owner);
            }
        }
    }

    fn without_shard(
        &self,
        shard: ShardId,
        keys: &KeyCounts,
    ) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
        Ok(self.without_each(&[shard], keys)?.pop().flatten())
    }

    /// The distinct salted keys of every inner range are counted once for all the removals.
    fn without_each(
        &self,
        shards: &[ShardId],
        keys: &KeyCounts,
    ) -> Result<Vec<Option<Box<dyn Partitioner>>>, AnalysisError> {
        Ok(self
            .without_all(shards, keys)?
            .into_iter()
            .map(|p| Some(Box::new(p) as Box<dyn Partitioner>))
            .collect())
    }

    /// As range, on the inner ranges of the salted keys.
    fn removal_effect(&self) -> RemovalEffect {
        RemovalEffect::Local
    }

    /// Resizes the inner ranges by their [`GrowRule`] over the salted keys; the buckets stay.
    fn resized(
        &self,
        shards: u32,
        keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        let inner = match self.inner.grow_rule() {
            GrowRule::Balanced => {
                // (bucket, key) sorts as the salted key does, without building it: the keys
                // in key order (sorted once for every scheme and target), grouped stably by
                // bucket, are in salted order, so no range is sorted.
                let salted: Vec<((u16, &[u8]), u64)> = keys
                    .sorted()
                    .into_par_iter()
                    .map(|(key, count)| ((self.bucket_of(key), key), count))
                    .collect();
                let buckets = self.buckets as usize;
                let salted = group_stably(salted, buckets, |((bucket, _), _)| usize::from(*bucket));
                let ranges = self.inner.range_count();
                let salted = KeysByRange::in_key_order(salted, ranges, |&(bucket, key)| {
                    self.by_bucket.range_index_of(bucket, key)
                });
                self.inner
                    .resized_balanced(shards, salted, |&(bucket, key)| {
                        let mut start = SaltedKey::new();
                        salt_into(bucket, key, &mut start);
                        start.to_vec()
                    })?
            }
            GrowRule::Cheapest => {
                let mut counts = vec![0u64; self.inner.range_count()];
                for (key, _) in keys.iter() {
                    counts[self.range_index_of(key)] += 1;
                }
                self.inner.resized_with(shards, &counts)?
            }
        };
        Ok(Box::new(self.with_inner(inner)))
    }
}

/// The split keys of [`SaltedRangePartitioner::learn`]: per bucket of the distinct (bucket,
/// key) pairs in salted order, `per_bucket` quantiles starting with the bucket's smallest key
/// (every key of a bucket with fewer), salted, without the first split overall (the empty
/// start covers it).
fn bucket_quantile_splits(salted: &[(u16, &[u8])], per_bucket: u64) -> Vec<Vec<u8>> {
    let mut splits = Vec::new();
    for bucket in salted.chunk_by(|a, b| a.0 == b.0) {
        let len = bucket.len();
        let picks = (len as u64).min(per_bucket);
        for j in 0..picks {
            let at = (u128::from(j) * len as u128 / u128::from(picks)) as usize;
            let (b, key) = bucket[at];
            let mut split = Vec::with_capacity(2 + key.len());
            split.extend_from_slice(&b.to_be_bytes());
            split.extend_from_slice(key);
            splits.push(split);
        }
    }
    if !splits.is_empty() {
        splits.remove(0);
    }
    splits
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
    fn the_starts_are_the_bucket_quantiles_of_the_salted_keys_sorted_as_bytes() {
        // The documented rule, on salted keys built and sorted as bytes, against `learn`
        // (which groups the sorted keys by bucket instead); also from unsorted, repeated keys.
        let keys: Vec<Vec<u8>> = (0u64..3000)
            .map(|i| format!("k{}", i * 7919 % 3001).into_bytes())
            .collect();
        for (buckets, shards, per_shard) in [(1, 3, 4), (7, 5, 2), (64, 4, 8), (300, 9, 3)] {
            let p = SaltedRangePartitioner::learn("s", shards, buckets, per_shard, &keys).unwrap();
            let mut salted: Vec<Vec<u8>> = keys.iter().map(|k| p.salt(k).to_vec()).collect();
            salted.sort();
            salted.dedup();
            let per_bucket = (u64::from(shards) * per_shard / u64::from(buckets)).max(1) as usize;
            let mut want: Vec<Vec<u8>> = vec![vec![]];
            for bucket in salted.chunk_by(|a, b| a[..2] == b[..2]) {
                let picks = bucket.len().min(per_bucket);
                want.extend((0..picks).map(|j| bucket[j * bucket.len() / picks].clone()));
            }
            want.remove(1); // the empty start replaces the smallest salted key
            assert_eq!(p.inner().starts(), &want[..], "buckets={buckets}");
            let mut shuffled = keys.clone();
            shuffled.reverse();
            shuffled.extend_from_slice(&keys[..100]);
            let q = SaltedRangePartitioner::learn("s", shards, buckets, per_shard, &shuffled);
            assert_eq!(q.unwrap().inner().starts(), &want[..]);
        }
    }

    #[test]
    fn balanced_growth_cuts_the_salted_keys_as_the_inner_ranges_would() {
        // 40 warm-up keys over 64 buckets: ranges span the buckets without warm-up keys, so
        // a range's keys are in (bucket, key) order, not in key order.
        let warmup: Vec<Vec<u8>> = (0u64..40).map(|i| format!("w{i}").into_bytes()).collect();
        let p = SaltedRangePartitioner::learn("salted", 3, 64, 2, &warmup).unwrap();
        let (mut keys, mut salted) = (KeyCounts::new(), KeyCounts::new());
        for i in 0u64..3000 {
            let key = format!("k{}", i * 7919 % 3001).into_bytes();
            keys.add(&key, 1 + i * i % 17);
            salted.add(&p.salt(&key), 1 + i * i % 17);
        }
        for m in [2, 4, 5, 9] {
            let grown = p.resized(m, &keys).unwrap();
            let inner = p.inner().resized(m, &salted).unwrap();
            let probes = (0u64..4000).map(|i| format!("k{i}").into_bytes());
            for key in probes.chain(warmup.iter().cloned()) {
                let want = inner.shard_of(&p.salt(&key));
                assert_eq!(grown.shard_of(&key), want, "{m} shards");
            }
        }
    }

    /// The mean over windows of `window` keys of the hottest shard's share, each window
    /// weighted by its keys (as `hottest_shard_share_windowed`): the windows' hottest
    /// counts added up over all the keys.
    fn windowed_hottest_share(
        p: &dyn Partitioner,
        keys: impl Iterator<Item = u64>,
        window: usize,
    ) -> f64 {
        let keys: Vec<u64> = keys.collect();
        let hottest: usize = keys
            .chunks(window)
            .map(|w| {
                let mut load = vec![0usize; p.shard_count() as usize];
                for k in w {
                    load[p.shard_of(&k.to_be_bytes()) as usize] += 1;
                }
                *load.iter().max().unwrap()
            })
            .sum();
        hottest as f64 / keys.len() as f64
    }

    #[test]
    fn every_bucket_starts_a_range_so_sequential_keys_spread_over_all_shards() {
        for n in [4u32, 16, 64] {
            let warmup: Vec<Vec<u8>> = (0u64..20_000).map(|i| i.to_be_bytes().to_vec()).collect();
            let p = SaltedRangePartitioner::learn("salted", n, n, 8, &warmup).unwrap();
            assert_eq!(p.inner().range_count(), 8 * n as usize);
            // Each bucket's smallest salted key starts a range (the first bucket's range starts
            // at the empty key), so no range holds keys of two buckets.
            let mut salted: Vec<SaltedKey> = warmup.iter().map(|k| p.salt(k)).collect();
            salted.sort_unstable();
            let starts = p.inner().starts();
            for w in salted.windows(2).filter(|w| w[0][..2] != w[1][..2]) {
                assert!(
                    starts.iter().any(|s| s[..] == w[1][..]),
                    "bucket {:?}",
                    &w[1][..2]
                );
            }
            let share = windowed_hottest_share(&p, 20_000..220_000, 10_000);
            eprintln!("salted buckets={n} shards={n}: windowed hottest share {share:.4}");
            assert!(share <= 1.5 / f64::from(n), "buckets={n}: {share}");
        }
    }

    #[test]
    fn lookups_without_salting_match_the_inner_lookup_of_the_salted_key() {
        let warmup: Vec<Vec<u8>> = (0u64..5_000)
            .map(|i| (i * 7919).to_be_bytes().to_vec())
            .collect();
        let p = SaltedRangePartitioner::learn("salted", 8, 5, 3, &warmup).unwrap();
        let probes = (0u64..20_000)
            .map(|i| (i * 1931).to_be_bytes().to_vec())
            .chain([vec![], b"abc".to_vec(), vec![0xff; 12]]);
        for key in probes {
            let salted = p.salt(&key);
            assert_eq!(
                p.range_index_of(&key),
                p.inner().range_index_of(&salted),
                "{key:?}"
            );
            assert_eq!(p.shard_of(&key), p.inner().shard_of(&salted));
        }
    }

    #[test]
    fn bucket_counts_outside_one_to_65536_are_refused() {
        assert!(SaltedRangePartitioner::learn("salted", 4, 0, 8, &[]).is_err());
        assert!(SaltedRangePartitioner::learn("salted", 4, 65_537, 8, &[]).is_err());
        assert!(SaltedRangePartitioner::learn("salted", 4, 65_536, 8, &[]).is_ok());
        assert!(SaltedRangePartitioner::learn("salted", 0, 4, 8, &[]).is_err());
    }
}
