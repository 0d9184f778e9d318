//! Range dynamics over time, from `timeline.csv`: ranges, splits, merges, bytes moved (and the
//! hottest node's share when recorded), one panel per measure, one line per series.

use super::style::{self, percent, whole, LinePanel, Series, Stroke};
use super::{Canvas, Chart, ChartInput, DrawResult, Scope};
use crate::data::{RunData, TimelineRow};

/// Range dynamics over time.
pub struct RangeTimeline;

/// A column drawn, with its axis label and tick format.
type Measure = (&'static str, &'static str, fn(&f64) -> String);

/// Columns drawn, with their axis label and tick format.
const MEASURES: [Measure; 5] = [
    ("ranges", "ranges", whole),
    ("splits", "splits per window", whole),
    ("merges", "merges per window", whole),
    ("bytes_moved", "bytes moved per window", whole),
    ("hottest_node_share", "hottest node's share (%)", percent),
];

fn rows(data: &RunData) -> &[TimelineRow] {
    data.timeline.as_deref().unwrap_or(&[])
}

/// The measures the timeline has.
fn measures(data: &RunData) -> Vec<Measure> {
    MEASURES
        .iter()
        .copied()
        .filter(|(c, _, _)| rows(data).iter().any(|r| r.values.contains_key(*c)))
        .collect()
}

fn series_of(data: &RunData, column: &str) -> Vec<Series> {
    let mut labels: Vec<&str> = Vec::new();
    for r in rows(data) {
        if !labels.contains(&r.series.as_str()) {
            labels.push(&r.series);
        }
    }
    labels
        .iter()
        .enumerate()
        .map(|(i, label)| {
            let mut points: Vec<(f64, f64)> = rows(data)
                .iter()
                .filter(|r| r.series == *label)
                .filter_map(|r| Some((r.window as f64, *r.values.get(column)?)))
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
            .map(|(column, y_desc, y_format)| LinePanel {
                caption: column.replace('_', " "),
                x_desc: "window",
                y_desc,
                y_format,
                x_format: whole,
                y_from_zero: true,
                series: series_of(input.data, column),
            })
            .collect();
        style::draw_line_grid(root, "Range dynamics over time", &grid)
    }
}
