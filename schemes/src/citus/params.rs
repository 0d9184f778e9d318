//! The parameters of `citus`, parsed from a spec string, with Citus's names and defaults.
//!
//! ```
//! use schemes::citus::params::{CitusParams, Strategy};
//! use workloads::Spec;
//! let p = CitusParams::parse(&Spec::parse("citus:strategy=by_disk_size").unwrap()).unwrap();
//! assert_eq!((p.strategy, p.threshold, p.improvement_threshold), (Strategy::ByDiskSize, 0.1, 0.5));
//! ```

use serde::{Deserialize, Serialize};
use workloads::{Spec, SpecError};

use super::rebalance::PlanOptions;

/// The scheme name in `--schemes`.
pub const NAME: &str = "citus";

/// One line on the scheme, for help texts.
pub const ABOUT: &str = "hash shards on nodes, moved by Citus's greedy rebalancer at every window end as the trace replays";

/// Citus's default `max_shard_moves`.
pub const DEFAULT_MAX_MOVES: u64 = 1_000_000;

/// The most logical shards.
pub const MAX_SHARDS: u64 = 1 << 20;

/// Parameter names and what they do (with defaults), in the order help texts show them.
pub static PARAMS: &[(&str, &str)] = &[
    ("shards", "logical shards; a key's shard is its placement hash mod shards (default 32)"),
    (
        "strategy",
        "by_shard_count: every shard costs 1 (default); by_disk_size: a shard costs the bytes of the keys \
         seen in it (key length + the size of its last event that carried one), at least 1",
    ),
    (
        "threshold",
        "a node within this share of the mean utilization is balanced enough, in [0, 1] \
         (default: the strategy's default_threshold, 0 for by_shard_count, 0.1 for by_disk_size)",
    ),
    (
        "improvement_threshold",
        "least balance improvement relative to the shard's own utilization for a move that leaves the target \
         above the source (default 0 for by_shard_count, 0.5 for by_disk_size)",
    ),
    ("max_moves", "most moves per rebalance, Citus's max_shard_moves (default 1000000)"),
    (
        "grown_from",
        "shards start round-robin on the first M nodes, the others join empty: the moment after adding \
         nodes (default: every node)",
    ),
    (
        "move_rate",
        "bytes of shards moved per second of trace time (per event without timestamps; --time-unit), \
         unused budget carried over while moves wait; a shard not moved yet serves from its old node \
         (default: moves are instant)",
    ),
];

/// How a shard's cost is counted (Citus's rebalance strategies).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Strategy {
    /// Every shard costs 1.
    ByShardCount,
    /// A shard costs its bytes.
    ByDiskSize,
}

impl Strategy {
    /// `default_threshold` and `improvement_threshold` of the strategy's row in Citus's
    /// `pg_dist_rebalance_strategy`.
    pub fn defaults(self) -> (f64, f32) {
        match self {
            Strategy::ByShardCount => (0.0, 0.0),
            Strategy::ByDiskSize => (0.1, 0.5),
        }
    }
}

/// Checked parameters of `citus`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CitusParams {
    /// Logical shards.
    pub shards: u32,
    /// How shards cost.
    pub strategy: Strategy,
    /// Citus's `threshold`.
    pub threshold: f64,
    /// Citus's `improvement_threshold`.
    pub improvement_threshold: f32,
    /// Citus's `max_shard_moves`.
    pub max_moves: u64,
    /// Nodes holding the shards at the start; `None` = every node.
    pub grown_from: Option<u32>,
    /// Bytes moved per second of trace time (per event without timestamps); `None` = instant
    /// moves.
    pub move_rate: Option<u64>,
}

