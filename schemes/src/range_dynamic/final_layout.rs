//! The ranges of a `range-dynamic` run at its end as a fixed layout ([`FinalRanges`]), with
//! the cluster's own rule to grow or shrink.
//!
//! A dynamic cluster does not re-place keys by a formula; it moves whole ranges. Resizing
//! starts from the final ranges, owners, replicas and EWMA loads and does what the change
//! itself requires:
//! - **growth `N -> M`**: the new nodes are filled up to the mean load with whole ranges
//!   taken from nodes above the mean, hottest first (the rebalancer's plan with threshold 0,
//!   no byte cap, only new nodes receiving). They hold no replica yet, so these are data
//!   moves. Nothing else moves.
//! - **shrink `N -> M`**: every range served by a removed node moves: to its least loaded
//!   surviving replica (an ownership move) if it has one, else to the least loaded surviving
//!   node (a data move).
//!
//! The remap and growth figures are then measured as for every scheme: the share of
//! distinct measured point keys whose serving node changed, and so on.

use super::output::{range_index, FinalRange};
use super::rebalance::{self, RangeLoad, RebalanceLimits};
use crate::changing::{decode_state, encode_state};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};
use serde::{Deserialize, Serialize};

/// Ranges that tile the key space in order, each served by its owner.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FinalRanges {
    label: String,
    ranges: Vec<FinalRange>,
    nodes: u32,
}

impl FinalRanges {
    /// `ranges` (tiling the key space in order) on `nodes` nodes, labelled `label`.
    pub fn new(label: &str, ranges: Vec<FinalRange>, nodes: u32) -> FinalRanges {
        FinalRanges {
            label: label.to_string(),
            ranges,
            nodes,
        }
    }

    /// The ranges.
    pub fn ranges(&self) -> &[FinalRange] {
        &self.ranges
    }

    /// The layout as the bytes of a changing layout's final state.
    pub fn state(&self) -> Result<Vec<u8>, AnalysisError> {
        encode_state(self)
    }

    /// The layout [`FinalRanges::state`] saved in `bytes`, checked: at least one node, ranges
    /// that start with the empty key and go up, owners among the nodes.
    pub fn from_state(bytes: &[u8]) -> Result<FinalRanges, AnalysisError> {
        let layout: FinalRanges = decode_state(bytes)?;
        let tiles = layout.ranges.first().is_some_and(|r| r.start.is_empty())
            && layout.ranges.windows(2).all(|w| w[0].start < w[1].start);
        let owned = layout.ranges.iter().all(|r| r.owner < layout.nodes);
        if layout.nodes == 0 || !tiles || !owned {
            return Err(AnalysisError::Config(format!(
                "the saved final ranges of '{}' do not tile the key space on {} node(s)",
                layout.label, layout.nodes
            )));
        }
        Ok(layout)
    }
}

impl Partitioner for FinalRanges {
    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.nodes
    }

    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.ranges
            .get(range_index(&self.ranges, key))
            .map_or(0, |r| r.owner)
    }

    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        if end <= start {
            out.insert(self.shard_of(start));
            return;
        }
        let first = range_index(&self.ranges, start);
        for r in self.ranges[first..]
            .iter()
            .take_while(|r| r.start.as_slice() < end)
        {
            out.insert(r.owner);
        }
    }

    fn resized(
        &self,
        shards: u32,
        _keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        crate::kind::check_shard_count(shards)?;
        let owners = if shards > self.nodes {
            grow(&self.ranges, self.nodes, shards)
        } else {
            shrink(&self.ranges, shards)
        };
        let ranges = self
            .ranges
            .iter()
            .zip(owners)
            .map(|(r, owner)| FinalRange { owner, ..r.clone() })
            .collect();
        Ok(Box::new(FinalRanges::new(&self.label, ranges, shards)))
    }
}

/// New owners after filling nodes `nodes..target` up to the mean load.
fn grow(ranges: &[FinalRange], nodes: u32, target: u32) -> Vec<u32> {
    let loads: Vec<RangeLoad> = ranges
        .iter()
        .map(|r| RangeLoad {
            load: r.load,
            bytes: r.bytes,
            owner: r.owner,
            replicas: r.replicas.iter().copied().collect(),
        })
        .collect();
    let limits = RebalanceLimits {
        threshold: 0.0,
        byte_cap: u64::MAX,
    };
    let mut owners: Vec<u32> = ranges.iter().map(|r| r.owner).collect();
    for m in rebalance::plan(&loads, target, &limits, &|node| node >= nodes) {
        owners[m.range] = m.to;
    }
    owners
}

