//! Shards needed against growth (from `plan.csv`), one line per scheme and one panel per
//! workload, with the dashed floor of a perfectly balanced scheme. A growth at which no shard
//! count works is a cross at the top of the panel labelled with what binds.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::style::{self, font, whole, LegendEntry, Mark, Stroke};
use super::{Canvas, Chart, ChartInput, DrawResult, Scope};
use crate::data::RunData;
use crate::plan_csv::PlanCsvRow;

/// The file stem of this chart, for the report to place it in the plan section.
pub const NAME: &str = "plan_shards";

/// Shards needed against growth.
pub struct PlanShards;

/// The colour of a plan's scheme: by its place in `plan.csv`.
fn color(data: &RunData, scheme: &str) -> RGBColor {
    style::color(
        data.plan_schemes()
            .iter()
            .position(|s| *s == scheme)
            .unwrap_or(0),
    )
}

/// Growth as an axis label, e.g. `×2` or `×1.5`.
fn times(v: &f64) -> String {
    if *v < 0.0 {
        return String::new();
    }
    format!("×{}", (v * 100.0).round() / 100.0)
}

fn rows_of<'d>(data: &'d RunData, workload: &str) -> Vec<&'d PlanCsvRow> {
    data.plan
        .iter()
        .flatten()
        .filter(|r| r.workload == workload)
        .collect()
}

/// The balanced floor of a workload: the first `balanced_shards` of each growth, by growth.
fn balanced(rows: &[&PlanCsvRow]) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    for r in rows {
        if let Some(b) = r.balanced_shards {
            if !out.iter().any(|p| p.0 == r.growth) {
                out.push((r.growth, b as f64));
            }
        }
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out
}

fn draw_panel(data: &RunData, workload: &str, area: &Canvas<'_>) -> DrawResult {
    let rows = rows_of(data, workload);
    let floor = balanced(&rows);
    let xs = rows.iter().map(|r| r.growth);
    let (x_lo, x_hi) = style::bounds(xs);
    let ys = rows
        .iter()
        .filter_map(|r| r.shards_needed.map(f64::from))
        .chain(floor.iter().map(|p| p.1));
    let (_, y_max) = style::bounds(ys);
    let infeasible = rows.iter().any(|r| r.shards_needed.is_none());
    // Room above the highest count for the crosses of growths where no count works.
    let top = if infeasible {
        (y_max * 1.25).max(y_max + 2.0)
    } else {
        y_max
    };
    let mut chart = style::panel_chart(area, workload, 64).build_cartesian_2d(
        style::padded(x_lo, x_hi, false),
        style::padded(0.0, top, true),
    )?;
    chart
        .configure_mesh()
        .x_desc("growth (× today's peak traffic and bytes)")
        .y_desc("shards needed (count)")
        .x_label_formatter(&times)
        .y_label_formatter(&whole)
        .x_labels(8)
        .label_style(font(12))
        .axis_desc_style(font(13))
        .light_line_style(RGBColor(236, 236, 236))
        .draw()?;
    if !floor.is_empty() {
        chart.draw_series(DashedLineSeries::new(
            floor.iter().copied(),
            6,
            4,
            style::REFERENCE.stroke_width(2),
        ))?;
    }
    let mut crosses_at: Vec<(f64, usize)> = Vec::new();
    for scheme in data.plan_schemes() {
        let c = color(data, scheme);
        let mut mine: Vec<&&PlanCsvRow> = rows.iter().filter(|r| r.scheme == scheme).collect();
        mine.sort_by(|a, b| a.growth.total_cmp(&b.growth));
        // A line through consecutive growths where a count works, broken where none does.
        let mut run: Vec<(f64, f64)> = Vec::new();
        for r in &mine {
            match r.shards_needed {
                Some(n) => run.push((r.growth, n as f64)),
                None => {
                    style::draw_marked_series(&mut chart, area, &run, c, Stroke::Solid)?;
                    run.clear();
                    let k = match crosses_at.iter_mut().find(|p| p.0 == r.growth) {
                        Some(p) => {
                            p.1 += 1;
                            p.1 - 1
                        }
                        None => {
                            crosses_at.push((r.growth, 1));
                            0
                        }
                    };
                    let y = top - (top / 14.0) * k as f64;
                    chart.draw_series(std::iter::once(Cross::new(
                        (r.growth, y),
                        6,
                        c.stroke_width(2),
                    )))?;
                    let (px, py) = chart.backend_coord(&(r.growth, y));
                    let (bx, by) = area.get_base_pixel();
                    // Labels of crosses in the right half go to their left, so none is cut off.
                    let (h, dx) = if r.growth > (x_lo + x_hi) / 2.0 {
                        (HPos::Right, -10)
                    } else {
                        (HPos::Left, 10)
                    };
                    area.draw_text(
                        &format!("{scheme}: {}", r.binding),
                        &font(11).color(&c).pos(Pos::new(h, VPos::Center)),
                        (px - bx + dx, py - by),
                    )?;
                }
            }
        }
        style::draw_marked_series(&mut chart, area, &run, c, Stroke::Solid)?;
    }
    Ok(())
}

impl Chart for PlanShards {
    fn name(&self) -> &'static str {
        NAME
    }
    fn title(&self) -> &'static str {
        "How many shards?"
    }
    fn scope(&self) -> Scope {
        Scope::Run
    }
    fn skip_reason(&self, input: &ChartInput<'_>) -> Option<String> {
        match &input.data.plan {
            None => Some("the directory has no plan.csv (write one with `shardlab plan ... --out DIR --force`)".into()),
            Some(rows) if rows.is_empty() => Some("plan.csv has no rows".into()),
            Some(_) => None,
        }
    }
    fn caption(&self, _input: &ChartInput<'_>) -> String {
        "Shards each scheme needs at each growth factor; dashed: what a perfectly balanced scheme needs; a cross at the top: no shard count works, labelled with what binds.".into()
    }
    fn size(&self, input: &ChartInput<'_>) -> (u32, u32) {
        style::grid_size(input.data.plan_workloads().len())
    }
    fn draw(&self, input: &ChartInput<'_>, root: &Canvas<'_>) -> DrawResult {
        let data = input.data;
        let mut legend: Vec<LegendEntry> = data
            .plan_schemes()
            .into_iter()
            .map(|s| LegendEntry {
                label: s.to_string(),
                color: color(data, s),
                mark: Mark::Line(Stroke::Solid),
            })
            .collect();
        legend.push(LegendEntry {
            label: "balanced (perfectly even)".into(),
            color: style::REFERENCE,
            mark: Mark::Line(Stroke::Dashed),
        });
        if data
            .plan
            .iter()
            .flatten()
            .any(|r| r.shards_needed.is_none())
        {
            legend.push(LegendEntry {
                label: "no count works".into(),
                color: style::REFERENCE,
                mark: Mark::Cross,
            });
        }
        let area = style::titled(
            root,
            "How many shards? Shards needed against growth",
            &legend,
        )?;
        let workloads = data.plan_workloads();
        let cells = style::panels(&area, workloads.len());
        for (w, cell) in workloads.into_iter().zip(cells) {
            draw_panel(data, w, &cell)?;
        }
        Ok(())
    }
}