impl CitusParams {
    /// Parses and checks a `citus` spec; errors name the parameter and the valid form.
    pub fn parse(spec: &Spec) -> Result<CitusParams, SpecError> {
        let names: Vec<&str> = PARAMS.iter().map(|(n, _)| *n).collect();
        spec.check(&names)?;
        let shards = spec.u64_at_least("shards", 32, 1)?;
        if shards > MAX_SHARDS {
            return Err(spec.error(format!("shards={shards} must be at most {MAX_SHARDS}")));
        }
        let strategy = match spec.get("strategy") {
            None | Some("by_shard_count") => Strategy::ByShardCount,
            Some("by_disk_size") => Strategy::ByDiskSize,
            Some(other) => {
                return Err(spec.error(format!(
                    "strategy={other} is unknown; valid strategies: by_shard_count, by_disk_size"
                )))
            }
        };
        let (threshold, improvement) = strategy.defaults();
        let improvement_threshold: f32 =
            spec.parse_or("improvement_threshold", improvement, "a number")?;
        if !(improvement_threshold.is_finite() && improvement_threshold >= 0.0) {
            return Err(spec.error(format!(
                "improvement_threshold={improvement_threshold} must be a number, at least 0"
            )));
        }
        let grown_from = spec
            .optional_u64_at_least("grown_from", 1)?
            .map(|m| u32::try_from(m).unwrap_or(u32::MAX));
        let move_rate = spec.optional_u64_at_least("move_rate", 1)?;
        Ok(CitusParams {
            shards: shards as u32,
            strategy,
            threshold: spec.fraction("threshold", threshold)?,
            improvement_threshold,
            max_moves: spec.u64_at_least("max_moves", DEFAULT_MAX_MOVES, 0)?,
            grown_from,
            move_rate,
        })
    }

    /// The nodes holding the shards at the start on `nodes` nodes; a spec error when
    /// `grown_from` is above `nodes`.
    pub fn start_nodes(&self, spec: &Spec, nodes: u32) -> Result<u32, SpecError> {
        start_nodes(spec, self.grown_from, nodes)
    }

    /// The planner's options.
    pub fn plan_options(&self) -> PlanOptions {
        PlanOptions {
            threshold: self.threshold,
            improvement_threshold: self.improvement_threshold,
            max_shard_moves: usize::try_from(self.max_moves).unwrap_or(usize::MAX),
            drain_only: false,
        }
    }
}

/// The nodes that hold the data at the start of a balancer with `grown_from` on `nodes`
/// nodes: `grown_from` (default every node); a spec error naming it when it is above `nodes`.
pub fn start_nodes(spec: &Spec, grown_from: Option<u32>, nodes: u32) -> Result<u32, SpecError> {
    match grown_from {
        None => Ok(nodes),
        Some(m) if m <= nodes => Ok(m),
        Some(m) => Err(spec.error(format!(
            "grown_from={m} must be at most the node count {nodes} (--shards)"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<CitusParams, SpecError> {
        CitusParams::parse(&Spec::parse(text).unwrap())
    }

    #[test]
    fn defaults_are_citus_defaults() {
        let p = parse("citus").unwrap();
        assert_eq!(
            (p.shards, p.strategy, p.threshold),
            (32, Strategy::ByShardCount, 0.0)
        );
        assert_eq!(
            (p.improvement_threshold, p.max_moves),
            (0.0, DEFAULT_MAX_MOVES)
        );
        assert_eq!((p.grown_from, p.move_rate), (None, None));
        let p = parse("citus:shards=8,strategy=by_disk_size,threshold=0.2,improvement_threshold=0.3,max_moves=0,grown_from=2,move_rate=100").unwrap();
        assert_eq!(
            (p.shards, p.threshold, p.improvement_threshold),
            (8, 0.2, 0.3)
        );
        assert_eq!(
            (p.max_moves, p.grown_from, p.move_rate),
            (0, Some(2), Some(100))
        );
    }

    #[test]
    fn bad_values_name_the_parameter() {
        for (text, needle) in [
            ("citus:shards=0", "shards=0 must be at least 1"),
            ("citus:strategy=by_load", "strategy=by_load is unknown"),
            ("citus:threshold=2", "threshold=2 must be a fraction"),
            ("citus:improvement_threshold=-1", "improvement_threshold=-1"),
            ("citus:grown_from=0", "grown_from=0 must be at least 1"),
            ("citus:move_rate=x", "move_rate=x is not a whole number"),
            ("citus:vnodes=3", "unknown parameter 'vnodes'"),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
        let spec = Spec::parse("citus:grown_from=5").unwrap();
        let p = CitusParams::parse(&spec).unwrap();
        assert!(p
            .start_nodes(&spec, 4)
            .unwrap_err()
            .to_string()
            .contains("grown_from=5"));
        assert_eq!(p.start_nodes(&spec, 5).unwrap(), 5);
    }
}
