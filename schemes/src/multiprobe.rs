//! Multi-probe consistent hashing (Appleton & O'Reilly, "Multi-probe consistent hashing",
//! 2015): one point per shard on the ring, and K probes per key instead of many virtual
//! nodes per shard.
//!
//! Each key is hashed to K ring positions; each probe's distance is the clockwise gap to the
//! next point, and the key belongs to the point nearest any probe. With 21 probes the busiest
//! shard holds about 1.05 times the mean, as a ring needs hundreds of vnodes per shard to do,
//! in N points of memory. A new shard's point takes only keys it is now nearest to (all
//! moving to it); a removed point's keys go to their next-nearest point and nothing else
//! moves.

use workloads::xxh3_8::xxh3_64_of_8_bytes;
use workloads::Spec;

use super::identities::{ByIdentity, Identities};
use super::pinned_hash::hash64;
use super::ring::vnode_position;
use super::weights::{self, Weights};
use super::{BuildContext, SchemeKind};
use crate::layout::RadixIndex;
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// Probes per key when `probes` is not given (the paper's choice for a 1.05 peak-to-mean).
pub const DEFAULT_PROBES: u64 = 21;

/// The most probes accepted.
pub const MAX_PROBES: u64 = 1024;

/// Registration of `multiprobe`.
pub const KIND: SchemeKind = SchemeKind {
    name: "multiprobe",
    about: "multi-probe consistent hashing (Appleton & O'Reilly); one point per shard, K probes \
            per key; a new shard takes about 1/(N+1) of the keys",
    system: |_| None,
    params: &[("probes", "probes per key, 1..=1024 (default 21)")],
    needs_warmup: |_| false,
    points: |_, shards| crate::Points::per_shard(shards),
    build,
    changing: None,
};

/// Builds `multiprobe` for `ctx.shards` shards.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let label = spec.to_string();
    weights::refuse(ctx, &label, "every shard has one point and one share")?;
    let probes = spec.u64_at_least("probes", DEFAULT_PROBES, 1)?;
    if probes > MAX_PROBES {
        let message = format!("probes={probes} must be at most {MAX_PROBES}");
        return Err(spec.error(message).into());
    }
    Ok(Box::new(MultiProbePartitioner::new(
        label,
        (0..ctx.shards).collect(),
        probes as u32,
    )?))
}

/// Multi-probe hashing over shards with fixed identities.
///
/// Shard identity `s` has its point at [`vnode_position`]`(s, 0)` (where `ring` puts its
/// first vnode). Probe `k` of a key is `h1 + k * h2` (wrapping), with `h1` = [`hash64`] of
/// the key and `h2` = XXH3-64 of `h1`'s 8 big-endian bytes with seed 1, forced odd (double
/// hashing, as in Gryski's `go-mpchash`). Ties in distance go to the earlier probe.
///
/// Growth and shrink rule: new shards add their point (new identities); shrinking drops the
/// points of the last shards.
#[derive(Clone, Debug)]
pub struct MultiProbePartitioner {
    label: String,
    ids: Identities,
    probes: u32,
    /// The point positions in ring order, for the search.
    positions: RadixIndex,
    /// Sorted point positions and their shard, in ring order.
    points: Vec<(u64, ShardId)>,
}

impl MultiProbePartitioner {
    /// Points for shards with these identities (at least one, distinct), `probes` per key.
    pub fn new(
        label: impl Into<String>,
        identities: Vec<u32>,
        probes: u32,
    ) -> Result<Self, AnalysisError> {
        let ids = Identities::new(identities, Weights::equal())?;
        let mut points: Vec<(u64, ShardId)> = ids
            .ids()
            .iter()
            .enumerate()
            .map(|(i, &id)| (vnode_position(id, 0), i as ShardId))
            .collect();
        points.sort_unstable();
        let positions: Vec<u64> = points.iter().map(|p| p.0).collect();
        Ok(MultiProbePartitioner {
            label: label.into(),
            ids,
            probes: probes.max(1),
            positions: RadixIndex::new(&positions),
            points,
        })
    }

    /// The index of the point nearest any probe of a key with hash `h1`, and that probe.
    #[inline]
    fn nearest(&self, h1: u64) -> (usize, u32) {
        let h2 = xxh3_64_of_8_bytes(&h1.to_be_bytes(), 1) | 1;
        let mut best = (u64::MAX, 0usize, 0u32);
        let mut probe = h1;
        for k in 0..self.probes {
            let i = self.positions.rank_lt(probe);
            let i = if i == self.points.len() { 0 } else { i };
            let distance = self.points[i].0.wrapping_sub(probe);
            if distance < best.0 {
                best = (distance, i, k);
            }
            probe = probe.wrapping_add(h2);
        }
        (best.1, best.2)
    }
}

impl ByIdentity for MultiProbePartitioner {
    fn identities(&self) -> &Identities {
        &self.ids
    }

    fn rebuilt(&self, ids: Identities) -> Result<Self, AnalysisError> {
        Self::new(self.label.clone(), ids.ids().to_vec(), self.probes)
    }
}

impl Partitioner for MultiProbePartitioner {
    /// Another placement: every key's hash redrawn ([`crate::placement::SaltedKeys`]).
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        Some(Box::new(crate::placement::SaltedKeys::new(self, salt)))
    }

    /// The points and the search index over them.
    fn router_bytes(&self) -> Option<u64> {
        Some(super::slice_bytes(&self.points) + self.positions.heap_bytes() as u64)
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.ids.count()
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.points[self.nearest(hash64(key)).0].1
    }

    /// The winning probe and the position of the point it reached.
    fn detail(&self, key: &[u8]) -> Option<String> {
        let (i, k) = self.nearest(hash64(key));
        Some(format!("probe={k} point={:#018x}", self.points[i].0))
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

    /// Drops the shard's point: its keys go to their next-nearest point, no other key moves.
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
    fn twenty_one_probes_keep_the_busiest_shard_near_1_05_of_the_mean() {
        let keys = keys(400_000);
        let p = MultiProbePartitioner::new("multiprobe", (0..16).collect(), 21).unwrap();
        let hottest = shares(&p, &keys).into_iter().fold(0.0, f64::max) * 16.0;
        // The paper's 1.05, plus sampling noise (sd of a share ratio: 0.006 here).
        assert!(hottest < 1.10, "{hottest}");
        // One probe is a ring with one point per shard: far worse.
        let one = MultiProbePartitioner::new("multiprobe", (0..16).collect(), 1).unwrap();
        let one_probe = shares(&one, &keys).into_iter().fold(0.0, f64::max) * 16.0;
        assert!(one_probe > 1.5, "{one_probe}");
    }

    #[test]
    fn growth_moves_keys_only_to_the_new_shard_and_removal_only_the_removed_ones() {
        let keys = keys(100_000);
        let p = MultiProbePartitioner::new("multiprobe", (0..16).collect(), 21).unwrap();
        let grown = p.resized(17, &KeyCounts::new()).unwrap();
        let (share, to_new) = moved(&p, grown.as_ref(), &keys, Some(16));
        assert!((share - 1.0 / 17.0).abs() < 0.015, "{share}");
        assert_eq!(to_new, 1.0);
        let smaller = p.without_shard(7, &KeyCounts::new()).unwrap().unwrap();
        assert_eq!(moved_on_removal(&p, smaller.as_ref(), &keys, 7), 0.0);
    }
}
