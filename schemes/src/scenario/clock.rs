//! The time of each event of a scenario run ([`EventClock`]): seconds from the first
//! event's timestamp, or the event's position for traces without timestamps.

use workloads::Event;

/// Reads the time of every event in stream order.
#[derive(Clone, Debug)]
pub struct EventClock {
    /// Nanoseconds of one timestamp unit of the trace.
    unit_ns: u64,
    /// The first timestamp seen.
    origin: Option<u64>,
    /// The position of the next event.
    position: u64,
    /// The time of the last event (time never goes backwards).
    now: f64,
}

impl EventClock {
    /// A clock for a trace whose timestamps count `unit_ns` nanoseconds.
    pub fn new(unit_ns: u64) -> EventClock {
        EventClock {
            unit_ns,
            origin: None,
            position: 0,
            now: 0.0,
        }
    }

    /// The time of `e` in seconds (or its position) and the whole seconds elapsed.
    pub fn tick(&mut self, e: &Event<'_>) -> (f64, u64) {
        let position = self.position;
        self.position += 1;
        let (now, second) = match e.timestamp {
            Some(ts) => {
                let origin = *self.origin.get_or_insert(ts);
                let ns = u128::from(ts.saturating_sub(origin)) * u128::from(self.unit_ns);
                ((ns as f64 / 1e9).max(self.now), (ns / 1_000_000_000) as u64)
            }
            None => (position as f64, position),
        };
        self.now = now;
        (now, second)
    }
}
