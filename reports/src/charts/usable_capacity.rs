//! Usable capacity against shard count, one line per scheme with its 95% interval: the
//! figure the recommendation ranks on.

use super::style::{self, percent, whole, LinePanel, Series};
use super::sweep::metric_lines;
use super::{Canvas, Chart, ChartInput, DrawResult, Scope};
use engine::metrics::registry::load::USABLE_CAPACITY;

/// Usable capacity per scheme and shard count.
pub struct UsableCapacityChart;

fn lines(input: &ChartInput<'_>) -> Vec<Series> {
    let (data, w) = (input.data, input.workload());
    let mut counts = data.shard_counts(w);
    counts.sort_unstable();
    let at: Vec<(f64, &str, u32)> = counts.iter().map(|&n| (n as f64, w, n)).collect();
    metric_lines(data, USABLE_CAPACITY, &at)
}

impl Chart for UsableCapacityChart {
    fn name(&self) -> &'static str {
        "usable_capacity"
    }
    fn title(&self) -> &'static str {
        "Usable capacity"
    }
    fn scope(&self) -> Scope {
        Scope::Workload
    }
    fn skip_reason(&self, input: &ChartInput<'_>) -> Option<String> {
        lines(input)
            .is_empty()
            .then(|| "summary.csv has no usable_capacity rows for this workload".into())
    }
    fn caption(&self, _input: &ChartInput<'_>) -> String {
        "Share of the cluster usable before the hottest shard saturates, 1 / (N × hottest windowed share × requests per event), at each shard count; vertical bars: 95% intervals where estimated.".into()
    }
    fn size(&self, _input: &ChartInput<'_>) -> (u32, u32) {
        style::grid_size(1)
    }
    fn draw(&self, input: &ChartInput<'_>, root: &Canvas<'_>) -> DrawResult {
        let panel = LinePanel {
            caption: input.workload().to_string(),
            x_desc: "shard count N",
            y_desc: "usable capacity (%)",
            y_format: percent,
            x_format: whole,
            y_from_zero: true,
            series: lines(input),
        };
        style::draw_line_grid(
            root,
            &format!("Usable capacity: {}", input.workload()),
            &[panel],
        )
    }
}
