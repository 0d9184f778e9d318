//! What the sweep charts share: one line per scheme of a summary metric across swept points
//! (skew, shard count, scan length), and a flat dashed reference across those points.

use super::style::{self, Series, Stroke};
use crate::data::RunData;
use crate::summary::SummaryRow;
use engine::metrics::MetricId;

/// One solid line per scheme of the run: `metric` at each `(x, workload, shard count)` point
/// that has a value, with its 95% interval where summary.csv gives one. Schemes with no value
/// at any point get no line.
pub fn metric_lines(data: &RunData, metric: MetricId, at: &[(f64, &str, u32)]) -> Vec<Series> {
    data.schemes()
        .into_iter()
        .filter_map(|scheme| {
            let rows: Vec<(f64, &SummaryRow)> = at
                .iter()
                .filter_map(|&(x, w, n)| Some((x, data.metric_row(w, scheme, n, metric)?)))
                .collect();
            let points: Vec<(f64, f64)> = rows
                .iter()
                .filter_map(|(x, r)| Some((*x, r.value?)))
                .collect();
            (!points.is_empty()).then(|| Series {
                label: scheme.to_string(),
                color: style::scheme_color(data, scheme),
                points,
                stroke: Stroke::Solid,
                whiskers: rows
                    .iter()
                    .filter_map(|(x, r)| r.ci().map(|(lo, hi)| (*x, lo, hi)))
                    .collect(),
            })
        })
        .collect()
}

/// A dashed reference line at height `y` from the smallest to the largest x of `lines`.
pub fn flat_reference(label: &str, lines: &[Series], y: f64) -> Series {
    let (lo, hi) = style::bounds(lines.iter().flat_map(|s| s.points.iter().map(|p| p.0)));
    Series {
        label: label.into(),
        color: style::REFERENCE,
        points: vec![(lo, y), (hi, y)],
        stroke: Stroke::Dashed,
        whiskers: Vec::new(),
    }
}
