//! Citus's own unit-test vectors for its rebalancer, run through [`super::plan`].
//!
//! Transcribed as data (inputs and expected move lists) from
//! `src/test/regress/sql/shard_rebalancer_unit.sql` and its expected output
//! `src/test/regress/expected/shard_rebalancer_unit.out` in github.com/citusdata/citus (the
//! `shard_placement_rebalance_array(...)` calls). Every one of the 38 calls is here: nodes
//! with `capacity` and `disallowed_shards`, placements with `cost` and `next_colocation`
//! (a new placement group), `threshold`, `max_shard_moves`, `drain_only` and
//! `improvement_threshold`. The four calls that differ only in the GUC
//! `citus.max_rebalancer_logged_ignored_moves` (how many notices are logged) are the same
//! plan; they are kept as four rows. Node ids are the positions in the node list, as in
//! Citus's test function (whose node names are already sorted).

use super::{plan, PlanNode, PlanOptions, PlanShard, ShardMove};

/// A node: name, capacity, disallowed shards.
type Node = (&'static str, u32, &'static [u64]);
/// A placement: shard id, node name, cost, starts a new placement group.
type Shard = (u64, &'static str, u32, bool);
/// A move: shard id, from, to.
type Move = (u64, &'static str, &'static str);

struct Vector {
    what: &'static str,
    nodes: &'static [Node],
    shards: &'static [Shard],
    /// threshold, max_shard_moves, drain_only, improvement_threshold.
    options: (f32, usize, bool, f32),
    moves: &'static [Move],
}

/// The test function's defaults.
const D: (f32, usize, bool, f32) = (0.0, 1_000_000, false, 0.5);
const fn imp(t: f32) -> (f32, usize, bool, f32) {
    (0.0, 1_000_000, false, t)
}
const fn max(m: usize) -> (f32, usize, bool, f32) {
    (0.0, m, false, 0.5)
}

const H1: &str = "hostname1";
const H2: &str = "hostname2";
const H3: &str = "hostname3";
const ALL6: &[u64] = &[1, 2, 3, 4, 5, 6];
const ALL12: &[u64] = &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
const DRAIN: &[Node] = &[(H1, 0, ALL6), (H2, 1, &[]), (H3, 1, &[])];
const DRAIN_SHARDS: &[Shard] = &[
    (1, H1, 1, false),
    (2, H2, 1, false),
    (3, H2, 1, false),
    (4, H2, 1, false),
    (5, H2, 1, false),
    (6, H2, 1, false),
];
const DRAIN2: &[Node] = &[(H1, 0, ALL12), (H2, 1, &[]), (H3, 1, &[])];
const DRAIN2_SHARDS: &[Shard] = &[
    (1, H1, 1, false),
    (2, H2, 1, false),
    (3, H2, 1, false),
    (4, H2, 1, false),
    (5, H2, 1, false),
    (6, H2, 1, false),
    (7, H1, 1, true),
    (8, H2, 1, false),
    (9, H2, 1, false),
    (10, H2, 1, false),
    (11, H2, 1, false),
    (12, H2, 1, false),
];
const AB: &[Node] = &[("a", 1, &[]), ("b", 1, &[])];
const ABC: &[Node] = &[("a", 1, &[]), ("b", 1, &[]), ("c", 1, &[])];
const SEVEN: &[Node] = &[
    ("a", 1, &[]),
    ("b", 1, &[]),
    ("c", 1, &[]),
    ("d", 1, &[]),
    ("e", 1, &[]),
    ("f", 1, &[]),
    ("g", 1, &[]),
];
const SEVEN_SHARDS: &[Shard] = &[
    (1, "a", 39, false),
    (2, "b", 39, false),
    (3, "c", 39, false),
    (4, "d", 39, false),
    (5, "e", 39, false),
    (6, "f", 39, false),
    (7, "g", 40, false),
    (8, "g", 39, false),
];
const TWO: &[Node] = &[(H1, 1, &[]), (H2, 1, &[])];
const CAP3: &[Node] = &[(H1, 1, &[]), (H2, 3, &[])];
const CAP2: &[Node] = &[(H1, 1, &[]), (H2, 2, &[])];
const COST_2_ON_H1: &[Shard] = &[(1, H1, 1, false), (2, H1, 1, false), (3, H1, 2, false)];
const AB_20_20_100_50: &[Shard] = &[
    (1, "a", 20, false),
    (2, "a", 20, false),
    (3, "b", 100, false),
    (4, "b", 50, false),
];
const AB_40_40_100_100: &[Shard] = &[
    (1, "a", 40, false),
    (2, "a", 40, false),
    (3, "b", 100, false),
    (4, "b", 100, false),
];

static VECTORS: &[Vector] = &[
    Vector {
        what: "no completely balanced solution",
        nodes: TWO,
        shards: &[(1, H1, 1, false), (2, H1, 1, false), (3, H1, 1, false)],
        options: D,
        moves: &[(1, H1, H2)],
    },
    Vector {
        what: "a node can be drained in a balanced cluster",
        nodes: &[(H1, 1, &[1, 2, 3, 4]), (H2, 1, &[])],
        shards: &[
            (1, H1, 1, false),
            (2, H1, 1, false),
            (3, H2, 1, false),
            (4, H2, 1, false),
        ],
        options: D,
        moves: &[(1, H1, H2), (2, H1, H2)],
    },
    Vector {
        what: "a drained node is not filled again",
        nodes: &[(H1, 1, &[1, 2, 3, 4]), (H2, 1, &[])],
        shards: &[
            (1, H2, 1, false),
            (2, H2, 1, false),
            (3, H2, 1, false),
            (4, H2, 1, false),
        ],
        options: D,
        moves: &[],
    },
    Vector {
        what: "a disallowed shard moves even when balanced, then rebalancing",
        nodes: &[(H1, 1, &[1, 2, 3, 5, 6]), (H2, 1, &[4]), (H3, 1, &[4])],
        shards: &[
            (1, H1, 1, false),
            (2, H1, 1, false),
            (3, H2, 1, false),
            (4, H2, 1, false),
            (5, H3, 1, false),
            (6, H3, 1, false),
        ],
        options: D,
        moves: &[(1, H1, H2), (2, H1, H3), (4, H2, H1)],
    },
    Vector {
        what: "disallowed shards leave hostname1 and the one allowed there moves there",
        nodes: &[(H1, 1, &[1, 2, 3, 5, 6]), (H2, 1, &[]), (H3, 1, &[])],
        shards: &[
            (1, H1, 1, false),
            (2, H1, 1, false),
            (3, H2, 1, false),
            (4, H2, 1, false),
            (5, H3, 1, false),
            (6, H3, 1, false),
        ],
        options: D,
        moves: &[(1, H1, H2), (2, H1, H3), (4, H2, H1)],
    },
    Vector {
        what: "a shard allowed nowhere stays (warning)",
        nodes: &[(H1, 1, &[2, 4]), (H2, 1, &[1, 4])],
        shards: &[
            (1, H1, 1, false),
            (2, H1, 1, false),
            (3, H2, 1, false),
            (4, H2, 1, false),
        ],
        options: D,
        moves: &[(2, H1, H2), (3, H2, H1)],
    },
    Vector {
        what: "cost is taken into account",
        nodes: TWO,
        shards: &[
            (1, H1, 1, false),
            (2, H1, 1, false),
            (3, H1, 1, false),
            (4, H1, 3, false),
        ],
        options: D,
        moves: &[(4, H1, H2)],
    },
    Vector {
        what: "cost is taken into account when draining",
        nodes: &[(H1, 1, &[1, 2, 3, 4]), (H2, 1, &[]), (H3, 1, &[])],
        shards: &[
            (1, H1, 1, false),
            (2, H1, 1, false),
            (3, H1, 1, false),
            (4, H1, 3, false),
        ],
        options: D,
        moves: &[(4, H1, H2), (1, H1, H3), (2, H1, H3), (3, H1, H3)],
    },
    Vector {
        what: "node capacity is taken into account",
        nodes: CAP3,
        shards: &[
            (1, H1, 1, false),
            (2, H1, 1, false),
            (3, H1, 1, false),
            (4, H1, 1, false),
        ],
        options: D,
        moves: &[(1, H1, H2), (2, H1, H2), (3, H1, H2)],
    },
    Vector {
        what: "no move when the target's utilization stays and the source's would drop",
        nodes: CAP3,
        shards: &[(1, H1, 1, false), (2, H2, 1, false), (3, H2, 1, false)],
        options: D,
        moves: &[],
    },
    Vector {
        what: "a move when the emptier node gains",
        nodes: CAP3,
        shards: &[(1, H2, 1, false), (2, H2, 1, false), (3, H2, 1, false)],
        options: D,
        moves: &[(1, H2, H1)],
    },
    Vector {
        what: "a move from the capacity-2 node",
        nodes: CAP2,
        shards: &[
            (1, H1, 1, false),
            (2, H2, 1, false),
            (3, H2, 1, false),
            (4, H2, 1, false),
            (5, H2, 1, false),
        ],
        options: D,
        moves: &[(2, H2, H1)],
    },
    Vector {
        what: "no move to the capacity-2 node",
        nodes: CAP2,
        shards: &[
            (1, H1, 1, false),
            (2, H1, 1, false),
            (3, H2, 1, false),
            (4, H2, 1, false),
            (5, H2, 1, false),
        ],
        options: D,
        moves: &[],
    },
    Vector {
        what: "every shard to a node big enough",
        nodes: &[(H1, 1, &[]), (H2, 4, &[])],
        shards: &[(1, H1, 1, false), (2, H1, 1, false), (3, H1, 1, false)],
        options: D,
        moves: &[(1, H1, H2), (2, H1, H2), (3, H1, H2)],
    },
    Vector {
        what: "a move to a smaller node when utilization improves",
        nodes: CAP3,
        shards: &[
            (1, H2, 1, false),
            (2, H2, 1, false),
            (3, H2, 1, false),
            (4, H2, 1, false),
        ],
        options: D,
        moves: &[(1, H2, H1)],
    },
    Vector {
        what: "capacity with different shard costs",
        nodes: CAP3,
        shards: &[(1, H2, 1, false), (2, H2, 3, false)],
        options: D,
        moves: &[(1, H2, H1)],
    },
    Vector {
        what: "capacity with different shard costs again",
        nodes: CAP3,
        shards: COST_2_ON_H1,
        options: D,
        moves: &[(3, H1, H2), (1, H1, H2)],
    },
    Vector {
        what: "max_shard_moves",
        nodes: CAP3,
        shards: COST_2_ON_H1,
        options: max(1),
        moves: &[(3, H1, H2)],
    },
    Vector {
        what: "capacity, costs and disallowed shards (a shard moved twice)",
        nodes: &[(H1, 1, &[]), (H2, 5, &[]), (H3, 1, &[1, 2])],
        shards: &[(1, H3, 1, false), (2, H3, 2, false)],
        options: D,
        moves: &[(2, H3, H2), (1, H3, H1), (1, H1, H2)],
    },
    Vector {
        what: "draining and rebalancing",
        nodes: DRAIN,
        shards: DRAIN_SHARDS,
        options: D,
        moves: &[(1, H1, H3), (2, H2, H3), (3, H2, H3)],
    },
    Vector {
        what: "drain only",
        nodes: DRAIN,
        shards: DRAIN_SHARDS,
        options: (0.0, 1_000_000, true, 0.5),
        moves: &[(1, H1, H3)],
    },
    Vector {
        what: "draining has priority over max_shard_moves",
        nodes: DRAIN,
        shards: DRAIN_SHARDS,
        options: max(0),
        moves: &[(1, H1, H3)],
    },
    Vector {
        what: "drain moves count towards max_shard_moves",
        nodes: DRAIN,
        shards: DRAIN_SHARDS,
        options: max(2),
        moves: &[(1, H1, H3), (2, H2, H3)],
    },
    Vector {
        what: "every group is drained before rebalancing",
        nodes: DRAIN2,
        shards: DRAIN2_SHARDS,
        options: D,
        moves: &[
            (1, H1, H3),
            (7, H1, H3),
            (2, H2, H3),
            (3, H2, H3),
            (8, H2, H3),
            (9, H2, H3),
        ],
    },
    Vector {
        what: "max_shard_moves over two groups, 1",
        nodes: DRAIN2,
        shards: DRAIN2_SHARDS,
        options: max(1),
        moves: &[(1, H1, H3), (7, H1, H3)],
    },
    Vector {
        what: "max_shard_moves over two groups, 5",
        nodes: DRAIN2,
        shards: DRAIN2_SHARDS,
        options: max(5),
        moves: &[
            (1, H1, H3),
            (7, H1, H3),
            (2, H2, H3),
            (3, H2, H3),
            (8, H2, H3),
        ],
    },
    Vector {
        what: "a big shard is not moved for a small improvement",
        nodes: AB,
        shards: AB_20_20_100_50,
        options: D,
        moves: &[(4, "b", "a")],
    },
    Vector {
        what: "no move for a small improvement",
        nodes: AB,
        shards: AB_40_40_100_100,
        options: D,
        moves: &[],
    },
    Vector {
        what: "improvement_threshold 0.1 forces big moves",
        nodes: AB,
        shards: AB_20_20_100_50,
        options: imp(0.1),
        moves: &[(3, "b", "a"), (1, "a", "b"), (2, "a", "b")],
    },
    Vector {
        what: "improvement_threshold 0.2",
        nodes: AB,
        shards: AB_40_40_100_100,
        options: imp(0.2),
        moves: &[(3, "b", "a"), (1, "a", "b")],
    },
    Vector {
        what: "ignored moves (notices limited by default)",
        nodes: SEVEN,
        shards: SEVEN_SHARDS,
        options: imp(0.1),
        moves: &[],
    },
    Vector {
        what: "ignored moves (max_rebalancer_logged_ignored_moves = 1)",
        nodes: SEVEN,
        shards: SEVEN_SHARDS,
        options: imp(0.1),
        moves: &[],
    },
    Vector {
        what: "ignored moves (max_rebalancer_logged_ignored_moves = 10)",
        nodes: SEVEN,
        shards: SEVEN_SHARDS,
        options: imp(0.1),
        moves: &[],
    },
    Vector {
        what: "ignored moves (max_rebalancer_logged_ignored_moves = -1)",
        nodes: SEVEN,
        shards: SEVEN_SHARDS,
        options: imp(0.1),
        moves: &[],
    },
    Vector {
        what: "improvement_threshold and capacity",
        nodes: &[("a", 1, &[]), ("b", 2, &[])],
        shards: &[
            (1, "a", 20, false),
            (2, "a", 10, false),
            (3, "a", 10, false),
            (4, "b", 100, false),
            (5, "b", 50, false),
            (6, "b", 50, false),
        ],
        options: imp(0.6),
        moves: &[(5, "b", "a"), (2, "a", "b")],
    },
    Vector {
        what: "single-shard groups",
        nodes: AB,
        shards: &[
            (1, "a", 20, false),
            (2, "a", 10, true),
            (3, "a", 10, true),
            (4, "a", 100, true),
            (5, "a", 50, true),
            (6, "a", 50, true),
        ],
        options: imp(0.1),
        moves: &[(4, "a", "b"), (1, "a", "b")],
    },
    Vector {
        what: "groups with fewer shards than nodes",
        nodes: ABC,
        shards: &[
            (1, "a", 20, false),
            (2, "a", 10, false),
            (3, "a", 10, true),
            (4, "a", 100, false),
            (5, "a", 50, true),
            (6, "a", 50, false),
        ],
        options: imp(0.1),
        moves: &[(4, "a", "b"), (5, "a", "c"), (1, "a", "c")],
    },
    Vector {
        what: "small groups mixed with a group of more shards than nodes",
        nodes: ABC,
        shards: &[
            (1, "a", 20, false),
            (2, "a", 10, false),
            (3, "a", 10, true),
            (4, "a", 100, false),
            (5, "a", 50, true),
            (6, "a", 50, false),
            (7, "b", 50, true),
            (8, "b", 50, false),
            (9, "b", 50, false),
            (10, "b", 50, false),
            (11, "b", 50, false),
            (12, "b", 50, false),
        ],
        options: imp(0.1),
        moves: &[
            (7, "b", "a"),
            (8, "b", "c"),
            (9, "b", "a"),
            (10, "b", "c"),
            (4, "a", "b"),
            (5, "a", "c"),
            (1, "a", "c"),
        ],
    },
];

/// The moves `v` plans, as (shard, from name, to name).
fn planned(v: &Vector) -> Vec<Move> {
    let index = |name: &str| v.nodes.iter().position(|n| n.0 == name).unwrap();
    let nodes: Vec<PlanNode> = v
        .nodes
        .iter()
        .map(|&(_, capacity, disallowed)| PlanNode {
            capacity: capacity as f32,
            disallowed: disallowed.to_vec(),
        })
        .collect();
    let mut groups: Vec<Vec<PlanShard>> = vec![Vec::new()];
    for &(shard, node, cost, next) in v.shards {
        if next {
            groups.push(Vec::new());
        }
        groups.last_mut().unwrap().push(PlanShard {
            shard,
            node: index(node),
            cost: cost as f32,
        });
    }
    let (threshold, max_shard_moves, drain_only, improvement_threshold) = v.options;
    let options = PlanOptions {
        threshold: f64::from(threshold),
        improvement_threshold,
        max_shard_moves,
        drain_only,
    };
    let plan = plan(&nodes, &groups, &options).unwrap();
    plan.moves
        .iter()
        .map(|&ShardMove { shard, from, to }| (shard, v.nodes[from].0, v.nodes[to].0))
        .collect()
}

#[test]
fn every_citus_unit_vector_plans_the_same_moves_in_the_same_order() {
    assert_eq!(VECTORS.len(), 38);
    let failed: Vec<String> = VECTORS
        .iter()
        .enumerate()
        .filter_map(|(i, v)| {
            let got = planned(v);
            (got != v.moves).then(|| {
                format!(
                    "#{} {}: expected {:?}, planned {:?}",
                    i + 1,
                    v.what,
                    v.moves,
                    got
                )
            })
        })
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn notices_are_counted_and_shards_allowed_nowhere_reported() {
    let nodes: Vec<PlanNode> = (0..7).map(|_| PlanNode::new(1.0)).collect();
    let shards: Vec<PlanShard> = SEVEN_SHARDS
        .iter()
        .map(|&(shard, node, cost, _)| PlanShard {
            shard,
            node: SEVEN.iter().position(|n| n.0 == node).unwrap(),
            cost: cost as f32,
        })
        .collect();
    let options = PlanOptions {
        threshold: 0.0,
        improvement_threshold: 0.1,
        max_shard_moves: 1_000_000,
        drain_only: false,
    };
    let p = plan(&nodes, &[shards], &options).unwrap();
    // "Ignored 6 moves" in Citus's notice.
    assert_eq!((p.ignored_moves, p.stopped_early), (6, false));
    let stuck = plan(
        &[
            PlanNode {
                capacity: 1.0,
                disallowed: vec![2, 4],
            },
            PlanNode {
                capacity: 1.0,
                disallowed: vec![1, 4],
            },
        ],
        &[vec![
            PlanShard {
                shard: 4,
                node: 1,
                cost: 1.0,
            },
            PlanShard {
                shard: 1,
                node: 0,
                cost: 1.0,
            },
        ]],
        &PlanOptions {
            max_shard_moves: 0,
            ..options
        },
    )
    .unwrap();
    assert_eq!((stuck.stuck, stuck.stopped_early), (vec![4], true));
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let options = PlanOptions {
        threshold: 0.0,
        improvement_threshold: 0.5,
        max_shard_moves: 10,
        drain_only: false,
    };
    let one = [PlanNode::new(1.0)];
    let off = [vec![PlanShard {
        shard: 1,
        node: 3,
        cost: 1.0,
    }]];
    assert!(plan(&one, &off, &options).is_err());
    let nan = [vec![PlanShard {
        shard: 1,
        node: 0,
        cost: f32::NAN,
    }]];
    assert!(plan(&one, &nan, &options).is_err());
    assert!(plan(&[PlanNode::new(-1.0)], &[], &options).is_err());
    assert_eq!(plan(&[], &[], &options).unwrap(), Default::default());
}
