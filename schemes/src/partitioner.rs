//! The [`Partitioner`] trait every scheme implements, and [`ShardSet`] for scan routing.

use crate::value::MetricValue;
use crate::{AnalysisError, KeyCounts};

/// A shard number in `0..shard_count()`.
pub type ShardId = u32;

/// A partitioning scheme with a fixed configuration: who owns a key, which shards a scan
/// contacts, and how the scheme grows or shrinks.
///
/// Implementations must be deterministic: the same configuration gives the same owner for the
/// same key on every run, platform and release (hashes are pinned, never `DefaultHasher`).
pub trait Partitioner: Send + Sync {
    /// The scheme's label in reports, e.g. `ring:vnodes=256`.
    fn label(&self) -> &str;

    /// Number of shards `N`; every owner is in `0..N`.
    fn shard_count(&self) -> u32;

    /// The shard that owns `key`.
    fn shard_of(&self, key: &[u8]) -> ShardId;

    /// Appends the owner of every key of `keys` to `out`, in order: one call per batch
    /// instead of one dynamic call per key. The default calls [`Partitioner::shard_of`]
    /// for each key, which the compiler dispatches statically and inlines inside each
    /// implementation; a scheme overrides it only with something faster and equal.
    fn shards_of(&self, keys: &[&[u8]], out: &mut Vec<ShardId>) {
        out.extend(keys.iter().map(|key| self.shard_of(key)));
    }

    /// True when the scheme places a key through its placement hash
    /// ([`crate::pinned_hash::hash64`]), which a replay then computes once per key
    /// for every such scheme ([`Partitioner::shards_of_hashed`]). False by default.
    fn uses_placement_hash(&self) -> bool {
        false
    }

    /// [`Partitioner::shards_of`] given each key's placement hash beside it (`hashes[i]` is
    /// `hash64(keys[i])`): the same owners, without hashing every key again for each scheme.
    /// The default ignores the hashes.
    fn shards_of_hashed(&self, keys: &[&[u8]], hashes: &[u64], out: &mut Vec<ShardId>) {
        let _ = hashes;
        self.shards_of(keys, out);
    }

