//! Remap of a dynamic cluster on growth or shrink, from its state at the end of a run.
//!
//! A dynamic cluster does not re-place keys by a formula; it moves whole ranges. The remap is
//! defined as what the change itself requires, starting from the final ranges, owners,
//! replicas and EWMA loads:
//! - **growth `N -> M`**: the new nodes are filled up to the mean load with whole ranges
//!   taken from nodes above the mean, hottest first (the rebalancer's plan with threshold 0,
//!   no byte cap, only new nodes receiving). They hold no replica yet, so these are data
//!   moves. Nothing else moves.
//! - **shrink `N -> M`**: every range served by a removed node moves: to its least loaded
//!   surviving replica (an ownership move) if it has one, else to the least loaded surviving
//!   node (a data move).
//!
//! `remap_fraction` is then the share of distinct measured point keys whose serving node
//! changed, `remap_fraction_traffic` the same weighted by their requests.

use crate::metrics::growth::GrowthAccumulator;
use crate::metrics::remap::{ideal, Remap};
use schemes::range_dynamic::output::{range_index, FinalRange};
use schemes::range_dynamic::rebalance::{self, RangeLoad, RebalanceLimits};
use schemes::KeyCounts;

/// The remap from `nodes` to `target` nodes of the final `ranges`, judged on `keys`.
pub fn measure(ranges: &[FinalRange], keys: &KeyCounts, nodes: u32, target: u32) -> Remap {
    let owners = if target > nodes {
        grow(ranges, nodes, target)
    } else {
        shrink(ranges, target)
    };
    let (mut moved, mut moved_traffic, mut to_new) = (0u64, 0u64, 0u64);
    let mut grown = GrowthAccumulator::new(nodes, target);
    for (key, count) in keys.iter() {
        let i = range_index(ranges, key);
        let (before, after) = (
            ranges.get(i).map_or(0, |r| r.owner),
            owners.get(i).copied().unwrap_or(0),
        );
        grown.add(after, count);
        if before != after {
            moved += 1;
            moved_traffic += count;
            to_new += u64::from(after >= nodes);
        }
    }
    Remap {
        target_shards: target,
        remap_fraction: ratio(moved, keys.len() as u64),
        remap_fraction_traffic: ratio(moved_traffic, keys.held_total()),
        remap_ideal: ideal(nodes, target),
        moved_to_new_shards: ratio(to_new, moved),
        growth: grown.finish(),
        refusal: None,
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

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
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
        let r = measure(&ranges, &keys(), 2, 3);
        // Range 0 (keys 10, 20) moves from node 0 to node 2.
        assert!((r.remap_fraction - 2.0 / 8.0).abs() < 1e-12, "{r:?}");
        assert!(
            (r.remap_fraction_traffic - 3.0 / 36.0).abs() < 1e-12,
            "{r:?}"
        );
        assert_eq!(r.moved_to_new_shards, 1.0);
        assert!((r.remap_ideal - 1.0 / 3.0).abs() < 1e-12);
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
        let r = measure(&ranges, &keys(), 3, 2);
        assert!((r.remap_fraction - 4.0 / 8.0).abs() < 1e-12, "{r:?}");
        assert_eq!(r.moved_to_new_shards, 0.0);
        assert_eq!(measure(&ranges, &keys(), 3, 3).remap_fraction, 0.0);
    }
}
