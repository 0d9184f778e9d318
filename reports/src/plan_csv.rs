//! `plan.csv`: one row per workload, scheme and growth of `shardlab plan`
//! ([`analysis::plan::PlanRow`]).
//!
//! Numbers print like `summary.csv` ([`format_value`]); an empty cell means "none" (no shard
//! count works, no `--current`, no byte limit). `failed_shards` lists the shards of the worst
//! failure case separated by spaces.

use analysis::plan::PlanRow;
use serde::Serialize;

use crate::summary::format_value;
use crate::ReportError;

/// The header of `plan.csv`.
pub const PLAN_HEADER: &str = "workload,scheme,growth,replicas,failures,shards_needed,binding,\
peak_rate_per_shard,hottest_share,moved_fraction_from_current,reads,p99_rate_per_shard,\
rate_limit_per_shard,peak_bytes_per_shard,bytes_limit_per_shard,balanced_shards,current_shards,\
rate_window_secs,failed_shards,hot_key,hot_key_rate,note";

/// One row of `plan.csv`; the field order is the header.
#[derive(Debug, Serialize)]
struct PlanCsvRow<'a> {
    workload: &'a str,
    scheme: &'a str,
    growth: String,
    replicas: u32,
    failures: u32,
    shards_needed: Option<u32>,
    binding: &'static str,
    peak_rate_per_shard: String,
    hottest_share: String,
    moved_fraction_from_current: String,
    reads: &'static str,
    p99_rate_per_shard: String,
    rate_limit_per_shard: String,
    peak_bytes_per_shard: String,
    bytes_limit_per_shard: String,
    balanced_shards: u32,
    current_shards: Option<u32>,
    rate_window_secs: String,
    failed_shards: String,
    hot_key: &'a str,
    hot_key_rate: String,
    note: &'a str,
}

impl<'a> From<&'a PlanRow> for PlanCsvRow<'a> {
    fn from(r: &'a PlanRow) -> Self {
        PlanCsvRow {
            workload: &r.workload,
            scheme: &r.scheme,
            growth: format_value(Some(r.growth)),
            replicas: r.replicas,
            failures: r.failures,
            shards_needed: r.shards_needed,
            binding: r.binding.name(),
            peak_rate_per_shard: format_value(r.peak_rate_per_shard),
            hottest_share: format_value(r.hottest_share),
            moved_fraction_from_current: format_value(r.moved_fraction_from_current),
            reads: r.reads.name(),
            p99_rate_per_shard: format_value(r.p99_rate_per_shard),
            rate_limit_per_shard: format_value(Some(r.rate_limit_per_shard)),
            peak_bytes_per_shard: format_value(r.peak_bytes_per_shard),
            bytes_limit_per_shard: format_value(r.bytes_limit_per_shard),
            balanced_shards: r.balanced_shards,
            current_shards: r.current_shards,
            rate_window_secs: format_value(Some(r.rate_window_secs)),
            failed_shards: r
                .failed_shards
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(" "),
            hot_key: r.hot_key.as_deref().unwrap_or(""),
            hot_key_rate: format_value(r.hot_key_rate),
            note: &r.note,
        }
    }
}

/// Renders `plan.csv`; without rows it is the header alone.
pub fn plan_csv(rows: &[PlanRow]) -> Result<Vec<u8>, ReportError> {
    if rows.is_empty() {
        return Ok(format!("{PLAN_HEADER}\n").into_bytes());
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(PlanCsvRow::from(r))?;
    }
    w.into_inner().map_err(|e| ReportError::Io {
        path: "<memory>".into(),
        source: e.into_error(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use analysis::plan::{Binding, ReadPolicy};

    fn row() -> PlanRow {
        PlanRow {
            workload: "zipf:s=1.0".into(),
            scheme: "ring:vnodes=16".into(),
            growth: 2.0,
            replicas: 3,
            reads: ReadPolicy::Any,
            failures: 1,
            shards_needed: Some(12),
            binding: Binding::RateAfterFailure,
            peak_rate_per_shard: Some(7_812.5),
            p99_rate_per_shard: Some(7_000.0),
            hottest_share: Some(0.125),
            moved_fraction_from_current: None,
            rate_limit_per_shard: 8_000.0,
            peak_bytes_per_shard: Some(0.0),
            bytes_limit_per_shard: None,
            balanced_shards: 10,
            current_shards: None,
            rate_window_secs: 1.0,
            failed_shards: vec![3, 7],
            hot_key: None,
            hot_key_rate: None,
            note: String::new(),
        }
    }

    #[test]
    fn the_header_starts_with_the_columns_the_issue_names_and_matches_the_row_struct() {
        let required =
            "workload,scheme,growth,replicas,failures,shards_needed,binding,peak_rate_per_shard,\
                        hottest_share,moved_fraction_from_current";
        assert!(PLAN_HEADER.starts_with(required));
        let text = String::from_utf8(plan_csv(&[row()]).unwrap()).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(PLAN_HEADER));
        assert_eq!(
            lines.next(),
            Some("zipf:s=1.0,ring:vnodes=16,2,3,1,12,rate_after_failure,7812.5,0.125,,any,7000,8000,0,,10,,1,3 7,,,")
        );
        assert_eq!(
            String::from_utf8(plan_csv(&[]).unwrap()).unwrap(),
            format!("{PLAN_HEADER}\n")
        );
    }

    #[test]
    fn the_readme_lists_the_plan_csv_columns() {
        let readme =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
        assert!(readme.contains(&format!("`{PLAN_HEADER}`")));
    }

    #[test]
    fn an_infeasible_row_has_an_empty_shard_count_and_says_why() {
        let r = PlanRow {
            shards_needed: None,
            binding: Binding::HotKey,
            hot_key: Some("42".into()),
            hot_key_rate: Some(5_000.0),
            note: "No shard count works: key '42', ...".into(),
            ..row()
        };
        let text = String::from_utf8(plan_csv(&[r]).unwrap()).unwrap();
        let line = text.lines().nth(1).unwrap();
        assert!(
            line.starts_with("zipf:s=1.0,ring:vnodes=16,2,3,1,,hot_key,"),
            "{line}"
        );
        assert!(
            line.ends_with(",42,5000,\"No shard count works: key '42', ...\""),
            "{line}"
        );
    }
}
