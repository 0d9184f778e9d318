//! What every delimited-text format shares: the csv crate's record reader over the
//! decompressed input, delimiter detection, the header, exact physical line numbers, the
//! check that the file is text at all, and the skip-invalid policy. Each format supplies a
//! [`Decoder`] that turns one record into one event.
//!
//! Records are read into one reused [`ByteRecord`] and decoded into reused key buffers, so
//! memory stays bounded and no event allocates.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ::csv::{ByteRecord, ErrorKind, Reader, ReaderBuilder};

use super::fields::Fields;
use super::input::{Input, BUFFER_BYTES};
use super::invalid::{InvalidCounter, InvalidPolicy};
use super::plain_records::PlainRecords;
use crate::{Event, EventChunk, EventSource, Op, Piece, PieceDecoder, WorkloadError};

/// The delimiters recognised when `--delimiter` is not given, in order of preference.
pub const DELIMITERS: [u8; 4] = [b',', b'\t', b'|', b';'];

/// One decoded event, in buffers reused from record to record.
#[derive(Debug)]
pub(crate) struct Scratch {
    pub op: Op,
    pub key: Vec<u8>,
    pub end: Vec<u8>,
    pub has_end: bool,
    pub timestamp: Option<u64>,
    pub size: Option<u32>,
}

impl Scratch {
    pub(crate) fn new() -> Self {
        Scratch {
            op: Op::Get,
            key: Vec::new(),
            end: Vec::new(),
            has_end: false,
            timestamp: None,
            size: None,
        }
    }

    fn event(&self) -> Event<'_> {
        Event {
            op: self.op,
            key: &self.key,
            end: self.has_end.then_some(&self.end[..]),
            timestamp: self.timestamp,
            size: self.size,
        }
    }
}

/// Turns records of one format into events.
pub(crate) trait Decoder: Send + Sync + Clone + 'static {
    /// Sees the header line, or with `is_header` false the first record of a headerless
    /// file (to check column numbers against its width); `Err` is a message about the trace.
    fn start(&mut self, first: &ByteRecord, is_header: bool) -> Result<(), String>;

    /// Decodes one record into `out` (every field of `out` must be set); `Err` says what is
    /// wrong with the record.
    fn decode(&mut self, record: &impl Fields, out: &mut Scratch) -> Result<(), String>;
}

/// How the records are laid out.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    /// The first line names the columns.
    pub header: bool,
    /// The field delimiter; detected from the first lines when `None`.
    pub delimiter: Option<u8>,
}

/// Where the records come from.
enum Records {
    /// The csv crate's reader, for a trace whose first bytes hold a quote.
    Quoted(Box<Reader<LineTracker<Box<dyn Read + Send>>>>),
    /// The memchr splitter (quoted records further on still go through the csv crate's
    /// parser), with the field count of the first line once read.
    Plain(Box<PlainRecords>, Option<usize>),
}

/// A delimited-text trace, streamed record by record.
pub(crate) struct DelimitedReader<D> {
    shown: PathBuf,
    records: Records,
    decoder: D,
    record: ByteRecord,
    /// The physical line of `record` when read by the splitter.
    line: u64,
    scratch: Scratch,
    /// `record` holds the first record, read at open to refuse traces without events.
    pending: bool,
    done: bool,
    emitted: u64,
    invalid: InvalidCounter,
    /// Decodes blocks of plain lines on the replay's workers, once the field count is known.
    blocks: Option<Arc<dyn PieceDecoder>>,
}

impl<D: Decoder> DelimitedReader<D> {
    /// Starts reading `input`: checks that it is text, finds the delimiter, reads the header
    /// and the first record. `format` names the format in messages.
    pub(crate) fn open(
        input: Input,
        shown: &Path,
        format: &str,
        layout: Layout,
        decoder: D,
        policy: &InvalidPolicy,
    ) -> Result<Self, WorkloadError> {
        let quoted = memchr::memchr(b'"', &input.head).is_some();
        Self::open_with(input, shown, format, layout, decoder, policy, quoted)
    }

