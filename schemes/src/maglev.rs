//! Maglev hashing (Eisenbud et al., "Maglev: A Fast and Reliable Software Network Load
//! Balancer", NSDI 2016): a lookup table of M slots (M prime) filled by the shards in turn,
//! each taking the next free slot of its own permutation of the table.
//!
//! Shard `i`'s permutation is `(offset + j * skip) mod M` for `j = 0, 1, ...`, with `offset`
//! and `skip` hashed from its identity; the table is the paper's `Populate`. Slots per shard
//! differ by at most one, a lookup is one hash and one table read, and a growth or removal
//! rebuilt on the same M moves little more than the keys it must (the table is not perfectly
//! consistent: a few slots of unaffected shards change hands too).

use workloads::Spec;

use super::identities::{ByIdentity, Identities};
use super::pinned_hash::hash64;
use super::weights::Weights;
use super::{BuildContext, SchemeKind};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// Table size when `table` is not given (the paper's).
pub const DEFAULT_TABLE: u64 = 65_537;

/// The largest table accepted (2^24 slots of 4 bytes: 64 MiB).
pub const MAX_TABLE: u64 = 1 << 24;

/// Registration of `maglev`.
pub const KIND: SchemeKind = SchemeKind {
    name: "maglev",
    about: "Maglev lookup table (Eisenbud et al.); one table read per key, slots per shard \
            differ by at most 1, weighted by population",
    system: |_| None,
    params: &[(
        "table",
        "table size M, a prime above the shard count, at most 4194304 slots (the points a \
         scheme may hold; default 65537)",
    )],
    needs_warmup: |_| false,
    points: |spec, _| {
        let table = crate::count_param(spec, "table", DEFAULT_TABLE);
        crate::Points::new(
            table,
            "table slots",
            "a smaller table (a prime above the shard count)",
        )
    },
    build,
    changing: None,
};

/// Builds `maglev` for `ctx.shards` shards, weighted by `ctx.weights` when given.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let table = spec.u64_at_least("table", DEFAULT_TABLE, 2)?;
    if table > MAX_TABLE || !is_prime(table) {
        let message = format!("table={table} must be a prime of at most {MAX_TABLE}, e.g. 65537");
        return Err(spec.error(message).into());
    }
    if table <= u64::from(ctx.shards) {
        let message = format!(
            "table={table} must exceed the shard count ({}); Maglev gives every shard slots",
            ctx.shards
        );
        return Err(spec.error(message).into());
    }
    let weights = Weights::for_context(ctx)?;
    Ok(Box::new(MaglevPartitioner::new(
        spec.to_string(),
        table as u32,
        (0..ctx.shards).collect(),
        weights,
    )?))
}

/// True when `n` is prime (trial division; `n` is at most [`MAX_TABLE`]).
pub fn is_prime(n: u64) -> bool {
    n >= 2
        && (2..)
            .take_while(|d| d * d <= n)
            .all(|d| !n.is_multiple_of(d))
}

/// The smallest prime above `n`.
pub fn next_prime(n: u64) -> u64 {
    (n + 1..).find(|&p| is_prime(p)).unwrap_or(n)
}

/// The `(offset, skip)` of the permutation of the shard with this identity in a table of
/// `m` slots: `offset = h1 mod M`, `skip = h2 mod (M - 1) + 1`, where h1 and h2 are
/// [`hash64`] of the identity's 8 big-endian bytes times 2 and times 2 plus 1. Pinned.
pub fn permutation(identity: u32, m: u32) -> (u32, u32) {
    let h1 = hash64(&(u64::from(identity) << 1).to_be_bytes());
    let h2 = hash64(&((u64::from(identity) << 1) | 1).to_be_bytes());
    (
        (h1 % u64::from(m)) as u32,
        (h2 % u64::from(m - 1)) as u32 + 1,
    )
}

