//! What every chart shares: colours, fonts, the panel grid, axis formatting and the line panel
//! (series of points against a numeric x axis) that most charts are made of.

use std::ops::Range;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::font::FAMILY;
use super::{Canvas, DrawResult};
use plotters::coord::types::RangedCoordf64;

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
            Mark::Line(Stroke::Solid) => {
                match dash_of(e.color) {
                    None => strip.draw(&PathElement::new(
                        vec![(x, y), (x + 24, y)],
                        e.color.stroke_width(2),
                    ))?,
                    Some((dash, gap)) => {
                        let mut at = x;
                        while at < x + 24 {
                            let end = (at + dash as i32).min(x + 24);
                            strip.draw(&PathElement::new(
                                vec![(at, y), (end, y)],
                                e.color.stroke_width(2),
                            ))?;
                            at = end + gap as i32;
                        }
                    }
                }
                draw_marker(&strip, (x + 12, y), e.color)?;
            }
            Mark::Line(Stroke::Points) => draw_marker(&strip, (x + 12, y), e.color)?,
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

/// A number for axis labels with up to three significant decimals, e.g. `0.125`, `12.5`.
pub fn decimal(v: &f64) -> String {
    let text = format!("{v:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
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
    /// A line with a marker on every point; the line's dash pattern and the marker's shape
    /// follow the series' colour ([`dash_of`], [`draw_marker`]), so that series which
    /// coincide stay visible, each through the gaps of the other.
    Solid,
    /// A dashed line without markers (reference curves).
    Dashed,
    /// Markers only, no line: values measured at separate points that nothing joins (the
    /// counts between them were not measured).
    Points,
}

/// Marker shapes, in the order of the palette.
const MARKER_SHAPES: usize = 5;

/// The index of `color` in the palette (0 for colours outside it).
fn palette_index(color: RGBColor) -> usize {
    PALETTE.iter().position(|c| *c == color).unwrap_or(0)
}

/// The dash pattern (dash, gap in pixels) of a series line of this colour; `None` is solid.
/// Each scheme colour gets its own, so a line drawn over another leaves it showing.
pub fn dash_of(color: RGBColor) -> Option<(u32, u32)> {
    match palette_index(color) % 4 {
        0 => None,
        1 => Some((10, 5)),
        2 => Some((3, 4)),
        _ => Some((16, 4)),
    }
}

/// Draws the hollow marker of a series of this colour at pixel `at` of `area`: a circle,
/// square, triangle, diamond or cross by the colour's place in the palette. Hollow shapes of
/// different forms stay distinguishable where points coincide.
pub fn draw_marker(area: &Canvas<'_>, at: (i32, i32), color: RGBColor) -> DrawResult {
    let style = color.stroke_width(2);
    let (x, y) = at;
    match palette_index(color) % MARKER_SHAPES {
        0 => area.draw(&Circle::new(at, 4, style))?,
        1 => area.draw(&Rectangle::new([(x - 4, y - 4), (x + 4, y + 4)], style))?,
        2 => area.draw(&PathElement::new(
            vec![(x, y - 6), (x + 5, y + 4), (x - 5, y + 4), (x, y - 6)],
            style,
        ))?,
        3 => area.draw(&PathElement::new(
            vec![(x, y - 6), (x + 6, y), (x, y + 6), (x - 6, y), (x, y - 6)],
            style,
        ))?,
        _ => area.draw(&Cross::new(at, 5, style))?,
    }
    Ok(())
}

/// The chart type of every line panel.
pub type LineChart<'a, 'b> =
    ChartContext<'a, super::AnyBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Draws `points` as a series of `color` on `chart` (in `area`, the panel it was built on):
/// the line in the colour's dash pattern (unless `stroke` is [`Stroke::Points`]) and the
/// colour's marker on every point.
pub fn draw_marked_series(
    chart: &mut LineChart<'_, '_>,
    area: &Canvas<'_>,
    points: &[(f64, f64)],
    color: RGBColor,
    stroke: Stroke,
) -> DrawResult {
    let style = color.stroke_width(2);
    if stroke == Stroke::Solid {
        match dash_of(color) {
            None => {
                chart.draw_series(LineSeries::new(points.iter().copied(), style))?;
            }
            Some((dash, gap)) => {
                chart.draw_series(DashedLineSeries::new(
                    points.iter().copied(),
                    dash,
                    gap,
                    style,
                ))?;
            }
        }
    }
    let (bx, by) = area.get_base_pixel();
    for p in points {
        let (px, py) = chart.backend_coord(p);
        draw_marker(area, (px - bx, py - by), color)?;
    }
    Ok(())
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

thread_local! {
    /// While [`audit_line_panels`] runs on this thread: the number of distinct x values of each
    /// line panel drawn.
    static LINE_PANEL_AUDIT: std::cell::RefCell<Option<Vec<usize>>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `draw` (which draws charts on this thread) and returns, with its result, the number of
/// distinct x values of every line panel it drew: the check that no chart is a line over a
/// single point.
pub fn audit_line_panels<R>(draw: impl FnOnce() -> R) -> (R, Vec<usize>) {
    LINE_PANEL_AUDIT.with(|a| *a.borrow_mut() = Some(Vec::new()));
    let result = draw();
    let counts = LINE_PANEL_AUDIT.with(|a| a.borrow_mut().take().unwrap_or_default());
    (result, counts)
}

/// Draws a line panel into `area`.
pub fn draw_line_panel(area: &Canvas<'_>, panel: &LinePanel<'_>) -> DrawResult {
    LINE_PANEL_AUDIT.with(|a| {
        if let Some(counts) = a.borrow_mut().as_mut() {
            let mut xs: Vec<f64> = panel
                .series
                .iter()
                .filter(|s| s.stroke != Stroke::Dashed)
                .flat_map(|s| s.points.iter().map(|p| p.0))
                .collect();
            xs.sort_by(f64::total_cmp);
            xs.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
            counts.push(xs.len());
        }
    });
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
        match s.stroke {
            Stroke::Solid | Stroke::Points => {
                draw_marked_series(&mut chart, area, &s.points, s.color, s.stroke)?;
            }
            Stroke::Dashed => {
                chart.draw_series(DashedLineSeries::new(
                    s.points.iter().copied(),
                    6,
                    4,
                    s.color.stroke_width(2),
                ))?;
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

/// A log axis holding every value from `min` to `max` (both positive): its range and ticks.
/// The ticks are the 1-2-5 values of each decade, else 1-3, else the powers of ten, whichever
/// is the finest with at most `max_ticks` ticks (so labels never crowd); the range runs from
/// the tick just below `min` to the tick just above `max`, so the smallest value has a tick
/// under it.
pub fn log_axis(min: f64, max: f64, max_ticks: usize) -> (f64, f64, Vec<f64>) {
    const TIERS: [&[f64]; 3] = [&[1.0, 2.0, 5.0], &[1.0, 3.0], &[1.0]];
    let mut axis = (min, max, Vec::new());
    for steps in TIERS {
        // The tick values of the decades around `v`, in increasing order.
        let around = |v: f64| {
            let decade = 10f64.powi(v.log10().floor() as i32);
            [decade / 10.0, decade, decade * 10.0]
                .into_iter()
                .flat_map(|d| steps.iter().map(move |s| d * s))
                .collect::<Vec<f64>>()
        };
        let lo = around(min)
            .into_iter()
            .rev()
            .find(|t| *t < min * 0.999_999)
            .unwrap_or(min);
        let hi = around(max)
            .into_iter()
            .find(|t| *t > max * 1.000_001)
            .unwrap_or(max);
        let mut ticks = Vec::new();
        let mut decade = 10f64.powi(lo.log10().floor() as i32);
        while decade <= hi * 1.000_001 {
            ticks.extend(
                steps
                    .iter()
                    .map(|s| decade * s)
                    .filter(|v| *v >= lo * 0.999_999 && *v <= hi * 1.000_001),
            );
            decade *= 10.0;
        }
        axis = (lo, hi, ticks);
        if axis.2.len() <= max_ticks {
            break;
        }
    }
    axis
}

/// A tick of a log axis: as many decimals as the value needs (0.05, 0.2, 5, 100).
pub fn log_tick_label(v: &f64) -> String {
    if *v >= 1.0 {
        format!("{v:.0}")
    } else if *v >= 0.1 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// The label of a category axis at `v`: the name at a whole index, nothing between.
pub fn category(names: &[&str], v: &f64) -> String {
    let i = v.round();
    if (v - i).abs() < 1e-6 && i >= 0.0 {
        names
            .get(i as usize)
            .map_or(String::new(), |s| s.to_string())
    } else {
        String::new()
    }
}

/// One bar of a bar panel: its label under it, colour, height and 95% interval (drawn as an
/// error bar where estimated).
#[derive(Clone, Debug)]
pub struct Bar {
    /// Label under the bar.
    pub label: String,
    /// Fill colour.
    pub color: RGBColor,
    /// Height.
    pub value: f64,
    /// The 95% interval (low, high), if any.
    pub interval: Option<(f64, f64)>,
}

/// Draws a bar panel from 0: one bar per [`Bar`] with its label under it and its interval as
/// an error bar, and dashed reference lines across at the heights of `references`.
pub fn draw_bar_panel(
    area: &Canvas<'_>,
    caption: &str,
    y_desc: &str,
    y_format: fn(&f64) -> String,
    bars: &[Bar],
    references: &[f64],
) -> DrawResult {
    let top = references
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .fold(bars_top(bars), f64::max);
    let names: Vec<&str> = bars.iter().map(|b| b.label.as_str()).collect();
    let mut chart = bar_axes(area, caption, y_desc, y_format, &names, top)?;
    draw_bars(&mut chart, bars)?;
    draw_references(&mut chart, names.len(), references)
}

/// Dashed reference lines across `count` bars of [`bar_axes`] at the heights of `references`.
pub fn draw_references(
    chart: &mut LineChart<'_, '_>,
    count: usize,
    references: &[f64],
) -> DrawResult {
    for &y in references {
        chart.draw_series(DashedLineSeries::new(
            [(-0.5, y), (count as f64 - 0.5, y)],
            6,
            4,
            REFERENCE.stroke_width(2),
        ))?;
    }
    Ok(())
}

/// The highest finite end of `bars` (a value or an interval's top), 0 at the least.
pub fn bars_top(bars: &[Bar]) -> f64 {
    bars.iter()
        .flat_map(|b| [b.value].into_iter().chain(b.interval.map(|i| i.1)))
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max)
}

/// The axes of a bar panel: one category per name along x, y from 0 to a little over `top`.
pub fn bar_axes<'a, 'b>(
    area: &'a Canvas<'b>,
    caption: &str,
    y_desc: &str,
    y_format: fn(&f64) -> String,
    names: &[&str],
    top: f64,
) -> Result<LineChart<'a, 'b>, Box<dyn std::error::Error + Send + Sync>> {
    let mut chart = panel_chart(area, caption, 64)
        .build_cartesian_2d(-0.5..names.len() as f64 - 0.5, padded(0.0, top, true))?;
    let name_of = |v: &f64| category(names, v);
    chart
        .configure_mesh()
        .y_desc(y_desc)
        .y_label_formatter(&y_format)
        .x_labels(names.len())
        .x_label_formatter(&name_of)
        .disable_x_mesh()
        .label_style(font(12))
        .axis_desc_style(font(13))
        .light_line_style(RGBColor(236, 236, 236))
        .draw()?;
    Ok(chart)
}

/// Draws `bars` on axes of [`bar_axes`], the i-th at x = i, each interval as an error bar.
pub fn draw_bars(chart: &mut LineChart<'_, '_>, bars: &[Bar]) -> DrawResult {
    chart.draw_series(bars.iter().enumerate().map(|(i, b)| {
        let x = i as f64;
        Rectangle::new([(x - 0.3, 0.0), (x + 0.3, b.value)], b.color.filled())
    }))?;
    for (i, b) in bars.iter().enumerate() {
        if let Some((lo, hi)) = b.interval {
            let x = i as f64;
            chart.draw_series(
                [
                    [(x, lo), (x, hi)],
                    [(x - 0.08, lo), (x + 0.08, lo)],
                    [(x - 0.08, hi), (x + 0.08, hi)],
                ]
                .map(|seg| PathElement::new(seg, BLACK.stroke_width(1))),
            )?;
        }
    }
    Ok(())
}

/// The one x value of a panel whose measured series (solid or points) all sit at it, or
/// `None` when they span two or more: such a panel is drawn as bars, never as a line chart
/// over a single point.
pub fn single_x(panel: &LinePanel<'_>) -> Option<f64> {
    let mut xs = panel
        .series
        .iter()
        .filter(|s| s.stroke != Stroke::Dashed)
        .flat_map(|s| s.points.iter().map(|p| p.0));
    let first = xs.next()?;
    xs.all(|x| (x - first).abs() < 1e-9).then_some(first)
}

/// The height of a reference curve at `x`: linear between its two nearest points, or its
/// only point's height.
fn reference_at(points: &[(f64, f64)], x: f64) -> Option<f64> {
    let after = points.iter().position(|p| p.0 >= x - 1e-9);
    match after {
        Some(0) => points.first().map(|p| p.1),
        Some(i) => {
            let ((x0, y0), (x1, y1)) = (points[i - 1], points[i]);
            Some(if (x1 - x0).abs() < 1e-12 {
                y1
            } else {
                y0 + (y1 - y0) * (x - x0) / (x1 - x0)
            })
        }
        None => points.last().map(|p| p.1),
    }
}

/// Draws a line panel whose measured series share one x ([`single_x`]) as bars: one bar per
/// series with its interval, the reference curves as dashed lines at their height there, and
/// the x value in the caption.
fn draw_single_x_panel(area: &Canvas<'_>, panel: &LinePanel<'_>, x: f64) -> DrawResult {
    let bars: Vec<Bar> = panel
        .series
        .iter()
        .filter(|s| s.stroke != Stroke::Dashed)
        .filter_map(|s| {
            let value = s.points.first()?.1;
            Some(Bar {
                label: s.label.clone(),
                color: s.color,
                value,
                interval: s.whiskers.first().map(|w| (w.1, w.2)),
            })
        })
        .collect();
    let references: Vec<f64> = panel
        .series
        .iter()
        .filter(|s| s.stroke == Stroke::Dashed)
        .filter_map(|s| reference_at(&s.points, x))
        .collect();
    let caption = format!(
        "{} at {} = {}",
        panel.caption,
        panel.x_desc,
        (panel.x_format)(&x)
    );
    draw_bar_panel(
        area,
        &caption,
        panel.y_desc,
        panel.y_format,
        &bars,
        &references,
    )
}

/// Draws a chart of line panels: the title, one legend of every panel's series (without
/// repeats) and the panels in a grid of [`grid_size`].
///
/// A panel whose measured series all sit at one x is drawn as bars ([`single_x`]); when every
/// panel is, the legend shows swatches for the bars.
pub fn draw_line_grid(root: &Canvas<'_>, title: &str, grid: &[LinePanel<'_>]) -> DrawResult {
    let mut legend = legend_of(grid.iter().flat_map(|p| &p.series));
    if grid.iter().all(|p| single_x(p).is_some()) {
        for e in &mut legend {
            if e.mark != Mark::Line(Stroke::Dashed) {
                e.mark = Mark::Swatch;
            }
        }
    }
    let area = titled(root, title, &legend)?;
    for (panel, cell) in grid.iter().zip(panels(&area, grid.len())) {
        match single_x(panel) {
            Some(x) => draw_single_x_panel(&cell, panel, x)?,
            None => draw_line_panel(&cell, panel)?,
        }
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
    fn log_axes_tick_at_1_2_5_then_1_3_then_decades() {
        assert_eq!(
            log_axis(3.1, 180.0, 8),
            (2.0, 200.0, vec![2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0])
        );
        assert_eq!(
            log_axis(3.1, 800.0, 8),
            (3.0, 1_000.0, vec![3.0, 10.0, 30.0, 100.0, 300.0, 1_000.0])
        );
        let (lo, hi, ticks) = log_axis(0.4, 9_000.0, 8);
        assert_eq!((lo, hi), (0.1, 10_000.0));
        assert_eq!(ticks, [0.1, 1.0, 10.0, 100.0, 1_000.0, 10_000.0]);
        assert_eq!(log_axis(5.0, 5.0, 8).2, [2.0, 5.0, 10.0]);
        assert_eq!(
            [0.05, 0.2, 5.0, 100.0].map(|v| log_tick_label(&v)),
            ["0.05", "0.2", "5", "100"]
        );
    }

    #[test]
    fn each_palette_colour_has_its_own_dash_and_marker() {
        let dashes: Vec<_> = PALETTE[..4].iter().map(|c| dash_of(*c)).collect();
        for (i, d) in dashes.iter().enumerate() {
            assert!(!dashes[..i].contains(d), "{dashes:?}");
        }
    }

    #[test]
    fn percentages_keep_small_values_readable() {
        assert_eq!(percent(&0.0634), "6.3%");
        assert_eq!(percent(&0.94), "94%");
    }
}
