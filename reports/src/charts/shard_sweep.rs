//! Hottest-shard share against shard count N, one line per scheme, one panel per workload run
//! with two or more shard counts, with the fair share 1/N.

use super::style::{self, percent, whole, LinePanel, Series, Stroke};
use super::sweep::metric_lines;
use super::{Canvas, Chart, ChartInput, DrawResult, Scope};
use crate::data::RunData;
use engine::metrics::registry::load::HOTTEST_SHARD_SHARE;

/// Hottest-shard share against shard count.
pub struct ShardSweep;

fn panels(data: &RunData) -> Vec<(&str, Vec<u32>, Vec<Series>)> {
    let mut out = Vec::new();
    for w in data.workloads() {
        let mut counts = data.shard_counts(w);
        counts.sort_unstable();
        if counts.len() < 2 {
            continue;
        }
        let at: Vec<(f64, &str, u32)> = counts.iter().map(|&n| (n as f64, w, n)).collect();
        let lines = metric_lines(data, HOTTEST_SHARD_SHARE, &at);
        if !lines.is_empty() {
            out.push((w, counts, lines));
        }
    }
    out
}

impl Chart for ShardSweep {
    fn name(&self) -> &'static str {
        "shard_sweep"
    }
    fn title(&self) -> &'static str {
        "Hottest-shard share against shard count"
    }
    fn scope(&self) -> Scope {
        Scope::Run
    }
    fn skip_reason(&self, input: &ChartInput<'_>) -> Option<String> {
        panels(input.data).is_empty().then(|| {
            "the run has one shard count per workload (sweep with e.g. --shards 4,8,16,32)".into()
        })
    }
    fn caption(&self, _input: &ChartInput<'_>) -> String {
        "The hottest shard's share of all requests at each shard count; dashed: fair share 1/N, which a perfect spread follows.".into()
    }
    fn size(&self, input: &ChartInput<'_>) -> (u32, u32) {
        style::grid_size(panels(input.data).len())
    }
    fn draw(&self, input: &ChartInput<'_>, root: &Canvas<'_>) -> DrawResult {
        let grid: Vec<LinePanel> = panels(input.data)
            .into_iter()
            .map(|(workload, counts, mut lines)| {
                lines.push(Series {
                    label: "fair share 1/N".into(),
                    color: style::REFERENCE,
                    points: counts.iter().map(|&n| (n as f64, 1.0 / n as f64)).collect(),
                    stroke: Stroke::Dashed,
                    whiskers: Vec::new(),
                });
                LinePanel {
                    caption: workload.to_string(),
                    x_desc: "shard count N",
                    y_desc: "hottest shard's share (%)",
                    y_format: percent,
                    x_format: whole,
                    y_from_zero: true,
                    series: lines,
                }
            })
            .collect();
        style::draw_line_grid(root, "Hottest-shard share against shard count N", &grid)
    }
}
