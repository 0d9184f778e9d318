//! Pieces of a stream on their way to the replay's workers: events already decoded, followed
//! by raw bytes that the worker taking the piece decodes ([`Piece::decode`]).
//!
//! A reader that can cut its input at record boundaries without decoding it (fixed-size
//! binary records, lines of plain delimited text) hands out raw bytes through
//! [`EventSource::fill_piece`](crate::EventSource::fill_piece), so that the thread reading
//! the input only moves bytes and decoding runs on as many threads as route the events.
//! Binary records are counted by their bytes; the events of a block of text lines are only
//! known once decoded (blank lines, a header), so such a piece is not counted
//! ([`Piece::counted`]) and its events' positions are known only after the pieces before it
//! are decoded. Any other source appends decoded events (the default).
//! The events of a piece are in stream order whichever way they came: decoded events are
//! only appended once the raw bytes before them are decoded.

use std::ops::Range;
use std::sync::Arc;

use crate::{EventChunk, WorkloadError};

/// Turns raw bytes of one input into events, on whichever thread decodes the piece.
pub trait PieceDecoder: Send + Sync {
    /// Appends the events of `bytes` to `chunk`; `at` is where the bytes start in their
    /// (decompressed) input: a byte offset for binary records, the line number for text. A
    /// malformed record is an error naming the input and where the record is.
    fn decode(&self, bytes: &[u8], at: u64, chunk: &mut EventChunk) -> Result<(), WorkloadError>;
}

/// A run of raw bytes of a piece and how to decode them.
struct Segment {
    decoder: Arc<dyn PieceDecoder>,
    bytes: Range<usize>,
    at: u64,
}

/// Consecutive events of a stream, part decoded (`chunk`) and part raw bytes (after them).
#[derive(Default)]
pub struct Piece {
    chunk: EventChunk,
    /// The raw bytes are `bytes[..used]`; the rest was written before (the piece is
    /// reused) and is overwritten rather than zeroed again.
    bytes: Vec<u8>,
    used: usize,
    segments: Vec<Segment>,
    /// Events in the raw segments (those counted).
    raw_events: usize,
    /// Some raw segment holds an unknown number of events.
    uncounted: bool,
}

impl Piece {
    /// An empty piece with room for `events` decoded events.
    pub fn with_capacity(events: usize) -> Self {
        Piece {
            chunk: EventChunk::with_capacity(events),
            ..Piece::default()
        }
    }

    /// Removes every event, keeping the allocations.
    pub fn clear(&mut self) {
        self.chunk.clear();
        self.used = 0;
        self.segments.clear();
        self.raw_events = 0;
        self.uncounted = false;
    }

    /// True unless some raw bytes hold an unknown number of events (text lines): then
    /// [`Piece::len`] is known only once the piece is decoded.
    pub fn counted(&self) -> bool {
        !self.uncounted
    }

    /// Events in the piece, decoded or not (those counted, see [`Piece::counted`]).
    pub fn len(&self) -> usize {
        self.chunk.len() + self.raw_events
    }

    /// True when the piece holds no event (nor raw bytes).
    pub fn is_empty(&self) -> bool {
        self.len() == 0 && self.counted()
    }

    /// Appends decoded events with `fill` (which returns how many it appended), once the raw
    /// bytes before them are decoded.
    pub fn push_decoded(
        &mut self,
        fill: impl FnOnce(&mut EventChunk) -> Result<usize, WorkloadError>,
    ) -> Result<usize, WorkloadError> {
        self.decode()?;
        fill(&mut self.chunk)
    }

    /// Room for `bytes` more raw bytes after those of the piece, for a reader to write to
    /// before it declares the ones it wrote ([`Piece::push_raw`]).
    pub fn raw_room(&mut self, bytes: usize) -> &mut [u8] {
        let end = self.used + bytes;
        if self.bytes.len() < end {
            self.bytes.resize(end, 0);
        }
        &mut self.bytes[self.used..end]
    }

    /// Declares the first `bytes` bytes of the room ([`Piece::raw_room`]) as `events`
    /// events (`None` when unknown until decoded), decoded later by `decoder`; `at` is where
    /// they start in their input ([`PieceDecoder::decode`]).
    pub fn push_raw(
        &mut self,
        decoder: &Arc<dyn PieceDecoder>,
        bytes: usize,
        at: u64,
        events: Option<usize>,
    ) {
        self.segments.push(Segment {
            decoder: Arc::clone(decoder),
            bytes: self.used..self.used + bytes,
            at,
        });
        self.used += bytes;
        match events {
            Some(n) => self.raw_events += n,
            None => self.uncounted = true,
        }
    }

    /// Decodes the raw bytes into events, in order; the first malformed record is an error.
    pub fn decode(&mut self) -> Result<(), WorkloadError> {
        for segment in self.segments.drain(..) {
            let bytes = &self.bytes[segment.bytes];
            segment.decoder.decode(bytes, segment.at, &mut self.chunk)?;
        }
        self.used = 0;
        self.raw_events = 0;
        self.uncounted = false;
        Ok(())
    }

    /// The decoded events (all of them once [`Piece::decode`] has run).
    pub fn chunk(&self) -> &EventChunk {
        &self.chunk
    }

    /// See [`Piece::chunk`].
    pub fn chunk_mut(&mut self) -> &mut EventChunk {
        &mut self.chunk
    }
}