/// The paper's `Populate` (Pseudocode 1): shard `i` in turn takes the next free slot of its
/// permutation until all `m` slots are taken. With weights, a shard takes its turn in round
/// `r` only while it holds fewer than `r * w / w_max` slots, so slots follow the weights (the
/// heaviest shard takes one slot every round). `m` must be prime and above the number of
/// shards, and every skip in `1..m`, so that each permutation visits every slot.
///
/// Hand-written: the algorithm is the paper's dozen lines, and its exact order of turns is
/// what makes tables reproducible.
pub fn populate(perms: &[(u32, u32)], weights: Option<&[f64]>, m: u32) -> Vec<u32> {
    const EMPTY: u32 = u32::MAX;
    let mut entry = vec![EMPTY; m as usize];
    let mut next = vec![0u64; perms.len()];
    let mut taken = vec![0u64; perms.len()];
    let w_max = weights.map_or(1.0, |w| w.iter().copied().fold(0.0, f64::max));
    let (mut filled, mut round) = (0u32, 0u64);
    loop {
        round += 1;
        for (i, &(offset, skip)) in perms.iter().enumerate() {
            if let Some(w) = weights {
                if taken[i] as f64 >= round as f64 * w[i] / w_max {
                    continue;
                }
            }
            let slot = |j: u64| ((u64::from(offset) + j * u64::from(skip)) % u64::from(m)) as usize;
            let mut c = slot(next[i]);
            while entry[c] != EMPTY {
                next[i] += 1;
                c = slot(next[i]);
            }
            entry[c] = i as u32;
            next[i] += 1;
            taken[i] += 1;
            filled += 1;
            if filled == m {
                return entry;
            }
        }
    }
}

/// The slot of a key hash in a table of `m` slots: the high 64 bits of `hash * m` (Lemire's
/// multiply-shift reduction: as even as `hash mod m`, without a division).
#[inline(always)]
fn slot_of(hash: u64, m: u32) -> usize {
    ((u128::from(hash) * u128::from(m)) >> 64) as usize
}

/// A Maglev table over shards with fixed identities.
///
/// Growth and shrink rule: the table is rebuilt on the same M with the new shards (new
/// identities) or without the last ones; when M no longer exceeds the shard count it becomes
/// the smallest prime above 100 x the new count (as the `hash-rings` crate does), which moves
/// almost every key. Removal rebuilds the table without the shard; the others keep their
/// identities and permutations.
#[derive(Clone, Debug)]
pub struct MaglevPartitioner {
    label: String,
    ids: Identities,
    /// The owner of every slot.
    entries: Vec<u32>,
}

impl MaglevPartitioner {
    /// The table of `m` slots (prime, above the shard count) for shards with these
    /// identities (at least one) and weights.
    pub fn new(
        label: impl Into<String>,
        m: u32,
        identities: Vec<u32>,
        weights: Weights,
    ) -> Result<Self, AnalysisError> {
        let ids = Identities::new(identities, weights)?;
        if !is_prime(u64::from(m)) || m <= ids.count() {
            return Err(AnalysisError::Config(format!(
                "a Maglev table of {m} slots for {} shards: the size must be a prime above \
                 the shard count",
                ids.count()
            )));
        }
        let perms: Vec<(u32, u32)> = ids.ids().iter().map(|&id| permutation(id, m)).collect();
        let entries = populate(&perms, ids.weights().get(), m);
        Ok(MaglevPartitioner {
            label: label.into(),
            ids,
            entries,
        })
    }

    /// The owner of every slot.
    pub fn entries(&self) -> &[u32] {
        &self.entries
    }
}

impl ByIdentity for MaglevPartitioner {
    fn identities(&self) -> &Identities {
        &self.ids
    }

    /// This table rebuilt for these identities and weights, on the same M while it exceeds
    /// the shard count.
    fn rebuilt(&self, ids: Identities) -> Result<Self, AnalysisError> {
        let mut m = self.entries.len() as u32;
        if m <= ids.count() {
            m = next_prime(100 * u64::from(ids.count())).min(u64::from(u32::MAX)) as u32;
        }
        let (identities, weights) = (ids.ids().to_vec(), ids.weights().clone());
        Self::new(self.label.clone(), m, identities, weights)
    }
}

