//! The simulated cluster: the range map with per-range statistics, and the stored keys.
//!
//! What a range holds: every key a point operation has touched and no delete has removed
//! since (a read proves the key exists in a trace that starts mid-life), at `key length +
//! value size` bytes (the last size seen; the key alone when sizes are unknown).

use std::collections::BTreeMap;
use std::ops::Bound::{Excluded, Included, Unbounded};

use workloads::{Event, Op};

use super::range_map::{RangeMap, RangeMapError};
use super::rebalance::{self, Move, RangeLoad, Replicas};

/// What the simulation keeps per range.
#[derive(Clone, Debug, Default)]
pub struct RangeStats {
    /// Bytes of the stored keys.
    pub bytes: u64,
    /// Stored keys.
    pub keys: u64,
    /// EWMA of requests per window.
    pub ewma: f64,
    /// Requests in the current window.
    pub requests: u64,
    /// Windows in a row with `ewma` over the split threshold, since the last decision.
    pub hot_streak: u32,
    /// The window of the split that created this range.
    pub split_at: Option<u64>,
    /// The window of the split that created this range's start boundary.
    pub boundary_split_at: Option<u64>,
    /// Nodes holding a replica (the owner is one of them).
    pub replicas: Replicas,
}

/// Why a range is split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitCause {
    /// Before the first window's requests count: not a simulated split.
    Presplit,
    /// Too many bytes, at the end of this window: the halves keep the parent's hot streak,
    /// since the load they carry is the same as before.
    Size(u64),
    /// Too much load, decided at the end of this window: the halves start new hot streaks.
    Load(u64),
}

/// Ranges, their statistics and the stored keys.
pub struct Cluster {
    /// The ranges, each with what the simulation keeps of it.
    pub map: RangeMap<RangeStats>,
    /// Stored key -> bytes.
    store: BTreeMap<Vec<u8>, u64>,
    nodes: u32,
    replication: u32,
}

impl Cluster {
    /// One range owned by node 0 on a cluster of `nodes` nodes (at least 1) keeping
    /// `replicas` replicas per range (capped at the node count).
    pub fn new(nodes: u32, replicas: u32) -> Cluster {
        let nodes = nodes.max(1);
        let replication = replicas.clamp(1, nodes);
        let mut cluster = Cluster {
            map: RangeMap::new(0, RangeStats::default()),
            store: BTreeMap::new(),
            nodes,
            replication,
        };
        cluster.place_contiguously();
        cluster
    }

    /// Node count.
    pub fn nodes(&self) -> u32 {
        self.nodes
    }

    /// Adds `k` nodes holding nothing.
    pub fn add_nodes(&mut self, k: u32) {
        self.nodes = self.nodes.saturating_add(k);
    }

    /// True when some range has a replica on `node`.
    pub fn holds(&self, node: u32) -> bool {
        self.map
            .iter()
            .any(|(_, r)| r.data.replicas.contains(&node))
    }

    /// Gives every range to node `floor(i * N / R)` (range `i` of `R`: owners contiguous in
    /// key order), with replicas on the next nodes round the cluster.
    fn place_contiguously(&mut self) {
        let (nodes, replication) = (self.nodes, self.replication);
        let ranges = self.map.len() as u64;
        for (i, (_, entry)) in self.map.iter_mut().enumerate() {
            let owner = (i as u64 * u64::from(nodes) / ranges) as u32;
            entry.set_owner(owner);
            entry.data.replicas = (0..replication).map(|r| (owner + r) % nodes).collect();
        }
    }

    /// Cuts the single initial range into `k` ranges at quantiles of `keys` (sorted, distinct)
    /// and gives range `i` to node `floor(i * N / k)`.
    pub fn presplit(&mut self, keys: &[&[u8]], k: u64) {
        let k_usize = usize::try_from(k).unwrap_or(usize::MAX).min(keys.len());
        for i in 1..k_usize {
            // Quantiles of distinct sorted keys are distinct and increasing, so a split can
            // only be refused at the empty key, which is a boundary already.
            let _ = self.split(keys[i * keys.len() / k_usize], SplitCause::Presplit, 0.5);
        }
        self.place_contiguously();
    }

