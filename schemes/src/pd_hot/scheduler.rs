//! The hot-region scheduler's rule ([`Rule`], [`plan`]), in the manner of PD's
//! `hot-region-scheduler` (rank v1, one load dimension: requests), and the growth rule of the
//! final layout built on it ([`resize`]).
//!
//! One step ([`next_move`]) on the stores' loads (the requests of their regions):
//! 1. `expected` is the mean store load; a store with no region counts as load 0;
//! 2. source stores: load `> tolerance x expected` (PD's `filterSrcStores` with
//!    `src-tolerance-ratio`), hottest first (ties: the lowest id);
//! 3. destination stores: load `x tolerance < expected` (PD's `pickDstStores` with
//!    `dst-tolerance-ratio`), coolest first (ties: the lowest id);
//! 4. for each source in turn, its hot regions with requests, hottest first (ties: the
//!    lowest region index), each tried on every destination in turn: the first pair with
//!    `destination + region <= dec_ratio x max(source - region, 1)` is the move (PD's
//!    `isBetter`: the decline ratio at most `great-dec-ratio`). None: no move.
//!
//! [`plan`] repeats the step up to `max_moves` times on the loads after the moves before it;
//! a region moved is no longer a candidate in the same plan.
//!
//! Closed stores (a scenario's drain) are left out of `expected` and are never a destination;
//! [`drain_moves`] moves each of their regions, in key order, to the open store with the least
//! load (ties: the lowest id), as PD empties a store being deleted.

use serde::{Deserialize, Serialize};

/// The scheduler's thresholds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    /// Requests per window a region must reach to count a hot window.
    pub min_hot_rate: u64,
    /// PD's `src-tolerance-ratio` and `dst-tolerance-ratio` (one value for both).
    pub tolerance: f64,
    /// PD's `great-dec-ratio`.
    pub dec_ratio: f64,
    /// Most moves per plan.
    pub max_moves: u64,
}

/// A region moved from one store to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegionMove {
    /// The region's index, in key order.
    pub region: usize,
    /// The store it leaves.
    pub from: u32,
    /// The store it goes to.
    pub to: u32,
}

/// The load of each of `stores` stores: the sum of `flows` of the regions it owns
/// (`owners[r]` is region `r`'s store; owners at or past `stores` are not counted).
pub fn store_loads(owners: &[u32], flows: &[u64], stores: u32) -> Vec<u64> {
    let mut loads = vec![0u64; stores as usize];
    for (&o, &f) in owners.iter().zip(flows) {
        if let Some(l) = loads.get_mut(o as usize) {
            *l += f;
        }
    }
    loads
}

/// Stores ordered by load, hottest first (`hottest`) or coolest first, ties by lowest id,
/// those passing `keep`.
fn ordered(loads: &[u64], hottest: bool, keep: impl Fn(u64) -> bool) -> Vec<u32> {
    let mut ids: Vec<u32> = (0..loads.len() as u32)
        .filter(|&s| keep(loads[s as usize]))
        .collect();
    ids.sort_by_key(|&s| {
        let l = loads[s as usize];
        (if hottest { u64::MAX - l } else { l }, s)
    });
    ids
}

/// Each store's candidate regions: the hot regions with requests it owns, hottest first
/// (ties: the lowest index). Owners at or past `stores` are left out.
pub fn candidates(owners: &[u32], flows: &[u64], hot: &[bool], stores: u32) -> Vec<Vec<usize>> {
    let mut by_store = vec![Vec::new(); stores as usize];
    for r in 0..owners.len() {
        if hot[r] && flows[r] > 0 {
            if let Some(list) = by_store.get_mut(owners[r] as usize) {
                list.push(r);
            }
        }
    }
    for list in &mut by_store {
        list.sort_by_key(|&r| (u64::MAX - flows[r], r));
    }
    by_store
}

