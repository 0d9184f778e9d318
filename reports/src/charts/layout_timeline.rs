//! Changing layouts over time, from `timeline.csv` read as numbers ([`TimelineTable`]): one
//! panel per column the layout measured (the busiest node's share first, then the layout's
//! own columns in file order, such as range-dynamic's ranges, splits and merges or citus's
//! shard moves), one line per run, x the window. Any layout's columns are drawn with nothing
//! else touched; a scenario run's timeline is drawn by [`super::scenario_timeline`].

use super::style::{self, percent, whole, LinePanel, Series, Stroke};
use super::{Canvas, Chart, ChartInput, DrawResult, Scope};
use crate::data::{is_full_window, RunData};
use crate::timeline_table::{TimelineRow, TimelineTable};

/// Changing layouts over time.
pub struct LayoutTimeline;

const TITLE: &str = "Changing layouts over time";

/// The most panels drawn; further columns are named in the caption.
pub const MAX_PANELS: usize = 12;

/// The busiest node's share: its windows are judged by their requests (a short window's
/// share leans to 100%, an idle one's is 0), so only full windows are drawn ([`is_full_window`],
/// the rule of the hottest-over-time chart).
const SHARE: &str = "hottest_node_share";

/// Where a row stands on the x axis (its window, or the value of a column).
pub(super) type XOf<'t> = &'t dyn Fn(&TimelineRow) -> Option<f64>;

