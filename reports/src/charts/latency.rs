//! Lookup latency percentiles (p50, p99, p99.9) per scheme, one panel per workload.

use engine::metrics::registry::latency::{LOOKUP_NS_P50, LOOKUP_NS_P99, LOOKUP_NS_P999};
use engine::metrics::MetricId;
use plotters::prelude::*;

use super::style::{self, font, LegendEntry, Mark};
use super::{Canvas, Chart, ChartInput, DrawResult, Scope};
use crate::data::RunData;

/// Lookup latency percentiles.
pub struct LatencyChart;

/// The percentiles drawn, with their metric names.
const PERCENTILES: [(&str, MetricId); 3] = [
    ("p50", LOOKUP_NS_P50),
    ("p99", LOOKUP_NS_P99),
    ("p99.9", LOOKUP_NS_P999),
];

/// A workload's schemes (at its first shard count) with their three percentiles, in ns.
type Panel<'a> = (&'a str, u32, Vec<(&'a str, [f64; 3])>);

fn panels(data: &RunData) -> Vec<Panel<'_>> {
    data.workloads()
        .into_iter()
        .filter_map(|w| {
            let n = data.base_shards(w)?;
            let bars: Vec<(&str, [f64; 3])> = data
                .schemes_at(w, n)
                .into_iter()
                .filter_map(|s| {
                    let v = |m: MetricId| data.metric(w, s, n, m);
                    Some((
                        s,
                        [
                            v(PERCENTILES[0].1)?,
                            v(PERCENTILES[1].1)?,
                            v(PERCENTILES[2].1)?,
                        ],
                    ))
                })
                .collect();
            (!bars.is_empty()).then_some((w, n, bars))
        })
        .collect()
}

impl Chart for LatencyChart {
    fn name(&self) -> &'static str {
        "latency"
    }
    fn title(&self) -> &'static str {
        "Lookup latency percentiles"
    }
    fn scope(&self) -> Scope {
        Scope::Run
    }
    fn skip_reason(&self, input: &ChartInput<'_>) -> Option<String> {
        panels(input.data)
            .is_empty()
            .then(|| "the run did not time lookups (--no-latency)".into())
    }
    fn caption(&self, _input: &ChartInput<'_>) -> String {
        "ns per shard_of lookup, single-threaded; percentiles of per-batch means, timer overhead subtracted. Timings vary between runs of the same input.".into()
    }
    fn size(&self, input: &ChartInput<'_>) -> (u32, u32) {
        style::grid_size(panels(input.data).len())
    }
    fn draw(&self, input: &ChartInput<'_>, root: &Canvas<'_>) -> DrawResult {
        let panels = panels(input.data);
        let legend: Vec<LegendEntry> = PERCENTILES
            .iter()
            .enumerate()
            .map(|(i, (label, _))| LegendEntry {
                label: label.to_string(),
                color: style::color(i),
                mark: Mark::Swatch,
            })
            .collect();
        let area = style::titled(root, "Lookup latency percentiles", &legend)?;
        let cells = style::panels(&area, panels.len());
        for ((workload, n, bars), cell) in panels.iter().zip(cells) {
            draw_panel(&format!("{workload} (N = {n})"), bars, &cell)?;
        }
        Ok(())
    }
}

fn draw_panel(caption: &str, bars: &[(&str, [f64; 3])], area: &Canvas<'_>) -> DrawResult {
    let names: Vec<&str> = bars.iter().map(|b| b.0).collect();
    // A log axis: one slow tail (p99.9) must not flatten every other bar. Its ticks are the
    // 1-2-5 values (or the powers of ten over many decades), one below the fastest bar, so
    // single-digit nanoseconds have a tick and no two labels crowd.
    let (y_min, y_max) = style::bounds(bars.iter().flat_map(|b| b.1).filter(|v| *v > 0.0));
    let (lo, hi, ticks) = style::log_axis(y_min.max(0.01), y_max.max(0.01), 8);
    let mut chart = style::panel_chart(area, caption, 64).build_cartesian_2d(
        -0.5..names.len() as f64 - 0.5,
        (lo..hi).log_scale().with_key_points(ticks),
    )?;
    let scheme_of = |v: &f64| style::category(&names, v);
    chart
        .configure_mesh()
        .x_desc("scheme")
        .y_desc("ns per lookup (log scale)")
        .y_label_formatter(&style::log_tick_label)
        .x_labels(names.len())
        .x_label_formatter(&scheme_of)
        .disable_x_mesh()
        .label_style(font(12))
        .axis_desc_style(font(13))
        .light_line_style(RGBColor(236, 236, 236))
        .draw()?;
    for p in 0..PERCENTILES.len() {
        let color = style::color(p);
        let rects = bars.iter().enumerate().map(|(i, b)| {
            let x = i as f64 - 0.36 + 0.24 * p as f64;
            Rectangle::new([(x, lo), (x + 0.22, b.1[p].max(lo))], color.filled())
        });
        chart.draw_series(rects)?;
    }
    Ok(())
}
