//! Findings and recommendations written from the measured numbers.
//!
//! Every sentence is built from values of the run: change the numbers and the sentences (and
//! the recommended scheme) change with them. The recommendation ranks schemes by the capacity
//! they leave usable:
//!
//! ```text
//! usable capacity = 1 / (N × hottest window share × shard requests per event)
//! ```
//!
//! A cluster saturates when its hottest shard does, so a hottest share of h leaves 1/(N·h) of
//! the cluster usable, and every extra shard request a scan makes divides that again. Among the
//! schemes within [`CAPACITY_TOLERANCE`] of the best, the one that moves the fewest keys on
//! growth is chosen.

use crate::data::{RunData, SchemeLoad};

/// Schemes whose usable capacity is within this fraction of the best count as equal, and the
/// one moving the fewest keys on growth wins among them.
pub const CAPACITY_TOLERANCE: f64 = 0.10;

/// A hottest share this many times the fair share 1/N counts as a hot spot.
pub const HOT_SPOT_FACTOR: f64 = 3.0;

/// A remap this many times the ideal counts as moving far more than needed.
pub const REMAP_EXCESS_FACTOR: f64 = 3.0;

/// What a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topic {
    /// Keys moved when the shard count changes.
    Growth,
    /// A shard taking far more than its share.
    HotSpot,
    /// One key too hot for any scheme.
    HotKey,
    /// Shards contacted per scan.
    ScanFanout,
    /// Lookup cost.
    Latency,
    /// How results change along a sweep.
    Sweep,
    /// Splits, merges and moves of the range-dynamic scheme.
    RangeDynamics,
}

/// One sentence computed from the numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// What it is about.
    pub topic: Topic,
    /// The sentence.
    pub text: String,
}

/// What one scheme costs on one workload, from the run's numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemeProfile {
    /// Scheme label.
    pub scheme: String,
    /// Shard count N.
    pub shards: u32,
    /// Mean over windows of the hottest shard's share.
    pub hottest_window_share: f64,
    /// Smallest and largest per-window hottest share (equal to the mean without windows).
    pub hottest_window_range: (f64, f64),
    /// Windows measured.
    pub windows: usize,
    /// The hottest shard's share over the whole trace.
    pub hottest_share: f64,
    /// Shard requests per measured event (1 without scans; more when scans fan out).
    pub requests_per_event: f64,
    /// Mean shards per scan, when the workload has scans.
    pub scan_fanout: Option<f64>,
    /// (M, share of keys moved, ideal) of the first growth or shrink measured from N.
    pub remap: Option<(u32, f64, f64)>,
    /// 1 / (N × hottest window share × requests per event).
    pub usable_capacity: f64,
}

/// Everything the findings of one workload are written from.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadProfile {
    /// Workload label.
    pub workload: String,
    /// Shard count N the profile is at.
    pub shards: u32,
    /// Share of point requests of the most requested key.
    pub hottest_key_share: Option<f64>,
    /// Share of events that are scans.
    pub scan_share: Option<f64>,
    /// One profile per scheme, in run order.
    pub schemes: Vec<SchemeProfile>,
}

/// The recommended scheme for one workload and the reasoning, in sentences.
#[derive(Clone, Debug, PartialEq)]
pub struct Recommendation {
    /// Workload label.
    pub workload: String,
    /// The recommended scheme.
    pub scheme: String,
    /// Why, from the numbers.
    pub reasoning: Vec<String>,
}