/// The scheduler's next move among each store's [`candidates`] `by_store`, with window
/// `flows`, on stores with `loads` (the module's steps 1-4), or `None`.
pub fn next_move(
    by_store: &[Vec<usize>],
    flows: &[u64],
    loads: &[u64],
    closed: &[u32],
    rule: &Rule,
) -> Option<RegionMove> {
    let open = |s: &u32| !closed.contains(s);
    let total: u64 = (0..loads.len() as u32)
        .filter(open)
        .map(|s| loads[s as usize])
        .sum();
    let open_stores = (0..loads.len() as u32).filter(open).count();
    if total == 0 || open_stores == 0 {
        return None;
    }
    let expected = total as f64 / open_stores as f64;
    let sources = ordered(loads, true, |l| l as f64 > rule.tolerance * expected);
    let mut dsts = ordered(loads, false, |l| l as f64 * rule.tolerance < expected);
    dsts.retain(open);
    for &src in &sources {
        let src_load = loads[src as usize];
        for &r in by_store.get(src as usize).into_iter().flatten() {
            let f = flows[r];
            let left = (src_load.saturating_sub(f) as f64).max(1.0);
            let to = dsts
                .iter()
                .copied()
                .find(|&d| d != src && (loads[d as usize] + f) as f64 <= rule.dec_ratio * left);
            if let Some(to) = to {
                return Some(RegionMove {
                    region: r,
                    from: src,
                    to,
                });
            }
        }
    }
    None
}

/// Up to `rule.max_moves` moves of [`next_move`], each on the loads left by those before
/// it; a region moved is no longer a candidate in the same plan.
pub fn plan(
    owners: &[u32],
    flows: &[u64],
    hot: &[bool],
    stores: u32,
    closed: &[u32],
    rule: &Rule,
) -> Vec<RegionMove> {
    let mut by_store = candidates(owners, flows, hot, stores);
    let mut loads = store_loads(owners, flows, stores);
    let mut moves = Vec::new();
    while (moves.len() as u64) < rule.max_moves {
        let Some(m) = next_move(&by_store, flows, &loads, closed, rule) else {
            break;
        };
        let f = flows[m.region];
        loads[m.from as usize] -= f;
        loads[m.to as usize] += f;
        by_store[m.from as usize].retain(|&r| r != m.region);
        moves.push(m);
    }
    moves
}

/// Moves every region whose store is `leaving`, in key order, to the store below `stores`
/// not leaving with the least load of `flows` (ties: the lowest id), each on the loads after
/// those before it; none when every store leaves.
pub fn drain_moves(
    owners: &[u32],
    flows: &[u64],
    stores: u32,
    leaving: impl Fn(u32) -> bool,
) -> Vec<RegionMove> {
    let mut loads = store_loads(owners, flows, stores);
    let mut moves = Vec::new();
    for (region, &from) in owners.iter().enumerate() {
        if !leaving(from) {
            continue;
        }
        let Some(to) = ordered(&loads, false, |_| true)
            .into_iter()
            .find(|&s| !leaving(s))
        else {
            break;
        };
        loads[to as usize] += flows[region];
        moves.push(RegionMove { region, from, to });
    }
    moves
}

