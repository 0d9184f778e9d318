//! What the trial removals of one failure-chain state share, for layouts whose removals are
//! [`RemovalEffect::Local`](schemes::RemovalEffect::Local): the keys with a replica on each
//! shard, and every key's next replica after its `rf`.
//!
//! Under a local removal rule a key whose owner survives keeps its owner, and its replicas
//! become its first `rf + 1` replicas in the layout before the removal, without the removed
//! shard (ring: the next distinct shard clockwise; range and salted: the next shard in number
//! order, as the removed shard's ranges alone change owner). So only the keys the removed
//! shard owned are looked up again in the layout after it, and none under
//! [`RemovalEffect::Successor`](schemes::RemovalEffect::Successor) (the ring); `tests/plan.rs`
//! checks every removal against a table built from scratch.

use super::traffic::Traffic;
use super::window_load::{replica_rows, ReplicaTable, TableChange};
use schemes::{AnalysisError, Partitioner, ShardId};

/// Marks a key without a known next replica: it is looked up in every removal that moves it.
const NO_SPARE: ShardId = ShardId::MAX;

/// The keys on every shard and every key's next replica, in one state of the failure chain.
pub struct RemovalIndex {
    /// Per key, its replica number `rf + 1` before any removal ([`NO_SPARE`] when unknown).
    spare: Vec<ShardId>,
    /// Where each shard's part of `keys` starts; one more than there are shards.
    starts: Vec<u32>,
    /// The keys with a replica on each shard, shard by shard, increasing.
    keys: Vec<u32>,
    /// True when a removed owner's keys take their next replica too.
    successor: bool,
}

impl RemovalIndex {
    /// The index of `table`, the replicas of every key on `part`; `successor` when `part`'s
    /// removals are [`RemovalEffect::Successor`](schemes::RemovalEffect::Successor).
    pub fn new(
        part: &dyn Partitioner,
        table: &ReplicaTable,
        traffic: &Traffic,
        successor: bool,
    ) -> Result<RemovalIndex, AnalysisError> {
        let n = traffic.keys().len();
        let rf = table.replicas() as usize;
        let every: Vec<u32> = (0..n as u32).collect();
        // A layout that cannot place `rf + 1` replicas (or places the first `rf` otherwise)
        // leaves the keys to be looked up.
        let spare = match replica_rows(part, traffic, &every, rf as u32 + 1) {
            Ok(rows) => rows
                .chunks(rf + 1)
                .enumerate()
                .map(|(key, row)| {
                    if row[..rf] == *table.of(key as u32) {
                        row[rf]
                    } else {
                        NO_SPARE
                    }
                })
                .collect(),
            Err(_) => vec![NO_SPARE; n],
        };
        let shards = part.shard_count() as usize;
        let mut starts = vec![0u32; shards + 1];
        for key in 0..n as u32 {
            table
                .of(key)
                .iter()
                .for_each(|&s| starts[s as usize + 1] += 1);
        }
        for s in 1..starts.len() {
            starts[s] += starts[s - 1];
        }
        let mut next = starts.clone();
        let mut keys = vec![0u32; starts[shards] as usize];
        for key in 0..n as u32 {
            for &s in table.of(key) {
                keys[next[s as usize] as usize] = key;
                next[s as usize] += 1;
            }
        }
        Ok(RemovalIndex {
            spare,
            starts,
            keys,
            successor,
        })
    }

    /// True when every key's replicas after any removal are predicted
    /// ([`RemovalIndex::predicted_row`]): removals take successors and every key has a next
    /// replica, so no layout without a shard is needed to know them.
    pub fn predicts_every_key(&self) -> bool {
        self.successor && !self.spare.contains(&NO_SPARE)
    }

    /// The keys with a replica on `shard`, increasing.
    fn keys_on(&self, shard: ShardId) -> &[u32] {
        &self.keys[self.starts[shard as usize] as usize..self.starts[shard as usize + 1] as usize]
    }

    /// True when `key` (whose replicas in `table` are `row` and include `removed`) is looked
    /// up again in the layout without `removed`: `removed` owned it (unless it takes its
    /// successor) or its next replica is unknown.
    #[inline]
    fn needs_look_up(&self, key: u32, row: &[ShardId], removed: ShardId) -> bool {
        (row[0] == removed && !self.successor) || self.spare[key as usize] == NO_SPARE
    }

    /// The replicas of `key` (whose replicas in `table` are `row` and include `removed`)
    /// after `removed` leaves, pushed onto `out`, when known without a look-up (see the
    /// module); false, and nothing pushed, when the key must be looked up again.
    #[inline]
    pub fn predicted_row(
        &self,
        key: u32,
        row: &[ShardId],
        removed: ShardId,
        out: &mut Vec<ShardId>,
    ) -> bool {
        if self.needs_look_up(key, row, removed) {
            return false;
        }
        out.extend(row.iter().copied().filter(|&s| s != removed));
        out.push(self.spare[key as usize]);
        true
    }

    /// The keys with a replica on `removed` whose replicas after it leaves are not predicted
    /// ([`RemovalIndex::predicted_row`]), increasing, and their replicas on `next`, the layout
    /// without it (`rf` per key).
    pub fn looked_up(
        &self,
        table: &ReplicaTable,
        next: &dyn Partitioner,
        removed: ShardId,
        traffic: &Traffic,
    ) -> Result<(Vec<u32>, Vec<ShardId>), AnalysisError> {
        let keys: Vec<u32> = self
            .keys_on(removed)
            .iter()
            .copied()
            .filter(|&key| self.needs_look_up(key, table.of(key), removed))
            .collect();
        let rows = replica_rows(next, traffic, &keys, table.replicas())?;
        Ok((keys, rows))
    }

    /// What changes in `table` when `removed` leaves (see the module): the keys with a replica
    /// on it and their replicas on `next`, the layout without it.
    pub fn local_removal(
        &self,
        table: &ReplicaTable,
        next: &dyn Partitioner,
        removed: ShardId,
        traffic: &Traffic,
    ) -> Result<TableChange, AnalysisError> {
        let rf = table.replicas() as usize;
        let keys = self.keys_on(removed);
        let (looked_up, found) = self.looked_up(table, next, removed, traffic)?;
        let mut rows = Vec::with_capacity(keys.len() * rf);
        let mut found = looked_up.iter().zip(found.chunks(rf));
        for &key in keys {
            if !self.predicted_row(key, table.of(key), removed, &mut rows) {
                let (_, row) = found.next().expect("every key not predicted was looked up");
                rows.extend_from_slice(row);
            }
        }
        Ok(TableChange::new(rf as u32, keys.to_vec(), rows))
    }
}