/// One series per run of `table`: column `column` at `x`, full windows only for the busiest
/// node's share.
pub(super) fn series_of(table: &TimelineTable, x: XOf<'_>, column: usize) -> Vec<Series> {
    let full_only = table.columns[column] == SHARE;
    let mut labels: Vec<&str> = Vec::new();
    for r in &table.rows {
        if !labels.contains(&r.series.as_str()) {
            labels.push(&r.series);
        }
    }
    labels
        .iter()
        .enumerate()
        .map(|(i, label)| {
            let mine: Vec<&TimelineRow> =
                table.rows.iter().filter(|r| r.series == *label).collect();
            let fullest = mine.iter().filter_map(|r| r.requests).max().unwrap_or(0);
            let mut points: Vec<(f64, f64)> = mine
                .iter()
                .filter(|r| !full_only || r.requests.is_none_or(|q| is_full_window(q, fullest)))
                .filter_map(|r| Some((x(r)?, r.values[column]?)))
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

/// The tick format of `column`: shares as percentages, whole numbers as such, else decimals.
pub(super) fn format_of(table: &TimelineTable, column: usize) -> fn(&f64) -> String {
    let name = &table.columns[column];
    let values = || table.rows.iter().filter_map(|r| r.values[column]);
    if name.ends_with("_share") {
        percent
    } else if values().all(|v| v.fract() == 0.0) {
        whole
    } else {
        style::decimal
    }
}

/// The y axis label of `column`, with its unit: a share in percent, else a count per window.
fn y_desc(column: &str) -> String {
    match column.strip_suffix("_share") {
        Some(what) => format!("{} share (%)", what.replace('_', " ")),
        None => format!("{} (per window)", column.replace('_', " ")),
    }
}

/// The table of a run that is not a scenario's.
fn table(data: &RunData) -> Option<&TimelineTable> {
    data.timeline_table
        .as_ref()
        .filter(|_| data.events.is_none())
}

/// The columns drawn, busiest node's share first, at most [`MAX_PANELS`]; and those left out
/// for room.
fn panels(table: &TimelineTable) -> (Vec<usize>, Vec<usize>) {
    let mut varying = table.varying();
    if let Some(i) = varying.iter().position(|&c| table.columns[c] == SHARE) {
        let share = varying.remove(i);
        varying.insert(0, share);
    }
    let rest = varying.split_off(varying.len().min(MAX_PANELS));
    (varying, rest)
}

/// True when some run's timeline holds a window left out of the busiest node's share.
fn has_short_windows(table: &TimelineTable) -> bool {
    let Some(share) = table.column(SHARE) else {
        return false;
    };
    let drawn: usize = series_of(table, &window_x, share)
        .iter()
        .map(|s| s.points.len())
        .sum();
    let all = table
        .rows
        .iter()
        .filter(|r| r.values[share].is_some())
        .count();
    drawn < all
}

fn window_x(r: &TimelineRow) -> Option<f64> {
    Some(r.window as f64)
}

impl Chart for LayoutTimeline {
    fn name(&self) -> &'static str {
        "layout_timeline"
    }
    fn title(&self) -> &'static str {
        TITLE
    }
    fn scope(&self) -> Scope {
        Scope::Run
    }
    fn skip_reason(&self, input: &ChartInput<'_>) -> Option<String> {
        let data = input.data;
        match table(data) {
            None if data.timeline_table.is_some() => {
                Some("a scenario run: its timeline is drawn as the cluster over time".into())
            }
            None => Some("the run has no timeline.csv (no changing layout)".into()),
            Some(t) if panels(t).0.is_empty() => {
                Some("every measured column of timeline.csv is 0 or empty".into())
            }
            Some(_) => None,
        }
    }
    fn caption(&self, input: &ChartInput<'_>) -> String {
        let Some(t) = table(input.data) else {
            return String::new();
        };
        let (drawn, rest) = panels(t);
        let names = |cs: &[usize]| {
            cs.iter()
                .map(|&c| t.columns[c].replace('_', " "))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let zero: Vec<usize> = (0..t.columns.len())
            .filter(|c| !drawn.contains(c) && !rest.contains(c))
            .filter(|&c| t.rows.iter().any(|r| r.values[c].is_some()))
            .collect();
        let mut text = format!(
            "Per window of each changing layout's replay (timeline.csv): {}.",
            names(&drawn)
        );
        if !rest.is_empty() {
            text.push_str(&format!(
                " Not drawn for room: {} (timeline.csv has them).",
                names(&rest)
            ));
        }
        if !zero.is_empty() {
            text.push_str(&format!(" Always 0: {}.", names(&zero)));
        }
        if has_short_windows(t) {
            text.push_str(" Windows with under half the requests of the fullest (a short last window, idle windows) are not drawn in the hottest node's share.");
        }
        text
    }
    fn size(&self, input: &ChartInput<'_>) -> (u32, u32) {
        style::grid_size(table(input.data).map_or(1, |t| panels(t).0.len().max(1)))
    }
    fn draw(&self, input: &ChartInput<'_>, root: &Canvas<'_>) -> DrawResult {
        let Some(t) = table(input.data) else {
            return Ok(());
        };
        let drawn = panels(t).0;
        let units: Vec<String> = drawn.iter().map(|&c| y_desc(&t.columns[c])).collect();
        let grid: Vec<LinePanel> = drawn
            .into_iter()
            .zip(&units)
            .map(|(c, y_desc)| LinePanel {
                caption: t.columns[c].replace('_', " "),
                x_desc: "window (index)",
                y_desc,
                y_format: format_of(t, c),
                x_format: whole,
                y_from_zero: true,
                series: series_of(t, &window_x, c),
            })
            .collect();
        style::draw_line_grid(root, TITLE, &grid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn table(text: &str) -> TimelineTable {
        let path = Path::new("timeline.csv");
        let text = crate::layout_tables::TextTable::parse(path, text.as_bytes());
        TimelineTable::of(path, &text.unwrap()).unwrap()
    }

    #[test]
    fn the_busiest_node_share_comes_first_and_leaves_out_short_windows() {
        // A last window of 10 requests (its share leans to 100%) beside full ones of 2,000.
        let t = table(
            "window,ranges,requests,hottest_node_share,refusals\n\
             0,1,2000,0.5,0\n1,2,1000,0.3,0\n2,2,10,0.9,0\n",
        );
        let (drawn, rest) = panels(&t);
        assert_eq!(drawn, [1, 0]);
        assert!(rest.is_empty());
        let shares = series_of(&t, &window_x, 1);
        assert_eq!(shares[0].points, [(0.0, 0.5), (1.0, 0.3)]);
        assert_eq!(series_of(&t, &window_x, 0)[0].points.len(), 3);
        assert!(has_short_windows(&t));
        assert_eq!(format_of(&t, 1)(&0.5), "50%");
        assert_eq!(format_of(&t, 0)(&2.0), "2");
    }

    #[test]
    fn columns_past_the_room_are_named_not_drawn() {
        let header: Vec<String> = (0..15).map(|i| format!("c{i}")).collect();
        let row: Vec<&str> = vec!["1"; 15];
        let t = table(&format!(
            "window,{}\n0,{}\n",
            header.join(","),
            row.join(",")
        ));
        let (drawn, rest) = panels(&t);
        assert_eq!((drawn.len(), rest.len()), (MAX_PANELS, 3));
    }
}
