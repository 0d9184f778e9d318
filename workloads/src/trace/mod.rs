//! Recorded trace readers and writers, one file per format, behind one [`open`].
//!
//! | format           | layout                                                                 |
//! |------------------|------------------------------------------------------------------------|
//! | `csv`            | delimited text, columns by header name or 1-based position ([`csv`])    |
//! | `text`           | one key per line ([`text`])                                             |
//! | `twitter`        | Twitter cache-trace CSV ([`twitter`])                                   |
//! | `oracle-general` | libCacheSim's 24-byte binary records ([`oracle`])                       |
//! | `vscsi`          | VMware VSCSI v1/v2 binary block traces ([`vscsi`])                      |
//! | `msr`            | MSR Cambridge block CSV ([`msr`])                                       |
//!
//! Any of them may be zstd- or gzip-compressed (recognised by content); `-` is standard input.
//! Without `--format`, the format is told from the file name (after a compression extension)
//! and the first bytes ([`TraceFormat::detect`]).
//!
//! Every reader streams its input through [`EventSource`] in bounded memory, reports a
//! malformed record as [`WorkloadError::Invalid`] with its line (or byte offset for binary),
//! and never panics. Adding a format = one new file, one [`TraceFormat`] variant and one match
//! arm in [`open_detected`].
//!
//! ```no_run
//! use workloads::trace::{self, TraceOptions};
//! use workloads::{collect, KeyType};
//! let opts = TraceOptions::new("trace.csv", KeyType::U64);
//! let events = collect(trace::open(&opts)?.as_mut())?;
//! # Ok::<(), workloads::WorkloadError>(())
//! ```

mod binary;
pub mod csv;
mod delimited;
mod fields;
pub mod files;
pub mod input;
pub mod invalid;
pub mod msr;
pub mod ops;
pub mod oracle;
mod plain_records;
mod text;
pub mod twitter;
pub mod vscsi;
pub mod write;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::{EventSource, KeyType, WorkloadError};
use binary::BinaryReader;
use delimited::{check_text, DelimitedReader, Layout};
use input::{extension, is_stdio, strip_compression, Input};
use vscsi::VscsiVersion;

pub use self::csv::{Column, CsvColumns};
pub use delimited::detect_delimiter;
pub use input::{rereadable, spool_dir, spool_stdin, ByteTally, Compression};
pub use invalid::{InvalidLog, InvalidPolicy};
pub use ops::OpMap;
pub use write::{OutputFile, TraceWriter, WriteOptions, WriteSummary};

/// The trace formats shardlab reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceFormat {
    /// Generic delimited text with mapped columns.
    Csv,
    /// One key per line.
    Text,
    /// The Twitter cache-trace CSV.
    Twitter,
    /// libCacheSim's oracleGeneral binary records.
    OracleGeneral,
    /// VMware VSCSI binary block traces.
    Vscsi,
    /// The MSR Cambridge block CSV.
    Msr,
}

impl TraceFormat {
    /// Every format, in the order shown in help texts.
    pub const ALL: [TraceFormat; 6] = [
        TraceFormat::Csv,
        TraceFormat::Text,
        TraceFormat::Twitter,
        TraceFormat::OracleGeneral,
        TraceFormat::Vscsi,
        TraceFormat::Msr,
    ];

