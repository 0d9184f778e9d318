//! AnchorHash (Mendelson, Vargaftik, Barabash, Lorenz, Keslassy & Orda, "AnchorHash: A
//! Scalable Consistent Hash", IEEE/ACM ToN 2021): consistent hashing with arbitrary removals
//! over a fixed capacity of A buckets, in a few arrays of A entries.
//!
//! A key first hashes to one of the A buckets; while that bucket is removed, it rehashes
//! among the buckets that were still working when it was removed, so a removal moves only
//! the removed bucket's keys and an addition (the last removed bucket coming back) takes back
//! exactly those. Growing N to N+1 moves 1/(N+1) of the keys, all to the new shard.
//!
//! Chosen over MementoHash: the acceptance names AnchorHash, and its state is fixed
//! at build time (A known up front), which suits a benchmark's fixed configuration. Memento
//! would need no capacity but its memory grows with the removals; its lookup is jump's.

use workloads::xxh3_8::{finish, key_part, seed_part};
use workloads::Spec;

use super::pinned_hash::hash64;
use super::{check_shard_count, weights, BuildContext, SchemeKind};
use crate::placement::{check_removable, renumbered};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// Capacity when `capacity` is not given: 1024 buckets, or 2N for larger clusters.
pub const DEFAULT_CAPACITY: u64 = 1024;

/// The largest capacity accepted (2^26 buckets: 5 arrays of 4 bytes and one of 8 each,
/// 1.75 GiB).
pub const MAX_CAPACITY: u64 = 1 << 26;

/// Registration of `anchor`.
pub const KIND: SchemeKind = SchemeKind {
    name: "anchor",
    about: "AnchorHash (Mendelson et al.); arbitrary removals move only the removed shard's \
            keys, a new shard takes 1/(N+1); at most `capacity` shards",
    system: |_| None,
    params: &[(
        "capacity",
        "buckets A, the most shards the scheme can ever hold (default 1024, or 2N when larger)",
    )],
    needs_warmup: |_| false,
    points: |spec, shards| {
        let default = DEFAULT_CAPACITY.max(2 * u64::from(shards));
        let capacity = crate::count_param(spec, "capacity", default);
        crate::Points::new(capacity, "capacity: one bucket each", "a smaller capacity")
    },
    build,
    changing: None,
};

/// Builds `anchor` for `ctx.shards` shards.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let label = spec.to_string();
    weights::refuse(ctx, &label, "every working bucket takes an equal share")?;
    let default = DEFAULT_CAPACITY.max(2 * u64::from(ctx.shards));
    let capacity = spec.u64_at_least("capacity", default, 1)?;
    if capacity > MAX_CAPACITY || capacity < u64::from(ctx.shards) {
        let message = format!(
            "capacity={capacity} must be between the shard count ({}) and {MAX_CAPACITY}",
            ctx.shards
        );
        return Err(spec.error(message).into());
    }
    Ok(Box::new(AnchorPartitioner::new(
        label,
        capacity as u32,
        ctx.shards,
    )?))
}

/// `hash` reduced to `0..n`: the high 64 bits of `hash * n` (no division).
#[inline(always)]
fn reduce(hash: u64, n: u32) -> u32 {
    ((u128::from(hash) * u128::from(n)) >> 64) as u32
}

/// AnchorHash state (the paper's Algorithm 3: arrays A, K, L, W and the stack R) plus the
/// shard number of every working bucket.
///
/// The key hash `h` is [`hash64`]; the first bucket is `h` reduced to `0..A`, and the
/// rehash in removed bucket `b` is XXH3-64 of `h`'s 8 big-endian bytes with seed `b + 1`,
/// reduced to `0..A[b]`. Pinned.
///
/// Growth and shrink rule: growing adds buckets (the paper's `AddBucket`: the most recently
/// removed comes back first) as new shards N, N+1, ...; shrinking removes the last shards'
/// buckets, last first. Removal removes that shard's bucket (`RemoveBucket`); the survivors
/// are renumbered in order.
#[derive(Clone, Debug)]
pub struct AnchorPartitioner {
    label: String,
    /// `A[b]`: 0 for a working bucket, else the number of working buckets left when it was
    /// removed.
    removed_at: Vec<u32>,
    /// `K[b]`: the bucket that replaced `b` in the working array when `b` was removed.
    successor: Vec<u32>,
    /// `W`: the working buckets (first N entries) in their working-array order.
    working: Vec<u32>,
    /// `L[b]`: the position of bucket `b` in the working array.
    last: Vec<u32>,
    /// `R`: removed buckets, the most recently removed on top.
    removed: Vec<u32>,
    /// The shard number of every working bucket (unused for removed ones).
    shard_of_bucket: Vec<ShardId>,
    /// The bucket of every shard.
    bucket_of_shard: Vec<u32>,
    /// Every bucket below this one works (it is the first removed bucket, or A): a rehash
    /// that lands below it ends the lookup without reading `A`.
    working_below: u32,
    /// The rehash seed's share of XXH3 in every bucket ([`seed_part`] of `b + 1`): a load
    /// instead of the seed's arithmetic on the chain of rehashes.
    rehash_seeds: Vec<u64>,
    /// Rehash steps taken without a branch on whether the key has arrived (see
    /// [`Self::bucket`]): about the expected number of steps plus one.
    fixed_steps: u32,
}

