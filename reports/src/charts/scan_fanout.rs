//! Shards contacted per scan against the scan length (the `scan_len` parameter of synthetic
//! workloads, 100 when not given), one line per scheme, one panel per workload family.

use super::style::{self, whole, LinePanel, Series};
use super::sweep::{flat_reference, metric_lines};
use super::{Canvas, Chart, ChartInput, DrawResult, Scope};
use crate::data::{RunData, DEFAULT_SCAN_LEN};
use engine::metrics::registry::fanout::SCAN_FANOUT_MEAN;

/// Scan fan-out against scan length.
pub struct ScanFanoutChart;

/// Workloads with scans grouped by their label without `scan_len`, each group at the first
/// shard count of its first workload.
fn panels(data: &RunData) -> Vec<(String, u32, Vec<Series>)> {
    let groups = data
        .families("scan_len", Some(DEFAULT_SCAN_LEN))
        .into_iter()
        .filter_map(|f| {
            let n = data.base_shards(f.members.first()?.1)?;
            Some((f.label, n, f.members))
        });
    groups
        .filter_map(|(family, n, members)| {
            let at: Vec<(f64, &str, u32)> = members.iter().map(|&(len, w)| (len, w, n)).collect();
            let lines = metric_lines(data, SCAN_FANOUT_MEAN, &at);
            (!lines.is_empty()).then_some((family, n, lines))
        })
        .collect()
}

impl Chart for ScanFanoutChart {
    fn name(&self) -> &'static str {
        "scan_fanout"
    }
    fn title(&self) -> &'static str {
        "Scan fan-out against scan length"
    }
    fn scope(&self) -> Scope {
        Scope::Run
    }
    fn skip_reason(&self, input: &ChartInput<'_>) -> Option<String> {
        panels(input.data)
            .is_empty()
            .then(|| "no workload of the run has scans".into())
    }
    fn caption(&self, _input: &ChartInput<'_>) -> String {
        format!("Mean shards contacted per scan; scan length from the workload's scan_len (default {DEFAULT_SCAN_LEN}). With one scan length, one bar per scheme; with several, one line per scheme. Dashed: every shard.")
    }
    fn size(&self, input: &ChartInput<'_>) -> (u32, u32) {
        style::grid_size(panels(input.data).len())
    }
    fn draw(&self, input: &ChartInput<'_>, root: &Canvas<'_>) -> DrawResult {
        let panels = panels(input.data);
        let title = "Scan fan-out against scan length";
        let grid: Vec<LinePanel> = panels
            .into_iter()
            .map(|(family, n, mut lines)| {
                lines.push(flat_reference("every shard (N)", &lines, n as f64));
                LinePanel {
                    caption: format!("{family} (N = {n})"),
                    x_desc: "scan length (keys)",
                    y_desc: "shards per scan (mean)",
                    y_format: fanout,
                    x_format: whole,
                    y_from_zero: true,
                    series: lines,
                }
            })
            .collect();
        style::draw_line_grid(root, title, &grid)
    }
}

/// Shards per scan on the axis.
fn fanout(v: &f64) -> String {
    format!("{v:.1}")
}