    /// Adds to `out` every shard that a scan of `[start, end)` must contact. A scan whose end
    /// is not after its start still contacts the owner of `start`, so at least one shard is
    /// added.
    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet);

    /// This scheme after growing or shrinking to `shards` shards, by the scheme's own rule.
    /// `keys` are the distinct keys seen with their request counts, for rules that weigh
    /// data (range moves the cheapest ranges first).
    fn resized(&self, shards: u32, keys: &KeyCounts)
        -> Result<Box<dyn Partitioner>, AnalysisError>;

    /// Why the scheme's own rule cannot take it from [`Partitioner::shard_count`] to
    /// `shards` shards (Elasticsearch splits only to allowed multiples, Kafka never removes
    /// partitions), naming the targets it can reach; `None` when it can (the default).
    /// [`Partitioner::resized`] fails with this reason; `run` reports the remap to such a
    /// target as not applicable and `plan --current` skips such shard counts.
    fn resize_refusal(&self, shards: u32) -> Option<String> {
        let _ = shards;
        None
    }

    /// What the scheme computed on the way to the owner of `key`, for `shardlab route`'s
    /// `detail` column: the ring point, a table slot, a system's slot or token. `None` when
    /// there is nothing to add beyond the owner (the default).
    fn detail(&self, key: &[u8]) -> Option<String> {
        let _ = key;
        None
    }

    /// Metrics only this scheme can derive from the requests each shard served (in shard
    /// order), appended to its `summary.csv` rows: Kafka's hottest broker, for example. Empty
    /// by default.
    fn shard_load_metrics(&self, shard_requests: &[u64]) -> Vec<MetricValue> {
        let _ = shard_requests;
        Vec::new()
    }

    /// For key-range schemes: the start key of every range in key order (the first is the
    /// empty key), so that split quality can be judged. `None` for hashed schemes.
    fn range_starts(&self) -> Option<&[Vec<u8>]> {
        None
    }

    /// Adds to `out` the shards holding the `rf` replicas of `key`, the leaseholder (the
    /// owner, [`Partitioner::shard_of`]) first: `min(rf, N)` distinct shards.
    ///
    /// Default: the owner and the shards after it in number order, `(owner + i) mod N` for
    /// `i` in `0..rf`. For mod-N hashing that is `(h + i) mod N`; for key ranges each range
    /// lives on `rf` consecutive shards, which spreads a shard's replicas over its `rf - 1`
    /// successors. The ring overrides it (the next distinct shards clockwise). A scheme whose
    /// replicas are not shards of its layout ([`Partitioner::replica_refusal`]) adds only the
    /// owner.
    fn replicas(&self, key: &[u8], rf: u32, out: &mut Vec<ShardId>) {
        replicas_in_shard_order(self.shard_of(key), self.shard_count(), rf, out);
    }

    /// Why the copies of a key are not other shards of this layout, so that placing `rf > 1`
    /// replicas on its shards would model the system wrongly (a Redis master's replicas are
    /// replica nodes of that master, not other masters); `None` when they are (the default).
    /// `plan --replicas` above 1 is refused with this reason.
    fn replica_refusal(&self) -> Option<String> {
        None
    }

    /// This scheme after shard `shard` (any shard in `0..N`, not only the last) is removed by
    /// the scheme's own rule, as a layout of `N - 1` shards in which the survivors keep their
    /// order: shard `j > shard` becomes `j - 1`. `keys` are the distinct keys seen, for rules
    /// that weigh data. `Ok(None)` when the scheme cannot remove an arbitrary shard (the
    /// default). [`crate::placement::Degraded`] keeps the survivors' original numbers.
    fn without_shard(
        &self,
        shard: ShardId,
        keys: &KeyCounts,
    ) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
        let _ = (shard, keys);
        Ok(None)
    }

    /// [`Partitioner::without_shard`] of each of `shards`, each removed alone from this
    /// layout. Rules that weigh the keys override it to weigh them once for every removal.
    fn without_each(
        &self,
        shards: &[ShardId],
        keys: &KeyCounts,
    ) -> Result<Vec<Option<Box<dyn Partitioner>>>, AnalysisError> {
        shards
            .iter()
            .map(|&s| self.without_shard(s, keys))
            .collect()
    }

    /// The same scheme under another placement, for the placement spread of the intervals
    /// (the engine's `metrics::placement`): salt `salt` (1, 2, ...) redraws every hash the
    /// placement rests on, as another deployment (other node names, other seeds) would: the
    /// key hash always ([`crate::placement::SaltedKeys`]), and a ring's points too. `None`
    /// (the default) for a layout that is learned from the data (key ranges) or from the
    /// order of arrival, whose luck is not a hash's.
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        let _ = salt;
        None
    }

    /// Bytes of memory the lookup structure holds (tables, points, arrays), for the
    /// `router_bytes` metric; `None` when the scheme does not say.
    fn router_bytes(&self) -> Option<u64> {
        None
    }

    /// True for schemes whose placement depends on the order in which keys first arrive
    /// (`bounded`): the replay (and `route`) then hands them every point key of the trace,
    /// in order, through [`Partitioner::learn_arrival`] before any key is routed.
    fn learns_arrival(&self) -> bool {
        false
    }

    /// Learns keys in their order of arrival (see [`Partitioner::learns_arrival`]); a key
    /// seen before changes nothing. The default ignores them.
    fn learn_arrival(&mut self, keys: &[&[u8]]) {
        let _ = keys;
    }

    /// Why [`Partitioner::without_shard`] refuses some shards, when the scheme has its own
    /// reason (jump removes only its last bucket); `None` uses the general sentence.
    fn removal_refusal(&self) -> Option<String> {
        None
    }

    /// What one [`Partitioner::without_shard`] changes, which lets a search that removes
    /// shards one after another take exact shortcuts. [`RemovalEffect::Unknown`] (the
    /// default) promises nothing, so every key is looked up again.
    fn removal_effect(&self) -> RemovalEffect {
        RemovalEffect::Unknown
    }
}

