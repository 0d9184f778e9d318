//! The rows of the `range-dynamic` files as the reports read them back: `timeline.csv` (one
//! row per window), `splits.csv` (one row per load-split decision and finder) and
//! `finders.csv` (one row per finder), which [`crate::layout_tables`] writes.
//!
//! Numbers are read as in `summary.csv` ([`crate::csv_rows::number`]); empty is undefined.

use serde::{Deserialize, Serialize};

use crate::csv_rows::number;

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
    /// What the row belongs to: its workload, scheme and node count joined with " / "
    /// (empty without).
    pub fn series(&self) -> String {
        series(&self.workload, &self.scheme, self.shards)
    }
}

/// One row of `events.csv`: what one scenario event did to one scheme.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EventCsvRow {
    /// Its line in the scenario file.
    pub line: u64,
    /// When it was applied (seconds from the first event, or an event position).
    pub applied_secs: f64,
    /// The action (`add 1`).
    pub action: String,
    /// `applied`, or `refused: ` and why.
    pub outcome: String,
    /// Keys moved (a fixed scheme's event; empty for a balancer's).
    #[serde(default)]
    pub moved_keys: Option<u64>,
    /// Bytes moved (empty for a balancer that does not count bytes).
    #[serde(default)]
    pub moved_bytes: Option<u64>,
    /// A balancer's moves (shards, regions, slices, ranges) from the event to the next.
    #[serde(default)]
    pub moves: Option<u64>,
    /// Keys still waiting to move at the end (empty for a balancer's event).
    #[serde(default)]
    pub keys_left: Option<u64>,
    /// Seconds the moves took (empty: not done by the end, or nothing to move).
    #[serde(default, with = "number")]
    pub move_secs: Option<f64>,
    /// Seconds until the hottest node share settled.
    #[serde(default, with = "number")]
    pub converge_secs: Option<f64>,
    /// Workload label.
    pub workload: String,
    /// Scheme label.
    pub scheme: String,
    /// Nodes N at the start.
    pub shards: u32,
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
/// the `range-dynamic` layout, `schemes::range_dynamic::FinderSummary`).
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
pub(crate) fn series(
    workload: &Option<String>,
    scheme: &Option<String>,
    shards: Option<u32>,
) -> String {
    let shards = shards.map(|n| format!("{n} shards"));
    [workload.as_ref(), scheme.as_ref(), shards.as_ref()]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" / ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csv_rows::header;
    use schemes::changing::ChangingLayout;
    use schemes::range_dynamic::output::{finders_table, splits_table};
    use schemes::range_dynamic::{DynamicParams, RangeDynamic};

    /// The columns `range-dynamic` writes, as `layout_tables` heads them.
    fn written<S: AsRef<str>>(columns: &[S]) -> String {
        let columns: Vec<&str> = columns.iter().map(AsRef::as_ref).collect();
        columns.join(",") + ",workload,scheme,shards"
    }

    #[test]
    fn the_rows_read_back_have_the_columns_the_layout_writes() {
        let spec = workloads::Spec::parse("range-dynamic").unwrap();
        let layout = RangeDynamic::new(spec.to_string(), DynamicParams::parse(&spec).unwrap(), 2);
        // The timeline's row type reads range-dynamic's columns, nothing else (the charts
        // read any layout's columns as numbers: timeline_table.rs).
        let mut want: Vec<&str> = layout.timeline_columns().to_vec();
        want.extend(["workload", "scheme", "shards"]);
        want.sort_unstable();
        let got = header::<TimelineCsvRow>();
        let mut got: Vec<&str> = got.split(',').collect();
        got.sort_unstable();
        assert_eq!(got, want);
        assert_eq!(header::<SplitCsvRow>(), written(&splits_table(&[]).columns));
        assert_eq!(
            header::<FinderCsvRow>(),
            written(&finders_table(&[]).columns)
        );
    }
}
