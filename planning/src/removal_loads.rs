//! The point loads after each trial removal of a batch, from one pass over the keys in order.
//!
//! [`PointLoads::moved`] moves the keys of one removal, reading each key's replicas and
//! entries where they lie: a few cache misses per key moved, for every removal of every
//! failure-chain state. Here the keys are read once, in order, for a whole batch of removals:
//! each key with a replica on a shard of the batch adds its net change of units (window by
//! window) and of bytes to that removal's counters. The sums are of the same integers, so the
//! loads are exactly those of [`PointLoads::moved`] (`tests/plan.rs` compares them).

use rayon::prelude::*;

use super::point_loads::PointLoads;
use super::removal_index::RemovalIndex;
use super::traffic::Traffic;
use super::window_load::{push_replicas, unit_changes, ReadPolicy, ReplicaTable};
use schemes::{AnalysisError, Partitioner, ShardId};

/// The most counters one pass keeps per thread (32 MiB): removals per pass times point-load
/// counters. A layout whose point loads alone exceed it moves keys one removal at a time.
pub const MAX_PASS_CELLS: usize = 1 << 22;

/// How many removals one pass over `points` may carry; 0 when the point loads are too large
/// for a pass ([`MAX_PASS_CELLS`]).
pub fn batch_limit(points: &PointLoads) -> usize {
    MAX_PASS_CELLS / points.cells().max(1)
}

/// Marks a shard outside the batch.
const NOT_REMOVED: u32 = u32::MAX;

/// The point loads after each of `removals` (a shard and the layout without it), each removed
/// alone from the layout of `table` whose point loads are `points`; `index` is that layout's
/// [`RemovalIndex`]. A layout may be left out when the index predicts every key
/// ([`RemovalIndex::predicts_every_key`]). At most [`batch_limit`] removals.
pub fn after_each(
    points: &PointLoads,
    table: &ReplicaTable,
    index: &RemovalIndex,
    removals: &[(ShardId, Option<&dyn Partitioner>)],
    traffic: &Traffic,
    reads: ReadPolicy,
) -> Result<Vec<PointLoads>, AnalysisError> {
    debug_assert!(removals.len() <= batch_limit(points));
    let (n, cells) = (points.shards(), points.cells());
    let mut slot = vec![NOT_REMOVED; n];
    for (b, &(shard, _)) in removals.iter().enumerate() {
        slot[shard as usize] = b as u32;
    }
    let (all_keys, keys) = (traffic.keys(), traffic.keys().len() as u64);
    let pieces = rayon::current_num_threads().max(1) as u64;
    let rf = table.replicas() as usize;
    let key_bytes = traffic.key_bytes();
    let delta = (0..pieces)
        .into_par_iter()
        .map(|p| {
            let (low, high) = ((keys * p / pieces) as u32, (keys * (p + 1) / pieces) as u32);
            let mut units = vec![0u64; removals.len() * cells];
            let mut bytes = vec![0u64; removals.len() * n];
            let (mut new, mut changes) = (Vec::with_capacity(rf), Vec::new());
            for key in low..high {
                let row = table.of(key);
                for &removed in row {
                    let b = slot[removed as usize];
                    if b == NOT_REMOVED {
                        continue;
                    }
                    let b = b as usize;
                    new.clear();
                    if !index.predicted_row(key, row, removed, &mut new) {
                        // Looked up here, as the keys come in order (not shard by shard,
                        // which reads each key's bytes from a cold cache line).
                        let next = removals[b].1.expect("a layout where keys are looked up");
                        push_replicas(next, &all_keys[key as usize], rf as u32, &mut new)?;
                    }
                    unit_changes(row, &new, reads, &mut changes);
                    let units = &mut units[b * cells..(b + 1) * cells];
                    for &(g, ref e) in traffic.entries_of(key) {
                        let window = &mut units[g as usize * n..(g as usize + 1) * n];
                        for &(s, per_read, per_write) in &changes {
                            let u = per_read * e.reads as i64 + per_write * e.writes as i64;
                            window[s as usize] = window[s as usize].wrapping_add_signed(u);
                        }
                    }
                    let (bytes, kb) = (&mut bytes[b * n..(b + 1) * n], key_bytes[key as usize]);
                    row.iter()
                        .for_each(|&s| bytes[s as usize] = bytes[s as usize].wrapping_sub(kb));
                    new.iter()
                        .for_each(|&s| bytes[s as usize] = bytes[s as usize].wrapping_add(kb));
                }
            }
            Ok((units, bytes))
        })
        .collect::<Result<Vec<_>, AnalysisError>>()?
        .into_iter()
        .reduce(|mut a, b| {
            add_wrapping(&mut a.0, &b.0);
            add_wrapping(&mut a.1, &b.1);
            a
        });
    let (units, bytes) = delta.expect("at least one piece");
    Ok((0..removals.len())
        .map(|b| {
            points.plus(
                &units[b * cells..(b + 1) * cells],
                &bytes[b * n..(b + 1) * n],
            )
        })
        .collect())
}

/// `a += b` element by element, wrapping (the deltas are two's-complement).
fn add_wrapping(a: &mut [u64], b: &[u64]) {
    a.iter_mut()
        .zip(b)
        .for_each(|(x, y)| *x = x.wrapping_add(*y));
}
