//! `csv`: generic delimited text, one event per record, columns mapped by header name or by
//! 1-based position.
//!
//! | column (option)        | default with a header | content                                              |
//! |------------------------|-----------------------|------------------------------------------------------|
//! | key (`--key-col`)      | `key` (required)      | the key (text, or a decimal integer with `--key-type u64`) |
//! | op (`--op-col`)        | `op`, if present      | read loosely (`get`, `GET`, `set`, `write`, ...); empty is a get |
//! | end (`--end-col`)      | `end`, if present     | exclusive end key of a scan (required) or of a range write (a put or delete with an end: every key of `[key, end)`) |
//! | time (`--time-col`)    | `timestamp`, if present | whole number, in the trace's own unit              |
//! | size (`--size-col`)    | `size`, if present    | value size in bytes (0..=4294967295)                 |
//!
//! Without a header (`--no-header`) the key is column 1 unless `--key-col` says otherwise,
//! and other columns are read only when named by number. Header names are matched without
//! regard to case or surrounding spaces; other columns are ignored. The delimiter is
//! detected among `,`, tab, `|` and `;` unless `--delimiter` is given.
//!
//! A header may declare the key column's type: `key:u64` (what `shardlab gen` and `convert`
//! write for integer keys) is the column `key`, read as with `--key-type u64` whatever
//! `--key-type` says, so a generated trace reads back as written without options.

use std::fmt;
use std::str::FromStr;

use ::csv::ByteRecord;

use super::delimited::{Decoder, Scratch};
use super::fields::Fields;
use super::ops::OpMap;
use crate::key::parse_u64;
use crate::{KeyType, Op};

/// A column, named by its header or by its 1-based position.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(untagged)]
pub enum Column {
    /// The column whose header is this name (case and surrounding spaces ignored).
    Name(String),
    /// The column at this 1-based position.
    Index(usize),
}

impl FromStr for Column {
    type Err = String;

    /// A whole number is a 1-based position; anything else is a header name.
    fn from_str(text: &str) -> Result<Column, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("a column must be a header name or a 1-based number".into());
        }
        if text.bytes().all(|b| b.is_ascii_digit()) {
            return match text.parse::<usize>() {
                Ok(0) | Err(_) => Err(format!("column '{text}': positions count from 1")),
                Ok(i) => Ok(Column::Index(i)),
            };
        }
        Ok(Column::Name(text.to_string()))
    }
}

impl fmt::Display for Column {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Column::Name(name) => write!(f, "'{name}'"),
            Column::Index(i) => write!(f, "{i}"),
        }
    }
}

/// Which columns hold what; `None` takes the default (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CsvColumns {
    /// The key column (`--key-col`).
    pub key: Option<Column>,
    /// The operation column (`--op-col`).
    pub op: Option<Column>,
    /// The timestamp column (`--time-col`).
    pub time: Option<Column>,
    /// The value-size column (`--size-col`).
    pub size: Option<Column>,
    /// The scan-end column (`--end-col`).
    pub end: Option<Column>,
}

impl CsvColumns {
    /// True when no column was chosen.
    pub fn is_default(&self) -> bool {
        *self == CsvColumns::default()
    }
}

/// Positions (0-based) of the columns read.
#[derive(Clone, Copy, Debug, Default)]
struct Positions {
    key: usize,
    op: Option<usize>,
    end: Option<usize>,
    time: Option<usize>,
    size: Option<usize>,
}

/// Decodes records through a column mapping; used by `csv` and, with fixed positions, by
/// `twitter`.
#[derive(Clone)]
pub(crate) struct ColumnsDecoder {
    columns: CsvColumns,
    key_type: KeyType,
    ops: OpMap,
    at: Positions,
}

impl ColumnsDecoder {
    pub(crate) fn new(columns: CsvColumns, key_type: KeyType, ops: OpMap) -> Self {
        ColumnsDecoder {
            columns,
            key_type,
            ops,
            at: Positions::default(),
        }
    }
}

