//! The CSV files of `range-dynamic`: `timeline.csv` (one row per window), `splits.csv` (one
//! row per load-split decision and finder) and `finders.csv` (one row per finder).
//!
//! Numbers are written as in `summary.csv` ([`format_value`]); undefined values are empty.
//! Keys are shown with the workload's [`KeyType`]; the empty key (the first range's start) is
//! an empty field.
//!
//! ```
//! use reports::dynamic_csv::{splits_csv, timeline_csv, RunLabel, SPLITS_HEADER, TIMELINE_HEADER};
//! use workloads::KeyType;
//! let label = RunLabel { workload: "w", scheme: "range-dynamic" };
//! let timeline = String::from_utf8(timeline_csv(&[], label).unwrap()).unwrap();
//! assert_eq!(timeline, format!("{TIMELINE_HEADER}\n"));
//! assert!(SPLITS_HEADER.starts_with("window,finder,range_start,split_key,balance_after,optimal_balance,contained,reason"));
//! assert_eq!(splits_csv(&[], KeyType::U64, label).unwrap(), format!("{SPLITS_HEADER}\n").into_bytes());
//! ```

use analysis::dynamic::{FinderSummary, SplitRow, TimelineRow};
use serde::Serialize;
use workloads::KeyType;

use crate::summary::format_value;
use crate::ReportError;

/// The header of `timeline.csv`.
pub const TIMELINE_HEADER: &str = "window,ranges,splits,merges,ownership_moves,data_moves,bytes_moved,\
hottest_node_share,hottest_range_share,size_splits,load_splits,refusals,oscillations,events,requests,measured,workload,scheme";

/// The header of `splits.csv`.
pub const SPLITS_HEADER: &str =
    "window,finder,range_start,split_key,balance_after,optimal_balance,contained,reason,range_end,applied,requests,workload,scheme";

/// The header of `finders.csv`.
pub const FINDERS_HEADER: &str =
    "finder,decisions,splits,applied,evaluated,balance_mean,balance_p90,\
excess_over_optimal_mean,optimal_balance_mean,popular_key,no_split_key,clear_direction,workload,scheme";

/// One row of `timeline.csv`.
#[derive(Debug, Serialize)]
struct TimelineCsvRow<'a> {
    window: u64,
    ranges: u64,
    splits: u64,
    merges: u64,
    ownership_moves: u64,
    data_moves: u64,
    bytes_moved: u64,
    hottest_node_share: String,
    hottest_range_share: String,
    size_splits: u64,
    load_splits: u64,
    refusals: u64,
    oscillations: u64,
    events: u64,
    requests: u64,
    measured: bool,
    workload: &'a str,
    scheme: &'a str,
}

/// One row of `splits.csv`.
#[derive(Debug, Serialize)]
struct SplitCsvRow<'a> {
    window: u64,
    finder: &'static str,
    range_start: String,
    split_key: String,
    balance_after: String,
    optimal_balance: String,
    contained: String,
    reason: &'static str,
    range_end: String,
    applied: bool,
    requests: u64,
    workload: &'a str,
    scheme: &'a str,
}

/// One row of `finders.csv`.
#[derive(Debug, Serialize)]
struct FinderCsvRow<'a> {
    finder: &'static str,
    decisions: u64,
    splits: u64,
    applied: u64,
    evaluated: u64,
    balance_mean: String,
    balance_p90: String,
    excess_over_optimal_mean: String,
    optimal_balance_mean: String,
    popular_key: u64,
    no_split_key: u64,
    clear_direction: u64,
    workload: &'a str,
    scheme: &'a str,
}

/// Renders `timeline.csv`.
pub fn timeline_csv(rows: &[TimelineRow], label: RunLabel<'_>) -> Result<Vec<u8>, ReportError> {
    write(
        TIMELINE_HEADER,
        rows.iter().map(|r| TimelineCsvRow {
            window: r.window,
            ranges: r.ranges,
            splits: r.splits,
            merges: r.merges,
            ownership_moves: r.ownership_moves,
            data_moves: r.data_moves,
            bytes_moved: r.bytes_moved,
            hottest_node_share: format_value(Some(r.hottest_node_share)),
            hottest_range_share: format_value(Some(r.hottest_range_share)),
            size_splits: r.size_splits,
            load_splits: r.load_splits,
            refusals: r.refusals,
            oscillations: r.oscillations,
            events: r.events,
            requests: r.requests,
            measured: r.measured,
            workload: label.workload,
            scheme: label.scheme,
        }),
    )
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
    write(
        SPLITS_HEADER,
        rows.iter().map(|r| SplitCsvRow {
            window: r.window,
            finder: r.finder.name(),
            range_start: key(Some(&r.range_start)),
            split_key: key(r.split_key.as_deref()),
            balance_after: format_value(r.balance_after),
            optimal_balance: format_value(r.optimal_balance),
            contained: format_value(r.contained),
            reason: r.reason.map_or("", |reason| reason.name()),
            range_end: key(r.range_end.as_deref()),
            applied: r.applied,
            requests: r.requests,
            workload: label.workload,
            scheme: label.scheme,
        }),
    )
}

