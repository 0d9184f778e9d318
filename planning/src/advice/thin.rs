//! When the windows are too thin to judge usable capacity.
//!
//! `usable_capacity` rests on the hottest shard of each window. That maximum over N small
//! counts is biased high when a window holds few requests per shard, and not by the same for
//! every scheme (a scheme with one clearly hot shard suffers less than an even one), so below
//! [`MIN_REQUESTS_PER_SHARD_WINDOW`] the figure cannot rank schemes. With fewer than
//! [`MIN_WINDOWS`] windows there is no interval of the trace's noise to tell a lead from
//! luck. In both cases the procedure names no scheme and says how to fix the run.

use engine::metrics::confidence::MIN_BOOTSTRAP_WINDOWS;
use engine::metrics::WorkloadResult;

/// Fewest requests per shard per window (on average) for usable capacity to rank schemes:
/// at 200 an even scheme's hottest shard is still biased about 1.15x high on 32 shards
/// (Poisson counts), at 40 about 1.5x.
pub const MIN_REQUESTS_PER_SHARD_WINDOW: f64 = 200.0;

/// Fewest windows for an interval of usable capacity (the block bootstrap's minimum).
pub const MIN_WINDOWS: usize = MIN_BOOTSTRAP_WINDOWS;

/// Why the windows of `r` are too thin to decide on usable capacity at `shards` shards, with
/// the `--window` that would fix it; `None` when they are thick enough.
pub fn too_thin(r: &WorkloadResult, shards: u32) -> Option<String> {
    let load = &r.schemes.first()?.load;
    let windows = load.window_requests.len();
    let n = u64::from(shards.max(1));
    let events = r.events_measured.max(1);
    // Events per window such that the mean window holds the threshold per shard, and the
    // longest window that still gives MIN_WINDOWS windows.
    let requests_per_event = load.requests as f64 / events as f64;
    let needed =
        (MIN_REQUESTS_PER_SHARD_WINDOW * n as f64 / requests_per_event.max(1e-9)).ceil() as u64;
    let longest = events / MIN_WINDOWS as u64;
    let fix = if needed <= longest {
        format!("rerun with --window between {needed} and {longest}")
    } else {
        format!(
            "the trace is too short for {shards} shards: {} measured events are needed (or fewer shards)",
            needed * MIN_WINDOWS as u64
        )
    };
    if windows < MIN_WINDOWS {
        return Some(format!(
            "too thin to decide on usable_capacity: {windows} window(s) of the trace, an interval needs at least {MIN_WINDOWS}; {fix}"
        ));
    }
    let per_shard = load.requests as f64 / (windows as f64 * n as f64);
    (per_shard < MIN_REQUESTS_PER_SHARD_WINDOW).then(|| {
        format!(
            "too thin to decide on usable_capacity: {per_shard:.0} requests per shard per window, the hottest shard of a window is biased high below {MIN_REQUESTS_PER_SHARD_WINDOW:.0}; {fix}"
        )
    })
}
