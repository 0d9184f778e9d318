//! The load one layout puts on every shard, window by window, with replicas.
//!
//! Replica accounting (`rf` replicas of every key, [`schemes::Partitioner::replicas`]):
//! - a get is one request: to the leaseholder (the first replica) with [`ReadPolicy::Leader`],
//!   or split evenly, `1/rf` to each replica, with [`ReadPolicy::Any`] (the expected load of
//!   clients that pick a replica uniformly);
//! - a put or delete is one request on every replica;
//! - a scan is one request to every shard [`schemes::Partitioner::scan_shards`] names (the
//!   leaseholders of the ranges it covers), whatever the read policy.
//!
//! Loads are counted in integer units of `1/rf` request, so sums are exact and do not depend
//! on the thread count.

use rayon::prelude::*;
use serde::Serialize;

use super::traffic::{Entry, Traffic};
use schemes::{AnalysisError, Partitioner, ShardId, ShardSet};

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
        self.shard_units
            .iter()
            .map(|&u| u as f64 / f64::from(self.replicas))
            .collect()
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

/// The replicas of every key of a traffic under one layout, `rf` per key, leaseholder first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaTable {
    rf: u32,
    shards: Vec<ShardId>,
}

impl ReplicaTable {
    /// The replicas of every key of `traffic` under `part`. Errors when the layout cannot place
    /// `rf` distinct replicas of a key.
    pub fn new(
        part: &dyn Partitioner,
        traffic: &Traffic,
        rf: u32,
    ) -> Result<ReplicaTable, AnalysisError> {
        let rf = rf.max(1);
        let mut table = ReplicaTable {
            rf,
            shards: vec![0 as ShardId; traffic.keys().len() * rf as usize],
        };
        let keys: Vec<u32> = (0..traffic.keys().len() as u32).collect();
        table.recompute(part, traffic, &keys)?;
        Ok(table)
    }

    /// Replicas per key.
    pub fn replicas(&self) -> u32 {
        self.rf
    }

    /// Stored bytes per shard: every key's bytes on each of its replicas.
    pub fn bytes_per_shard(&self, traffic: &Traffic, shards: usize) -> Vec<u64> {
        let mut bytes = vec![0u64; shards];
        for (key, &b) in traffic.key_bytes().iter().enumerate() {
            self.of(key as u32)
                .iter()
                .for_each(|&s| bytes[s as usize] += b);
        }
        bytes
    }

    /// The replicas of key number `key`.
    #[inline]
    pub fn of(&self, key: u32) -> &[ShardId] {
        let rf = self.rf as usize;
        &self.shards[key as usize * rf..(key as usize + 1) * rf]
    }

    /// This table with `change` applied.
    pub fn changed(&self, change: &TableChange) -> ReplicaTable {
        let mut table = self.clone();
        table.apply(&change.keys, &change.rows);
        table
    }

    /// Recomputes the rows of `keys` on `part`.
    fn recompute(
        &mut self,
        part: &dyn Partitioner,
        traffic: &Traffic,
        keys: &[u32],
    ) -> Result<(), AnalysisError> {
        let rows = replica_rows(part, traffic, keys, self.rf)?;
        self.apply(keys, &rows);
        Ok(())
    }

    fn apply(&mut self, keys: &[u32], rows: &[ShardId]) {
        let rf = self.rf as usize;
        for (i, &key) in keys.iter().enumerate() {
            self.shards[key as usize * rf..(key as usize + 1) * rf]
                .copy_from_slice(&rows[i * rf..(i + 1) * rf]);
        }
    }
}

/// The replicas of `keys` (numbers in [`Traffic::keys`]) on `part`, `rf` per key in the order
/// of `keys`. Errors when the layout cannot place `rf` distinct replicas of a key.
pub(crate) fn replica_rows(
    part: &dyn Partitioner,
    traffic: &Traffic,
    keys: &[u32],
    rf: u32,
) -> Result<Vec<ShardId>, AnalysisError> {
    let all = traffic.keys();
    Ok(keys
        .par_chunks(1024)
        .map(|chunk| {
            let mut out = Vec::with_capacity(chunk.len() * rf as usize);
            for &key in chunk {
                push_replicas(part, &all[key as usize], rf, &mut out)?;
            }
            Ok(out)
        })
        .collect::<Result<Vec<_>, AnalysisError>>()?
        .concat())
}

