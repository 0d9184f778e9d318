//! `citus`: shards hashed onto nodes and moved by Citus's greedy rebalancer as the trace
//! replays.
//!
//! The pieces, one per file:
//! - [`rebalance`]: the planner (Citus's `RebalancePlacementUpdates`), proven against Citus's
//!   own unit-test vectors.

pub mod rebalance;

pub use rebalance::{plan, Plan, PlanNode, PlanOptions, PlanShard, ShardMove};