    /// [`Self::open`], reading every record with the csv crate when `quoted`.
    pub(crate) fn open_with(
        input: Input,
        shown: &Path,
        format: &str,
        layout: Layout,
        decoder: D,
        policy: &InvalidPolicy,
        quoted: bool,
    ) -> Result<Self, WorkloadError> {
        let trace_error = |message: String| WorkloadError::Trace {
            path: shown.to_path_buf(),
            message,
        };
        check_text(&input.head, format).map_err(trace_error)?;
        let delimiter = layout
            .delimiter
            .unwrap_or_else(|| detect_delimiter(&input.head));
        let records = if quoted {
            Records::Quoted(Box::new(
                ReaderBuilder::new()
                    .has_headers(layout.header)
                    .delimiter(delimiter)
                    .flexible(false)
                    .buffer_capacity(BUFFER_BYTES)
                    .from_reader(LineTracker::new(input.reader)),
            ))
        } else {
            Records::Plain(Box::new(PlainRecords::new(input.reader, delimiter)), None)
        };
        let mut this = DelimitedReader {
            shown: shown.to_path_buf(),
            records,
            decoder,
            record: ByteRecord::new(),
            line: 0,
            scratch: Scratch::new(),
            pending: false,
            done: false,
            emitted: 0,
            invalid: InvalidCounter::new(policy),
            blocks: None,
        };
        if layout.header {
            let header = match &mut this.records {
                Records::Quoted(reader) => match reader.byte_headers() {
                    Ok(h) => h.clone(),
                    Err(e) => return Err(csv_error(shown, reader.get_ref(), e)),
                },
                Records::Plain(..) => {
                    this.next_record(true)?;
                    this.record.clone()
                }
            };
            if header.is_empty() || (header.len() == 1 && header[0].is_empty()) {
                return Err(trace_error("contains no events: the file is empty".into()));
            }
            this.decoder.start(&header, true).map_err(trace_error)?;
        }
        if this.next_record(true)?.is_none() {
            return Err(trace_error(if layout.header {
                "contains no events: there is nothing after the header line".into()
            } else {
                "contains no events: the file is empty".into()
            }));
        }
        if !layout.header {
            let first = this.record.clone();
            this.decoder.start(&first, false).map_err(trace_error)?;
        }
        this.pending = true;
        Ok(this)
    }

    /// The physical line of the current record.
    fn line(&self) -> u64 {
        match (&self.records, self.record.position()) {
            (Records::Quoted(reader), Some(p)) => reader.get_ref().line_of(p.byte()),
            _ => self.line,
        }
    }

    /// Reads the next record and decodes it into `scratch` (with `keep`, copies it into
    /// `record` instead): `None` at the end, else the decoder's verdict. Malformed lines
    /// (wrong field count) go through the invalid policy.
    fn next_record(&mut self, keep: bool) -> Result<Option<Result<(), String>>, WorkloadError> {
        loop {
            let error = match &mut self.records {
                Records::Quoted(reader) => match reader.read_byte_record(&mut self.record) {
                    Ok(false) => return Ok(None),
                    Ok(true) => {
                        if let Some(p) = self.record.position() {
                            reader.get_mut().keep_from(p.byte());
                        }
                        return Ok(Some(match keep {
                            true => Ok(()),
                            false => self.decoder.decode(&self.record, &mut self.scratch),
                        }));
                    }
                    Err(e) => csv_error(&self.shown, reader.get_ref(), e),
                },
                Records::Plain(records, width) => match records.next() {
                    Ok(None) => return Ok(None),
                    Ok(Some((line, fields))) => {
                        self.line = line;
                        let len = fields.len();
                        match *width {
                            None => *width = Some(len),
                            Some(expected) if expected != len => {
                                self.invalid
                                    .handle(unequal(&self.shown, line, len, expected))?;
                                continue;
                            }
                            Some(_) => {}
                        }
                        return Ok(Some(match keep {
                            true => {
                                self.record = fields.to_record();
                                Ok(())
                            }
                            false => self.decoder.decode(&fields, &mut self.scratch),
                        }));
                    }
                    Err(source) => {
                        return Err(WorkloadError::Io {
                            path: self.shown.clone(),
                            source,
                        })
                    }
                },
            };
            if !matches!(error, WorkloadError::Invalid { .. }) {
                return Err(error);
            }
            self.invalid.handle(error)?;
        }
    }
}

