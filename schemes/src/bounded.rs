//! Consistent hashing with bounded loads (Mirrokni, Thorup & Zadimoghaddam, SODA 2018): a
//! ring whose shards refuse keys beyond a capacity, overflow going on clockwise.
//!
//! Keys are placed in the order they first appear in the trace. When the m-th distinct key
//! arrives, every shard may hold `ceil(C x m / N)` distinct keys; the key goes to the first
//! point after its hash (as on `ring`) whose shard still has room, walking clockwise.
//! Capacities only grow as keys arrive, so a placement is never revised, and at the end no
//! shard holds more than `ceil(C x average)` distinct keys. The price is that a key's owner
//! depends on the keys that came before it, so growth and removal move more keys than a
//! plain ring (cascades of overflow).
//!
//! How the order is learned: the replay reads the whole trace once before measuring and
//! hands every point key, in order, to [`Partitioner::learn_arrival`] (the warm-up included:
//! the order of first appearance in the trace); `shardlab route` does the same with the
//! routed keys. A key never learned (past the table's limit, or a scheme built without the
//! pass, as `plan` does) goes where the next new key would: the first shard clockwise with
//! room under the current capacities.

use std::collections::HashMap;

use workloads::Spec;

use super::pinned_hash::hash64;
use super::ring::{key_position, RingPartitioner};
use super::{weights, BuildContext, SchemeKind};
use crate::key_counts::DEFAULT_DISTINCT_LIMIT;
use crate::placement::check_removable;
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// The balance factor when `c` is not given (the paper's 1 + epsilon with epsilon = 0.25).
pub const DEFAULT_C: f64 = 1.25;

/// Virtual nodes per shard of the underlying ring when `vnodes` is not given.
pub const DEFAULT_VNODES: u64 = 64;

/// Registration of `bounded`.
pub const KIND: SchemeKind = SchemeKind {
    name: "bounded",
    about: "consistent hashing with bounded loads (Mirrokni et al.); no shard above ceil(C x \
            average) distinct keys, placed in order of first appearance",
    system: |_| None,
    params: &[
        (
            "c",
            "balance factor C >= 1: capacity ceil(C x average) (default 1.25)",
        ),
        (
            "vnodes",
            "virtual nodes per shard of the ring, 1..=65536 (default 64)",
        ),
    ],
    needs_warmup: |_| false,
    points: |spec, shards| crate::Points::vnodes(spec, shards, DEFAULT_VNODES),
    build,
    changing: None,
};

/// Builds `bounded` for `ctx.shards` shards.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let label = spec.to_string();
    weights::refuse(ctx, &label, "capacities are equal shares of the keys")?;
    let c: f64 = spec.parse_or("c", DEFAULT_C, "a number")?;
    if !(c.is_finite() && c >= 1.0) {
        let message = format!("c={c} must be a number of at least 1 (e.g. 1.25)");
        return Err(spec.error(message).into());
    }
    let vnodes = spec.u64_at_least("vnodes", DEFAULT_VNODES, 1)?;
    if vnodes > super::ring::MAX_VNODES {
        let message = format!(
            "vnodes={vnodes} must be at most {}",
            super::ring::MAX_VNODES
        );
        return Err(spec.error(message).into());
    }
    let ring = RingPartitioner::new(label.clone(), ctx.shards, vnodes as u32)?;
    Ok(Box::new(BoundedPartitioner::new(label, ring, c)))
}

/// A ring with bounded loads and the placements learned so far.
///
/// Growth and shrink rule: the ring grows or shrinks by its own rule (points stay), then
/// every learned key is placed again in its order of first appearance under the new
/// capacities. Removal drops the shard's points (as `ring` does) and places every key again
/// the same way.
#[derive(Clone, Debug)]
pub struct BoundedPartitioner {
    label: String,
    ring: RingPartitioner,
    c: f64,
    /// Key hashes in order of first appearance (at most [`DEFAULT_DISTINCT_LIMIT`]).
    order: Vec<u64>,
    /// The owner of every learned key hash.
    placed: HashMap<u64, ShardId>,
    /// Distinct keys placed on each shard.
    loads: Vec<u64>,
}

