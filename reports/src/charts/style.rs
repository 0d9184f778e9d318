//! What every chart shares: colours, fonts, the panel grid, axis formatting and the line panel
//! (series of points against a numeric x axis) that most charts are made of.

use std::ops::Range;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::font::FAMILY;
use super::{Canvas, DrawResult};

/// Okabe–Ito colours: distinguishable with the common colour-vision deficiencies.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(120, 120, 120),
    RGBColor(240, 228, 66),
];

/// Colour of reference lines (fair share, ideal remap, optimum).
pub const REFERENCE: RGBColor = RGBColor(40, 40, 40);

/// Width of every chart, in pixels.
pub const WIDTH: u32 = 1000;
/// Height of the title band.
pub const TITLE_HEIGHT: u32 = 44;
/// Height of one panel row.
pub const PANEL_HEIGHT: u32 = 300;

/// The n-th series colour (wrapping around).
pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// The colour of a scheme: the same in every chart of a run.
pub fn scheme_color(data: &crate::data::RunData, scheme: &str) -> RGBColor {
    color(
        data.schemes()
            .iter()
            .position(|s| *s == scheme)
            .unwrap_or(0),
    )
}

/// A text style of the charts' font.
pub fn font(size: u32) -> TextStyle<'static> {
    (FAMILY, size).into_font().color(&BLACK)
}

/// Columns of the panel grid for `n` panels.
pub fn columns(n: usize) -> usize {
    n.clamp(1, 2)
}

/// Size of a chart with a title and `n` panels in a grid.
pub fn grid_size(n: usize) -> (u32, u32) {
    let rows = n.max(1).div_ceil(columns(n));
    (
        WIDTH,
        TITLE_HEIGHT + LEGEND_HEIGHT + PANEL_HEIGHT * rows as u32,
    )
}

/// Height of the legend strip under the title.
pub const LEGEND_HEIGHT: u32 = 26;

/// How a legend entry is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mark {
    /// A filled square (bars, cells).
    Swatch,
    /// A line of the series' stroke.
    Line(Stroke),
    /// A cross (a point with no value, such as a plan where no shard count works).
    Cross,
}

/// One entry of a chart's legend.
#[derive(Clone, Debug, PartialEq)]
pub struct LegendEntry {
    /// Text.
    pub label: String,
    /// Colour.
    pub color: RGBColor,
    /// Mark.
    pub mark: Mark,
}

/// Legend entries of line series, without repeats (panels share their schemes).
pub fn legend_of<'s>(series: impl IntoIterator<Item = &'s Series>) -> Vec<LegendEntry> {
    let mut out: Vec<LegendEntry> = Vec::new();
    for s in series {
        if !out.iter().any(|e| e.label == s.label) {
            out.push(LegendEntry {
                label: s.label.clone(),
                color: s.color,
                mark: Mark::Line(s.stroke),
            });
        }
    }
    out
}

/// Fills the background, draws the title and the legend strip under it, and returns the area
/// below. One legend per chart, outside the plots, so it never hides data.
pub fn titled<'b>(
    root: &Canvas<'b>,
    title: &str,
    legend: &[LegendEntry],
) -> Result<Canvas<'b>, Box<dyn std::error::Error + Send + Sync>> {
    root.fill(&WHITE)?;
    let (top, rest) = root.split_vertically(TITLE_HEIGHT);
    top.draw_text(
        title,
        &font(20).pos(center()),
        (WIDTH as i32 / 2, TITLE_HEIGHT as i32 / 2),
    )?;
    let (strip, rest) = rest.split_vertically(LEGEND_HEIGHT);
    let widths: Vec<i32> = legend
        .iter()
        .map(|e| {
            30 + strip
                .estimate_text_size(&e.label, &font(13))
                .map_or(8 * e.label.len() as i32, |(w, _)| w as i32)
                + 22
        })
        .collect();
    let mut x = ((WIDTH as i32 - widths.iter().sum::<i32>()) / 2).max(8);
    let y = LEGEND_HEIGHT as i32 / 2;
    for (e, w) in legend.iter().zip(widths) {
        match e.mark {
            Mark::Swatch => strip.draw(&Rectangle::new(
                [(x, y - 6), (x + 20, y + 6)],
                e.color.filled(),
            ))?,
            Mark::Line(Stroke::Solid) => strip.draw(&PathElement::new(
                vec![(x, y), (x + 24, y)],
                e.color.stroke_width(2),
            ))?,
            Mark::Cross => strip.draw(&Cross::new((x + 10, y), 6, e.color.stroke_width(2)))?,
            Mark::Line(Stroke::Dashed) => {
                for k in 0..3 {
                    strip.draw(&PathElement::new(
                        vec![(x + 9 * k, y), (x + 9 * k + 6, y)],
                        e.color.stroke_width(2),
                    ))?;
                }
            }
        }
        strip.draw_text(&e.label, &font(13).pos(left_center()), (x + 30, y))?;
        x += w;
    }
    Ok(rest)
}

