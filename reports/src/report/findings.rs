//! Findings and recommendations written from the measured numbers.
//!
//! Every sentence is built from values of the run directory (`summary.csv`, `windows.csv`,
//! `recommendation.csv`): change the numbers and the sentences change with them. Nothing here
//! computes a metric: usable capacity, growth shares and the decision itself come from
//! `analysis` (see [`planning::advice`]), read back from the files.

use engine::metrics::failure::{FAIL_HOTTEST_SURVIVING_RATIO, FAIL_REMAP_FRACTION, FAIL_SHARD};
use engine::metrics::registry::fanout::{SCANS, SCAN_FANOUT_MEAN};
use engine::metrics::registry::keys::HOTTEST_KEY_SHARE;
use engine::metrics::registry::latency::{LOOKUP_NS_P50, LOOKUP_NS_P99};
use engine::metrics::registry::load::{
    HOTTEST_SHARD_RATIO, HOTTEST_SHARD_SHARE, HOTTEST_SHARD_SHARE_WINDOWED, REQUESTS_PER_EVENT,
    USABLE_CAPACITY,
};
use engine::metrics::registry::remap::{
    GROW_ADDED_FAIR, GROW_ADDED_SHARE, HOTTEST_SHARD_SHARE_GROWN, REMAP_FRACTION, REMAP_IDEAL,
};
use engine::metrics::registry::traffic::EVENTS_MEASURED;
use engine::metrics::MetricId;
use planning::advice;
use schemes::range_dynamic::metrics::{
    DYNAMIC_BYTES_MOVED, DYNAMIC_LOAD_SPLITS, DYNAMIC_MERGES, DYNAMIC_RANGES, DYNAMIC_SIZE_SPLITS,
    DYNAMIC_WINDOWS,
};

use crate::data::{is_full_window, RunData, SchemeLoad};
use crate::dynamic_csv::TimelineCsvRow;
use crate::recommendation_csv::RecommendationRow;

pub use super::finding::{pct, Finding, Topic};

/// A hottest share this many times the fair share 1/N counts as a hot spot.
pub const HOT_SPOT_FACTOR: f64 = 3.0;

/// A remap this many times the ideal counts as moving far more than needed.
pub const REMAP_EXCESS_FACTOR: f64 = 3.0;

/// What one scheme costs on one workload at one shard count, read from the run.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemeProfile {
    /// Scheme label.
    pub scheme: String,
    /// `usable_capacity` and its 95% interval.
    pub usable_capacity: f64,
    /// The interval of `usable_capacity`, when estimated.
    pub usable_ci: Option<(f64, f64)>,
    /// `hottest_shard_share_windowed`.
    pub hottest_window_share: f64,
    /// Smallest and largest per-window hottest share (from `windows.csv`), when recorded.
    pub hottest_window_range: Option<(f64, f64)>,
    /// Windows recorded with at least half the requests of the fullest (the range above is
    /// over these).
    pub windows: usize,
    /// Windows left out of the range for holding fewer requests (a short last window).
    pub short_windows: usize,
    /// True when the hottest shard is not the same shard in every full window.
    pub hottest_moves: bool,
    /// `hottest_shard_share` (whole trace).
    pub hottest_share: f64,
    /// `hottest_shard_ratio` (whole trace; per weight with `--weights`).
    pub hottest_ratio: f64,
    /// `requests_per_event`.
    pub requests_per_event: f64,
    /// `scan_fanout_mean`, when the workload has scans.
    pub scan_fanout: Option<f64>,
    /// `lookup_ns_p50`, when lookups were timed.
    pub lookup_p50: Option<f64>,
    /// With `--fail`, `fail_remap_fraction`: `Some(None)` when the scheme's rule cannot
    /// remove the failed shard.
    pub fail_moved: Option<Option<f64>>,
}

/// Everything the load findings of one workload at one shard count are written from.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadProfile {
    /// Workload label.
    pub workload: String,
    /// Shard count N.
    pub shards: u32,
    /// Growth targets measured from N, in run order.
    pub targets: Vec<u32>,
    /// `hottest_key_share`.
    pub hottest_key_share: Option<f64>,
    /// `scans` and `events_measured`.
    pub scans: Option<(f64, f64)>,
    /// Whether the shards were weighted (`--weights`): balance is then per weight.
    pub weighted: bool,
    /// One profile per scheme, in run order.
    pub schemes: Vec<SchemeProfile>,
}

/// What one scheme's growth from N to M does, read from the run.
#[derive(Clone, Debug, PartialEq)]
pub struct GrowthProfile {
    /// Scheme label.
    pub scheme: String,
    /// `remap_fraction`.
    pub moved: f64,
    /// `remap_ideal`.
    pub ideal: f64,
    /// `grow_added_share` (growth only).
    pub added_share: Option<f64>,
    /// `grow_added_fair` (growth only).
    pub added_fair: Option<f64>,
    /// `hottest_shard_share_grown`.
    pub hottest_grown: Option<f64>,
}

impl GrowthProfile {
    /// The added shards get under half their fair share (the rule of `analysis`, applied to
    /// the figures read back).
    fn idle(&self) -> bool {
        engine::metrics::growth::Growth {
            added_share: self.added_share,
            added_fair: self.added_fair,
            hottest_share_after: self.hottest_grown,
        }
        .leaves_added_idle()
    }
}

/// The outcome for one workload and N, in sentences.
#[derive(Clone, Debug, PartialEq)]
pub struct Recommendation {
    /// `workload, N shards (growth to M weighed)`.
    pub title: String,
    /// The recommended scheme, or what stands instead (a tie, no recommendation).
    pub headline: String,
    /// Why, from the numbers.
    pub reasoning: Vec<String>,
}

/// A share with its interval: `94% (95% CI 93% to 95%)`.
fn pct_ci(v: f64, ci: Option<(f64, f64)>) -> String {
    match ci {
        Some((lo, hi)) => format!("{} (95% CI {} to {})", pct(v), pct(lo), pct(hi)),
        None => pct(v),
    }
}

/// "1 shard", "16 shards", "15.8 shards".
fn shards(v: f64) -> String {
    let n = num(v);
    if n == "1" {
        "1 shard".into()
    } else {
        format!("{n} shards")
    }
}

/// Formats a count of shards or requests per event: `16`, `1.2`.
fn num(v: f64) -> String {
    if v.abs() >= 1000.0 {
        crate::charts::style::thousands(v.max(0.0).round() as u64)
    } else if (v - v.round()).abs() < 0.05 {
        format!("{}", v.round() as i64)
    } else {
        format!("{v:.1}")
    }
}

/// A ratio to a share (`hottest_shard_ratio`), two decimals.
fn ratio(v: f64) -> String {
    format!("{v:.2}")
}

/// "growing from 16 to 17 shards" or "shrinking from 16 to 15 shards".
fn resize(n: u32, m: u32) -> String {
    let verb = if m > n { "growing" } else { "shrinking" };
    format!("{verb} from {n} to {m} shards")
}

/// The profile of every workload at every shard count, in run order.
pub fn profiles(data: &RunData) -> Vec<WorkloadProfile> {
    data.workloads()
        .into_iter()
        .flat_map(|w| {
            data.shard_counts(w)
                .into_iter()
                .filter_map(move |n| profile(data, w, n))
        })
        .collect()
}