impl BoundedPartitioner {
    /// Bounded loads over `ring` with factor `c` (at least 1); nothing learned yet.
    pub fn new(label: String, ring: RingPartitioner, c: f64) -> Self {
        let loads = vec![0; ring.shard_count() as usize];
        BoundedPartitioner {
            label,
            ring,
            c,
            order: Vec::new(),
            placed: HashMap::new(),
            loads,
        }
    }

    /// The capacity of every shard once `m` distinct keys are placed: `ceil(C x m / N)`.
    pub fn capacity(&self, m: u64) -> u64 {
        (self.c * m as f64 / f64::from(self.ring.shard_count())).ceil() as u64
    }

    /// Distinct keys placed on each shard.
    pub fn loads(&self) -> &[u64] {
        &self.loads
    }

    /// The first shard clockwise from `hash` holding fewer than `capacity` keys (with
    /// `capacity` above the mean load one exists; otherwise the home shard).
    fn first_with_room(&self, hash: u64, capacity: u64) -> ShardId {
        let points = self.ring.points();
        let home = self.ring.points_before(key_position(hash));
        (0..points.len())
            .map(|step| points[(home + step) % points.len()].1)
            .find(|&shard| self.loads[shard as usize] < capacity)
            .unwrap_or(points[home % points.len()].1)
    }

    /// Places the key with this hash if it is new (and the table is not full).
    fn learn_hash(&mut self, hash: u64) {
        if self.placed.contains_key(&hash) || self.order.len() >= DEFAULT_DISTINCT_LIMIT {
            return;
        }
        let capacity = self.capacity(self.order.len() as u64 + 1);
        let shard = self.first_with_room(hash, capacity);
        self.loads[shard as usize] += 1;
        self.placed.insert(hash, shard);
        self.order.push(hash);
    }

    /// This scheme on another ring, every learned key placed again in order.
    fn replaced(&self, ring: RingPartitioner) -> Self {
        let mut next = Self::new(self.label.clone(), ring, self.c);
        self.order.iter().for_each(|&h| next.learn_hash(h));
        next
    }
}

impl Partitioner for BoundedPartitioner {
    /// The ring, the learned placements (hash table entries of a key hash and a shard, plus
    /// the arrival order) and the loads.
    fn router_bytes(&self) -> Option<u64> {
        let entry = std::mem::size_of::<(u64, ShardId)>() as u64 + 1;
        let placed = self.placed.capacity() as u64 * entry;
        let rest = super::slice_bytes(&self.order) + super::slice_bytes(&self.loads);
        Some(self.ring.router_bytes().unwrap_or(0) + placed + rest)
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.ring.shard_count()
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        let hash = hash64(key);
        match self.placed.get(&hash) {
            Some(&shard) => shard,
            None => self.first_with_room(hash, self.capacity(self.order.len() as u64 + 1)),
        }
    }

    /// The key's ring owner before overflow (`home`) and the capacity per shard now.
    fn detail(&self, key: &[u8]) -> Option<String> {
        let home = self.ring.owner_of_key_hash(hash64(key));
        let capacity = self.capacity(self.order.len() as u64);
        Some(format!("home={home} capacity={capacity}"))
    }

    fn learns_arrival(&self) -> bool {
        true
    }

    fn learn_arrival(&mut self, keys: &[&[u8]]) {
        keys.iter().for_each(|k| self.learn_hash(hash64(k)));
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
        Ok(Box::new(self.replaced(self.ring.resized_ring(shards)?)))
    }

