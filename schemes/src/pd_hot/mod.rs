//! `pd-hot`: key ranges (regions) on stores, hot regions moved off the hottest store at every
//! window end by a scheduler in the manner of TiKV PD's hot-region scheduler, as the trace
//! replays. It is not a fixed [`Partitioner`](crate::Partitioner) but a
//! [`ChangingLayout`](crate::changing::ChangingLayout) that the engine's replay drives.
//!
//! The pieces, one per file:
//! - [`scheduler`]: the rule that picks a move (PD's tolerance and decline-ratio checks);
//! - [`params`]: the spec parameters, with PD's names and defaults where PD has them;
//! - [`layout`]: the regions replayed window by window, as a changing layout;
//! - [`final_layout`]: the regions at the end as a fixed layout that grows by the scheduler;
//! - [`metrics`]: its own metrics.

pub mod final_layout;
pub mod layout;
pub mod metrics;
pub mod params;
pub mod scheduler;

pub use final_layout::{FinalRegions, SavedRegions};
pub use layout::PdHot;
pub use metrics::METRICS;
pub use params::PdHotParams;
pub use scheduler::{plan, RegionMove, Rule};

use crate::changing::{Changing, LayoutEnd};
use crate::SchemeKind;
use params::{ABOUT, NAME, PARAMS};

/// The registry entry; `build` checks the parameters and explains that the scheme is simulated.
pub const KIND: SchemeKind = SchemeKind {
    name: NAME,
    about: ABOUT,
    // Not a real system's placement: regions are cut from the first window and only one
    // load dimension (requests) is weighed; the move rule is PD's.
    system: |_| None,
    params: PARAMS,
    needs_warmup: |_| false,
    points: |spec, _| {
        let regions = crate::count_param(spec, "regions", 64);
        crate::Points::new(regions, "regions", "fewer regions")
    },
    build: |spec, _| {
        PdHotParams::parse(spec)?;
        Err(crate::changing::not_built(spec, "moves its regions"))
    },
    changing: Some(Changing {
        check: |spec| Ok(PdHotParams::parse(spec).map(drop)?),
        start: |spec, setup| Ok(Box::new(PdHot::start(spec, setup)?)),
        end: LayoutEnd {
            metrics: METRICS,
            final_layout: |state| Ok(Box::new(FinalRegions::from_state(state)?)),
        },
    }),
};

#[cfg(test)]
mod tests;