/// The profile of one workload at shard count `n`.
pub fn profile(data: &RunData, workload: &str, n: u32) -> Option<WorkloadProfile> {
    let schemes: Vec<SchemeProfile> = data
        .schemes_at(workload, n)
        .into_iter()
        .filter_map(|s| scheme_profile(data, workload, s, n))
        .collect();
    let first = schemes
        .first()
        .map(|s| s.scheme.clone())
        .unwrap_or_default();
    let metric = |m: MetricId| data.metric(workload, &first, n, m);
    Some(WorkloadProfile {
        workload: workload.to_string(),
        shards: n,
        targets: data.targets(workload, n),
        hottest_key_share: metric(HOTTEST_KEY_SHARE),
        scans: metric(SCANS)
            .zip(metric(EVENTS_MEASURED))
            .filter(|(s, _)| *s > 0.0),
        weighted: data.weighted(),
        schemes,
    })
}

/// The hottest shares of the full windows ([`SchemeLoad::full_windows`]), and how many short
/// windows are left aside.
fn full_windows(load: &SchemeLoad) -> (Vec<f64>, usize) {
    let full = load.full_windows();
    let shares: Vec<f64> = load
        .window_hottest_share
        .iter()
        .zip(&full)
        .filter(|(_, &full)| full)
        .map(|(&share, _)| share)
        .collect();
    let aside = full.len() - shares.len();
    (shares, aside)
}

/// True when the busiest shard of the full windows is not always the same one.
fn hottest_moves(load: &SchemeLoad) -> bool {
    let busiest = |w: &Vec<u64>| {
        w.iter()
            .enumerate()
            .max_by_key(|(i, &c)| (c, std::cmp::Reverse(*i)))
            .map(|(i, _)| i)
    };
    let mut shards = load
        .window_requests
        .iter()
        .zip(load.full_windows())
        .filter(|(_, full)| *full)
        .filter_map(|(w, _)| busiest(w));
    let first = shards.next();
    shards.any(|s| Some(s) != first)
}

fn scheme_profile(data: &RunData, w: &str, s: &str, n: u32) -> Option<SchemeProfile> {
    let metric = |m: MetricId| data.metric(w, s, n, m);
    let usable = data.metric_row(w, s, n, USABLE_CAPACITY)?;
    let load = data.load_of(w, s, n);
    let (windows, short_windows) = load.map_or((vec![], 0), full_windows);
    let hottest_moves = load.is_some_and(hottest_moves);
    let hottest_window_range = (!windows.is_empty()).then(|| {
        (
            windows.iter().copied().fold(f64::INFINITY, f64::min),
            windows.iter().copied().fold(0.0, f64::max),
        )
    });
    Some(SchemeProfile {
        scheme: s.to_string(),
        usable_capacity: usable.value?,
        usable_ci: usable.ci(),
        hottest_window_share: metric(HOTTEST_SHARD_SHARE_WINDOWED)?,
        hottest_window_range,
        windows: windows.len(),
        short_windows,
        hottest_moves,
        hottest_share: metric(HOTTEST_SHARD_SHARE)?,
        hottest_ratio: metric(HOTTEST_SHARD_RATIO)
            .or_else(|| Some(metric(HOTTEST_SHARD_SHARE)? * f64::from(n)))?,
        requests_per_event: metric(REQUESTS_PER_EVENT).unwrap_or(1.0),
        scan_fanout: metric(SCAN_FANOUT_MEAN),
        lookup_p50: metric(LOOKUP_NS_P50),
        fail_moved: data
            .metric_row(w, s, n, FAIL_REMAP_FRACTION)
            .map(|r| r.value),
    })
}

/// The growth of every scheme of `p` from its N to `m`.
pub fn growth_profiles(data: &RunData, p: &WorkloadProfile, m: u32) -> Vec<GrowthProfile> {
    p.schemes
        .iter()
        .filter_map(|s| {
            let metric = |name: MetricId| {
                data.metric_at(&p.workload, &s.scheme, (p.shards, m), name)
                    .and_then(|r| r.value)
            };
            Some(GrowthProfile {
                scheme: s.scheme.clone(),
                moved: metric(REMAP_FRACTION)?,
                ideal: metric(REMAP_IDEAL)?,
                added_share: metric(GROW_ADDED_SHARE),
                added_fair: metric(GROW_ADDED_FAIR),
                hottest_grown: metric(HOTTEST_SHARD_SHARE_GROWN),
            })
        })
        .collect()
}

/// The load findings of one workload at one shard count (the same for every growth target).
pub fn workload_findings(data: &RunData, p: &WorkloadProfile) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(hot_spots(p));
    out.extend(hot_key(p));
    out.extend(scan_fanout(p));
    out.extend(latency(data, p));
    out.extend(failure(data, p));
    out
}

