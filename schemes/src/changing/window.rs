//! Cutting the event stream into windows: by timestamp when the events carry them, else by
//! event count.
//!
//! With `window_time=auto` the first `window + 1` events are buffered: when the first and
//! the last of them carry timestamps `t0 < tn`, windows are `[t0 + i*D, t0 + (i+1)*D)` with
//! `D = tn - t0`, so a trace at a steady rate has `window` events per window; otherwise
//! windows hold `window` events. In time mode an event without a timestamp, or with one
//! earlier than its predecessor's window, joins the current window. Up to
//! [`MAX_IDLE_WINDOWS`] empty windows of a gap are simulated (loads decay, merges happen);
//! the rest of a longer gap is skipped, so window indices jump.

use std::cell::OnceCell;

use serde::{Deserialize, Serialize};
use workloads::{Event, EventChunk};

/// How events are cut into windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowTime {
    /// By timestamp when the events carry them (window length calibrated so that the first
    /// window holds `window` events), else by event count.
    Auto,
    /// By event count.
    Events,
    /// By timestamp, windows of this many timestamp units (by event count without timestamps).
    Fixed(u64),
}

/// How the run cut events into windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowClock {
    /// Windows of this many events.
    Events(u64),
    /// Windows of this many timestamp units.
    Time(u64),
}

/// The events of one window, in arrival order, with an index by key built on demand.
#[derive(Debug, Default)]
pub struct WindowLog {
    pub(crate) events: EventChunk,
    /// Point events sorted by key (then arrival), and scans sorted by start key.
    pub(crate) index: OnceCell<(Vec<u32>, Vec<u32>)>,
}

impl WindowLog {
    /// Appends an event.
    pub fn push(&mut self, event: Event<'_>) {
        self.events.push(event);
        self.index = OnceCell::new();
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// True when the window holds no event.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The events in arrival order.
    pub fn events(&self) -> impl ExactSizeIterator<Item = Event<'_>> + '_ {
        self.events.iter()
    }

    /// The `i`-th event (in arrival order).
    pub fn get(&self, i: usize) -> Event<'_> {
        self.events.get(i)
    }

    /// Empties the log, keeping its allocations.
    pub fn clear(&mut self) {
        self.events.clear();
        self.index = OnceCell::new();
    }
}

/// Empty windows of one gap that are simulated; later ones are skipped.
pub const MAX_IDLE_WINDOWS: u64 = 1024;

/// Receives each window when it closes.
pub trait WindowSink {
    /// Window `index` is complete with the events in `log` (in arrival order).
    fn close(&mut self, index: u64, log: &WindowLog);
}

#[derive(Clone, Copy, Debug)]
enum State {
    /// Buffering the first `window + 1` events to choose the clock.
    Calibrating,
    /// Waiting for the first event to anchor windows of `length` time units.
    Anchoring { length: u64 },
    /// `count` events so far in the current window.
    Events { count: u64 },
    /// Time windows from `origin`.
    Time { origin: u64, length: u64 },
}

/// Assigns events to windows and closes each window into a [`WindowSink`].
pub struct Windower {
    state: State,
    events_per_window: u64,
    log: WindowLog,
    index: u64,
}

impl Windower {
    /// A windower for `mode`; `events` (at least 1) is the window length in events.
    pub fn new(mode: WindowTime, events: u64) -> Windower {
        let events_per_window = events.max(1);
        let state = match mode {
            WindowTime::Auto => State::Calibrating,
            WindowTime::Events => State::Events { count: 0 },
            WindowTime::Fixed(length) => State::Anchoring {
                length: length.max(1),
            },
        };
        Windower {
            state,
            events_per_window,
            log: WindowLog::default(),
            index: 0,
        }
    }

    /// Adds the next event of the stream.
    pub fn push(&mut self, e: Event<'_>, sink: &mut dyn WindowSink) {
        match self.state {
            State::Calibrating => {
                self.log.push(e);
                if self.log.len() as u64 > self.events_per_window {
                    self.calibrate(sink);
                }
            }
            State::Anchoring { length } => {
                self.state = match e.timestamp {
                    Some(origin) => State::Time { origin, length },
                    None => State::Events { count: 0 },
                };
                self.push(e, sink);
            }
            State::Events { count } => {
                self.log.push(e);
                self.state = State::Events { count: count + 1 };
                if count + 1 >= self.events_per_window {
                    self.close(sink);
                    self.index += 1;
                    self.state = State::Events { count: 0 };
                }
            }
            State::Time { origin, length } => {
                let w = e
                    .timestamp
                    .map_or(self.index, |t| t.saturating_sub(origin) / length)
                    .max(self.index);
                if w > self.index {
                    self.close(sink);
                    let idle = (w - self.index - 1).min(MAX_IDLE_WINDOWS);
                    for i in 1..=idle {
                        sink.close(self.index + i, &self.log);
                    }
                    self.index = w;
                }
                self.log.push(e);
            }
        }
    }