impl Partitioner for MaglevPartitioner {
    /// Another placement: every key's hash redrawn ([`crate::placement::SaltedKeys`]).
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        Some(Box::new(crate::placement::SaltedKeys::new(self, salt)))
    }

    /// The table of M owners and the shard identities.
    fn router_bytes(&self) -> Option<u64> {
        Some(super::slice_bytes(&self.entries) + super::slice_bytes(self.ids.ids()))
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.ids.count()
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.entries[slot_of(hash64(key), self.entries.len() as u32)]
    }

    /// The table slot of the key.
    fn detail(&self, key: &[u8]) -> Option<String> {
        let slot = slot_of(hash64(key), self.entries.len() as u32);
        Some(format!("slot={slot}"))
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
        self.resized_by_identity(shards)
    }

    fn without_shard(
        &self,
        shard: ShardId,
        _keys: &KeyCounts,
    ) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
        self.without_by_identity(shard)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{keys, moved, moved_on_removal, shares};

    #[test]
    fn the_papers_example_table_is_reproduced_before_and_after_a_removal() {
        // Eisenbud et al. 2016, Table 1: M = 7, B0 (3, 4), B1 (0, 2), B2 (3, 1).
        let before = populate(&[(3, 4), (0, 2), (3, 1)], None, 7);
        assert_eq!(before, [1, 0, 1, 0, 2, 2, 0]);
        // After B1 is removed: B0 B0 B0 B0 B2 B2 B2 (B2 is now shard 1).
        let after = populate(&[(3, 4), (3, 1)], None, 7);
        assert_eq!(after, [0, 0, 0, 0, 1, 1, 1]);
    }

    #[test]
    fn slots_per_shard_differ_by_at_most_one() {
        for shards in [3u32, 16, 100] {
            let p =
                MaglevPartitioner::new("maglev", 65_537, (0..shards).collect(), Weights::equal())
                    .unwrap();
            let mut counts = vec![0u32; shards as usize];
            p.entries().iter().for_each(|&e| counts[e as usize] += 1);
            let (lo, hi) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
            assert!(hi - lo <= 1, "{shards}: {lo}..{hi}");
        }
    }

    #[test]
    fn growth_on_the_same_table_moves_little_more_than_the_new_shards_share() {
        let keys = keys(100_000);
        let p =
            MaglevPartitioner::new("maglev", 65_537, (0..16).collect(), Weights::equal()).unwrap();
        let grown = p.resized(17, &KeyCounts::new()).unwrap();
        let (share, to_new) = moved(&p, grown.as_ref(), &keys, Some(16));
        // The paper: Maglev is near-consistent; the new shard takes 1/17 = 0.059.
        assert!(share > 0.055 && share < 0.09, "{share}");
        assert!(to_new > 0.6, "{to_new}");
        let removed = p.without_shard(5, &KeyCounts::new()).unwrap().unwrap();
        // Beyond the removed shard's 1/16, a few slots of the others change hands.
        let others = moved_on_removal(&p, removed.as_ref(), &keys, 5);
        assert!(others < 0.03, "{others}");
        // A table too small for the growth is replaced: almost every key moves.
        let small =
            MaglevPartitioner::new("maglev", 17, (0..16).collect(), Weights::equal()).unwrap();
        let (share, _) = moved(
            &small,
            small.resized(17, &KeyCounts::new()).unwrap().as_ref(),
            &keys,
            None,
        );
        assert!(share > 0.8, "{share}");
    }

    #[test]
    fn weights_one_and_two_give_a_third_and_two_thirds_of_the_slots() {
        let w = Weights::new(vec![1.0, 2.0]).unwrap();
        let p = MaglevPartitioner::new("maglev", 65_537, vec![0, 1], w).unwrap();
        let s = shares(&p, &keys(60_000));
        assert!((s[0] - 1.0 / 3.0).abs() < 0.01, "{s:?}");
    }

    #[test]
    fn bad_tables_are_refused() {
        let ctx = crate::testing::ctx(16);
        for (spec, want) in [
            ("maglev:table=65536", "must be a prime"),
            ("maglev:table=13", "must exceed the shard count (16)"),
        ] {
            let err = build(&Spec::parse(spec).unwrap(), &ctx)
                .err()
                .unwrap()
                .to_string();
            assert!(err.contains(want), "{spec}: {err}");
        }
        assert!(is_prime(65_537) && !is_prime(65_535) && next_prime(1600) == 1601);
    }
}