/// A record whose field count differs from the first line's.
fn unequal(shown: &Path, line: u64, len: usize, expected: usize) -> WorkloadError {
    WorkloadError::Invalid {
        path: shown.to_path_buf(),
        location: format!("line {line}"),
        message: format!("this line has {len} fields but the first line has {expected}"),
    }
}

fn csv_error<R>(shown: &Path, lines: &LineTracker<R>, error: ::csv::Error) -> WorkloadError {
    let line = error.position().map_or(0, |p| lines.line_of(p.byte()));
    let text = error.to_string();
    match error.into_kind() {
        ErrorKind::Io(source) => WorkloadError::Io {
            path: shown.to_path_buf(),
            source,
        },
        ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => unequal(shown, line, len as usize, expected_len as usize),
        _ => WorkloadError::Trace {
            path: shown.to_path_buf(),
            message: format!("cannot parse the text: {text}"),
        },
    }
}

impl<D: Decoder> EventSource for DelimitedReader<D> {
    /// Appends up to `max` events; on an error, the events appended before the bad record
    /// stay in `chunk` and the stream ends.
    fn fill(&mut self, chunk: &mut EventChunk, max: usize) -> Result<usize, WorkloadError> {
        if chunk.is_empty() {
            chunk.first_index = self.emitted;
        }
        let mut n = 0;
        while n < max && !self.done {
            let decoded = if self.pending {
                self.pending = false;
                self.decoder.decode(&self.record, &mut self.scratch)
            } else {
                match self.next_record(false).inspect_err(|_| self.done = true)? {
                    Some(decoded) => decoded,
                    None => {
                        self.done = true;
                        break;
                    }
                }
            };
            match decoded {
                Ok(()) => {
                    chunk.push(self.scratch.event());
                    self.emitted += 1;
                    n += 1;
                }
                Err(message) => {
                    let error = WorkloadError::Invalid {
                        path: self.shown.clone(),
                        location: format!("line {}", self.line()),
                        message,
                    };
                    if let Err(e) = self.invalid.handle(error) {
                        self.done = true;
                        return Err(e);
                    }
                }
            }
        }
        Ok(n)
    }

    /// Blocks of whole plain lines as raw bytes, decoded by the thread that takes the piece
    /// ([`PlainBlocks`]); decoded here for quoted records, the record read at open and when
    /// malformed records are skipped (the skips are counted in stream order).
    fn fill_piece(&mut self, piece: &mut Piece, max: usize) -> Result<usize, WorkloadError> {
        let raw = !(self.pending || self.done || self.invalid.skips() || max == 0);
        let (Records::Plain(records, Some(width)), true) = (&mut self.records, raw) else {
            return piece.push_decoded(|chunk| self.fill(chunk, max));
        };
        let (delimiter, width) = (records.delimiter(), *width);
        let taken = records.take_lines(max).map_err(|source| WorkloadError::Io {
            path: self.shown.clone(),
            source,
        });
        let Some((line, bytes)) = taken? else {
            return piece.push_decoded(|chunk| self.fill(chunk, max));
        };
        let blocks = self.blocks.get_or_insert_with(|| {
            Arc::new(PlainBlocks {
                decoder: self.decoder.clone(),
                shown: self.shown.clone(),
                delimiter,
                width,
            })
        });
        piece.raw_room(bytes.len()).copy_from_slice(bytes);
        piece.push_raw(blocks, bytes.len(), line, None);
        // The events are counted once decoded: at least one line was taken.
        Ok(1)
    }
}