    /// Counts a point request to the range holding `e.key` and applies it to the stored keys
    /// (a scan that reaches only its start key is counted but stores nothing). Returns the
    /// owner.
    pub fn record_point(&mut self, e: &Event<'_>) -> u32 {
        let (_, range) = self.map.lookup_mut(e.key);
        range.data.requests += 1;
        let bytes = e.key.len() as u64 + u64::from(e.size.unwrap_or(0));
        let stats = &mut range.data;
        match (e.op, self.store.get_mut(e.key)) {
            (Op::Delete, Some(old)) => {
                stats.bytes = stats.bytes.saturating_sub(*old);
                stats.keys = stats.keys.saturating_sub(1);
                self.store.remove(e.key);
            }
            (Op::Put, Some(old)) => {
                stats.bytes = stats.bytes.saturating_sub(*old) + bytes;
                *old = bytes;
            }
            (Op::Put | Op::Get, None) => {
                stats.bytes += bytes;
                stats.keys += 1;
                self.store.insert(e.key.to_vec(), bytes);
            }
            _ => {}
        }
        range.owner()
    }

    /// The median distinct stored key of the range starting at `start` (`None` with fewer
    /// than two keys, when it could not cut the range).
    pub fn median_key(&self, start: &[u8]) -> Option<Vec<u8>> {
        let range = self.map.get(start)?;
        if range.data.keys < 2 {
            return None;
        }
        let upper = range.end().map_or(Unbounded, Excluded);
        let nth = usize::try_from(range.data.keys / 2).ok()?;
        self.store
            .range::<[u8], _>((Included(start), upper))
            .nth(nth)
            .map(|(k, _)| k.clone())
    }

    /// Splits the range holding `at` at `at`. The left range keeps `left_share` of the EWMA
    /// load and the right one the rest; both remember a simulated split for the cool-down.
    pub fn split(
        &mut self,
        at: &[u8],
        cause: SplitCause,
        left_share: f64,
    ) -> Result<(), RangeMapError> {
        let start = self.map.lookup(at).0.to_vec();
        if start == at {
            return Err(RangeMapError::Boundary(at.to_vec()));
        }
        let (left_bytes, left_keys) = self
            .store
            .range::<[u8], _>((Included(start.as_slice()), Excluded(at)))
            .fold((0u64, 0u64), |(b, k), (_, size)| (b + size, k + 1));
        let share = if left_share.is_finite() {
            left_share.clamp(0.0, 1.0)
        } else {
            0.5
        };
        let (window, streak_kept) = match cause {
            SplitCause::Presplit => (None, false),
            SplitCause::Size(w) => (Some(w), true),
            SplitCause::Load(w) => (Some(w), false),
        };
        let parent = &mut self.map.lookup_mut(at).1.data;
        if !streak_kept {
            parent.hot_streak = 0;
        }
        let right = RangeStats {
            bytes: parent.bytes.saturating_sub(left_bytes),
            keys: parent.keys.saturating_sub(left_keys),
            ewma: parent.ewma * (1.0 - share),
            requests: 0,
            hot_streak: parent.hot_streak,
            split_at: window,
            boundary_split_at: window,
            replicas: parent.replicas.clone(),
        };
        parent.bytes = left_bytes;
        parent.keys = left_keys;
        parent.ewma *= share;
        parent.split_at = window;
        self.map.split(at, right)
    }

