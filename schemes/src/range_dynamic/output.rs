//! What a dynamic run produces: plain rows for `timeline.csv` and `splits.csv`, the
//! per-finder summary, and the final ranges.

use serde::{Deserialize, Serialize};

use super::diagnose::Refusal;
use super::finder::FinderKind;
use crate::changing::{Cell, Table};

/// One window of the run (a row of `timeline.csv`). Counts are of actions taken at the end
/// of the window; shares are of the requests during it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimelineRow {
    /// Window index (0-based; idle stretches longer than the idle cap are skipped).
    pub window: u64,
    /// Ranges after the window's splits and merges.
    pub ranges: u64,
    /// Splits made (size and load).
    pub splits: u64,
    /// Merges made.
    pub merges: u64,
    /// Ownership moves (lease transfers, no bytes).
    pub ownership_moves: u64,
    /// Data moves (a replica copied to another node).
    pub data_moves: u64,
    /// Bytes copied by the data moves.
    pub bytes_moved: u64,
    /// The busiest node's requests / all node requests in the window (0 when idle).
    pub hottest_node_share: f64,
    /// The busiest range's requests / all range requests in the window (0 when idle).
    pub hottest_range_share: f64,
    /// Splits because a range held more than `max_bytes`.
    pub size_splits: u64,
    /// Splits at the applied finder's key.
    pub load_splits: u64,
    /// Load-split decisions the applied finder refused.
    pub refusals: u64,
    /// Merges that removed a boundary a split had created less than `cooldown` windows before.
    pub oscillations: u64,
    /// Events in the window.
    pub events: u64,
    /// Node requests in the window (a scan counts once per node it contacts).
    pub requests: u64,
    /// True when the window holds measured events (after the warm-up).
    pub measured: bool,
}

/// One finder's answer to one load-split decision (a row of `splits.csv`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SplitRow {
    /// The window whose requests the decision used; it is judged on the next window.
    pub window: u64,
    /// The finder.
    pub finder: FinderKind,
    /// Start of the hot range.
    pub range_start: Vec<u8>,
    /// The proposed key (`None` when the finder refused).
    pub split_key: Option<Vec<u8>>,
    /// |L-R|/(L+R) of the range's requests in the next window at `split_key` (a cut scan
    /// counts on both sides). `None` when refused, or when the next window has no request to
    /// the range or never came.
    pub balance_after: Option<f64>,
    /// The same at the exact optimal key of the decision window, whatever any finder said.
    pub optimal_balance: Option<f64>,
    /// Share of the range's next-window requests that `split_key` cuts (scans across it).
    pub contained: Option<f64>,
    /// Why no key was proposed.
    pub reason: Option<Refusal>,
    /// End of the hot range (`None`: unbounded).
    pub range_end: Option<Vec<u8>>,
    /// True for the decision that was carried out (the configured finder's key).
    pub applied: bool,
    /// Requests to the range in the decision window.
    pub requests: u64,
}

/// One finder's record over a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FinderSummary {
    /// The finder.
    pub finder: FinderKind,
    /// Load-split decisions it answered.
    pub decisions: u64,
    /// Decisions where it proposed a key.
    pub splits: u64,
    /// Of those, the ones carried out (only the configured finder's are).
    pub applied: u64,
    /// Proposed keys judged on a next window.
    pub evaluated: u64,
    /// Mean `balance_after` of its keys.
    pub balance_mean: Option<f64>,
    /// 90th percentile (nearest rank) of `balance_after`.
    pub balance_p90: Option<f64>,
    /// Mean of `balance_after - optimal_balance` over the same decisions.
    pub excess_over_optimal_mean: Option<f64>,
    /// Mean `optimal_balance` over the same decisions.
    pub optimal_balance_mean: Option<f64>,
    /// Refusals for a popular key.
    pub popular_key: u64,
    /// Refusals for lack of a balanced candidate.
    pub no_split_key: u64,
    /// Refusals for a clear direction.
    pub clear_direction: u64,
}

