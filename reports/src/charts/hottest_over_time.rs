//! The hottest shard's share of each window's requests, one line per scheme: a monotonic hot
//! spot is a line near 100% however many shards there are.

use super::loads::windowed_loads;
use super::style::{self, percent, whole, LinePanel, Series, Stroke};
use super::{Canvas, Chart, ChartInput, DrawResult, Scope};

/// Hottest-shard share over time.
pub struct HottestOverTime;

/// One series per scheme with windows, and the shard count they share.
fn series(input: &ChartInput<'_>) -> (u32, Vec<Series>) {
    let (data, w) = (input.data, input.workload());
    let Some(n) = data.base_shards(w) else {
        return (0, vec![]);
    };
    let lines = windowed_loads(input)
        .into_iter()
        .map(|l| Series {
            label: l.scheme.clone(),
            color: style::scheme_color(data, &l.scheme),
            points: l
                .window_hottest_share
                .iter()
                .copied()
                .enumerate()
                .map(|(i, v)| (i as f64, v))
                .collect(),
            stroke: Stroke::Solid,
            whiskers: Vec::new(),
        })
        .collect();
    (n, lines)
}

impl Chart for HottestOverTime {
    fn name(&self) -> &'static str {
        "hottest_over_time"
    }
    fn title(&self) -> &'static str {
        "Hottest-shard share over time"
    }
    fn scope(&self) -> Scope {
        Scope::Workload
    }
    fn skip_reason(&self, input: &ChartInput<'_>) -> Option<String> {
        series(input)
            .1
            .is_empty()
            .then(|| "windows.csv has no rows for this workload".into())
    }
    fn caption(&self, input: &ChartInput<'_>) -> String {
        let (n, _) = series(input);
        format!("In each window of events, the share of requests taken by that window's hottest shard, N = {n}; dashed: fair share 1/N.")
    }
    fn size(&self, _input: &ChartInput<'_>) -> (u32, u32) {
        style::grid_size(1)
    }
    fn draw(&self, input: &ChartInput<'_>, root: &Canvas<'_>) -> DrawResult {
        let (n, mut lines) = series(input);
        let last = lines
            .iter()
            .map(|s| s.points.len())
            .max()
            .unwrap_or(1)
            .saturating_sub(1) as f64;
        let fair = 1.0 / n.max(1) as f64;
        lines.push(Series {
            label: format!("fair share {}", percent(&fair)),
            color: style::REFERENCE,
            points: vec![(0.0, fair), (last, fair)],
            stroke: Stroke::Dashed,
            whiskers: Vec::new(),
        });
        let legend = style::legend_of(&lines);
        let area = style::titled(
            root,
            &format!("Hottest-shard share over time: {}", input.workload()),
            &legend,
        )?;
        style::draw_line_panel(
            &area,
            &LinePanel {
                caption: format!("N = {n}"),
                x_desc: "window (index of --window events)",
                y_desc: "hottest shard's share (%)",
                y_format: percent,
                x_format: whole,
                y_from_zero: true,
                series: lines,
            },
        )
    }
}
