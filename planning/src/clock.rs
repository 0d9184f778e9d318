//! Where events sit in time, and the rate windows they fall in.
//!
//! Windows are aligned to multiples of the window length from time 0 (for timestamps, the
//! trace's own zero; for `--rate`, the first event of the stream), so a window is "second 17",
//! not "the 17th second after the first event".

use schemes::AnalysisError;

/// How an event's time is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// From the event's timestamp, counted in ticks of `nanos_per_tick` nanoseconds (1,000
    /// for microseconds, the unit of synthetic workloads).
    Timestamps {
        /// Nanoseconds per timestamp unit.
        nanos_per_tick: u64,
    },
    /// Event `i` of the stream (0-based, warm-up included) happens at `i / events_per_sec`
    /// seconds; timestamps are ignored.
    Rate {
        /// Events per second.
        events_per_sec: u64,
    },
}

/// Nanoseconds in one unit named `s`, `ms`, `us` or `ns`.
pub fn nanos_per_unit(unit: &str) -> Option<u64> {
    match unit {
        "s" => Some(1_000_000_000),
        "ms" => Some(1_000_000),
        "us" => Some(1_000),
        "ns" => Some(1),
        _ => None,
    }
}

/// Parses a duration such as `1s`, `250ms`, `10us` or `2m` into nanoseconds (at least 1).
pub fn parse_duration_ns(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let nanos = match unit {
        "m" => Some(60_000_000_000),
        "" => None,
        u => nanos_per_unit(u),
    };
    let expected = "expected a whole number with a unit: ns, us, ms, s or m (e.g. 1s, 250ms)";
    match (digits.parse::<u64>(), nanos) {
        (Ok(n), Some(unit)) if n > 0 => n
            .checked_mul(unit)
            .ok_or_else(|| format!("'{text}' is too long")),
        (Ok(0), Some(_)) => Err(format!("'{text}' must be longer than 0")),
        _ => Err(format!("'{text}': {expected}")),
    }
}

/// Rate windows of a fixed length on a [`Clock`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Windows {
    clock: Clock,
    window_ns: u64,
    /// Window length in timestamp ticks (for [`Clock::Timestamps`]).
    ticks: u64,
}

impl Windows {
    /// Windows of `window_ns` nanoseconds. For timestamps the window must be a whole number
    /// (at least 1) of timestamp units; a rate must be at least 1 event per second.
    pub fn new(clock: Clock, window_ns: u64) -> Result<Windows, AnalysisError> {
        if window_ns == 0 {
            return Err(AnalysisError::Config(
                "--rate-window must be longer than 0".into(),
            ));
        }
        let ticks = match clock {
            Clock::Timestamps { nanos_per_tick } => {
                if nanos_per_tick == 0 || !window_ns.is_multiple_of(nanos_per_tick) {
                    return Err(AnalysisError::Config(format!(
                        "--rate-window of {window_ns} ns is not a whole number of the trace's time unit \
                         ({nanos_per_tick} ns); choose a window in whole units"
                    )));
                }
                window_ns / nanos_per_tick
            }
            Clock::Rate { events_per_sec: 0 } => {
                return Err(AnalysisError::Config(
                    "--rate must be at least 1 event per second".into(),
                ))
            }
            Clock::Rate { .. } => 0,
        };
        Ok(Windows {
            clock,
            window_ns,
            ticks,
        })
    }

    /// The window length in seconds.
    pub fn seconds(&self) -> f64 {
        self.window_ns as f64 / 1e9
    }

    /// The clock.
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// The window (counted from time 0) of the event at stream position `index` with
    /// `timestamp`. Errors when the clock needs a timestamp and the event has none.
    #[inline]
    pub fn window_of(&self, index: u64, timestamp: Option<u64>) -> Result<u64, AnalysisError> {
        match self.clock {
            Clock::Timestamps { .. } => match timestamp {
                Some(t) => Ok(t / self.ticks),
                None => Err(AnalysisError::Config(format!(
                    "event {} has no timestamp: rates need a timestamp on every event (the \
                     trace's timestamp column), or --rate R to place events R per second",
                    index + 1
                ))),
            },
            Clock::Rate { events_per_sec } => {
                // floor(i / (rate * window_seconds)) = floor(i * 1e9 / (rate * window_ns)).
                let window = u128::from(index) * 1_000_000_000
                    / (u128::from(events_per_sec) * u128::from(self.window_ns));
                Ok(u64::try_from(window).unwrap_or(u64::MAX))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_need_a_unit_and_a_positive_length() {
        assert_eq!(parse_duration_ns("1s"), Ok(1_000_000_000));
        assert_eq!(parse_duration_ns("250ms"), Ok(250_000_000));
        assert_eq!(parse_duration_ns("2m"), Ok(120_000_000_000));
        for bad in ["1", "s", "0s", "1.5s", "1h", "-1s"] {
            assert!(parse_duration_ns(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn timestamps_fall_in_whole_windows_from_time_zero() {
        let w = Windows::new(
            Clock::Timestamps {
                nanos_per_tick: 1_000,
            },
            1_000_000_000,
        )
        .unwrap();
        assert_eq!(
            [0, 999_999, 1_000_000, 5_500_000].map(|t| w.window_of(0, Some(t)).unwrap()),
            [0, 0, 1, 5]
        );
        assert!(w
            .window_of(6, None)
            .unwrap_err()
            .to_string()
            .contains("event 7 has no timestamp"));
        assert!(Windows::new(
            Clock::Timestamps {
                nanos_per_tick: 1_000_000_000
            },
            500_000_000
        )
        .is_err());
    }

    #[test]
    fn a_rate_places_event_i_at_i_over_rate_seconds() {
        let w = Windows::new(Clock::Rate { events_per_sec: 4 }, 500_000_000).unwrap();
        // Two events per half-second window.
        assert_eq!(
            [0, 1, 2, 3, 4].map(|i| w.window_of(i, None).unwrap()),
            [0, 0, 1, 1, 2]
        );
        assert!(Windows::new(Clock::Rate { events_per_sec: 0 }, 1).is_err());
        assert!((w.seconds() - 0.5).abs() < 1e-15);
    }
}
