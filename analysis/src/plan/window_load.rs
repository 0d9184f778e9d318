//! The load one layout puts on every shard, window by window, with replicas.
//!
//! Replica accounting (`rf` replicas of every key, [`crate::Partitioner::replicas`]):
//! - a get is one request: to the leaseholder (the first replica) with [`ReadPolicy::Leader`],
//!   or split evenly, `1/rf` to each replica, with [`ReadPolicy::Any`] (the expected load of
//!   clients that pick a replica uniformly);
//! - a put or delete is one request on every replica;
//! - a scan is one request to every shard [`crate::Partitioner::scan_shards`] names (the
//!   leaseholders of the ranges it covers), whatever the read policy.
//!
//! Loads are counted in integer units of `1/rf` request, so sums are exact and do not depend
//! on the thread count.

use rayon::prelude::*;
use serde::Serialize;

use super::traffic::Traffic;
use crate::{AnalysisError, Partitioner, ShardId, ShardSet};

/// Where reads go when keys have several replicas.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReadPolicy {
    /// Every read goes to the leaseholder (the first replica).
    #[default]
    Leader,
    /// Reads are spread evenly over the replicas.
    Any,
}

impl ReadPolicy {
    /// `leader` or `any`.
    pub fn name(self) -> &'static str {
        match self {
            ReadPolicy::Leader => "leader",
            ReadPolicy::Any => "any",
        }
    }
}

/// Replicas per key and where reads go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ReplicaPolicy {
    /// Replicas per key (at least 1).
    pub replicas: u32,
    /// Where reads go.
    pub reads: ReadPolicy,
}

/// The load of one layout: peak windows, whole-trace totals and stored bytes per shard.
#[derive(Clone, Debug, PartialEq)]
pub struct LayoutLoad {
    /// Replicas per key (the unit of the counts is `1 / replicas` request).
    replicas: u32,
    window_secs: f64,
    /// The busiest (window, shard): its units, window and shard.
    peak: (u64, u32, ShardId),
    /// The 99th percentile over all windows (empty ones included) of the busiest shard's units.
    p99: u64,
    /// Units per shard over the whole trace.
    shard_units: Vec<u64>,
    /// Stored bytes per shard (one copy of each replica it holds).
    shard_bytes: Vec<u64>,
}

impl LayoutLoad {
    /// Requests per second of the busiest shard in its busiest window.
    pub fn peak_rate(&self) -> f64 {
        self.rate(self.peak.0)
    }

    /// The 99th percentile (nearest rank) over all windows, empty ones included, of the
    /// busiest shard's requests per second in the window.
    pub fn p99_rate(&self) -> f64 {
        self.rate(self.p99)
    }

    /// The busiest shard's number and its busiest window (counted from the first window).
    pub fn peak_shard_and_window(&self) -> (ShardId, u32) {
        (self.peak.2, self.peak.1)
    }

    /// The shard with the most requests over the whole trace / all shard requests.
    pub fn hottest_share(&self) -> f64 {
        let total: u64 = self.shard_units.iter().sum();
        let max = self.shard_units.iter().copied().max().unwrap_or(0);
        if total == 0 {
            0.0
        } else {
            max as f64 / total as f64
        }
    }

    /// Requests per shard over the whole trace.
    pub fn shard_requests(&self) -> Vec<f64> {
        self.shard_units.iter().map(|&u| u as f64 / f64::from(self.replicas)).collect()
    }

    /// Stored bytes per shard.
    pub fn shard_bytes(&self) -> &[u64] {
        &self.shard_bytes
    }

    /// The most bytes one shard stores.
    pub fn max_bytes(&self) -> u64 {
        self.shard_bytes.iter().copied().max().unwrap_or(0)
    }

    fn rate(&self, units: u64) -> f64 {
        units as f64 / f64::from(self.replicas) / self.window_secs
    }
}

/// Per-thread state of the window sweep.
struct Sweep {
    loads: Vec<u64>,
    touched: Vec<ShardId>,
    totals: Vec<u64>,
    /// (window, busiest units, busiest shard) of every window swept.
    busiest: Vec<(u32, u64, ShardId)>,
    set: ShardSet,
}

impl Sweep {
    fn new(shards: usize) -> Sweep {
        Sweep {
            loads: vec![0; shards],
            touched: Vec::new(),
            totals: vec![0; shards],
            busiest: Vec::new(),
            set: ShardSet::new(shards as u32),
        }
    }

    #[inline]
    fn add(&mut self, shard: ShardId, units: u64) {
        let slot = &mut self.loads[shard as usize];
        if *slot == 0 {
            self.touched.push(shard);
        }
        *slot += units;
    }

    /// Records the window's busiest shard (ties: the lowest number) and clears its loads.
    fn close(&mut self, window: u32) {
        let mut best = (0u64, ShardId::MAX);
        for &s in &self.touched {
            let units = std::mem::take(&mut self.loads[s as usize]);
            self.totals[s as usize] += units;
            if units > best.0 || (units == best.0 && s < best.1) {
                best = (units, s);
            }
        }
        self.touched.clear();
        self.busiest.push((window, best.0, best.1));
    }

