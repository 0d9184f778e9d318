//! Split-key quality per finder, from `finders.csv`: the mean balance |L-R|/(L+R) of the load
//! after each finder's split keys, beside the mean balance the optimal key would have given on
//! the same decisions (lower is better; 0 halves the load exactly). The means are computed by
//! `analysis` ([`schemes::range_dynamic::FinderSummary`]) and read from the file.

use plotters::prelude::*;

use super::style::{self, font, LegendEntry, Mark};
use super::{Canvas, Chart, ChartInput, DrawResult, Scope};
use crate::data::RunData;

/// Split balance per finder against the optimum.
pub struct SplitBalanceChart;

/// One finder's split quality over one dynamic run, as `finders.csv` gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct FinderBalance {
    /// The finder, followed by its run when the file holds several.
    pub label: String,
    /// `balance_mean`.
    pub after: f64,
    /// `optimal_balance_mean`.
    pub optimal: f64,
    /// `excess_over_optimal_mean`.
    pub excess: f64,
    /// `evaluated`: the splits judged on a next window.
    pub judged: u64,
}

/// The finders of `finders.csv` that judged a split, in file order.
pub fn finder_balances(data: &RunData) -> Vec<FinderBalance> {
    let rows = data.finders.as_deref().unwrap_or(&[]);
    let several_runs = rows.iter().any(|r| r.series() != rows[0].series());
    rows.iter()
        .filter(|r| r.evaluated > 0)
        .filter_map(|r| {
            Some(FinderBalance {
                label: if several_runs {
                    format!("{} ({})", r.finder, r.series())
                } else {
                    r.finder.clone()
                },
                after: r.balance_mean?,
                optimal: r.optimal_balance_mean?,
                excess: r.excess_over_optimal_mean?,
                judged: r.evaluated,
            })
        })
        .collect()
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
        match &input.data.finders {
            None => Some("the run has no finders.csv (no range-dynamic scheme)".into()),
            Some(_) if finder_balances(input.data).is_empty() => {
                Some("finders.csv records no split judged".into())
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
            .map(|f| format!("{} ({} splits)", f.label, f.judged))
            .collect();
        let y_max = finders
            .iter()
            .flat_map(|f| [f.after, f.optimal])
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
                    [
                        (x, 0.0),
                        (x + 0.28, if k == 0 { f.after } else { f.optimal }),
                    ],
                    color.filled(),
                )
            });
            chart.draw_series(rects)?;
        }
        Ok(())
    }
}
