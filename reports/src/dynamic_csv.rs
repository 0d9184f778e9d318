//! The CSV files of `range-dynamic`: `timeline.csv` (one row per window), `splits.csv` (one
//! row per load-split decision and finder) and `finders.csv` (one row per finder).
//!
//! Numbers are written as in `summary.csv` ([`crate::csv_rows::number`]); undefined values are empty.
//! Keys are shown with the workload's [`KeyType`]; the empty key (the first range's start) is
//! an empty field.
//!
//! ```
//! use reports::csv_rows::header;
//! use reports::dynamic_csv::{splits_csv, timeline_csv, RunLabel, SplitCsvRow, TimelineCsvRow};
//! use workloads::KeyType;
//! let label = RunLabel { workload: "w", scheme: "range-dynamic", shards: 4 };
//! let timeline = String::from_utf8(timeline_csv(&[], label).unwrap()).unwrap();
//! assert_eq!(timeline, format!("{}\n", header::<TimelineCsvRow>()));
//! assert!(header::<SplitCsvRow>().starts_with("window,finder,range_start,split_key,balance_after,optimal_balance,contained,reason"));
//! assert_eq!(splits_csv(&[], KeyType::U64, label).unwrap(), format!("{}\n", header::<SplitCsvRow>()).into_bytes());
//! ```

use schemes::range_dynamic::{FinderSummary, SplitRow, TimelineRow};
use serde::{Deserialize, Serialize};
use workloads::KeyType;

use crate::csv_rows::{self, number};
use crate::ReportError;

/// One row of `timeline.csv`: the figures of one window of one dynamic run. Every column but
/// `window` may be missing or empty when read (hand-made or older files).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimelineCsvRow {
    /// Window index.
    pub window: u64,
    /// Ranges after the window's splits and merges.
    #[serde(default)]
    pub ranges: Option<u64>,
    /// Splits made (size and load).
    #[serde(default)]
    pub splits: Option<u64>,
    /// Merges made.
    #[serde(default)]
    pub merges: Option<u64>,
    /// Ownership moves.
    #[serde(default)]
    pub ownership_moves: Option<u64>,
    /// Data moves.
    #[serde(default)]
    pub data_moves: Option<u64>,
    /// Bytes copied by the data moves.
    #[serde(default)]
    pub bytes_moved: Option<u64>,
    /// The busiest node's share of the window's requests.
    #[serde(default, with = "number")]
    pub hottest_node_share: Option<f64>,
    /// The busiest range's share of the window's requests.
    #[serde(default, with = "number")]
    pub hottest_range_share: Option<f64>,
    /// Splits because a range held more than `max_bytes`.
    #[serde(default)]
    pub size_splits: Option<u64>,
    /// Splits at the applied finder's key.
    #[serde(default)]
    pub load_splits: Option<u64>,
    /// Load-split decisions the applied finder refused.
    #[serde(default)]
    pub refusals: Option<u64>,
    /// Merges of a boundary made less than `cooldown` windows before.
    #[serde(default)]
    pub oscillations: Option<u64>,
    /// Events in the window.
    #[serde(default)]
    pub events: Option<u64>,
    /// Node requests in the window.
    #[serde(default)]
    pub requests: Option<u64>,
    /// True when the window holds measured events.
    #[serde(default)]
    pub measured: Option<bool>,
    /// Workload label.
    #[serde(default)]
    pub workload: Option<String>,
    /// Scheme label.
    #[serde(default)]
    pub scheme: Option<String>,
    /// Nodes N of the run.
    #[serde(default)]
    pub shards: Option<u32>,
}

impl TimelineCsvRow {
    /// The row of one window of a run.
    pub fn new(r: &TimelineRow, label: RunLabel<'_>) -> TimelineCsvRow {
        TimelineCsvRow {
            window: r.window,
            ranges: Some(r.ranges),
            splits: Some(r.splits),
            merges: Some(r.merges),
            ownership_moves: Some(r.ownership_moves),
            data_moves: Some(r.data_moves),
            bytes_moved: Some(r.bytes_moved),
            hottest_node_share: Some(r.hottest_node_share),
            hottest_range_share: Some(r.hottest_range_share),
            size_splits: Some(r.size_splits),
            load_splits: Some(r.load_splits),
            refusals: Some(r.refusals),
            oscillations: Some(r.oscillations),
            events: Some(r.events),
            requests: Some(r.requests),
            measured: Some(r.measured),
            workload: Some(label.workload.to_string()),
            scheme: Some(label.scheme.to_string()),
            shards: Some(label.shards),
        }
    }

    /// What the row belongs to: its workload, scheme and node count joined with " / "
    /// (empty without).
    pub fn series(&self) -> String {
        series(&self.workload, &self.scheme, self.shards)
    }
}

