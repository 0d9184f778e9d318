//! The metrics only `citus` has ([`METRICS`]), registered through its kind.

use crate::changing::CONVERGE_AFTER_START;
use crate::value::MetricDef;

/// The metrics only `citus` has, for `summary.csv`.
pub static METRICS: &[MetricDef] = &[
    MetricDef {
        name: "citus_shard_moves",
        unit: "moves",
        definition: "Shard moves made: moves of the rebalancer's plans (run at window ends) that the move budget let through by the end of the run.",
    },
    MetricDef {
        name: "citus_bytes_moved",
        unit: "bytes",
        definition: "Bytes of the shards moved, each counted at its move (key lengths plus the last value size of every key seen in the shard).",
    },
    MetricDef {
        name: "citus_redundant_moves",
        unit: "moves",
        definition: "Moves of a shard that came back to a node it left or went round a cycle of nodes: per shard, the moves cancelled by cycles of its move graph (cycles cancelled by their smallest edge, as pd-simulator counts them).",
    },
    MetricDef {
        name: "citus_pending_moves",
        unit: "moves",
        definition: "Planned moves not made at the end of the run (waiting for the move budget).",
    },
    CONVERGE_AFTER_START,
];