impl AnchorPartitioner {
    /// `shards` working buckets (shards 0..N are buckets 0..N) of `capacity` (at least N).
    pub fn new(
        label: impl Into<String>,
        capacity: u32,
        shards: u32,
    ) -> Result<Self, AnalysisError> {
        check_shard_count(shards)?;
        if capacity < shards {
            return Err(AnalysisError::Config(format!(
                "AnchorHash with capacity {capacity} cannot hold {shards} shards"
            )));
        }
        let all: Vec<u32> = (0..capacity).collect();
        let mut removed_at = vec![0; capacity as usize];
        // INITANCHOR: buckets A-1 down to N start removed, A[b] = b.
        let removed: Vec<u32> = (shards..capacity).rev().collect();
        for &b in &removed {
            removed_at[b as usize] = b;
        }
        Ok(AnchorPartitioner {
            label: label.into(),
            removed_at,
            successor: all.clone(),
            working: all.clone(),
            last: all.clone(),
            removed,
            shard_of_bucket: all,
            bucket_of_shard: (0..shards).collect(),
            rehash_seeds: (1..=u64::from(capacity)).map(seed_part).collect(),
            working_below: shards,
            fixed_steps: fixed_steps(capacity, shards),
        })
    }

    /// The paper's `GetBucket`: the working bucket of a key with hash `h`, and the bucket it
    /// hashed to first.
    ///
    /// The first [`Self::fixed_steps`] rehashes run whatever the key needs: a key already in
    /// a working bucket stays there (a select, not a branch). The number of steps is random
    /// (about ln(A/N)), so a loop that stops when the key arrives mispredicts its exit once
    /// per key, and the flush keeps the next key's hash from overlapping this key's chain of
    /// rehashes; without the branch, one key's steps run beside the next key's. At A = 1024,
    /// N = 16 (4.2 steps a key): 31 ns a key against 41 for the loop alone. The rare key
    /// that needs more steps finishes in the loop.
    #[inline(always)]
    fn bucket(&self, h: u64) -> (u32, u32) {
        let a = self.removed_at.as_slice();
        let first = reduce(h, a.len() as u32);
        let key = key_part(&h.to_be_bytes());
        let mut b = first;
        let mut removed_at = a[b as usize];
        for _ in 0..self.fixed_steps {
            let rehash = finish(key ^ self.rehash_seeds[b as usize]);
            // 0 when `b` works (`removed_at` is 0): the select below keeps `b` then.
            let mut next = reduce(rehash, removed_at);
            if (a[next as usize] >= removed_at) & (removed_at != 0) {
                next = self.working_in(next, removed_at);
            }
            b = if removed_at == 0 { b } else { next };
            removed_at = a[b as usize];
        }
        while removed_at != 0 {
            let rehash = finish(key ^ self.rehash_seeds[b as usize]);
            let next = reduce(rehash, removed_at);
            if next < self.working_below {
                return (next, first);
            }
            b = self.working_in(next, removed_at);
            removed_at = a[b as usize];
        }
        (b, first)
    }

    /// The bucket that stood at `next` in the working array when `removed_at` buckets were
    /// left (the paper's inner loop over `K`).
    #[inline(always)]
    fn working_in(&self, mut next: u32, removed_at: u32) -> u32 {
        while self.removed_at[next as usize] >= removed_at {
            next = self.successor[next as usize];
        }
        next
    }