    /// The format's name in options and messages.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Csv => "csv",
            TraceFormat::Text => "text",
            TraceFormat::Twitter => "twitter",
            TraceFormat::OracleGeneral => "oracle-general",
            TraceFormat::Vscsi => "vscsi",
            TraceFormat::Msr => "msr",
        }
    }

    /// The format called `name` (case-insensitive; `oracleGeneral` and `oracle_general` too).
    pub fn from_name(name: &str) -> Option<TraceFormat> {
        let name = name.trim().to_ascii_lowercase().replace('_', "-");
        let name = if name == "oraclegeneral" {
            "oracle-general".to_string()
        } else {
            name
        };
        TraceFormat::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Every format name, comma-separated.
    pub fn names() -> String {
        TraceFormat::ALL.map(TraceFormat::name).join(", ")
    }

    /// True for the fixed-size binary formats.
    pub fn is_binary(self) -> bool {
        matches!(self, TraceFormat::OracleGeneral | TraceFormat::Vscsi)
    }

    /// The key type a trace of this format has: 64-bit integers for the binary and block
    /// formats (whatever `--key-type` says), `requested` for the text formats.
    pub fn key_type(self, requested: KeyType) -> KeyType {
        match self {
            TraceFormat::OracleGeneral | TraceFormat::Vscsi | TraceFormat::Msr => KeyType::U64,
            TraceFormat::Csv | TraceFormat::Text | TraceFormat::Twitter => requested,
        }
    }

    /// The unit of the format's timestamps in nanoseconds, when the format defines it.
    pub fn time_unit_ns(self) -> Option<u64> {
        match self {
            TraceFormat::Twitter | TraceFormat::OracleGeneral => Some(1_000_000_000),
            TraceFormat::Vscsi => Some(1_000),
            TraceFormat::Msr => Some(100),
            TraceFormat::Csv | TraceFormat::Text => None,
        }
    }

    /// The unit its timestamps are read in by default, in nanoseconds: the format's own, else
    /// (csv and text, which do not say) microseconds, the default of `--time-unit`.
    pub fn read_unit_ns(self) -> u64 {
        self.time_unit_ns().unwrap_or(1_000)
    }

    /// The format of a trace from its name and first (decompressed) bytes.
    ///
    /// Binary data is `vscsi` when the name ends in `.vscsi` or the first record carries a
    /// VSCSI version, and `oracle-general` when the name contains `oracleGeneral` or ends in
    /// `.bin`. Text whose first line looks like a Twitter or MSR record (seven fields of the
    /// right kinds) is that format; `.txt` files and other files without any delimiter are
    /// `text`; everything else is `csv`.
    pub fn detect(path: &Path, head: &[u8]) -> Result<TraceFormat, String> {
        let name = strip_compression(path);
        let ext = extension(&name).unwrap_or_default();
        let file_name = name
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let named_oracle = file_name.contains("oraclegeneral") || ext == "bin";
        if check_text(head, "").is_err() {
            if ext == "vscsi" || (!named_oracle && VscsiVersion::detect(head).is_some()) {
                return Ok(TraceFormat::Vscsi);
            }
            if named_oracle {
                return Ok(TraceFormat::OracleGeneral);
            }
            if head.starts_with(b"PAR1") {
                return Err(
                    "is a Parquet file: a multi-column trace of operations, not a stream \
                     of keys; measure candidate shard keys with `shardlab keys --trace FILE \
                     --candidates ...`, or replay it keyed by one with `--key-col tenant,user`"
                        .into(),
                );
            }
            return Err(format!(
                "is binary data, and neither its name nor its first bytes say which binary format; \
                 pass --format ({})",
                TraceFormat::names()
            ));
        }
        if ext == "vscsi" {
            return Ok(TraceFormat::Vscsi);
        }
        if file_name.contains("oraclegeneral") {
            return Ok(TraceFormat::OracleGeneral);
        }
        if let Some(format) = sniff_record(head) {
            return Ok(format);
        }
        let delimited = delimited::DELIMITERS.iter().any(|d| head.contains(d));
        if ext == "txt" || (!delimited && !matches!(ext.as_str(), "csv" | "tsv" | "psv")) {
            return Ok(TraceFormat::Text);
        }
        Ok(TraceFormat::Csv)
    }
}

impl fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TraceFormat {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        TraceFormat::from_name(name).ok_or_else(|| {
            format!(
                "unknown trace format '{name}'; valid formats: {}",
                TraceFormat::names()
            )
        })
    }
}

