//! The stream interface every workload and trace reader implements.

use crate::{EventChunk, Piece, WorkloadError};

/// A stream of events, read in chunks; memory stays bounded whatever the stream's length.
pub trait EventSource: Send {
    /// Appends up to `max` further events to `chunk` and returns how many were appended;
    /// 0 means the stream has ended.
    fn fill(&mut self, chunk: &mut EventChunk, max: usize) -> Result<usize, WorkloadError>;

    /// Appends up to `max` further events to `piece` and returns how many were appended, 0
    /// at the stream's end. A reader that can cut its input into records without decoding
    /// them appends raw bytes, decoded later by whichever thread takes the piece; the
    /// default decodes here. Raw bytes whose events are known only once decoded (text
    /// lines) leave the piece uncounted ([`Piece::counted`]) and count as 1 here.
    fn fill_piece(&mut self, piece: &mut Piece, max: usize) -> Result<usize, WorkloadError> {
        piece.push_decoded(|chunk| self.fill(chunk, max))
    }

    /// The number of events the stream will yield, when known in advance.
    fn len_hint(&self) -> Option<u64> {
        None
    }
}

/// Reads a whole source into one chunk (for tests and small traces).
pub fn collect(source: &mut dyn EventSource) -> Result<EventChunk, WorkloadError> {
    let mut chunk = EventChunk::default();
    while source.fill(&mut chunk, 1 << 16)? > 0 {}
    Ok(chunk)
}

/// Reads a source to its end and counts its events (bounded memory).
pub fn count(source: &mut dyn EventSource) -> Result<u64, WorkloadError> {
    let mut chunk = EventChunk::with_capacity(1 << 16);
    let mut n = 0;
    loop {
        chunk.clear();
        match source.fill(&mut chunk, 1 << 16)? {
            0 => return Ok(n),
            k => n += k as u64,
        }
    }
}