/// (option, default header name, whether a default header name must exist)
const ROLES: [(&str, &str); 5] = [
    ("--key-col", "key"),
    ("--op-col", "op"),
    ("--end-col", "end"),
    ("--time-col", "timestamp"),
    ("--size-col", "size"),
];

impl Decoder for ColumnsDecoder {
    fn start(&mut self, first: &ByteRecord, is_header: bool) -> Result<(), String> {
        let c = &self.columns;
        let chosen = [&c.key, &c.op, &c.end, &c.time, &c.size];
        let mut found: [Option<usize>; 5] = [None; 5];
        for (role, (choice, (option, default))) in chosen.iter().zip(ROLES).enumerate() {
            found[role] = match choice {
                Some(Column::Index(i)) if *i > first.len() => {
                    return Err(format!(
                        "{option} {i} asks for column {i}, but the {} has {} column{}",
                        if is_header { "header line" } else { "first line" },
                        first.len(),
                        if first.len() == 1 { "" } else { "s" }
                    ))
                }
                Some(Column::Index(i)) => Some(i - 1),
                Some(Column::Name(name)) if !is_header => {
                    return Err(format!(
                        "{option} names the column '{name}', but with --no-header columns can \
                         only be given by number (1 is the first)"
                    ))
                }
                Some(Column::Name(name)) => Some(find(first, name).map_err(|e| e.unwrap_or_else(|| {
                    format!(
                        "the header has no column '{name}' (asked for by {option}); its columns are {}",
                        listed(first)
                    )
                }))?),
                None if !is_header => (role == 0).then_some(0),
                None => match find(first, default) {
                    Ok(i) => Some(i),
                    Err(Some(e)) => return Err(e),
                    Err(None) if role == 0 => {
                        return Err(format!(
                            "the header line names the columns {}, but a `key` column is required \
                             (optional: op, end, timestamp, size); name another with --key-col, or \
                             pass --no-header if the first line is data",
                            listed(first)
                        ))
                    }
                    Err(None) => None,
                },
            };
        }
        let [key, op, end, time, size] = found;
        self.at = Positions {
            key: key.unwrap_or(0),
            op,
            end,
            time,
            size,
        };
        Ok(())
    }

    fn decode(&mut self, record: &impl Fields, out: &mut Scratch) -> Result<(), String> {
        let at = self.at;
        let field = |i: Option<usize>| i.and_then(|i| record.get(i)).unwrap_or(b"");
        let op_text = field(at.op).trim_ascii();
        out.op = if op_text.is_empty() {
            Op::Get
        } else {
            self.ops
                .op_of(op_text)
                .ok_or_else(|| format!("unknown op '{}'; {}", shown(op_text), self.ops.help()))?
        };
        out.key.clear();
        self.key_type
            .parse_written(field(Some(at.key)), &mut out.key)
            .map_err(|e| format!("key: {e}"))?;
        // A scan needs an end; a put or delete with one writes the range (a get's is ignored).
        out.has_end =
            out.op == Op::Scan || (out.op.is_write() && !field(at.end).trim_ascii().is_empty());
        if out.has_end {
            let what = if out.op == Op::Scan {
                "scan"
            } else {
                "range write"
            };
            if at.end.is_none() {
                return Err(
                    "a scan needs an exclusive end key, but the trace has no `end` column \
                            (name one with --end-col)"
                        .into(),
                );
            }
            let end_text = field(at.end);
            if end_text.trim_ascii().is_empty() {
                return Err(
                    "a scan needs an exclusive end key in the `end` column, and it is empty".into(),
                );
            }
            out.end.clear();
            self.key_type
                .parse_written(end_text, &mut out.end)
                .map_err(|e| format!("end: {e}"))?;
            if out.end <= out.key {
                return Err(format!(
                    "the {what} end '{}' is not after its start '{}' (the end is exclusive)",
                    self.key_type.display(&out.end),
                    self.key_type.display(&out.key)
                ));
            }
        }
        out.timestamp = optional_number(field(at.time), "timestamp", u64::MAX)?;
        out.size = optional_number(field(at.size), "size", u32::MAX.into())?.map(|n| n as u32);
        Ok(())
    }
}

