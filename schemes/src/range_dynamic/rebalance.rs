//! Rebalancing: shedding load from overloaded nodes, the cheap action first.
//!
//! A node is overloaded when its load (the EWMA loads of the ranges it owns) exceeds the
//! mean by more than the threshold. Its ranges are considered hottest first, and a range
//! moves only to a node that stays at or below that limit afterwards, so a move never creates
//! a new overloaded node and every range moves at most once per plan.
//!
//! 1. **Ownership moves** (a lease transfer): the owner becomes another node that already
//!    holds a replica of the range. No bytes move.
//! 2. **Data moves**, only for what ownership moves could not fix: a replica on the
//!    overloaded owner is replaced by one on a node without a replica, which becomes the
//!    owner; the range's bytes are copied. The bytes copied in one plan never exceed the cap
//!    (a range bigger than what is left of the cap is skipped), because moves are load too.
//!    A cap of 0 allows no data move at all, not even of a range that stores nothing.
//!
//! All ownership moves of a plan come before its data moves.
//!
//! A drain ([`drain_plan`], a scenario's `drain S`) moves every replica off the leaving
//! nodes, range by range in key order: a data move of each replica on a leaving node to the
//! node that holds no replica of the range, is not leaving and has the least load (ties: the
//! lowest id), which becomes the owner, within the same byte cap; when no such node exists, a
//! leaving owner hands the range to its least loaded replica that stays (an ownership move).

use serde::Serialize;
use smallvec::SmallVec;

/// The nodes holding a replica of a range.
pub type Replicas = SmallVec<[u32; 4]>;

/// What the rebalancer knows of one range.
#[derive(Clone, Debug, PartialEq)]
pub struct RangeLoad {
    /// EWMA requests per window.
    pub load: f64,
    /// Bytes stored (copied by a data move).
    pub bytes: u64,
    /// The node serving the range; one of `replicas`.
    pub owner: u32,
    /// The nodes holding a replica.
    pub replicas: Replicas,
}

/// One action of a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MoveKind {
    /// The owner changes to a node that already holds a replica; no bytes move.
    Ownership,
    /// A replica moves from `from` to `to` (which becomes the owner), copying the range's bytes.
    Data,
}

/// One move of one range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Move {
    /// Index of the range in the plan's input.
    pub range: usize,
    /// Ownership or data.
    pub kind: MoveKind,
    /// The old owner.
    pub from: u32,
    /// The new owner.
    pub to: u32,
    /// Bytes copied (0 for ownership moves).
    pub bytes: u64,
}

/// When to move and how much data may move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RebalanceLimits {
    /// A node is overloaded above `mean * (1 + threshold)`.
    pub threshold: f64,
    /// Most bytes the data moves of one plan may copy; 0 allows no data move.
    pub byte_cap: u64,
}

/// The moves that bring overloaded nodes down, ownership moves first. Nodes for which
/// `may_receive` is false get nothing; ranges whose owner is not below `nodes` are left alone.
pub fn plan(
    ranges: &[RangeLoad],
    nodes: u32,
    limits: &RebalanceLimits,
    may_receive: &dyn Fn(u32) -> bool,
) -> Vec<Move> {
    let n = nodes as usize;
    let mut loads = vec![0.0f64; n];
    let mut by_node: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, r) in ranges.iter().enumerate() {
        if let (Some(load), true) = (
            loads.get_mut(r.owner as usize),
            r.load.is_finite() && r.load > 0.0,
        ) {
            *load += r.load;
            by_node[r.owner as usize].push(i);
        }
    }
    let total: f64 = loads.iter().sum();
    if n == 0 || total <= 0.0 {
        return Vec::new();
    }
    let limit = total / n as f64 * (1.0 + limits.threshold.max(0.0));
    for list in &mut by_node {
        list.sort_by(|&a, &b| ranges[b].load.total_cmp(&ranges[a].load).then(a.cmp(&b)));
    }
    let mut sources: Vec<usize> = (0..n).filter(|&h| loads[h] > limit).collect();
    sources.sort_by(|&a, &b| loads[b].total_cmp(&loads[a]).then(a.cmp(&b)));

    let mut moves = Vec::new();
    let mut moved = vec![false; ranges.len()];
    let mut bytes_left = limits.byte_cap;
    for kind in [MoveKind::Ownership, MoveKind::Data] {
        if kind == MoveKind::Data && limits.byte_cap == 0 {
            break;
        }
        for &h in &sources {
            for &i in &by_node[h] {
                if loads[h] <= limit {
                    break;
                }
                let r = &ranges[i];
                if moved[i] || (kind == MoveKind::Data && r.bytes > bytes_left) {
                    continue;
                }
                let target = (0..n)
                    .filter(|&c| {
                        let holds = r.replicas.contains(&(c as u32));
                        c != h
                            && holds == (kind == MoveKind::Ownership)
                            && loads[c] + r.load <= limit
                            && may_receive(c as u32)
                    })
                    .min_by(|&a, &b| loads[a].total_cmp(&loads[b]).then(a.cmp(&b)));
                let Some(c) = target else { continue };
                loads[h] -= r.load;
                loads[c] += r.load;
                moved[i] = true;
                let bytes = if kind == MoveKind::Data { r.bytes } else { 0 };
                bytes_left -= bytes;
                moves.push(Move {
                    range: i,
                    kind,
                    from: h as u32,
                    to: c as u32,
                    bytes,
                });
            }
        }
    }
    moves
}

