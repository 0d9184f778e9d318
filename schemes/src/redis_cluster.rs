//! Redis Cluster's placement, bit-exact with Redis 7.0 (`src/cluster.c`, `src/redis-cli.c`).
//!
//! - **Slot**: `CRC16-XMODEM(key) mod 16384` (`keyHashSlot`), where a key with a hash tag,
//!   the bytes between its first `{` and the first `}` after it when there is at least one
//!   byte between them, is hashed on the tag alone, so `{user1}.name` and `{user1}.mail`
//!   share a slot.
//! - **Slot map**: the contiguous ranges `redis-cli --cluster create` assigns to N masters
//!   (0-5460, 5461-10922, 10923-16383 for three), computed with its single-precision
//!   arithmetic. Shard `i` is the master that got the `i`-th range.
//! - **Growth** N -> N+1: `redis-cli --cluster add-node` of an empty master, then
//!   `redis-cli --cluster rebalance --cluster-use-empty-masters`; each old master hands its
//!   lowest-numbered slots to the new one until every master holds `floor(16384 / (N+1))`
//!   (the new one also takes the remainder). More masters are added one at a time.
//! - **Shrink and removal**: `rebalance --cluster-weight <master>=0` empties the master (its
//!   lowest slots first go to the master most below its share), then `del-node` removes it.
//!
//! Where Redis itself orders masters by their random node ids (ties in the rebalance sort, and
//! which receiver a giver is paired with when several masters receive at once) this module
//! uses shard order; one-master growth has a single receiver and is exact.

use crc::{Crc, CRC_16_XMODEM};
use workloads::{KeyType, Spec};

use super::{check_shard_count, weights, BuildContext, SchemeKind};
use crate::placement::{check_removable, renumbered};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// Hash slots of a Redis cluster (`CLUSTER_SLOTS`).
pub const SLOTS: usize = 16_384;

/// The rebalance threshold of `redis-cli` in percent (`CLUSTER_MANAGER_REBALANCE_THRESHOLD`):
/// a rebalance moves nothing unless some master is further than this from its share.
const REBALANCE_THRESHOLD_PERCENT: f32 = 2.0;

/// Redis's CRC16 (`src/crc16.c`): CRC-16/XMODEM, polynomial 0x1021, initial value 0.
const CRC16: Crc<u16> = Crc::<u16>::new(&CRC_16_XMODEM);

/// Registration of `redis-cluster`.
pub const KIND: SchemeKind = SchemeKind {
    name: "redis-cluster",
    about: "Redis Cluster 7.0: CRC16 hash slots ({tags} honoured) in redis-cli create ranges; \
            growth = add-node + rebalance --cluster-use-empty-masters",
    system: |_| Some("Redis 7.0 cluster slots"),
    params: &[],
    needs_warmup: |_| false,
    points: |_, _| crate::Points::new(SLOTS as u64, "hash slots", ""),
    build,
    changing: None,
};

/// Builds `redis-cluster` for `ctx.shards` masters.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let why = "redis-cli --cluster create gives every master an equal slot range";
    weights::refuse(ctx, &spec.to_string(), why)?;
    if ctx.shards as usize > SLOTS {
        // Decided by the command line alone: a spec error, so a usage error to the CLI.
        let message = format!(
            "a Redis cluster has {SLOTS} slots, so at most {SLOTS} masters can own one (got {} \
             shards); give at most {SLOTS} shards",
            ctx.shards
        );
        return Err(spec.error(message).into());
    }
    let cluster = RedisClusterPartitioner::created(spec.to_string(), ctx.shards)?;
    Ok(Box::new(cluster.with_key_type(ctx.key_type)))
}

/// The hash slot of `key`, as Redis's `keyHashSlot` computes it (hash tags included).
pub fn key_hash_slot(key: &[u8]) -> u16 {
    CRC16.checksum(hash_tag(key)) & (SLOTS as u16 - 1)
}

