//! CSV traces: a header line names the columns, then one event per record.
//!
//! | column      | content                                                   | required |
//! |-------------|-----------------------------------------------------------|----------|
//! | `key`       | the key (text, or a decimal integer with `--key-type u64`) | yes      |
//! | `op`        | `get`, `put`, `delete` or `scan`; empty means `get`        | no (get) |
//! | `end`       | exclusive end key of a scan                                | for scans|
//! | `timestamp` | whole number, in the trace's own unit                      | no       |
//! | `size`      | value size in bytes (0..=4294967295)                       | no       |
//!
//! Column names are matched without regard to case or surrounding spaces; other columns are
//! ignored. Records are read into one reused [`::csv::ByteRecord`] and two key buffers, so
//! memory stays bounded and no event allocates. Errors name the physical line (the header is
//! line 1).

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use ::csv::{ByteRecord, ErrorKind, Reader, ReaderBuilder};

use crate::key::parse_u64;
use crate::{Event, EventChunk, EventSource, KeyType, Op, WorkloadError};

/// The columns shardlab reads, in the order they are listed in messages.
const COLUMNS: [&str; 5] = ["key", "op", "end", "timestamp", "size"];

/// The end of the message about an unknown op.
const VALID_OPS: &str = "valid ops: get, put, delete, scan (an empty cell means get)";

/// Positions of the known columns in the header.
#[derive(Clone, Copy, Debug, Default)]
struct Columns {
    key: usize,
    op: Option<usize>,
    end: Option<usize>,
    timestamp: Option<usize>,
    size: Option<usize>,
}

/// A CSV trace, streamed record by record.
pub struct CsvTraceReader {
    path: PathBuf,
    key_type: KeyType,
    reader: Reader<File>,
    columns: Columns,
    record: ByteRecord,
    /// `record` holds a record read ahead (at open, to refuse traces without events).
    pending: bool,
    /// The stream has ended (or failed).
    done: bool,
    key: Vec<u8>,
    end: Vec<u8>,
    emitted: u64,
}

