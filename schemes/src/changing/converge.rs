//! When the hottest node share settles after a change ([`converge_secs`]): the one rule of
//! `converge_secs` for scenario events, balancers under a scenario and balancers that start
//! grown (`grown_from`), over windows stamped with their start ([`Settling`]).

use super::{WindowLoad, WindowLog};
use crate::value::MetricDef;

/// `converge_secs` of a balancer run without a scenario, whose nodes change once, at the
/// start (`grown_from`: the nodes beyond the first M join empty).
pub const CONVERGE_AFTER_START: MetricDef = MetricDef {
    name: "converge_secs",
    unit: "s",
    definition: "Seconds from the start (when the nodes beyond grown_from join empty) until the hottest node share of every later window stays within a band of its settled value (the mean of the last quarter of the windows): max(0.02, 10% of it, 3 binomial standard deviations of a share of the window's requests); resolution one window; window starts in seconds of trace time from the first event, or event positions without timestamps. Under a scenario: after each event (the scenario's converge_secs).",
};

/// One window: its start (seconds from the first event, or an event position without
/// timestamps), the busiest node's share of its node requests, and those requests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WindowShare {
    /// The window's start.
    pub start: f64,
    /// The busiest node's share of its node requests (0 when idle).
    pub hottest: f64,
    /// Its node requests.
    pub requests: u64,
}

/// Seconds after `at` until the hottest node share of every later window starting before
/// `until` stays within a band of its settled value (the mean of the last quarter of those
/// windows): max(0.02, 10% of it, 3 binomial standard deviations of a share of the window's
/// requests); resolution one window. `None` without a window in `[at, until)`.
pub fn converge_secs(windows: &[WindowShare], at: f64, until: f64) -> Option<f64> {
    let segment: Vec<WindowShare> = windows
        .iter()
        .copied()
        .filter(|w| w.start >= at && w.start < until)
        .collect();
    if segment.is_empty() {
        return None;
    }
    let tail = &segment[segment.len() - segment.len().div_ceil(4)..];
    let settled = tail.iter().map(|w| w.hottest).sum::<f64>() / tail.len() as f64;
    // A thin window is noisy: its band widens with the binomial deviation of its share.
    let in_band = |w: &WindowShare| {
        let noise = 3.0 * (settled * (1.0 - settled) / w.requests.max(1) as f64).sqrt();
        (w.hottest - settled).abs() <= (0.1 * settled).max(0.02).max(noise)
    };
    let from = segment
        .iter()
        .rposition(|w| !in_band(w))
        .map_or(0, |k| k + 1);
    segment.get(from).map(|w| elapsed(at, w.start).max(0.0))
}

/// Seconds from `from` to `to`, both times of a run (seconds from its first timestamp, whole
/// nanoseconds of it, or event positions): rounded to the nanosecond, so that 12.999 - 12 is
/// 0.999 and not the 0.9990000000000006 of the float subtraction.
pub fn elapsed(from: f64, to: f64) -> f64 {
    ((to - from) * 1e9).round() / 1e9
}

/// The windows of a run, each stamped with the time of its first event: seconds from the
/// run's first timestamp (in the trace's unit), or the event's position without timestamps.
#[derive(Clone, Debug, Default)]
pub struct Settling {
    unit_ns: u64,
    origin: Option<u64>,
    position: u64,
    windows: Vec<WindowShare>,
}

impl Settling {
    /// No window yet, for a trace whose timestamps count `unit_ns` nanoseconds.
    pub fn new(unit_ns: u64) -> Settling {
        Settling {
            unit_ns: unit_ns.max(1),
            ..Settling::default()
        }
    }

    /// Records a closed window (an idle one starts where the last one started).
    pub fn record(&mut self, log: &WindowLog, load: &WindowLoad<'_>) {
        let last = self.windows.last().map_or(0.0, |w| w.start);
        let start = match log.events().next() {
            None => last,
            Some(e) => match e.timestamp {
                Some(ts) => {
                    let origin = *self.origin.get_or_insert(ts);
                    let ns = ts.saturating_sub(origin) as f64 * self.unit_ns as f64;
                    (ns / 1e9).max(last)
                }
                None => self.position as f64,
            },
        };
        self.position += log.len() as u64;
        self.windows.push(WindowShare {
            start,
            hottest: load.hottest_node_share,
            requests: load.requests,
        });
    }

    /// [`converge_secs`] after the start of the run (the moment `grown_from` nodes joined).
    pub fn after_start(&self) -> Option<f64> {
        converge_secs(&self.windows, 0.0, f64::INFINITY)
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn elapsed_time_is_exact_to_the_nanosecond() {
        assert_eq!(elapsed(12.0, 12.999), 0.999);
        assert_eq!(format!("{}", elapsed(12.0, 12.999)), "0.999");
        assert_eq!(elapsed(3.0, 10.0), 7.0);
        assert_eq!(elapsed(0.5, 0.5), 0.0);
    }
    use super::*;

    fn windows(shares: &[f64]) -> Vec<WindowShare> {
        shares
            .iter()
            .enumerate()
            .map(|(i, &hottest)| WindowShare {
                start: 10.0 * i as f64,
                hottest,
                requests: 1_000_000,
            })
            .collect()
    }

    #[test]
    fn the_share_settles_at_the_first_window_of_the_band_that_lasts() {
        let w = windows(&[0.9, 0.6, 0.4, 0.26, 0.25, 0.25, 0.25, 0.25]);
        assert_eq!(converge_secs(&w, 0.0, f64::INFINITY), Some(30.0));
        // A window that leaves the band later restarts the count.
        let w = windows(&[0.25, 0.25, 0.5, 0.25, 0.25, 0.25, 0.25, 0.25]);
        assert_eq!(converge_secs(&w, 0.0, f64::INFINITY), Some(30.0));
        assert_eq!(converge_secs(&w, 0.0, 25.0), Some(20.0));
        assert_eq!(converge_secs(&w, 100.0, f64::INFINITY), None);
    }
}
