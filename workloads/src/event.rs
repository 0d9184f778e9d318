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

    /// True for the operations that change data: puts and deletes.
    #[inline]
    pub fn is_write(self) -> bool {
        matches!(self, Op::Put | Op::Delete)
    }
}

/// One event, borrowed from the chunk that holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event<'a> {
    /// The operation.
    pub op: Op,
    /// The key (for a scan or a range write, its inclusive start).
    pub key: &'a [u8],
    /// For a scan, the exclusive end key; for a put or delete, the exclusive end of a range
    /// write (every key of `[key, end)` written at once, as a multi-block write of a block
    /// trace); `None` for a point request.
    pub end: Option<&'a [u8]>,
    /// Optional timestamp, in the trace's own unit (microseconds for synthetic workloads).
    pub timestamp: Option<u64>,
    /// Optional value size in bytes.
    pub size: Option<u32>,
}

impl Event<'_> {
    /// True for a request to one key: not a scan and not a range write (a get's end, if
    /// any, is ignored).
    #[inline]
    pub fn is_point(&self) -> bool {
        !(self.op == Op::Scan || self.is_range_write())
    }

    /// The end of the keys `[key, end)` a scan or range write covers, when that range is not
    /// empty; `None` for a point request (and for an empty range, which a layout routes as
    /// its start key's).
    #[inline]
    pub fn covered_range(&self) -> Option<&[u8]> {
        self.end.filter(|end| !self.is_point() && *end > self.key)
    }

    /// True for a put or delete of every key in `[key, end)`.
    #[inline]
    pub fn is_range_write(&self) -> bool {
        self.op.is_write() && self.end.is_some()
    }
}

/// The fixed part of one event, 16 bytes: where its key (and a scan's end, stored right after
/// the key) are in the arena. Timestamps and sizes live in their own columns, so that a pass
/// over the keys (the replay's) reads 16 bytes of record per event, not 40.
#[derive(Clone, Copy, Debug)]
struct Record {
    key_start: u32,
    key_len: u32,
    end_len: u32,
    op: Op,
    /// Which of [`HAS_END`], [`HAS_TIME`], [`HAS_SIZE`] the event has.
    has: u8,
}

/// [`Record::has`]: the event is a scan with an end key.
const HAS_END: u8 = 1;
/// [`Record::has`]: the event has a timestamp.
const HAS_TIME: u8 = 2;
/// [`Record::has`]: the event has a value size.
const HAS_SIZE: u8 = 4;

/// A batch of consecutive events of one stream; keys live in one shared arena.
#[derive(Clone, Debug, Default)]
pub struct EventChunk {
    /// Position of the first event of this chunk in its stream (0-based).
    pub first_index: u64,
    records: Vec<Record>,
    arena: Vec<u8>,
    /// One timestamp per event (0 where absent) from the first event that has one; empty
    /// while none has (a trace without timestamps never fills it).
    timestamps: Vec<u64>,
    /// Value sizes, kept like `timestamps`.
    sizes: Vec<u32>,
}

/// Appends the value of event `i` to a column that is empty until some event has a value.
#[inline(always)]
fn push_column<T: Copy + Default>(column: &mut Vec<T>, i: usize, value: Option<T>) -> u8 {
    match value {
        Some(v) => {
            if column.len() < i {
                column.resize(i, T::default());
            }
            column.push(v);
            1
        }
        None => {
            if !column.is_empty() {
                column.push(T::default());
            }
            0
        }
    }
}

impl EventChunk {
    /// An empty chunk with room for `events` events.
    pub fn with_capacity(events: usize) -> Self {
        EventChunk {
            first_index: 0,
            records: Vec::with_capacity(events),
            arena: Vec::with_capacity(events * 8),
            timestamps: Vec::new(),
            sizes: Vec::new(),
        }
    }

    /// Removes every event, keeping the allocations.
    pub fn clear(&mut self) {
        self.records.clear();
        self.arena.clear();
        self.timestamps.clear();
        self.sizes.clear();
    }

    /// Makes room for `events` more events with `key_bytes` more bytes of keys, so that
    /// pushing them does not reallocate.
    pub fn reserve(&mut self, events: usize, key_bytes: usize) {
        self.records.reserve(events);
        self.arena.reserve(key_bytes);
        if !self.timestamps.is_empty() {
            self.timestamps.reserve(events);
        }
        if !self.sizes.is_empty() {
            self.sizes.reserve(events);
        }
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
    #[inline(always)]
    pub fn push(&mut self, event: Event<'_>) {
        let i = self.records.len();
        let key_start = self.arena.len() as u32;
        self.arena.extend_from_slice(event.key);
        let end_len = match event.end {
            Some(end) => {
                self.arena.extend_from_slice(end);
                end.len() as u32
            }
            None => 0,
        };
        let has = (u8::from(event.end.is_some()) * HAS_END)
            | (push_column(&mut self.timestamps, i, event.timestamp) * HAS_TIME)
            | (push_column(&mut self.sizes, i, event.size) * HAS_SIZE);
        self.records.push(Record {
            key_start,
            key_len: event.key.len() as u32,
            end_len,
            op: event.op,
            has,
        });
    }

    /// The `i`-th event. Panics when `i >= len()`.
    #[inline(always)]
    pub fn get(&self, i: usize) -> Event<'_> {
        let r = &self.records[i];
        let ks = r.key_start as usize;
        let ke = ks + r.key_len as usize;
        Event {
            op: r.op,
            key: &self.arena[ks..ke],
            end: (r.has & HAS_END != 0).then(|| &self.arena[ke..ke + r.end_len as usize]),
            timestamp: (r.has & HAS_TIME != 0).then(|| self.timestamps[i]),
            size: (r.has & HAS_SIZE != 0).then(|| self.sizes[i]),
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
        self.timestamps.truncate(from);
        self.sizes.truncate(from);
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
    fn timestamps_and_sizes_survive_events_without_them() {
        let event = |timestamp, size| Event {
            op: Op::Get,
            key: b"k",
            end: None,
            timestamp,
            size,
        };
        let events = [
            event(None, None),
            event(Some(5), None),
            event(None, Some(9)),
            event(Some(0), Some(0)),
            event(None, None),
        ];
        let mut chunk = EventChunk::default();
        events.iter().for_each(|&e| chunk.push(e));
        assert_eq!(chunk.iter().collect::<Vec<_>>(), events);
        let tail = chunk.split_off(2);
        assert_eq!(chunk.iter().collect::<Vec<_>>(), events[..2]);
        assert_eq!(tail.iter().collect::<Vec<_>>(), events[2..]);
        chunk.push(events[3]);
        assert_eq!(chunk.get(2), events[3]);
        assert!(std::mem::size_of::<Record>() <= 16);
    }

    #[test]
    fn op_names_round_trip() {
        for op in Op::ALL {
            assert_eq!(Op::from_name(op.name()), Some(op));
        }
        assert_eq!(Op::from_name("GET"), None);
    }
}
