//! Sense checks of the result files a report reads back (`shardlab report DIR`): a file that
//! parses may still hold values no run writes (a negative count, a share above 1, a lookup of
//! 1e308 ns, the same row twice, a shard without its row). Each is a data error naming the
//! file, line and column, never a chart or a decision drawn from it.
//!
//! `summary.csv`: every value finite and at least 0; a `share` at most 1; a time in `ns` at
//! most [`MAX_NS`]; `fail_shard` (unit `shard`) below the shard count; `sample_rate` in
//! (0, 1]; `estimate` 0 or 1; an interval's ends finite with `ci_low <= ci_high`; one row
//! per workload, scheme, shard count, target and metric; at least one row.
//! `shards.csv`: `request_share` in [0, 1]; every shard of a cluster has its row, and a row
//! repeated (a sweep over targets writes each once per target) says the same.

use std::collections::HashMap;
use std::path::Path;

use crate::csv_rows::{malformed, Lined};
use crate::summary::{ShardRow, SummaryRow};
use crate::ReportError;

/// The longest lookup time a report accepts, in nanoseconds (1,000 s).
pub const MAX_NS: f64 = 1e12;

/// Checks the rows of `summary.csv` (see the module).
pub fn check_summary(path: &Path, rows: &[Lined<SummaryRow>]) -> Result<(), ReportError> {
    if rows.is_empty() {
        return Err(malformed(
            path,
            1,
            "the file holds no rows: a run writes at least one per scheme and metric; run it \
             again"
                .into(),
        ));
    }
    let mut seen: HashMap<(&str, &str, u32, u32, &str), u64> = HashMap::new();
    for l in rows {
        let r = &l.row;
        let bad = |column: &str, what: String| {
            malformed(path, l.line, format!("column '{column}': {what}"))
        };
        if let Some(v) = r.value {
            let what = match r.unit.as_str() {
                _ if !v.is_finite() || v < 0.0 => Some("a finite number of at least 0"),
                "share" if v > 1.0 => Some("a share, at most 1"),
                "ns" if v > MAX_NS => Some("a time of at most 1e12 ns"),
                "shard" if v >= f64::from(r.shards) => Some("a shard below the shard count"),
                _ => None,
            };
            if let Some(what) = what {
                return Err(bad(
                    "value",
                    format!("{v:?} for {} ({}) is not {what}", r.metric, r.unit),
                ));
            }
        }
        if let Some(rate) = r.sample_rate {
            if !(rate > 0.0 && rate <= 1.0) {
                return Err(bad("sample_rate", format!("{rate} is not in (0, 1]")));
            }
        }
        if r.estimate > 1 {
            return Err(bad("estimate", format!("{} is not 0 or 1", r.estimate)));
        }
        for (column, end) in [("ci_low", r.ci_low), ("ci_high", r.ci_high)] {
            if end.is_some_and(|e| !e.is_finite()) {
                return Err(bad(column, "an interval's end must be finite".into()));
            }
        }
        if let (Some(lo), Some(hi)) = (r.ci_low, r.ci_high) {
            if lo > hi {
                return Err(bad("ci_low", format!("{lo} is above ci_high {hi}")));
            }
        }
        let key = (
            r.workload.as_str(),
            r.scheme.as_str(),
            r.shards,
            r.target_shards,
            r.metric.as_str(),
        );
        if let Some(first) = seen.insert(key, l.line) {
            return Err(bad(
                "metric",
                format!(
                    "{} of {} on {} shards (target {}) is also on line {first}: one row per \
                     metric",
                    r.metric, r.scheme, r.shards, r.target_shards
                ),
            ));
        }
    }
    Ok(())
}

/// A cluster of `shards.csv`: workload, scheme and shard count.
type Cluster<'a> = (&'a str, &'a str, u32);

/// Checks the rows of `shards.csv` (see the module), after [`crate::data`] has checked each
/// shard number against its cluster.
pub fn check_shards(path: &Path, rows: &[Lined<ShardRow>]) -> Result<(), ReportError> {
    let mut clusters: HashMap<Cluster<'_>, Vec<Option<&Lined<ShardRow>>>> = HashMap::new();
    for l in rows {
        let r = &l.row;
        if let Some(share) = r.request_share {
            if !(0.0..=1.0).contains(&share) {
                return Err(malformed(
                    path,
                    l.line,
                    format!("column 'request_share': {share} is not a share in [0, 1]"),
                ));
            }
        }
        let cluster = clusters
            .entry((r.workload.as_str(), r.scheme.as_str(), r.shards))
            .or_insert_with(|| vec![None; r.shards as usize]);
        let Some(slot) = cluster.get_mut(r.shard as usize) else {
            continue;
        };
        match slot {
            Some(first) if first.row != *r => {
                return Err(malformed(
                    path,
                    l.line,
                    format!(
                        "shard {} of {} on {} shards is also on line {} with other figures: \
                         one load per shard",
                        r.shard, r.scheme, r.shards, first.line
                    ),
                ))
            }
            Some(_) => {}
            None => *slot = Some(l),
        }
    }
    for ((workload, scheme, shards), cluster) in &clusters {
        if let Some(missing) = cluster.iter().position(Option::is_none) {
            let line = cluster.iter().flatten().map(|l| l.line).min().unwrap_or(1);
            return Err(malformed(
                path,
                line,
                format!(
                    "shard {missing} of {scheme} on {shards} shards ({workload}) has no row: \
                     every shard has one"
                ),
            ));
        }
    }
    Ok(())
}