/// The bytes Redis hashes: the tag between the first `{` and the first `}` after it when
/// that tag is not empty, else the whole key.
fn hash_tag(key: &[u8]) -> &[u8] {
    let Some(open) = key.iter().position(|&b| b == b'{') else {
        return key;
    };
    match key[open + 1..].iter().position(|&b| b == b'}') {
        Some(len) if len > 0 => &key[open + 1..open + 1 + len],
        _ => key,
    }
}

/// The `first..=last` slot ranges that `redis-cli --cluster create` gives `masters` masters,
/// in master order. redis-cli computes them in `float`: `last = lround(cursor + per - 1)`
/// with `per = 16384 / (float) masters` and `cursor += per`; the last master ends at 16383.
pub fn create_ranges(masters: u32) -> Vec<(u16, u16)> {
    let per_node = SLOTS as f32 / masters as f32;
    let (mut first, mut cursor) = (0i64, 0.0f32);
    (0..masters)
        .map(|i| {
            // C's lround rounds half away from zero, as f64::round does.
            let mut last = f64::from(cursor + per_node - 1.0).round() as i64;
            if last > SLOTS as i64 || i == masters - 1 {
                last = SLOTS as i64 - 1;
            }
            last = last.max(first);
            let range = (first as u16, last as u16);
            first = last + 1;
            cursor += per_node;
            range
        })
        .collect()
}

/// A Redis cluster's slot map: the master (shard) of each of the 16384 slots.
#[derive(Clone, Debug)]
pub struct RedisClusterPartitioner {
    label: String,
    /// How keys reach Redis: `u64` keys as their decimal digits, as clients send integers.
    key_type: KeyType,
    masters: u32,
    /// `owners[slot]` is the shard serving `slot`.
    owners: Vec<ShardId>,
}

impl RedisClusterPartitioner {
    /// The slot map `redis-cli --cluster create` builds for `masters` masters (1..=16384;
    /// redis-cli itself asks for at least 3).
    pub fn created(label: impl Into<String>, masters: u32) -> Result<Self, AnalysisError> {
        check_master_count(masters)?;
        let mut owners = vec![0; SLOTS];
        for (shard, (first, last)) in create_ranges(masters).into_iter().enumerate() {
            owners[first as usize..=last as usize].fill(shard as ShardId);
        }
        Ok(RedisClusterPartitioner {
            label: label.into(),
            key_type: KeyType::Bytes,
            masters,
            owners,
        })
    }

    /// A cluster from an explicit slot map (`owners[slot]`, 16384 entries, every shard below
    /// `masters`).
    pub fn from_slot_owners(
        label: impl Into<String>,
        masters: u32,
        owners: Vec<ShardId>,
    ) -> Result<Self, AnalysisError> {
        check_master_count(masters)?;
        if owners.len() != SLOTS {
            let message = format!("a slot map has {SLOTS} slots, not {}", owners.len());
            return Err(AnalysisError::Config(message));
        }
        if let Some((slot, s)) = owners.iter().enumerate().find(|(_, &s)| s >= masters) {
            let message = format!("slot {slot} names master {s} of only {masters}");
            return Err(AnalysisError::Config(message));
        }
        Ok(RedisClusterPartitioner {
            label: label.into(),
            key_type: KeyType::Bytes,
            masters,
            owners,
        })
    }

    /// This cluster reading keys of `key_type`: a `u64` key is sent to Redis as its decimal
    /// digits (the default, [`KeyType::Bytes`], sends the key's bytes as they are).
    pub fn with_key_type(self, key_type: KeyType) -> Self {
        RedisClusterPartitioner { key_type, ..self }
    }

    /// The slot of `key` as Redis receives it (see [`Self::with_key_type`]).
    #[inline]
    pub fn slot_of(&self, key: &[u8]) -> u16 {
        key_hash_slot(self.key_type.as_text(key, &mut [0; 20]))
    }

