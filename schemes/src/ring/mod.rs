//! Consistent hashing with virtual nodes.
//!
//! Each shard places `vnodes` points on a 64-bit ring; a key belongs to the first point after
//! `hash64(key)` ([`key_position`]), wrapping past the top. A point's position depends only on its shard
//! and vnode number, so adding shards never moves existing points: a key that moves always
//! moves to a new shard, and one new shard out of N+1 takes about 1/(N+1) of the keys.

use workloads::Spec;

mod placement;

use super::pinned_hash::hash64;
use super::{check_shard_count, BuildContext, SchemeKind};
use crate::layout::RadixIndex;
use crate::{AnalysisError, KeyCounts, Partitioner, RemovalEffect, ShardId, ShardSet};

/// Virtual nodes per shard when `vnodes` is not given.
pub const DEFAULT_VNODES: u64 = 256;

/// The largest `vnodes` accepted (the ring holds `N * vnodes` points).
pub const MAX_VNODES: u64 = 65_536;

/// Registration of `ring`.
pub const KIND: SchemeKind = SchemeKind {
    name: "ring",
    about: "consistent hashing with virtual nodes; a new shard takes about 1/(N+1) of the keys",
    system: |_| None,
    params: &[("vnodes", "virtual nodes per shard, 1..=65536 (default 256)")],
    needs_warmup: |_| false,
    points: |spec, shards| crate::Points::vnodes(spec, shards, DEFAULT_VNODES),
    build,
    changing: None,
};

/// Builds `ring` for `ctx.shards` shards.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let vnodes = spec.u64_at_least("vnodes", DEFAULT_VNODES, 1)?;
    if vnodes > MAX_VNODES {
        let message = format!("vnodes={vnodes} must be at most {MAX_VNODES}");
        return Err(spec.error(message).into());
    }
    let weights = super::weights::Weights::for_context(ctx)?;
    Ok(Box::new(RingPartitioner::weighted(
        spec.to_string(),
        ctx.shards,
        vnodes as u32,
        weights.get(),
    )?))
}

/// Ring position of virtual node `vnode` of `shard`: [`hash64`] of the 8 bytes `shard` (u32
/// big-endian) followed by `vnode` (u32 big-endian). Pinned like the hash itself.
pub fn vnode_position(shard: ShardId, vnode: u32) -> u64 {
    let mut bytes = [0u8; 8];
    bytes[..4].copy_from_slice(&shard.to_be_bytes());
    bytes[4..].copy_from_slice(&vnode.to_be_bytes());
    hash64(&bytes)
}

/// Where the owner of a key whose hash is `hash` is looked up: one past the hash, so the key
/// belongs to the first point strictly after it (wrapping). A point's position is the hash of
/// 8 bytes that are also the u64 key `shard x 2^32 + vnode` ([`vnode_position`]): looked up
/// at or after its hash, every such key (keys 0..vnodes-1 for shard 0) would sit on a point of
/// one shard, and the small integer keys of a trace would all belong to shard 0.
#[inline]
pub fn key_position(hash: u64) -> u64 {
    hash.wrapping_add(1)
}

/// A consistent-hash ring: points `(position, shard)` sorted by position.
///
/// Growth and shrink rule: resizing from N to M shards keeps every point of shards below
/// min(N, M) where it is and adds `vnodes` points for each new shard N..M-1. On growth every
/// key that moves, moves to a new shard (about (M-N)/M of the keys); on shrink only the keys
/// of the removed shards move, each to the next surviving point clockwise.
#[derive(Clone, Debug)]
pub struct RingPartitioner {
    label: String,
    shards: u32,
    /// Points added per new shard on growth.
    vnodes: u32,
    points: Vec<(u64, ShardId)>,
    /// The point positions, for the search (see [`crate::layout`]).
    positions: RadixIndex,
    /// The shard of every point, in ring order (`points[i].1`), next to nothing else so that
    /// a lookup touches one small array after the search.
    owners: Vec<ShardId>,
}

