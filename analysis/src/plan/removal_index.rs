//! What the trial removals of one failure-chain state share, for layouts whose removals are
//! [`RemovalEffect::Local`](crate::RemovalEffect::Local): the keys with a replica on each
//! shard, and every key's next replica after its `rf`.
//!
//! Under a local removal rule a key whose owner survives keeps its owner, and its replicas
//! become its first `rf + 1` replicas in the layout before the removal, without the removed
//! shard (ring: the next distinct shard clockwise; range and salted: the next shard in number
//! order, as the removed shard's ranges alone change owner). So only the keys the removed
//! shard owned are looked up again in the layout after it, and none under
//! [`RemovalEffect::Successor`](crate::RemovalEffect::Successor) (the ring); `tests/plan.rs`
//! checks every removal against a table built from scratch.

use super::traffic::Traffic;
use super::window_load::{replica_rows, ReplicaTable, TableChange};
use crate::{AnalysisError, Partitioner, ShardId};

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
    /// removals are [`RemovalEffect::Successor`](crate::RemovalEffect::Successor).
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

    /// The keys with a replica on `shard`, increasing.
    fn keys_on(&self, shard: ShardId) -> &[u32] {
        &self.keys[self.starts[shard as usize] as usize..self.starts[shard as usize + 1] as usize]
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
        let mut rows = Vec::with_capacity(keys.len() * rf);
        // Positions in `keys` of the keys looked up again: those `removed` owned (unless
        // they take their successor) and those without a next replica.
        let mut owned = Vec::new();
        for (i, &key) in keys.iter().enumerate() {
            let (row, spare) = (table.of(key), self.spare[key as usize]);
            if (row[0] == removed && !self.successor) || spare == NO_SPARE {
                owned.push(i);
                rows.extend_from_slice(row); // replaced below
            } else {
                rows.extend(row.iter().copied().filter(|&s| s != removed));
                rows.push(spare);
            }
        }
        let looked_up: Vec<u32> = owned.iter().map(|&i| keys[i]).collect();
        let found = replica_rows(next, traffic, &looked_up, rf as u32)?;
        for (row, &i) in found.chunks(rf).zip(&owned) {
            rows[i * rf..(i + 1) * rf].copy_from_slice(row);
        }
        Ok(TableChange::new(rf as u32, keys.to_vec(), rows))
    }
}