/// Formats a share for sentences: `94%`, `6.2%`, `0.35%`.
pub fn pct(v: f64) -> String {
    let p = v * 100.0;
    if p.abs() >= 9.95 {
        format!("{p:.0}%")
    } else if p.abs() >= 0.995 {
        format!("{p:.1}%")
    } else if p.abs() >= 0.00995 {
        format!("{p:.2}%")
    } else if p == 0.0 {
        "0%".into()
    } else {
        "under 0.01%".into()
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

/// The profile of every workload, at its first shard count.
pub fn profiles(data: &RunData) -> Vec<WorkloadProfile> {
    data.workloads()
        .into_iter()
        .filter_map(|w| profile(data, w))
        .collect()
}

/// The profile of one workload at its first shard count.
pub fn profile(data: &RunData, workload: &str) -> Option<WorkloadProfile> {
    let n = data.base_shards(workload)?;
    let schemes: Vec<SchemeProfile> = data
        .schemes_at(workload, n)
        .into_iter()
        .filter_map(|s| scheme_profile(data, workload, s, n))
        .collect();
    let first = schemes
        .first()
        .map(|s| s.scheme.clone())
        .unwrap_or_default();
    let metric = |m: &str| data.metric(workload, &first, n, m);
    let scan_share = match (metric("scans"), metric("events_measured")) {
        (Some(scans), Some(events)) if events > 0.0 => Some(scans / events),
        _ => None,
    };
    Some(WorkloadProfile {
        workload: workload.to_string(),
        shards: n,
        hottest_key_share: metric("hottest_key_share"),
        scan_share,
        schemes,
    })
}

fn scheme_profile(data: &RunData, w: &str, s: &str, n: u32) -> Option<SchemeProfile> {
    let metric = |m: &str| data.metric(w, s, n, m);
    let hottest_share = metric("hottest_shard_share")?;
    let windows: Vec<f64> = data
        .load_of(w, s, n)
        .map(SchemeLoad::window_hottest_share)
        .unwrap_or_default();
    let hottest_window_share = if windows.is_empty() {
        metric("hottest_shard_share_windowed").unwrap_or(hottest_share)
    } else {
        windows.iter().sum::<f64>() / windows.len() as f64
    };
    let hottest_window_range = if windows.is_empty() {
        (hottest_window_share, hottest_window_share)
    } else {
        (
            windows.iter().copied().fold(1.0, f64::min),
            windows.iter().copied().fold(0.0, f64::max),
        )
    };
    let requests_per_event = match (metric("requests"), metric("events_measured")) {
        (Some(r), Some(e)) if e > 0.0 && r > 0.0 => r / e,
        _ => 1.0,
    };
    let remap = data
        .transitions(w, s, "remap_fraction")
        .into_iter()
        .find(|(from, to, _)| *from == n && *to != n)
        .map(|(_, to, moved)| (to, moved, analysis::metrics::remap::ideal(n, to)));
    let denominator = n as f64 * hottest_window_share * requests_per_event;
    Some(SchemeProfile {
        scheme: s.to_string(),
        shards: n,
        hottest_window_share,
        hottest_window_range,
        windows: windows.len(),
        hottest_share,
        requests_per_event,
        scan_fanout: metric("scan_fanout_mean"),
        remap,
        usable_capacity: if denominator > 0.0 {
            (1.0 / denominator).min(1.0)
        } else {
            0.0
        },
    })
}

/// The findings of one workload.
pub fn workload_findings(data: &RunData, p: &WorkloadProfile) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(growth(p));
    out.extend(hot_spots(p));
    out.extend(hot_key(p));
    out.extend(scan_fanout(p));
    out.extend(latency(data, p));
    out
}

fn growth(p: &WorkloadProfile) -> Option<Finding> {
    let mut moved: Vec<(&str, u32, f64, f64)> = p
        .schemes
        .iter()
        .filter_map(|s| {
            s.remap
                .map(|(m, f, ideal)| (s.scheme.as_str(), m, f, ideal))
        })
        .collect();
    let &(_, m, _, ideal) = moved.first()?;
    moved.sort_by(|a, b| b.2.total_cmp(&a.2));
    let verb = if m > p.shards { "growing" } else { "shrinking" };
    let list: Vec<String> = moved
        .iter()
        .map(|(s, _, f, _)| format!("{s} {}", pct(*f)))
        .collect();
    let mut text = format!(
        "Keys moved when {verb} from {} to {m} shards: {} (ideal {}).",
        p.shards,
        list.join(", "),
        pct(ideal)
    );
    if let Some((s, _, f, _)) = moved
        .iter()
        .find(|x| ideal > 0.0 && x.2 > REMAP_EXCESS_FACTOR * ideal)
    {
        text.push_str(&format!(
            " {s} moves {} of keys, {:.0}x the least possible: a resize rewrites most of the data.",
            pct(*f),
            f / ideal
        ));
    }
    Some(Finding {
        topic: Topic::Growth,
        text,
    })
}

fn hot_spots(p: &WorkloadProfile) -> Vec<Finding> {
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
            .map(|s| s.hottest_window_share)
            .fold(0.0, f64::max);
        return vec![Finding {
            topic: Topic::HotSpot,
            text: format!(
                "No hot spot: with every scheme the hottest shard takes at most {} of a window's requests on average (fair share {}); {} spreads best at {}.",
                pct(worst),
                pct(fair),
                coolest.scheme,
                pct(coolest.hottest_window_share)
            ),
        }];
    }
    hot.into_iter()
        .map(|s| {
            let (lo, hi) = s.hottest_window_range;
            let when = if s.windows > 1 && lo >= HOT_SPOT_FACTOR * fair {
                format!("in every one of {} windows ({} to {})", s.windows, pct(lo), pct(hi))
            } else if s.windows > 1 {
                format!("on average per window ({} to {})", pct(lo), pct(hi))
            } else {
                "over the trace".into()
            };
            let mut text = format!(
                "{}: one shard takes {} of requests {when}, {:.1}x the fair share {}",
                s.scheme,
                pct(s.hottest_window_share),
                s.hottest_window_share / fair,
                pct(fair)
            );
            if s.hottest_share < 0.5 * s.hottest_window_share {
                text.push_str(&format!(
                    "; over the whole trace the hottest shard has only {}, so the hot spot moves from shard to shard (monotonic or drifting keys)",
                    pct(s.hottest_share)
                ));
            }
            if coolest.scheme != s.scheme {
                text.push_str(&format!("; {}: {}", coolest.scheme, pct(coolest.hottest_window_share)));
            }
            text.push('.');
            Finding { topic: Topic::HotSpot, text }
        })
        .collect()
}

