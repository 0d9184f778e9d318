//! The metrics only `range-dynamic` has ([`METRICS`]), registered through its kind.

use crate::value::MetricDef;

/// The metrics only `range-dynamic` has, for `summary.csv`.
pub static METRICS: &[MetricDef] = &[
    MetricDef { name: "dynamic_windows", unit: "windows", definition: "Windows simulated." },
    MetricDef { name: "dynamic_ranges", unit: "ranges", definition: "Ranges at the end of the run." },
    MetricDef { name: "dynamic_size_splits", unit: "splits", definition: "Splits of ranges holding more than max_bytes." },
    MetricDef { name: "dynamic_load_splits", unit: "splits", definition: "Splits at the configured finder's key." },
    MetricDef {
        name: "dynamic_load_split_refusals",
        unit: "decisions",
        definition: "Load-split decisions the configured finder refused (popular key, no split key, clear direction).",
    },
    MetricDef { name: "dynamic_merges", unit: "merges", definition: "Merges of small, cold neighbours." },
    MetricDef {
        name: "dynamic_oscillations",
        unit: "merges",
        definition: "Merges that removed a boundary a split had made less than cooldown windows before.",
    },
    MetricDef { name: "dynamic_ownership_moves", unit: "moves", definition: "Ownership (lease) moves: no bytes copied." },
    MetricDef { name: "dynamic_data_moves", unit: "moves", definition: "Data moves: a replica copied to another node." },
    MetricDef { name: "dynamic_bytes_moved", unit: "bytes", definition: "Bytes copied by data moves." },
    MetricDef {
        name: "dynamic_split_balance",
        unit: "ratio",
        definition: "Mean |L-R|/(L+R) in the next window of the load splits made.",
    },
    MetricDef {
        name: "dynamic_split_balance_optimal",
        unit: "ratio",
        definition: "The same at the exact optimal key of each decision window.",
    },
];