/// The position of the column called `name`; `Err(Some(message))` when it appears twice,
/// `Err(None)` when it is missing.
fn find(header: &ByteRecord, name: &str) -> Result<usize, Option<String>> {
    let mut hits = header
        .iter()
        .enumerate()
        .filter(|(_, h)| untyped(h).eq_ignore_ascii_case(name.trim().as_bytes()))
        .map(|(i, _)| i);
    match (hits.next(), hits.next()) {
        (Some(i), None) => Ok(i),
        (Some(_), Some(_)) => Err(Some(format!("the header names the `{name}` column twice"))),
        (None, _) => Err(None),
    }
}

/// The suffix of a header name that declares integer keys (`key:u64`).
pub const U64_SUFFIX: &str = ":u64";

/// A header name without surrounding spaces and without a [`U64_SUFFIX`].
fn untyped(name: &[u8]) -> &[u8] {
    let name = name.trim_ascii();
    match name.len().checked_sub(U64_SUFFIX.len()) {
        Some(cut) if name[cut..].eq_ignore_ascii_case(U64_SUFFIX.as_bytes()) => &name[..cut],
        _ => name,
    }
}

/// The header names of the first line of `head` (a csv trace's first bytes), split at
/// `delimiter` or the detected one.
pub fn header_names(head: &[u8], delimiter: Option<u8>) -> Vec<String> {
    let head = super::input::without_bom(head);
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let delimiter = delimiter.unwrap_or_else(|| super::delimited::detect_delimiter(head));
    line.split(|&b| b == delimiter)
        .map(|name| String::from_utf8_lossy(name.trim_ascii()).into_owned())
        .collect()
}

/// True when the header in `head` declares the key column (`key`, or the `--key-col` name)
/// with [`U64_SUFFIX`]. A key column given by number counts too.
pub(crate) fn declares_u64_keys(head: &[u8], delimiter: Option<u8>, key: Option<&Column>) -> bool {
    let names = header_names(head, delimiter);
    let typed = |name: &String| {
        name.len() > U64_SUFFIX.len() && name.to_ascii_lowercase().ends_with(U64_SUFFIX)
    };
    match key {
        Some(Column::Index(i)) => names.get(i - 1).is_some_and(typed),
        Some(Column::Name(want)) => names.iter().any(|n| {
            typed(n) && untyped(n.as_bytes()).eq_ignore_ascii_case(want.trim().as_bytes())
        }),
        None => names
            .iter()
            .any(|n| typed(n) && untyped(n.as_bytes()).eq_ignore_ascii_case(b"key")),
    }
}

fn listed(header: &ByteRecord) -> String {
    let names: Vec<String> = header.iter().map(|n| format!("'{}'", shown(n))).collect();
    names.join(", ")
}

