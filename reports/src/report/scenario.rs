//! The account of a scenario run (`run --scenario`): per scheme, what each event moved, how
//! long its moves took and when the hottest node share settled, with the run's throttled
//! and unavailable shares.

use super::finding::{pct, Finding, Topic};
use crate::data::RunData;
use engine::metrics::MetricId;
use schemes::scenario::{REDUNDANT_MOVES, THROTTLED_SHARE, UNAVAILABLE_SHARE};

/// One finding per workload and scheme of `events.csv`.
pub fn findings(data: &RunData) -> Vec<Finding> {
    let Some(events) = &data.events else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut runs: Vec<(&str, &str, u32)> = Vec::new();
    for e in events {
        let run = (e.workload.as_str(), e.scheme.as_str(), e.shards);
        if !runs.contains(&run) {
            runs.push(run);
        }
    }
    for (w, s, n) in runs {
        let mut parts: Vec<String> = events
            .iter()
            .filter(|e| (e.workload.as_str(), e.scheme.as_str(), e.shards) == (w, s, n))
            .map(|e| {
                let mut text = format!("{} at {}", e.action, secs(e.applied_secs));
                if e.outcome != "applied" {
                    return format!("{text}: {}", e.outcome);
                }
                let bytes = e
                    .moved_bytes
                    .map_or(String::new(), |b| format!(" ({b} bytes)"));
                if let Some(moves) = e.moves.filter(|&m| m > 0) {
                    text.push_str(&format!(" the balancer made {moves} moves{bytes}"));
                    if let Some(t) = e.move_secs {
                        text.push_str(&format!(", the node emptied in {}", secs(t)));
                    }
                } else if e.moved_keys.unwrap_or(0) > 0 || e.keys_left.unwrap_or(0) > 0 {
                    let (keys, left) = (e.moved_keys.unwrap_or(0), e.keys_left.unwrap_or(0));
                    text.push_str(&format!(" moved {keys} keys{bytes}"));
                    match e.move_secs {
                        Some(t) => text.push_str(&format!(" in {}", secs(t))),
                        None => text.push_str(&format!(", {left} keys still waiting at the end")),
                    }
                }
                match e.converge_secs {
                    Some(t) => text.push_str(&format!(", settled after {}", secs(t))),
                    None => text.push_str(", no full window after it to settle in"),
                }
                text
            })
            .collect();
        let metric = |name: MetricId| {
            data.metrics
                .iter()
                .find(|m| m.workload == w && m.scheme == s && m.metric == name.name())
                .and_then(|m| m.value)
        };
        if let Some(t) = metric(THROTTLED_SHARE) {
            parts.push(format!("{} of node requests throttled", pct(t)));
        }
        if let Some(u) = metric(UNAVAILABLE_SHARE).filter(|&u| u > 0.0) {
            parts.push(format!("{} of events found no replica up", pct(u)));
        }
        if let Some(r) = metric(REDUNDANT_MOVES).filter(|&r| r > 0.0) {
            parts.push(format!("{r} moves went back or round (redundant)"));
        }
        out.push(Finding {
            topic: Topic::Scenario,
            text: format!("Scenario ({w} / {s} / {n} shards): {}.", parts.join("; ")),
        });
    }
    out
}

fn secs(t: f64) -> String {
    format!("{} s", (t * 1000.0).round() / 1000.0)
}
