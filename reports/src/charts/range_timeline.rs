//! Range dynamics over time, from `timeline.csv`: ranges, splits, merges, bytes moved (and the
//! hottest node's share when recorded), one panel per measure, one line per series.

use super::style::{self, percent, whole, LinePanel, Series, Stroke};
use super::{Canvas, Chart, ChartInput, DrawResult, Scope};
use crate::data::{is_full_window, RunData};
use crate::dynamic_csv::TimelineCsvRow;

/// Range dynamics over time.
pub struct RangeTimeline;

/// A column drawn, with its axis label, tick format and value.
type Measure = (
    &'static str,
    &'static str,
    fn(&f64) -> String,
    fn(&TimelineCsvRow) -> Option<f64>,
);

/// Columns drawn, with their axis label, tick format and value.
const MEASURES: [Measure; 5] = [
    ("ranges", "ranges", whole, |r| r.ranges.map(|v| v as f64)),
    ("splits", "splits per window", whole, |r| {
        r.splits.map(|v| v as f64)
    }),
    ("merges", "merges per window", whole, |r| {
        r.merges.map(|v| v as f64)
    }),
    ("bytes_moved", "bytes moved per window", whole, |r| {
        r.bytes_moved.map(|v| v as f64)
    }),
    (
        "hottest_node_share",
        "hottest node's share (%)",
        percent,
        |r| r.hottest_node_share,
    ),
];

pub(super) fn rows(data: &RunData) -> &[TimelineCsvRow] {
    data.timeline.as_deref().unwrap_or(&[])
}

/// The measures the timeline has (none under a scenario: [`super::scenario_timeline`]).
fn measures(data: &RunData) -> Vec<Measure> {
    MEASURES
        .iter()
        .copied()
        .filter(|_| data.events.is_none())
        .filter(|(_, _, _, value)| rows(data).iter().any(|r| value(r).is_some()))
        .collect()
}

/// True for the measure whose windows are judged by their requests: a short window's hottest
/// node share leans to 100% (and an idle one's is 0), so only full windows are drawn
/// ([`is_full_window`], the rule of the hottest-over-time chart).
pub(super) fn full_windows_only(column: &str) -> bool {
    column == "hottest_node_share"
}

/// The point of a row on the x axis (its window, or its time).
pub(super) type XOf = fn(&TimelineCsvRow) -> Option<f64>;

/// A row's window on the x axis.
fn window_x(r: &TimelineCsvRow) -> Option<f64> {
    Some(r.window as f64)
}

/// One series per run of the timeline: `value` of its rows at `x`, full windows only when
/// `full_only`.
pub(super) fn series_of(
    data: &RunData,
    x: XOf,
    value: fn(&TimelineCsvRow) -> Option<f64>,
    full_only: bool,
) -> Vec<Series> {
    let mut labels: Vec<String> = Vec::new();
    for r in rows(data) {
        let series = r.series();
        if !labels.contains(&series) {
            labels.push(series);
        }
    }
    labels
        .iter()
        .enumerate()
        .map(|(i, label)| {
            let mine: Vec<&TimelineCsvRow> =
                rows(data).iter().filter(|r| r.series() == *label).collect();
            let fullest = mine.iter().filter_map(|r| r.requests).max().unwrap_or(0);
            let mut points: Vec<(f64, f64)> = mine
                .iter()
                .filter(|r| !full_only || r.requests.is_none_or(|q| is_full_window(q, fullest)))
                .filter_map(|r| Some((x(r)?, value(r)?)))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series {
                label: if label.is_empty() {
                    "timeline".into()
                } else {
                    label.to_string()
                },
                color: style::color(i),
                points,
                stroke: Stroke::Solid,
                whiskers: Vec::new(),
            }
        })
        .filter(|s| !s.points.is_empty())
        .collect()
}

/// True when some run's timeline holds a window left out of the hottest node's share.
fn has_short_windows(data: &RunData) -> bool {
    let (drawn, all) = (
        series_of(data, window_x, |r| r.hottest_node_share, true),
        series_of(data, window_x, |r| r.hottest_node_share, false),
    );
    let points = |s: &[Series]| s.iter().map(|s| s.points.len()).sum::<usize>();
    points(&drawn) < points(&all)
}

impl Chart for RangeTimeline {
    fn name(&self) -> &'static str {
        "range_timeline"
    }
    fn title(&self) -> &'static str {
        "Range dynamics over time"
    }
    fn scope(&self) -> Scope {
        Scope::Run
    }
    fn skip_reason(&self, input: &ChartInput<'_>) -> Option<String> {
        match &input.data.timeline {
            None => Some("the run has no timeline.csv (no range-dynamic scheme)".into()),
            Some(_) if input.data.events.is_some() => {
                Some("a scenario run: its timeline is drawn as the cluster over time".into())
            }
            Some(_) if measures(input.data).is_empty() => Some(
                "timeline.csv has none of the columns ranges, splits, merges, bytes_moved".into(),
            ),
            Some(_) => None,
        }
    }
    fn caption(&self, input: &ChartInput<'_>) -> String {
        let short = match has_short_windows(input.data) {
            true => " Windows with under half the requests of the fullest (a short last window, idle windows) are not drawn in the hottest node's share.",
            false => "",
        };
        format!("Per window of the range-dynamic replay: ranges in the cluster, splits and merges made, bytes moved by rebalancing.{short}")
    }
    fn size(&self, input: &ChartInput<'_>) -> (u32, u32) {
        style::grid_size(measures(input.data).len())
    }
    fn draw(&self, input: &ChartInput<'_>, root: &Canvas<'_>) -> DrawResult {
        let grid: Vec<LinePanel> = measures(input.data)
            .into_iter()
            .map(|(column, y_desc, y_format, value)| LinePanel {
                caption: column.replace('_', " "),
                x_desc: "window",
                y_desc,
                y_format,
                x_format: whole,
                y_from_zero: true,
                series: series_of(input.data, window_x, value, full_windows_only(column)),
            })
            .collect();
        style::draw_line_grid(root, "Range dynamics over time", &grid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hottest_node_share_leaves_out_windows_with_under_half_the_fullest_requests() {
        // A last window of 10 requests (its hottest node share leans to 100%) beside full
        // windows of about 2,000: drawn for the counts, not for the hottest node's share.
        let window = |w: u64, requests: u64, share: f64| TimelineCsvRow {
            window: w,
            ranges: Some(1),
            hottest_node_share: Some(share),
            requests: Some(requests),
            ..TimelineCsvRow::default()
        };
        let data = RunData {
            timeline: Some(vec![
                window(0, 2_000, 0.5),
                window(1, 1_000, 0.3),
                window(2, 10, 0.9),
            ]),
            ..RunData::default()
        };
        let shares = series_of(&data, window_x, |r| r.hottest_node_share, true);
        assert_eq!(shares[0].points, vec![(0.0, 0.5), (1.0, 0.3)]);
        let ranges = series_of(&data, window_x, |r| r.ranges.map(|v| v as f64), false);
        assert_eq!(ranges[0].points.len(), 3);
        assert!(has_short_windows(&data));
    }
}