/// One row of `splits.csv`: one finder's answer to one load-split decision.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SplitCsvRow {
    /// The window whose requests the decision used.
    pub window: u64,
    /// Split-key finder: `median`, `sampled`, `reservoir` or `optimal`.
    pub finder: String,
    /// Start key of the range considered (empty for the first range).
    pub range_start: String,
    /// The chosen key (empty when refused).
    pub split_key: String,
    /// |L-R|/(L+R) of the next window's load at the chosen key.
    #[serde(with = "number")]
    pub balance_after: Option<f64>,
    /// The same at the optimal key.
    #[serde(with = "number")]
    pub optimal_balance: Option<f64>,
    /// Share of scans cut by the boundary.
    #[serde(with = "number")]
    pub contained: Option<f64>,
    /// Empty for a split made, else why it was refused (`popular_key`, `no_split_key`,
    /// `clear_direction`).
    pub reason: String,
    /// End key of the range (empty: unbounded).
    #[serde(default)]
    pub range_end: String,
    /// True for the decision that was carried out.
    #[serde(default)]
    pub applied: bool,
    /// Requests to the range in the decision window.
    #[serde(default)]
    pub requests: u64,
    /// Workload label.
    #[serde(default)]
    pub workload: Option<String>,
    /// Scheme label.
    #[serde(default)]
    pub scheme: Option<String>,
    /// Nodes N of the run.
    #[serde(default)]
    pub shards: Option<u32>,
}

impl SplitCsvRow {
    /// What the row belongs to: its workload, scheme and node count joined with " / "
    /// (empty without).
    pub fn series(&self) -> String {
        series(&self.workload, &self.scheme, self.shards)
    }
}

/// One row of `finders.csv`: one finder's record over one dynamic run (computed by
/// `analysis`, [`FinderSummary`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FinderCsvRow {
    /// Split-key finder.
    pub finder: String,
    /// Load-split decisions it answered.
    pub decisions: u64,
    /// Decisions where it proposed a key.
    pub splits: u64,
    /// Of those, the ones carried out.
    pub applied: u64,
    /// Proposed keys judged on a next window.
    pub evaluated: u64,
    /// Mean `balance_after` of its keys.
    #[serde(with = "number")]
    pub balance_mean: Option<f64>,
    /// 90th percentile (nearest rank) of `balance_after`.
    #[serde(with = "number")]
    pub balance_p90: Option<f64>,
    /// Mean of `balance_after - optimal_balance` over the same decisions.
    #[serde(with = "number")]
    pub excess_over_optimal_mean: Option<f64>,
    /// Mean `optimal_balance` over the same decisions.
    #[serde(with = "number")]
    pub optimal_balance_mean: Option<f64>,
    /// Refusals for a popular key.
    pub popular_key: u64,
    /// Refusals for lack of a balanced candidate.
    pub no_split_key: u64,
    /// Refusals for a clear direction.
    pub clear_direction: u64,
    /// Workload label.
    #[serde(default)]
    pub workload: Option<String>,
    /// Scheme label.
    #[serde(default)]
    pub scheme: Option<String>,
    /// Nodes N of the run.
    #[serde(default)]
    pub shards: Option<u32>,
}

impl FinderCsvRow {
    /// What the row belongs to: its workload, scheme and node count joined with " / "
    /// (empty without).
    pub fn series(&self) -> String {
        series(&self.workload, &self.scheme, self.shards)
    }
}

/// The labels present, joined with " / ".
fn series(workload: &Option<String>, scheme: &Option<String>, shards: Option<u32>) -> String {
    let shards = shards.map(|n| format!("{n} shards"));
    [workload.as_ref(), scheme.as_ref(), shards.as_ref()]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" / ")
}

/// Renders `timeline.csv`.
pub fn timeline_csv(rows: &[TimelineRow], label: RunLabel<'_>) -> Result<Vec<u8>, ReportError> {
    csv_rows::write(rows.iter().map(|r| TimelineCsvRow::new(r, label)))
}

/// Renders `splits.csv`; keys are shown as `key_type` displays them.
pub fn splits_csv(
    rows: &[SplitRow],
    key_type: KeyType,
    label: RunLabel<'_>,
) -> Result<Vec<u8>, ReportError> {
    let key = |k: Option<&[u8]>| match k {
        None | Some([]) => String::new(),
        Some(k) => key_type.display(k),
    };
    csv_rows::write(rows.iter().map(|r| SplitCsvRow {
        window: r.window,
        finder: r.finder.name().to_string(),
        range_start: key(Some(&r.range_start)),
        split_key: key(r.split_key.as_deref()),
        balance_after: r.balance_after,
        optimal_balance: r.optimal_balance,
        contained: r.contained,
        reason: r.reason.map_or("", |reason| reason.name()).to_string(),
        range_end: key(r.range_end.as_deref()),
        applied: r.applied,
        requests: r.requests,
        workload: Some(label.workload.to_string()),
        scheme: Some(label.scheme.to_string()),
        shards: Some(label.shards),
    }))
}