impl CsvTraceReader {
    /// Opens `path`, reads its header and its first record; fails on a missing file, a missing
    /// `key` column, a trace without events or a malformed first record.
    pub fn open(path: &Path, key_type: KeyType) -> Result<CsvTraceReader, WorkloadError> {
        let file = File::open(path).map_err(|source| WorkloadError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let mut reader = ReaderBuilder::new()
            .has_headers(true)
            .flexible(false)
            .from_reader(file);
        let header = reader
            .byte_headers()
            .map_err(|e| csv_error(path, e))?
            .clone();
        if header.is_empty() {
            return Err(trace_error(
                path,
                "contains no events: the file is empty".into(),
            ));
        }
        let columns = find_columns(path, &header)?;
        let mut this = CsvTraceReader {
            path: path.to_path_buf(),
            key_type,
            reader,
            columns,
            record: ByteRecord::new(),
            pending: false,
            done: false,
            key: Vec::new(),
            end: Vec::new(),
            emitted: 0,
        };
        if !this.read_record()? {
            return Err(trace_error(
                path,
                "contains no events: there is nothing after the header line".into(),
            ));
        }
        this.pending = true;
        Ok(this)
    }

    /// Reads the next record into `self.record`; false at the end of the file.
    fn read_record(&mut self) -> Result<bool, WorkloadError> {
        self.reader
            .read_byte_record(&mut self.record)
            .map_err(|e| csv_error(&self.path, e))
    }

    /// Decodes `self.record` into `self.key` and `self.end`; returns its other fields.
    fn decode(&mut self) -> Result<(Op, bool, Option<u64>, Option<u32>), String> {
        let c = self.columns;
        let field = |i: Option<usize>| i.and_then(|i| self.record.get(i)).unwrap_or(b"");
        let op_text = field(c.op).trim_ascii();
        let op = if op_text.is_empty() {
            Op::Get
        } else {
            Op::ALL
                .into_iter()
                .find(|op| op.name().as_bytes().eq_ignore_ascii_case(op_text))
                .ok_or_else(|| format!("unknown op '{}'; {VALID_OPS}", shown(op_text)))?
        };
        self.key.clear();
        parse_key(self.key_type, field(Some(c.key)), &mut self.key)
            .map_err(|e| format!("key: {e}"))?;
        let has_end = op == Op::Scan;
        if has_end {
            if c.end.is_none() {
                return Err(
                    "a scan needs an exclusive end key, but the trace has no `end` column".into(),
                );
            }
            let end_text = field(c.end);
            if end_text.trim_ascii().is_empty() {
                return Err(
                    "a scan needs an exclusive end key in the `end` column, and it is empty".into(),
                );
            }
            self.end.clear();
            parse_key(self.key_type, end_text, &mut self.end).map_err(|e| format!("end: {e}"))?;
            if self.end <= self.key {
                return Err(format!(
                    "the scan end '{}' is not after its start '{}' (the end is exclusive)",
                    self.key_type.display(&self.end),
                    self.key_type.display(&self.key)
                ));
            }
        }
        let timestamp = optional_number(field(c.timestamp), "timestamp", u64::MAX)?;
        let size = optional_number(field(c.size), "size", u32::MAX.into())?.map(|n| n as u32);
        Ok((op, has_end, timestamp, size))
    }
}

impl EventSource for CsvTraceReader {
    /// Appends up to `max` events; on an error, the events appended before the bad record
    /// stay in `chunk` and the stream ends.
    fn fill(&mut self, chunk: &mut EventChunk, max: usize) -> Result<usize, WorkloadError> {
        if chunk.is_empty() {
            chunk.first_index = self.emitted;
        }
        let mut n = 0;
        while n < max && !self.done {
            if !self.pending && !self.read_record().inspect_err(|_| self.done = true)? {
                self.done = true;
                break;
            }
            self.pending = false;
            let (op, has_end, timestamp, size) = self.decode().map_err(|message| {
                self.done = true;
                WorkloadError::Invalid {
                    path: self.path.clone(),
                    location: format!("line {}", line_of(&self.path, self.record.position())),
                    message,
                }
            })?;
            chunk.push(Event {
                op,
                key: &self.key,
                end: has_end.then_some(&self.end[..]),
                timestamp,
                size,
            });
            self.emitted += 1;
            n += 1;
        }
        Ok(n)
    }
}

fn find_columns(path: &Path, header: &ByteRecord) -> Result<Columns, WorkloadError> {
    let mut found: [Option<usize>; 5] = [None; 5];
    for (i, name) in header.iter().enumerate() {
        let name = name.trim_ascii();
        if let Some(c) = COLUMNS
            .iter()
            .position(|c| c.as_bytes().eq_ignore_ascii_case(name))
        {
            if found[c].is_some() {
                return Err(trace_error(
                    path,
                    format!("the header names the `{}` column twice", COLUMNS[c]),
                ));
            }
            found[c] = Some(i);
        }
    }
    let [key, op, end, timestamp, size] = found;
    let Some(key) = key else {
        let names: Vec<String> = header.iter().map(|n| format!("'{}'", shown(n))).collect();
        return Err(trace_error(
            path,
            format!(
                "the header line names the columns {}, but a `key` column is required \
                 (optional: op, end, timestamp, size); the first line must be a header",
                names.join(", ")
            ),
        ));
    };
    Ok(Columns {
        key,
        op,
        end,
        timestamp,
        size,
    })
}

/// Integer keys may be padded with spaces; byte keys are taken exactly as written.
fn parse_key(key_type: KeyType, text: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    match key_type {
        KeyType::U64 => key_type.parse_into(text.trim_ascii(), out),
        KeyType::Bytes => key_type.parse_into(text, out),
    }
}

/// An optional whole number no greater than `max`; an empty cell is `None`.
fn optional_number(text: &[u8], column: &str, max: u64) -> Result<Option<u64>, String> {
    let text = text.trim_ascii();
    if text.is_empty() {
        return Ok(None);
    }
    match parse_u64(text) {
        Some(n) if n <= max => Ok(Some(n)),
        _ => Err(format!(
            "{column} '{}' is not a whole number in 0..={max}",
            shown(text)
        )),
    }
}

/// A field for an error message on one line: lossy UTF-8, control characters escaped, cut
/// after 60 characters.
fn shown(text: &[u8]) -> String {
    let text = String::from_utf8_lossy(text);
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == 60 {
            out.push_str("...");
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The physical line (1-based) of the record that starts at `position`.
///
/// The csv crate's own line numbers are off for CRLF files and after blank lines (a record's
/// position is where the reader stood after the previous record), but its byte offsets are
/// exact. So, only when reporting an error, the file is scanned again up to the record's
/// first byte, counting `\n`, `\r\n` and lone `\r` as line breaks. Files that cannot be read
/// twice (pipes) get the csv crate's line number.
fn line_of(path: &Path, position: Option<&::csv::Position>) -> u64 {
    let Some(position) = position else { return 0 };
    let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    let scanned = if regular {
        File::open(path)
            .ok()
            .and_then(|f| scan_line(f, position.byte()))
    } else {
        None
    };
    scanned.unwrap_or(position.line())
}

/// The line of the first byte at or after `start` that is not a line break.
fn scan_line(file: impl Read, start: u64) -> Option<u64> {
    let mut line = 1;
    let mut after_cr = false;
    for (offset, byte) in (0u64..).zip(BufReader::with_capacity(1 << 16, file).bytes()) {
        let byte = byte.ok()?;
        match byte {
            b'\r' => line += 1,
            b'\n' if !after_cr => line += 1,
            b'\n' => {}
            _ if offset >= start => return Some(line),
            _ => {}
        }
        after_cr = byte == b'\r';
    }
    None
}

fn trace_error(path: &Path, message: String) -> WorkloadError {
    WorkloadError::Trace {
        path: path.to_path_buf(),
        message,
    }
}

fn csv_error(path: &Path, error: ::csv::Error) -> WorkloadError {
    let line = line_of(path, error.position());
    let text = error.to_string();
    match error.into_kind() {
        ErrorKind::Io(source) => WorkloadError::Io {
            path: path.to_path_buf(),
            source,
        },
        ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => WorkloadError::Invalid {
            path: path.to_path_buf(),
            location: format!("line {line}"),
            message: format!("this line has {len} fields but the header has {expected_len}"),
        },
        _ => trace_error(path, format!("cannot parse the CSV: {text}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::encode_u64;
    use crate::trace::{self, TraceOptions};
    use crate::{collect, Event};
    use std::io::Write;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures")
            .join(name)
    }

    fn read(path: &Path, key_type: KeyType) -> Result<EventChunk, WorkloadError> {
        collect(
            trace::open(&TraceOptions {
                path: path.to_path_buf(),
                key_type,
            })?
            .as_mut(),
        )
    }

    /// Reads `text` as a u64 trace from a temporary file.
    fn read_text(text: &str) -> Result<EventChunk, WorkloadError> {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(text.as_bytes()).unwrap();
        read(file.path(), KeyType::U64)
    }

    /// The error of reading `text`, checked to be `Invalid` at `line`.
    fn invalid_at(text: &str, line: u64) -> String {
        match read_text(text) {
            Err(e @ WorkloadError::Invalid { .. }) => {
                let WorkloadError::Invalid { location, .. } = &e else {
                    unreachable!()
                };
                assert_eq!(location, &format!("line {line}"), "{e}");
                let message = e.to_string();
                assert!(message.contains(&format!(":line {line}: ")), "{message}");
                message
            }
            other => panic!("expected an invalid line {line}, got {other:?}"),
        }
    }

    fn trace_error_of(text: &str) -> String {
        match read_text(text) {
            Err(e @ WorkloadError::Trace { .. }) => e.to_string(),
            other => panic!("expected a trace error, got {other:?}"),
        }
    }

    #[test]
    fn the_tiny_fixture_reads_every_column() {
        let chunk = read(&fixture("tiny_trace.csv"), KeyType::U64).unwrap();
        let k = |n: u64| encode_u64(n);
        let (k1, k2, k3, k10) = (k(1), k(2), k(3), k(10));
        fn event(op: Op, key: &[u8], t: u64, size: Option<u32>) -> Event<'_> {
            Event {
                op,
                key,
                end: None,
                timestamp: Some(t),
                size,
            }
        }
        let expected = [
            event(Op::Put, &k1, 100, Some(8)),
            event(Op::Get, &k1, 150, None),
            event(Op::Get, &k2, 200, None),
            Event {
                end: Some(&k10[..]),
                ..event(Op::Scan, &k1, 250, None)
            },
            event(Op::Delete, &k2, 300, None),
            event(Op::Get, &k3, 310, Some(16)),
        ];
        assert_eq!(chunk.iter().collect::<Vec<_>>(), expected);
    }

    #[test]
    fn a_trace_with_only_keys_is_a_stream_of_gets() {
        let chunk = read(&fixture("tiny_trace_keys_only.csv"), KeyType::Bytes).unwrap();
        let keys: Vec<&[u8]> = chunk.iter().map(|e| e.key).collect();
        assert_eq!(keys, [&b"user1"[..], b"user2", b"user1"]);
        assert!(chunk.iter().all(|e| e.op == Op::Get
            && e.end.is_none()
            && e.timestamp.is_none()
            && e.size.is_none()));
    }

    #[test]
    fn small_fills_stream_the_trace_in_order_with_their_first_index() {
        let mut source = trace::open(&TraceOptions {
            path: fixture("tiny_trace.csv"),
            key_type: KeyType::U64,
        })
        .unwrap();
        assert_eq!(source.len_hint(), None);
        let mut chunk = EventChunk::default();
        let mut sizes = Vec::new();
        loop {
            chunk.clear();
            let n = source.fill(&mut chunk, 4).unwrap();
            if n == 0 {
                break;
            }
            sizes.push((chunk.first_index, n));
        }
        assert_eq!(sizes, [(0, 4), (4, 2)]);
    }

    #[test]
    fn a_missing_file_is_an_io_error_naming_the_path() {
        let path = fixture("no_such_trace.csv");
        let e = read(&path, KeyType::U64).unwrap_err();
        assert!(
            matches!(&e, WorkloadError::Io { path: p, .. } if p == &path),
            "{e:?}"
        );
        assert!(e.to_string().contains("no_such_trace.csv"), "{e}");
    }

    #[test]
    fn traces_without_events_are_refused() {
        for text in ["", "\n\n", "key,op\n", "key,op\n\n\n"] {
            let e = trace_error_of(text);
            assert!(e.contains("contains no events"), "{text:?}: {e}");
        }
    }

    #[test]
    fn a_header_without_a_key_column_names_what_it_found() {
        let e = trace_error_of("id,op\n1,get\n");
        assert!(
            e.contains("'id', 'op'") && e.contains("a `key` column is required"),
            "{e}"
        );
        let e = trace_error_of("1,get\n2,put\n");
        assert!(
            e.contains("'1', 'get'") && e.contains("must be a header"),
            "{e}"
        );
        let e = trace_error_of("key,KEY\n1,2\n");
        assert!(e.contains("`key` column twice"), "{e}");
    }

    #[test]
    fn column_names_ignore_case_and_spaces() {
        let chunk = read_text(" Key , OP \n5,put\n").unwrap();
        assert_eq!(chunk.get(0).op, Op::Put);
        assert_eq!(chunk.get(0).key, encode_u64(5));
    }

    #[test]
    fn a_bad_op_names_its_line_and_the_valid_ops() {
        let e = invalid_at("key,op\n1,get\n2,fetch\n", 3);
        assert!(
            e.contains("unknown op 'fetch'; valid ops: get, put, delete, scan"),
            "{e}"
        );
    }

    #[test]
    fn a_bad_integer_key_names_its_line() {
        let e = invalid_at("key\n1\n2\nuser3\n", 4);
        assert!(e.contains("'user3' is not a decimal integer key"), "{e}");
        invalid_at("key,op\n,put\n", 2);
    }

    #[test]
    fn bad_timestamps_and_sizes_name_their_line() {
        let e = invalid_at("key,timestamp\n1,5\n2,-5\n", 3);
        assert!(e.contains("timestamp '-5' is not a whole number"), "{e}");
        let e = invalid_at("key,size\n1,4294967295\n2,4294967296\n", 3);
        assert!(
            e.contains("size '4294967296' is not a whole number in 0..=4294967295"),
            "{e}"
        );
    }

    #[test]
    fn a_scan_needs_an_end_after_its_start() {
        let e = invalid_at("key,op,end\n1,get,\n2,scan,\n", 3);
        assert!(e.contains("a scan needs an exclusive end key"), "{e}");
        let e = invalid_at("key,op\n2,scan\n", 2);
        assert!(e.contains("no `end` column"), "{e}");
        let e = invalid_at("key,op,end\n5,scan,5\n", 2);
        assert!(e.contains("scan end '5' is not after its start '5'"), "{e}");
        let e = invalid_at("key,op,end\n5,scan,x\n", 2);
        assert!(e.contains("end: 'x' is not a decimal integer key"), "{e}");
    }

    #[test]
    fn a_line_with_the_wrong_number_of_fields_names_its_line() {
        let e = invalid_at("key,op\n1,get\n2\n", 3);
        assert!(e.contains("1 fields but the header has 2"), "{e}");
        let e = invalid_at("key,op\n1,get,extra\n", 2);
        assert!(e.contains("3 fields but the header has 2"), "{e}");
    }

    #[test]
    fn line_numbers_count_blank_lines_and_quoted_line_breaks() {
        invalid_at("key,op,note\n\n1,get,\"two\nlines\"\n\n2,bad,\n", 6);
        invalid_at("key,op\r\n1,get\r\n\r\n2,bad\r\n", 4);
        invalid_at("\u{feff}key,op\r\n1,get\r\n2,get,x\r\n", 3);
        invalid_at("\n\nkey,op\r1,get\r2,bad", 5);
        invalid_at("key,op,note\n1,get,\"a\r\nb\"\n\n\n2,bad,", 6);
        let e = invalid_at("key,op\n1,\"a\r\nb\"\n", 2);
        assert!(e.contains("unknown op 'a\\r\\nb'"), "{e}");
    }

    #[test]
    fn the_line_scan_counts_every_kind_of_line_break() {
        let text = b"a\r\nb\rc\n\r\n\nd";
        assert_eq!(scan_line(&text[..], 0), Some(1));
        assert_eq!(scan_line(&text[..], 3), Some(2));
        assert_eq!(scan_line(&text[..], 5), Some(3));
        assert_eq!(scan_line(&text[..], 7), Some(6));
        assert_eq!(scan_line(&text[..], 99), None);
    }
}
