//! Load heatmap: each shard's share of each window's requests, shard by window, one panel per
//! scheme. Long runs are drawn with consecutive windows merged into at most
//! [`MAX_COLUMNS`] columns.

use plotters::prelude::*;

use super::loads::windowed_loads;
use super::style::{self, font, percent, whole};
use super::{Canvas, Chart, ChartInput, DrawResult, Scope};
use crate::data::SchemeLoad;

/// Shard x window heatmap.
pub struct LoadHeatmap;

/// Most columns drawn per panel.
pub const MAX_COLUMNS: usize = 200;

/// Blues, from white (no requests) to dark blue (the largest share in the chart).
const RAMP: [(f64, f64, f64); 5] = [
    (255.0, 255.0, 255.0),
    (198.0, 219.0, 239.0),
    (107.0, 174.0, 214.0),
    (33.0, 113.0, 181.0),
    (8.0, 48.0, 107.0),
];

/// The colour of `v` in 0..=1.
pub fn ramp(v: f64) -> RGBColor {
    let t = v.clamp(0.0, 1.0) * (RAMP.len() - 1) as f64;
    let i = (t.floor() as usize).min(RAMP.len() - 2);
    let f = t - i as f64;
    let mix = |a: f64, b: f64| (a + (b - a) * f).round() as u8;
    let (a, b) = (RAMP[i], RAMP[i + 1]);
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Windows merged per column so that a panel has at most [`MAX_COLUMNS`] columns.
fn windows_per_column(windows: usize) -> usize {
    windows.div_ceil(MAX_COLUMNS).max(1)
}

/// Per column, each shard's share of the column's requests: a display aggregation (windows
/// merged to fit the width) from the counts of `windows.csv`, not a reported metric.
fn cells(load: &SchemeLoad) -> Vec<Vec<f64>> {
    let per = windows_per_column(load.window_requests.len());
    load.window_requests
        .chunks(per)
        .map(|group| {
            let mut sums = vec![0u64; load.shards as usize];
            for w in group {
                for (s, c) in sums.iter_mut().zip(w) {
                    *s += c;
                }
            }
            let total: u64 = sums.iter().sum();
            sums.iter()
                .map(|&c| {
                    if total == 0 {
                        0.0
                    } else {
                        c as f64 / total as f64
                    }
                })
                .collect()
        })
        .collect()
}

impl Chart for LoadHeatmap {
    fn name(&self) -> &'static str {
        "load_heatmap"
    }
    fn title(&self) -> &'static str {
        "Load heatmap: shard by window"
    }
    fn scope(&self) -> Scope {
        Scope::Workload
    }
    fn skip_reason(&self, input: &ChartInput<'_>) -> Option<String> {
        windowed_loads(input)
            .is_empty()
            .then(|| "windows.csv has no rows for this workload".into())
    }
    fn caption(&self, input: &ChartInput<'_>) -> String {
        let loads = windowed_loads(input);
        let windows = loads
            .iter()
            .map(|l| l.window_requests.len())
            .max()
            .unwrap_or(0);
        let per = windows_per_column(windows);
        let merged = if per > 1 {
            format!(" ({per} windows per column)")
        } else {
            String::new()
        };
        format!(
            "Each cell is one shard's share of the requests of one window{merged}, N = {}; darker is hotter, white is idle.",
            loads.first().map_or(0, |l| l.shards)
        )
    }
    fn size(&self, input: &ChartInput<'_>) -> (u32, u32) {
        style::grid_size(windowed_loads(input).len())
    }
    fn draw(&self, input: &ChartInput<'_>, root: &Canvas<'_>) -> DrawResult {
        let loads = windowed_loads(input);
        let grids: Vec<Vec<Vec<f64>>> = loads.iter().map(|l| cells(l)).collect();
        let max = grids
            .iter()
            .flatten()
            .flatten()
            .copied()
            .fold(0.0f64, f64::max)
            .max(1e-12);
        let area = style::titled(root, &format!("Load heatmap: {}", input.workload()), &[])?;
        draw_color_bar(root, max)?;
        let per = windows_per_column(
            loads
                .iter()
                .map(|l| l.window_requests.len())
                .max()
                .unwrap_or(0),
        );
        for ((load, grid), panel) in loads
            .iter()
            .zip(&grids)
            .zip(style::panels(&area, loads.len()))
        {
            draw_panel(load, grid, per, max, &panel)?;
        }
        Ok(())
    }
}

fn draw_panel(
    load: &SchemeLoad,
    grid: &[Vec<f64>],
    per: usize,
    max: f64,
    area: &Canvas<'_>,
) -> DrawResult {
    let (windows, shards) = (load.window_requests.len() as f64, load.shards as f64);
    let mut chart = style::panel_chart(area, &load.scheme, 50)
        .build_cartesian_2d(0.0..windows, -0.5..shards - 0.5)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("window (index of --window events)")
        .y_desc("shard")
        .x_label_formatter(&whole)
        .y_label_formatter(&whole)
        .y_labels(load.shards.min(16) as usize)
        .label_style(font(12))
        .axis_desc_style(font(13))
        .draw()?;
    let rects = grid.iter().enumerate().flat_map(|(col, shares)| {
        let x0 = (col * per) as f64;
        let x1 = (x0 + per as f64).min(windows);
        shares.iter().enumerate().map(move |(s, &v)| {
            Rectangle::new(
                [(x0, s as f64 - 0.5), (x1, s as f64 + 0.5)],
                ramp(v / max).filled(),
            )
        })
    });
    chart.draw_series(rects)?;
    Ok(())
}

/// A horizontal colour bar in the legend strip, labelled 0% and the largest share drawn.
fn draw_color_bar(root: &Canvas<'_>, max: f64) -> DrawResult {
    let (w, h) = (200, 14);
    let (x0, y0) = (
        (style::WIDTH as i32 - w) / 2,
        style::TITLE_HEIGHT as i32 + (style::LEGEND_HEIGHT as i32 - h) / 2,
    );
    let steps = 40;
    for i in 0..steps {
        let a = x0 + w * i / steps;
        let b = x0 + w * (i + 1) / steps;
        root.draw(&Rectangle::new(
            [(a, y0), (b, y0 + h)],
            ramp(i as f64 / (steps - 1) as f64).filled(),
        ))?;
    }
    root.draw(&Rectangle::new(
        [(x0, y0), (x0 + w, y0 + h)],
        RGBColor(150, 150, 150),
    ))?;
    root.draw(&Text::new(
        "share of the window's requests: 0%",
        (x0 - 215, y0),
        font(12),
    ))?;
    root.draw(&Text::new(percent(&max), (x0 + w + 6, y0), font(12)))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ramp_runs_from_white_to_dark_blue() {
        assert_eq!(ramp(0.0), RGBColor(255, 255, 255));
        assert_eq!(ramp(1.0), RGBColor(8, 48, 107));
        assert_eq!(ramp(7.0), ramp(1.0));
    }

    #[test]
    fn long_runs_merge_windows_into_at_most_the_column_limit() {
        assert_eq!(windows_per_column(100), 1);
        assert_eq!(windows_per_column(401), 3);
        assert!(401usize.div_ceil(windows_per_column(401)) <= MAX_COLUMNS);
    }
}
