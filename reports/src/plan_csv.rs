//! `plan.csv`: one row per workload, scheme and growth of `shardlab plan`
//! ([`planning::PlanRow`]).
//!
//! Numbers print like `summary.csv` ([`crate::csv_rows::number`]); an empty cell means "none" (no shard
//! count works, no `--current`, no byte limit). `failed_shards` lists the shards of the worst
//! failure case separated by spaces.

use planning::PlanRow;
use serde::{Deserialize, Serialize};

use crate::csv_rows::{self, number};
use crate::ReportError;

/// One row of `plan.csv`: the shard count one scheme needs for one workload at one growth
/// factor; the field order is the header. Columns after `moved_fraction_from_current`,
/// except `balanced_shards` and `note`, may be missing when read (older files).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlanCsvRow {
    /// Workload label.
    pub workload: String,
    /// Scheme label.
    pub scheme: String,
    /// Growth factor: traffic and stored bytes times this.
    #[serde(with = "number::required")]
    pub growth: f64,
    /// Replicas of every key.
    pub replicas: u32,
    /// Shards that may fail at once.
    pub failures: u32,
    /// Shards needed; `None` (empty) when no count works.
    pub shards_needed: Option<u32>,
    /// What decides the count (or why none works), e.g. `rate`, `hot_key`, `search_limit`.
    pub binding: String,
    /// Peak requests per second on the busiest shard at the chosen count.
    #[serde(with = "number")]
    pub peak_rate_per_shard: Option<f64>,
    /// The hottest shard's share of requests at the chosen count.
    #[serde(with = "number")]
    pub hottest_share: Option<f64>,
    /// Share of keys that move from `--current` shards; `None` without `--current`.
    #[serde(with = "number")]
    pub moved_fraction_from_current: Option<f64>,
    /// Where reads go (`leader` or `any`).
    #[serde(default)]
    pub reads: String,
    /// 99th percentile requests per second on the busiest shard.
    #[serde(default, with = "number")]
    pub p99_rate_per_shard: Option<f64>,
    /// Requests per second one shard may serve (capacity × headroom).
    #[serde(default, with = "number")]
    pub rate_limit_per_shard: Option<f64>,
    /// Peak stored bytes on the fullest shard.
    #[serde(default, with = "number")]
    pub peak_bytes_per_shard: Option<f64>,
    /// Bytes one shard may store (none without a byte capacity).
    #[serde(default, with = "number")]
    pub bytes_limit_per_shard: Option<f64>,
    /// Shards a perfectly even scheme would need.
    pub balanced_shards: Option<u32>,
    /// The shard count today, when given.
    #[serde(default)]
    pub current_shards: Option<u32>,
    /// Seconds per rate window.
    #[serde(default, with = "number")]
    pub rate_window_secs: Option<f64>,
    /// The shards of the worst failure case, separated by spaces.
    #[serde(default)]
    pub failed_shards: String,
    /// The key too hot for any shard, when one is.
    #[serde(default)]
    pub hot_key: String,
    /// Its requests per second.
    #[serde(default, with = "number")]
    pub hot_key_rate: Option<f64>,
    /// Explanation written by the planner (empty for most rows).
    pub note: String,
}

impl From<&PlanRow> for PlanCsvRow {
    fn from(r: &PlanRow) -> Self {
        PlanCsvRow {
            workload: r.workload.clone(),
            scheme: r.scheme.clone(),
            growth: r.growth,
            replicas: r.replicas,
            failures: r.failures,
            shards_needed: r.shards_needed,
            binding: r.binding.name().to_string(),
            peak_rate_per_shard: r.peak_rate_per_shard,
            hottest_share: r.hottest_share,
            moved_fraction_from_current: r.moved_fraction_from_current,
            reads: r.reads.name().to_string(),
            p99_rate_per_shard: r.p99_rate_per_shard,
            rate_limit_per_shard: Some(r.rate_limit_per_shard),
            peak_bytes_per_shard: r.peak_bytes_per_shard,
            bytes_limit_per_shard: r.bytes_limit_per_shard,
            balanced_shards: Some(r.balanced_shards),
            current_shards: r.current_shards,
            rate_window_secs: Some(r.rate_window_secs),
            failed_shards: r
                .failed_shards
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(" "),
            hot_key: r.hot_key.clone().unwrap_or_default(),
            hot_key_rate: r.hot_key_rate,
            note: r.note.clone(),
        }
    }
}

/// Renders `plan.csv`; without rows it is the header alone.
pub fn plan_csv(rows: &[PlanRow]) -> Result<Vec<u8>, ReportError> {
    csv_rows::write(rows.iter().map(PlanCsvRow::from))
}

#[cfg(test)]
mod tests {
    use super::*;
    use planning::{Binding, ReadPolicy};

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
        let header = csv_rows::header::<PlanCsvRow>();
        assert!(header.starts_with(required));
        let text = String::from_utf8(plan_csv(&[row()]).unwrap()).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(header.as_str()));
        assert_eq!(
            lines.next(),
            Some("zipf:s=1.0,ring:vnodes=16,2,3,1,12,rate_after_failure,7812.5,0.125,,any,7000,8000,0,,10,,1,3 7,,,")
        );
        assert_eq!(
            String::from_utf8(plan_csv(&[]).unwrap()).unwrap(),
            format!("{header}\n")
        );
    }

    #[test]
    fn the_docs_list_the_plan_csv_columns() {
        let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/plan.md"))
            .unwrap();
        assert!(page.contains(&format!("`{}`", csv_rows::header::<PlanCsvRow>())));
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