/// What removing one shard changes ([`Partitioner::removal_effect`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemovalEffect {
    /// Nothing is promised.
    Unknown,
    /// Every single removal gives the same layout up to shard numbers (mod-N rehashes every
    /// key onto the survivors), so one removal stands for all.
    Symmetric,
    /// A removal changes the replicas of only the keys that had a replica on the removed
    /// shard (the others keep theirs, renumbered); of those, a key whose owner survives keeps
    /// it and takes its next replica before the removal ([`Partitioner::replicas`] with one
    /// more), the removed shard left out (range and salted: only the removed shard's ranges
    /// change owner, and replicas follow in shard order).
    Local,
    /// As [`RemovalEffect::Local`], and a key the removed shard owned takes its next replica
    /// too (the ring: the next distinct shard clockwise), so no key is looked up again.
    Successor,
}

/// Adds `(owner + i) mod shards` for `i` in `0..min(rf, shards)` to `out`: the default
/// replica placement of [`Partitioner::replicas`].
pub fn replicas_in_shard_order(owner: ShardId, shards: u32, rf: u32, out: &mut Vec<ShardId>) {
    let shards = shards.max(1);
    out.extend(
        (0..rf.min(shards))
            .map(|i| ((u64::from(owner) + u64::from(i)) % u64::from(shards)) as ShardId),
    );
}

/// A set of shards, as a bitset that remembers how many members it has.
#[derive(Clone, Debug, Default)]
pub struct ShardSet {
    words: Vec<u64>,
    len: u32,
}

impl ShardSet {
    /// An empty set able to hold shards `0..shards`.
    pub fn new(shards: u32) -> Self {
        ShardSet {
            words: vec![0; (shards as usize).div_ceil(64)],
            len: 0,
        }
    }

    /// Adds a shard; returns true when it was not there yet.
    #[inline]
    pub fn insert(&mut self, shard: ShardId) -> bool {
        let (w, b) = ((shard / 64) as usize, shard % 64);
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        let fresh = self.words[w] & (1 << b) == 0;
        self.words[w] |= 1 << b;
        self.len += fresh as u32;
        fresh
    }

    /// Adds every shard in `0..shards`.
    pub fn insert_all(&mut self, shards: u32) {
        for s in 0..shards {
            self.insert(s);
        }
    }

    /// Number of shards in the set.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// True when no shard is in the set.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True when `shard` is in the set.
    pub fn contains(&self, shard: ShardId) -> bool {
        self.words
            .get((shard / 64) as usize)
            .is_some_and(|w| w & (1 << (shard % 64)) != 0)
    }

    /// Empties the set, keeping its allocation.
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
        self.len = 0;
    }

    /// The members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = ShardId> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            (0..64u32)
                .filter(move |b| w & (1 << b) != 0)
                .map(move |b| i as u32 * 64 + b)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_replicas_are_the_owner_and_its_successors_wrapping_around() {
        let mut out = Vec::new();
        replicas_in_shard_order(3, 5, 3, &mut out);
        assert_eq!(out, [3, 4, 0]);
        out.clear();
        replicas_in_shard_order(1, 2, 5, &mut out);
        assert_eq!(out, [1, 0]); // never more replicas than shards
    }

    #[test]
    fn a_shard_set_counts_each_member_once() {
        let mut s = ShardSet::new(70);
        assert!(s.insert(3));
        assert!(!s.insert(3));
        assert!(s.insert(69));
        assert_eq!(s.len(), 2);
        assert_eq!(s.iter().collect::<Vec<_>>(), [3, 69]);
        assert!(s.contains(69) && !s.contains(4));
        s.clear();
        assert!(s.is_empty());
        s.insert_all(5);
        assert_eq!(s.len(), 5);
    }
}
