//! Pieces of a stream on their way to the replay's workers: events already decoded, followed
//! by raw bytes that the worker taking the piece decodes ([`Piece::decode`]).
//!
//! A reader whose records it can count without decoding them (fixed-size binary records)
//! hands out raw bytes through [`EventSource::fill_piece`](crate::EventSource::fill_piece),
//! so that the thread reading the input only moves bytes and decoding runs on as many
//! threads as route the events. Any other source appends decoded events (the default).
//! The events of a piece are in stream order whichever way they came: decoded events are
//! only appended once the raw bytes before them are decoded.

use std::ops::Range;
use std::sync::Arc;

use crate::{EventChunk, WorkloadError};

/// Turns raw bytes of one input into events, on whichever thread decodes the piece.
pub trait PieceDecoder: Send + Sync {
    /// Appends the events of `bytes`, which start at byte `offset` of the (decompressed)
    /// input, to `chunk`; a malformed record is an error naming the input and its offset.
    fn decode(&self, bytes: &[u8], offset: u64, chunk: &mut EventChunk)
        -> Result<(), WorkloadError>;
}

/// A run of raw bytes of a piece and how to decode them.
struct Segment {
    decoder: Arc<dyn PieceDecoder>,
    bytes: Range<usize>,
    offset: u64,
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
    /// Events in the raw segments.
    raw_events: usize,
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
    }

    /// Events in the piece, decoded or not.
    pub fn len(&self) -> usize {
        self.chunk.len() + self.raw_events
    }

    /// True when the piece holds no event.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
    /// events, decoded later by `decoder`; they start at byte `offset` of their input.
    pub fn push_raw(
        &mut self,
        decoder: &Arc<dyn PieceDecoder>,
        bytes: usize,
        offset: u64,
        events: usize,
    ) {
        self.segments.push(Segment {
            decoder: Arc::clone(decoder),
            bytes: self.used..self.used + bytes,
            offset,
        });
        self.used += bytes;
        self.raw_events += events;
    }

    /// Decodes the raw bytes into events, in order; the first malformed record is an error.
    pub fn decode(&mut self) -> Result<(), WorkloadError> {
        for segment in self.segments.drain(..) {
            let bytes = &self.bytes[segment.bytes];
            segment.decoder.decode(bytes, segment.offset, &mut self.chunk)?;
        }
        self.used = 0;
        self.raw_events = 0;
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
