//! `range-dynamic`: a cluster of key ranges that split by size and load, merge when cold and
//! move between nodes while a trace replays in windows, and the judgement of every split key
//! it considers. It is not a fixed [`Partitioner`](crate::Partitioner): the engine's range
//! simulation replays it in order with the parameters registered here.
//!
//! The pieces, one per file:
//! - [`range_map`]: the map of ranges that always tiles the key space;
//! - [`params`]: the spec parameters and their defaults;
//! - [`requests`]: a window's requests and the side of a boundary each falls on;
//! - [`diagnose`]: the popular-key and clear-direction refusals;
//! - [`finder`]: the `median`, `sampled`, `reservoir` and `optimal` split-key finders;
//! - [`rebalance`]: ownership moves first, then capped data moves;
//! - [`cluster`]: the ranges, their nodes and their loads;
//! - [`window`]: cutting the stream into windows;
//! - [`output`]: timeline rows, split rows, finder summaries, final ranges.

pub mod cluster;
pub mod diagnose;
pub mod finder;
pub mod output;
pub mod params;
pub mod range_map;
pub mod rebalance;
pub mod requests;
pub mod window;

pub use diagnose::{Diagnosis, Refusal};
pub use finder::{FinderInput, FinderKind};
pub use output::{DynamicTotals, FinalRange, FinderSummary, SplitRow, TimelineRow, WindowClock};
pub use params::{DynamicParams, LoadLimit, WindowTime};
pub use range_map::{RangeEntry, RangeMap, RangeMapError};
pub use window::MAX_IDLE_WINDOWS;

use crate::{AnalysisError, SchemeKind, Simulation};
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
    simulation: Some(Simulation {
        check: |spec| Ok(DynamicParams::parse(spec).map(drop)?),
        params: |spec| Ok(DynamicParams::parse(spec)?),
    }),
};