impl RingPartitioner {
    /// A ring of `shards` shards with `vnodes` points each (both at least 1).
    pub fn new(label: impl Into<String>, shards: u32, vnodes: u32) -> Result<Self, AnalysisError> {
        check_shard_count(shards)?;
        if vnodes == 0 {
            return Err(AnalysisError::Config(
                "a ring needs at least 1 vnode per shard".into(),
            ));
        }
        let mut points = Vec::with_capacity(shards as usize * vnodes as usize);
        add_vnodes(&mut points, 0..shards, vnodes);
        Self::from_sorted(label.into(), shards, vnodes, points)
    }

    /// A ring of `shards` shards whose vnodes follow `weights` (one per shard; `None`: equal):
    /// shard `i` gets `max(1, round(vnodes x N x w_i / W))` points, so its share of the ring
    /// is its weight's share up to the spread of the points. Growth adds `vnodes` points per
    /// new shard (the mean weight).
    pub fn weighted(
        label: impl Into<String>,
        shards: u32,
        vnodes: u32,
        weights: Option<&[f64]>,
    ) -> Result<Self, AnalysisError> {
        let Some(weights) = weights else {
            return Self::new(label, shards, vnodes);
        };
        check_shard_count(shards)?;
        let total: f64 = weights.iter().sum();
        let mut points = Vec::new();
        for (shard, w) in (0..shards).zip(weights) {
            let count = (f64::from(vnodes) * f64::from(shards) * w / total).round();
            let count = count.clamp(1.0, MAX_VNODES as f64) as u32;
            add_vnodes(&mut points, shard..shard + 1, count);
        }
        Self::from_sorted(label.into(), shards, vnodes.max(1), points)
    }

    /// A ring from hand-placed points `(position, shard)`, in any order; every shard must be
    /// below `shards` and there must be at least one point. Growth adds
    /// `max(1, points / shards)` vnodes per new shard.
    pub fn from_points(
        label: impl Into<String>,
        shards: u32,
        points: Vec<(u64, ShardId)>,
    ) -> Result<Self, AnalysisError> {
        check_shard_count(shards)?;
        if let Some(&(at, s)) = points.iter().find(|(_, s)| *s >= shards) {
            let message = format!("the point at {at} names shard {s} of only {shards} shards");
            return Err(AnalysisError::Config(message));
        }
        let vnodes = (points.len() / shards as usize).clamp(1, MAX_VNODES as usize) as u32;
        Self::from_sorted(label.into(), shards, vnodes, points)
    }

    /// Sorts the points and checks that there is at least one.
    fn from_sorted(
        label: String,
        shards: u32,
        vnodes: u32,
        mut points: Vec<(u64, ShardId)>,
    ) -> Result<Self, AnalysisError> {
        if points.is_empty() {
            return Err(AnalysisError::Config(
                "a ring needs at least one point".into(),
            ));
        }
        points.sort_unstable();
        let positions: Vec<u64> = points.iter().map(|p| p.0).collect();
        let owners = points.iter().map(|p| p.1).collect();
        Ok(RingPartitioner {
            label,
            shards,
            vnodes,
            points,
            positions: RadixIndex::new(&positions),
            owners,
        })
    }

    /// The owner of a key whose placement hash is `hash`: the first point strictly after the
    /// hash ([`key_position`]), wrapping around. Every key lookup goes through here.
    #[inline]
    pub fn owner_of_key_hash(&self, hash: u64) -> ShardId {
        self.owner_of_hash(key_position(hash))
    }

    /// The owner of ring position `hash`: the first point at or after it, wrapping around
    /// (a raw position, as Cassandra's tokens are; keys go through
    /// [`RingPartitioner::owner_of_key_hash`]).
    ///
    /// The first point at or after `hash` comes after the points below it, which a
    /// [`RadixIndex`] over the positions counts from one cache line of fingerprints; the
    /// owners are exactly those of `points.partition_point(|p| p.0 < hash)` (tests in
    /// `tests/layouts.rs`).
    #[inline]
    pub fn owner_of_hash(&self, hash: u64) -> ShardId {
        let i = self.positions.rank_lt(hash);
        // Past the last point the ring wraps to the first one.
        let i = if i == self.owners.len() { 0 } else { i };
        self.owners[i]
    }