    fn merge(mut self, other: Sweep) -> Sweep {
        self.totals.iter_mut().zip(&other.totals).for_each(|(a, b)| *a += b);
        self.busiest.extend(other.busiest);
        self
    }
}

/// The load of `part` on `traffic` with `policy`. Errors when the layout cannot place
/// `policy.replicas` distinct replicas of a key.
pub fn evaluate(part: &dyn Partitioner, traffic: &Traffic, policy: ReplicaPolicy) -> Result<LayoutLoad, AnalysisError> {
    let rf = policy.replicas.max(1);
    let table = replica_table(part, traffic, rf)?;
    let shards = part.shard_count() as usize;
    let rf64 = u64::from(rf);
    let replicas_of = |key: u32| &table[key as usize * rf as usize..(key as usize + 1) * rf as usize];
    let entries = traffic.entries();
    let scans = traffic.scans();
    let sweep = traffic
        .groups()
        .par_iter()
        .fold(
            || Sweep::new(shards),
            |mut sw, g| {
                for e in &entries[g.entries.clone()] {
                    let replicas = replicas_of(e.key);
                    match policy.reads {
                        ReadPolicy::Leader => sw.add(replicas[0], e.reads * rf64),
                        ReadPolicy::Any => replicas.iter().for_each(|&s| sw.add(s, e.reads)),
                    }
                    replicas.iter().for_each(|&s| sw.add(s, e.writes * rf64));
                }
                let mut set = std::mem::take(&mut sw.set);
                for scan in &scans[g.scans.clone()] {
                    set.clear();
                    part.scan_shards(&scan.start, &scan.end, &mut set);
                    set.iter().for_each(|s| sw.add(s, rf64));
                }
                sw.set = set;
                sw.close(g.window);
                sw
            },
        )
        .reduce(|| Sweep::new(shards), Sweep::merge);
    let mut busiest = sweep.busiest;
    busiest.sort_unstable_by_key(|b| b.0);
    let peak = busiest
        .iter()
        .fold((0u64, 0u32, 0 as ShardId), |best, &(w, units, s)| if units > best.0 { (units, w, s) } else { best });
    let p99 = nearest_rank_p99(busiest.iter().map(|b| b.1).collect(), traffic.windows());
    let mut shard_bytes = vec![0u64; shards];
    for (key, &bytes) in traffic.key_bytes().iter().enumerate() {
        replicas_of(key as u32).iter().for_each(|&s| shard_bytes[s as usize] += bytes);
    }
    Ok(LayoutLoad { replicas: rf, window_secs: traffic.window_secs(), peak, p99, shard_units: sweep.totals, shard_bytes })
}

/// The 99th percentile by nearest rank of `values` padded with zeros to `windows` values:
/// the value at rank `ceil(0.99 * windows)` in increasing order.
fn nearest_rank_p99(mut values: Vec<u64>, windows: u64) -> u64 {
    values.sort_unstable();
    let windows = windows.max(values.len() as u64);
    if windows == 0 {
        return 0;
    }
    let rank = (windows * 99).div_ceil(100).max(1); // 1-based
    let zeros = windows - values.len() as u64;
    if rank <= zeros {
        0
    } else {
        values[(rank - zeros - 1) as usize]
    }
}

/// The `rf` replicas of every key, key by key (`rf` entries each).
fn replica_table(part: &dyn Partitioner, traffic: &Traffic, rf: u32) -> Result<Vec<ShardId>, AnalysisError> {
    let keys = traffic.keys();
    let rfu = rf as usize;
    let mut table = vec![0 as ShardId; keys.len() * rfu];
    table.par_chunks_mut(1024 * rfu).zip(keys.par_chunks(1024)).try_for_each(|(out, keys)| {
        let mut replicas = Vec::with_capacity(rfu);
        for (slot, key) in out.chunks_mut(rfu).zip(keys) {
            replicas.clear();
            part.replicas(key, rf, &mut replicas);
            if replicas.len() != rfu {
                return Err(AnalysisError::Config(format!(
                    "'{}' can place only {} distinct replicas of a key on {} shards, not {rf}",
                    part.label(),
                    replicas.len(),
                    part.shard_count()
                )));
            }
            slot.copy_from_slice(&replicas);
        }
        Ok(())
    })?;
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_p99_counts_empty_windows_as_zero() {
        assert_eq!(nearest_rank_p99(vec![5, 1, 9], 3), 9); // rank ceil(2.97) = 3
        assert_eq!(nearest_rank_p99((1..=100).collect(), 100), 99);
        assert_eq!(nearest_rank_p99(vec![7], 1000), 0); // 999 empty windows
        assert_eq!(nearest_rank_p99(vec![7, 8], 100), 7); // the 99th of 100 values is the second largest
        assert_eq!(nearest_rank_p99(vec![], 0), 0);
    }
}
