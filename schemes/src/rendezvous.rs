//! Rendezvous (highest random weight) hashing (Thaler & Ravishankar, 1998), weighted by the
//! logarithmic method (Schindelhauer & Schomaker, 2005).
//!
//! Every shard scores every key and the highest score wins: `score = -w / ln(h)` where `h` in
//! (0, 1) is a hash of the key and the shard, so a shard's share is its weight's share. A new
//! shard wins exactly the keys it outscores (1/(N+1) of them at equal weights, all moving to
//! it) and a removed shard's keys go to their second-best shard; no other key moves. The cost
//! is O(N) per lookup: one hash and (when weighted) one logarithm per shard.

use workloads::xxh3_8::xxh3_64_of_8_bytes;
use workloads::Spec;

use super::identities::{ByIdentity, Identities};
use super::pinned_hash::hash64;
use super::weights::Weights;
use super::{BuildContext, SchemeKind};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// Registration of `rendezvous`.
pub const KIND: SchemeKind = SchemeKind {
    name: "rendezvous",
    about: "highest random weight, weighted (score -w/ln h); O(N) per lookup; a new shard \
            takes 1/(N+1) of the keys, a removal moves only the removed shard's keys",
    system: |_| None,
    params: &[],
    needs_warmup: |_| false,
    points: |_, shards| crate::Points::per_shard(shards),
    build,
    changing: None,
};

/// Builds `rendezvous` for `ctx.shards` shards, weighted by `ctx.weights` when given.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let weights = Weights::for_context(ctx)?;
    Ok(Box::new(RendezvousPartitioner::new(
        spec.to_string(),
        (0..ctx.shards).collect(),
        weights,
    )?))
}

/// The hash `h` of a key (its [`hash64`]) and a shard identity: XXH3-64 of the key hash's
/// 8 big-endian bytes with the identity as seed. Pinned like [`hash64`].
#[inline(always)]
pub fn score_hash(key_hash: u64, identity: u32) -> u64 {
    xxh3_64_of_8_bytes(&key_hash.to_be_bytes(), u64::from(identity))
}

