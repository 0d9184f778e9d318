//! The hottest shard's share of each window's requests, one line per scheme: a monotonic hot
//! spot is a line near 100% however many shards there are.

use super::loads::windowed_loads;
use super::style::{self, percent, whole, LinePanel, Series, Stroke};
use super::{Canvas, Chart, ChartInput, DrawResult, Scope};
use crate::data::SchemeLoad;

/// Hottest-shard share over time.
pub struct HottestOverTime;

/// The most points drawn per line: past it, each point is the largest share over a run of
/// consecutive windows (a hot spot is never averaged away), so that a short `--window` on a
/// long trace draws in the time of any other chart.
const MAX_POINTS: usize = 2_000;

/// Windows per point for `windows` windows.
fn windows_per_point(windows: usize) -> usize {
    windows.div_ceil(MAX_POINTS).max(1)
}

/// The points of one line: (first window, largest share) of each run of windows, over the
/// full windows only (a short last window's share leans to 100%: [`SchemeLoad::full_windows`]).
fn points(load: &SchemeLoad) -> Vec<(f64, f64)> {
    let shares = &load.window_hottest_share;
    let full = load.full_windows();
    let per = windows_per_point(shares.len());
    shares
        .chunks(per)
        .zip(full.chunks(per))
        .enumerate()
        .filter_map(|(i, (run, full))| {
            let kept = run.iter().zip(full).filter(|(_, &f)| f).map(|(&s, _)| s);
            let top = kept.fold(None, |top: Option<f64>, s| {
                Some(top.map_or(s, |t| t.max(s)))
            });
            top.map(|top| ((i * per) as f64, top))
        })
        .collect()
}

/// One series per scheme with windows, and the shard count they share.
fn series(input: &ChartInput<'_>) -> (u32, Vec<Series>) {
    let (data, w) = (input.data, input.workload());
    let Some(n) = data.base_shards(w) else {
        return (0, vec![]);
    };
    let lines = windowed_loads(input)
        .into_iter()
        .map(|l| Series {
            label: l.scheme.clone(),
            color: style::scheme_color(data, &l.scheme),
            points: points(l),
            stroke: Stroke::Solid,
            whiskers: Vec::new(),
        })
        .collect();
    (n, lines)
}

impl Chart for HottestOverTime {
    fn name(&self) -> &'static str {
        "hottest_over_time"
    }
    fn title(&self) -> &'static str {
        "Hottest-shard share over time"
    }
    fn scope(&self) -> Scope {
        Scope::Workload
    }
    fn skip_reason(&self, input: &ChartInput<'_>) -> Option<String> {
        series(input)
            .1
            .is_empty()
            .then(|| "windows.csv has no rows for this workload".into())
    }
    fn caption(&self, input: &ChartInput<'_>) -> String {
        let windows = windowed_loads(input)
            .iter()
            .map(|l| l.window_requests.len())
            .max()
            .unwrap_or(0);
        let (n, _) = series(input);
        let per = match windows_per_point(windows) {
            1 => String::new(),
            k => format!(" Each point is the largest share over {k} consecutive windows."),
        };
        let short = windowed_loads(input)
            .iter()
            .any(|l| l.full_windows().contains(&false));
        let short = match short {
            true => " A short last window (under half the requests of the fullest) is not drawn.",
            false => "",
        };
        format!("In each window of events, the share of requests taken by that window's hottest shard, N = {n}; dashed: fair share 1/N.{per}{short}")
    }
    fn size(&self, _input: &ChartInput<'_>) -> (u32, u32) {
        style::grid_size(1)
    }
    fn draw(&self, input: &ChartInput<'_>, root: &Canvas<'_>) -> DrawResult {
        let (n, mut lines) = series(input);
        let last = lines
            .iter()
            .filter_map(|s| s.points.last().map(|p| p.0))
            .fold(0.0, f64::max);
        let fair = 1.0 / n.max(1) as f64;
        lines.push(Series {
            label: format!("fair share {}", percent(&fair)),
            color: style::REFERENCE,
            points: vec![(0.0, fair), (last, fair)],
            stroke: Stroke::Dashed,
            whiskers: Vec::new(),
        });
        let legend = style::legend_of(&lines);
        let area = style::titled(
            root,
            &format!("Hottest-shard share over time: {}", input.workload()),
            &legend,
        )?;
        style::draw_line_panel(
            &area,
            &LinePanel {
                caption: format!("N = {n}"),
                x_desc: "window (index of --window events)",
                y_desc: "hottest shard's share (%)",
                y_format: percent,
                x_format: whole,
                y_from_zero: true,
                series: lines,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A load of `shares` whose windows hold `requests` requests each (2 shards).
    fn load(shares: &[f64], requests: &[u64]) -> SchemeLoad {
        SchemeLoad {
            workload: "w".into(),
            scheme: "hash".into(),
            shards: 2,
            shard_requests: vec![0, 0],
            shard_distinct_keys: vec![0, 0],
            shard_share: vec![0.5, 0.5],
            window_requests: requests.iter().map(|&r| vec![r, 0]).collect(),
            window_hottest_share: shares.to_vec(),
        }
    }

    #[test]
    fn long_lines_keep_the_largest_share_of_each_run_of_windows() {
        assert_eq!(
            points(&load(&[0.1, 0.5, 0.2], &[10, 10, 10])),
            [(0.0, 0.1), (1.0, 0.5), (2.0, 0.2)]
        );
        let mut shares = vec![0.1; 5_000];
        shares[4_321] = 0.9;
        let p = points(&load(&shares, &vec![10; 5_000]));
        assert_eq!(p.len(), 1_667); // 3 windows per point
        assert_eq!(p[1_440], (4_320.0, 0.9));
        assert!(p.iter().filter(|q| q.1 == 0.9).count() == 1);
    }

    #[test]
    fn a_short_last_window_is_not_drawn() {
        // The last window holds one request: its share of 100% is no hot spot.
        assert_eq!(
            points(&load(&[0.1, 0.5, 1.0], &[10, 10, 1])),
            [(0.0, 0.1), (1.0, 0.5)]
        );
        // Within a run of windows drawn as one point, the short one does not count.
        let mut shares = vec![0.1; 5_000];
        shares[4_999] = 1.0;
        let mut requests = vec![10; 5_000];
        requests[4_999] = 1;
        let p = points(&load(&shares, &requests));
        assert!(p.iter().all(|q| q.1 == 0.1), "{:?}", p.last());
    }
}