    /// The master of every slot, indexed by slot.
    pub fn slot_owners(&self) -> &[ShardId] {
        &self.owners
    }

    /// After `redis-cli --cluster add-node` of one empty master (the next shard number) and
    /// `redis-cli --cluster rebalance --cluster-use-empty-masters`.
    pub fn with_master_added(&self) -> Result<Self, AnalysisError> {
        let masters = self.masters + 1;
        check_master_count(masters)?;
        let mut owners = self.owners.clone();
        rebalance(&mut owners, &vec![1.0; masters as usize]);
        Ok(RedisClusterPartitioner {
            masters,
            owners,
            ..self.clone()
        })
    }

    /// After `redis-cli --cluster rebalance --cluster-weight <shard>=0` emptied `shard` and
    /// `redis-cli --cluster del-node` removed it; the survivors keep their order.
    pub fn with_master_removed(&self, shard: ShardId) -> Result<Self, AnalysisError> {
        check_removable(shard, self.masters)?;
        let mut owners = self.owners.clone();
        let mut weights = vec![1.0; self.masters as usize];
        weights[shard as usize] = 0.0;
        rebalance(&mut owners, &weights);
        debug_assert!(!owners.contains(&shard), "a weight-0 master keeps no slot");
        owners.iter_mut().for_each(|s| *s = renumbered(*s, shard));
        Ok(RedisClusterPartitioner {
            masters: self.masters - 1,
            owners,
            ..self.clone()
        })
    }
}

/// Fails unless `1 <= masters <= 16384` (a master beyond the slot count could own nothing).
fn check_master_count(masters: u32) -> Result<(), AnalysisError> {
    check_shard_count(masters)?;
    if masters as usize > SLOTS {
        let message = format!("a Redis cluster has {SLOTS} slots, so at most {SLOTS} masters can own one (got {masters})");
        return Err(AnalysisError::Config(message));
    }
    Ok(())
}

/// `redis-cli --cluster rebalance --cluster-use-empty-masters` (redis-cli 7.0,
/// `clusterManagerCommandRebalance`) over the masters `0..weights.len()` of slot map
/// `owners`, every master involved, in shard order where redis-cli uses its node order.
///
/// Each master should hold `expected = (int)((16384f / total_weight) * weight)` slots; its
/// balance is `slots - expected`. The rounding remainder is added to the receivers in order,
/// one slot per pass. Masters are sorted by balance (stable: ties in shard order); the most
/// negative receives from the most positive `min(|dst|, |src|)` slots, the lowest-numbered
/// slots of the giver (`clusterManagerComputeReshardTable` with one source), until the two
/// ends meet.
fn rebalance(owners: &mut [ShardId], weights: &[f32]) {
    let masters = weights.len();
    let mut slots = vec![0i32; masters];
    owners.iter().for_each(|&s| slots[s as usize] += 1);
    let total_weight: f32 = weights.iter().sum();
    let mut balance: Vec<i32> = (0..masters)
        .map(|m| slots[m] - ((SLOTS as f32 / total_weight) * weights[m]) as i32)
        .collect();
    let over_threshold = (0..masters).any(|m| {
        let expected = slots[m] - balance[m];
        if slots[m] > 0 {
            let error_percent = (100.0 - 100.0 * f64::from(expected) / f64::from(slots[m])).abs();
            error_percent as f32 > REBALANCE_THRESHOLD_PERCENT
        } else {
            expected > 1
        }
    });
    if !over_threshold {
        return;
    }
    let mut total: i32 = balance.iter().sum();
    while total > 0 {
        for b in balance.iter_mut() {
            if *b <= 0 && total > 0 {
                *b -= 1;
                total -= 1;
            }
        }
    }
    let mut order: Vec<usize> = (0..masters).collect();
    order.sort_by_key(|&m| balance[m]);
    let (mut dst_i, mut src_i) = (0, masters - 1);
    while dst_i < src_i {
        let (dst, src) = (order[dst_i], order[src_i]);
        let moved = balance[dst].abs().min(balance[src].abs());
        let givers = owners.iter_mut().filter(|s| **s as usize == src);
        givers
            .take(moved as usize)
            .for_each(|s| *s = dst as ShardId);
        balance[dst] += moved;
        balance[src] -= moved;
        if balance[dst] == 0 {
            dst_i += 1;
        }
        if balance[src] == 0 {
            src_i -= 1;
        }
    }
}