impl FinderSummary {
    /// One summary per finder (in [`FinderKind::ALL`] order) from the rows of a run.
    pub fn from_rows(rows: &[SplitRow]) -> Vec<FinderSummary> {
        FinderKind::ALL
            .iter()
            .map(|&finder| FinderSummary::of(finder, rows))
            .collect()
    }

    fn of(finder: FinderKind, rows: &[SplitRow]) -> FinderSummary {
        let mine: Vec<&SplitRow> = rows.iter().filter(|r| r.finder == finder).collect();
        let refused =
            |reason: Refusal| mine.iter().filter(|r| r.reason == Some(reason)).count() as u64;
        let judged: Vec<(f64, Option<f64>)> = mine
            .iter()
            .filter(|r| r.split_key.is_some())
            .filter_map(|r| r.balance_after.map(|b| (b, r.optimal_balance)))
            .collect();
        let mut balances: Vec<f64> = judged.iter().map(|(b, _)| *b).collect();
        balances.sort_by(f64::total_cmp);
        let excess: Vec<f64> = judged
            .iter()
            .filter_map(|(b, o)| o.map(|o| b - o))
            .collect();
        let optimal: Vec<f64> = judged.iter().filter_map(|(_, o)| *o).collect();
        FinderSummary {
            finder,
            decisions: mine.len() as u64,
            splits: mine.iter().filter(|r| r.split_key.is_some()).count() as u64,
            applied: mine.iter().filter(|r| r.applied).count() as u64,
            evaluated: balances.len() as u64,
            balance_mean: mean(&balances),
            balance_p90: nearest_rank(&balances, 0.9),
            excess_over_optimal_mean: mean(&excess),
            optimal_balance_mean: mean(&optimal),
            popular_key: refused(Refusal::PopularKey),
            no_split_key: refused(Refusal::NoSplitKey),
            clear_direction: refused(Refusal::ClearDirection),
        }
    }
}

/// The mean, `None` for no values.
fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// The nearest-rank `q` quantile of sorted values, `None` for no values.
fn nearest_rank(sorted: &[f64], q: f64) -> Option<f64> {
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.clamp(1, sorted.len().max(1)) - 1).copied()
}

/// Totals of a run's actions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DynamicTotals {
    /// Size splits.
    pub size_splits: u64,
    /// Load splits.
    pub load_splits: u64,
    /// Load-split decisions the applied finder refused.
    pub refusals: u64,
    /// Merges.
    pub merges: u64,
    /// Splits merged back within the cool-down.
    pub oscillations: u64,
    /// Ownership moves.
    pub ownership_moves: u64,
    /// Data moves.
    pub data_moves: u64,
    /// Bytes copied by data moves.
    pub bytes_moved: u64,
}

/// A range at the end of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FinalRange {
    /// Start key (the first is empty).
    pub start: Vec<u8>,
    /// End key (`None`: unbounded).
    pub end: Option<Vec<u8>>,
    /// The serving node.
    pub owner: u32,
    /// Nodes holding a replica.
    pub replicas: Vec<u32>,
    /// Bumped on every split or merge that touched it.
    pub generation: u64,
    /// Bytes stored.
    pub bytes: u64,
    /// Keys stored.
    pub keys: u64,
    /// EWMA requests per window.
    pub load: f64,
}

/// Index of the range holding `key` among ranges that tile the key space in order.
pub fn range_index(ranges: &[FinalRange], key: &[u8]) -> usize {
    ranges
        .partition_point(|r| r.start.as_slice() <= key)
        .saturating_sub(1)
}

