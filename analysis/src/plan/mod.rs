//! Capacity planning: how many shards each scheme needs for a workload grown by G, with
//! replicas and failures, so that no shard runs above its limits; and when no count works,
//! why.
//!
//! - **Rates** come from time: events fall in windows of `--rate-window` (default 1 s) by
//!   their timestamps or, with `--rate R`, at `i / R` seconds ([`clock`]). The load that
//!   matters is the **peak**: the busiest shard's requests in its busiest window, divided by
//!   the window length. The p99 over windows (empty ones included) is reported beside it.
//! - **Growth** G multiplies every request rate and every stored byte.
//! - **Replicas** and where reads go are counted as [`window_load`] describes; stored bytes
//!   count once per replica.
//! - **Limits**: a shard may serve `capacity x headroom` requests per second and store
//!   `capacity-bytes x headroom` bytes. A plan holds when the peak rate and the bytes of every
//!   shard are within them with every shard up and after the worst `--failures` shards fail
//!   ([`failures`]).
//! - The [`search`] reports the smallest shard count that holds and the [`Binding`] reason;
//!   when one key alone is above the limit, no count can work and [`hot_key`] says what
//!   would.
//!
//! ```
//! use analysis::plan::{plan_traffic, PlanConfig, clock::{Clock, Windows}, traffic::Traffic};
//! use analysis::schemes::SchemeSpec;
//! use workloads::WorkloadSpec;
//! // 20,000 uniform requests at 10,000 per second; a shard serves 2,500/s at 80%: 2,000/s.
//! let mut source = WorkloadSpec::parse("uniform:keys=100000").unwrap().open(7, 20_000).unwrap();
//! let windows = Windows::new(Clock::Rate { events_per_sec: 10_000 }, 1_000_000_000).unwrap();
//! let traffic = Traffic::read(source.as_mut(), &windows, 0, &|_| {}).unwrap();
//! let cfg = PlanConfig { capacity: 2_500.0, ..PlanConfig::default() };
//! let rows = plan_traffic(&traffic, "uniform", Default::default(), &SchemeSpec::parse_list("hash").unwrap(), &cfg).unwrap();
//! let n = rows[0].shards_needed.unwrap();
//! assert!((5..=7).contains(&n)); // 10,000 / 2,000 = 5, plus what the busiest shard carries above its share
//! ```

pub mod binding;
pub mod clock;
pub mod failures;
pub mod hot_key;
pub mod point_loads;
pub mod search;
pub mod search_limit;
pub mod time_sanity;
pub mod traffic;
pub mod window_load;

use serde::Serialize;
use workloads::KeyType;

pub use binding::Binding;
pub use window_load::{LayoutLoad, ReadPolicy, ReplicaPolicy};

use crate::replay::{Progress, WorkloadInput};
use crate::schemes::SchemeSpec;
use crate::{AnalysisError, ShardId};
use clock::Windows;
use hot_key::HotKey;
use search::SchemeSearch;
use traffic::Traffic;

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
    /// Events measured.
    pub events_measured: u64,
    /// Events used only as warm-up.
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
    /// Warnings about the time axis that every rate rests on ([`time_sanity`]); also at the
    /// end of every row's note.
    pub warnings: Vec<String>,
    /// One row per scheme and growth, schemes in the order given.
    pub rows: Vec<PlanRow>,
}

/// Plans every scheme at every growth on traffic already read.
pub fn plan_traffic(
    traffic: &Traffic,
    workload: &str,
    key_type: KeyType,
    schemes: &[SchemeSpec],
    cfg: &PlanConfig,
) -> Result<Vec<PlanRow>, AnalysisError> {
    cfg.check()?;
    check_schemes(schemes)?;
    let mut rows = Vec::with_capacity(schemes.len() * cfg.growth.len());
    for spec in schemes {
        let mut search = SchemeSearch::new(spec, traffic, cfg, workload, key_type)?;
        for &g in &cfg.growth {
            rows.push(search.row(g)?);
        }
    }
    Ok(rows)
}

/// Refuses schemes a plan cannot size: those whose layout changes while events replay.
pub fn check_schemes(schemes: &[SchemeSpec]) -> Result<(), AnalysisError> {
    match schemes.iter().find(|s| s.is_dynamic()) {
        Some(s) => Err(AnalysisError::Config(format!(
            "plan cannot size '{}' yet: its ranges split, merge and move while the trace replays, so \
             it has no fixed layout per shard count; `shardlab run` measures its node loads",
            s.label()
        ))),
        None => Ok(()),
    }
}

/// Reads a workload (with a warm-up when a scheme learns boundaries, as `run` does) and plans
/// every scheme at every growth.
pub fn plan_workload(
    input: &WorkloadInput<'_>,
    windows: &Windows,
    schemes: &[SchemeSpec],
    cfg: &PlanConfig,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<WorkloadPlan, AnalysisError> {
    cfg.check()?;
    check_schemes(schemes)?;
    let source = (input.open)()?;
    progress(Progress::Started {
        workload: &input.label,
        events: source.len_hint(),
    });
    let learns = schemes.iter().any(SchemeSpec::needs_warmup);
    let (warmup, mut source) =
        crate::warmup::size_warmup(source, if learns { cfg.warmup_fraction } else { 0.0 })?;
    let traffic = Traffic::read(source.as_mut(), windows, warmup, &|n| {
        progress(Progress::Events(n))
    })?;
    progress(Progress::Phase("plan"));
    let mut rows = plan_traffic(&traffic, &input.label, input.key_type, schemes, cfg)?;
    let warnings = time_sanity::warnings(&traffic, windows.clock());
    for row in &mut rows {
        row.note = note_with_warnings(&row.note, &warnings);
    }
    Ok(describe(&traffic, input, cfg, rows, warnings))
}

/// A row's own note followed by the workload's warnings, separated by spaces.
pub fn note_with_warnings(note: &str, warnings: &[String]) -> String {
    let parts = std::iter::once(note).chain(warnings.iter().map(String::as_str));
    parts
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The workload's figures around its rows.
fn describe(
    traffic: &Traffic,
    input: &WorkloadInput<'_>,
    cfg: &PlanConfig,
    rows: Vec<PlanRow>,
    warnings: Vec<String>,
) -> WorkloadPlan {
    let per_window = traffic.events_per_window();
    let secs = traffic.window_secs();
    let windows = traffic.windows();
    WorkloadPlan {
        workload: input.label.clone(),
        description: input.description.clone(),
        key_type: input.key_type,
        events_measured: traffic.events(),
        warmup_events: traffic.warmup_events(),
        windows,
        window_secs: secs,
        mean_rate: traffic.events() as f64 / (windows as f64 * secs),
        peak_rate: per_window.iter().copied().max().unwrap_or(0) as f64 / secs,
        p99_rate: window_load::nearest_rank_p99(per_window, windows) as f64 / secs,
        hot_key: hot_key::hottest_key(traffic, cfg.policy),
        rows,
        warnings,
    }
}
