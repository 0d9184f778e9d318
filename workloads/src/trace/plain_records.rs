//! Delimited records split at the speed of the bytes: `memchr` finds each line's end and its
//! delimiters, and the fields are copied into the reused [`ByteRecord`] the decoders read.
//!
//! Hand-written because the csv crate's general state machine (quotes, escapes, every
//! terminator) costs about as much as the rest of the reader on plain numeric traces; this
//! reader gives the same records as `csv::Reader` with the settings of
//! [`super::delimited`] (`"` quotes, `\n`, `\r\n` or a lone `\r` ends a record, blank lines
//! skipped, a UTF-8 byte order mark at the start dropped). A record that holds a `"` is
//! handed to the csv crate's own record parser (`csv_core`), which continues across line
//! breaks inside quotes, so quoting reads exactly as the csv crate reads it.

use std::io::{self, Read};

use ::csv::ByteRecord;
use csv_core::ReadRecordResult;

use super::fields::Fields;
use super::input::{BUFFER_BYTES, UTF8_BOM};

/// The physical lines that `bytes` ends (`\n`, `\r\n` and a lone `\r` each end one).
fn line_breaks(bytes: &[u8]) -> u64 {
    let lf = memchr::memchr_iter(b'\n', bytes).count() as u64;
    if memchr::memchr(b'\r', bytes).is_none() {
        return lf;
    }
    let cr = memchr::memchr_iter(b'\r', bytes).count() as u64;
    let crlf = memchr::memchr_iter(b'\r', bytes)
        .filter(|&i| bytes.get(i + 1) == Some(&b'\n'))
        .count() as u64;
    lf + cr - crlf
}

/// One record's fields, in the reader's buffers.
pub(crate) struct Split<'a> {
    bytes: &'a [u8],
    /// Where each field ends in `bytes`.
    ends: &'a [usize],
    /// The bytes between one field's end and the next one's start (the delimiter, or none).
    gap: usize,
}

impl Split<'_> {
    /// The number of fields.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// The fields as a record of their own.
    pub(crate) fn to_record(&self) -> ByteRecord {
        (0..self.len()).filter_map(|i| self.get(i)).collect()
    }
}

impl Fields for Split<'_> {
    #[inline]
    fn get(&self, i: usize) -> Option<&[u8]> {
        let end = *self.ends.get(i)?;
        let start = match i {
            0 => 0,
            _ => self.ends[i - 1] + self.gap,
        };
        Some(&self.bytes[start..end])
    }
}

/// A stream of delimited records with the physical line each starts on.
pub(crate) struct PlainRecords {
    input: Box<dyn Read + Send>,
    /// Read bytes; `buf[start..end]` are not yet consumed.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    /// The physical line (1-based) of `buf[start]`.
    line: u64,
    /// The byte before `buf[start]` was a `\r` (so a `\n` there ends no further line).
    after_cr: bool,
    delimiter: u8,
    /// The csv crate's parser, for records with quotes.
    quoted: csv_core::Reader,
    /// The unquoted fields of a quoted record and their end offsets.
    out: Vec<u8>,
    ends: Vec<usize>,
    /// Where the fields of a plain line end (each is followed by a delimiter but the last).
    splits: Vec<usize>,
    /// The byte order mark was looked for.
    started: bool,
}

impl PlainRecords {
    /// Reads records from `input` (every byte, from the start), split at `delimiter`.
    pub(crate) fn new(input: Box<dyn Read + Send>, delimiter: u8) -> Self {
        let mut quoted = csv_core::ReaderBuilder::new().delimiter(delimiter).build();
        let (mut out, mut ends) = (vec![0; 1024], vec![0; 64]);
        // The parser drops a byte order mark from the first input it sees; it only ever sees
        // records after the start, where the csv crate keeps the mark, so it sees a blank
        // line first.
        quoted.read_record(b"\n", &mut out, &mut ends);
        PlainRecords {
            input,
            buf: vec![0; BUFFER_BYTES],
            start: 0,
            end: 0,
            eof: false,
            line: 1,
            after_cr: false,
            delimiter,
            quoted,
            out,
            ends,
            splits: Vec::new(),
            started: false,
        }
    }

    /// The field delimiter.
    pub(crate) fn delimiter(&self) -> u8 {
        self.delimiter
    }

    /// Records from `bytes` alone, whose first byte starts physical line `line` (a block
    /// of whole lines cut by [`PlainRecords::take_lines`]).
    pub(crate) fn over(bytes: Vec<u8>, delimiter: u8, line: u64) -> Self {
        let mut records = PlainRecords::new(Box::new(io::empty()), delimiter);
        records.end = bytes.len();
        records.buf = bytes;
        records.eof = true;
        records.started = true;
        records.line = line;
        records
    }

