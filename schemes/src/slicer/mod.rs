//! `slicer`: keys hashed into the 64-bit space of the pinned hash, cut into slices on tasks
//! and rebalanced at every window end by a churn-budgeted weighted-move balancer in the
//! manner of Google's Slicer (Adya et al., OSDI 2016). It is not a fixed
//! [`Partitioner`](crate::Partitioner) but a
//! [`ChangingLayout`](crate::changing::ChangingLayout) that the engine's replay drives.
//!
//! The pieces, one per file:
//! - [`slices`]: the slices on their tasks, and the load of any range of hashes;
//! - [`round`]: one round of the balancer (reassign, merge, split and move), with its rules;
//! - [`params`]: the spec parameters;
//! - [`layout`]: the layout replayed window by window, as a changing layout;
//! - [`final_layout`]: the slices at the end as a fixed layout that grows by rounds;
//! - [`metrics`]: its own metrics.

pub mod final_layout;
pub mod layout;
pub mod metrics;
pub mod params;
pub mod round;
pub mod slices;

#[cfg(test)]
mod tests;

pub use final_layout::FinalSlices;
pub use layout::Slicer;
pub use metrics::METRICS;
pub use params::SlicerParams;
pub use round::{round, settle, Round, RoundOptions, SliceMove};
pub use slices::{HashLoads, Slices};

use crate::changing::{Changing, LayoutEnd};
use crate::SchemeKind;
use params::{ABOUT, NAME, PARAMS};

/// The registry entry; `build` checks the parameters and explains that the scheme is simulated.
pub const KIND: SchemeKind = SchemeKind {
    name: NAME,
    about: ABOUT,
    // Not a real system's placement: written from the paper's description, not Slicer's code.
    system: |_| None,
    params: PARAMS,
    needs_warmup: |_| false,
    points: |spec, shards| {
        let per = SlicerParams::parse(spec).map_or(16, |p| p.max_slices_per_task);
        crate::Points::times_shards(
            u64::from(per),
            shards,
            "max_slices_per_task x tasks",
            "fewer slices",
        )
    },
    build: |spec, _| {
        SlicerParams::parse(spec)?;
        Err(crate::changing::not_built(spec, "moves its slices"))
    },
    changing: Some(Changing {
        check: |spec| Ok(SlicerParams::parse(spec).map(drop)?),
        start: |spec, setup| Ok(Box::new(Slicer::start(spec, setup)?)),
        end: LayoutEnd {
            metrics: METRICS,
            final_layout: |state| Ok(Box::new(FinalSlices::from_state(state)?)),
        },
    }),
};