    /// The number of points before ring position `position` (the index of the first point at
    /// or after it, or the point count past the last), by the [`RadixIndex`]: exactly
    /// `points().partition_point(|p| p.0 < position)`.
    #[inline]
    pub fn points_before(&self, position: u64) -> usize {
        self.positions.rank_lt(position)
    }

    /// The points `(position, shard)` in ring order.
    pub fn points(&self) -> &[(u64, ShardId)] {
        &self.points
    }

    /// Virtual nodes that each new shard receives on growth.
    pub fn vnodes_per_shard(&self) -> u32 {
        self.vnodes
    }

    /// This ring resized to `shards` shards by its rule (see the type).
    pub fn resized_ring(&self, shards: u32) -> Result<RingPartitioner, AnalysisError> {
        check_shard_count(shards)?;
        let mut points: Vec<(u64, ShardId)> = self
            .points
            .iter()
            .copied()
            .filter(|p| p.1 < shards)
            .collect();
        add_vnodes(&mut points, self.shards.min(shards)..shards, self.vnodes);
        Self::from_sorted(self.label.clone(), shards, self.vnodes, points)
    }
}

/// Appends the `vnodes` points of every shard in `shards`.
fn add_vnodes(points: &mut Vec<(u64, ShardId)>, shards: std::ops::Range<u32>, vnodes: u32) {
    for shard in shards {
        points.extend((0..vnodes).map(|v| (vnode_position(shard, v), shard)));
    }
}

impl Partitioner for RingPartitioner {
    /// The points, their owners and the search index.
    fn router_bytes(&self) -> Option<u64> {
        let points = super::slice_bytes(&self.points) + super::slice_bytes(&self.owners);
        Some(points + self.positions.heap_bytes() as u64)
    }

    fn replicas(&self, key: &[u8], rf: u32, out: &mut Vec<ShardId>) {
        self.replicas_clockwise(key, rf, out)
    }