/// The owners of regions with run-long `flows` on `to` stores, from `owners` on `from`
/// stores. Shrinking first moves each region of a removed store, in key order, to the kept
/// store with the least flow (ties: the lowest id). Then the scheduler plans on the flows,
/// every region with requests hot, with no limit on moves but each region moved at most
/// once, and all its moves are made. Growth adds empty stores that the plan fills.
pub fn resize(owners: &[u32], flows: &[u64], to: u32, rule: &Rule) -> Vec<u32> {
    let to = to.max(1);
    let mut owners = owners.to_vec();
    for m in drain_moves(&owners, flows, to, |s| s >= to) {
        owners[m.region] = m.to;
    }
    let hot: Vec<bool> = flows.iter().map(|&f| f > 0).collect();
    let unlimited = Rule {
        max_moves: owners.len() as u64,
        ..*rule
    };
    for m in plan(&owners, flows, &hot, to, &[], &unlimited) {
        owners[m.region] = m.to;
    }
    owners
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULE: Rule = Rule {
        min_hot_rate: 10,
        tolerance: 1.05,
        dec_ratio: 0.95,
        max_moves: 4,
    };

    #[test]
    fn a_hot_region_moves_from_the_hottest_store_to_the_coolest() {
        // Store 0: regions 0 (60) and 1 (35); store 1: region 2 (20); store 2: region 3 (30).
        let owners = [0, 0, 1, 2];
        let flows = [60, 35, 20, 30];
        let hot = [true; 4];
        let loads = store_loads(&owners, &flows, 3);
        assert_eq!(loads, vec![95, 20, 30]);
        // 60 + 20 = 80 > 0.95 x 35: the hottest region would make store 1 the hottest; the
        // next one fits on the coolest store: 35 + 20 = 55 <= 0.95 x 60.
        let by_store = candidates(&owners, &flows, &hot, 3);
        assert_eq!(by_store, vec![vec![0, 1], vec![2], vec![3]]);
        let m = next_move(&by_store, &flows, &loads, &[], &RULE).unwrap();
        assert_eq!(
            m,
            RegionMove {
                region: 1,
                from: 0,
                to: 1
            }
        );
        // Then stores 0 (60) and 1 (55) are above 1.05 x the mean (145 / 3), but no hot
        // region of theirs fits on store 2: the plan stops.
        assert_eq!(plan(&owners, &flows, &hot, 3, &[], &RULE), vec![m]);
        // Not hot: not moved.
        assert!(plan(&owners, &flows, &[true, false, true, true], 3, &[], &RULE).is_empty());
    }

    #[test]
    fn a_balanced_cluster_within_the_tolerance_moves_nothing() {
        // Mean 100; the hottest store (104) is below 1.05 x 100.
        let owners = [0, 0, 1, 2];
        let flows = [100, 4, 100, 96];
        assert_eq!(store_loads(&owners, &flows, 3), vec![104, 100, 96]);
        assert!(plan(&owners, &flows, &[true; 4], 3, &[], &RULE).is_empty());
        // With no tolerance and no decline margin the same cluster moves the small region.
        let tight = Rule {
            tolerance: 1.0,
            dec_ratio: 1.0,
            ..RULE
        };
        let moves = plan(&owners, &flows, &[true; 4], 3, &[], &tight);
        assert_eq!(
            moves[0],
            RegionMove {
                region: 1,
                from: 0,
                to: 2
            }
        );
    }

    #[test]
    fn one_region_hotter_than_the_rest_is_not_moved_back_and_forth() {
        // Moving region 0 would only make store 1 as hot: no move, whatever the windows.
        let owners = [0, 1];
        let flows = [100, 10];
        assert!(plan(&owners, &flows, &[true; 2], 2, &[], &RULE).is_empty());
        // Cold regions never move, however hot their store.
        assert!(plan(&[0, 0, 1], &[50, 50, 0], &[false; 3], 2, &[], &RULE).is_empty());
    }

    #[test]
    fn growth_fills_the_new_store_and_shrinking_drains_the_removed_one() {
        // Twelve regions of 10 requests on two stores; a third joins.
        let owners: Vec<u32> = (0..12).map(|r| r % 2).collect();
        let flows = [10; 12];
        let grown = resize(&owners, &flows, 3, &RULE);
        // Moves stop when the next would leave its destination above 0.95 x its source:
        // 60/60/0 -> 50/60/10 -> 50/50/20 -> 40/50/30 (then 30 + 10 > 0.95 x 40).
        assert_eq!(store_loads(&grown, &flows, 3), vec![40, 50, 30]);
        let moved = owners.iter().zip(&grown).filter(|(a, b)| a != b).count();
        assert_eq!(moved, 3);
        // Shrinking: store 2's regions go, in key order, to the coolest kept store.
        let shrunk = resize(&grown, &flows, 2, &RULE);
        assert_eq!(store_loads(&shrunk, &flows, 2), vec![60, 60]);
    }

    #[test]
    fn a_drained_store_gives_its_regions_to_the_coolest_open_stores_and_takes_none() {
        // Loads 50, 40, 20: region 1 (30) goes to store 2, then region 3 (10) to store 0
        // (50, tied with store 2 at 50, the lower id).
        let (owners, flows) = ([0, 1, 2, 1], [50, 30, 20, 10]);
        let moves = drain_moves(&owners, &flows, 3, |s| s == 1);
        let made: Vec<(usize, u32, u32)> = moves.iter().map(|m| (m.region, m.from, m.to)).collect();
        assert_eq!(made, [(1, 1, 2), (3, 1, 0)]);
        // The hot scheduler would move region 1 to the empty store 1; closed, it is no
        // destination and the others cannot take it.
        let (owners, flows, hot) = ([0, 0, 1, 2], [60, 35, 20, 30], [true; 4]);
        assert_eq!(plan(&owners, &flows, &hot, 3, &[], &RULE)[0].to, 1);
        assert!(plan(&owners, &flows, &hot, 3, &[1], &RULE).is_empty());
    }
}