    /// Merges the range starting at `start` with its right neighbour; returns the window of
    /// the split that created the boundary just removed, if a simulated split did.
    pub fn merge(&mut self, start: &[u8]) -> Result<Option<u64>, RangeMapError> {
        let right = self.map.merge(start)?;
        let left = self
            .map
            .get_mut(start)
            .ok_or_else(|| RangeMapError::NoSuchRange(start.to_vec()))?;
        let stats = &mut left.data;
        stats.bytes += right.bytes;
        stats.keys += right.keys;
        stats.ewma += right.ewma;
        stats.requests += right.requests;
        stats.hot_streak = 0;
        stats.split_at = None;
        Ok(right.boundary_split_at)
    }

    /// What the rebalancer needs of every range, in key order.
    pub fn loads(&self) -> Vec<RangeLoad> {
        self.map
            .iter()
            .map(|(_, r)| RangeLoad {
                load: r.data.ewma,
                bytes: r.data.bytes,
                owner: r.owner(),
                replicas: r.data.replicas.clone(),
            })
            .collect()
    }

    /// Applies rebalancer moves whose range indices refer to [`Cluster::loads`] order.
    pub fn apply(&mut self, moves: &[Move]) {
        let mut entries: Vec<_> = self.map.iter_mut().map(|(_, e)| e).collect();
        for m in moves {
            if let Some(entry) = entries.get_mut(m.range) {
                let mut owner = entry.owner();
                rebalance::apply(m, &mut owner, &mut entry.data.replicas);
                entry.set_owner(owner);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(key: &[u8], size: u32) -> Event<'_> {
        Event {
            op: Op::Put,
            key,
            end: None,
            timestamp: None,
            size: Some(size),
        }
    }

    #[test]
    fn stored_bytes_follow_puts_updates_and_deletes_and_split_with_the_range() {
        let mut c = Cluster::new(4, 3);
        for k in [b"a", b"b", b"c", b"d"] {
            c.record_point(&put(k, 9));
        }
        c.record_point(&put(b"b", 19));
        c.record_point(&Event {
            op: Op::Delete,
            key: b"c",
            end: None,
            timestamp: None,
            size: None,
        });
        c.record_point(&Event {
            op: Op::Delete,
            key: b"zz",
            end: None,
            timestamp: None,
            size: None,
        });
        let r = &c.map.get(b"").unwrap().data;
        assert_eq!((r.bytes, r.keys, r.requests), (10 + 20 + 10, 3, 7));
        assert_eq!(c.median_key(b""), Some(b"b".to_vec()));
        c.map.get_mut(b"").unwrap().data.ewma = 8.0;
        c.split(b"b", SplitCause::Load(4), 0.25).unwrap();
        let (left, right) = (
            &c.map.get(b"").unwrap().data,
            &c.map.get(b"b").unwrap().data,
        );
        assert_eq!((left.bytes, left.keys, left.ewma), (10, 1, 2.0));
        assert_eq!((right.bytes, right.keys, right.ewma), (30, 2, 6.0));
        assert_eq!(
            (right.split_at, right.boundary_split_at),
            (Some(4), Some(4))
        );
        assert_eq!(c.merge(b""), Ok(Some(4)));
        let merged = &c.map.get(b"").unwrap().data;
        assert_eq!((merged.bytes, merged.keys, merged.ewma), (40, 3, 8.0));
    }

    #[test]
    fn a_presplit_cuts_at_key_quantiles_with_contiguous_owners() {
        let mut c = Cluster::new(2, 2);
        let keys: Vec<Vec<u8>> = (0u8..8).map(|i| vec![i + 1]).collect();
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        c.presplit(&refs, 4);
        let got: Vec<(Vec<u8>, u32)> = c.map.iter().map(|(s, e)| (s.to_vec(), e.owner())).collect();
        assert_eq!(
            got,
            vec![(vec![], 0), (vec![3], 0), (vec![5], 1), (vec![7], 1)]
        );
        assert_eq!(c.map.get(&[5]).unwrap().data.replicas.as_slice(), &[1, 0]);
        assert!(c.map.check().is_ok());
    }
}