/// Decodes a block of whole plain lines ([`PlainRecords::take_lines`]) into events: the
/// reader's `fill` without the skip policy (blocks are cut only when records are not
/// skipped), on whichever thread takes the piece.
struct PlainBlocks<D> {
    decoder: D,
    shown: PathBuf,
    delimiter: u8,
    /// The field count of the first line, which every record must have.
    width: usize,
}

impl<D: Decoder> PieceDecoder for PlainBlocks<D> {
    fn decode(&self, bytes: &[u8], line: u64, chunk: &mut EventChunk) -> Result<(), WorkloadError> {
        let mut records = PlainRecords::over(bytes.to_vec(), self.delimiter, line);
        let mut decoder = self.decoder.clone();
        let mut scratch = Scratch::new();
        let invalid = |line: u64, message: String| WorkloadError::Invalid {
            path: self.shown.clone(),
            location: format!("line {line}"),
            message,
        };
        loop {
            let next = records.next().map_err(|source| WorkloadError::Io {
                path: self.shown.clone(),
                source,
            })?;
            let Some((line, fields)) = next else {
                return Ok(());
            };
            if fields.len() != self.width {
                return Err(unequal(&self.shown, line, fields.len(), self.width));
            }
            decoder
                .decode(&fields, &mut scratch)
                .map_err(|message| invalid(line, message))?;
            chunk.push(scratch.event());
        }
    }
}

/// Refuses bytes that are not text: a NUL byte, or more than 1% control characters other
/// than tab, CR and LF, in the first bytes.
pub(crate) fn check_text(head: &[u8], format: &str) -> Result<(), String> {
    let binary = |offset: usize| {
        Err(format!(
            "is binary data, not {format} text (byte offset {offset} is 0x{:02x}); \
             for a binary trace pass --format oracle-general or --format vscsi",
            head[offset]
        ))
    };
    if let Some(offset) = memchr::memchr(0, head) {
        return binary(offset);
    }
    let control = |b: &u8| (*b < 0x20 && !matches!(b, b'\t' | b'\r' | b'\n')) || *b == 0x7f;
    let count = head.iter().filter(|b| control(b)).count();
    if count > 0 && count * 100 > head.len() {
        return binary(head.iter().position(control).unwrap_or(0));
    }
    Ok(())
}

/// The delimiter of the first lines: the candidate found the same number of times (outside
/// quotes) on every complete line, the most frequent such; `,` when none is.
pub fn detect_delimiter(head: &[u8]) -> u8 {
    let lines = complete_lines(head, 20);
    let mut best: Option<(u8, usize)> = None;
    for d in DELIMITERS {
        let counts: Vec<usize> = lines.iter().map(|l| count_outside_quotes(l, d)).collect();
        let Some(&first) = counts.first() else {
            continue;
        };
        if first > 0 && counts.iter().all(|&c| c == first) && best.is_none_or(|(_, n)| first > n) {
            best = Some((d, first));
        }
    }
    best.map_or(b',', |(d, _)| d)
}

/// Up to `max` complete, non-empty lines of `head`; a last line without its line break is
/// used only when it is the only line.
fn complete_lines(head: &[u8], max: usize) -> Vec<&[u8]> {
    let mut lines: Vec<&[u8]> = Vec::new();
    let mut rest = head;
    while let Some(i) = memchr::memchr(b'\n', rest) {
        let line = rest[..i].strip_suffix(b"\r").unwrap_or(&rest[..i]);
        if !line.is_empty() {
            lines.push(line);
        }
        rest = &rest[i + 1..];
        if lines.len() == max {
            return lines;
        }
    }
    if lines.is_empty() && !rest.is_empty() {
        lines.push(rest);
    }
    lines
}