impl Partitioner for RedisClusterPartitioner {
    /// Another placement: every key's hash redrawn ([`crate::placement::SaltedKeys`]).
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        Some(Box::new(crate::placement::SaltedKeys::new(self, salt)))
    }

    /// The owner of every one of the 16384 slots.
    fn router_bytes(&self) -> Option<u64> {
        Some(super::slice_bytes(&self.owners))
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.masters
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.owners[self.slot_of(key) as usize]
    }

    /// Every master: slots are hashed, so a key range has no slot order. An empty scan
    /// (`end <= start`) contacts only the owner of `start`, as the trait asks of every scheme.
    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        super::scan_every_shard(self, start, end, out);
    }

    /// Growth adds masters one by one ([`Self::with_master_added`]); shrink empties and
    /// removes the last masters one by one ([`Self::with_master_removed`]).
    fn resized(
        &self,
        shards: u32,
        _keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        check_master_count(shards)?;
        let mut cluster = self.clone();
        while cluster.masters < shards {
            cluster = cluster.with_master_added()?;
        }
        while cluster.masters > shards {
            cluster = cluster.with_master_removed(cluster.masters - 1)?;
        }
        Ok(Box::new(cluster))
    }

    /// Only the master: a slot's copies are on that master's own replica nodes, outside the
    /// layout ([`Partitioner::replica_refusal`]).
    fn replicas(&self, key: &[u8], _rf: u32, out: &mut Vec<ShardId>) {
        out.push(self.shard_of(key));
    }

    /// Shards are masters; a master's replicas are replica nodes of that master, not other
    /// masters.
    fn replica_refusal(&self) -> Option<String> {
        Some(format!(
            "scheme '{}' (Redis Cluster): a slot's copies live on the replica nodes of its \
             master, never on other masters, and shardlab's shards are the masters; plan with \
             --replicas 1 (a master and its replicas are one shard: writes reach the master, \
             which forwards them to its own replicas) and size each replica node like its master",
            self.label
        ))
    }

    /// The hash slot.
    fn detail(&self, key: &[u8]) -> Option<String> {
        Some(self.slot_of(key).to_string())
    }

    /// [`Self::with_master_removed`]: the master is emptied by a weight-0 rebalance first.
    fn without_shard(
        &self,
        shard: ShardId,
        _keys: &KeyCounts,
    ) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
        Ok(Some(Box::new(self.with_master_removed(shard)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ranges of each master, from a slot map.
    fn ranges(p: &RedisClusterPartitioner) -> Vec<Vec<(usize, usize)>> {
        let mut out = vec![Vec::new(); p.masters as usize];
        let owners = p.slot_owners();
        let mut start = 0;
        for slot in 1..=SLOTS {
            if slot == SLOTS || owners[slot] != owners[start] {
                out[owners[start] as usize].push((start, slot - 1));
                start = slot;
            }
        }
        out
    }

    #[test]
    fn slots_are_crc16_xmodem_of_the_key_or_its_tag() {
        // Values from the Redis Cluster specification and `CLUSTER KEYSLOT`.
        assert_eq!(CRC16.checksum(b"123456789"), 0x31c3);
        assert_eq!(key_hash_slot(b"foo"), 12182);
        assert_eq!(key_hash_slot(b"somekey"), 11058);
        assert_eq!(
            key_hash_slot(b"{user1000}.following"),
            key_hash_slot(b"user1000")
        );
        assert_eq!(
            key_hash_slot(b"foo{}{bar}"),
            CRC16.checksum(b"foo{}{bar}") & 0x3fff
        );
        assert_eq!(key_hash_slot(b"foo{{bar}}zap"), key_hash_slot(b"{bar"));
        assert_eq!(key_hash_slot(b"foo{bar}{zap}"), key_hash_slot(b"bar"));
        assert_eq!(
            key_hash_slot(b"{no-close"),
            CRC16.checksum(b"{no-close") & 0x3fff
        );
        assert_eq!(key_hash_slot(b""), 0);
    }

    #[test]
    fn create_assigns_the_ranges_redis_cli_prints() {
        assert_eq!(create_ranges(3), [(0, 5460), (5461, 10922), (10923, 16383)]);
        assert_eq!(create_ranges(1), [(0, 16383)]);
        let six = create_ranges(6);
        assert_eq!(six[0], (0, 2730));
        assert_eq!(six[5], (13653, 16383));
        for n in [2u32, 3, 5, 7, 16, 100, 1000, 16384] {
            let r = create_ranges(n);
            assert_eq!(r.len(), n as usize);
            assert_eq!(r[0].0, 0);
            assert_eq!(r[n as usize - 1].1, 16383);
            assert!(
                r.windows(2).all(|w| w[1].0 == w[0].1 + 1),
                "{n} masters: {r:?}"
            );
        }
        assert!(RedisClusterPartitioner::created("r", 16385).is_err());
        assert!(RedisClusterPartitioner::created("r", 0).is_err());
    }

    #[test]
    fn a_new_master_takes_the_lowest_slots_of_each_old_one() {
        let three = RedisClusterPartitioner::created("r", 3).unwrap();
        let four = three.with_master_added().unwrap();
        // Expected 4096 each: the old masters give 1365, 1366 and 1365 of their lowest slots.
        assert_eq!(
            ranges(&four),
            [
                vec![(1365, 5460)],
                vec![(6827, 10922)],
                vec![(12288, 16383)],
                vec![(0, 1364), (5461, 6826), (10923, 12287)],
            ]
        );
        let counts: Vec<usize> = (0..4)
            .map(|s| four.slot_owners().iter().filter(|&&o| o == s).count())
            .collect();
        assert_eq!(counts, [4096, 4096, 4096, 4096]);
        // Growth by two is two single-master rounds.
        let five = three.resized(5, &KeyCounts::new()).unwrap();
        let again = four.with_master_added().unwrap();
        assert!((0..SLOTS).all(|s| {
            let key = format!("k{s}");
            five.shard_of(key.as_bytes()) == again.shard_of(key.as_bytes())
        }));
    }

    #[test]
    fn a_removed_master_is_emptied_into_the_masters_below_their_share() {
        let four = RedisClusterPartitioner::created("r", 4).unwrap();
        let three = four.with_master_removed(1).unwrap();
        // 16384 / 3 = 5461 each plus one slot of remainder for the first receiver in order;
        // master 1 (4096..=8191) gives its lowest 1366 slots to old master 0, then 1365 to
        // old master 2 and the last 1365 to old master 3.
        assert_eq!(
            ranges(&three),
            [
                vec![(0, 5461)],
                vec![(5462, 6826), (8192, 12287)],
                vec![(6827, 8191), (12288, 16383)],
            ]
        );
        assert!(four.without_shard(4, &KeyCounts::new()).is_err());
        let shrunk = four.resized(2, &KeyCounts::new()).unwrap();
        assert_eq!(shrunk.shard_count(), 2);
    }

    #[test]
    fn a_balanced_cluster_is_left_alone() {
        let four = RedisClusterPartitioner::created("r", 4).unwrap();
        let mut owners = four.slot_owners().to_vec();
        rebalance(&mut owners, &[1.0; 4]);
        assert_eq!(owners, four.slot_owners());
    }
}
