//! The metrics only `slicer` has ([`METRICS`]), registered through its kind.

use crate::changing::CONVERGE_AFTER_START;
use crate::value::MetricDef;

/// The metrics only `slicer` has, for `summary.csv`.
pub static METRICS: &[MetricDef] = &[
    MetricDef {
        name: "slicer_moves",
        unit: "moves",
        definition: "Ranges of the hash space moved between tasks by the rounds run at window ends: whole slices, halves of split slices, and slices that moved to merge with a neighbour on another task.",
    },
    MetricDef {
        name: "slicer_keys_moved_share",
        unit: "ratio",
        definition: "Hash space moved over the run as a share of the whole space (2^64 hashes of the pinned XXH3 hash), summed over rounds: keys spread evenly in the hash space, so it is the expected share of keys moved (it can exceed 1 when ranges move more than once).",
    },
    MetricDef {
        name: "slicer_redundant_moves",
        unit: "moves",
        definition: "Moves cancelled by cycles of the task move graph (an edge per move from the task left to the task joined; cycles cancelled by their smallest edge, as pd-simulator counts them): load a task gave away and took back.",
    },
    MetricDef {
        name: "slicer_imbalance",
        unit: "ratio",
        definition: "The last window with requests, on the slices as they stood after its round: the busiest task's requests over the mean task requests (point events only; 1 when no window had requests).",
    },
    CONVERGE_AFTER_START,
];