    fn without_shard(
        &self,
        shard: ShardId,
        _keys: &KeyCounts,
    ) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
        Ok(Some(Box::new(self.without(shard)?)))
    }

    /// A key's replicas are the first distinct shards met clockwise; if the removed shard is
    /// not among them, none of its points comes before the last of them; if it is, the walk
    /// skips its points and meets the next distinct shard.
    fn removal_effect(&self) -> RemovalEffect {
        RemovalEffect::Successor
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.shards
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.owner_of_key_hash(hash64(key))
    }

    fn uses_placement_hash(&self) -> bool {
        true
    }

    /// The ring with every point redrawn (`xxh3_64` of its position, seed `salt`), as other
    /// node names would place them: each shard keeps its number of points, and every key's
    /// owner is a fresh draw of the arcs.
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        let points = self
            .points
            .iter()
            .map(|&(at, shard)| {
                let redrawn = xxhash_rust::xxh3::xxh3_64_with_seed(&at.to_be_bytes(), salt);
                (redrawn, shard)
            })
            .collect();
        let ring = Self::from_sorted(self.label.clone(), self.shards, self.vnodes, points);
        ring.ok().map(|r| Box::new(r) as Box<dyn Partitioner>)
    }

    fn shards_of_hashed(&self, _keys: &[&[u8]], hashes: &[u64], out: &mut Vec<ShardId>) {
        out.extend(hashes.iter().map(|&h| self.owner_of_key_hash(h)));
    }

    /// The key's ring position and the position of the point that owns it.
    fn detail(&self, key: &[u8]) -> Option<String> {
        let hash = hash64(key);
        let i = self.points.partition_point(|p| p.0 <= hash) % self.points.len();
        Some(format!(
            "hash={hash:#018x} point={:#018x}",
            self.points[i].0
        ))
    }

    /// Every shard (see [`super::scan_every_shard`]).
    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        super::scan_every_shard(self, start, end, out);
    }

    /// Keeps the points of surviving shards and adds points for new ones (see the type).
    fn resized(
        &self,
        shards: u32,
        _keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        Ok(Box::new(self.resized_ring(shards)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_belongs_to_the_first_point_at_or_after_its_hash_wrapping_around() {
        let ring =
            RingPartitioner::from_points("ring", 3, vec![(300, 2), (100, 0), (200, 1)]).unwrap();
        let owners: Vec<ShardId> = [0, 100, 101, 200, 250, 300, 301, u64::MAX]
            .into_iter()
            .map(|h| ring.owner_of_hash(h))
            .collect();
        assert_eq!(owners, [0, 0, 1, 1, 2, 2, 0, 0]);
        assert_eq!(
            ring.shard_of(b"user42"),
            ring.owner_of_hash(0x9fdc_8e44_c5b9_267c)
        );
    }

    #[test]
    fn small_integer_keys_whose_bytes_name_a_vnode_spread_over_the_shards() {
        // The u64 keys 0..255 have the 8 bytes of shard 0's vnodes 0..255: each hashes exactly
        // to one of shard 0's points, and at-or-after put all 256 of them on shard 0.
        let ring = RingPartitioner::new("ring", 4, 256).unwrap();
        let mut per_shard = [0u32; 4];
        for k in 0..256u64 {
            let key = k.to_be_bytes();
            assert_eq!(hash64(&key), vnode_position(0, k as u32));
            per_shard[ring.shard_of(&key) as usize] += 1;
        }
        // About 64 each (binomial, sd 7); 256 on shard 0 before the fix.
        assert!(
            per_shard.iter().all(|&n| (30..110).contains(&n)),
            "{per_shard:?}"
        );
        // A key on a point belongs to the next point clockwise; past the last, the first.
        let hand = RingPartitioner::from_points("ring", 3, vec![(100, 0), (200, 1), (300, 2)]);
        let hand = hand.unwrap();
        let owner = |h: u64| hand.owner_of_hash(key_position(h));
        assert_eq!(
            [99, 100, 199, 200, 300, u64::MAX].map(owner),
            [0, 1, 1, 2, 0, 0]
        );
    }

    #[test]
    fn growth_keeps_every_point_and_shrink_drops_only_removed_shards() {
        let ring = RingPartitioner::new("ring", 4, 8).unwrap();
        assert_eq!(ring.points().len(), 32);
        let grown = RingPartitioner::new("ring", 6, 8).unwrap();
        assert!(ring.points().iter().all(|p| grown.points().contains(p)));
        let shrunk = ring.resized(2, &KeyCounts::new()).unwrap();
        assert!((0..1000u32).all(|i| {
            let key = i.to_be_bytes();
            let before = ring.shard_of(&key);
            before >= 2 || shrunk.shard_of(&key) == before
        }));
        assert_eq!(vnode_position(1, 2), hash64(&[0, 0, 0, 1, 0, 0, 0, 2]));
    }

    #[test]
    fn weights_one_and_two_give_a_third_and_two_thirds_of_the_keys() {
        let keys = crate::testing::keys(60_000);
        let ring = RingPartitioner::weighted("ring", 2, 256, Some(&[1.0, 2.0])).unwrap();
        let s = crate::testing::shares(&ring, &keys);
        // 171 and 341 points: the spread of a ring's arcs is about 1/sqrt(points) = 8%.
        assert!((s[0] - 1.0 / 3.0).abs() < 0.03, "{s:?}");
        assert_eq!(ring.points().len(), 171 + 341);
    }

    #[test]
    fn bad_rings_are_refused() {
        assert!(RingPartitioner::new("ring", 4, 0).is_err());
        assert!(RingPartitioner::new("ring", 0, 4).is_err());
        assert!(RingPartitioner::from_points("ring", 2, vec![]).is_err());
        let err = RingPartitioner::from_points("ring", 2, vec![(5, 2)]).unwrap_err();
        assert!(err.to_string().contains("shard 2 of only 2"), "{err}");
    }
}
