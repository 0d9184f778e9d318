//! The metrics only `range-dynamic` has ([`METRICS`]), registered through its kind.

use crate::value::{MetricDef, MetricId};

/// `dynamic_windows`: Windows simulated.
pub const DYNAMIC_WINDOWS: MetricId = MetricId("dynamic_windows");
/// `dynamic_ranges`: Ranges at the end of the run.
pub const DYNAMIC_RANGES: MetricId = MetricId("dynamic_ranges");
/// `dynamic_size_splits`: Splits of ranges holding more than max_bytes.
pub const DYNAMIC_SIZE_SPLITS: MetricId = MetricId("dynamic_size_splits");
/// `dynamic_load_splits`: Splits at the configured finder's key.
pub const DYNAMIC_LOAD_SPLITS: MetricId = MetricId("dynamic_load_splits");
/// `dynamic_load_split_refusals`: Load-split decisions the configured finder refused.
pub const DYNAMIC_LOAD_SPLIT_REFUSALS: MetricId = MetricId("dynamic_load_split_refusals");
/// `dynamic_merges`: Merges of small, cold neighbours.
pub const DYNAMIC_MERGES: MetricId = MetricId("dynamic_merges");
/// `dynamic_oscillations`: Merges that removed a boundary a split had made less than cooldown windows before.
pub const DYNAMIC_OSCILLATIONS: MetricId = MetricId("dynamic_oscillations");
/// `dynamic_ownership_moves`: Ownership.
pub const DYNAMIC_OWNERSHIP_MOVES: MetricId = MetricId("dynamic_ownership_moves");
/// `dynamic_data_moves`: Data moves: a replica copied to another node.
pub const DYNAMIC_DATA_MOVES: MetricId = MetricId("dynamic_data_moves");
/// `dynamic_bytes_moved`: Bytes copied by data moves.
pub const DYNAMIC_BYTES_MOVED: MetricId = MetricId("dynamic_bytes_moved");
/// `dynamic_split_balance`: Mean |L-R|/(L+R) in the next window of the load splits made.
pub const DYNAMIC_SPLIT_BALANCE: MetricId = MetricId("dynamic_split_balance");
/// `dynamic_split_balance_optimal`: The same at the exact optimal key of each decision window.
pub const DYNAMIC_SPLIT_BALANCE_OPTIMAL: MetricId = MetricId("dynamic_split_balance_optimal");

/// The metrics only `range-dynamic` has, for `summary.csv`.
pub static METRICS: &[MetricDef] = &[
    MetricDef { name: DYNAMIC_WINDOWS.0, unit: "windows", definition: "Windows simulated." },
    MetricDef { name: DYNAMIC_RANGES.0, unit: "ranges", definition: "Ranges at the end of the run." },
    MetricDef { name: DYNAMIC_SIZE_SPLITS.0, unit: "splits", definition: "Splits of ranges holding more than max_bytes." },
    MetricDef { name: DYNAMIC_LOAD_SPLITS.0, unit: "splits", definition: "Splits at the configured finder's key." },
    MetricDef {
        name: DYNAMIC_LOAD_SPLIT_REFUSALS.0,
        unit: "decisions",
        definition: "Load-split decisions the configured finder refused (popular key, no split key, clear direction).",
    },
    MetricDef { name: DYNAMIC_MERGES.0, unit: "merges", definition: "Merges of small, cold neighbours." },
    MetricDef {
        name: DYNAMIC_OSCILLATIONS.0,
        unit: "merges",
        definition: "Merges that removed a boundary a split had made less than cooldown windows before.",
    },
    MetricDef { name: DYNAMIC_OWNERSHIP_MOVES.0, unit: "moves", definition: "Ownership (lease) moves: no bytes copied." },
    MetricDef { name: DYNAMIC_DATA_MOVES.0, unit: "moves", definition: "Data moves: a replica copied to another node." },
    MetricDef { name: DYNAMIC_BYTES_MOVED.0, unit: "bytes", definition: "Bytes copied by data moves." },
    MetricDef {
        name: DYNAMIC_SPLIT_BALANCE.0,
        unit: "ratio",
        definition: "Mean |L-R|/(L+R) in the next window of the load splits made.",
    },
    MetricDef {
        name: DYNAMIC_SPLIT_BALANCE_OPTIMAL.0,
        unit: "ratio",
        definition: "The same at the exact optimal key of each decision window.",
    },
];