/// Twitter or MSR when the first line of `head` has their seven fields.
fn sniff_record(head: &[u8]) -> Option<TraceFormat> {
    let line = head.split(|&b| b == b'\n').next()?;
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let fields: Vec<&[u8]> = line.split(|&b| b == b',').map(<[u8]>::trim_ascii).collect();
    if fields.len() != 7 {
        return None;
    }
    let numeric = |i: usize| crate::key::parse_u64(fields[i]).is_some();
    let twitter_op = twitter::OPS
        .iter()
        .any(|op| op.as_bytes().eq_ignore_ascii_case(fields[5]));
    if numeric(0) && numeric(2) && numeric(3) && numeric(4) && twitter_op && numeric(6) {
        return Some(TraceFormat::Twitter);
    }
    let msr_type =
        fields[3].eq_ignore_ascii_case(b"read") || fields[3].eq_ignore_ascii_case(b"write");
    if numeric(0) && numeric(2) && msr_type && numeric(4) && numeric(5) && numeric(6) {
        return Some(TraceFormat::Msr);
    }
    None
}

/// Where a trace is and how to read it.
#[derive(Clone, Debug)]
pub struct TraceOptions {
    /// The trace file; `-` is standard input.
    pub path: PathBuf,
    /// How key text is read (text formats only; binary and block formats have integer keys).
    pub key_type: KeyType,
    /// The format; detected from the name and first bytes when `None`.
    pub format: Option<TraceFormat>,
    /// Column mapping of `csv`.
    pub csv: CsvColumns,
    /// `csv` only: the first line is data, not a header.
    pub no_header: bool,
    /// `csv` only: the field delimiter; detected among `, \t | ;` when `None`.
    pub delimiter: Option<u8>,
    /// Extra operation names (`csv` and `twitter`).
    pub op_map: OpMap,
    /// `msr` only: bytes per key unit (default 4096).
    pub block_size: Option<u64>,
    /// What to do with malformed records.
    pub invalid: InvalidPolicy,
    /// The name used in messages instead of `path`.
    pub shown_as: Option<PathBuf>,
    /// Sees every raw byte read, for the checksum of an input read once.
    pub tally: Option<ByteTally>,
}

impl TraceOptions {
    /// Options for `path` with every other setting at its default (detected format, strict).
    pub fn new(path: impl Into<PathBuf>, key_type: KeyType) -> TraceOptions {
        TraceOptions {
            path: path.into(),
            key_type,
            format: None,
            csv: CsvColumns::default(),
            no_header: false,
            delimiter: None,
            op_map: OpMap::default(),
            block_size: None,
            invalid: InvalidPolicy::strict(),
            shown_as: None,
            tally: None,
        }
    }

    /// The name of the trace in messages.
    pub fn shown(&self) -> PathBuf {
        match &self.shown_as {
            Some(name) => name.clone(),
            None if is_stdio(&self.path) => PathBuf::from("<stdin>"),
            None => self.path.clone(),
        }
    }

    /// Refuses options that the format does not take.
    fn check(&self, format: TraceFormat) -> Result<(), String> {
        let mut unused = Vec::new();
        if format != TraceFormat::Csv {
            if !self.csv.is_default() {
                unused.push("--key-col/--op-col/--time-col/--size-col/--end-col");
            }
            if self.no_header {
                unused.push("--no-header");
            }
            if self.delimiter.is_some() {
                unused.push("--delimiter");
            }
        }
        if !matches!(format, TraceFormat::Csv | TraceFormat::Twitter) && !self.op_map.is_empty() {
            unused.push("--op-map");
        }
        if format != TraceFormat::Msr && self.block_size.is_some() {
            unused.push("--block-size");
        }
        if self.block_size == Some(0) {
            return Err("--block-size must be at least 1 byte".into());
        }
        if unused.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{} do(es) not apply to {} traces (this trace is read as {}; pass --format to read it otherwise)",
                unused.join(", "),
                format.name(),
                format.name()
            ))
        }
    }
}

/// An opened trace: its format, its key type and its event stream.
pub struct OpenedTrace {
    /// The format it is read as.
    pub format: TraceFormat,
    /// The key type of its events.
    pub key_type: KeyType,
    /// How it was compressed.
    pub compression: Compression,
    /// The events.
    pub source: Box<dyn EventSource>,
}

/// Opens a trace as an event stream.
pub fn open(opts: &TraceOptions) -> Result<Box<dyn EventSource>, WorkloadError> {
    Ok(open_detected(opts)?.source)
}

