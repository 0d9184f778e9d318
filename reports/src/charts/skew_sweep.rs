//! Hottest-shard share against Zipf skew `s`, one line per scheme: one panel per workload
//! family (label without `s`) and shard count, drawn only where the run swept `s`.

use super::style::{self, percent, LinePanel, Series};
use super::sweep::{flat_reference, metric_lines};
use super::{Canvas, Chart, ChartInput, DrawResult, Scope};
use crate::data::RunData;
use engine::metrics::registry::load::HOTTEST_SHARD_SHARE;

/// Hottest-shard share against skew.
pub struct SkewSweep;

/// Panels of families with at least two values of `s`.
fn panels(data: &RunData) -> Vec<(String, u32, Vec<Series>)> {
    let mut out = Vec::new();
    for family in data
        .families("s", None)
        .into_iter()
        .filter(|f| f.is_sweep())
    {
        let (family, members) = (family.label, family.members);
        let mut counts: Vec<u32> = members
            .iter()
            .flat_map(|(_, w)| data.shard_counts(w))
            .collect();
        counts.sort_unstable();
        counts.dedup();
        for n in counts {
            let at: Vec<(f64, &str, u32)> = members.iter().map(|&(s, w)| (s, w, n)).collect();
            let lines = metric_lines(data, HOTTEST_SHARD_SHARE, &at);
            if !lines.is_empty() {
                out.push((family.clone(), n, lines));
            }
        }
    }
    out
}

impl Chart for SkewSweep {
    fn name(&self) -> &'static str {
        "skew_sweep"
    }
    fn title(&self) -> &'static str {
        "Hottest-shard share against skew"
    }
    fn scope(&self) -> Scope {
        Scope::Run
    }
    fn skip_reason(&self, input: &ChartInput<'_>) -> Option<String> {
        panels(input.data).is_empty().then(|| {
            "the run has no skew sweep (no workload family with two or more values of s, e.g. --workload zipf:s=0.6,0.8,1.0)".into()
        })
    }
    fn caption(&self, _input: &ChartInput<'_>) -> String {
        "The hottest shard's share of all requests as the Zipf exponent s grows; dashed: fair share 1/N.".into()
    }
    fn size(&self, input: &ChartInput<'_>) -> (u32, u32) {
        style::grid_size(panels(input.data).len())
    }
    fn draw(&self, input: &ChartInput<'_>, root: &Canvas<'_>) -> DrawResult {
        let grid: Vec<LinePanel> = panels(input.data)
            .into_iter()
            .map(|(family, n, mut lines)| {
                lines.push(flat_reference("fair share 1/N", &lines, 1.0 / n as f64));
                LinePanel {
                    caption: format!("{family} (N = {n})"),
                    x_desc: "Zipf exponent s",
                    y_desc: "hottest shard's share (%)",
                    y_format: percent,
                    x_format: |v| format!("{v:.2}"),
                    y_from_zero: true,
                    series: lines,
                }
            })
            .collect();
        style::draw_line_grid(root, "Hottest-shard share against skew s", &grid)
    }
}
