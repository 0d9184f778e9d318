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
//! use planning::{plan_traffic, PlanConfig, clock::{Clock, Windows}, traffic::Traffic};
//! use schemes::SchemeSpec;
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

pub mod advice;
pub mod binding;
pub mod clock;
mod config;
pub mod failures;
pub mod figures;
pub mod heavy_keys;
pub mod hot_key;
pub mod migration;
pub mod point_loads;
pub mod removal_index;
pub mod removal_loads;
mod rows;
pub mod search;
pub mod search_limit;
pub mod time_sanity;
pub mod traffic;
pub mod window_load;

use workloads::KeyType;

pub use binding::Binding;
pub use config::{Limits, PlanConfig, FIT_TOLERANCE};
pub use rows::{PlanRow, WorkloadPlan};
pub use window_load::{LayoutLoad, ReadPolicy, ReplicaPolicy};

use clock::Windows;
use engine::replay::{Progress, WorkloadInput};
use schemes::AnalysisError;
use schemes::SchemeSpec;
use search::SchemeSearch;
use traffic::Traffic;

/// Plans every scheme at every growth on traffic already read.
pub fn plan_traffic(
    traffic: &Traffic,
    workload: &str,
    key_type: KeyType,
    schemes: &[SchemeSpec],
    cfg: &PlanConfig,
) -> Result<Vec<PlanRow>, AnalysisError> {
    plan_traffic_reporting(traffic, workload, key_type, schemes, cfg, &|_| {})
}

/// As [`plan_traffic`], telling `progress` which scheme, shard count and failure check the
/// search is on.
pub fn plan_traffic_reporting(
    traffic: &Traffic,
    workload: &str,
    key_type: KeyType,
    schemes: &[SchemeSpec],
    cfg: &PlanConfig,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Vec<PlanRow>, AnalysisError> {
    cfg.check()?;
    check_schemes(schemes)?;
    let mut rows = Vec::with_capacity(schemes.len() * cfg.growth.len());
    for spec in schemes {
        let mut search =
            SchemeSearch::new(spec, traffic, cfg, workload, key_type)?.with_progress(progress);
        for &g in &cfg.growth {
            rows.push(search.row(g)?);
        }
    }
    Ok(rows)
}

/// Refuses schemes a plan cannot size: those whose layout changes while events replay.
pub fn check_schemes(schemes: &[SchemeSpec]) -> Result<(), AnalysisError> {
    match schemes.iter().find(|s| s.is_changing()) {
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
        engine::warmup::size_warmup(source, if learns { cfg.warmup_fraction } else { 0.0 })?;
    let traffic = Traffic::read(source.as_mut(), windows, warmup, &|n| {
        progress(Progress::Events(n))
    })?;
    progress(Progress::Phase("plan"));
    let step = |what: &str| progress(Progress::Step(what));
    let mut rows =
        plan_traffic_reporting(&traffic, &input.label, input.key_type, schemes, cfg, &step)?;
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