fn count_outside_quotes(line: &[u8], delimiter: u8) -> usize {
    let mut quoted = false;
    let mut n = 0;
    for &b in line {
        if b == b'"' {
            quoted = !quoted;
        } else if b == delimiter && !quoted {
            n += 1;
        }
    }
    n
}

/// A reader that remembers where the recent line breaks are, so that the physical line of a
/// byte offset can be told exactly (`\n`, `\r\n` and a lone `\r` each end a line) without
/// reading the input twice. Breaks before the current record are forgotten as reading goes
/// on, so memory stays bounded by the read buffer.
pub(crate) struct LineTracker<R> {
    inner: R,
    /// Bytes passed through so far.
    pos: u64,
    /// Line-break bytes not yet forgotten: (offset, starts a new line).
    breaks: VecDeque<(u64, bool)>,
    /// Line breaks forgotten from the front.
    lines_before: u64,
    /// Breaks before this offset are no longer needed.
    keep_from: u64,
    /// Offset of the last `\r` seen (a `\n` right after it ends no further line).
    last_cr: Option<u64>,
}

impl<R> LineTracker<R> {
    fn new(inner: R) -> Self {
        LineTracker {
            inner,
            pos: 0,
            breaks: VecDeque::new(),
            lines_before: 0,
            keep_from: 0,
            last_cr: None,
        }
    }

    /// Declares that no line will be asked for before `offset`.
    fn keep_from(&mut self, offset: u64) {
        self.keep_from = self.keep_from.max(offset);
    }

    /// The line (1-based) of the first byte at or after `offset` that is not a line break.
    fn line_of(&self, offset: u64) -> u64 {
        let mut at = offset;
        let mut line = self.lines_before + 1;
        for &(pos, new_line) in &self.breaks {
            if pos < at {
                line += u64::from(new_line);
            } else if pos == at {
                line += u64::from(new_line);
                at += 1;
            } else {
                break;
            }
        }
        line
    }

    fn forget(&mut self) {
        while let Some(&(pos, new_line)) = self.breaks.front() {
            if pos >= self.keep_from {
                break;
            }
            self.lines_before += u64::from(new_line);
            self.breaks.pop_front();
        }
    }
}

impl<R: Read> Read for LineTracker<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.forget();
        let n = self.inner.read(buf)?;
        for i in memchr::memchr2_iter(b'\r', b'\n', &buf[..n]) {
            let pos = self.pos + i as u64;
            let cr = buf[i] == b'\r';
            let new_line = cr || self.last_cr.is_none_or(|c| c + 1 != pos);
            if cr {
                self.last_cr = Some(pos);
            }
            self.breaks.push_back((pos, new_line));
        }
        self.pos += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tracked(text: &[u8], chunk: usize) -> LineTracker<&[u8]> {
        let mut t = LineTracker::new(text);
        let mut buf = vec![0; chunk];
        while t.read(&mut buf).unwrap() > 0 {}
        t
    }

    #[test]
    fn the_line_tracker_counts_every_kind_of_line_break() {
        let text = b"a\r\nb\rc\n\r\n\nd";
        for chunk in [1, 2, 3, 64] {
            let t = tracked(text, chunk);
            assert_eq!(t.line_of(0), 1, "chunk {chunk}");
            assert_eq!(t.line_of(3), 2);
            assert_eq!(t.line_of(5), 3);
            assert_eq!(t.line_of(7), 6);
            assert_eq!(
                t.line_of(1),
                2,
                "a break is skipped to the next line's first byte"
            );
        }
    }

    #[test]
    fn forgotten_breaks_still_count() {
        let mut t = LineTracker::new(&b"1\n2\n3\n4\n"[..]);
        let mut buf = [0u8; 4];
        assert_eq!(t.read(&mut buf).unwrap(), 4);
        t.keep_from(4);
        assert_eq!(t.read(&mut buf).unwrap(), 4);
        assert_eq!(t.breaks.len(), 2);
        assert_eq!(t.line_of(4), 3);
        assert_eq!(t.line_of(6), 4);
    }

    #[test]
    fn delimiters_are_detected_outside_quotes() {
        assert_eq!(detect_delimiter(b"a,b,c\n1,2,3\n"), b',');
        assert_eq!(detect_delimiter(b"a\tb\n1\t\"x,y\"\n"), b'\t');
        assert_eq!(detect_delimiter(b"a|b|c\n1|2|3\n"), b'|');
        assert_eq!(detect_delimiter(b"a;b\n1,5;2\n"), b';');
        assert_eq!(detect_delimiter(b"key\n1\n2\n"), b',');
        assert_eq!(detect_delimiter(b""), b',');
    }

    #[test]
    fn binary_heads_are_not_text() {
        assert!(check_text(b"key,op\n1,get\n", "csv").is_ok());
        let e = check_text(b"key\x00\x01", "csv").unwrap_err();
        assert!(
            e.contains("binary data") && e.contains("byte offset 3"),
            "{e}"
        );
        let noisy: Vec<u8> = (0..=255u8).cycle().take(1000).filter(|b| *b != 0).collect();
        assert!(check_text(&noisy, "text").is_err());
    }
}

