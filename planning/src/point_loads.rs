//! Point-request loads per (window with traffic, shard), kept so that many trial removals can
//! each move only the keys they change instead of sweeping every request again.
//!
//! Exactly the figures of [`super::window_load::evaluate_with`] (tests compare them), at the
//! cost of `windows with traffic x shards` counters; above [`MAX_CELLS`] the plan sweeps.

use rayon::prelude::*;

use super::traffic::Traffic;
use super::window_load::{
    entry_units, unit_changes, LayoutLoad, ReadPolicy, ReplicaTable, TableChange,
};
use schemes::{Partitioner, ShardId, ShardSet};

/// The most counters a [`PointLoads`] may hold (128 MiB).
pub const MAX_CELLS: usize = 1 << 24;

/// Per window with traffic: (window, busiest units, busiest shard, scan units by shard,
/// units every live shard received from scans that contacted them all).
type GroupLoad = (u32, u64, ShardId, Vec<(ShardId, u64)>, u64);

/// Units of point requests per window with traffic and shard, and stored bytes per shard.
#[derive(Clone, Debug)]
pub struct PointLoads {
    shards: usize,
    /// Row `g` (group `g` of the traffic) holds the units of every shard.
    units: Vec<u64>,
    bytes: Vec<u64>,
}

impl PointLoads {
    /// The point loads of `table` on `shards` shards; `None` above [`MAX_CELLS`] counters.
    pub fn new(
        table: &ReplicaTable,
        traffic: &Traffic,
        reads: ReadPolicy,
        shards: u32,
    ) -> Option<PointLoads> {
        let n = shards as usize;
        let cells = traffic
            .groups()
            .len()
            .checked_mul(n)
            .filter(|&c| c <= MAX_CELLS)?;
        let mut units = vec![0u64; cells];
        let entries = traffic.entries();
        units
            .par_chunks_mut(n.max(1))
            .zip(traffic.groups())
            .for_each(|(row, g)| {
                for e in &entries[g.entries.clone()] {
                    entry_units(e, table.of(e.key), reads, |s, u| row[s as usize] += u);
                }
            });
        Some(PointLoads {
            shards: n,
            units,
            bytes: table.bytes_per_shard(traffic, n),
        })
    }

    /// The number of shards.
    pub fn shards(&self) -> usize {
        self.shards
    }

    /// The number of point-load counters: windows with traffic times shards.
    pub fn cells(&self) -> usize {
        self.units.len()
    }

    /// These loads with `units` (one per counter) and `bytes` (one per shard) added,
    /// wrapping: the deltas of [`crate::removal_loads`] are two's-complement.
    pub(crate) fn plus(&self, units: &[u64], bytes: &[u64]) -> PointLoads {
        let add = |a: &[u64], b: &[u64]| a.iter().zip(b).map(|(x, y)| x.wrapping_add(*y)).collect();
        PointLoads {
            shards: self.shards,
            units: add(&self.units, units),
            bytes: add(&self.bytes, bytes),
        }
    }

    /// These loads after the keys of `change` moved from their replicas in `before`.
    pub fn moved(
        &self,
        before: &ReplicaTable,
        change: &TableChange,
        traffic: &Traffic,
        reads: ReadPolicy,
    ) -> PointLoads {
        let mut next = self.clone();
        let (n, key_bytes) = (self.shards, traffic.key_bytes());
        let mut changes = Vec::new();
        for (i, &key) in change.keys().iter().enumerate() {
            let (old, new) = (before.of(key), change.row(i));
            unit_changes(old, new, reads, &mut changes);
            for (g, e) in traffic.entries_of(key) {
                let row = &mut next.units[*g as usize * n..(*g as usize + 1) * n];
                for &(s, per_read, per_write) in &changes {
                    let units = per_read * e.reads as i64 + per_write * e.writes as i64;
                    row[s as usize] = row[s as usize].wrapping_add_signed(units);
                }
            }
            let b = key_bytes[key as usize];
            old.iter().for_each(|&s| next.bytes[s as usize] -= b);
            new.iter().for_each(|&s| next.bytes[s as usize] += b);
        }
        next
    }

    /// The load of `part` (whose shards `failed` own nothing): these point loads plus its
    /// scans and range writes, one request to every shard each contacts.
    pub fn load(
        &self,
        part: &dyn Partitioner,
        failed: &[ShardId],
        traffic: &Traffic,
        replicas: u32,
    ) -> LayoutLoad {
        let n = self.shards;
        let rf = u64::from(replicas);
        let live = part.shard_count() - failed.len() as u32;
        let first_live = (0..part.shard_count())
            .find(|s| !failed.contains(s))
            .unwrap_or(0);
        let scans = traffic.scans();
        let per_group: Vec<GroupLoad> = traffic
            .groups()
            .par_iter()
            .enumerate()
            .map_init(
                || (ShardSet::new(n as u32), vec![0u64; n]),
                |(set, extra), (g, group)| {
                    let mut broadcast = 0;
                    let mut touched: Vec<(ShardId, u64)> = Vec::new();
                    for scan in &scans[group.scans.clone()] {
                        set.clear();
                        scan.shards(part, replicas, set);
                        if set.len() == live {
                            broadcast += rf;
                        } else {
                            set.iter().for_each(|s| extra[s as usize] += rf);
                        }
                    }
                    let row = &self.units[g * n..(g + 1) * n];
                    let mut best = (0u64, first_live);
                    for s in 0..n {
                        let units = row[s] + extra[s];
                        if units > best.0 {
                            best = (units, s as ShardId);
                        }
                        if extra[s] > 0 {
                            touched.push((s as ShardId, std::mem::take(&mut extra[s])));
                        }
                    }
                    (group.window, best.0 + broadcast, best.1, touched, broadcast)
                },
            )
            .collect();
        let mut totals = vec![0u64; n];
        for row in self.units.chunks(n.max(1)) {
            totals.iter_mut().zip(row).for_each(|(t, u)| *t += u);
        }
        let mut broadcast_total = 0;
        for (_, _, _, touched, broadcast) in &per_group {
            touched.iter().for_each(|&(s, u)| totals[s as usize] += u);
            broadcast_total += broadcast;
        }
        for (s, t) in totals.iter_mut().enumerate() {
            if !failed.contains(&(s as ShardId)) {
                *t += broadcast_total;
            }
        }
        let busiest = per_group
            .into_iter()
            .map(|(w, units, s, _, _)| (w, units, s))
            .collect();
        LayoutLoad::from_windows(
            replicas,
            traffic,
            busiest,
            first_live,
            totals,
            self.bytes.clone(),
        )
    }
}
