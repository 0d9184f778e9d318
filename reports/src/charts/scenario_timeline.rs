//! A cluster over time (`run --scenario`), from `timeline.csv` read as numbers and
//! `events.csv`: per window start, the busiest node's share, the nodes up, the bytes moved,
//! the keys waiting to move, the requests throttled and the events unavailable, one panel per
//! measure, one line per scheme, every applied event marked by a vertical line.

use super::layout_timeline::{format_of, series_of};
use super::style::{self, whole, LinePanel, Series, Stroke};
use super::{Canvas, Chart, ChartInput, DrawResult, Scope};
use crate::data::RunData;
use crate::timeline_table::TimelineTable;

/// A cluster over time under a scenario.
pub struct ScenarioTimeline;

/// The columns drawn, in order, with their axis labels.
const MEASURES: [(&str, &str); 6] = [
    ("hottest_node_share", "hottest node's share (%)"),
    ("nodes_up", "nodes answering"),
    ("moved_bytes", "bytes moved per window"),
    ("pending_keys", "keys waiting to move"),
    ("throttled", "requests throttled per window"),
    ("unavailable", "events unavailable per window"),
];

const TITLE: &str = "The cluster over time";

/// The x axis: a window's start.
const TIME: &str = "time_secs";

/// The timeline of a scenario run, when it has its window starts.
fn table(data: &RunData) -> Option<&TimelineTable> {
    let t = data.timeline_table.as_ref()?;
    (data.events.is_some() && t.column(TIME).is_some()).then_some(t)
}

/// The measures with a value other than 0 in some window, with their column and label (the
/// others are named in the caption).
fn measures(t: &TimelineTable) -> Vec<(usize, &'static str, &'static str)> {
    let varying = t.varying();
    MEASURES
        .iter()
        .filter_map(|&(name, label)| {
            let c = t.column(name)?;
            varying.contains(&c).then_some((c, name, label))
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
        match table(input.data) {
            Some(_) => None,
            None if input.data.events.is_none() => {
                Some("the run has no events.csv (no --scenario)".into())
            }
            None => Some("timeline.csv has no time_secs column".into()),
        }
    }
    fn caption(&self, input: &ChartInput<'_>) -> String {
        let Some(t) = table(input.data) else {
            return String::new();
        };
        let drawn: Vec<&str> = measures(t).iter().map(|m| m.1).collect();
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
        style::grid_size(table(input.data).map_or(1, |t| measures(t).len().max(1)))
    }
    fn draw(&self, input: &ChartInput<'_>, root: &Canvas<'_>) -> DrawResult {
        let Some(t) = table(input.data) else {
            return Ok(());
        };
        let times = event_times(input.data);
        let Some(time) = t.column(TIME) else {
            return Ok(());
        };
        let x = |r: &crate::timeline_table::TimelineRow| r.values[time];
        let grid: Vec<LinePanel> = measures(t)
            .into_iter()
            .map(|(c, name, y_desc)| {
                let mut series = series_of(t, &x, c);
                series.push(event_marks(&times, &series));
                LinePanel {
                    caption: name.replace('_', " "),
                    x_desc: "time (s from the first event)",
                    y_desc,
                    y_format: format_of(t, c),
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
    use std::path::Path;

    #[test]
    fn events_are_marked_once_over_the_panel_and_zero_measures_are_left_out() {
        let text =
            "window,time_secs,requests,hottest_node_share,nodes_up,throttled,moved_bytes,scheme\n\
                    0,0,100,0.3,4,0,0,hash\n1,10,100,0.3,4,0,500,hash\n2,20,100,0.3,4,0,0,hash\n";
        let event = |scheme: &str| EventCsvRow {
            applied_secs: 10.0,
            action: "add 1".into(),
            outcome: "applied".into(),
            scheme: scheme.into(),
            ..EventCsvRow::default()
        };
        let data = RunData {
            timeline_table: Some(
                TimelineTable::of(
                    Path::new("timeline.csv"),
                    &crate::layout_tables::TextTable::parse(
                        Path::new("timeline.csv"),
                        text.as_bytes(),
                    )
                    .unwrap(),
                )
                .unwrap(),
            ),
            events: Some(vec![event("hash"), event("ring")]),
            ..RunData::default()
        };
        let t = table(&data).unwrap();
        let drawn: Vec<&str> = measures(t).iter().map(|m| m.1).collect();
        assert_eq!(drawn, ["hottest_node_share", "nodes_up", "moved_bytes"]);
        let times = event_times(&data);
        assert_eq!(times, [10.0]);
        let time = t.column(TIME).unwrap();
        let moved = series_of(t, &|r| r.values[time], t.column("moved_bytes").unwrap());
        assert_eq!(moved[0].points, [(0.0, 0.0), (10.0, 500.0), (20.0, 0.0)]);
        assert_eq!(event_marks(&times, &moved).whiskers, [(10.0, 0.0, 500.0)]);
        let input = ChartInput {
            data: &data,
            workload: None,
        };
        assert!(ScenarioTimeline.skip_reason(&input).is_none());
        let caption = ScenarioTimeline.caption(&input);
        assert!(caption.contains("10 s add 1"), "{caption}");
        assert!(
            caption.contains("not drawn: pending keys, throttled"),
            "{caption}"
        );
    }
}