    /// The paper's `AddBucket`: the most recently removed bucket works again, as shard N.
    fn add_bucket(&mut self) -> Result<(), AnalysisError> {
        let Some(b) = self.removed.pop() else {
            return Err(AnalysisError::Config(format!(
                "scheme '{}' holds at most {} shards (its capacity); give a larger \
                 anchor:capacity=A",
                self.label,
                self.removed_at.len()
            )));
        };
        let n = self.bucket_of_shard.len() as u32;
        self.removed_at[b as usize] = 0;
        self.last[self.working[n as usize] as usize] = n;
        self.working[self.last[b as usize] as usize] = b;
        self.successor[b as usize] = b;
        self.shard_of_bucket[b as usize] = n;
        self.bucket_of_shard.push(b);
        Ok(())
    }

    /// The paper's `RemoveBucket` for the bucket of `shard`; later shards are renumbered.
    fn remove_shard(&mut self, shard: ShardId) {
        let b = self.bucket_of_shard.remove(shard as usize);
        self.removed.push(b);
        let n = self.bucket_of_shard.len() as u32;
        self.removed_at[b as usize] = n;
        let moved = self.working[n as usize];
        self.working[self.last[b as usize] as usize] = moved;
        self.successor[b as usize] = moved;
        self.last[moved as usize] = self.last[b as usize];
        for &other in &self.bucket_of_shard[shard as usize..] {
            let s = &mut self.shard_of_bucket[other as usize];
            *s = renumbered(*s, shard);
        }
    }

    /// Sets [`Self::working_below`] and [`Self::fixed_steps`] after buckets were added or
    /// removed.
    fn with_working_below(mut self) -> Self {
        let removed = self.removed_at.iter().position(|&a| a > 0);
        self.working_below = removed.unwrap_or(self.removed_at.len()) as u32;
        self.fixed_steps = fixed_steps(self.removed_at.len() as u32, self.shard_count());
        self
    }
}

/// [`AnchorPartitioner::fixed_steps`] for `working` of `capacity` buckets: the expected
/// number of rehashes, ln(A/N), rounded up, plus one (measured at A = 1024, N = 16: 6 steps
/// 31 ns, 5 and 7 steps 33-35, 4 steps 39; at A = 32: 1 or 2 steps 11 ns, the loop 16).
fn fixed_steps(capacity: u32, working: u32) -> u32 {
    if capacity <= working {
        return 0;
    }
    (f64::from(capacity) / f64::from(working)).ln().ceil() as u32 + 1
}

