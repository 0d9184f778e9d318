//! The byte budget that paces a balancer's moves, earned with trace time as a scenario's
//! `--move-rate` is: `rate` bytes per second of trace time between window ends, or per event
//! when the events carry no timestamps.

use super::WindowLog;

/// Bytes a balancer may still move.
#[derive(Clone, Debug)]
pub struct MoveBudget {
    /// Bytes earned per second (per event without timestamps); `None`: moves are instant.
    rate: Option<f64>,
    /// Nanoseconds of one timestamp unit of the trace.
    unit_ns: u64,
    /// The last timestamp of the windows earned so far.
    last: Option<u64>,
    /// Bytes left.
    left: f64,
}

impl MoveBudget {
    /// A budget of `rate` bytes per second (per event without timestamps) of a trace whose
    /// timestamps count `unit_ns` nanoseconds; every move fits without a rate.
    pub fn new(rate: Option<u64>, unit_ns: u64) -> MoveBudget {
        MoveBudget {
            rate: rate.map(|r| r as f64),
            unit_ns: unit_ns.max(1),
            last: None,
            left: 0.0,
        }
    }

    /// Adds what window `log` earns: `rate` times the seconds from the last timestamp of the
    /// windows before (the window's first timestamp for the first) to the window's last, or
    /// times its events when it has no timestamp.
    pub fn earn(&mut self, log: &WindowLog) {
        let Some(rate) = self.rate else { return };
        let mut stamps = log.events().filter_map(|e| e.timestamp);
        let earned = match (stamps.next(), stamps.last()) {
            (Some(first), last) => {
                let last = last.unwrap_or(first);
                let from = self.last.unwrap_or(first).min(last);
                self.last = Some(last);
                rate * ((last - from) as f64 * self.unit_ns as f64 / 1e9)
            }
            (None, _) => rate * log.len() as f64,
        };
        self.left += earned;
    }

    /// Takes `bytes` when they fit in what is left (always without a rate).
    pub fn take(&mut self, bytes: u64) -> bool {
        if self.rate.is_none() {
            return true;
        }
        let fits = bytes as f64 <= self.left;
        if fits {
            self.left -= bytes as f64;
        }
        fits
    }

    /// Drops what is left: nothing waits to move, and a budget is not saved up for later.
    pub fn reset(&mut self) {
        self.left = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use workloads::{Event, Op};

    fn log(stamps: &[Option<u64>]) -> WindowLog {
        let mut log = WindowLog::default();
        for &t in stamps {
            log.push(Event {
                op: Op::Get,
                key: b"k",
                end: None,
                timestamp: t,
                size: None,
            });
        }
        log
    }

    #[test]
    fn bytes_are_earned_per_second_of_trace_time_or_per_event() {
        // Timestamps in ms: the first window spans 2 s, the second 3 s from the first's end.
        let mut b = MoveBudget::new(Some(100), 1_000_000);
        b.earn(&log(&[Some(1_000), Some(3_000)]));
        assert!(b.take(150) && !b.take(51) && b.take(50));
        b.earn(&log(&[Some(5_000), Some(6_000)]));
        assert!(b.take(300) && !b.take(1));
        // Without timestamps, per event.
        let mut b = MoveBudget::new(Some(10), 1);
        b.earn(&log(&[None, None, None]));
        assert!(b.take(30) && !b.take(1));
        b.earn(&log(&[None]));
        b.reset();
        assert!(!b.take(1));
        // Without a rate every move fits.
        assert!(MoveBudget::new(None, 1).take(u64::MAX));
    }
}
