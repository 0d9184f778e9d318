//! Keys that change owner when the cluster goes from N to M shards, against M, one line per
//! scheme, with the least any scheme must move, |M-N|/max(M,N). One panel per N.

use super::style::{self, percent, whole, LinePanel, Series, Stroke};
use super::{Canvas, Chart, ChartInput, DrawResult, Scope};
use engine::metrics::registry::remap::REMAP_FRACTION;
use engine::metrics::remap::ideal;

/// Remap fraction against target shard count.
pub struct RemapChart;

/// Per source shard count N, one series per scheme of (M, remap fraction).
fn panels(input: &ChartInput<'_>) -> Vec<(u32, Vec<Series>)> {
    let (data, w) = (input.data, input.workload());
    let mut out: Vec<(u32, Vec<Series>)> = Vec::new();
    for n in data.shard_counts(w) {
        let mut lines = Vec::new();
        for scheme in data.schemes_at(w, n) {
            let mut points: Vec<(f64, f64)> = data
                .transitions(w, scheme, REMAP_FRACTION)
                .into_iter()
                .filter(|&(from, to, _)| from == n && to != n)
                .map(|(_, to, v)| (to as f64, v))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            if !points.is_empty() {
                // Points only: no line suggests a value at a count that was not measured.
                lines.push(Series {
                    label: scheme.to_string(),
                    color: style::scheme_color(data, scheme),
                    points,
                    stroke: Stroke::Points,
                    whiskers: Vec::new(),
                });
            }
        }
        if !lines.is_empty() {
            out.push((n, lines));
        }
    }
    out
}

/// The ideal remap over every whole M between the smallest and largest shard count shown.
fn ideal_series(n: u32, lines: &[Series]) -> Series {
    let targets = lines
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0 as u32));
    let lo = targets.clone().chain([n]).min().unwrap_or(n).max(1);
    let hi = targets.chain([n]).max().unwrap_or(n).max(lo + 1);
    Series {
        label: "ideal |M-N|/max(M,N)".into(),
        color: style::REFERENCE,
        // At most about 200 points, whatever the span of shard counts.
        points: (lo..=hi)
            .step_by(((hi - lo) / 200).max(1) as usize)
            .chain([hi])
            .map(|m| (m as f64, ideal(n, m)))
            .collect(),
        stroke: Stroke::Dashed,
        whiskers: Vec::new(),
    }
}

impl Chart for RemapChart {
    fn name(&self) -> &'static str {
        "remap"
    }
    fn title(&self) -> &'static str {
        "Keys moved on growth or shrink"
    }
    fn scope(&self) -> Scope {
        Scope::Workload
    }
    fn skip_reason(&self, input: &ChartInput<'_>) -> Option<String> {
        panels(input)
            .is_empty()
            .then(|| "the run measured no change of shard count (M = N)".into())
    }
    fn caption(&self, _input: &ChartInput<'_>) -> String {
        "Share of distinct keys whose owner changes from N to M shards, one marker per measured M; dashed: the least any scheme must move.".into()
    }
    fn size(&self, input: &ChartInput<'_>) -> (u32, u32) {
        style::grid_size(panels(input).len())
    }
    fn draw(&self, input: &ChartInput<'_>, root: &Canvas<'_>) -> DrawResult {
        let grid: Vec<LinePanel> = panels(input)
            .into_iter()
            .map(|(n, mut lines)| {
                lines.push(ideal_series(n, &lines));
                LinePanel {
                    caption: format!("from N = {n} shards"),
                    x_desc: "target shard count M",
                    y_desc: "keys moved (% of distinct keys)",
                    y_format: percent,
                    x_format: whole,
                    y_from_zero: true,
                    series: lines,
                }
            })
            .collect();
        let title = format!("Keys moved on resize: {}", input.workload());
        style::draw_line_grid(root, &title, &grid)
    }
}
