//! The slices of a `slicer` layout ([`Slices`]): the 64-bit hash space of the pinned hash cut
//! into ranges, each served by one task, and the load of any range ([`HashLoads`]).

use serde::{Deserialize, Serialize};

use crate::pinned_hash::hash64;
use crate::ShardSet;

/// The size of the hash space, 2^64.
pub const SPACE: u128 = 1 << 64;

/// `width` as a share of the hash space.
pub fn share(width: u128) -> f64 {
    width as f64 / SPACE as f64
}

/// The hash space cut into slices on tasks: slice `i` is `[starts[i], starts[i + 1])` (the
/// last one ends at 2^64), served by task `owner[i]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Slices {
    /// Tasks (at least 1).
    pub tasks: u32,
    /// The first hash of each slice, increasing, the first 0.
    pub starts: Vec<u64>,
    /// The task of each slice.
    pub owner: Vec<u32>,
}

impl Slices {
    /// `per` equal slices for each of the first `on` of `tasks` tasks, round-robin (slice `i`
    /// on task `i mod on`); slice `i` starts at `floor(i * 2^64 / (per * on))`.
    pub fn round_robin(per: u32, on: u32, tasks: u32) -> Slices {
        let tasks = tasks.max(1);
        let on = on.clamp(1, tasks);
        let count = u128::from(per.max(1)) * u128::from(on);
        Slices {
            tasks,
            starts: (0..count).map(|i| (i * SPACE / count) as u64).collect(),
            owner: (0..count).map(|i| (i % u128::from(on)) as u32).collect(),
        }
    }

    /// Number of slices.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// True when there is no slice (never for a checked layout).
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The end (exclusive) of slice `i`.
    pub fn end(&self, i: usize) -> u128 {
        self.starts.get(i + 1).map_or(SPACE, |&s| u128::from(s))
    }

    /// The width of slice `i`.
    pub fn width(&self, i: usize) -> u128 {
        self.end(i) - u128::from(self.starts[i])
    }

    /// The slice holding hash `h`.
    pub fn slice_of(&self, h: u64) -> usize {
        self.starts.partition_point(|&s| s <= h).saturating_sub(1)
    }

    /// The task serving `key`.
    pub fn task_of_key(&self, key: &[u8]) -> u32 {
        self.owner
            .get(self.slice_of(hash64(key)))
            .copied()
            .unwrap_or(0)
    }

    /// Every task that serves a slice: what a scan contacts.
    pub fn scan_tasks(&self, out: &mut ShardSet) {
        for &t in &self.owner {
            out.insert(t);
        }
    }

    /// Splits slice `i` at the middle of its range (its width must be at least 2); the half
    /// `[mid, end)` becomes slice `i + 1`, on the same task.
    pub fn split(&mut self, i: usize) {
        let mid = (u128::from(self.starts[i]) + self.end(i)) / 2;
        self.starts.insert(i + 1, mid as u64);
        self.owner.insert(i + 1, self.owner[i]);
    }

    /// Merges slices `i` and `i + 1` into slice `i`, served by `task`.
    pub fn merge(&mut self, i: usize, task: u32) {
        self.starts.remove(i + 1);
        self.owner.remove(i + 1);
        self.owner[i] = task;
    }

    /// True when the slices cover the space in order and every owner is a task.
    pub fn is_valid(&self) -> bool {
        self.tasks > 0
            && !self.starts.is_empty()
            && self.starts.len() == self.owner.len()
            && self.starts[0] == 0
            && self.starts.windows(2).all(|w| w[0] < w[1])
            && self.owner.iter().all(|&t| t < self.tasks)
    }
}

/// Requests by hash: the load of any range of the hash space, exactly.
#[derive(Clone, Debug)]
pub struct HashLoads {
    /// Distinct hashes, increasing.
    hashes: Vec<u64>,
    /// `before[i]`: the requests of `hashes[..i]` (one more entry than `hashes`).
    before: Vec<u64>,
}

impl Default for HashLoads {
    fn default() -> HashLoads {
        HashLoads::new(Vec::new())
    }
}

impl HashLoads {
    /// The loads of `(hash, requests)` pairs, in any order.
    pub fn new(mut pairs: Vec<(u64, u64)>) -> HashLoads {
        pairs.sort_unstable();
        let mut hashes: Vec<u64> = Vec::with_capacity(pairs.len());
        let mut before = vec![0u64];
        for (h, n) in pairs {
            let total = before.last().copied().unwrap_or(0).saturating_add(n);
            if hashes.last() == Some(&h) {
                if let Some(last) = before.last_mut() {
                    *last = total;
                }
            } else {
                hashes.push(h);
                before.push(total);
            }
        }
        HashLoads { hashes, before }
    }

    /// The loads of keys each requested `n` times.
    pub fn of_keys<'k>(keys: impl IntoIterator<Item = (&'k [u8], u64)>) -> HashLoads {
        HashLoads::new(keys.into_iter().map(|(k, n)| (hash64(k), n)).collect())
    }

    /// All requests.
    pub fn total(&self) -> u64 {
        self.before.last().copied().unwrap_or(0)
    }

    /// The requests of hashes in `[start, end)`.
    pub fn range(&self, start: u128, end: u128) -> u64 {
        let at = |x: u128| self.hashes.partition_point(|&h| u128::from(h) < x);
        let before = |x: u128| self.before.get(at(x)).copied().unwrap_or(0);
        before(end).saturating_sub(before(start))
    }

    /// The load of every slice of `slices`.
    pub fn per_slice(&self, slices: &Slices) -> Vec<u64> {
        (0..slices.len())
            .map(|i| self.range(u128::from(slices.starts[i]), slices.end(i)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_slices_round_robin_and_lookup() {
        let s = Slices::round_robin(2, 3, 4);
        assert_eq!(s.len(), 6);
        assert_eq!(s.owner, vec![0, 1, 2, 0, 1, 2]);
        assert!(s.is_valid());
        assert_eq!(s.slice_of(0), 0);
        assert_eq!(s.slice_of(u64::MAX), 5);
        assert_eq!(s.slice_of(s.starts[3]), 3);
        assert_eq!(s.slice_of(s.starts[3] - 1), 2);
        let total: u128 = (0..6).map(|i| s.width(i)).sum();
        assert_eq!(total, SPACE);
    }

    #[test]
    fn split_merge_and_range_loads() {
        let mut s = Slices::round_robin(1, 2, 2);
        s.split(1);
        assert_eq!(s.starts, vec![0, 1 << 63, 3 << 62]);
        assert_eq!(s.owner, vec![0, 1, 1]);
        let loads = HashLoads::new(vec![(5, 1), (1 << 63, 2), (u64::MAX, 3), (5, 4)]);
        assert_eq!(loads.per_slice(&s), vec![5, 2, 3]);
        assert_eq!(loads.total(), 10);
        s.merge(1, 0);
        assert_eq!(
            (s.starts.clone(), s.owner.clone()),
            (vec![0, 1 << 63], vec![0, 0])
        );
    }
}
