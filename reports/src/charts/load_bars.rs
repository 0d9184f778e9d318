//! Requests per shard over the whole trace: bars, one panel per scheme, with the fair share.

use engine::metrics::registry::traffic::REQUESTS;
use plotters::prelude::*;

use super::loads::base_loads;
use super::style::{self, font, percent, thousands, whole, LegendEntry, Mark, Stroke};
use super::{Canvas, Chart, ChartInput, DrawResult, Scope};
use crate::data::SchemeLoad;

/// Per-shard load bars.
pub struct LoadBars;

impl Chart for LoadBars {
    fn name(&self) -> &'static str {
        "load_bars"
    }
    fn title(&self) -> &'static str {
        "Requests per shard"
    }
    fn scope(&self) -> Scope {
        Scope::Workload
    }
    fn skip_reason(&self, input: &ChartInput<'_>) -> Option<String> {
        base_loads(input)
            .is_empty()
            .then(|| "shards.csv has no rows for this workload".into())
    }
    fn caption(&self, input: &ChartInput<'_>) -> String {
        let n = input.data.base_shards(input.workload()).unwrap_or(0);
        format!("Share of all requests each shard received, N = {n}; the dashed line is the fair share 1/N.")
    }
    fn size(&self, input: &ChartInput<'_>) -> (u32, u32) {
        style::grid_size(base_loads(input).len())
    }
    fn draw(&self, input: &ChartInput<'_>, root: &Canvas<'_>) -> DrawResult {
        let loads = base_loads(input);
        let mut legend: Vec<LegendEntry> = loads
            .iter()
            .map(|l| LegendEntry {
                label: l.scheme.clone(),
                color: style::scheme_color(input.data, &l.scheme),
                mark: Mark::Swatch,
            })
            .collect();
        legend.push(LegendEntry {
            label: "fair share 1/N".into(),
            color: style::REFERENCE,
            mark: Mark::Line(Stroke::Dashed),
        });
        let area = style::titled(
            root,
            &format!("Requests per shard: {}", input.workload()),
            &legend,
        )?;
        let y_max = loads
            .iter()
            .flat_map(|l| l.shard_share.iter().copied())
            .fold(0.0f64, f64::max);
        for (load, panel) in loads.iter().zip(style::panels(&area, loads.len())) {
            draw_panel(input, load, &panel, y_max)?;
        }
        Ok(())
    }
}

fn draw_panel(
    input: &ChartInput<'_>,
    load: &SchemeLoad,
    area: &Canvas<'_>,
    y_max: f64,
) -> DrawResult {
    let n = load.shards as f64;
    let fair = 1.0 / n;
    let color = style::scheme_color(input.data, &load.scheme);
    let requests = input
        .data
        .metric(&load.workload, &load.scheme, load.shards, REQUESTS)
        .map_or("?".into(), |r| thousands(r.round() as u64));
    let caption = format!("{}: {requests} requests", load.scheme);
    let mut chart = style::panel_chart(area, &caption, 64)
        .build_cartesian_2d(-0.5..n - 0.5, style::padded(0.0, y_max.max(fair), true))?;
    chart
        .configure_mesh()
        .x_desc("shard")
        .y_desc("share of requests (%)")
        .x_labels(load.shards.min(16) as usize)
        .x_label_formatter(&whole)
        .y_label_formatter(&percent)
        .disable_x_mesh()
        .label_style(font(12))
        .axis_desc_style(font(13))
        .light_line_style(RGBColor(236, 236, 236))
        .draw()?;
    let bars = load
        .shard_share
        .iter()
        .copied()
        .enumerate()
        .map(|(i, share)| {
            let x = i as f64;
            Rectangle::new([(x - 0.4, 0.0), (x + 0.4, share)], color.filled())
        });
    chart.draw_series(bars)?;
    chart.draw_series(DashedLineSeries::new(
        [(-0.5, fair), (n - 0.5, fair)],
        6,
        4,
        style::REFERENCE.stroke_width(2),
    ))?;
    Ok(())
}
