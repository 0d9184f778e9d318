//! A floor under a layout's utilisation from its heaviest keys alone, so that the search
//! skips the full evaluation of shard counts that cannot work.
//!
//! Every shard's load in every window is a sum over keys (and scans) of what each puts on
//! it, and its stored bytes a sum over the keys it holds; counting only some keys gives at
//! most the full figures, with the same formulas ([`LayoutLoad::from_windows`],
//! [`Limits::utilisation`]). So when the heaviest keys alone put a shard above its limits,
//! the count fails exactly as the full evaluation would say; when they do not, the full
//! evaluation decides. Under skew the heaviest keys carry most of the busiest shard's load,
//! so the floor is close to the full figure for a small fraction of its look-ups.

use std::cmp::Reverse;

use super::traffic::{Entry, Traffic};
use super::window_load::{entry_units, replica_rows, LayoutLoad, ReplicaPolicy};
use super::Limits;
use schemes::{Partitioner, ShardId};

/// The most keys the floor weighs.
pub const HEAVY_KEYS: usize = 4096;

/// The most (window, key) entries the floor reads per layout.
pub const HEAVY_ENTRIES: usize = 1 << 18;

/// The heaviest keys of a traffic and their entries.
pub struct HeavyKeys {
    /// Key numbers, heaviest first.
    keys: Vec<u32>,
    /// Their entries in window order: (group number, position in `keys`, entry).
    entries: Vec<(u32, u32, Entry)>,
}

impl HeavyKeys {
    /// The keys with the most point requests (up to [`HEAVY_KEYS`] keys and
    /// [`HEAVY_ENTRIES`] entries).
    pub fn new(traffic: &Traffic) -> HeavyKeys {
        let requests = |key: u32| -> u64 {
            traffic
                .entries_of(key)
                .iter()
                .map(|(_, e)| e.reads + e.writes)
                .sum()
        };
        let mut keys: Vec<u32> = (0..traffic.keys().len() as u32).collect();
        if keys.len() > HEAVY_KEYS {
            keys.select_nth_unstable_by_key(HEAVY_KEYS - 1, |&k| Reverse(requests(k)));
            keys.truncate(HEAVY_KEYS);
        }
        keys.sort_unstable_by_key(|&k| (Reverse(requests(k)), k));
        let mut entries = Vec::new();
        let mut kept = 0;
        for &key in &keys {
            let of = traffic.entries_of(key);
            if entries.len() + of.len() > HEAVY_ENTRIES {
                break;
            }
            entries.extend(of.iter().map(|&(g, e)| (g, kept, e)));
            kept += 1;
        }
        keys.truncate(kept as usize);
        entries.sort_by_key(|&(g, _, _)| g);
        HeavyKeys { keys, entries }
    }

    /// The utilisation ([`Limits::utilisation`]) of `part` with every shard up counting only
    /// these keys: at most that of the full evaluation. `None` when a key cannot be placed
    /// (the full evaluation then says why).
    pub fn utilisation_floor(
        &self,
        part: &dyn Partitioner,
        traffic: &Traffic,
        policy: ReplicaPolicy,
        limits: &Limits,
    ) -> Option<f64> {
        let rf = policy.replicas.max(1);
        let rows = replica_rows(part, traffic, &self.keys, rf).ok()?;
        let row = |i: u32| &rows[i as usize * rf as usize..(i as usize + 1) * rf as usize];
        let n = part.shard_count() as usize;
        let mut bytes = vec![0u64; n];
        for (i, &key) in self.keys.iter().enumerate() {
            let b = traffic.key_bytes()[key as usize];
            row(i as u32).iter().for_each(|&s| bytes[s as usize] += b);
        }
        // The busiest shard of every window these keys reach.
        let (mut units, mut touched) = (vec![0u64; n], Vec::new());
        let mut busiest = Vec::new();
        for run in self.entries.chunk_by(|a, b| a.0 == b.0) {
            for &(_, i, ref e) in run {
                entry_units(e, row(i), policy.reads, |s, u| {
                    if units[s as usize] == 0 {
                        touched.push(s);
                    }
                    units[s as usize] += u;
                });
            }
            let mut best = (0u64, 0 as ShardId);
            for s in touched.drain(..) {
                let u = std::mem::take(&mut units[s as usize]);
                if u > best.0 {
                    best = (u, s);
                }
            }
            busiest.push((traffic.groups()[run[0].0 as usize].window, best.0, best.1));
        }
        let load = LayoutLoad::from_windows(rf, traffic, busiest, 0, vec![0; n], bytes);
        Some(limits.utilisation(&load))
    }
}
