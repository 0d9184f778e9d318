//! What a plan answers: one [`PlanRow`] per scheme and growth (a row of `plan.csv`), gathered
//! with the workload's traffic in a [`WorkloadPlan`].

use serde::Serialize;
use workloads::KeyType;

use super::binding::Binding;
use super::hot_key::HotKey;
use super::window_load::ReadPolicy;
use schemes::ShardId;

/// The plan of one scheme at one growth: a row of `plan.csv`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanRow {
    /// Workload label.
    pub workload: String,
    /// Scheme label.
    pub scheme: String,
    /// Growth factor G.
    pub growth: f64,
    /// Replicas per key.
    pub replicas: u32,
    /// Where reads go.
    pub reads: ReadPolicy,
    /// Shards that may fail at once.
    pub failures: u32,
    /// The smallest shard count that holds; `None` when none does (see `binding`).
    pub shards_needed: Option<u32>,
    /// Why that count (what one shard fewer breaks), or why no count works.
    pub binding: Binding,
    /// Requests/s of the busiest shard in its busiest window at `shards_needed`, the worst
    /// over every shard up and each failure state, grown by G. For `hot_key`: the key's rate
    /// on its busiest replica; for `search_limit`: the figure at `--max-shards`.
    pub peak_rate_per_shard: Option<f64>,
    /// The same, for the 99th-percentile window.
    pub p99_rate_per_shard: Option<f64>,
    /// The busiest shard's share of all shard requests over the trace at `shards_needed`
    /// with every shard up; for `hot_key`: the key's share of point requests.
    pub hottest_share: Option<f64>,
    /// Share of distinct keys whose owner differs between `--current` shards and
    /// `shards_needed` (the scheme's own resize rule); `None` without `--current`.
    pub moved_fraction_from_current: Option<f64>,
    /// capacity x headroom, requests/s.
    pub rate_limit_per_shard: f64,
    /// Bytes on the fullest shard (worst state), grown by G.
    pub peak_bytes_per_shard: Option<f64>,
    /// capacity-bytes x headroom.
    pub bytes_limit_per_shard: Option<f64>,
    /// The lower bound of the search: what a perfectly balanced scheme would need.
    pub balanced_shards: u32,
    /// `--current`.
    pub current_shards: Option<u32>,
    /// The rate window in seconds.
    pub rate_window_secs: f64,
    /// The shards removed in the worst failure case, in order.
    pub failed_shards: Vec<ShardId>,
    /// For `hot_key` and `key_bytes`: the key, displayed.
    pub hot_key: Option<String>,
    /// For `hot_key`: its rate on its busiest replica, grown by G.
    pub hot_key_rate: Option<f64>,
    /// A sentence for infeasible rows (why, and what would work), followed by the workload's
    /// warnings about its time axis ([`WorkloadPlan::warnings`]).
    pub note: String,
}

/// The plan of one workload: its traffic and one row per scheme and growth.
#[derive(Clone, Debug, Serialize)]
pub struct WorkloadPlan {
    /// Workload label.
    pub workload: String,
    /// A sentence describing the workload.
    pub description: String,
    /// How keys are displayed.
    pub key_type: KeyType,
    /// Events measured: every event of the workload.
    pub events_measured: u64,
    /// The first events, which also taught learned layouts their boundaries.
    pub warmup_events: u64,
    /// Rate windows from the first measured one to the last.
    pub windows: u64,
    /// The window length in seconds.
    pub window_secs: f64,
    /// Events per second over all windows.
    pub mean_rate: f64,
    /// Events per second in the busiest window.
    pub peak_rate: f64,
    /// Events per second in the 99th-percentile window (nearest rank, empty windows included).
    pub p99_rate: f64,
    /// The busiest key under the replica policy (before growth).
    pub hot_key: Option<HotKey>,
    /// Warnings about the time axis that every rate rests on
    /// ([`super::time_sanity`]); also at the end of every row's note.
    pub warnings: Vec<String>,
    /// One row per scheme and growth, schemes in the order given.
    pub rows: Vec<PlanRow>,
}