impl Partitioner for AnchorPartitioner {
    /// Another placement: every key's hash redrawn ([`crate::placement::SaltedKeys`]).
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        Some(Box::new(crate::placement::SaltedKeys::new(self, salt)))
    }

    /// The arrays A, K, W, L, R, the bucket-shard maps and the rehash seeds.
    fn router_bytes(&self) -> Option<u64> {
        let arrays = [
            &self.removed_at,
            &self.successor,
            &self.working,
            &self.last,
            &self.removed,
            &self.shard_of_bucket,
            &self.bucket_of_shard,
        ];
        let arrays: u64 = arrays
            .iter()
            .map(|a| super::slice_bytes(a.as_slice()))
            .sum();
        Some(arrays + super::slice_bytes(self.rehash_seeds.as_slice()))
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.bucket_of_shard.len() as u32
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.shard_of_bucket[self.bucket(hash64(key)).0 as usize]
    }

    /// The working bucket of the key and the bucket it hashed to first.
    fn detail(&self, key: &[u8]) -> Option<String> {
        let (b, first) = self.bucket(hash64(key));
        Some(format!("bucket={b} first={first}"))
    }

    /// Every shard (see [`super::scan_every_shard`]).
    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        super::scan_every_shard(self, start, end, out);
    }

    fn resized(
        &self,
        shards: u32,
        _keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        check_shard_count(shards)?;
        let mut next = self.clone();
        while next.shard_count() < shards {
            next.add_bucket()?;
        }
        while next.shard_count() > shards {
            next.remove_shard(next.shard_count() - 1);
        }
        Ok(Box::new(next.with_working_below()))
    }

    /// Removes the shard's bucket: its keys rehash among the survivors, no other key moves.
    fn without_shard(
        &self,
        shard: ShardId,
        _keys: &KeyCounts,
    ) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
        check_removable(shard, self.shard_count())?;
        let mut next = self.clone();
        next.remove_shard(shard);
        Ok(Some(Box::new(next.with_working_below())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{keys, moved, moved_on_removal, shares};
    use workloads::xxh3_8::xxh3_64_of_8_bytes;

    #[test]
    fn the_lookup_is_the_papers_get_bucket() {
        // GetBucket as the paper writes it, every rehash through the whole XXH3: the lookup
        // (seed shares from a table, steps without a branch, an early stop below the first
        // removed bucket) agrees, whatever the number of steps taken without a branch.
        fn get_bucket(p: &AnchorPartitioner, h: u64) -> u32 {
            let a = &p.removed_at;
            let mut b = reduce(h, a.len() as u32);
            while a[b as usize] > 0 {
                let rehash = xxh3_64_of_8_bytes(&h.to_be_bytes(), u64::from(b) + 1);
                let mut next = reduce(rehash, a[b as usize]);
                while a[next as usize] >= a[b as usize] {
                    next = p.successor[next as usize];
                }
                b = next;
            }
            b
        }
        let start = AnchorPartitioner::new("anchor", 1024, 16).unwrap();
        let mut removed = start.clone();
        removed.remove_shard(3);
        removed.remove_shard(0);
        let mut grown = removed.clone();
        (0..5).for_each(|_| grown.add_bucket().unwrap());
        // Many removals in a small capacity: keys follow `K` in the steps without a branch.
        let mut small = AnchorPartitioner::new("anchor", 64, 40).unwrap();
        for shard in [5, 30, 0, 17, 2, 33, 9, 20] {
            small.remove_shard(shard);
        }
        small.add_bucket().unwrap();
        let layouts = [
            start,
            removed.with_working_below(),
            grown.with_working_below(),
            small.with_working_below(),
            AnchorPartitioner::new("anchor", 16, 16).unwrap(),
        ];
        for p in &layouts {
            let mut steps = p.clone();
            for fixed_steps in [p.fixed_steps, 0, 1, 3, 9] {
                steps.fixed_steps = fixed_steps;
                for key in keys(20_000) {
                    let h = hash64(&key);
                    assert_eq!(steps.bucket(h).0, get_bucket(p, h));
                }
            }
        }
        assert_eq!(layouts.map(|p| p.fixed_steps), [6, 6, 5, 2, 0]);
    }

    #[test]
    fn growth_moves_a_share_of_1_over_n_plus_1_all_to_the_new_shard() {
        let keys = keys(100_000);
        let p = AnchorPartitioner::new("anchor", 1024, 16).unwrap();
        assert!(shares(&p, &keys)
            .iter()
            .all(|s| (s * 16.0 - 1.0).abs() < 0.05));
        let grown = p.resized(17, &KeyCounts::new()).unwrap();
        let (share, to_new) = moved(&p, grown.as_ref(), &keys, Some(16));
        assert!((share - 1.0 / 17.0).abs() < 0.004, "{share}");
        assert_eq!(to_new, 1.0);
    }

    #[test]
    fn removals_move_only_the_removed_shards_keys_and_adding_back_restores_them() {
        let keys = keys(50_000);
        let p = AnchorPartitioner::new("anchor", 64, 10).unwrap();
        let none = KeyCounts::new();
        let a = p.without_shard(3, &none).unwrap().unwrap();
        assert_eq!(moved_on_removal(&p, a.as_ref(), &keys, 3), 0.0);
        let b = a.without_shard(6, &none).unwrap().unwrap();
        assert_eq!(moved_on_removal(a.as_ref(), b.as_ref(), &keys, 6), 0.0);
        // The survivors share the keys evenly: 8 shards within 5% of 1/8.
        assert!(shares(b.as_ref(), &keys)
            .iter()
            .all(|s| (s * 8.0 - 1.0).abs() < 0.05));
        // Shrinking by the last shard and growing back gives the same owners.
        let back = p.resized(9, &none).unwrap().resized(10, &none).unwrap();
        assert!(keys.iter().all(|k| back.shard_of(k) == p.shard_of(k)));
    }

    #[test]
    fn the_capacity_bounds_growth_with_a_clear_error() {
        let p = AnchorPartitioner::new("anchor:capacity=4", 4, 3).unwrap();
        assert_eq!(p.resized(4, &KeyCounts::new()).unwrap().shard_count(), 4);
        let err = p.resized(5, &KeyCounts::new()).err().unwrap().to_string();
        assert!(
            err.contains("at most 4 shards") && err.contains("anchor:capacity"),
            "{err}"
        );
    }
}
