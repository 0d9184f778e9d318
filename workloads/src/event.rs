//! Events and the chunks they travel in.
//!
//! Events are stored in [`EventChunk`]s: a vector of small fixed-size records plus one
//! byte arena holding every key, so that reading or generating an event never allocates.

use serde::Serialize;

/// What an event does to its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// A point read.
    Get,
    /// A point write (insert or update).
    Put,
    /// A point delete.
    Delete,
    /// A range scan over `[key, end)`.
    Scan,
}

impl Op {
    /// All operations, in a fixed order (used for op-mix tables).
    pub const ALL: [Op; 4] = [Op::Get, Op::Put, Op::Delete, Op::Scan];

    /// The lowercase name used in traces and reports.
    pub fn name(self) -> &'static str {
        match self {
            Op::Get => "get",
            Op::Put => "put",
            Op::Delete => "delete",
            Op::Scan => "scan",
        }
    }

    /// Parses the canonical names `get`, `put`, `delete`, `scan` (exact, lowercase).
    pub fn from_name(name: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|op| op.name() == name)
    }

    /// True for the operations that address one key (everything but scans).
    #[inline]
    pub fn is_point(self) -> bool {
        self != Op::Scan
    }
}

/// One event, borrowed from the chunk that holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event<'a> {
    /// The operation.
    pub op: Op,
    /// The key (for a scan, its inclusive start).
    pub key: &'a [u8],
    /// For a scan, the exclusive end key.
    pub end: Option<&'a [u8]>,
    /// Optional timestamp, in the trace's own unit (microseconds for synthetic workloads).
    pub timestamp: Option<u64>,
    /// Optional value size in bytes.
    pub size: Option<u32>,
}

#[derive(Clone, Copy, Debug)]
struct Record {
    op: Op,
    key_start: u32,
    key_len: u32,
    end_len: Option<u32>,
    timestamp: Option<u64>,
    size: Option<u32>,
}

/// A batch of consecutive events of one stream; keys live in one shared arena.
#[derive(Clone, Debug, Default)]
pub struct EventChunk {
    /// Position of the first event of this chunk in its stream (0-based).
    pub first_index: u64,
    records: Vec<Record>,
    arena: Vec<u8>,
}

impl EventChunk {
    /// An empty chunk with room for `events` events.
    pub fn with_capacity(events: usize) -> Self {
        EventChunk {
            first_index: 0,
            records: Vec::with_capacity(events),
            arena: Vec::with_capacity(events * 8),
        }
    }

    /// Removes every event, keeping the allocations.
    pub fn clear(&mut self) {
        self.records.clear();
        self.arena.clear();
    }

    /// Number of events in the chunk.
    #[inline]
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// True when the chunk holds no event.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Appends a copy of `event`.
    #[inline]
    pub fn push(&mut self, event: Event<'_>) {
        let key_start = self.arena.len() as u32;
        self.arena.extend_from_slice(event.key);
        let end_len = event.end.map(|end| {
            self.arena.extend_from_slice(end);
            end.len() as u32
        });
        self.records.push(Record {
            op: event.op,
            key_start,
            key_len: event.key.len() as u32,
            end_len,
            timestamp: event.timestamp,
            size: event.size,
        });
    }

    /// The `i`-th event. Panics when `i >= len()`.
    #[inline]
    pub fn get(&self, i: usize) -> Event<'_> {
        let r = &self.records[i];
        let ks = r.key_start as usize;
        let ke = ks + r.key_len as usize;
        Event {
            op: r.op,
            key: &self.arena[ks..ke],
            end: r.end_len.map(|len| &self.arena[ke..ke + len as usize]),
            timestamp: r.timestamp,
            size: r.size,
        }
    }

    /// The events in order.
    #[inline]
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Event<'_>> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// Moves the events from `from` on into a new chunk (used to cut a warm-up prefix).
    pub fn split_off(&mut self, from: usize) -> EventChunk {
        let mut tail = EventChunk::with_capacity(self.len().saturating_sub(from));
        tail.first_index = self.first_index + from as u64;
        for i in from..self.len() {
            tail.push(self.get(i));
        }
        let arena_end = self
            .records
            .get(from)
            .map_or(self.arena.len(), |r| r.key_start as usize);
        self.records.truncate(from);
        self.arena.truncate(arena_end);
        tail
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_returns_the_events_it_was_given() {
        let mut chunk = EventChunk::default();
        let a = Event {
            op: Op::Put,
            key: b"alpha",
            end: None,
            timestamp: Some(7),
            size: Some(3),
        };
        let b = Event {
            op: Op::Scan,
            key: b"b",
            end: Some(b"c"),
            timestamp: None,
            size: None,
        };
        chunk.push(a);
        chunk.push(b);
        assert_eq!(chunk.len(), 2);
        assert_eq!(chunk.get(0), a);
        assert_eq!(chunk.get(1), b);
        let tail = chunk.split_off(1);
        assert_eq!(chunk.len(), 1);
        assert_eq!(tail.get(0), b);
        assert_eq!(tail.first_index, 1);
        assert_eq!(chunk.get(0), a);
    }

    #[test]
    fn op_names_round_trip() {
        for op in Op::ALL {
            assert_eq!(Op::from_name(op.name()), Some(op));
        }
        assert_eq!(Op::from_name("GET"), None);
    }
}