fn hot_key(p: &WorkloadProfile) -> Option<Finding> {
    let k = p.hottest_key_share.filter(|k| *k > 0.0)?;
    let fair = 1.0 / p.shards.max(1) as f64;
    let text = if k > fair {
        format!(
            "One key carries {} of point requests, more than a shard's fair share ({}): no partitioning scheme can spread it; replicate or cache it.",
            pct(k),
            pct(fair)
        )
    } else {
        format!(
            "The most requested key carries {} of point requests, below a shard's fair share ({}): partitioning alone can spread this load.",
            pct(k),
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
    let share = p
        .scan_share
        .map_or(String::new(), |s| format!(" ({} of events)", pct(s)));
    let (lo, hi) = (fan[0], fan[fan.len() - 1]);
    let mut text = format!("Shards contacted per scan{share}: {}.", list.join(", "));
    if hi.1 > 1.5 * lo.1 {
        text.push_str(&format!(
            " With {} each event costs {} shard requests, with {} {}.",
            hi.0,
            format_args!("{:.2}", hi.2),
            lo.0,
            format_args!("{:.2}", lo.2)
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
            let m = |name: &str| data.metric(&p.workload, &s.scheme, p.shards, name);
            Some((s.scheme.as_str(), m("lookup_ns_p50")?, m("lookup_ns_p99")?))
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
                    .filter_map(|&n| Some((n as f64, data.metric(w, s, n, "hottest_shard_share")?)))
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
                    .filter_map(|(v, w)| Some((*v, data.metric(w, s, n, "hottest_shard_share")?)))
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

fn split_quality(data: &RunData) -> Vec<Finding> {
    let Some(splits) = data.splits.as_deref() else {
        return vec![];
    };
    let mut out: Vec<Finding> = crate::charts::finder_balances(data)
        .into_iter()
        .map(|(finder, after, optimal, made)| Finding {
            topic: Topic::RangeDynamics,
            text: format!(
                "Split finder {finder}: {made} splits, mean balance {after:.3} after the split against {optimal:.3} at the optimal key (excess {:.3}).",
                after - optimal
            ),
        })
        .collect();
    let mut refused: Vec<(&str, &str, usize)> = Vec::new();
    for r in splits.iter().filter(|r| !r.reason.is_empty()) {
        match refused
            .iter_mut()
            .find(|x| x.0 == r.finder && x.1 == r.reason)
        {
            Some(x) => x.2 += 1,
            None => refused.push((&r.finder, &r.reason, 1)),
        }
    }
    if !refused.is_empty() {
        let list: Vec<String> = refused
            .iter()
            .map(|(f, r, n)| format!("{f} {n} ({})", r.replace('_', " ")))
            .collect();
        out.push(Finding {
            topic: Topic::RangeDynamics,
            text: format!("Load splits refused: {}.", list.join(", ")),
        });
    }
    out
}

fn timeline(data: &RunData) -> Vec<Finding> {
    let rows = data.timeline.as_deref().unwrap_or(&[]);
    let mut series: Vec<&str> = Vec::new();
    for r in rows {
        if !series.contains(&r.series.as_str()) {
            series.push(&r.series);
        }
    }
    series
        .into_iter()
        .filter_map(|name| {
            let rows: Vec<_> = rows.iter().filter(|r| r.series == name).collect();
            let total = |c: &str| rows.iter().filter_map(|r| r.values.get(c)).sum::<f64>();
            let last = rows.iter().max_by_key(|r| r.window)?;
            let mut parts = Vec::new();
            if let Some(ranges) = last.values.get("ranges") {
                parts.push(format!(
                    "{} ranges after {} windows",
                    num(*ranges),
                    last.window + 1
                ));
            }
            parts.push(format!(
                "{} splits, {} merges",
                num(total("splits")),
                num(total("merges"))
            ));
            if rows.iter().any(|r| r.values.contains_key("bytes_moved")) {
                parts.push(format!("{} bytes moved", num(total("bytes_moved"))));
            }
            let hottest: Vec<f64> = rows
                .iter()
                .filter_map(|r| r.values.get("hottest_node_share").copied())
                .collect();
            if let Some(&end) = hottest.last() {
                parts.push(format!(
                    "hottest node share {} at the start, {} at the end",
                    pct(hottest[0]),
                    pct(end)
                ));
            }
            let who = if name.is_empty() {
                "Range dynamics".to_string()
            } else {
                format!("Range dynamics ({name})")
            };
            Some(Finding {
                topic: Topic::RangeDynamics,
                text: format!("{who}: {}.", parts.join("; ")),
            })
        })
        .collect()
}

/// The recommended scheme for a workload, or `None` when no scheme has the numbers needed.
pub fn recommend(p: &WorkloadProfile) -> Option<Recommendation> {
    // The first scheme of the largest capacity (run order breaks ties).
    let best = p
        .schemes
        .iter()
        .fold(None::<&SchemeProfile>, |acc, s| match acc {
            Some(b) if b.usable_capacity >= s.usable_capacity => Some(b),
            _ => Some(s),
        })?;
    let moved = |s: &SchemeProfile| s.remap.map_or(f64::INFINITY, |r| r.1);
    // Within the tolerance, a scheme that moves strictly fewer keys on growth wins.
    let chosen = p
        .schemes
        .iter()
        .filter(|s| s.usable_capacity >= (1.0 - CAPACITY_TOLERANCE) * best.usable_capacity)
        .filter(|s| moved(s) < moved(best))
        .min_by(|a, b| moved(a).total_cmp(&moved(b)))
        .unwrap_or(best);

    let mut reasoning = vec![format!(
        "{} leaves {} of the cluster usable: its hottest shard takes {} of a window's requests (fair {}) and each event costs {:.2} shard requests{}.",
        chosen.scheme,
        pct(chosen.usable_capacity),
        pct(chosen.hottest_window_share),
        pct(1.0 / p.shards as f64),
        chosen.requests_per_event,
        chosen.scan_fanout.map_or(String::new(), |f| format!(" (a scan contacts {})", shards(f)))
    )];
    if chosen.scheme != best.scheme {
        reasoning.push(format!(
            "{} leaves {} usable, within {:.0}% of {}, but growing {} to {} moves {} of keys with {} against {} with {}.",
            best.scheme,
            pct(best.usable_capacity),
            CAPACITY_TOLERANCE * 100.0,
            chosen.scheme,
            p.shards,
            chosen.remap.map_or(0, |r| r.0),
            pct(moved(best)),
            best.scheme,
            pct(moved(chosen)),
            chosen.scheme
        ));
    } else if let Some((m, f, ideal)) = chosen.remap {
        reasoning.push(format!(
            "Growing from {} to {m} shards moves {} of its keys (ideal {}).",
            p.shards,
            pct(f),
            pct(ideal)
        ));
    }
    for other in p.schemes.iter().filter(|s| s.scheme != chosen.scheme) {
        reasoning.push(trade_off(chosen, other));
    }
    if let Some(k) = p.hottest_key_share.filter(|k| *k > 1.0 / p.shards as f64) {
        reasoning.push(format!(
            "Whatever the scheme, one key carries {} of point requests, so no shard holding it can be below that: cache or replicate that key.",
            pct(k)
        ));
    }
    Some(Recommendation {
        workload: p.workload.clone(),
        scheme: chosen.scheme.clone(),
        reasoning,
    })
}

/// Why `other` was not chosen: what it would gain and what costs it more, against `chosen`.
fn trade_off(chosen: &SchemeProfile, other: &SchemeProfile) -> String {
    let mut gains = Vec::new();
    let mut costs = Vec::new();
    let better = |a: f64, b: f64| a < b * 0.9;
    if let (Some(fo), Some(fc)) = (other.scan_fanout, chosen.scan_fanout) {
        let clause = format!("a scan contacts {} instead of {}", shards(fo), shards(fc));
        if better(fo, fc) {
            gains.push(clause);
        } else if better(fc, fo) {
            costs.push(clause);
        }
    }
    let (ho, hc) = (other.hottest_window_share, chosen.hottest_window_share);
    let clause = format!(
        "its hottest shard takes {} of each window instead of {}",
        pct(ho),
        pct(hc)
    );
    if better(ho, hc) {
        gains.push(clause);
    } else if better(hc, ho) {
        costs.push(clause);
    }
    if let (Some(ro), Some(rc)) = (other.remap, chosen.remap) {
        let clause = format!(
            "growth moves {} of keys instead of {}",
            pct(ro.1),
            pct(rc.1)
        );
        if better(ro.1, rc.1) {
            gains.push(clause);
        } else if better(rc.1, ro.1) {
            costs.push(clause);
        }
    }
    let capacity = format!(
        "it leaves {} of the cluster usable",
        pct(other.usable_capacity)
    );
    match (gains.is_empty(), costs.is_empty()) {
        (false, false) => format!(
            "{}: {}, but {}; {capacity}.",
            other.scheme,
            gains.join(" and "),
            costs.join(" and ")
        ),
        (true, false) => format!("{}: {}; {capacity}.", other.scheme, costs.join(" and ")),
        (false, true) => format!("{}: {}; {capacity}.", other.scheme, gains.join(" and ")),
        (true, true) => format!("{} measures about the same; {capacity}.", other.scheme),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::MetricRow;

    /// A run of one workload on 16 shards growing to 17, with per-scheme
    /// (hottest share, requests per event, fan-out, remap) and a hot key share.
    fn run(schemes: &[(&str, f64, f64, f64, f64)], hot_key: f64) -> RunData {
        let mut metrics = Vec::new();
        for &(s, hot, rpe, fan, remap) in schemes {
            let mut row = |metric: &str, value: f64| {
                metrics.push(MetricRow {
                    workload: "w".into(),
                    scheme: s.into(),
                    shards: 16,
                    target_shards: 17,
                    metric: metric.into(),
                    value: Some(value),
                    unit: String::new(),
                })
            };
            row("events_measured", 1000.0);
            row("scans", 50.0);
            row("requests", 1000.0 * rpe);
            row("hottest_key_share", hot_key);
            row("hottest_shard_share", hot);
            row("hottest_shard_share_windowed", hot);
            row("scan_fanout_mean", fan);
            row("remap_fraction", remap);
        }
        RunData {
            metrics,
            ..RunData::default()
        }
    }

    fn texts(data: &RunData) -> (Vec<String>, Recommendation) {
        let p = profile(data, "w").unwrap();
        let f = workload_findings(data, &p)
            .into_iter()
            .map(|f| f.text)
            .collect();
        (f, recommend(&p).unwrap())
    }

    #[test]
    fn mod_n_growth_is_reported_against_the_ideal() {
        let data = run(
            &[
                ("hash", 0.07, 1.75, 16.0, 0.94),
                ("ring", 0.07, 1.75, 16.0, 0.06),
            ],
            0.01,
        );
        let (f, _) = texts(&data);
        let growth = f.iter().find(|t| t.starts_with("Keys moved")).unwrap();
        assert!(
            growth.contains("growing from 16 to 17 shards: hash 94%, ring 6.0% (ideal 5.9%)"),
            "{growth}"
        );
        assert!(
            growth.contains("hash moves 94% of keys, 16x the least possible"),
            "{growth}"
        );
    }

    #[test]
    fn findings_and_the_recommendation_follow_the_numbers() {
        // Sequential keys: range is one hot shard; hash and ring spread, ring moves little.
        let a = run(
            &[
                ("range", 0.98, 1.01, 1.2, 0.06),
                ("hash", 0.07, 1.75, 16.0, 0.94),
                ("ring", 0.072, 1.75, 16.0, 0.06),
            ],
            0.001,
        );
        // Uniform keys without a hot spot: range spreads too, and its scans are cheap.
        let b = run(
            &[
                ("range", 0.07, 1.01, 1.2, 0.06),
                ("hash", 0.07, 1.75, 16.0, 0.94),
                ("ring", 0.072, 1.75, 16.0, 0.06),
            ],
            0.31,
        );
        let (fa, ra) = texts(&a);
        let (fb, rb) = texts(&b);
        assert_eq!(ra.scheme, "ring", "{ra:?}");
        assert_eq!(rb.scheme, "range", "{rb:?}");
        assert!(
            fa.iter()
                .any(|t| t.starts_with("range: one shard takes 98% of requests")),
            "{fa:?}"
        );
        assert!(
            !fb.iter().any(|t| t.starts_with("range: one shard")),
            "{fb:?}"
        );
        assert!(
            fb.iter()
                .any(|t| t.starts_with("One key carries 31% of point requests")),
            "{fb:?}"
        );
        assert!(
            rb.reasoning
                .iter()
                .any(|t| t.contains("cache or replicate")),
            "{rb:?}"
        );
        assert!(
            ra.reasoning.iter().any(|t| t.starts_with("range: a scan contacts 1.2 shards instead of 16 shards, but its hottest shard takes 98%")),
            "{ra:?}"
        );
        assert_ne!(fa, fb);
    }

    #[test]
    fn within_the_tolerance_the_scheme_moving_fewer_keys_wins() {
        let data = run(
            &[
                ("hash", 0.066, 1.0, 16.0, 0.94),
                ("ring", 0.070, 1.0, 16.0, 0.06),
            ],
            0.0,
        );
        let (_, r) = texts(&data);
        assert_eq!(r.scheme, "ring");
        assert!(
            r.reasoning[1].starts_with(
                "hash leaves 95% usable, within 10% of ring, but growing 16 to 17 moves 94%"
            ),
            "{:?}",
            r.reasoning
        );
        // Beyond the tolerance, capacity wins.
        let data = run(
            &[
                ("hash", 0.0625, 1.0, 16.0, 0.94),
                ("ring", 0.2, 1.0, 16.0, 0.06),
            ],
            0.0,
        );
        assert_eq!(texts(&data).1.scheme, "hash");
    }

    #[test]
    fn usable_capacity_is_one_over_n_times_hot_share_times_requests_per_event() {
        let data = run(&[("hash", 0.125, 2.0, 16.0, 0.9)], 0.0);
        let p = profile(&data, "w").unwrap();
        assert!((p.schemes[0].usable_capacity - 1.0 / (16.0 * 0.125 * 2.0)).abs() < 1e-12);
    }

    #[test]
    fn a_shard_sweep_is_summarised_per_scheme() {
        let mut data = run(
            &[
                ("range", 0.98, 1.0, 1.0, 0.06),
                ("hash", 0.07, 1.0, 16.0, 0.94),
            ],
            0.0,
        );
        for (scheme, v) in [("range", 0.97), ("hash", 0.02)] {
            data.metrics.push(MetricRow {
                workload: "w".into(),
                scheme: scheme.into(),
                shards: 64,
                target_shards: 65,
                metric: "hottest_shard_share".into(),
                value: Some(v),
                unit: String::new(),
            });
        }
        let f = run_findings(&data);
        assert_eq!(f.len(), 1);
        assert!(
            f[0].text.contains("from 16 to 64 shards")
                && f[0].text.contains("range stays near 97%")
                && f[0].text.contains("hash goes from 7.0% to 2.0%"),
            "{}",
            f[0].text
        );
    }

    #[test]
    fn shares_read_naturally() {
        assert_eq!(pct(0.9412), "94%");
        assert_eq!(pct(0.0625), "6.2%");
        assert_eq!(pct(0.0035), "0.35%");
        assert_eq!(pct(0.0), "0%");
    }
}
