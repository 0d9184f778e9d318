//! What the fixed-size binary formats share: records decoded in place from one reused block
//! buffer (no allocation per record, compressed input and pipes alike), byte offsets in
//! errors, the record count of a plain file known before reading, and a clear refusal of a
//! file whose size is not a whole number of records.
//!
//! The files are read with large buffered reads rather than memory-mapped: the workspace
//! forbids `unsafe` (mapping a file that another process may truncate is undefined behaviour
//! in Rust terms), and decoding, not copying, dominates the cost.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::input::{Input, BUFFER_BYTES};
use super::invalid::{InvalidCounter, InvalidPolicy};
use crate::{Event, EventChunk, EventSource, Op, Piece, PieceDecoder, WorkloadError};

/// One decoded binary record: keys are 64-bit integers, stored big-endian.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BinEvent {
    pub op: Op,
    pub key: u64,
    /// Exclusive end of a scan or a range write (used when it is past `key + 1`, or for
    /// [`Op::Scan`]): the blocks `key..end` of a multi-block request.
    pub end: u64,
    pub timestamp: Option<u64>,
    pub size: Option<u32>,
}

impl Default for BinEvent {
    fn default() -> Self {
        BinEvent {
            op: Op::Get,
            key: 0,
            end: 0,
            timestamp: None,
            size: None,
        }
    }
}

/// The most raw bytes read into a piece at once (the caller asks again for more).
const PIECE_BYTES: usize = 4 << 20;

/// A fixed-size record layout.
pub(crate) trait RecordLayout: Send + Sync + 'static {
    /// The format's name in messages.
    fn name(&self) -> &'static str;
    /// Bytes per record.
    fn record_size(&self) -> usize;
    /// Decodes one record of exactly `record_size` bytes; `Err` says what is wrong with it.
    fn decode(&self, record: &[u8], out: &mut BinEvent) -> Result<(), String>;
}

/// A record layout and the name of the input its records come from: decodes records on the
/// reader's thread ([`BinaryReader`]'s `fill`) and on the replay's workers (as a
/// [`PieceDecoder`]).
struct Records<L> {
    layout: L,
    shown: PathBuf,
}

impl<L: RecordLayout> Records<L> {
    /// Appends the events of the whole records `bytes`, which start at byte `offset` of the
    /// input, to `chunk` and returns how many; a malformed record goes to `invalid`, which
    /// skips it (`Ok`) or stops the decoding with its error.
    fn decode_into(
        &self,
        bytes: &[u8],
        offset: u64,
        chunk: &mut EventChunk,
        mut invalid: impl FnMut(WorkloadError) -> Result<(), WorkloadError>,
    ) -> Result<usize, WorkloadError> {
        let size = self.layout.record_size();
        let run = bytes.len() / size;
        chunk.reserve(run, run * 8);
        let mut event = BinEvent::default();
        let mut n = 0;
        for (i, record) in bytes.chunks_exact(size).enumerate() {
            match self.layout.decode(record, &mut event) {
                Ok(()) => {
                    let key = event.key.to_be_bytes();
                    let end = event.end.to_be_bytes();
                    chunk.push(Event {
                        op: event.op,
                        key: &key,
                        end: (event.op == Op::Scan || event.end > event.key.saturating_add(1))
                            .then_some(&end[..]),
                        timestamp: event.timestamp,
                        size: event.size,
                    });
                    n += 1;
                }
                Err(message) => invalid(WorkloadError::Invalid {
                    path: self.shown.clone(),
                    location: format!("byte offset {}", offset + (i * size) as u64),
                    message,
                })?,
            }
        }
        Ok(n)
    }
}

impl<L: RecordLayout> PieceDecoder for Records<L> {
    fn decode(
        &self,
        bytes: &[u8],
        offset: u64,
        chunk: &mut EventChunk,
    ) -> Result<(), WorkloadError> {
        self.decode_into(bytes, offset, chunk, Err).map(|_| ())
    }
}

/// A binary trace of fixed-size records.
pub(crate) struct BinaryReader<L> {
    shown: PathBuf,
    reader: Box<dyn Read + Send>,
    records: Arc<Records<L>>,
    /// `records`, handed to the pieces whose raw bytes it decodes.
    decoder: Arc<dyn PieceDecoder>,
    buf: Vec<u8>,
    /// Unread bytes are `buf[start..end]`.
    start: usize,
    end: usize,
    /// Byte offset of `buf[start]` in the decompressed trace.
    offset: u64,
    eof: bool,
    done: bool,
    emitted: u64,
    records_total: Option<u64>,
    invalid: InvalidCounter,
}

impl<L: RecordLayout> BinaryReader<L> {
    pub(crate) fn open(
        input: Input,
        shown: &Path,
        layout: L,
        policy: &InvalidPolicy,
    ) -> Result<Self, WorkloadError> {
        let trace_error = |message: String| WorkloadError::Trace {
            path: shown.to_path_buf(),
            message,
        };
        if input.head.is_empty() {
            return Err(trace_error("contains no events: the file is empty".into()));
        }
        let size = layout.record_size() as u64;
        if let Some(bytes) = input.plain_size {
            if bytes % size != 0 && !policy.skips() {
                return Err(trace_error(format!(
                    "is {bytes} bytes, not a whole number of {size}-byte {} records ({} records and \
                     {} bytes over): the file is truncated or is not in this format",
                    layout.name(),
                    bytes / size,
                    bytes % size
                )));
            }
        }
        let records_total = input
            .plain_size
            .filter(|_| !policy.skips())
            .map(|b| b / size);
        let capacity = (BUFFER_BYTES / layout.record_size()).max(1) * layout.record_size();
        let records = Arc::new(Records {
            layout,
            shown: shown.to_path_buf(),
        });
        Ok(BinaryReader {
            shown: shown.to_path_buf(),
            reader: input.reader,
            decoder: records.clone(),
            records,
            buf: vec![0; capacity],
            start: 0,
            end: 0,
            offset: 0,
            eof: false,
            done: false,
            emitted: 0,
            records_total,
            invalid: InvalidCounter::new(policy),
        })
    }

