//! Mod-N hash partitioning: `hash64(key) % N`.
//!
//! Load spreads evenly at a fixed size, every scan contacts every shard, and resizing moves
//! almost every key: from N to N+1 shards a key stays only when `h % N == h % (N+1)`, which
//! holds for N of every N(N+1) hash values, so N/(N+1) of the keys move (16 -> 17: 0.941).

use workloads::Spec;

mod placement;

use super::pinned_hash::{hash64, reduce};
use super::{check_shard_count, BuildContext, SchemeKind};
use crate::{AnalysisError, KeyCounts, Partitioner, RemovalEffect, ShardId, ShardSet};

/// Registration of `hash`.
pub const KIND: SchemeKind = SchemeKind {
    name: "hash",
    about:
        "hash64(key) mod N; even spread, every scan contacts every shard, most keys move on resize",
    system: |_| None,
    params: &[],
    needs_warmup: |_| false,
    points: |_, _| crate::Points::NONE,
    build,
    changing: None,
};

/// Builds `hash` for `ctx.shards` shards.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    super::weights::refuse(
        ctx,
        &spec.to_string(),
        "mod-N gives every shard an equal share",
    )?;
    Ok(Box::new(ModHashPartitioner::new(
        spec.to_string(),
        ctx.shards,
    )?))
}

/// Owner = [`hash64`]`(key) % N`.
///
/// Growth and shrink rule: the same formula with the new shard count.
#[derive(Clone, Debug)]
pub struct ModHashPartitioner {
    label: String,
    shards: u32,
}

impl ModHashPartitioner {
    /// A mod-N partitioner over `shards` shards (at least 1).
    pub fn new(label: impl Into<String>, shards: u32) -> Result<Self, AnalysisError> {
        check_shard_count(shards)?;
        Ok(ModHashPartitioner {
            label: label.into(),
            shards,
        })
    }
}

impl Partitioner for ModHashPartitioner {
    /// Another placement: every key's hash redrawn ([`crate::placement::SaltedKeys`]).
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        Some(Box::new(crate::placement::SaltedKeys::new(self, salt)))
    }

    /// No structure: the owner is arithmetic.
    fn router_bytes(&self) -> Option<u64> {
        Some(0)
    }

    fn without_shard(
        &self,
        shard: ShardId,
        _keys: &KeyCounts,
    ) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
        Ok(Some(Box::new(self.without(shard)?)))
    }

    /// Mod-N rehashes every key onto the survivors, whichever shard left.
    fn removal_effect(&self) -> RemovalEffect {
        RemovalEffect::Symmetric
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.shards
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        reduce(hash64(key), self.shards) as ShardId
    }

    fn uses_placement_hash(&self) -> bool {
        true
    }

    fn shards_of_hashed(&self, _keys: &[&[u8]], hashes: &[u64], out: &mut Vec<ShardId>) {
        out.extend(hashes.iter().map(|&h| reduce(h, self.shards) as ShardId));
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
        Ok(Box::new(ModHashPartitioner::new(
            self.label.clone(),
            shards,
        )?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owner_is_the_pinned_hash_mod_n() {
        let p = ModHashPartitioner::new("hash", 7).unwrap();
        // 0x9fdc8e44c5b9267c % 7, from the pinned value of hash64(b"user42").
        assert_eq!(
            p.shard_of(b"user42"),
            (0x9fdc_8e44_c5b9_267c_u64 % 7) as ShardId
        );
        let mut out = ShardSet::new(7);
        p.scan_shards(b"a", b"b", &mut out);
        assert_eq!(out.len(), 7);
        out.clear();
        p.scan_shards(b"b", b"a", &mut out);
        assert_eq!(out.iter().collect::<Vec<_>>(), [p.shard_of(b"b")]);
        assert!(ModHashPartitioner::new("hash", 0).is_err());
        assert!(p.resized(0, &KeyCounts::new()).is_err());
        assert_eq!(p.resized(9, &KeyCounts::new()).unwrap().shard_count(), 9);
    }
}
