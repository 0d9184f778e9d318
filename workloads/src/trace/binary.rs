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

use super::input::{Input, BUFFER_BYTES};
use super::invalid::{InvalidCounter, InvalidPolicy};
use crate::{Event, EventChunk, EventSource, Op, WorkloadError};

/// One decoded binary record: keys are 64-bit integers, stored big-endian.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BinEvent {
    pub op: Op,
    pub key: u64,
    /// Exclusive end of a scan (used when `op` is [`Op::Scan`]).
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

/// A fixed-size record layout.
pub(crate) trait RecordLayout: Send {
    /// The format's name in messages.
    fn name(&self) -> &'static str;
    /// Bytes per record.
    fn record_size(&self) -> usize;
    /// Decodes one record of exactly `record_size` bytes; `Err` says what is wrong with it.
    fn decode(&mut self, record: &[u8], out: &mut BinEvent) -> Result<(), String>;
}

/// A binary trace of fixed-size records.
pub(crate) struct BinaryReader<L> {
    shown: PathBuf,
    reader: Box<dyn Read + Send>,
    layout: L,
    buf: Vec<u8>,
    /// Unread bytes are `buf[start..end]`.
    start: usize,
    end: usize,
    /// Byte offset of `buf[start]` in the decompressed trace.
    offset: u64,
    eof: bool,
    done: bool,
    emitted: u64,
    records: Option<u64>,
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
        let records = input
            .plain_size
            .filter(|_| !policy.skips())
            .map(|b| b / size);
        let capacity = (BUFFER_BYTES / layout.record_size()).max(1) * layout.record_size();
        Ok(BinaryReader {
            shown: shown.to_path_buf(),
            reader: input.reader,
            layout,
            buf: vec![0; capacity],
            start: 0,
            end: 0,
            offset: 0,
            eof: false,
            done: false,
            emitted: 0,
            records,
            invalid: InvalidCounter::new(policy),
        })
    }

    /// Makes at least one whole record available unless the input has ended.
    fn refill(&mut self) -> Result<(), WorkloadError> {
        let size = self.layout.record_size();
        if self.end - self.start >= size || self.eof {
            return Ok(());
        }
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        while self.end < self.buf.len() {
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => self.end += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(source) => {
                    return Err(WorkloadError::Io {
                        path: self.shown.clone(),
                        source,
                    })
                }
            }
        }
        Ok(())
    }
}

impl<L: RecordLayout> EventSource for BinaryReader<L> {
    fn fill(&mut self, chunk: &mut EventChunk, max: usize) -> Result<usize, WorkloadError> {
        if chunk.is_empty() {
            chunk.first_index = self.emitted;
        }
        let size = self.layout.record_size();
        let mut n = 0;
        let mut event = BinEvent::default();
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
                        self.layout.name()
                    ),
                };
                self.invalid.handle(error)?;
                break;
            }
            // The whole records in the buffer, up to `max`: decoded in one run, with the
            // reader's position updated once per run rather than once per record.
            let run = ((self.end - self.start) / size).min(max - n);
            chunk.reserve(run, run * 8);
            let records = &self.buf[self.start..self.start + run * size];
            for (i, record) in records.chunks_exact(size).enumerate() {
                match self.layout.decode(record, &mut event) {
                    Ok(()) => {
                        let key = event.key.to_be_bytes();
                        let end = event.end.to_be_bytes();
                        chunk.push(Event {
                            op: event.op,
                            key: &key,
                            end: (event.op == Op::Scan).then_some(&end[..]),
                            timestamp: event.timestamp,
                            size: event.size,
                        });
                        n += 1;
                    }
                    Err(message) => {
                        let error = WorkloadError::Invalid {
                            path: self.shown.clone(),
                            location: format!("byte offset {}", self.offset + (i * size) as u64),
                            message,
                        };
                        if let Err(e) = self.invalid.handle(error) {
                            self.done = true;
                            return Err(e);
                        }
                    }
                }
            }
            self.start += run * size;
            self.offset += (run * size) as u64;
        }
        self.emitted += n as u64;
        Ok(n)
    }

    fn len_hint(&self) -> Option<u64> {
        self.records
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