/// `splits.csv`: one row per load-split decision and finder.
pub fn splits_table(rows: &[SplitRow]) -> Table {
    Table::new(
        "splits",
        &[
            "window",
            "finder",
            "range_start",
            "split_key",
            "balance_after",
            "optimal_balance",
            "contained",
            "reason",
            "range_end",
            "applied",
            "requests",
        ],
        rows.iter()
            .map(|r| {
                vec![
                    Cell::Count(r.window),
                    Cell::Text(r.finder.name().to_string()),
                    Cell::Key(Some(r.range_start.clone())),
                    Cell::Key(r.split_key.clone()),
                    Cell::Number(r.balance_after),
                    Cell::Number(r.optimal_balance),
                    Cell::Number(r.contained),
                    Cell::Text(r.reason.map_or("", |reason| reason.name()).to_string()),
                    Cell::Key(r.range_end.clone()),
                    Cell::Flag(r.applied),
                    Cell::Count(r.requests),
                ]
            })
            .collect(),
    )
}

/// `finders.csv`: one row per finder.
pub fn finders_table(summaries: &[FinderSummary]) -> Table {
    Table::new(
        "finders",
        &[
            "finder",
            "decisions",
            "splits",
            "applied",
            "evaluated",
            "balance_mean",
            "balance_p90",
            "excess_over_optimal_mean",
            "optimal_balance_mean",
            "popular_key",
            "no_split_key",
            "clear_direction",
        ],
        summaries
            .iter()
            .map(|s| {
                let mut row = vec![Cell::Text(s.finder.name().to_string())];
                row.extend([s.decisions, s.splits, s.applied, s.evaluated].map(Cell::Count));
                row.extend(
                    [
                        s.balance_mean,
                        s.balance_p90,
                        s.excess_over_optimal_mean,
                        s.optimal_balance_mean,
                    ]
                    .map(Cell::Number),
                );
                row.extend([s.popular_key, s.no_split_key, s.clear_direction].map(Cell::Count));
                row
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(
        finder: FinderKind,
        key: Option<u8>,
        balance: Option<f64>,
        optimal: Option<f64>,
        reason: Option<Refusal>,
    ) -> SplitRow {
        SplitRow {
            window: 0,
            finder,
            range_start: vec![],
            split_key: key.map(|k| vec![k]),
            balance_after: balance,
            optimal_balance: optimal,
            contained: None,
            reason,
            range_end: None,
            applied: false,
            requests: 0,
        }
    }

    #[test]
    fn a_finder_summary_averages_judged_splits_and_counts_refusals() {
        let f = FinderKind::Sampled;
        let mut rows: Vec<SplitRow> = (1..=10)
            .map(|i| row(f, Some(i), Some(i as f64 / 10.0), Some(0.05), None))
            .collect();
        rows.push(row(f, Some(99), None, None, None));
        rows.push(row(f, None, None, Some(0.9), Some(Refusal::PopularKey)));
        rows.push(row(f, None, None, None, Some(Refusal::ClearDirection)));
        rows.push(row(
            FinderKind::Optimal,
            Some(1),
            Some(0.0),
            Some(0.0),
            None,
        ));
        let s = &FinderSummary::from_rows(&rows)[1];
        assert_eq!(
            (s.finder, s.decisions, s.splits, s.evaluated),
            (f, 13, 11, 10)
        );
        assert!((s.balance_mean.unwrap() - 0.55).abs() < 1e-12);
        assert_eq!(s.balance_p90, Some(0.9));
        assert!((s.excess_over_optimal_mean.unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(
            (s.popular_key, s.no_split_key, s.clear_direction),
            (1, 0, 1)
        );
        let median = &FinderSummary::from_rows(&rows)[0];
        assert_eq!(
            (median.decisions, median.balance_mean, median.balance_p90),
            (0, None, None)
        );
    }

    #[test]
    fn the_range_of_a_key_is_found_by_its_start() {
        let r = |s: &[u8]| FinalRange {
            start: s.to_vec(),
            end: None,
            owner: 0,
            replicas: vec![],
            generation: 1,
            bytes: 0,
            keys: 0,
            load: 0.0,
        };
        let ranges = vec![r(b""), r(b"f"), r(b"p")];
        assert_eq!(range_index(&ranges, b"a"), 0);
        assert_eq!(range_index(&ranges, b"f"), 1);
        assert_eq!(range_index(&ranges, b"zz"), 2);
    }
}