/// Opens a trace, detecting its format unless given, and says how it is read.
pub fn open_detected(opts: &TraceOptions) -> Result<OpenedTrace, WorkloadError> {
    let shown = opts.shown();
    let trace_error = |message: String| WorkloadError::Trace {
        path: shown.clone(),
        message,
    };
    let input = Input::open(&opts.path, &shown, opts.tally.as_ref())?;
    let format = match opts.format {
        Some(f) => f,
        None => TraceFormat::detect(&opts.path, &input.head).map_err(trace_error)?,
    };
    opts.check(format).map_err(trace_error)?;
    let compression = input.compression;
    let policy = &opts.invalid;
    let comma = Layout {
        header: false,
        delimiter: Some(b','),
    };
    // A csv header may declare integer keys (`key:u64`, as `gen` writes them).
    let key_type = match format {
        TraceFormat::Csv
            if !opts.no_header
                && csv::declares_u64_keys(&input.head, opts.delimiter, opts.csv.key.as_ref()) =>
        {
            KeyType::U64
        }
        _ => format.key_type(opts.key_type),
    };
    let source: Box<dyn EventSource> = match format {
        TraceFormat::Csv => {
            let layout = Layout {
                header: !opts.no_header,
                delimiter: opts.delimiter,
            };
            let decoder = csv::ColumnsDecoder::new(opts.csv.clone(), key_type, opts.op_map.clone());
            Box::new(DelimitedReader::open(
                input, &shown, "csv", layout, decoder, policy,
            )?)
        }
        TraceFormat::Twitter => {
            let decoder =
                csv::ColumnsDecoder::new(twitter::columns(), opts.key_type, opts.op_map.clone());
            Box::new(DelimitedReader::open(
                input, &shown, "twitter", comma, decoder, policy,
            )?)
        }
        TraceFormat::Msr => {
            let decoder = msr::MsrDecoder::new(opts.block_size.unwrap_or(msr::DEFAULT_BLOCK_SIZE));
            Box::new(DelimitedReader::open(
                input, &shown, "msr", comma, decoder, policy,
            )?)
        }
        TraceFormat::Text => Box::new(text::TextReader::open(
            input,
            &shown,
            opts.key_type,
            policy,
        )?),
        TraceFormat::OracleGeneral => Box::new(BinaryReader::open(
            input,
            &shown,
            oracle::OracleGeneral,
            policy,
        )?),
        TraceFormat::Vscsi => {
            if input.head.is_empty() {
                return Err(trace_error("contains no events: the file is empty".into()));
            }
            let version = VscsiVersion::detect(&input.head).ok_or_else(|| {
                trace_error(
                    "is not a VSCSI trace: the first record's version field (ver >> 8 at byte 14 \
                     for v1, byte 2 for v2) is neither 1 nor 2"
                        .into(),
                )
            })?;
            Box::new(BinaryReader::open(
                input,
                &shown,
                vscsi::Vscsi::new(version),
                policy,
            )?)
        }
    };
    Ok(OpenedTrace {
        format,
        key_type,
        compression,
        source,
    })
}

/// The header names of a csv trace (`None` for other formats and with `--no-header`), e.g.
/// to suggest a column in an error message.
pub fn csv_header(opts: &TraceOptions) -> Result<Option<Vec<String>>, WorkloadError> {
    // An input read once (standard input, a FIFO) has been read already.
    if opts.tally.is_some() || !input::rereadable(&opts.path) {
        return Ok(None);
    }
    let shown = opts.shown();
    let input = Input::open(&opts.path, &shown, None)?;
    let format = match opts.format {
        Some(f) => Some(f),
        None => TraceFormat::detect(&opts.path, &input.head).ok(),
    };
    Ok((format == Some(TraceFormat::Csv) && !opts.no_header)
        .then(|| csv::header_names(&input.head, opts.delimiter)))
}

