//! `range-dynamic`: a cluster of key ranges that split by size and load, merge when cold and
//! move between nodes while a trace replays in windows, and the judgement of every split key
//! it considers. It is not a fixed [`Partitioner`](crate::Partitioner) but a
//! [`ChangingLayout`](crate::changing::ChangingLayout) that the engine's replay drives.
//!
//! The pieces, one per file:
//! - [`range_map`]: the map of ranges that always tiles the key space;
//! - [`params`]: the spec parameters and their defaults;
//! - [`requests`]: a window's requests and the side of a boundary each falls on;
//! - [`diagnose`]: the popular-key and clear-direction refusals;
//! - [`finder`]: the `median`, `sampled`, `reservoir` and `optimal` split-key finders;
//! - [`rebalance`]: ownership moves first, then capped data moves;
//! - [`cluster`]: the ranges, their nodes and their loads;
//! - [`output`]: timeline rows, split rows, finder summaries, final ranges, and their tables;
//! - [`final_layout`]: the final ranges as a fixed layout, with the cluster's rule to resize;
//! - [`layout`]: the cluster replayed window by window, as a changing layout.

pub mod cluster;
pub mod diagnose;
pub mod final_layout;
pub mod finder;
pub mod layout;
pub mod output;
pub mod params;
pub mod range_map;
pub mod rebalance;
pub mod requests;

pub use diagnose::{Diagnosis, Refusal};
pub use final_layout::FinalRanges;
pub use finder::{FinderInput, FinderKind};
pub use layout::RangeDynamic;
pub use output::{DynamicTotals, FinalRange, FinderSummary, SplitRow, TimelineRow};
pub use params::{DynamicParams, LoadLimit};
pub use range_map::{RangeEntry, RangeMap, RangeMapError};

use crate::changing::Changing;
use crate::value::MetricDef;
use crate::{AnalysisError, SchemeKind};
use params::{ABOUT, NAME, PARAMS};

/// The registry entry; `build` checks the parameters and explains that the scheme is simulated.
pub const KIND: SchemeKind = SchemeKind {
    name: NAME,
    about: ABOUT,
    system: |_| None,
    params: PARAMS,
    needs_warmup: |_| false,
    build: |spec, _| {
        DynamicParams::parse(spec)?;
        Err(AnalysisError::Config(format!(
            "'{spec}' changes its ranges as events replay; it is simulated by the replay, not built as a fixed layout"
        )))
    },
    changing: Some(Changing {
        check: |spec| Ok(DynamicParams::parse(spec).map(drop)?),
        start: |spec, setup| {
            let params = DynamicParams::parse(spec)?;
            Ok(Box::new(RangeDynamic::new(
                spec.to_string(),
                params,
                setup.nodes,
            )))
        },
        metrics: METRICS,
    }),
};

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
