//! Warnings about the time axis of a plan, which every rate rests on: a trace that falls in
//! two or fewer rate windows (its peak is then an average, not a burst), and timestamps whose
//! span is implausible in the time unit they are read in (a trace in microseconds read as
//! seconds spans weeks; one in seconds read as microseconds, milliseconds). Each warning
//! names the option to change.

use std::ops::RangeInclusive;

use super::clock::Clock;
use super::traffic::Traffic;

/// The spans a recorded trace is expected to have: from 1 second to 366 days.
pub const PLAUSIBLE_SPAN_SECS: RangeInclusive<f64> = 1.0..=366.0 * 86_400.0;

/// The most rate windows that still draw a warning.
pub const FEW_WINDOWS: u64 = 2;

/// The time units `--time-unit` takes, with their length in nanoseconds.
const UNITS: [(&str, u64); 4] = [
    ("s", 1_000_000_000),
    ("ms", 1_000_000),
    ("us", 1_000),
    ("ns", 1),
];

/// The warnings for `traffic` read on `clock`, in order: the span, then the windows.
pub fn warnings(traffic: &Traffic, clock: Clock) -> Vec<String> {
    let mut out = Vec::new();
    let span = traffic.span_secs();
    let tick_ns = match clock {
        Clock::Timestamps { nanos_per_tick } => {
            if !PLAUSIBLE_SPAN_SECS.contains(&span) {
                out.push(implausible_span(span, nanos_per_tick));
            }
            nanos_per_tick
        }
        Clock::Rate { .. } => 1,
    };
    let windows = traffic.windows();
    if windows <= FEW_WINDOWS {
        out.push(format!(
            "The measured events fall in {windows} rate window{} of {}: peak and p99 rates are \
             averages over the whole trace ({}), not bursts; give a shorter --rate-window{}, or \
             check the timestamps' unit (--time-unit).",
            if windows == 1 { "" } else { "s" },
            duration(traffic.window_secs()),
            duration(span),
            shorter_window(span, tick_ns)
                .map(|w| format!(" (e.g. {w})"))
                .unwrap_or_default(),
        ));
    }
    out
}

/// The warning for a span outside [`PLAUSIBLE_SPAN_SECS`] read in ticks of `nanos_per_tick`,
/// with the units that would give a plausible one.
fn implausible_span(span: f64, nanos_per_tick: u64) -> String {
    let unit = unit_name(nanos_per_tick);
    let ticks = span * 1e9 / nanos_per_tick as f64;
    let others: Vec<String> = UNITS
        .iter()
        .filter(|(_, ns)| *ns != nanos_per_tick)
        .map(|&(name, ns)| (name, ticks * ns as f64 / 1e9))
        .filter(|(_, secs)| PLAUSIBLE_SPAN_SECS.contains(secs))
        .map(|(name, secs)| format!("--time-unit {name} gives {}", duration(secs)))
        .collect();
    let advice = if others.is_empty() && ticks == 0.0 {
        "every measured event has the same timestamp; give --rate R to place the events in time"
            .to_string()
    } else if others.is_empty() {
        "check the timestamps' unit (--time-unit) or give --rate R".to_string()
    } else {
        format!("if they are in another unit, {}", others.join("; "))
    };
    format!(
        "The timestamps span {} read in {unit} (--time-unit {unit}), outside the 1 s to 366 days \
         expected of a recorded trace: {advice}.",
        duration(span)
    )
}

/// `--time-unit`'s name for a tick of `nanos` nanoseconds.
fn unit_name(nanos: u64) -> String {
    UNITS
        .iter()
        .find(|(_, ns)| *ns == nanos)
        .map_or_else(|| format!("{nanos} ns ticks"), |(name, _)| name.to_string())
}

/// A `--rate-window` that gives about 100 windows or more over `span` seconds: the longest of
/// 1us, 10us, ... 10s, 1m that is at most `span / 100` and a whole number of timestamp ticks
/// of `tick_ns` nanoseconds; `None` when there is none.
fn shorter_window(span: f64, tick_ns: u64) -> Option<&'static str> {
    const CHOICES: [(&str, u64); 9] = [
        ("1m", 60_000_000_000),
        ("10s", 10_000_000_000),
        ("1s", 1_000_000_000),
        ("100ms", 100_000_000),
        ("10ms", 10_000_000),
        ("1ms", 1_000_000),
        ("100us", 100_000),
        ("10us", 10_000),
        ("1us", 1_000),
    ];
    CHOICES
        .iter()
        .find(|(_, ns)| *ns as f64 / 1e9 <= span / 100.0 && ns.is_multiple_of(tick_ns))
        .map(|(name, _)| *name)
}

/// A duration for people: `7.2 ms`, `2.0 h`, `65 days`, `3.1 years`.
pub fn duration(secs: f64) -> String {
    const STEPS: [(f64, &str); 6] = [
        (365.25 * 86_400.0, "years"),
        (86_400.0, "days"),
        (3_600.0, "h"),
        (60.0, "min"),
        (1.0, "s"),
        (1e-3, "ms"),
    ];
    match STEPS.iter().find(|(unit, _)| secs >= *unit) {
        Some((unit, name)) => format!("{:.1} {name}", secs / unit),
        None => format!("{:.1} us", secs * 1e6),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_in_the_largest_whole_unit() {
        assert_eq!(duration(0.0072), "7.2 ms");
        assert_eq!(duration(7_200.0), "2.0 h");
        assert_eq!(duration(86_400.0 * 65.2), "65.2 days");
        assert_eq!(duration(0.0), "0.0 us");
        assert_eq!(duration(90.0), "1.5 min");
    }

    #[test]
    fn an_implausible_span_names_the_units_that_would_be_plausible() {
        // 7,200 ticks read as microseconds: 7.2 ms; as ms 7.2 s, as s 2 h.
        let w = implausible_span(0.0072, 1_000);
        assert!(w.contains("7.2 ms read in us"), "{w}");
        assert!(
            w.contains("--time-unit s gives 2.0 h; --time-unit ms gives 7.2 s"),
            "{w}"
        );
        // 2,000,000,000 s read as seconds: 63 years; as ms 23 days.
        let w = implausible_span(2e9, 1_000_000_000);
        assert!(w.contains("63.4 years read in s"), "{w}");
        assert!(w.contains("--time-unit ms gives 23.1 days"), "{w}");
        assert!(w.contains("--time-unit us gives 33.3 min"), "{w}");
        let w = implausible_span(0.0, 1_000);
        assert!(w.contains("same timestamp") && w.contains("--rate"), "{w}");
    }

    #[test]
    fn the_suggested_window_gives_about_a_hundred_windows() {
        assert_eq!(shorter_window(0.0072, 1_000), Some("10us"));
        assert_eq!(shorter_window(7_200.0, 1_000), Some("1m"));
        assert_eq!(shorter_window(50.0, 1), Some("100ms"));
        assert_eq!(shorter_window(0.00005, 1), None);
        // Windows are whole numbers of the timestamps' unit.
        assert_eq!(shorter_window(50.0, 1_000_000_000), None);
        assert_eq!(shorter_window(500.0, 1_000_000_000), Some("1s"));
    }
}