/// The moves that take the replicas of `ranges` off the nodes `leaving` (see the module).
pub fn drain_plan(
    ranges: &[RangeLoad],
    nodes: u32,
    byte_cap: u64,
    leaving: &dyn Fn(u32) -> bool,
) -> Vec<Move> {
    let mut loads = vec![0.0f64; nodes as usize];
    for r in ranges {
        if let Some(l) = loads.get_mut(r.owner as usize) {
            *l += r.load.max(0.0);
        }
    }
    let least = |loads: &[f64], ok: &dyn Fn(u32) -> bool| {
        (0..nodes)
            .filter(|&c| ok(c) && !leaving(c))
            .min_by(|&a, &b| {
                loads[a as usize]
                    .total_cmp(&loads[b as usize])
                    .then(a.cmp(&b))
            })
    };
    let mut moves = Vec::new();
    let mut bytes_left = byte_cap;
    for (i, r) in ranges.iter().enumerate() {
        let Some(&from) = r.replicas.iter().find(|&&n| leaving(n)) else {
            continue;
        };
        let (kind, from, to) = match least(&loads, &|c| !r.replicas.contains(&c)) {
            Some(to) if r.bytes <= bytes_left && byte_cap > 0 => (MoveKind::Data, from, to),
            Some(_) => continue,
            None if leaving(r.owner) => match least(&loads, &|c| r.replicas.contains(&c)) {
                Some(to) => (MoveKind::Ownership, r.owner, to),
                None => continue,
            },
            None => continue,
        };
        let bytes = if kind == MoveKind::Data { r.bytes } else { 0 };
        bytes_left -= bytes;
        loads[r.owner as usize] -= r.load.max(0.0);
        loads[to as usize] += r.load.max(0.0);
        moves.push(Move {
            range: i,
            kind,
            from,
            to,
            bytes,
        });
    }
    moves
}