fn center() -> plotters::style::text_anchor::Pos {
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    Pos::new(HPos::Center, VPos::Center)
}

fn left_center() -> plotters::style::text_anchor::Pos {
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    Pos::new(HPos::Left, VPos::Center)
}

/// Splits `area` into a grid for `n` panels, row by row.
pub fn panels<'b>(area: &Canvas<'b>, n: usize) -> Vec<DrawingArea<super::AnyBackend<'b>, Shift>> {
    let cols = columns(n);
    let rows = n.max(1).div_ceil(cols);
    let mut cells = area.split_evenly((rows, cols));
    cells.truncate(n);
    cells
}

/// A share (0..1) as a percentage for axis labels, with decimals only where they matter.
pub fn percent(v: &f64) -> String {
    let p = v * 100.0;
    if p.abs() >= 10.0 || p == 0.0 {
        format!("{p:.0}%")
    } else {
        format!("{p:.1}%")
    }
}

/// A count with thousands separators, e.g. `1,234,567`.
#[allow(clippy::manual_is_multiple_of)] // `is_multiple_of` needs Rust 1.87; the workspace supports 1.80
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A whole number for axis labels (axes of counts use f64 coordinates); ticks between whole
/// numbers get no label, so a short axis does not repeat one.
pub fn whole(v: &f64) -> String {
    if (v - v.round()).abs() > 1e-9 {
        return String::new();
    }
    format!("{}", v.round() as i64)
}

/// `lo..hi` widened so that single values and flat lines still get a visible range.
pub fn padded(lo: f64, hi: f64, from_zero: bool) -> Range<f64> {
    let lo = if from_zero { lo.min(0.0) } else { lo };
    if (hi - lo).abs() < 1e-12 {
        return if from_zero {
            lo..hi.max(lo) + 1.0
        } else {
            lo - 1.0..hi + 1.0
        };
    }
    let pad = (hi - lo) * 0.05;
    (if from_zero { lo } else { lo - pad })..hi + pad
}

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stroke {
    /// A solid line with a dot on every point.
    Solid,
    /// A dashed line without dots (reference curves).
    Dashed,
}

/// Points of one line, with its legend label.
#[derive(Clone, Debug)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Line colour.
    pub color: RGBColor,
    /// (x, y) points in x order.
    pub points: Vec<(f64, f64)>,
    /// Solid with dots, or dashed.
    pub stroke: Stroke,
    /// 95% intervals drawn as vertical bars: (x, low, high), from summary.csv's
    /// `ci_low,ci_high` (empty where none was estimated).
    pub whiskers: Vec<(f64, f64, f64)>,
}

/// A line panel: a caption, labelled axes and its series.
pub struct LinePanel<'a> {
    /// Caption above the plot.
    pub caption: String,
    /// X axis label, with unit.
    pub x_desc: &'a str,
    /// Y axis label, with unit.
    pub y_desc: &'a str,
    /// Formats y tick labels.
    pub y_format: fn(&f64) -> String,
    /// Formats x tick labels.
    pub x_format: fn(&f64) -> String,
    /// Whether the y axis starts at 0.
    pub y_from_zero: bool,
    /// The series; a series with one point is drawn as a dot.
    pub series: Vec<Series>,
}