/// Pushes the `rf` replicas of `key` on `part` onto `out`. Errors when the layout cannot
/// place `rf` distinct replicas of it.
#[inline]
pub(crate) fn push_replicas(
    part: &dyn Partitioner,
    key: &[u8],
    rf: u32,
    out: &mut Vec<ShardId>,
) -> Result<(), AnalysisError> {
    let before = out.len();
    part.replicas(key, rf, out);
    if out.len() - before == rf as usize {
        return Ok(());
    }
    Err(AnalysisError::Config(format!(
        "'{}' can place only {} distinct replicas of a key on {} shards, not {rf}",
        part.label(),
        out.len() - before,
        part.shard_count()
    )))
}

/// The keys whose replicas change in a removal, with their new replicas.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableChange {
    rf: u32,
    keys: Vec<u32>,
    rows: Vec<ShardId>,
}

impl TableChange {
    /// The new rows `rows` (`rf` per key) of `keys` (increasing).
    pub(crate) fn new(rf: u32, keys: Vec<u32>, rows: Vec<ShardId>) -> TableChange {
        TableChange { rf, keys, rows }
    }

    /// The keys that change, increasing.
    pub fn keys(&self) -> &[u32] {
        &self.keys
    }

    /// The new replicas of the `i`-th changed key.
    pub fn row(&self, i: usize) -> &[ShardId] {
        let rf = self.rf as usize;
        &self.rows[i * rf..(i + 1) * rf]
    }
}

/// Calls `add(shard, units)` for what one entry puts on its replicas (module accounting).
#[inline]
pub(crate) fn entry_units(
    e: &Entry,
    replicas: &[ShardId],
    reads: ReadPolicy,
    mut add: impl FnMut(ShardId, u64),
) {
    let rf = replicas.len() as u64;
    match reads {
        ReadPolicy::Leader => add(replicas[0], e.reads * rf),
        ReadPolicy::Any => replicas.iter().for_each(|&s| add(s, e.reads)),
    }
    replicas.iter().for_each(|&s| add(s, e.writes * rf));
}

/// What moving a key from replicas `old` to `new` changes, into `out`: (shard, units per
/// read, units per write) net of what stays, zero changes left out. [`entry_units`] is linear
/// in an entry's reads and writes, so this is its difference on the two rows.
pub(crate) fn unit_changes(
    old: &[ShardId],
    new: &[ShardId],
    reads: ReadPolicy,
    out: &mut Vec<(ShardId, i64, i64)>,
) {
    out.clear();
    {
        let mut add =
            |s: ShardId, per_read: i64, per_write: i64| match out.iter_mut().find(|c| c.0 == s) {
                Some(c) => (c.1, c.2) = (c.1 + per_read, c.2 + per_write),
                None => out.push((s, per_read, per_write)),
            };
        let one = |reads, writes| Entry {
            window: 0,
            key: 0,
            reads,
            writes,
        };
        // (Zero units, such as the writes of a read, are not looked for.)
        for (replicas, sign) in [(new, 1i64), (old, -1)] {
            entry_units(&one(1, 0), replicas, reads, |s, u| {
                if u != 0 {
                    add(s, sign * u as i64, 0)
                }
            });
            entry_units(&one(0, 1), replicas, reads, |s, u| {
                if u != 0 {
                    add(s, 0, sign * u as i64)
                }
            });
        }
    }
    out.retain(|c| c.1 != 0 || c.2 != 0);
}

/// Per-thread state of the window sweep.
struct Sweep {
    loads: Vec<u64>,
    touched: Vec<ShardId>,
    /// Units every live shard received in the current window (scans that contact them all).
    broadcast: u64,
    totals: Vec<u64>,
    broadcast_total: u64,
    /// (window, busiest units, busiest shard) of every window swept.
    busiest: Vec<(u32, u64, ShardId)>,
    set: ShardSet,
}

