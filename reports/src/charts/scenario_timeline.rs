//! A cluster over time (`run --scenario`), from `timeline.csv` and `events.csv`: per window
//! start, the hottest node's share, the nodes up, the bytes moved, the keys waiting to move,
//! the requests throttled and the events unavailable, one panel per measure, one line per
//! scheme, every applied event marked by a vertical line.

use super::range_timeline::{full_windows_only, rows, series_of, XOf};
use super::style::{self, percent, whole, LinePanel, Series, Stroke};
use super::{Canvas, Chart, ChartInput, DrawResult, Scope};
use crate::data::RunData;
use crate::dynamic_csv::TimelineCsvRow;

/// A cluster over time under a scenario.
pub struct ScenarioTimeline;

/// A column drawn, with its axis label, tick format and value.
type Measure = (
    &'static str,
    &'static str,
    fn(&f64) -> String,
    fn(&TimelineCsvRow) -> Option<f64>,
);

const MEASURES: [Measure; 6] = [
    (
        "hottest_node_share",
        "hottest node's share (%)",
        percent,
        |r| r.hottest_node_share,
    ),
    ("nodes_up", "nodes answering", whole, |r| {
        r.nodes_up.map(|v| v as f64)
    }),
    ("moved_bytes", "bytes moved per window", whole, |r| {
        r.moved_bytes.map(|v| v as f64)
    }),
    ("pending_keys", "keys waiting to move", whole, |r| {
        r.pending_keys.map(|v| v as f64)
    }),
    ("throttled", "requests throttled per window", whole, |r| {
        r.throttled.map(|v| v as f64)
    }),
    ("unavailable", "events unavailable per window", whole, |r| {
        r.unavailable.map(|v| v as f64)
    }),
];

const TITLE: &str = "The cluster over time";

/// A window's start on the x axis.
const TIME: XOf = |r| r.time_secs;

/// The measures with a value other than 0 in some window (the others are named in the
/// caption).
fn measures(data: &RunData) -> Vec<Measure> {
    MEASURES
        .iter()
        .copied()
        .filter(|(_, _, _, value)| {
            rows(data)
                .iter()
                .any(|r| value(r).is_some_and(|v| v != 0.0))
        })
        .collect()
}

/// The times at which an event was applied to some scheme, in order, once each.
fn event_times(data: &RunData) -> Vec<f64> {
    let mut times: Vec<f64> = data
        .events
        .iter()
        .flatten()
        .filter(|e| e.outcome == "applied")
        .map(|e| e.applied_secs)
        .collect();
    times.sort_by(f64::total_cmp);
    times.dedup();
    times
}

/// The events as vertical lines over the height of `series`.
fn event_marks(times: &[f64], series: &[Series]) -> Series {
    let top = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0, f64::max);
    Series {
        label: "scenario event".into(),
        color: style::REFERENCE,
        points: Vec::new(),
        stroke: Stroke::Dashed,
        whiskers: times.iter().map(|&t| (t, 0.0, top)).collect(),
    }
}

impl Chart for ScenarioTimeline {
    fn name(&self) -> &'static str {
        "scenario_timeline"
    }
    fn title(&self) -> &'static str {
        TITLE
    }
    fn scope(&self) -> Scope {
        Scope::Run
    }
    fn skip_reason(&self, input: &ChartInput<'_>) -> Option<String> {
        if input.data.events.is_none() {
            return Some("the run has no events.csv (no --scenario)".into());
        }
        if !rows(input.data).iter().any(|r| r.time_secs.is_some()) {
            return Some("timeline.csv has no time_secs column".into());
        }
        None
    }
    fn caption(&self, input: &ChartInput<'_>) -> String {
        let drawn: Vec<&str> = measures(input.data).iter().map(|m| m.0).collect();
        let zero: Vec<String> = MEASURES
            .iter()
            .filter(|m| !drawn.contains(&m.0))
            .map(|m| m.0.replace('_', " "))
            .collect();
        let zero = match zero.is_empty() {
            true => String::new(),
            false => format!(" Always 0, not drawn: {}.", zero.join(", ")),
        };
        let mut events: Vec<(f64, String)> = Vec::new();
        for e in input.data.events.iter().flatten() {
            let event = (e.applied_secs, format!("{} s {}", e.applied_secs, e.action));
            if !events.contains(&event) {
                events.push(event);
            }
        }
        events.sort_by(|a, b| a.0.total_cmp(&b.0));
        let events: Vec<String> = events.into_iter().map(|e| e.1).collect();
        format!(
            "Per window of the scenario replay, at the window's start (seconds from the first event, or event positions without timestamps); vertical lines mark the events applied ({}). The hottest node's share leaves out windows with under half the requests of the fullest.{zero}",
            events.join("; ")
        )
    }
    fn size(&self, input: &ChartInput<'_>) -> (u32, u32) {
        style::grid_size(measures(input.data).len().max(1))
    }
    fn draw(&self, input: &ChartInput<'_>, root: &Canvas<'_>) -> DrawResult {
        let times = event_times(input.data);
        let grid: Vec<LinePanel> = measures(input.data)
            .into_iter()
            .map(|(column, y_desc, y_format, value)| {
                let mut series = series_of(input.data, TIME, value, full_windows_only(column));
                series.push(event_marks(&times, &series));
                LinePanel {
                    caption: column.replace('_', " "),
                    x_desc: "time (s from the first event)",
                    y_desc,
                    y_format,
                    x_format: whole,
                    y_from_zero: true,
                    series,
                }
            })
            .collect();
        style::draw_line_grid(root, TITLE, &grid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamic_csv::EventCsvRow;

    #[test]
    fn events_are_marked_once_over_the_panel_and_zero_measures_are_left_out() {
        let row = |w: u64, t: f64, moved: u64| TimelineCsvRow {
            window: w,
            time_secs: Some(t),
            hottest_node_share: Some(0.3),
            requests: Some(100),
            moved_bytes: Some(moved),
            throttled: Some(0),
            scheme: Some("hash".into()),
            ..TimelineCsvRow::default()
        };
        let event = |scheme: &str| EventCsvRow {
            applied_secs: 10.0,
            action: "add 1".into(),
            outcome: "applied".into(),
            scheme: scheme.into(),
            ..EventCsvRow::default()
        };
        let data = RunData {
            timeline: Some(vec![row(0, 0.0, 0), row(1, 10.0, 500), row(2, 20.0, 0)]),
            events: Some(vec![event("hash"), event("ring")]),
            ..RunData::default()
        };
        let drawn: Vec<&str> = measures(&data).iter().map(|m| m.0).collect();
        assert_eq!(drawn, ["hottest_node_share", "moved_bytes"]);
        let times = event_times(&data);
        assert_eq!(times, [10.0]);
        let moved = series_of(&data, TIME, |r| r.moved_bytes.map(|v| v as f64), false);
        assert_eq!(moved[0].points, [(0.0, 0.0), (10.0, 500.0), (20.0, 0.0)]);
        assert_eq!(event_marks(&times, &moved).whiskers, [(10.0, 0.0, 500.0)]);
        let input = ChartInput {
            data: &data,
            workload: None,
        };
        assert!(ScenarioTimeline.skip_reason(&input).is_none());
        assert!(ScenarioTimeline.caption(&input).contains("10 s add 1"));
        assert!(ScenarioTimeline
            .caption(&input)
            .contains("not drawn: nodes up"));
    }
}