/// Reads `source` to its end in chunks of up to 64Ki events, handing each chunk to `f`;
/// returns the number of events read.
pub fn stream<E>(
    source: &mut dyn EventSource,
    mut f: impl FnMut(&crate::EventChunk) -> Result<(), E>,
) -> Result<u64, E>
where
    E: From<WorkloadError>,
{
    let mut chunk = crate::EventChunk::with_capacity(1 << 16);
    let mut events = 0;
    loop {
        chunk.clear();
        let n = source.fill(&mut chunk, 1 << 16)?;
        if n == 0 {
            return Ok(events);
        }
        events += n as u64;
        f(&chunk)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_named_and_parsed_back() {
        for f in TraceFormat::ALL {
            assert_eq!(TraceFormat::from_name(f.name()), Some(f));
        }
        assert_eq!(
            TraceFormat::from_name("oracleGeneral"),
            Some(TraceFormat::OracleGeneral)
        );
        let e = "parquet".parse::<TraceFormat>().unwrap_err();
        assert!(
            e.contains("valid formats: csv, text, twitter, oracle-general, vscsi, msr"),
            "{e}"
        );
    }

    #[test]
    fn a_parquet_file_is_named_as_a_multi_column_trace() {
        let err = TraceFormat::detect(Path::new("t.parquet"), b"PAR1\x15\x04\x15").unwrap_err();
        assert!(
            err.contains("Parquet") && err.contains("--key-col"),
            "{err}"
        );
    }

    #[test]
    fn formats_are_detected_from_names_and_first_bytes() {
        let detect = |name: &str, head: &[u8]| TraceFormat::detect(Path::new(name), head);
        assert_eq!(detect("a.csv", b"key,op\n1,get\n"), Ok(TraceFormat::Csv));
        assert_eq!(detect("a.csv.zst", b"key\n1\n"), Ok(TraceFormat::Csv));
        assert_eq!(detect("keys", b"1\n2\n"), Ok(TraceFormat::Text));
        assert_eq!(detect("keys.txt", b"a,b\n"), Ok(TraceFormat::Text));
        assert_eq!(
            detect("t.csv", b"0,q:q:1:8WTwl7huJeQ,17,249,1,get,0\n"),
            Ok(TraceFormat::Twitter)
        );
        assert_eq!(
            detect(
                "-",
                b"128166385295514663,hm,0,Write,9056014336,2048,2833\r\n"
            ),
            Ok(TraceFormat::Msr)
        );
        let og = oracle::encode(1, 2, 3, -1);
        assert_eq!(
            detect("x.oracleGeneral.bin.zst", &og),
            Ok(TraceFormat::OracleGeneral)
        );
        assert_eq!(detect("x.bin", &og), Ok(TraceFormat::OracleGeneral));
        let mut v1 = [0u8; 32];
        v1[12] = 0x28;
        v1[15] = 1;
        assert_eq!(detect("blocks", &v1), Ok(TraceFormat::Vscsi));
        assert!(detect("blocks", &og).unwrap_err().contains("pass --format"));
    }

    /// Reads `bytes` as `format` (detected when `None`) to the end; the result does not
    /// matter, only that there is one.
    fn read_all(
        path: &Path,
        bytes: &[u8],
        format: Option<TraceFormat>,
        edit: &dyn Fn(&mut TraceOptions),
    ) {
        std::fs::write(path, bytes).unwrap();
        let mut opts = TraceOptions::new(path, KeyType::Bytes);
        opts.format = format;
        edit(&mut opts);
        if let Ok(mut source) = open(&opts) {
            let mut chunk = crate::EventChunk::default();
            let mut guard = 0;
            while let Ok(n) = source.fill(&mut chunk, 97) {
                chunk.clear();
                guard += 1;
                if n == 0 || guard > 100_000 {
                    break;
                }
            }
        }
    }

    #[test]
    fn a_text_trace_drops_a_byte_order_mark_at_its_start() {
        // The mark made the first key "\u{feff}a" (a third distinct key), and with u64 keys an
        // error about '5' that showed nothing wrong.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.txt");
        for (key_type, text, want) in [
            (
                KeyType::Bytes,
                &b"\xef\xbb\xbfa\r\nb\r\na\r\n"[..],
                vec![b"a".to_vec(), b"b".to_vec(), b"a".to_vec()],
            ),
            (
                KeyType::U64,
                b"\xef\xbb\xbf5\n6\n",
                vec![5u64.to_be_bytes().to_vec(), 6u64.to_be_bytes().to_vec()],
            ),
        ] {
            std::fs::write(&path, text).unwrap();
            let opts = TraceOptions::new(&path, key_type);
            let chunk = crate::collect(open(&opts).unwrap().as_mut()).unwrap();
            let keys: Vec<Vec<u8>> = chunk.iter().map(|e| e.key.to_vec()).collect();
            assert_eq!(keys, want);
        }
        // Only at the start: a mark inside the file is part of its key.
        std::fs::write(&path, b"a\n\xef\xbb\xbfa\n").unwrap();
        let chunk = crate::collect(
            open(&TraceOptions::new(&path, KeyType::Bytes))
                .unwrap()
                .as_mut(),
        );
        assert_eq!(chunk.unwrap().iter().nth(1).unwrap().key, b"\xef\xbb\xbfa");
    }

    /// A small valid trace of each format, to corrupt.
    fn samples() -> Vec<(TraceFormat, Vec<u8>)> {
        let mut og = Vec::new();
        let mut v1 = Vec::new();
        for i in 0..20u64 {
            og.extend_from_slice(&oracle::encode(i as u32, i % 7, 512, -1));
            let mut r = [0u8; 32];
            r[4..8].copy_from_slice(&(512 * (1 + i as u32 % 3)).to_le_bytes());
            r[12] = if i % 2 == 0 { 0x28 } else { 0x2a };
            r[15] = 1;
            r[16..24].copy_from_slice(&(1000 + i).to_le_bytes());
            v1.extend_from_slice(&r);
        }
        vec![
            (TraceFormat::Csv, b"key,op,end,timestamp,size\n1,get,,5,10\n2,scan,9,6,\n\"3\",put,,7,1\n".to_vec()),
            (TraceFormat::Text, b"1\n2\r\n\n3\n".to_vec()),
            (TraceFormat::Twitter, b"0,17,3,10,1,get,0\n1,18,1,0,2,set,0\n".to_vec()),
            (TraceFormat::Msr, b"128166385295514663,hm,0,Write,9056014336,2048,2833\n128166385295514878,hm,1,Read,0,8192,26\n".to_vec()),
            (TraceFormat::OracleGeneral, og),
            (TraceFormat::Vscsi, v1),
        ]
    }

    fn options_from(seed: u8) -> impl Fn(&mut TraceOptions) {
        move |o: &mut TraceOptions| {
            o.key_type = if seed & 1 == 0 {
                KeyType::Bytes
            } else {
                KeyType::U64
            };
            if seed & 2 != 0 {
                o.invalid = InvalidPolicy::skipping(if seed & 4 != 0 { Some(3) } else { None });
            }
            if o.format == Some(TraceFormat::Csv) {
                o.no_header = seed & 8 != 0;
                o.delimiter = (seed & 16 != 0).then_some(b';');
                if seed & 32 != 0 {
                    o.csv.key = Some(Column::Index(1 + usize::from(seed >> 6)));
                    o.csv.op = Some(Column::Index(2));
                    o.csv.end = Some(Column::Index(3));
                }
            }
            if o.format == Some(TraceFormat::Msr) && seed & 64 != 0 {
                o.block_size = Some(1 + u64::from(seed));
            }
        }
    }

    /// Arbitrary bytes, after an optional zstd, gzip or csv-header prefix, given to every
    /// reader.
    fn read_arbitrary(bytes: &[u8], prefix: usize, seed: u8) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        let mut data: Vec<u8> = match prefix {
            0 => Vec::new(),
            1 => vec![0x28, 0xb5, 0x2f, 0xfd],
            2 => vec![0x1f, 0x8b, 8, 0],
            _ => b"key,op,end,timestamp,size\n".to_vec(),
        };
        data.extend_from_slice(bytes);
        read_all(&path, &data, None, &options_from(seed & 1));
        for format in TraceFormat::ALL {
            read_all(&path, &data, Some(format), &options_from(seed));
        }
    }

    /// A valid sample of each format with a few bytes changed, inserted or removed, maybe
    /// compressed (gzip then cut short), given to its reader and to format detection.
    fn read_corrupted(which: usize, edits: &[(usize, u8, u8)], seed: u8, compress: u8) {
        let (format, mut data) = samples().swap_remove(which);
        for &(at, byte, kind) in edits {
            let at = at % (data.len() + 1);
            match kind {
                0 if at < data.len() => data[at] = byte,
                1 => data.insert(at, byte),
                _ if at < data.len() => {
                    data.remove(at);
                }
                _ => data.push(byte),
            }
        }
        let data = match compress {
            1 => zstd::encode_all(&data[..], 1).unwrap(),
            2 => {
                use std::io::Write;
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(&data).unwrap();
                let mut z = e.finish().unwrap();
                z.truncate(z.len() - usize::from(seed % 8));
                z
            }
            _ => data,
        };
        let dir = tempfile::tempdir().unwrap();
        read_all(
            &dir.path().join("t"),
            &data,
            Some(format),
            &options_from(seed),
        );
        read_all(&dir.path().join("t.csv"), &data, None, &options_from(seed));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 128, ..Default::default() })]

        #[test]
        fn no_reader_panics_on_arbitrary_bytes(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..700),
            prefix in 0usize..4,
            seed in proptest::prelude::any::<u8>(),
        ) {
            read_arbitrary(&bytes, prefix, seed);
        }

        #[test]
        fn no_reader_panics_on_corrupted_traces(
            which in 0usize..6,
            edits in proptest::collection::vec((0usize..2000, proptest::prelude::any::<u8>(), 0u8..3), 1..8),
            seed in proptest::prelude::any::<u8>(),
            compress in 0u8..3,
        ) {
            read_corrupted(which, &edits, seed, compress);
        }
    }

    proptest::proptest! {
        // The long run, by hand: as many cases as PROPTEST_CASES says (256 without it), e.g.
        // PROPTEST_CASES=100000 cargo test --release -p workloads --lib long -- --ignored
        #![proptest_config(proptest::prelude::ProptestConfig::default())]

        #[test]
        #[ignore = "long fuzzing run, by hand"]
        fn no_reader_panics_on_arbitrary_bytes_long(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..4000),
            prefix in 0usize..4,
            seed in proptest::prelude::any::<u8>(),
        ) {
            read_arbitrary(&bytes, prefix, seed);
        }

        #[test]
        #[ignore = "long fuzzing run, by hand"]
        fn no_reader_panics_on_corrupted_traces_long(
            which in 0usize..6,
            edits in proptest::collection::vec((0usize..2000, proptest::prelude::any::<u8>(), 0u8..3), 1..32),
            seed in proptest::prelude::any::<u8>(),
            compress in 0u8..3,
        ) {
            read_corrupted(which, &edits, seed, compress);
        }
    }

    #[test]
    fn the_corpus_of_issue_17_reads_or_is_refused_by_every_reader() {
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/hardening");
        let mut files = 0;
        for entry in std::fs::read_dir(corpus).unwrap() {
            let data = std::fs::read(entry.unwrap().path()).unwrap();
            for seed in [0, 1, 2, 3] {
                read_arbitrary(&data, 0, seed);
            }
            files += 1;
        }
        assert!(files >= 5, "{files}");
    }

    #[test]
    fn every_valid_sample_reads() {
        for (format, data) in samples() {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("t");
            std::fs::write(&path, &data).unwrap();
            let mut opts = TraceOptions::new(&path, KeyType::U64);
            opts.format = Some(format);
            let events = crate::collect(open(&opts).unwrap().as_mut()).unwrap();
            assert!(events.len() >= 2, "{format}: {}", events.len());
        }
    }

    #[test]
    fn options_a_format_does_not_take_are_refused() {
        let mut o = TraceOptions::new("t", KeyType::Bytes);
        o.no_header = true;
        assert!(o.check(TraceFormat::Csv).is_ok());
        let e = o.check(TraceFormat::Twitter).unwrap_err();
        assert!(e.contains("--no-header") && e.contains("twitter"), "{e}");
        let mut o = TraceOptions::new("t", KeyType::Bytes);
        o.block_size = Some(512);
        assert!(o.check(TraceFormat::Msr).is_ok());
        assert!(o
            .check(TraceFormat::Csv)
            .unwrap_err()
            .contains("--block-size"));
    }
}
