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
pub mod metrics;
pub mod output;
pub mod params;
pub mod range_map;
pub mod rebalance;
pub mod requests;

pub use diagnose::{Diagnosis, Refusal};
pub use final_layout::FinalRanges;
pub use finder::{FinderInput, FinderKind};
pub use layout::RangeDynamic;
pub use metrics::METRICS;
pub use output::{DynamicTotals, FinalRange, FinderSummary, SplitRow, TimelineRow};
pub use params::{DynamicParams, LoadLimit};
pub use range_map::{RangeEntry, RangeMap, RangeMapError};

use crate::changing::{Changing, LayoutEnd};
use crate::SchemeKind;
use params::{ABOUT, NAME, PARAMS};

/// The registry entry; `build` checks the parameters and explains that the scheme is simulated.
pub const KIND: SchemeKind = SchemeKind {
    name: NAME,
    about: ABOUT,
    system: |_| None,
    params: PARAMS,
    needs_warmup: |_| false,
    points: |spec, _| {
        let presplit = crate::count_param(spec, "presplit", 1);
        crate::Points::new(presplit, "presplit ranges", "a smaller presplit")
    },
    build: |spec, _| {
        DynamicParams::parse(spec)?;
        Err(crate::changing::not_built(spec, "changes its ranges"))
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
        end: LayoutEnd {
            metrics: METRICS,
            final_layout: |state| Ok(Box::new(FinalRanges::from_state(state)?)),
        },
    }),
};