/// The splitter against the csv crate's reader.
#[cfg(test)]
mod splitter_tests {
    use std::path::Path;

    use proptest::prelude::*;

    use std::io::{self, Read};

    use super::super::csv::{ColumnsDecoder, CsvColumns};
    use super::super::input::{Compression, Input, HEAD_BYTES};
    use super::super::invalid::InvalidPolicy;
    use super::super::ops::OpMap;
    use super::{DelimitedReader, Layout};
    use crate::{EventChunk, EventSource, KeyType, Op};

    /// Hands out at most `step` bytes per read, so records straddle refills.
    struct Trickle {
        bytes: io::Cursor<Vec<u8>>,
        step: usize,
    }

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len());
            self.bytes.read(&mut buf[..n])
        }
    }

    type Owned = (Op, Vec<u8>, Option<Vec<u8>>, Option<u64>, Option<u32>);

    /// Everything a reader tells about `text`: the events, then the error that ended the
    /// stream (or that refused it at open), and the skipped records' count and first message.
    fn outcome(
        text: &[u8],
        header: bool,
        key_type: KeyType,
        skip: bool,
        csv_crate: bool,
        step: usize,
    ) -> (Vec<Owned>, Option<String>, u64, Option<String>) {
        let reader: Box<dyn Read + Send> = if csv_crate {
            Box::new(io::Cursor::new(text.to_vec()))
        } else {
            Box::new(Trickle {
                bytes: io::Cursor::new(text.to_vec()),
                step,
            })
        };
        let input = Input {
            head: text[..text.len().min(HEAD_BYTES)].to_vec(),
            reader,
            compression: Compression::None,
            plain_size: None,
        };
        let policy = if skip {
            InvalidPolicy::skipping(Some(3))
        } else {
            InvalidPolicy::strict()
        };
        let decoder = ColumnsDecoder::new(CsvColumns::default(), key_type, OpMap::default());
        let layout = Layout {
            header,
            delimiter: None,
        };
        let mut events = Vec::new();
        let opened = DelimitedReader::open_with(
            input,
            Path::new("t.csv"),
            "csv",
            layout,
            decoder,
            &policy,
            csv_crate,
        );
        let error = match opened {
            Err(e) => Some(e.to_string()),
            Ok(mut source) => {
                let mut chunk = EventChunk::default();
                loop {
                    chunk.clear();
                    let filled = source.fill(&mut chunk, 3);
                    events.extend(chunk.iter().map(|e| {
                        (
                            e.op,
                            e.key.to_vec(),
                            e.end.map(<[u8]>::to_vec),
                            e.timestamp,
                            e.size,
                        )
                    }));
                    match filled {
                        Ok(0) => break None,
                        Ok(_) => {}
                        Err(e) => break Some(e.to_string()),
                    }
                }
            }
        };
        (events, error, policy.log.skipped(), policy.log.first())
    }

    /// One line of a mostly well-formed `timestamp,op,key,end` trace, or a malformed one.
    fn line() -> impl Strategy<Value = String> {
        let number = prop_oneof![
            (0u64..50).prop_map(|n| n.to_string()),
            any::<u64>().prop_map(|n| n.to_string()),
            Just(String::new()),
            Just(" 7 ".to_string()),
            Just("-3".to_string()),
            Just("18446744073709551616".to_string()),
            Just("x1".to_string()),
        ];
        let op = prop_oneof![
            Just("get"),
            Just("GET"),
            Just("put"),
            Just("del"),
            Just("scan"),
            Just(""),
            Just("fetch"),
            Just("\"get\""),
            Just("\"g\r\net\""),
        ];
        prop_oneof![
            6 => (number.clone(), op, number.clone(), number.clone())
                .prop_map(|(t, o, k, e)| format!("{t},{o},{k},{e}")),
            1 => (number.clone(), number.clone()).prop_map(|(t, k)| format!("{t},get,{k}")),
            1 => (number.clone(), number).prop_map(|(t, k)| format!("{t},get,{k},,")),
            1 => Just(String::new()),
            1 => Just("\"1\",\"get\",\"5\",\"\"".to_string()),
            1 => Just("2,get,\"3\"\"\",".to_string()),
            1 => "[0-9,\"a \r\n]{0,12}",
        ]
    }

    fn trace() -> impl Strategy<Value = Vec<u8>> {
        let header = prop_oneof![
            Just("timestamp,op,key,end"),
            Just("key,op,timestamp,end"),
            Just("\u{feff}timestamp,op,key,end"),
            Just("timestamp,op,key"),
            Just(""),
        ];
        let terminator = prop_oneof![Just("\n"), Just("\r\n"), Just("\r")];
        (
            header,
            prop::collection::vec((line(), terminator), 0..12),
            any::<bool>(),
        )
            .prop_map(|(header, lines, last_break)| {
                let mut text = String::from(header);
                text.push('\n');
                let n = lines.len();
                for (i, (line, end)) in lines.into_iter().enumerate() {
                    text.push_str(&line);
                    if i + 1 < n || last_break {
                        text.push_str(end);
                    }
                }
                text.into_bytes()
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        #[test]
        fn the_splitter_reads_as_the_csv_crate(
            text in prop_oneof![trace(), "[0-9,\"a \r\n]{0,40}".prop_map(String::into_bytes)],
            header in any::<bool>(),
            u64_keys in any::<bool>(),
            skip in any::<bool>(),
            step in 1usize..50,
        ) {
            let key_type = if u64_keys { KeyType::U64 } else { KeyType::Bytes };
            let expected = outcome(&text, header, key_type, skip, true, 0);
            let got = outcome(&text, header, key_type, skip, false, step);
            prop_assert_eq!(got, expected, "{:?}", String::from_utf8_lossy(&text));
        }
    }

    #[test]
    fn errors_name_the_physical_line_after_blank_lines_quotes_and_crlf() {
        let text =
            b"\xef\xbb\xbftimestamp,op,key,end\r\n\r\n1,get,\"a\r\nb\",\r2,get,5,\n\n3,bad,6,";
        for csv_crate in [true, false] {
            let (events, error, ..) = outcome(text, true, KeyType::Bytes, false, csv_crate, 4);
            assert_eq!(events.len(), 2);
            assert_eq!(events[0].1, b"a\r\nb");
            let error = error.unwrap();
            assert!(error.contains("line 7: unknown op 'bad'"), "{error}");
        }
    }
}