    /// The next whole lines, up to `max` line breaks, as raw bytes with the physical line
    /// the first starts on, for reading elsewhere ([`PlainRecords::over`]); `None` at the end
    /// of the input and when the lines hold a quote (a quoted field may span lines: read
    /// those with [`PlainRecords::next`]).
    pub(crate) fn take_lines(&mut self, max: usize) -> io::Result<Option<(u64, &[u8])>> {
        if !self.started {
            return Ok(None);
        }
        // Line breaks before the first line (the previous record's terminator, blank lines).
        loop {
            if self.start == self.end && !self.refill()? {
                return Ok(None);
            }
            match self.buf[self.start] {
                b'\n' => self.line += u64::from(!self.after_cr),
                b'\r' => self.line += 1,
                _ => break,
            }
            self.after_cr = self.buf[self.start] == b'\r';
            self.start += 1;
        }
        self.after_cr = false;
        if !self.eof && self.end - self.start < self.buf.len() / 2 {
            self.refill()?;
        }
        let cut = loop {
            let rest = &self.buf[self.start..self.end];
            match memchr::memchr_iter(b'\n', rest).take(max.max(1)).last() {
                Some(i) => break i + 1,
                None if self.eof => break rest.len(),
                None => {
                    self.refill()?;
                }
            }
        };
        let block = &self.buf[self.start..self.start + cut];
        if memchr::memchr(b'"', block).is_some() {
            return Ok(None);
        }
        let line = self.line;
        self.line += line_breaks(block);
        self.start += cut;
        Ok(Some((line, &self.buf[self.start - cut..self.start])))
    }

    /// Reads the next record; its physical line and fields, or `None` at the end.
    pub(crate) fn next(&mut self) -> io::Result<Option<(u64, Split<'_>)>> {
        if !self.started {
            self.started = true;
            self.drop_bom()?;
        }
        // Line breaks before the record: blank lines and the previous record's terminator.
        loop {
            if self.start == self.end && !self.refill()? {
                return Ok(None);
            }
            match self.buf[self.start] {
                b'\n' => {
                    self.line += u64::from(!self.after_cr);
                    self.after_cr = false;
                }
                b'\r' => {
                    self.line += 1;
                    self.after_cr = true;
                }
                _ => break,
            }
            self.start += 1;
        }
        self.after_cr = false;
        let line = self.line;
        let mut searched = 0;
        let len = loop {
            let rest = &self.buf[self.start..self.end];
            match memchr::memchr3(b'\n', b'\r', b'"', &rest[searched..]) {
                Some(i) if rest[searched + i] == b'"' => {
                    let fields = self.read_quoted()?;
                    return Ok(Some((line, fields)));
                }
                Some(i) => break searched + i,
                None if self.eof => break rest.len(),
                None => {
                    searched = rest.len();
                    self.refill()?;
                }
            }
        };
        // The line's terminator stays unread.
        let bytes = &self.buf[self.start..self.start + len];
        self.start += len;
        self.splits.clear();
        self.splits
            .extend(memchr::memchr_iter(self.delimiter, bytes));
        self.splits.push(len);
        let fields = Split {
            bytes,
            ends: &self.splits,
            gap: 1,
        };
        Ok(Some((line, fields)))
    }

    /// Reads one record that holds a quote with the csv crate's parser, counting the line
    /// breaks it consumes (quoted fields may span lines).
    fn read_quoted(&mut self) -> io::Result<Split<'_>> {
        let (mut nout, mut nends) = (0, 0);
        loop {
            let input = &self.buf[self.start..self.end];
            let (result, nin, o, e) =
                self.quoted
                    .read_record(input, &mut self.out[nout..], &mut self.ends[nends..]);
            for &b in &input[..nin] {
                match b {
                    b'\n' => self.line += u64::from(!self.after_cr),
                    b'\r' => self.line += 1,
                    _ => {}
                }
                self.after_cr = b == b'\r';
            }
            self.start += nin;
            nout += o;
            nends += e;
            match result {
                ReadRecordResult::InputEmpty => {
                    if !self.eof {
                        self.refill()?;
                    }
                }
                ReadRecordResult::OutputFull => self.out.resize(self.out.len() * 2, 0),
                ReadRecordResult::OutputEndsFull => self.ends.resize(self.ends.len() * 2, 0),
                ReadRecordResult::Record | ReadRecordResult::End => break,
            }
        }
        Ok(Split {
            bytes: &self.out[..nout],
            ends: &self.ends[..nends],
            gap: 0,
        })
    }

    /// Drops a byte order mark at the very start, as the csv crate does.
    fn drop_bom(&mut self) -> io::Result<()> {
        while self.end < UTF8_BOM.len() && self.refill()? {}
        if self.buf[..self.end].starts_with(UTF8_BOM) {
            self.start = UTF8_BOM.len();
        }
        Ok(())
    }

    /// Moves the unread bytes to the front (growing the buffer when they fill it) and reads
    /// more after them; false at the end of the input.
    fn refill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        loop {
            match self.input.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}
