//! Split-key quality per finder, from `splits.csv`: the mean balance |L-R|/(L+R) of the load
//! after each split made, beside the mean balance the optimal key would have given on the same
//! splits (lower is better; 0 halves the load exactly).

use plotters::prelude::*;

use super::style::{self, font, LegendEntry, Mark};
use super::{Canvas, Chart, ChartInput, DrawResult, Scope};
use crate::data::RunData;

/// Split balance per finder against the optimum.
pub struct SplitBalanceChart;

/// Per finder: (finder, mean balance after, mean optimal balance, splits made).
pub type FinderBalance = (String, f64, f64, usize);

/// Mean balances of the splits made (reason empty, both balances known), per finder in file
/// order.
pub fn finder_balances(data: &RunData) -> Vec<FinderBalance> {
    let mut out: Vec<(String, f64, f64, usize)> = Vec::new();
    for r in data.splits.as_deref().unwrap_or(&[]) {
        let (Some(after), Some(optimal), true) =
            (r.balance_after, r.optimal_balance, r.reason.is_empty())
        else {
            continue;
        };
        match out.iter_mut().find(|f| f.0 == r.finder) {
            Some(f) => {
                f.1 += after;
                f.2 += optimal;
                f.3 += 1;
            }
            None => out.push((r.finder.clone(), after, optimal, 1)),
        }
    }
    for f in &mut out {
        f.1 /= f.3 as f64;
        f.2 /= f.3 as f64;
    }
    out
}

impl Chart for SplitBalanceChart {
    fn name(&self) -> &'static str {
        "split_balance"
    }
    fn title(&self) -> &'static str {
        "Split balance per finder"
    }
    fn scope(&self) -> Scope {
        Scope::Run
    }
    fn skip_reason(&self, input: &ChartInput<'_>) -> Option<String> {
        match &input.data.splits {
            None => Some("the run has no splits.csv (no range-dynamic scheme)".into()),
            Some(_) if finder_balances(input.data).is_empty() => {
                Some("splits.csv records no split made".into())
            }
            Some(_) => None,
        }
    }
    fn caption(&self, _input: &ChartInput<'_>) -> String {
        "Mean |L-R|/(L+R) of the next window's load at each finder's split keys (lower is better), beside the optimal key's on the same splits.".into()
    }
    fn size(&self, _input: &ChartInput<'_>) -> (u32, u32) {
        style::grid_size(1)
    }
    fn draw(&self, input: &ChartInput<'_>, root: &Canvas<'_>) -> DrawResult {
        let finders = finder_balances(input.data);
        let kinds = [
            ("finder's key", style::color(0)),
            ("optimal key", style::REFERENCE),
        ];
        let legend: Vec<LegendEntry> = kinds
            .iter()
            .map(|(label, color)| LegendEntry {
                label: label.to_string(),
                color: *color,
                mark: Mark::Swatch,
            })
            .collect();
        let area = style::titled(
            root,
            "Split balance per finder against the optimum",
            &legend,
        )?;
        let names: Vec<String> = finders
            .iter()
            .map(|f| format!("{} ({} splits)", f.0, f.3))
            .collect();
        let y_max = finders
            .iter()
            .flat_map(|f| [f.1, f.2])
            .fold(0.0f64, f64::max);
        let mut chart = ChartBuilder::on(&area)
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(
                -0.5..finders.len() as f64 - 0.5,
                style::padded(0.0, y_max, true),
            )?;
        let finder_of = |v: &f64| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 {
                names.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .x_desc("split-key finder")
            .y_desc("balance |L-R|/(L+R)")
            .x_labels(finders.len())
            .x_label_formatter(&finder_of)
            .y_label_formatter(&|v| format!("{v:.2}"))
            .disable_x_mesh()
            .label_style(font(12))
            .axis_desc_style(font(13))
            .light_line_style(RGBColor(236, 236, 236))
            .draw()?;
        for (k, (_, color)) in kinds.into_iter().enumerate() {
            let rects = finders.iter().enumerate().map(move |(i, f)| {
                let x = i as f64 - 0.3 + 0.3 * k as f64;
                Rectangle::new(
                    [(x, 0.0), (x + 0.28, if k == 0 { f.1 } else { f.2 })],
                    color.filled(),
                )
            });
            chart.draw_series(rects)?;
        }
        Ok(())
    }
}
