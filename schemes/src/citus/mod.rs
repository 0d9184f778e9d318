//! `citus`: logical shards hashed onto nodes and moved by Citus's greedy rebalancer at every
//! window end as the trace replays. It is not a fixed [`Partitioner`](crate::Partitioner) but
//! a [`ChangingLayout`](crate::changing::ChangingLayout) that the engine's replay drives.
//!
//! The pieces, one per file:
//! - [`rebalance`]: the planner (Citus's `RebalancePlacementUpdates`), proven against Citus's
//!   own unit-test vectors;
//! - [`params`]: the spec parameters, with Citus's names and defaults;
//! - [`placement`]: the shards' nodes and sizes, and the plan for them;
//! - [`layout`]: the cluster replayed window by window, as a changing layout;
//! - [`final_layout`]: the shards at the end as a fixed layout that grows by rebalancing;
//! - [`metrics`]: its own metrics.

pub mod final_layout;
pub mod layout;
pub mod metrics;
pub mod params;
pub mod placement;
pub mod rebalance;

pub use final_layout::FinalShards;
pub use layout::Citus;
pub use metrics::METRICS;
pub use params::{CitusParams, Strategy};
pub use placement::Placement;
pub use rebalance::{plan, Plan, PlanNode, PlanOptions, PlanShard, ShardMove};

use crate::changing::{Changing, LayoutEnd};
use crate::SchemeKind;
use params::{ABOUT, NAME, PARAMS};

/// The registry entry; `build` checks the parameters and explains that the scheme is simulated.
pub const KIND: SchemeKind = SchemeKind {
    name: NAME,
    about: ABOUT,
    // Not a real system's placement: keys go to shards by xxh3, not Citus's hash ranges (only
    // the moves between nodes are Citus's, proven in vectors.rs).
    system: |_| None,
    params: PARAMS,
    needs_warmup: |_| false,
    points: |spec, _| {
        let shards = crate::count_param(spec, "shards", 32);
        crate::Points::new(shards, "logical shards", "fewer shards")
    },
    build: |spec, _| {
        CitusParams::parse(spec)?;
        Err(crate::changing::not_built(spec, "moves its shards"))
    },
    changing: Some(Changing {
        check: |spec| Ok(CitusParams::parse(spec).map(drop)?),
        start: |spec, setup| Ok(Box::new(Citus::start(spec, setup)?)),
        end: LayoutEnd {
            metrics: METRICS,
            final_layout: |state| Ok(Box::new(FinalShards::from_state(state)?)),
        },
    }),
};