/// Applies a move to a range's owner and replicas.
pub fn apply(m: &Move, owner: &mut u32, replicas: &mut Replicas) {
    *owner = m.to;
    if m.kind == MoveKind::Data {
        match replicas.iter_mut().find(|r| **r == m.from) {
            Some(slot) => *slot = m.to,
            None => replicas.push(m.to),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smallvec::smallvec;

    fn range(load: f64, bytes: u64, owner: u32, replicas: &[u32]) -> RangeLoad {
        RangeLoad {
            load,
            bytes,
            owner,
            replicas: replicas.iter().copied().collect(),
        }
    }

    const ANY: &dyn Fn(u32) -> bool = &|_| true;

    #[test]
    fn ownership_moves_fix_what_they_can_without_moving_bytes() {
        // Node 0 owns everything; every range has replicas on 0, 1 and 2.
        let ranges: Vec<RangeLoad> = (0..6).map(|_| range(10.0, 100, 0, &[0, 1, 2])).collect();
        let moves = plan(
            &ranges,
            3,
            &RebalanceLimits {
                threshold: 0.1,
                byte_cap: 1000,
            },
            ANY,
        );
        assert_eq!(moves.len(), 4);
        assert!(moves
            .iter()
            .all(|m| m.kind == MoveKind::Ownership && m.bytes == 0));
    }

    #[test]
    fn data_moves_come_after_ownership_moves_and_respect_the_cap() {
        // Node 0 owns 8 ranges; replicas on {0, 1} only, so node 1 can take some by ownership
        // and nodes 2 and 3 only by data moves of 100 bytes each, capped at 250 bytes.
        let ranges: Vec<RangeLoad> = (0..8).map(|_| range(10.0, 100, 0, &[0, 1])).collect();
        let moves = plan(
            &ranges,
            4,
            &RebalanceLimits {
                threshold: 0.0,
                byte_cap: 250,
            },
            ANY,
        );
        let kinds: Vec<MoveKind> = moves.iter().map(|m| m.kind).collect();
        let first_data = kinds.iter().position(|k| *k == MoveKind::Data).unwrap();
        assert!(kinds[..first_data]
            .iter()
            .all(|k| *k == MoveKind::Ownership));
        assert!(kinds[first_data..].iter().all(|k| *k == MoveKind::Data));
        assert_eq!(
            kinds.iter().filter(|k| **k == MoveKind::Ownership).count(),
            2
        );
        assert_eq!(moves.iter().map(|m| m.bytes).sum::<u64>(), 200);
        assert!(moves
            .iter()
            .all(|m| m.kind == MoveKind::Ownership || m.to >= 2));
    }

    #[test]
    fn a_zero_byte_cap_allows_no_data_move_even_of_an_empty_range() {
        // Node 0 serves two ranges that store nothing (only scans reach them) and holds their
        // only replica: a data move would be the only way to shed load, and the cap forbids it.
        let ranges = vec![range(10.0, 0, 0, &[0]), range(10.0, 0, 0, &[0])];
        let limits = |byte_cap| RebalanceLimits {
            threshold: 0.1,
            byte_cap,
        };
        assert!(plan(&ranges, 2, &limits(0), ANY).is_empty());
        let moves = plan(&ranges, 2, &limits(1), ANY);
        assert_eq!(
            (moves.len(), moves[0].kind, moves[0].bytes),
            (1, MoveKind::Data, 0)
        );
    }

    #[test]
    fn a_range_hotter_than_the_limit_stays_and_balanced_nodes_do_nothing() {
        let ranges = vec![range(100.0, 1, 0, &[0, 1]), range(1.0, 1, 1, &[1, 0])];
        assert!(plan(
            &ranges,
            2,
            &RebalanceLimits {
                threshold: 0.1,
                byte_cap: u64::MAX
            },
            ANY
        )
        .is_empty());
        let balanced = vec![range(5.0, 1, 0, &[0]), range(5.0, 1, 1, &[1])];
        assert!(plan(
            &balanced,
            2,
            &RebalanceLimits {
                threshold: 0.0,
                byte_cap: u64::MAX
            },
            ANY
        )
        .is_empty());
        assert!(plan(
            &[],
            0,
            &RebalanceLimits {
                threshold: 0.0,
                byte_cap: 0
            },
            ANY
        )
        .is_empty());
    }

    #[test]
    fn applying_a_data_move_replaces_the_old_replica() {
        let (mut owner, mut replicas): (u32, Replicas) = (0, smallvec![0, 1]);
        apply(
            &Move {
                range: 0,
                kind: MoveKind::Data,
                from: 0,
                to: 3,
                bytes: 5,
            },
            &mut owner,
            &mut replicas,
        );
        assert_eq!((owner, replicas.as_slice()), (3, &[3, 1][..]));
        apply(
            &Move {
                range: 0,
                kind: MoveKind::Ownership,
                from: 3,
                to: 1,
                bytes: 0,
            },
            &mut owner,
            &mut replicas,
        );
        assert_eq!((owner, replicas.as_slice()), (1, &[3, 1][..]));
    }

    #[test]
    fn a_drain_copies_each_replica_off_the_node_to_the_least_loaded_within_the_cap() {
        let ranges = [
            range(5.0, 100, 0, &[0]),
            range(3.0, 100, 1, &[1]),
            range(1.0, 100, 0, &[0]),
        ];
        let leaving = |n: u32| n == 0;
        let made = |cap: u64| -> Vec<(usize, u32, u32)> {
            drain_plan(&ranges, 3, cap, &leaving)
                .iter()
                .map(|m| (m.range, m.from, m.to))
                .collect()
        };
        // Loads 6, 3, 0: range 0 to node 2 (then 5), range 2 to node 1.
        assert_eq!(made(1_000), [(0, 0, 2), (2, 0, 1)]);
        assert_eq!(made(150), [(0, 0, 2)]);
        assert!(made(0).is_empty());
        // Without a node free of the range's replicas, a leaving owner hands it over.
        let both = [range(1.0, 100, 0, &[0, 1])];
        let m = drain_plan(&both, 2, 1_000, &leaving);
        assert_eq!((m[0].kind, m[0].to), (MoveKind::Ownership, 1));
    }
}