    /// Bytes per record.
    fn record_size(&self) -> usize {
        self.records.layout.record_size()
    }

    /// An I/O error reading the input.
    fn io_error(&self, source: std::io::Error) -> WorkloadError {
        WorkloadError::Io {
            path: self.shown.clone(),
            source,
        }
    }

    /// Reads into `buf` until it is full or the input ends (then sets `eof`); returns the
    /// bytes read.
    fn read_into(&mut self, buf: &mut [u8]) -> Result<usize, WorkloadError> {
        let mut got = 0;
        while got < buf.len() {
            match self.reader.read(&mut buf[got..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(source) => return Err(self.io_error(source)),
            }
        }
        Ok(got)
    }

    /// Makes at least one whole record available unless the input has ended.
    fn refill(&mut self) -> Result<(), WorkloadError> {
        if self.end - self.start >= self.record_size() || self.eof {
            return Ok(());
        }
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        let mut buf = std::mem::take(&mut self.buf);
        let read = self.read_into(&mut buf[self.end..]);
        self.buf = buf;
        self.end += read?;
        Ok(())
    }
}

impl<L: RecordLayout> EventSource for BinaryReader<L> {
    fn fill(&mut self, chunk: &mut EventChunk, max: usize) -> Result<usize, WorkloadError> {
        if chunk.is_empty() {
            chunk.first_index = self.emitted;
        }
        let size = self.record_size();
        let mut n = 0;
        while n < max && !self.done {
            if let Err(e) = self.refill() {
                self.done = true;
                return Err(e);
            }
            let available = self.end - self.start;
            if available < size {
                self.done = true;
                if available == 0 {
                    break;
                }
                let error = WorkloadError::Invalid {
                    path: self.shown.clone(),
                    location: format!("byte offset {}", self.offset),
                    message: format!(
                        "the trace ends {available} bytes into a {size}-byte {} record: the file is \
                         truncated or is not in this format",
                        self.records.layout.name()
                    ),
                };
                self.invalid.handle(error)?;
                break;
            }
            // The whole records in the buffer, up to `max`: decoded in one run, with the
            // reader's position updated once per run rather than once per record.
            let run = ((self.end - self.start) / size).min(max - n);
            let records = &self.buf[self.start..self.start + run * size];
            let invalid = &mut self.invalid;
            match self
                .records
                .decode_into(records, self.offset, chunk, |e| invalid.handle(e))
            {
                Ok(decoded) => n += decoded,
                Err(e) => {
                    self.done = true;
                    return Err(e);
                }
            }
            self.start += run * size;
            self.offset += (run * size) as u64;
        }
        self.emitted += n as u64;
        Ok(n)
    }

    /// Whole records as raw bytes, decoded by the thread that takes the piece; decoded here
    /// when malformed records are skipped (the events are then not counted by their bytes)
    /// and for the end of the input (a truncated last record is reported by `fill`).
    fn fill_piece(&mut self, piece: &mut Piece, max: usize) -> Result<usize, WorkloadError> {
        let size = self.record_size();
        if self.invalid.skips() || self.done || max == 0 {
            return piece.push_decoded(|chunk| self.fill(chunk, max));
        }
        let want = max.min((PIECE_BYTES / size).max(1)) * size;
        let room = piece.raw_room(want);
        let pending = (self.end - self.start).min(want);
        room[..pending].copy_from_slice(&self.buf[self.start..self.start + pending]);
        self.start += pending;
        let mut got = pending;
        if got < want && !self.eof {
            // Straight from the input into the piece: the bytes are copied once.
            match self.read_into(&mut room[got..]) {
                Ok(n) => got += n,
                Err(e) => {
                    self.done = true;
                    return Err(e);
                }
            }
        }
        let whole = got / size * size;
        if whole < got {
            // The input ended within a record (after every buffered byte was taken): it goes
            // back to the reader's buffer, for `fill` to report.
            let tail = got - whole;
            self.buf[..tail].copy_from_slice(&room[whole..got]);
            (self.start, self.end) = (0, tail);
        }
        if whole == 0 {
            if self.eof && self.start == self.end {
                // The end: the raw bytes of the piece stay for its decoder.
                self.done = true;
                return Ok(0);
            }
            return piece.push_decoded(|chunk| self.fill(chunk, max));
        }
        let events = whole / size;
        piece.push_raw(&self.decoder, whole, self.offset, Some(events));
        self.offset += whole as u64;
        self.emitted += events as u64;
        Ok(events)
    }

    fn len_hint(&self) -> Option<u64> {
        self.records_total
    }
}

/// Little-endian integers at fixed offsets of a record.
pub(crate) fn u16_at(r: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([r[at], r[at + 1]])
}

/// See [`u16_at`].
pub(crate) fn u32_at(r: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([r[at], r[at + 1], r[at + 2], r[at + 3]])
}

/// See [`u16_at`].
pub(crate) fn u64_at(r: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&r[at..at + 8]);
    u64::from_le_bytes(b)
}