/// The builder of one panel in the layout every chart shares: `caption` above, a 10 px margin,
/// 40 px for the x labels and `y_label_width` px for the y labels.
pub fn panel_chart<'a, 'b>(
    area: &'a Canvas<'b>,
    caption: &str,
    y_label_width: u32,
) -> ChartBuilder<'a, 'static, super::AnyBackend<'b>> {
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(caption, font(15))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(y_label_width);
    builder
}

/// Draws a line panel into `area`.
pub fn draw_line_panel(area: &Canvas<'_>, panel: &LinePanel<'_>) -> DrawResult {
    let points = || panel.series.iter().flat_map(|s| s.points.iter());
    let whisker_ends = || {
        panel
            .series
            .iter()
            .flat_map(|s| s.whiskers.iter().flat_map(|w| [w.1, w.2]))
    };
    let (x_lo, x_hi) = bounds(points().map(|p| p.0));
    let (y_lo, y_hi) = bounds(points().map(|p| p.1).chain(whisker_ends()));
    let mut chart = panel_chart(area, &panel.caption, 64).build_cartesian_2d(
        padded(x_lo, x_hi, false),
        padded(y_lo, y_hi, panel.y_from_zero),
    )?;
    chart
        .configure_mesh()
        .x_desc(panel.x_desc)
        .y_desc(panel.y_desc)
        .x_label_formatter(&panel.x_format)
        .y_label_formatter(&panel.y_format)
        .x_labels(8)
        .label_style(font(12))
        .axis_desc_style(font(13))
        .light_line_style(RGBColor(236, 236, 236))
        .draw()?;
    for s in &panel.series {
        let style = s.color.stroke_width(2);
        match s.stroke {
            Stroke::Solid => {
                chart.draw_series(LineSeries::new(s.points.iter().copied(), style))?;
                chart.draw_series(
                    s.points
                        .iter()
                        .map(|&p| Circle::new(p, 3, s.color.filled())),
                )?;
            }
            Stroke::Dashed => {
                chart.draw_series(DashedLineSeries::new(s.points.iter().copied(), 6, 4, style))?;
            }
        }
        chart.draw_series(
            s.whiskers
                .iter()
                .map(|&(x, lo, hi)| PathElement::new([(x, lo), (x, hi)], s.color.stroke_width(1))),
        )?;
    }
    Ok(())
}

/// Draws a chart of line panels: the title, one legend of every panel's series (without
/// repeats) and the panels in a grid of [`grid_size`].
pub fn draw_line_grid(root: &Canvas<'_>, title: &str, grid: &[LinePanel<'_>]) -> DrawResult {
    let legend = legend_of(grid.iter().flat_map(|p| &p.series));
    let area = titled(root, title, &legend)?;
    for (panel, cell) in grid.iter().zip(panels(&area, grid.len())) {
        draw_line_panel(&cell, panel)?;
    }
    Ok(())
}

/// Min and max of finite values; (0, 0) when there are none.
pub fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if lo > hi {
        (0.0, 0.0)
    } else {
        (lo, hi)
    }
}

/// A file-name-safe form of a label: lowercase ASCII letters, digits, `.` and `-`, at most 48
/// characters.
pub fn slug(label: &str) -> String {
    let mut out = String::new();
    for c in label.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() || c == '.' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out: String = out
        .trim_matches(|c| c == '-' || c == '.')
        .chars()
        .take(48)
        .collect();
    if out.is_empty() {
        "run".into()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_safe_file_names() {
        assert_eq!(slug("zipf:keys=1000,s=0.8"), "zipf-keys-1000-s-0.8");
        assert_eq!(slug("../../etc/passwd"), "etc-passwd");
        assert_eq!(slug("::"), "run");
    }

    #[test]
    fn ranges_never_collapse() {
        assert_eq!(padded(3.0, 3.0, false), 2.0..4.0);
        assert_eq!(padded(0.0, 0.0, true), 0.0..1.0);
        let r = padded(0.2, 0.4, true);
        assert!(r.start == 0.0 && r.end > 0.4);
    }

    #[test]
    fn counts_get_thousands_separators() {
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
    }

    #[test]
    fn percentages_keep_small_values_readable() {
        assert_eq!(percent(&0.0634), "6.3%");
        assert_eq!(percent(&0.94), "94%");
    }
}