/// An optional whole number no greater than `max`; an empty cell is `None`.
pub(crate) fn optional_number(text: &[u8], column: &str, max: u64) -> Result<Option<u64>, String> {
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
pub(crate) fn shown(text: &[u8]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::encode_u64;
    use crate::trace::{self, TraceOptions};
    use crate::{collect, Event, EventChunk, WorkloadError};
    use std::io::Write;
    use std::path::{Path, PathBuf};

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures")
            .join(name)
    }

    fn read(opts: TraceOptions) -> Result<EventChunk, WorkloadError> {
        collect(trace::open(&opts)?.as_mut())
    }

    fn csv_opts(path: &Path, key_type: KeyType) -> TraceOptions {
        TraceOptions {
            format: Some(trace::TraceFormat::Csv),
            ..TraceOptions::new(path, key_type)
        }
    }

    /// Reads `text` as a u64 csv trace from a temporary file, with `edit` applied to the options.
    fn read_with(
        text: &str,
        edit: impl FnOnce(&mut TraceOptions),
    ) -> Result<EventChunk, WorkloadError> {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(text.as_bytes()).unwrap();
        let mut opts = csv_opts(file.path(), KeyType::U64);
        edit(&mut opts);
        read(opts)
    }

    fn read_text(text: &str) -> Result<EventChunk, WorkloadError> {
        read_with(text, |_| {})
    }

    /// The error of reading `text`, checked to be `Invalid` at `line`.
    fn invalid_at(text: &str, line: u64) -> String {
        match read_text(text) {
            Err(e @ WorkloadError::Invalid { .. }) => {
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
        let chunk = read(csv_opts(&fixture("tiny_trace.csv"), KeyType::U64)).unwrap();
        let k = encode_u64;
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
    fn a_byte_order_mark_before_a_typed_header_still_declares_integer_keys() {
        // An editor's byte order mark hid `key:u64`: the keys were read as the bytes "10", "9".
        let (k10, k9) = (encode_u64(10), encode_u64(9));
        for text in [
            "key:u64,op\n10,get\n9,put\n",
            "\u{feff}key:u64,op\n10,get\n9,put\n",
        ] {
            let chunk = read_with(text, |o| o.key_type = KeyType::Bytes).unwrap();
            let keys: Vec<&[u8]> = chunk.iter().map(|e| e.key).collect();
            assert_eq!(keys, [&k10[..], &k9[..]], "{text:?}");
        }
        let names = header_names(b"\xef\xbb\xbfkey:u64,op\n", None);
        assert_eq!(names, ["key:u64", "op"]);
    }

    #[test]
    fn a_trace_with_only_keys_is_a_stream_of_gets() {
        let chunk = read(csv_opts(
            &fixture("tiny_trace_keys_only.csv"),
            KeyType::Bytes,
        ))
        .unwrap();
        let keys: Vec<&[u8]> = chunk.iter().map(|e| e.key).collect();
        assert_eq!(keys, [&b"user1"[..], b"user2", b"user1"]);
        assert!(chunk.iter().all(|e| e.op == Op::Get
            && e.end.is_none()
            && e.timestamp.is_none()
            && e.size.is_none()));
    }

    #[test]
    fn small_fills_stream_the_trace_in_order_with_their_first_index() {
        let mut source = trace::open(&csv_opts(&fixture("tiny_trace.csv"), KeyType::U64)).unwrap();
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
    fn a_missing_file_is_an_open_error_naming_the_path_once() {
        let path = fixture("no_such_trace.csv");
        let e = read(csv_opts(&path, KeyType::U64)).unwrap_err();
        assert!(
            matches!(&e, WorkloadError::Open { path: p, .. } if p == &path),
            "{e:?}"
        );
        let text = e.to_string();
        assert!(
            text.starts_with("cannot open trace '")
                && text.ends_with("no_such_trace.csv': No such file or directory"),
            "{text}"
        );
        assert!(
            std::error::Error::source(&e).is_none(),
            "the cause is said once"
        );
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
        assert!(e.contains("'1', 'get'") && e.contains("--no-header"), "{e}");
        let e = trace_error_of("key,KEY\n1,2\n");
        assert!(e.contains("`key` column twice"), "{e}");
    }

    #[test]
    fn a_named_key_column_that_does_not_exist_lists_the_columns() {
        let e = read_with("id,op\n1,get\n", |o| {
            o.csv.key = Some(Column::Name("lbn".into()))
        })
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("no column 'lbn' (asked for by --key-col); its columns are 'id', 'op'"),
            "{e}"
        );
        let e = read_with("id,op\n1,get\n", |o| o.csv.key = Some(Column::Index(3))).unwrap_err();
        assert!(
            e.to_string()
                .contains("--key-col 3 asks for column 3, but the header line has 2 columns"),
            "{e}"
        );
    }

    #[test]
    fn columns_by_name_or_number_with_any_delimiter_and_no_header() {
        let chunk = read_with("lbn;kind;t\n7;W;5\n8;read;6\n", |o| {
            o.csv.key = Some(Column::Name("LBN".into()));
            o.csv.op = Some(Column::Index(2));
            o.csv.time = Some(Column::Name("t".into()));
        })
        .unwrap();
        let got: Vec<(Op, u64, Option<u64>)> = chunk
            .iter()
            .map(|e| (e.op, crate::key::decode_u64(e.key).unwrap(), e.timestamp))
            .collect();
        assert_eq!(got, [(Op::Put, 7, Some(5)), (Op::Get, 8, Some(6))]);
        let chunk = read_with("x\t9\tdel\ny\t10\tget\n", |o| {
            o.no_header = true;
            o.csv.key = Some(Column::Index(2));
            o.csv.op = Some(Column::Index(3));
        })
        .unwrap();
        assert_eq!(chunk.get(0).op, Op::Delete);
        assert_eq!(chunk.get(1).key, encode_u64(10));
        let e = read_with("1,2\n", |o| {
            o.no_header = true;
            o.csv.op = Some(Column::Name("op".into()));
        })
        .unwrap_err();
        assert!(e.to_string().contains("only be given by number"), "{e}");
    }

    #[test]
    fn the_op_map_names_opcodes() {
        let chunk = read_with("key,op\n1,28\n2,2a\n", |o| {
            o.op_map = OpMap::parse("28=get,2a=put").unwrap()
        })
        .unwrap();
        assert_eq!(
            chunk.iter().map(|e| e.op).collect::<Vec<_>>(),
            [Op::Get, Op::Put]
        );
    }

    #[test]
    fn column_names_ignore_case_and_spaces() {
        let chunk = read_text(" Key , OP \n5,put\n").unwrap();
        assert_eq!(chunk.get(0).op, Op::Put);
        assert_eq!(chunk.get(0).key, encode_u64(5));
    }

    #[test]
    fn a_bad_op_names_its_line_and_the_known_ops() {
        let e = invalid_at("key,op\n1,get\n2,fetch\n", 3);
        assert!(e.contains("unknown op 'fetch'; known ops: get"), "{e}");
        assert!(e.contains("--op-map"), "{e}");
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
    fn a_put_or_delete_with_an_end_is_a_range_write_and_a_gets_end_is_ignored() {
        let chunk = read_text("key,op,end\n1,put,3\n2,delete,4\n3,get,9\n4,put,\n").unwrap();
        let events: Vec<_> = chunk.iter().collect();
        assert!(events[0].is_range_write() && events[0].end == Some(&3u64.to_be_bytes()[..]));
        assert!(events[1].is_range_write() && events[1].op == Op::Delete);
        assert!(events[2].is_point() && events[2].end.is_none());
        assert!(events[3].is_point(), "an empty end: a point put");
        let e = invalid_at("key,op,end\n5,put,5\n", 2);
        assert!(
            e.contains("range write end '5' is not after its start '5'"),
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
        assert!(e.contains("1 fields but the first line has 2"), "{e}");
        let e = invalid_at("key,op\n1,get,extra\n", 2);
        assert!(e.contains("3 fields but the first line has 2"), "{e}");
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
    fn line_numbers_stay_exact_deep_into_a_long_file() {
        let mut text = String::from("key,op\n");
        for i in 0..100_000 {
            text.push_str(&format!("{i},get\n"));
            if i % 7 == 0 {
                text.push('\n');
            }
        }
        text.push_str("1,bad\n");
        let lines = text.lines().count() as u64;
        invalid_at(&text, lines);
    }

    #[test]
    fn skipped_records_are_counted_and_the_rest_is_read() {
        let mut log = None;
        let chunk = read_with("key,op\n1,get\nx,get\n2,bad\n3\n4,put\n", |o| {
            o.invalid = super::super::InvalidPolicy::skipping(None);
            log = Some(o.invalid.log.clone());
        })
        .unwrap();
        assert_eq!(chunk.len(), 2);
        let log = log.unwrap();
        assert_eq!(log.skipped(), 3);
        assert!(log.first().unwrap().contains("line 3"));
        let e = read_with("key,op\n1,get\nx,get\n2,bad\n", |o| {
            o.invalid = super::super::InvalidPolicy::skipping(Some(1))
        })
        .unwrap_err();
        assert!(
            e.to_string().contains("more than 1 invalid records")
                && e.to_string().contains("line 4"),
            "{e}"
        );
    }
}