impl Sweep {
    fn new(shards: usize) -> Sweep {
        Sweep {
            loads: vec![0; shards],
            touched: Vec::new(),
            broadcast: 0,
            totals: vec![0; shards],
            broadcast_total: 0,
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

    /// Records the window's busiest shard (ties: the lowest number; `first_live` when only
    /// broadcasts reached the shards) and clears its loads.
    fn close(&mut self, window: u32, first_live: ShardId) {
        let mut best = (0u64, first_live);
        for &s in &self.touched {
            let units = std::mem::take(&mut self.loads[s as usize]);
            self.totals[s as usize] += units;
            if units > best.0 || (units == best.0 && s < best.1) {
                best = (units, s);
            }
        }
        self.touched.clear();
        self.busiest.push((window, best.0 + self.broadcast, best.1));
        self.broadcast_total += std::mem::take(&mut self.broadcast);
    }

    fn merge(mut self, other: Sweep) -> Sweep {
        self.totals
            .iter_mut()
            .zip(&other.totals)
            .for_each(|(a, b)| *a += b);
        self.broadcast_total += other.broadcast_total;
        self.busiest.extend(other.busiest);
        self
    }
}

/// The load of `part` on `traffic` with `policy`. Errors when the layout cannot place
/// `policy.replicas` distinct replicas of a key.
pub fn evaluate(
    part: &dyn Partitioner,
    traffic: &Traffic,
    policy: ReplicaPolicy,
) -> Result<LayoutLoad, AnalysisError> {
    let table = ReplicaTable::new(part, traffic, policy.replicas)?;
    Ok(evaluate_with(part, &[], traffic, policy, &table))
}

/// The load of `part`, whose shards `failed` own nothing, with the replicas of `table`
/// (which must be `part`'s, for `policy.replicas` replicas).
pub fn evaluate_with(
    part: &dyn Partitioner,
    failed: &[ShardId],
    traffic: &Traffic,
    policy: ReplicaPolicy,
    table: &ReplicaTable,
) -> LayoutLoad {
    let rf = table.rf;
    let shards = part.shard_count() as usize;
    let live = part.shard_count() - failed.len() as u32;
    let first_live = (0..part.shard_count())
        .find(|s| !failed.contains(s))
        .unwrap_or(0);
    let rf64 = u64::from(rf);
    let entries = traffic.entries();
    let scans = traffic.scans();
    let sweep = traffic
        .groups()
        .par_iter()
        .fold(
            || Sweep::new(shards),
            |mut sw, g| {
                for e in &entries[g.entries.clone()] {
                    entry_units(e, table.of(e.key), policy.reads, |s, u| sw.add(s, u));
                }
                let mut set = std::mem::take(&mut sw.set);
                for scan in &scans[g.scans.clone()] {
                    set.clear();
                    scan.shards(part, rf, &mut set);
                    if set.len() == live {
                        sw.broadcast += rf64;
                    } else {
                        set.iter().for_each(|s| sw.add(s, rf64));
                    }
                }
                sw.set = set;
                sw.close(g.window, first_live);
                sw
            },
        )
        .reduce(|| Sweep::new(shards), Sweep::merge);
    let mut shard_units = sweep.totals;
    for (s, units) in shard_units.iter_mut().enumerate() {
        if !failed.contains(&(s as ShardId)) {
            *units += sweep.broadcast_total;
        }
    }
    LayoutLoad::from_windows(
        rf,
        traffic,
        sweep.busiest,
        first_live,
        shard_units,
        table.bytes_per_shard(traffic, shards),
    )
}

impl LayoutLoad {
    /// Assembles the figures from the busiest (window, units, shard) of every window with
    /// traffic (any order), the whole-trace units and the stored bytes per shard. Ties of the
    /// peak go to the earliest window.
    pub(crate) fn from_windows(
        replicas: u32,
        traffic: &Traffic,
        mut busiest: Vec<(u32, u64, ShardId)>,
        first_live: ShardId,
        shard_units: Vec<u64>,
        shard_bytes: Vec<u64>,
    ) -> LayoutLoad {
        busiest.sort_unstable_by_key(|b| b.0);
        let peak = busiest
            .iter()
            .fold((0u64, 0u32, first_live), |best, &(w, units, s)| {
                if units > best.0 {
                    (units, w, s)
                } else {
                    best
                }
            });
        let p99 = nearest_rank_p99(busiest.iter().map(|b| b.1).collect(), traffic.windows());
        LayoutLoad {
            replicas,
            window_secs: traffic.window_secs(),
            peak,
            p99,
            shard_units,
            shard_bytes,
        }
    }
}

/// The 99th percentile by nearest rank of `values` padded with zeros to `windows` values:
/// the value at rank `ceil(0.99 * windows)` in increasing order.
pub(crate) fn nearest_rank_p99(mut values: Vec<u64>, windows: u64) -> u64 {
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