    fn without_shard(
        &self,
        shard: ShardId,
        _keys: &KeyCounts,
    ) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
        check_removable(shard, self.shard_count())?;
        let ring = self.ring.without(shard)?;
        Ok(Some(Box::new(self.replaced(ring))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{keys, moved, shares};

    /// `bounded:c=C` over 16 shards, taught `keys` in order.
    fn taught(c: f64, shards: u32, keys: &[Vec<u8>]) -> BoundedPartitioner {
        let ring = RingPartitioner::new("bounded", shards, 64).unwrap();
        let mut p = BoundedPartitioner::new("bounded".into(), ring, c);
        let refs: Vec<&[u8]> = keys.iter().map(|k| k.as_slice()).collect();
        p.learn_arrival(&refs);
        p
    }

    #[test]
    fn no_shard_holds_more_than_ceil_c_times_the_average() {
        let keys = keys(20_000);
        for c in [1.0, 1.1, 1.25, 2.0] {
            let p = taught(c, 16, &keys);
            let cap = (c * 20_000.0 / 16.0_f64).ceil() as u64;
            assert!(
                p.loads().iter().all(|&l| l <= cap),
                "c={c}: {:?} > {cap}",
                p.loads()
            );
            assert_eq!(p.loads().iter().sum::<u64>(), 20_000);
            // Lookups agree with the loads learned.
            let counted: Vec<u64> = shares(&p, &keys)
                .iter()
                .map(|s| (s * 20_000.0).round() as u64)
                .collect();
            assert_eq!(counted, p.loads());
        }
        // A plain ring with 64 vnodes is above 1.1 x average somewhere; c = 1.1 caps it.
        let ring = RingPartitioner::new("ring", 16, 64).unwrap();
        let ring_max = shares(&ring, &keys).into_iter().fold(0.0, f64::max) * 16.0;
        assert!(ring_max > 1.1, "{ring_max}");
    }

    #[test]
    fn small_integer_keys_have_their_home_spread_over_the_shards() {
        // The u64 keys 0..63 have the bytes of shard 0's 64 vnodes (see `ring::key_position`):
        // their home was shard 0 for all 64, filling it first.
        let keys: Vec<Vec<u8>> = (0..64u64).map(|k| k.to_be_bytes().to_vec()).collect();
        let p = taught(10.0, 4, &keys);
        let homes: Vec<String> = keys.iter().filter_map(|k| p.detail(k)).collect();
        let on_zero = homes.iter().filter(|d| d.starts_with("home=0 ")).count();
        // About 16 (binomial, sd 3.5); 64 before.
        assert!((4..32).contains(&on_zero), "{on_zero} of 64: {homes:?}");
        // With room everywhere (c = 10) every key stays home: the loads are spread as well.
        assert!(
            p.loads().iter().all(|&l| (4..32).contains(&l)),
            "{:?}",
            p.loads()
        );
    }

    #[test]
    fn the_order_of_arrival_decides_and_growth_places_every_key_again() {
        let keys = keys(5_000);
        let mut reversed = keys.clone();
        reversed.reverse();
        let (a, b) = (taught(1.0, 4, &keys), taught(1.0, 4, &reversed));
        assert!(keys.iter().any(|k| a.shard_of(k) != b.shard_of(k)));
        let grown = a.resized(5, &KeyCounts::new()).unwrap();
        let (share, to_new) = moved(&a, grown.as_ref(), &keys, Some(4));
        // The new shard fills to its capacity; overflow cascades move some keys between old shards.
        assert!(share >= 0.2 && to_new < 1.0, "{share} {to_new}");
        let cap = (1.0_f64 * 5_000.0 / 5.0).ceil();
        assert!(shares(grown.as_ref(), &keys)
            .iter()
            .all(|s| s * 5_000.0 <= cap + 0.5));
        let smaller = a.without_shard(1, &KeyCounts::new()).unwrap().unwrap();
        assert_eq!(smaller.shard_count(), 3);
        // An unlearned key goes where the next new key would.
        assert!(a.shard_of(b"never seen") < 4);
    }

    #[test]
    fn bad_parameters_are_refused() {
        let ctx = crate::testing::ctx(4);
        for (spec, want) in [
            ("bounded:c=0.5", "at least 1"),
            ("bounded:c=x", "not a number"),
        ] {
            let err = build(&Spec::parse(spec).unwrap(), &ctx)
                .err()
                .unwrap()
                .to_string();
            assert!(err.contains(want), "{spec}: {err}");
        }
    }
}