/// Renders `finders.csv` from the per-finder summaries of a run.
pub fn finders_csv(
    summaries: &[FinderSummary],
    label: RunLabel<'_>,
) -> Result<Vec<u8>, ReportError> {
    write(
        FINDERS_HEADER,
        summaries.iter().map(|s| FinderCsvRow {
            finder: s.finder.name(),
            decisions: s.decisions,
            splits: s.splits,
            applied: s.applied,
            evaluated: s.evaluated,
            balance_mean: format_value(s.balance_mean),
            balance_p90: format_value(s.balance_p90),
            excess_over_optimal_mean: format_value(s.excess_over_optimal_mean),
            optimal_balance_mean: format_value(s.optimal_balance_mean),
            popular_key: s.popular_key,
            no_split_key: s.no_split_key,
            clear_direction: s.clear_direction,
            workload: label.workload,
            scheme: label.scheme,
        }),
    )
}

/// The workload and scheme a run's rows belong to (the last two columns of every file).
#[derive(Clone, Copy, Debug)]
pub struct RunLabel<'a> {
    /// The workload label.
    pub workload: &'a str,
    /// The scheme label.
    pub scheme: &'a str,
}

/// Writes `header`, then one line per row (the header is written even without rows).
fn write<R: Serialize>(
    header: &str,
    rows: impl Iterator<Item = R>,
) -> Result<Vec<u8>, ReportError> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    w.write_record(header.split(','))?;
    for row in rows {
        w.serialize(row)?;
    }
    w.into_inner().map_err(|e| ReportError::Io {
        path: "<memory>".into(),
        source: e.into_error(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use analysis::dynamic::{FinderKind, Refusal};

    const LABEL: RunLabel<'static> = RunLabel {
        workload: "w",
        scheme: "range-dynamic",
    };

    fn header_of<R: Serialize>(row: R) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.serialize(row).unwrap();
        let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
        text.lines().next().unwrap().to_string()
    }

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
        let timeline = TimelineCsvRow {
            window: 0,
            ranges: 0,
            splits: 0,
            merges: 0,
            ownership_moves: 0,
            data_moves: 0,
            bytes_moved: 0,
            hottest_node_share: String::new(),
            hottest_range_share: String::new(),
            size_splits: 0,
            load_splits: 0,
            refusals: 0,
            oscillations: 0,
            events: 0,
            requests: 0,
            measured: false,
            workload: "",
            scheme: "",
        };
        assert_eq!(header_of(timeline), TIMELINE_HEADER);
        let split = SplitCsvRow {
            window: 0,
            finder: "",
            range_start: String::new(),
            split_key: String::new(),
            balance_after: String::new(),
            optimal_balance: String::new(),
            contained: String::new(),
            reason: "",
            range_end: String::new(),
            applied: false,
            requests: 0,
            workload: "",
            scheme: "",
        };
        assert_eq!(header_of(split), SPLITS_HEADER);
        let finder = FinderCsvRow {
            finder: "",
            decisions: 0,
            splits: 0,
            applied: 0,
            evaluated: 0,
            balance_mean: String::new(),
            balance_p90: String::new(),
            excess_over_optimal_mean: String::new(),
            optimal_balance_mean: String::new(),
            popular_key: 0,
            no_split_key: 0,
            clear_direction: 0,
            workload: "",
            scheme: "",
        };
        assert_eq!(header_of(finder), FINDERS_HEADER);
    }

    #[test]
    fn finder_summaries_print_empty_means_when_nothing_was_judged() {
        let summaries = FinderSummary::from_rows(&[]);
        let text = String::from_utf8(finders_csv(&summaries[..1], LABEL).unwrap()).unwrap();
        assert_eq!(
            text,
            format!("{FINDERS_HEADER}\nmedian,0,0,0,0,,,,,0,0,0,w,range-dynamic\n")
        );
    }

    #[test]
    fn timeline_rows_print_exact_numbers() {
        let text = String::from_utf8(timeline_csv(&[timeline_row()], LABEL).unwrap()).unwrap();
        assert_eq!(
            text.lines().nth(1),
            Some("3,9,2,1,4,1,4096,0.25,0.3333333333333333,1,1,0,0,100,104,true,w,range-dynamic")
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
        assert_eq!(lines[0], SPLITS_HEADER);
        assert_eq!(
            lines[1],
            "7,reservoir,,500,0.125,0,0,,900,true,4000,w,range-dynamic"
        );
        assert_eq!(
            lines[2],
            "7,optimal,900,,,0,,popular_key,,false,4000,w,range-dynamic"
        );
    }
}