/// `h` as a number in the open interval (0, 1): its top 53 bits plus one half, over 2^53.
#[inline(always)]
fn unit_interval(h: u64) -> f64 {
    ((h >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)
}

/// Rendezvous hashing over shards with fixed identities.
///
/// A shard's identity (its shard number when the scheme was built, or the next unused number
/// for shards added later) seeds its scores, so scores survive renumbering: removing shard
/// `j` renumbers the later shards but moves only `j`'s keys.
///
/// Growth and shrink rule: growing adds shards with new identities (weighted by the mean
/// weight); shrinking drops the last shards. Either way only keys of the added or dropped
/// shards move.
#[derive(Clone, Debug)]
pub struct RendezvousPartitioner {
    label: String,
    /// The identity and weight of every shard, by shard number.
    ids: Identities,
}

impl RendezvousPartitioner {
    /// Rendezvous over shards with these identities (at least one, distinct) and weights.
    pub fn new(
        label: impl Into<String>,
        identities: Vec<u32>,
        weights: Weights,
    ) -> Result<Self, AnalysisError> {
        Ok(RendezvousPartitioner {
            label: label.into(),
            ids: Identities::new(identities, weights)?,
        })
    }

    /// The score of shard `i` for a key with hash `key_hash`, as an order-preserving number:
    /// `h` itself at equal weights (`-1/ln h` grows with `h`), `-w/ln h` otherwise.
    #[inline(always)]
    fn score(&self, key_hash: u64, i: usize) -> f64 {
        let h = score_hash(key_hash, self.ids.ids()[i]);
        match self.ids.weights().get() {
            None => h as f64,
            Some(w) => -w[i] / unit_interval(h).ln(),
        }
    }

    /// The owner of a key with hash `key_hash`: the highest score, ties to the lower shard.
    #[inline]
    fn owner_of_hash(&self, key_hash: u64) -> ShardId {
        if self.ids.weights().get().is_none() {
            // Equal weights: the highest h, compared as integers (no logarithm).
            let mut best = (0u64, 0usize);
            for (i, &id) in self.ids.ids().iter().enumerate() {
                let h = score_hash(key_hash, id);
                if h > best.0 || i == 0 {
                    best = (h, i);
                }
            }
            return best.1 as ShardId;
        }
        let mut best = (f64::NEG_INFINITY, 0usize);
        for i in 0..self.ids.ids().len() {
            let s = self.score(key_hash, i);
            if s > best.0 {
                best = (s, i);
            }
        }
        best.1 as ShardId
    }
}

impl ByIdentity for RendezvousPartitioner {
    fn identities(&self) -> &Identities {
        &self.ids
    }

    fn rebuilt(&self, ids: Identities) -> Result<Self, AnalysisError> {
        Ok(RendezvousPartitioner {
            label: self.label.clone(),
            ids,
        })
    }
}

impl Partitioner for RendezvousPartitioner {
    /// Another placement: every key's hash redrawn ([`crate::placement::SaltedKeys`]).
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        Some(Box::new(crate::placement::SaltedKeys::new(self, salt)))
    }

    /// The shard identities and weights.
    fn router_bytes(&self) -> Option<u64> {
        let weights = self.ids.weights().get().map_or(0, super::slice_bytes);
        Some(super::slice_bytes(self.ids.ids()) + weights)
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.ids.count()
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.owner_of_hash(hash64(key))
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

    /// Drops the shard: its keys go to their second-best shard, no other key moves.
    fn without_shard(
        &self,
        shard: ShardId,
        _keys: &KeyCounts,
    ) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
        self.without_by_identity(shard)
    }

    /// The `rf` highest-scoring shards, best first (the owner is the best).
    fn replicas(&self, key: &[u8], rf: u32, out: &mut Vec<ShardId>) {
        let key_hash = hash64(key);
        let mut ranked: Vec<(f64, usize)> = (0..self.ids.ids().len())
            .map(|i| (self.score(key_hash, i), i))
            .collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        out.extend(ranked.iter().take(rf as usize).map(|&(_, i)| i as ShardId));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{keys, moved, moved_on_removal, shares};

    /// Rendezvous over `shards` shards with weights `w` (empty: equal).
    fn weighted(shards: u32, w: &[f64]) -> RendezvousPartitioner {
        let weights = Weights::new(w.to_vec()).unwrap();
        RendezvousPartitioner::new("rendezvous", (0..shards).collect(), weights).unwrap()
    }

    #[test]
    fn growth_moves_a_share_of_1_over_n_plus_1_all_to_the_new_shard() {
        let keys = keys(100_000);
        let p = weighted(16, &[]);
        let grown = p.resized(17, &KeyCounts::new()).unwrap();
        let (share, to_new) = moved(&p, grown.as_ref(), &keys, Some(16));
        // 1/17 = 0.0588; binomial sd over 100,000 keys is 0.00074.
        assert!((share - 1.0 / 17.0).abs() < 0.004, "{share}");
        assert_eq!(to_new, 1.0);
        // Balance at equal weights: every shard within 5% of 1/16.
        assert!(shares(&p, &keys)
            .iter()
            .all(|s| (s * 16.0 - 1.0).abs() < 0.05));
    }

    #[test]
    fn a_removal_moves_only_the_removed_shards_keys() {
        let keys = keys(50_000);
        let p = weighted(8, &[]);
        let smaller = p.without_shard(3, &KeyCounts::new()).unwrap().unwrap();
        assert_eq!(moved_on_removal(&p, smaller.as_ref(), &keys, 3), 0.0);
        let mut reps = Vec::new();
        p.replicas(&keys[0], 3, &mut reps);
        assert_eq!(reps[0], p.shard_of(&keys[0]));
        assert_eq!(reps.len(), 3);
    }

    #[test]
    fn weights_one_and_two_give_shares_one_third_and_two_thirds() {
        let keys = keys(100_000);
        let s = shares(&weighted(2, &[1.0, 2.0]), &keys);
        // Binomial sd over 100,000 keys: 0.0015.
        assert!((s[0] - 1.0 / 3.0).abs() < 0.008, "{s:?}");
        // Weighted scores agree with the unweighted order at equal weights.
        let equal = weighted(4, &[3.0; 4]);
        let plain = weighted(4, &[]);
        assert!(keys[..2000]
            .iter()
            .all(|k| equal.shard_of(k) == plain.shard_of(k)));
    }
}
