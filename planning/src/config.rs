//! What a plan is asked: [`PlanConfig`] (limits, growth, replicas, failures) and the
//! [`Limits`] a shard must stay within.

use serde::Serialize;

use super::window_load::{LayoutLoad, ReadPolicy, ReplicaPolicy};
use schemes::AnalysisError;

/// A load fits a limit when it is at most `limit x (1 + FIT_TOLERANCE)`: exact fits computed
/// in floating point (e.g. 8,000 against 10,000 x 0.8) are not refused by a rounding error.
pub const FIT_TOLERANCE: f64 = 1e-9;

/// What a plan must satisfy and how it searches.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanConfig {
    /// Requests per second one shard can serve.
    pub capacity: f64,
    /// Bytes one shard can store (`None`: not limited).
    pub capacity_bytes: Option<f64>,
    /// The share of the capacities a plan may use, in (0, 1].
    pub headroom: f64,
    /// Traffic (and data) multipliers to plan for, each positive.
    pub growth: Vec<f64>,
    /// Replicas per key and where reads go.
    pub policy: ReplicaPolicy,
    /// Shards that may fail at once.
    pub failures: u32,
    /// The shard count today, for the share of keys that move to reach the plan.
    pub current_shards: Option<u32>,
    /// The largest shard count searched.
    pub max_shards: u32,
    /// Share of the events used only to learn range boundaries (when a scheme learns).
    pub warmup_fraction: f64,
}

impl Default for PlanConfig {
    fn default() -> Self {
        PlanConfig {
            capacity: 1_000.0,
            capacity_bytes: None,
            headroom: 0.8,
            growth: vec![1.0],
            policy: ReplicaPolicy {
                replicas: 1,
                reads: ReadPolicy::Leader,
            },
            failures: 0,
            current_shards: None,
            max_shards: 1024,
            warmup_fraction: 0.1,
        }
    }
}

/// The per-shard limits after headroom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Requests per second.
    pub rate: f64,
    /// Stored bytes (`None`: not limited).
    pub bytes: Option<f64>,
}

impl Limits {
    /// (peak rate / rate limit, fullest shard's bytes / byte limit), before growth.
    pub fn parts(&self, load: &LayoutLoad) -> (f64, f64) {
        let bytes = self.bytes.map_or(0.0, |b| load.max_bytes() as f64 / b);
        (load.peak_rate() / self.rate, bytes)
    }

    /// The larger of [`Limits::parts`]: a layout holds at growth G when G x this is at most 1.
    pub fn utilisation(&self, load: &LayoutLoad) -> f64 {
        let (rate, bytes) = self.parts(load);
        rate.max(bytes)
    }

    /// True when a utilisation fits at growth `growth`.
    pub fn fits(&self, growth: f64, utilisation: f64) -> bool {
        growth * utilisation <= 1.0 + FIT_TOLERANCE
    }
}

impl PlanConfig {
    /// The limits after headroom.
    pub fn limits(&self) -> Limits {
        Limits {
            rate: self.capacity * self.headroom,
            bytes: self.capacity_bytes.map(|b| b * self.headroom),
        }
    }

    /// Refuses values no plan can use; messages name the option.
    pub fn check(&self) -> Result<(), AnalysisError> {
        let bad = |m: String| Err(AnalysisError::Config(m));
        if !(self.capacity.is_finite() && self.capacity > 0.0) {
            return bad(format!(
                "--capacity must be a positive number of requests per second (got {})",
                self.capacity
            ));
        }
        if let Some(b) = self.capacity_bytes.filter(|b| !(b.is_finite() && *b > 0.0)) {
            return bad(format!(
                "--capacity-bytes must be a positive number of bytes (got {b})"
            ));
        }
        if !(self.headroom > 0.0 && self.headroom <= 1.0) {
            return bad(format!(
                "--headroom must be in (0, 1], e.g. 0.8 (got {})",
                self.headroom
            ));
        }
        if self.growth.is_empty() {
            return bad("--growth needs at least one factor, e.g. 1,2,4".into());
        }
        if let Some(g) = self.growth.iter().find(|g| !(g.is_finite() && **g > 0.0)) {
            return bad(format!(
                "--growth factors must be positive numbers (got {g})"
            ));
        }
        if self.policy.replicas == 0 {
            return bad("--replicas must be at least 1".into());
        }
        if self.current_shards == Some(0) {
            return bad("--current must be at least 1 shard".into());
        }
        let least = self.failures.saturating_add(self.policy.replicas);
        if self.max_shards < least {
            return bad(format!(
                "--max-shards {} is below --replicas {} + --failures {}: no shard count could keep every replica",
                self.max_shards, self.policy.replicas, self.failures
            ));
        }
        if !(0.0..1.0).contains(&self.warmup_fraction) {
            return bad(format!(
                "--warmup must be in [0, 1) (got {})",
                self.warmup_fraction
            ));
        }
        Ok(())
    }
}