/// With `--fail`: what losing the failed shard moves and leaves on the busiest survivor, per
/// scheme; schemes without a removal rule say so.
fn failure(data: &RunData, p: &WorkloadProfile) -> Option<Finding> {
    /// The failed shard, the share of keys it moves, the busiest survivor's ratio.
    type Failed = (f64, f64, f64);
    let m = |s: &str, name: MetricId| data.metric(&p.workload, s, p.shards, name);
    let rows: Vec<(&str, Option<Failed>)> = p
        .schemes
        .iter()
        .filter(|s| {
            data.metric_row(&p.workload, &s.scheme, p.shards, FAIL_REMAP_FRACTION)
                .is_some()
        })
        .map(|s| {
            let figures = m(&s.scheme, FAIL_SHARD)
                .zip(m(&s.scheme, FAIL_REMAP_FRACTION))
                .zip(m(&s.scheme, FAIL_HOTTEST_SURVIVING_RATIO));
            (
                s.scheme.as_str(),
                figures.map(|((k, moved), ratio)| (k, moved, ratio)),
            )
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    let parts: Vec<String> = rows
        .iter()
        .map(|(s, f)| match f {
            Some((k, moved, busiest)) => format!(
                "{s} loses shard {k}: {} of keys move, the busiest survivor at {}x its fair share",
                pct(*moved),
                ratio(*busiest)
            ),
            None => format!("{s}: not measured (its rule cannot remove that shard)"),
        })
        .collect();
    Some(Finding {
        topic: Topic::Failure,
        text: format!(
            "One shard failure (--fail, point requests): {}; at least the failed shard's own keys (about {} at N = {}) must move.",
            parts.join("; "),
            pct(1.0 / p.shards.max(1) as f64),
            p.shards
        ),
    })
}

/// What growing (or shrinking) from N to `m` moves, and whether the added shards get their
/// share.
pub fn growth_findings(data: &RunData, p: &WorkloadProfile, m: u32) -> Vec<Finding> {
    let mut out = growth_refusals(data, p, m);
    let mut moved = growth_profiles(data, p, m);
    let Some(ideal) = moved.first().map(|g| g.ideal) else {
        return out;
    };
    moved.sort_by(|a, b| b.moved.total_cmp(&a.moved));
    let list: Vec<String> = moved
        .iter()
        .map(|g| format!("{} {}", g.scheme, pct(g.moved)))
        .collect();
    let mut text = format!(
        "Keys moved when {}: {} (ideal {}).",
        resize(p.shards, m),
        list.join(", "),
        pct(ideal)
    );
    if let Some(g) = moved
        .iter()
        .find(|g| ideal > 0.0 && g.moved > REMAP_EXCESS_FACTOR * g.ideal)
    {
        text.push_str(&format!(
            " {} moves {} of keys, more than {REMAP_EXCESS_FACTOR}x the least possible ({}): a resize rewrites most of the data.",
            g.scheme,
            pct(g.moved),
            pct(g.ideal)
        ));
    }
    out.insert(
        0,
        Finding {
            topic: Topic::Growth,
            text,
        },
    );
    for g in moved.iter().filter(|g| g.idle()) {
        out.push(Finding {
            topic: Topic::Growth,
            text: format!(
                "{}: after {} the added shards receive {} of point requests against a fair share of {}, so they stay nearly idle; moving {} of keys (ideal {}) is no saving.",
                g.scheme,
                resize(p.shards, m),
                g.added_share.map_or("none".into(), pct),
                g.added_fair.map_or("-".into(), pct),
                pct(g.moved),
                pct(g.ideal)
            ),
        });
    }
    out
}

/// The schemes that cannot go from N to `m` shards by their own rule, with the reason their
/// remap figures are empty.
fn growth_refusals(data: &RunData, p: &WorkloadProfile, m: u32) -> Vec<Finding> {
    data.refusals
        .iter()
        .filter(|r| r.workload == p.workload && r.shards == p.shards && r.target_shards == m)
        .filter(|r| p.schemes.iter().any(|s| s.scheme == r.scheme))
        .map(|r| Finding {
            topic: Topic::Growth,
            text: format!("Remap not applicable (figures left empty): {}.", r.reason),
        })
        .collect()
}

fn hot_spots(p: &WorkloadProfile) -> Vec<Finding> {
    if p.weighted {
        return weighted_hot_spots(p);
    }
    let fair = 1.0 / p.shards.max(1) as f64;
    let Some(coolest) = p
        .schemes
        .iter()
        .min_by(|a, b| a.hottest_window_share.total_cmp(&b.hottest_window_share))
    else {
        return vec![];
    };
    let hot: Vec<&SchemeProfile> = p
        .schemes
        .iter()
        .filter(|s| s.hottest_window_share >= HOT_SPOT_FACTOR * fair)
        .collect();
    if hot.is_empty() {
        let worst = p
            .schemes
            .iter()
            .max_by(|a, b| a.hottest_window_share.total_cmp(&b.hottest_window_share))
            .unwrap_or(coolest);
        let times = worst.hottest_window_share / fair;
        let lead = if times >= 2.0 {
            format!(
                "No scheme reaches the hot-spot line ({HOT_SPOT_FACTOR}x the fair share) on {} shards, but {}'s hottest shard takes {} of a window's requests on average (per-window share), {times:.2}x the fair share {}",
                p.shards,
                worst.scheme,
                pct(worst.hottest_window_share),
                pct(fair)
            )
        } else {
            format!(
                "No hot spot on {} shards: with every scheme the hottest shard takes at most {} of a window's requests on average (per-window share; fair share {}, {times:.2}x)",
                p.shards,
                pct(worst.hottest_window_share),
                pct(fair)
            )
        };
        return vec![Finding {
            topic: Topic::HotSpot,
            text: format!("{lead}; {}.", spreads_best(p, coolest)),
        }];
    }
    hot.into_iter()
        .map(|s| {
            let aside = match s.short_windows {
                0 => String::new(),
                1 => "; a short last window aside".into(),
                k => format!("; {k} short windows aside"),
            };
            let when = match s.hottest_window_range {
                Some((lo, hi)) if s.windows > 1 && lo >= HOT_SPOT_FACTOR * fair => format!(
                    "in every one of {} windows ({} to {}{aside}{})",
                    s.windows,
                    pct(lo),
                    pct(hi),
                    if s.hottest_moves { "; not always the same shard" } else { "" }
                ),
                Some((lo, hi)) if s.windows > 1 => {
                    format!("on average per window ({} to {}{aside})", pct(lo), pct(hi))
                }
                _ => "over the trace".into(),
            };
            let who = if s.hottest_moves { "the hottest shard" } else { "one shard" };
            let mut text = format!(
                "{} on {} shards: {who} takes {} of requests {when} (per-window share), against a fair share of {}",
                s.scheme,
                p.shards,
                pct(s.hottest_window_share),
                pct(fair)
            );
            if s.hottest_share < 0.5 * s.hottest_window_share {
                text.push_str(&format!(
                    "; over the whole trace the hottest shard has only {}, so the hot spot moves from shard to shard (monotonic or drifting keys)",
                    pct(s.hottest_share)
                ));
            }
            hot_spot(text, s, coolest, pct(coolest.hottest_window_share))
        })
        .collect()
}

/// Which scheme spreads the load best, said only when its usable capacity lies beyond the
/// 95% interval of every other's (else the schemes spread alike within noise).
fn spreads_best(p: &WorkloadProfile, coolest: &SchemeProfile) -> String {
    let within: Vec<&str> = p
        .schemes
        .iter()
        .filter(|s| s.scheme != coolest.scheme)
        .filter(|s| match (s.usable_ci, coolest.usable_ci) {
            (Some(a), Some(b)) => a.0 <= b.1 && b.0 <= a.1,
            _ => {
                (s.usable_capacity - coolest.usable_capacity).abs()
                    < advice::CAPACITY_TIE * coolest.usable_capacity
            }
        })
        .map(|s| s.scheme.as_str())
        .collect();
    if within.is_empty() {
        format!(
            "{} spreads best at {}",
            coolest.scheme,
            pct(coolest.hottest_window_share)
        )
    } else {
        format!(
            "{} ({}) and {} spread alike within their 95% intervals of usable capacity",
            coolest.scheme,
            pct(coolest.hottest_window_share),
            within.join(", ")
        )
    }
}

/// A hot spot's finding: `text`, then the figure of the scheme that spreads best when it is
/// another one.
fn hot_spot(
    mut text: String,
    s: &SchemeProfile,
    coolest: &SchemeProfile,
    figure: String,
) -> Finding {
    if coolest.scheme != s.scheme {
        text.push_str(&format!("; {}: {figure}", coolest.scheme));
    }
    text.push('.');
    Finding {
        topic: Topic::HotSpot,
        text,
    }
}

/// Hot spots on weighted shards (`--weights`): a shard whose share of the requests is
/// [`HOT_SPOT_FACTOR`] times its weight's share or more (`hottest_shard_ratio`), since a
/// shard of twice the weight is meant to take twice the requests.
fn weighted_hot_spots(p: &WorkloadProfile) -> Vec<Finding> {
    let by_ratio =
        |a: &&SchemeProfile, b: &&SchemeProfile| a.hottest_ratio.total_cmp(&b.hottest_ratio);
    let Some(coolest) = p.schemes.iter().min_by(by_ratio) else {
        return vec![];
    };
    let hot: Vec<&SchemeProfile> = p
        .schemes
        .iter()
        .filter(|s| s.hottest_ratio >= HOT_SPOT_FACTOR)
        .collect();
    if hot.is_empty() {
        let worst = p.schemes.iter().max_by(by_ratio).unwrap_or(coolest);
        return vec![Finding {
            topic: Topic::HotSpot,
            text: format!(
                "No hot spot on {} weighted shards (--weights): with every scheme each shard takes at most {}x its weight's share of the requests over the trace ({}); {} keeps closest to the weights at {}x.",
                p.shards,
                ratio(worst.hottest_ratio),
                worst.scheme,
                coolest.scheme,
                ratio(coolest.hottest_ratio)
            ),
        }];
    }
    hot.into_iter()
        .map(|s| {
            let text = format!(
                "{} on {} weighted shards (--weights): one shard takes {}x its weight's share of the requests over the trace",
                s.scheme,
                p.shards,
                ratio(s.hottest_ratio)
            );
            hot_spot(text, s, coolest, format!("{}x", ratio(coolest.hottest_ratio)))
        })
        .collect()
}

/// How evenly a scheme spreads the requests, for a sentence: the hottest window share, or
/// with `--weights` the hottest shard against its weight's share.
fn balance(s: &SchemeProfile, weighted: bool) -> String {
    if weighted {
        format!(
            "hottest shard {}x its weight's share",
            ratio(s.hottest_ratio)
        )
    } else {
        format!("hottest window share {}", pct(s.hottest_window_share))
    }
}

fn hot_key(p: &WorkloadProfile) -> Option<Finding> {
    let k = p.hottest_key_share.filter(|k| *k > 0.0)?;
    let fair = 1.0 / p.shards.max(1) as f64;
    let text = if k > fair {
        format!(
            "One key carries {} of point requests, more than a shard's fair share on {} shards ({}): no partitioning scheme can spread it; replicate or cache it.",
            pct(k),
            p.shards,
            pct(fair)
        )
    } else {
        format!(
            "The most requested key carries {} of point requests, below a shard's fair share on {} shards ({}): partitioning alone can spread this load.",
            pct(k),
            p.shards,
            pct(fair)
        )
    };
    Some(Finding {
        topic: Topic::HotKey,
        text,
    })
}

fn scan_fanout(p: &WorkloadProfile) -> Option<Finding> {
    let mut fan: Vec<(&str, f64, f64)> = p
        .schemes
        .iter()
        .filter_map(|s| {
            s.scan_fanout
                .map(|f| (s.scheme.as_str(), f, s.requests_per_event))
        })
        .collect();
    if fan.is_empty() {
        return None;
    }
    fan.sort_by(|a, b| a.1.total_cmp(&b.1));
    let list: Vec<String> = fan
        .iter()
        .map(|(s, f, _)| format!("{s} {}", num(*f)))
        .collect();
    let share = p.scans.map_or(String::new(), |(scans, events)| {
        format!(" ({} scans in {} events)", num(scans), num(events))
    });
    let (lo, hi) = (fan[0], fan[fan.len() - 1]);
    let mut text = format!("Shards contacted per scan{share}: {}.", list.join(", "));
    if hi.1 > 1.5 * lo.1 {
        text.push_str(&format!(
            " With {} each event costs {:.2} shard requests, with {} {:.2}.",
            hi.0, hi.2, lo.0, lo.2
        ));
    }
    Some(Finding {
        topic: Topic::ScanFanout,
        text,
    })
}

fn latency(data: &RunData, p: &WorkloadProfile) -> Option<Finding> {
    let mut lat: Vec<(&str, f64, f64)> = p
        .schemes
        .iter()
        .filter_map(|s| {
            let m = |name: MetricId| data.metric(&p.workload, &s.scheme, p.shards, name);
            Some((s.scheme.as_str(), m(LOOKUP_NS_P50)?, m(LOOKUP_NS_P99)?))
        })
        .collect();
    if lat.len() < 2 {
        return None;
    }
    lat.sort_by(|a, b| a.1.total_cmp(&b.1));
    let (fast, slow) = (lat[0], lat[lat.len() - 1]);
    Some(Finding {
        topic: Topic::Latency,
        text: format!(
            "Lookups: {} is fastest at {:.1} ns (p50, p99 {:.1} ns), {} slowest at {:.1} ns (p99 {:.1} ns); timings vary between runs.",
            fast.0, fast.1, fast.2, slow.0, slow.1, slow.2
        ),
    })
}

/// Findings across workloads: sweeps of shard count and skew, and range dynamics.
pub fn run_findings(data: &RunData) -> Vec<Finding> {
    let mut out = shard_sweeps(data);
    out.extend(skew_sweeps(data));
    out.extend(split_quality(data));
    out.extend(timeline(data));
    out.extend(super::scenario::findings(data));
    out
}

/// "from A to B" of one scheme's metric along a sweep, or `None` without two points.
fn change(points: &[(f64, f64)]) -> Option<String> {
    let (first, last) = (points.first()?, points.last()?);
    (points.len() >= 2).then(|| {
        if (first.1 - last.1).abs() < 0.1 * first.1.max(last.1) {
            format!("stays near {}", pct(last.1))
        } else {
            format!("goes from {} to {}", pct(first.1), pct(last.1))
        }
    })
}

fn shard_sweeps(data: &RunData) -> Vec<Finding> {
    let mut out = Vec::new();
    for w in data.workloads() {
        let mut counts = data.shard_counts(w);
        counts.sort_unstable();
        let (Some(&lo), Some(&hi)) = (counts.first(), counts.last()) else {
            continue;
        };
        if lo == hi {
            continue;
        }
        let parts: Vec<String> = data
            .schemes()
            .into_iter()
            .filter_map(|s| {
                let points: Vec<(f64, f64)> = counts
                    .iter()
                    .filter_map(|&n| Some((n as f64, data.metric(w, s, n, HOTTEST_SHARD_SHARE)?)))
                    .collect();
                Some(format!("{s} {}", change(&points)?))
            })
            .collect();
        if !parts.is_empty() {
            out.push(Finding {
                topic: Topic::Sweep,
                text: format!(
                    "{w}: from {lo} to {hi} shards the hottest shard's share (fair {} to {}): {}.",
                    pct(1.0 / lo as f64),
                    pct(1.0 / hi as f64),
                    parts.join("; ")
                ),
            });
        }
    }
    out
}

fn skew_sweeps(data: &RunData) -> Vec<Finding> {
    let mut out = Vec::new();
    for family in data
        .families("s", None)
        .into_iter()
        .filter(|f| f.is_sweep())
    {
        let Some(n) = data.base_shards(family.members[0].1) else {
            continue;
        };
        let parts: Vec<String> = data
            .schemes()
            .into_iter()
            .filter_map(|s| {
                let points: Vec<(f64, f64)> = family
                    .members
                    .iter()
                    .filter_map(|(v, w)| Some((*v, data.metric(w, s, n, HOTTEST_SHARD_SHARE)?)))
                    .collect();
                Some(format!("{s} {}", change(&points)?))
            })
            .collect();
        let (lo, hi) = (
            family.members[0].0,
            family.members[family.members.len() - 1].0,
        );
        if !parts.is_empty() {
            out.push(Finding {
                topic: Topic::Sweep,
                text: format!(
                    "{}: as the skew s rises from {lo} to {hi} on {n} shards, the hottest shard's share: {}.",
                    family.label,
                    parts.join("; ")
                ),
            });
        }
    }
    out
}

/// Split quality per finder and refusals by reason, one finding per dynamic run, from
/// `finders.csv` (the means are computed by `analysis`).
fn split_quality(data: &RunData) -> Vec<Finding> {
    let finders = data.finders.as_deref().unwrap_or(&[]);
    let mut runs: Vec<String> = Vec::new();
    for r in finders {
        if !runs.contains(&r.series()) {
            runs.push(r.series());
        }
    }
    runs.into_iter()
        .filter_map(|run| {
            let mine: Vec<_> = finders.iter().filter(|r| r.series() == run).collect();
            let judged: Vec<String> = mine
                .iter()
                .filter(|r| r.evaluated > 0)
                .filter_map(|r| {
                    Some(format!(
                        "{} {} splits, mean balance {:.3} after the split against {:.3} at the optimal key (excess {:.3})",
                        r.finder,
                        r.evaluated,
                        r.balance_mean?,
                        r.optimal_balance_mean?,
                        r.excess_over_optimal_mean?
                    ))
                })
                .collect();
            let refused: Vec<String> = mine
                .iter()
                .flat_map(|r| {
                    [
                        ("popular key", r.popular_key),
                        ("no split key", r.no_split_key),
                        ("clear direction", r.clear_direction),
                    ]
                    .into_iter()
                    .filter(|(_, n)| *n > 0)
                    .map(|(reason, n)| format!("{} {n} ({reason})", r.finder))
                })
                .collect();
            let mut parts = Vec::new();
            if !judged.is_empty() {
                parts.push(judged.join("; "));
            }
            if !refused.is_empty() {
                parts.push(format!("load splits refused: {}", refused.join(", ")));
            }
            (!parts.is_empty()).then(|| Finding {
                topic: Topic::RangeDynamics,
                text: format!("Split finders ({run}): {}.", parts.join("; ")),
            })
        })
        .collect()
}

/// What each dynamic run did, from its `dynamic_*` metrics in `summary.csv` (totals computed
/// by `analysis`) and the first and last windows of `timeline.csv`.
fn timeline(data: &RunData) -> Vec<Finding> {
    let rows = data.timeline.as_deref().unwrap_or(&[]);
    let mut out = Vec::new();
    for w in data.workloads() {
        for n in data.shard_counts(w) {
            for s in data.schemes_at(w, n) {
                let metric = |name: MetricId| data.metric(w, s, n, name);
                let Some(windows) = metric(DYNAMIC_WINDOWS) else {
                    continue;
                };
                let mut parts = Vec::new();
                if let Some(ranges) = metric(DYNAMIC_RANGES) {
                    parts.push(format!(
                        "{} ranges after {} windows",
                        num(ranges),
                        num(windows)
                    ));
                }
                let count = |name: MetricId| metric(name).map_or("?".into(), num);
                parts.push(format!(
                    "{} size splits, {} load splits, {} merges",
                    count(DYNAMIC_SIZE_SPLITS),
                    count(DYNAMIC_LOAD_SPLITS),
                    count(DYNAMIC_MERGES)
                ));
                if let Some(bytes) = metric(DYNAMIC_BYTES_MOVED) {
                    parts.push(format!("{} bytes moved", num(bytes)));
                }
                let mine: Vec<&TimelineCsvRow> = rows
                    .iter()
                    .filter(|r| {
                        r.workload.as_deref() == Some(w)
                            && r.scheme.as_deref() == Some(s)
                            && r.shards.is_none_or(|rn| rn == n)
                    })
                    .collect();
                // A short window (a trace's last, cut short) leans to 100%: the start and end
                // are the first and last windows with at least half the fullest one's requests.
                let fullest = mine.iter().filter_map(|r| r.requests).max().unwrap_or(0);
                let full = || {
                    mine.iter()
                        .filter(|r| r.requests.is_none_or(|q| is_full_window(q, fullest)))
                };
                let first = full().min_by_key(|r| r.window);
                let last = full().max_by_key(|r| r.window);
                if let (Some(start), Some(end)) = (
                    first.and_then(|r| r.hottest_node_share),
                    last.and_then(|r| r.hottest_node_share),
                ) {
                    let aside = mine.len() - full().count();
                    parts.push(format!(
                        "hottest node share {} at the start, {} at the end{}",
                        pct(start),
                        pct(end),
                        match aside {
                            0 => String::new(),
                            n => format!(
                                " ({n} window{} with under half the requests of the fullest left aside)",
                                if n == 1 { "" } else { "s" }
                            ),
                        }
                    ));
                }
                out.push(Finding {
                    topic: Topic::RangeDynamics,
                    text: format!(
                        "Range dynamics ({w} / {s} / {n} shards): {}.",
                        parts.join("; ")
                    ),
                });
            }
        }
    }
    out
}

/// The margin of a decision in its criterion's unit, for sentences.
fn margin_text(row: &RecommendationRow) -> String {
    let Some(m) = row.margin else {
        return "no other scheme to compare".into();
    };
    match row.decided_by.as_str() {
        "usable_capacity" => format!("{:.1} points of usable capacity", m * 100.0),
        "idle_new_shards" => format!("{:.1} points of requests on the added shards", m * 100.0),
        "growth_cost" => format!(
            "{:.1} points of keys closer to the ideal remap (at the worst target)",
            m * 100.0
        ),
        "failure_cost" => format!(
            "{:.1} points of keys closer to the least a failure must move",
            m * 100.0
        ),
        "scenario_cost" => format!(
            "{:.1} points of keys fewer moved in vain by the scenario",
            m * 100.0
        ),
        "scan_fanout" => format!("{} fewer per scan", shards(m)),
        "lookup_time" => format!("at least {m}x faster lookups (median)"),
        _ => format!("{m}"),
    }
}

/// The recommendation of one workload at `p.shards`, every growth target weighed, from
/// `recommendation.csv`; `None` when the run directory has no row for it.
pub fn recommend(data: &RunData, p: &WorkloadProfile) -> Option<Recommendation> {
    let row = data.recommendation(&p.workload, p.shards)?;
    let targets: Vec<String> = row.grow_to.iter().map(u32::to_string).collect();
    let title = format!(
        "{}, {} shards (growth to {} weighed)",
        p.workload,
        p.shards,
        targets.join(", ")
    );
    let growth: Vec<(u32, Vec<GrowthProfile>)> = row
        .grow_to
        .iter()
        .map(|&m| (m, growth_profiles(data, p, m)))
        .collect();
    let by_name = |s: &str| p.schemes.iter().find(|x| x.scheme == s);
    let growth_of = |s: &str| -> Vec<(u32, &GrowthProfile)> {
        growth
            .iter()
            .filter_map(|(m, g)| Some((*m, g.iter().find(|g| g.scheme == s)?)))
            .collect()
    };
    let Some(chosen) = row.scheme.as_deref().and_then(by_name) else {
        let headline = if let Some(s) = &row.scheme {
            format!("{s} (its figures are missing from summary.csv)")
        } else if row.decided_by == "tie" {
            format!("tie between {}", row.tied_with.join(", "))
        } else {
            "no recommendation".into()
        };
        let mut reasoning: Vec<String> = Some(capitalised(&row.warning))
            .filter(|w| !w.is_empty())
            .into_iter()
            .collect();
        for s in row.tied_with.iter().filter_map(|s| by_name(s)) {
            reasoning.push(summary_line(s, p.shards, &growth_of(&s.scheme), p.weighted));
        }
        return Some(Recommendation {
            title,
            headline,
            reasoning,
        });
    };
    let spread = if p.weighted {
        format!(
            "each shard measured against its weight's share of the capacity (--weights), its hottest shard takes {}x its weight's share of the requests over the trace",
            ratio(chosen.hottest_ratio)
        )
    } else {
        format!(
            "its hottest shard takes {} of a window's requests (fair {})",
            pct(chosen.hottest_window_share),
            pct(1.0 / p.shards.max(1) as f64)
        )
    };
    let mut reasoning =
        vec![format!(
        "{} leaves {} of the cluster usable: {spread} and each event costs {:.2} shard requests{}.",
        chosen.scheme,
        pct_ci(chosen.usable_capacity, chosen.usable_ci),
        chosen.requests_per_event,
        chosen.scan_fanout.map_or(String::new(), |f| format!(" (a scan contacts {})", shards(f)))
    )];
    if let Some(ns) = chosen.lookup_p50 {
        reasoning.push(format!("{} lookups take {ns:.1} ns (p50).", chosen.scheme));
    }
    let tied = if row.tied_with.is_empty() {
        "Tied with no other scheme on usable capacity".to_string()
    } else {
        let later: Vec<String> = row
            .ties()
            .iter()
            .skip(1)
            .map(|(name, tied)| format!("on {} with {}", name.replace('_', " "), tied.join(", ")))
            .collect();
        format!(
            "Tied on usable capacity (within {:.0}% of the best or the 95% intervals) with {}{}",
            advice::CAPACITY_TIE * 100.0,
            row.tied_with.join(", "),
            later.iter().map(|t| format!(", {t}")).collect::<String>()
        )
    };
    let criterion = match row.decided_by.as_str() {
        "usable_capacity" => "usable capacity",
        "idle_new_shards" => "growth: the others leave the added shards nearly idle",
        "growth_cost" => {
            "growth cost (the worst distance of the remap from the ideal over the targets)"
        }
        "failure_cost" => "failure cost (keys moved when the --fail shard fails, against its own)",
        "scenario_cost" => {
            "scenario cost (events applied by its own rule, then keys moved back or round)"
        }
        "scan_fanout" => "scan fan-out",
        "lookup_time" => "lookup time",
        other => other,
    };
    reasoning.push(format!(
        "{tied}; decided by {criterion}, by {}.",
        margin_text(row)
    ));
    for (m, g) in growth_of(&chosen.scheme) {
        reasoning.push(growth_line(p.shards, m, g));
    }
    if let Some(Some(moved)) = chosen.fail_moved {
        reasoning.push(format!(
            "One shard failure (--fail) moves {} of {}'s keys (the failed shard's own are about {}).",
            pct(moved),
            chosen.scheme,
            pct(1.0 / p.shards.max(1) as f64)
        ));
    }
    if !row.warning.is_empty() {
        reasoning.push(format!("Caveat: {}.", row.warning));
    }
    for other in p.schemes.iter().filter(|s| s.scheme != chosen.scheme) {
        reasoning.push(summary_line(
            other,
            p.shards,
            &growth_of(&other.scheme),
            p.weighted,
        ));
    }
    if let Some(k) = p.hottest_key_share.filter(|k| *k > 1.0 / p.shards as f64) {
        reasoning.push(format!(
            "Whatever the scheme, one key carries {} of point requests, so no shard holding it can be below that: cache or replicate that key.",
            pct(k)
        ));
    }
    Some(Recommendation {
        title,
        headline: chosen.scheme.clone(),
        reasoning,
    })
}

/// What a resize does with one scheme, in one sentence.
fn growth_line(n: u32, m: u32, g: &GrowthProfile) -> String {
    let added = match (g.added_share, g.added_fair) {
        (Some(s), Some(f)) => format!(
            "; the added shards then take {} of point requests (fair {}){}",
            pct(s),
            pct(f),
            if g.idle() { ", nearly idle" } else { "" }
        ),
        _ => String::new(),
    };
    format!(
        "{} moves {} of keys when {} (ideal {}){added}.",
        g.scheme,
        pct(g.moved),
        resize(n, m),
        pct(g.ideal)
    )
}

/// One scheme's figures, for comparison with the recommended one: its load at `n` shards
/// and its growth to each target.
fn summary_line(
    s: &SchemeProfile,
    n: u32,
    growth: &[(u32, &GrowthProfile)],
    weighted: bool,
) -> String {
    let mut parts = vec![format!(
        "{} usable ({})",
        pct_ci(s.usable_capacity, s.usable_ci),
        balance(s, weighted)
    )];
    for (m, g) in growth {
        let mut text = format!(
            "{} moves {} of keys (ideal {})",
            resize(n, *m),
            pct(g.moved),
            pct(g.ideal)
        );
        if let (Some(a), Some(f)) = (g.added_share, g.added_fair) {
            text.push_str(&format!(
                ", the added shards take {} (fair {}){}",
                pct(a),
                pct(f),
                if g.idle() { ", nearly idle" } else { "" }
            ));
        }
        parts.push(text);
    }
    if let Some(f) = s.scan_fanout {
        parts.push(format!("a scan contacts {}", shards(f)));
    }
    match s.fail_moved {
        Some(Some(moved)) => parts.push(format!("one shard failure moves {} of keys", pct(moved))),
        Some(None) => parts.push("its rule cannot remove the failed shard".into()),
        None => {}
    }
    if let Some(ns) = s.lookup_p50 {
        parts.push(format!("lookups {ns:.1} ns (p50)"));
    }
    format!("{}: {}.", s.scheme, parts.join("; "))
}

/// The sentence with a capital first letter.
fn capitalised(text: &str) -> String {
    let mut c = text.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect::<String>() + ".",
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamic_csv::{FinderCsvRow, SplitCsvRow};
    use crate::summary::SummaryRow;

    /// A run of one workload on 16 shards growing to 17, with per-scheme
    /// (usable capacity, hottest window share, remap, added share) and one recommendation row.
    fn run(schemes: &[(&str, f64, f64, f64, f64)], rec: RecommendationRow) -> RunData {
        let mut metrics = Vec::new();
        for &(s, usable, hot, remap, added) in schemes {
            let mut row = |metric: &str, value: f64| {
                let ci = (metric == "usable_capacity").then_some((usable - 0.01, usable + 0.01));
                metrics.push(SummaryRow {
                    workload: "w".into(),
                    scheme: s.into(),
                    shards: 16,
                    target_shards: 17,
                    metric: metric.into(),
                    value: Some(value),
                    ci_low: ci.map(|c| c.0),
                    ci_high: ci.map(|c| c.1),
                    ..SummaryRow::default()
                })
            };
            row("events_measured", 100_000.0);
            row("hottest_key_share", 0.01);
            row("hottest_shard_share", hot);
            row("hottest_shard_share_windowed", hot);
            row("requests_per_event", 1.0);
            row("usable_capacity", usable);
            row("remap_fraction", remap);
            row("remap_ideal", 1.0 / 17.0);
            row("grow_added_share", added);
            row("grow_added_fair", 1.0 / 17.0);
        }
        RunData {
            metrics,
            recommendations: Some(vec![rec]),
            ..RunData::default()
        }
    }

    fn row(
        scheme: &str,
        decided_by: &str,
        margin: f64,
        tied: &[&str],
        warning: &str,
    ) -> RecommendationRow {
        RecommendationRow {
            workload: "w".into(),
            shards: 16,
            grow_to: vec![17],
            scheme: Some(scheme.to_string()).filter(|s| !s.is_empty()),
            decided_by: decided_by.into(),
            margin: Some(margin),
            tied_with: tied.iter().map(|s| s.to_string()).collect(),
            warning: warning.into(),
            ..RecommendationRow::default()
        }
    }

    const SCHEMES: [(&str, f64, f64, f64, f64); 3] = [
        ("hash", 0.98, 0.064, 0.94, 0.06),
        ("ring", 0.92, 0.068, 0.06, 0.05),
        ("salted", 0.97, 0.0645, 0.0, 0.0),
    ];

    #[test]
    fn a_short_last_window_is_left_out_of_the_hot_spot_range() {
        // Three windows on 2 shards; the last holds one request, all on one shard.
        let load = SchemeLoad {
            workload: "w".into(),
            scheme: "range".into(),
            shards: 2,
            window_requests: vec![vec![90, 10], vec![20, 80], vec![1, 0]],
            window_hottest_share: vec![0.9, 0.8, 1.0],
            shard_requests: vec![111, 90],
            shard_distinct_keys: vec![10, 10],
            shard_share: vec![0.55, 0.45],
        };
        assert_eq!(full_windows(&load), (vec![0.9, 0.8], 1));
        let range = SchemeProfile {
            usable_capacity: 0.6,
            hottest_window_range: Some((0.8, 0.9)),
            windows: 2,
            short_windows: 1,
            hottest_share: 0.55,
            ..scheme_of("range", 0.85, 4.4)
        };
        let text = &hot_spots(&eight_shards(false, vec![range]))[0].text;
        assert!(
            text.contains("in every one of 2 windows (80% to 90%; a short last window aside)"),
            "{text}"
        );
    }

    /// A scheme over one window holding `share` of the requests on its hottest shard, that
    /// shard at `ratio` times its fair (or weight's) share.
    fn scheme_of(name: &str, share: f64, ratio: f64) -> SchemeProfile {
        SchemeProfile {
            scheme: name.into(),
            usable_capacity: 1.0 / ratio,
            usable_ci: None,
            hottest_window_share: share,
            hottest_window_range: None,
            windows: 1,
            short_windows: 0,
            hottest_moves: false,
            hottest_share: share,
            hottest_ratio: ratio,
            requests_per_event: 1.0,
            scan_fanout: None,
            lookup_p50: None,
            fail_moved: None,
        }
    }

    /// The profile of workload "w" on 8 shards growing to 9.
    fn eight_shards(weighted: bool, schemes: Vec<SchemeProfile>) -> WorkloadProfile {
        WorkloadProfile {
            workload: "w".into(),
            shards: 8,
            targets: vec![9],
            hottest_key_share: None,
            scans: None,
            weighted,
            schemes,
        }
    }

    #[test]
    fn under_the_hot_spot_line_a_shard_at_2_8x_fair_is_not_called_no_hot_spot_nor_a_lead_inside_noise_best(
    ) {
        // 8 shards, fair 12.5%: 35.4% is 2.83x; 13.3% against 13.5% with overlapping intervals.
        let (mut a, mut b) = (
            scheme_of("hash", 0.133, 1.06),
            scheme_of("ring", 0.135, 1.08),
        );
        a.usable_ci = Some((0.85, 0.99));
        b.usable_ci = Some((0.84, 0.98));
        let text = &hot_spots(&eight_shards(false, vec![a.clone(), b.clone()]))[0].text;
        assert!(text.starts_with("No hot spot on 8 shards"), "{text}");
        assert!(!text.contains("spreads best"), "{text}");
        assert!(
            text.contains("hash (13%) and ring spread alike within their 95% intervals"),
            "{text}"
        );
        b.usable_ci = Some((0.5, 0.6));
        let text = &hot_spots(&eight_shards(false, vec![a.clone(), b]))[0].text;
        assert!(text.ends_with("hash spreads best at 13%."), "{text}");
        let text = &hot_spots(&eight_shards(
            false,
            vec![a, scheme_of("range", 0.354, 2.83)],
        ))[0]
            .text;
        assert!(!text.contains("No hot spot"), "{text}");
        assert!(text.contains("range's hottest shard takes 35% of a window's requests on average (per-window share), 2.83x the fair share"), "{text}");
    }

    #[test]
    fn weighted_shards_are_hot_only_against_their_weights_share() {
        // 8 shards, one of weight 4 among weights of 1 (share 4/11): ring gives it 36% of the
        // requests, as meant (ratio 1.0, though 2.9x the unweighted 1/8); hash gives one
        // shard of weight 1 (share 1/11) 30% of them: 3.3x its weight's share.
        let mut profile = eight_shards(
            true,
            vec![scheme_of("ring", 0.364, 1.0), scheme_of("hash", 0.3, 3.3)],
        );
        let found: Vec<String> = hot_spots(&profile).into_iter().map(|f| f.text).collect();
        assert_eq!(
            found,
            ["hash on 8 weighted shards (--weights): one shard takes 3.30x its weight's share of the requests over the trace; ring: 1.00x."]
        );
        profile.schemes.pop();
        let found = &hot_spots(&profile)[0].text;
        assert!(
            found.starts_with("No hot spot on 8 weighted shards"),
            "{found}"
        );
    }

    #[test]
    fn the_recommendation_reads_the_decision_and_the_numbers_of_the_run() {
        let data = run(&SCHEMES, row("hash", "growth_cost", 0.3, &["salted"], ""));
        let p = profile(&data, "w", 16).unwrap();
        let r = recommend(&data, &p).unwrap();
        assert_eq!(r.headline, "hash");
        assert_eq!(r.title, "w, 16 shards (growth to 17 weighed)");
        assert!(
            r.reasoning[0].starts_with("hash leaves 98% (95% CI 97% to 99%) of the cluster usable"),
            "{:?}",
            r.reasoning
        );
        assert!(
            r.reasoning[1].contains("with salted; decided by growth cost")
                && r.reasoning[1].contains("by 30.0 points of keys"),
            "{:?}",
            r.reasoning
        );
        // The same numbers with another decision give other sentences: nothing is recomputed.
        let other = run(&SCHEMES, row("ring", "usable_capacity", 0.05, &[], ""));
        let r = recommend(&other, &profile(&other, "w", 16).unwrap()).unwrap();
        assert_eq!(r.headline, "ring");
        assert!(
            r.reasoning[1].contains("5.0 points of usable capacity"),
            "{:?}",
            r.reasoning
        );
    }

    #[test]
    fn one_recommendation_per_shard_count_states_every_target_and_the_ties_per_criterion() {
        let mut data = run(&SCHEMES, row("ring", "growth_cost", 0.3, &["hash"], ""));
        // The same schemes doubled to 32: mod-N moves the ideal half there.
        let doubled: Vec<SummaryRow> = data
            .metrics
            .iter()
            .filter(|r| r.metric.starts_with("remap") || r.metric.starts_with("grow_"))
            .map(|r| SummaryRow {
                target_shards: 32,
                value: Some(0.5),
                ..r.clone()
            })
            .collect();
        data.metrics.extend(doubled);
        let rec = &mut data.recommendations.as_mut().unwrap()[0];
        rec.grow_to = vec![17, 32];
        rec.tied_growth_cost = vec!["salted".into()];
        let p = profile(&data, "w", 16).unwrap();
        let r = recommend(&data, &p).unwrap();
        assert_eq!(r.title, "w, 16 shards (growth to 17, 32 weighed)");
        let text = r.reasoning.join(" | ");
        assert!(
            text.contains("with hash, on growth cost with salted; decided by growth cost"),
            "{text}"
        );
        assert!(
            text.contains("ring moves 6.0% of keys when growing from 16 to 17 shards")
                && text.contains("ring moves 50% of keys when growing from 16 to 32 shards"),
            "{text}"
        );
        assert!(
            text.contains("hash: 98%")
                && text.contains("growing from 16 to 17 shards moves 94% of keys")
                && text.contains("growing from 16 to 32 shards moves 50% of keys"),
            "{text}"
        );
    }

    #[test]
    fn a_growth_that_leaves_the_new_shard_idle_is_called_out() {
        let data = run(&SCHEMES, row("hash", "growth_cost", 0.3, &[], ""));
        let p = profile(&data, "w", 16).unwrap();
        let f: Vec<String> = growth_findings(&data, &p, 17)
            .into_iter()
            .map(|f| f.text)
            .collect();
        assert!(
            f[0].contains(
                "growing from 16 to 17 shards: hash 94%, ring 6.0%, salted 0% (ideal 5.9%)"
            ),
            "{f:?}"
        );
        assert!(f.iter().any(|t| t.starts_with("salted: after growing from 16 to 17 shards the added shards receive 0% of point requests against a fair share of 5.9%, so they stay nearly idle")), "{f:?}");
        assert!(!f.iter().any(|t| t.starts_with("ring: after")), "{f:?}");
    }

    #[test]
    fn no_recommendation_and_ties_say_why() {
        let data = run(
            &SCHEMES,
            row("", "", 0.0, &[], "too little data: 90 measured events"),
        );
        let p = profile(&data, "w", 16).unwrap();
        let r = recommend(&data, &p).unwrap();
        assert_eq!(r.headline, "no recommendation");
        assert_eq!(r.reasoning[0], "Too little data: 90 measured events.");
        let data = run(
            &SCHEMES,
            row(
                "",
                "tie",
                0.0,
                &["hash", "salted"],
                "tie: hash, salted measure the same",
            ),
        );
        let r = recommend(&data, &profile(&data, "w", 16).unwrap()).unwrap();
        assert_eq!(r.headline, "tie between hash, salted");
        assert_eq!(r.reasoning.len(), 3);
    }

    #[test]
    fn shares_read_naturally() {
        assert_eq!(pct(0.9412), "94%");
        assert_eq!(pct(0.0625), "6.2%");
        assert_eq!(pct(0.0035), "0.35%");
        assert_eq!(pct(0.0), "0%");
    }

    /// A dynamic run's `dynamic_*` metrics at N = 4 for growth targets 5 and 8, as
    /// summary.csv repeats them per target.
    fn dynamic_metrics(totals: &[(&str, f64)]) -> Vec<SummaryRow> {
        [5, 8]
            .into_iter()
            .flat_map(|m| {
                totals.iter().map(move |&(metric, value)| SummaryRow {
                    workload: "w".into(),
                    scheme: "range-dynamic".into(),
                    shards: 4,
                    target_shards: m,
                    metric: metric.into(),
                    value: Some(value),
                    ..SummaryRow::default()
                })
            })
            .collect()
    }

    #[test]
    fn range_dynamics_state_the_totals_analysis_computed_whatever_the_timeline_holds() {
        // The timeline of an older run directory repeats the run once per growth target: its
        // columns summed would count every split twice.
        let window = |w: u64, share: f64| TimelineCsvRow {
            window: w,
            ranges: Some(3 + w),
            splits: Some(5),
            hottest_node_share: Some(share),
            workload: Some("w".into()),
            scheme: Some("range-dynamic".into()),
            ..TimelineCsvRow::default()
        };
        let once = [window(0, 1.0), window(1, 0.5), window(2, 0.25)];
        let data = RunData {
            metrics: dynamic_metrics(&[
                ("dynamic_windows", 3.0),
                ("dynamic_ranges", 5.0),
                ("dynamic_size_splits", 2.0),
                ("dynamic_load_splits", 7.0),
                ("dynamic_merges", 1.0),
                ("dynamic_bytes_moved", 4096.0),
            ]),
            timeline: Some(once.iter().chain(&once).cloned().collect()),
            ..RunData::default()
        };
        let found = timeline(&data);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            found[0].text,
            "Range dynamics (w / range-dynamic / 4 shards): 5 ranges after 3 windows; 2 size splits, 7 load splits, 1 merges; 4,096 bytes moved; hottest node share 100% at the start, 25% at the end."
        );
    }

    #[test]
    fn range_dynamics_leave_a_short_last_window_out_of_the_end_share() {
        // The last window holds 10 of the fullest's 2,000 requests: its hottest node share
        // (40%) says nothing of the end of the run; the last full window's (26%) does.
        let window = |w: u64, requests: u64, share: f64| TimelineCsvRow {
            window: w,
            hottest_node_share: Some(share),
            requests: Some(requests),
            workload: Some("w".into()),
            scheme: Some("range-dynamic".into()),
            ..TimelineCsvRow::default()
        };
        let data = RunData {
            metrics: dynamic_metrics(&[("dynamic_windows", 3.0)]),
            timeline: Some(vec![
                window(0, 2_000, 1.0),
                window(1, 1_999, 0.26),
                window(2, 10, 0.4),
            ]),
            ..RunData::default()
        };
        let text = &timeline(&data)[0].text;
        assert!(
            text.contains("hottest node share 100% at the start, 26% at the end (1 window with under half the requests of the fullest left aside)"),
            "{text}"
        );
    }

    #[test]
    fn split_findings_state_the_finder_means_analysis_computed() {
        let finder =
            |name: &str, judged: u64, means: Option<(f64, f64, f64)>, popular: u64| FinderCsvRow {
                finder: name.into(),
                evaluated: judged,
                balance_mean: means.map(|m| m.0),
                optimal_balance_mean: means.map(|m| m.1),
                excess_over_optimal_mean: means.map(|m| m.2),
                popular_key: popular,
                workload: Some("w".into()),
                scheme: Some("range-dynamic".into()),
                shards: Some(4),
                ..FinderCsvRow::default()
            };
        let data = RunData {
            // The excess is read, not recomputed: 0.3 - 0.1 would print 0.200.
            finders: Some(vec![
                finder("median", 4, Some((0.3, 0.1, 0.25)), 0),
                finder("optimal", 0, None, 2),
            ]),
            // splits.csv is not read for these figures.
            splits: Some(vec![SplitCsvRow::default()]),
            ..RunData::default()
        };
        let found = split_quality(&data);
        assert_eq!(
            found.iter().map(|f| f.text.as_str()).collect::<Vec<_>>(),
            ["Split finders (w / range-dynamic / 4 shards): median 4 splits, mean balance 0.300 after the split against 0.100 at the optimal key (excess 0.250); load splits refused: optimal 2 (popular key)."]
        );
    }
}