/// Renders `finders.csv` from the per-finder summaries of a run.
pub fn finders_csv(
    summaries: &[FinderSummary],
    label: RunLabel<'_>,
) -> Result<Vec<u8>, ReportError> {
    csv_rows::write(summaries.iter().map(|s| FinderCsvRow {
        finder: s.finder.name().to_string(),
        decisions: s.decisions,
        splits: s.splits,
        applied: s.applied,
        evaluated: s.evaluated,
        balance_mean: s.balance_mean,
        balance_p90: s.balance_p90,
        excess_over_optimal_mean: s.excess_over_optimal_mean,
        optimal_balance_mean: s.optimal_balance_mean,
        popular_key: s.popular_key,
        no_split_key: s.no_split_key,
        clear_direction: s.clear_direction,
        workload: Some(label.workload.to_string()),
        scheme: Some(label.scheme.to_string()),
        shards: Some(label.shards),
    }))
}

/// The workload, scheme and node count a run's rows belong to (the last three columns of
/// every file).
#[derive(Clone, Copy, Debug)]
pub struct RunLabel<'a> {
    /// The workload label.
    pub workload: &'a str,
    /// The scheme label.
    pub scheme: &'a str,
    /// Nodes N.
    pub shards: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemes::range_dynamic::{FinderKind, Refusal};

    const LABEL: RunLabel<'static> = RunLabel {
        workload: "w",
        scheme: "range-dynamic",
        shards: 4,
    };

    fn timeline_row() -> TimelineRow {
        TimelineRow {
            window: 3,
            ranges: 9,
            splits: 2,
            merges: 1,
            ownership_moves: 4,
            data_moves: 1,
            bytes_moved: 4096,
            hottest_node_share: 0.25,
            hottest_range_share: 1.0 / 3.0,
            size_splits: 1,
            load_splits: 1,
            refusals: 0,
            oscillations: 0,
            events: 100,
            requests: 104,
            measured: true,
        }
    }

    #[test]
    fn the_headers_are_those_of_the_row_structs() {
        assert_eq!(
            csv_rows::header::<TimelineCsvRow>(),
            "window,ranges,splits,merges,ownership_moves,data_moves,bytes_moved,\
hottest_node_share,hottest_range_share,size_splits,load_splits,refusals,oscillations,events,requests,measured,workload,scheme,shards"
        );
        assert_eq!(
            csv_rows::header::<SplitCsvRow>(),
            "window,finder,range_start,split_key,balance_after,optimal_balance,contained,reason,range_end,applied,requests,workload,scheme,shards"
        );
        assert_eq!(
            csv_rows::header::<FinderCsvRow>(),
            "finder,decisions,splits,applied,evaluated,balance_mean,balance_p90,\
excess_over_optimal_mean,optimal_balance_mean,popular_key,no_split_key,clear_direction,workload,scheme,shards"
        );
    }

    #[test]
    fn finder_summaries_print_empty_means_when_nothing_was_judged() {
        let summaries = FinderSummary::from_rows(&[]);
        let text = String::from_utf8(finders_csv(&summaries[..1], LABEL).unwrap()).unwrap();
        assert_eq!(
            text,
            format!(
                "{}\nmedian,0,0,0,0,,,,,0,0,0,w,range-dynamic,4\n",
                csv_rows::header::<FinderCsvRow>()
            )
        );
    }

    #[test]
    fn timeline_rows_print_exact_numbers() {
        let text = String::from_utf8(timeline_csv(&[timeline_row()], LABEL).unwrap()).unwrap();
        assert_eq!(
            text.lines().nth(1),
            Some("3,9,2,1,4,1,4096,0.25,0.3333333333333333,1,1,0,0,100,104,true,w,range-dynamic,4")
        );
    }

    #[test]
    fn split_rows_show_keys_reasons_and_empty_undefined_values() {
        let made = SplitRow {
            window: 7,
            finder: FinderKind::Reservoir,
            range_start: vec![],
            split_key: Some(500u64.to_be_bytes().to_vec()),
            balance_after: Some(0.125),
            optimal_balance: Some(0.0),
            contained: Some(0.0),
            reason: None,
            range_end: Some(900u64.to_be_bytes().to_vec()),
            applied: true,
            requests: 4000,
        };
        let refused = SplitRow {
            finder: FinderKind::Optimal,
            split_key: None,
            balance_after: None,
            contained: None,
            reason: Some(Refusal::PopularKey),
            applied: false,
            range_start: 900u64.to_be_bytes().to_vec(),
            range_end: None,
            ..made.clone()
        };
        let text =
            String::from_utf8(splits_csv(&[made, refused], KeyType::U64, LABEL).unwrap()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], csv_rows::header::<SplitCsvRow>());
        assert_eq!(
            lines[1],
            "7,reservoir,,500,0.125,0,0,,900,true,4000,w,range-dynamic,4"
        );
        assert_eq!(
            lines[2],
            "7,optimal,900,,,0,,popular_key,,false,4000,w,range-dynamic,4"
        );
    }
}