/// New owners after moving every range off nodes `target..`.
fn shrink(ranges: &[FinalRange], target: u32) -> Vec<u32> {
    let mut loads = vec![0.0f64; target.max(1) as usize];
    for r in ranges.iter().filter(|r| r.owner < target) {
        loads[r.owner as usize] += r.load;
    }
    let mut order: Vec<usize> = (0..ranges.len())
        .filter(|&i| ranges[i].owner >= target)
        .collect();
    order.sort_by(|&a, &b| ranges[b].load.total_cmp(&ranges[a].load).then(a.cmp(&b)));
    let mut owners: Vec<u32> = ranges.iter().map(|r| r.owner).collect();
    let coolest = |loads: &[f64], candidates: &mut dyn Iterator<Item = u32>| {
        candidates.min_by(|&a, &b| {
            loads[a as usize]
                .total_cmp(&loads[b as usize])
                .then(a.cmp(&b))
        })
    };
    for i in order {
        let r = &ranges[i];
        let to = coolest(
            &loads,
            &mut r.replicas.iter().copied().filter(|&n| n < target),
        )
        .or_else(|| coolest(&loads, &mut (0..target.max(1))))
        .unwrap_or(0);
        loads[to as usize] += r.load;
        owners[i] = to;
    }
    owners
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(start: u8, owner: u32, replicas: &[u32], load: f64) -> FinalRange {
        FinalRange {
            start: if start == 0 { vec![] } else { vec![start] },
            end: None,
            owner,
            replicas: replicas.to_vec(),
            generation: 1,
            bytes: 10,
            keys: 1,
            load,
        }
    }

    /// The owners of `keys` in key order.
    fn owners(p: &dyn Partitioner, keys: &KeyCounts) -> Vec<u32> {
        let mut keys: Vec<&[u8]> = keys.iter().map(|(k, _)| k).collect();
        keys.sort_unstable();
        keys.iter().map(|k| p.shard_of(k)).collect()
    }

    fn keys() -> KeyCounts {
        let mut k = KeyCounts::new();
        for b in 1..=8u8 {
            k.add(&[b * 10], u64::from(b));
        }
        k
    }

    #[test]
    fn growth_fills_the_new_node_to_the_mean_and_moves_nothing_else() {
        // Four ranges of load 10 on nodes 0 and 1; the third node should get one range.
        let ranges = vec![
            range(0, 0, &[0, 1], 10.0),
            range(25, 0, &[0, 1], 10.0),
            range(45, 1, &[1, 0], 10.0),
            range(65, 1, &[1, 0], 10.0),
        ];
        let before = FinalRanges::new("range-dynamic", ranges, 2);
        let after = before.resized(3, &keys()).unwrap();
        assert_eq!(owners(&before, &keys()), [0, 0, 0, 0, 1, 1, 1, 1]);
        // Range 0 (keys 10, 20) moves from node 0 to node 2.
        assert_eq!(owners(after.as_ref(), &keys()), [2, 2, 0, 0, 1, 1, 1, 1]);
        assert_eq!(after.shard_count(), 3);
    }

    #[test]
    fn shrink_moves_exactly_the_ranges_of_removed_nodes_preferring_replicas() {
        let ranges = vec![
            range(0, 0, &[0, 2], 5.0),
            range(25, 2, &[2, 1], 10.0),
            range(45, 1, &[1, 0], 1.0),
            range(65, 2, &[2, 0], 1.0),
        ];
        assert_eq!(shrink(&ranges, 2), vec![0, 1, 1, 0]);
        let before = FinalRanges::new("range-dynamic", ranges, 3);
        let after = before.resized(2, &keys()).unwrap();
        assert_eq!(owners(after.as_ref(), &keys()), [0, 0, 1, 1, 1, 1, 0, 0]);
        let same = before.resized(3, &keys()).unwrap();
        assert_eq!(owners(same.as_ref(), &keys()), owners(&before, &keys()));
    }

    #[test]
    fn scans_contact_the_owners_of_the_ranges_they_overlap() {
        let ranges = vec![
            range(0, 0, &[0], 1.0),
            range(25, 1, &[1], 1.0),
            range(45, 2, &[2], 1.0),
        ];
        let layout = FinalRanges::new("range-dynamic", ranges, 3);
        let mut out = ShardSet::new(3);
        layout.scan_shards(&[30], &[45], &mut out);
        assert_eq!(out.iter().collect::<Vec<_>>(), [1]);
        out.clear();
        layout.scan_shards(&[10], &[46], &mut out);
        assert_eq!(out.iter().collect::<Vec<_>>(), [0, 1, 2]);
        out.clear();
        layout.scan_shards(&[50], &[10], &mut out);
        assert_eq!(out.iter().collect::<Vec<_>>(), [2]);
    }
}
