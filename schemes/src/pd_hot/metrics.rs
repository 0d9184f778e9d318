//! The metrics only `pd-hot` has ([`METRICS`]), registered through its kind.

use crate::changing::CONVERGE_AFTER_START;
use crate::value::MetricDef;

/// The metrics only `pd-hot` has, for `summary.csv`.
pub static METRICS: &[MetricDef] = &[
    MetricDef {
        name: "pd_hot_moves",
        unit: "moves",
        definition: "Region moves made: moves of the hot-region scheduler's plans (run at window ends) that the move budget let through by the end of the run; the sum of the timeline's region_moves.",
    },
    MetricDef {
        name: "pd_hot_bytes_moved",
        unit: "bytes",
        definition: "Bytes of the regions moved, each counted at its move (key lengths plus the last value size of every key seen in the region).",
    },
    MetricDef {
        name: "pd_hot_redundant_moves",
        unit: "moves",
        definition: "Moves of a region that came back to a store it left or went round a cycle of stores: per region, the moves cancelled by cycles of its move graph (cycles cancelled by their smallest edge, as pd-simulator counts them).",
    },
    MetricDef {
        name: "pd_hot_hot_regions",
        unit: "regions",
        definition: "Regions hot at the last window end, before its moves: requests at least min_hot_rate in each of the last hot_degree windows or more (a region moved restarts its count).",
    },
    CONVERGE_AFTER_START,
];
