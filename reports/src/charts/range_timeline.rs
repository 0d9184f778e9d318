//! Range dynamics over time, from `timeline.csv`: ranges, splits, merges, bytes moved (and the
//! hottest node's share when recorded), one panel per measure, one line per series.

use super::style::{self, percent, whole, LinePanel, Series, Stroke};
use super::{Canvas, Chart, ChartInput, DrawResult, Scope};
use crate::data::RunData;
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

fn rows(data: &RunData) -> &[TimelineCsvRow] {
    data.timeline.as_deref().unwrap_or(&[])
}

/// The measures the timeline has.
fn measures(data: &RunData) -> Vec<Measure> {
    MEASURES
        .iter()
        .copied()
        .filter(|(_, _, _, value)| rows(data).iter().any(|r| value(r).is_some()))
        .collect()
}

fn series_of(data: &RunData, value: fn(&TimelineCsvRow) -> Option<f64>) -> Vec<Series> {
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
            let mut points: Vec<(f64, f64)> = rows(data)
                .iter()
                .filter(|r| r.series() == *label)
                .filter_map(|r| Some((r.window as f64, value(r)?)))
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
            Some(_) if measures(input.data).is_empty() => Some(
                "timeline.csv has none of the columns ranges, splits, merges, bytes_moved".into(),
            ),
            Some(_) => None,
        }
    }
    fn caption(&self, _input: &ChartInput<'_>) -> String {
        "Per window of the range-dynamic replay: ranges in the cluster, splits and merges made, bytes moved by rebalancing.".into()
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
                series: series_of(input.data, value),
            })
            .collect();
        style::draw_line_grid(root, "Range dynamics over time", &grid)
    }
}