    /// Closes the last window and says how windows were cut.
    pub fn finish(mut self, sink: &mut dyn WindowSink) -> WindowClock {
        if !self.log.is_empty() {
            self.close(sink);
        }
        match self.state {
            State::Time { length, .. } => WindowClock::Time(length),
            _ => WindowClock::Events(self.events_per_window),
        }
    }

    /// Chooses the clock from the buffered events and replays them through it.
    fn calibrate(&mut self, sink: &mut dyn WindowSink) {
        let n = self.events_per_window as usize;
        let (first, last) = (self.log.get(0).timestamp, self.log.get(n).timestamp);
        self.state = match (first, last) {
            (Some(t0), Some(tn)) if tn > t0 => State::Time {
                origin: t0,
                length: tn - t0,
            },
            _ => State::Events { count: 0 },
        };
        let buffered = std::mem::take(&mut self.log);
        for e in buffered.events() {
            self.push(e, sink);
        }
    }

    fn close(&mut self, sink: &mut dyn WindowSink) {
        sink.close(self.index, &self.log);
        self.log.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use workloads::Op;

    #[derive(Default)]
    struct Sizes(Vec<(u64, usize)>);

    impl WindowSink for Sizes {
        fn close(&mut self, index: u64, log: &WindowLog) {
            self.0.push((index, log.len()));
        }
    }

    fn run(
        mode: WindowTime,
        events: u64,
        stamps: &[Option<u64>],
    ) -> (Vec<(u64, usize)>, WindowClock) {
        let mut w = Windower::new(mode, events);
        let mut sink = Sizes::default();
        for &timestamp in stamps {
            w.push(
                Event {
                    op: Op::Get,
                    key: b"k",
                    end: None,
                    timestamp,
                    size: None,
                },
                &mut sink,
            );
        }
        let clock = w.finish(&mut sink);
        (sink.0, clock)
    }

    #[test]
    fn without_timestamps_windows_hold_a_fixed_number_of_events() {
        let (sizes, clock) = run(WindowTime::Auto, 4, &[None; 10]);
        assert_eq!(sizes, vec![(0, 4), (1, 4), (2, 2)]);
        assert_eq!(clock, WindowClock::Events(4));
    }

    #[test]
    fn timestamps_set_windows_calibrated_on_the_first_window() {
        // Two events per time unit: window of 4 events = 2 units.
        let stamps: Vec<Option<u64>> = (0..10).map(|i| Some(100 + i / 2)).collect();
        let (sizes, clock) = run(WindowTime::Auto, 4, &stamps);
        assert_eq!(sizes, vec![(0, 4), (1, 4), (2, 2)]);
        assert_eq!(clock, WindowClock::Time(2));
        // A burst fills one window; a gap leaves empty windows; a late event stays current.
        let stamps = [
            Some(0),
            Some(1),
            Some(2),
            Some(3),
            Some(4),
            Some(4),
            Some(4),
            Some(13),
            Some(2),
            None,
        ];
        let (sizes, _) = run(WindowTime::Auto, 4, &stamps);
        assert_eq!(sizes, vec![(0, 4), (1, 3), (2, 0), (3, 3)]);
    }

    #[test]
    fn a_fixed_length_anchors_on_the_first_timestamp_and_long_gaps_are_capped() {
        let (sizes, clock) = run(
            WindowTime::Fixed(10),
            1,
            &[Some(5), Some(14), Some(15), Some(10_000_000)],
        );
        assert_eq!(clock, WindowClock::Time(10));
        assert_eq!(sizes.len() as u64, 2 + MAX_IDLE_WINDOWS + 1);
        assert_eq!(sizes[0], (0, 2));
        assert_eq!(*sizes.last().unwrap(), (999_999, 1));
        let (_, clock) = run(WindowTime::Fixed(10), 3, &[None, Some(1)]);
        assert_eq!(clock, WindowClock::Events(3));
    }
}
