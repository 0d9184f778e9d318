//! Writing traces (`shardlab gen` and `shardlab convert`): `csv` (the header
//! `key,op,end,timestamp,size`, read back by the csv reader's defaults; `key:u64` for integer
//! keys), `text` (one key per
//! line) and `oracle-general` (libCacheSim's 24-byte records), each optionally compressed
//! with zstd or gzip when the output name ends in `.zst` or `.gz`.
//!
//! Output is written to a temporary file beside the target and renamed when complete, so a
//! failed write leaves nothing behind. An event a format cannot hold is an error naming the
//! event, never a silent change:
//! - `oracle-general` has no operation field and no scan end: puts and deletes are stored as
//!   plain requests (the count is reported; no replay metric depends on the kind of a point
//!   operation), and a scan is refused. Keys must be 8-byte integers, or are hashed with
//!   XXH3-64 (seed 0, pinned) when `hash_keys` is set. `next_access_vtime` is computed exactly
//!   (a backward pass over the written file, memory proportional to the distinct keys).
//! - `text` holds keys only: anything but a get is refused.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::input::Compression;
use super::oracle::{encode, RECORD_BYTES};
use super::TraceFormat;
use crate::key::decode_u64;
use crate::output::{destination, open_in_place, staged_file, Destination};
use crate::{Event, EventChunk, KeyType, Op, WorkloadError};

/// How a trace is written.
#[derive(Clone, Copy, Debug)]
pub struct WriteOptions {
    /// The output format: csv, text or oracle-general.
    pub format: TraceFormat,
    /// How keys are written in text formats: decimal integers for `u64`, as is for `bytes`.
    pub key_type: KeyType,
    /// Store keys that are not 8-byte integers as their XXH3-64 hash (oracle-general only).
    pub hash_keys: bool,
    /// Nanoseconds per unit of the events' timestamps (1,000 for synthetic workloads and, as
    /// `plan` reads them, csv and text traces). Timestamps are written in the output format's
    /// unit ([`written_unit_ns`]), rounded down.
    pub time_unit_ns: u64,
}

/// Nanoseconds per unit of the timestamps written in `format`: whole seconds in
/// oracle-general (its time field), microseconds in csv (the unit csv traces are read in by
/// default), so that a written trace reads back at the same times without options.
pub fn written_unit_ns(format: TraceFormat) -> u64 {
    match format {
        TraceFormat::OracleGeneral => 1_000_000_000,
        _ => 1_000,
    }
}

/// What a finished write did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteSummary {
    /// Events written.
    pub events: u64,
    /// Puts and deletes stored without their operation (oracle-general).
    pub ops_dropped: u64,
    /// Keys stored as their hash (oracle-general with `hash_keys`).
    pub keys_hashed: u64,
}

/// The formats that can be written.
pub const WRITABLE: [TraceFormat; 3] = [
    TraceFormat::Csv,
    TraceFormat::Text,
    TraceFormat::OracleGeneral,
];

/// A trace being written.
pub struct TraceWriter {
    path: PathBuf,
    /// How `path` is written: in place, or staged and renamed over it.
    dest: Destination,
    opts: WriteOptions,
    compression: Compression,
    /// The bytes being written: the final encoding, or plain oracle-general records that
    /// still need their next-access field.
    sink: Sink,
    /// The temporary file the sink writes to (none for standard output).
    staged: Option<tempfile::NamedTempFile>,
    /// The encoding of the event being written.
    out: Vec<u8>,
    summary: WriteSummary,
}

enum Sink {
    Plain(BufWriter<File>),
    Zstd(zstd::stream::write::Encoder<'static, BufWriter<File>>),
    Gzip(flate2::write::GzEncoder<BufWriter<File>>),
    Stdout(BufWriter<io::Stdout>),
}

impl Sink {
    /// A buffered sink on `file` that compresses as `compression` says.
    fn new(file: File, compression: Compression) -> io::Result<Sink> {
        let file = BufWriter::with_capacity(1 << 20, file);
        Ok(match compression {
            Compression::Zstd => Sink::Zstd(zstd::stream::write::Encoder::new(file, 3)?),
            Compression::Gzip => Sink::Gzip(flate2::write::GzEncoder::new(
                file,
                flate2::Compression::default(),
            )),
            Compression::None => Sink::Plain(file),
        })
    }

    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Sink::Plain(w) => w,
            Sink::Zstd(w) => w,
            Sink::Gzip(w) => w,
            Sink::Stdout(w) => w,
        }
    }

    fn finish(self) -> io::Result<()> {
        match self {
            Sink::Plain(mut w) => w.flush(),
            Sink::Zstd(w) => w.finish()?.flush(),
            Sink::Gzip(w) => w.finish()?.flush(),
            Sink::Stdout(mut w) => w.flush(),
        }
    }
}

impl TraceWriter {
    /// Starts writing `path` (`-` for standard output) in `opts.format`.
    pub fn create(path: &Path, opts: WriteOptions) -> Result<TraceWriter, WorkloadError> {
        if !WRITABLE.contains(&opts.format) {
            return Err(WorkloadError::Trace {
                path: path.to_path_buf(),
                message: format!(
                    "cannot write {} traces; writable formats: {}",
                    opts.format.name(),
                    WRITABLE.map(TraceFormat::name).join(", ")
                ),
            });
        }
        let io_error = |source| WorkloadError::Write {
            path: path.to_path_buf(),
            source,
        };
        let dest = destination(path).map_err(io_error)?;
        let compression = if dest == Destination::Stdout {
            Compression::None
        } else {
            Compression::of_name(path)
        };
        let binary = opts.format == TraceFormat::OracleGeneral;
        // Oracle-general needs its file twice (next-access times are filled in at the end),
        // so it is staged even when the destination is written in place, and compressed then.
        let (sink, staged) = match binary {
            true => open_sink(&dest, Compression::None, true),
            false => open_sink(&dest, compression, false),
        }
        .map_err(io_error)?;
        let mut writer = TraceWriter {
            path: path.to_path_buf(),
            dest,
            opts,
            compression,
            sink,
            staged,
            out: Vec::new(),
            summary: WriteSummary::default(),
        };
        if opts.format == TraceFormat::Csv {
            // Integer keys are declared in the header (`key:u64`), so the trace reads back
            // with the same keys without `--key-type`.
            let header: &[u8] = match opts.key_type {
                KeyType::U64 => b"key:u64,op,end,timestamp,size\n",
                KeyType::Bytes => b"key,op,end,timestamp,size\n",
            };
            writer.sink.writer().write_all(header).map_err(io_error)?;
        }
        Ok(writer)
    }

    /// Writes every event of `chunk`.
    pub fn write_chunk(&mut self, chunk: &EventChunk) -> Result<(), WorkloadError> {
        chunk.iter().try_for_each(|e| self.write(&e))
    }

    /// Writes one event; an event the format cannot hold is an error naming it (1-based).
    pub fn write(&mut self, event: &Event<'_>) -> Result<(), WorkloadError> {
        self.out.clear();
        let encoded = match self.opts.format {
            TraceFormat::OracleGeneral => self.oracle_record(event),
            TraceFormat::Text => self.text_record(event),
            _ => self.csv_record(event),
        };
        encoded.map_err(|message| WorkloadError::Invalid {
            path: self.path.clone(),
            location: format!("event {}", self.summary.events + 1),
            message,
        })?;
        self.sink
            .writer()
            .write_all(&self.out)
            .map_err(|source| WorkloadError::Write {
                path: self.path.clone(),
                source,
            })?;
        self.summary.events += 1;
        Ok(())
    }

    /// Appends `key` to `self.out` as text.
    fn render_key(&mut self, key: &[u8]) -> Result<(), String> {
        match self.opts.key_type {
            KeyType::U64 => {
                let n = decode_u64(key).ok_or_else(|| {
                    format!("the key has {} bytes, not the 8 of a u64 key", key.len())
                })?;
                self.out.extend_from_slice(n.to_string().as_bytes());
            }
            KeyType::Bytes => self.out.extend_from_slice(key),
        }
        Ok(())
    }

    fn text_record(&mut self, event: &Event<'_>) -> Result<(), String> {
        if event.op != Op::Get {
            return Err(format!(
                "a {} cannot be written to a text trace, which holds the keys of gets only; use csv",
                event.op.name()
            ));
        }
        self.render_key(event.key)?;
        if self.out.contains(&b'\n')
            || self.out.contains(&b'\r')
            || self.out.trim_ascii().is_empty()
        {
            return Err("a key that is blank or holds a line break cannot be written to a text trace; use csv".into());
        }
        self.out.push(b'\n');
        Ok(())
    }

    fn csv_record(&mut self, event: &Event<'_>) -> Result<(), String> {
        let mut field = Vec::new();
        std::mem::swap(&mut field, &mut self.out);
        self.render_key(event.key)?;
        std::mem::swap(&mut field, &mut self.out);
        push_csv_field(&mut self.out, &field);
        self.out.push(b',');
        self.out.extend_from_slice(event.op.name().as_bytes());
        self.out.push(b',');
        if let Some(end) = event.end {
            field.clear();
            std::mem::swap(&mut field, &mut self.out);
            self.render_key(end).map_err(|e| format!("end: {e}"))?;
            std::mem::swap(&mut field, &mut self.out);
            push_csv_field(&mut self.out, &field);
        }
        self.out.push(b',');
        if let Some(t) = event.timestamp {
            let t = self.written_time(t);
            self.out.extend_from_slice(t.to_string().as_bytes());
        }
        self.out.push(b',');
        if let Some(size) = event.size {
            self.out.extend_from_slice(size.to_string().as_bytes());
        }
        self.out.push(b'\n');
        Ok(())
    }

    fn oracle_record(&mut self, event: &Event<'_>) -> Result<(), String> {
        match event.op {
            Op::Scan => {
                return Err(
                    "oracle-general records cannot hold a scan (no end key); use csv".into(),
                )
            }
            Op::Put | Op::Delete if event.is_range_write() => {
                return Err(
                    "oracle-general records cannot hold a range write (no end key); use csv".into(),
                )
            }
            Op::Put | Op::Delete => self.summary.ops_dropped += 1,
            Op::Get => {}
        }
        // Only keys read as integers are integers: a byte key of 8 bytes is text too.
        let integer = match self.opts.key_type {
            KeyType::U64 => decode_u64(event.key),
            KeyType::Bytes => None,
        };
        let id = match integer {
            Some(id) => id,
            None if self.opts.hash_keys => {
                self.summary.keys_hashed += 1;
                xxhash_rust::xxh3::xxh3_64(event.key)
            }
            None => {
                let digits = crate::key::parse_u64(event.key.trim_ascii()).is_some();
                return Err(format!(
                    "the key '{}' is not a 64-bit integer, which oracle-general requires; pass \
                     {}--hash-keys to store its XXH3-64 hash instead (key order is then lost)",
                    crate::key::display_bytes(event.key),
                    if digits {
                        "--key-type u64 to read it as the number it is, or "
                    } else {
                        ""
                    }
                ));
            }
        };
        let time = match event.timestamp {
            None => 0,
            Some(t) => {
                let seconds = self.written_time(t);
                u32::try_from(seconds).map_err(|_| {
                    format!(
                        "the timestamp {t} ({seconds} s) does not fit oracle-general's 32-bit \
                         time field in seconds"
                    )
                })?
            }
        };
        self.out
            .extend_from_slice(&encode(time, id, event.size.unwrap_or(0), -1));
        Ok(())
    }

    /// A timestamp in the output format's unit, rounded down (saturating past u64).
    fn written_time(&self, t: u64) -> u64 {
        let unit = written_unit_ns(self.opts.format);
        let ns = u128::from(t) * u128::from(self.opts.time_unit_ns);
        u64::try_from(ns / u128::from(unit)).unwrap_or(u64::MAX)
    }

    /// Completes the file: oracle-general records get their next access, the encoder is
    /// finished and the file is renamed into place (or copied, for a destination written in
    /// place).
    pub fn finish(self) -> Result<WriteSummary, WorkloadError> {
        let path = self.path.clone();
        let io_error = |source| WorkloadError::Write {
            path: path.clone(),
            source,
        };
        self.sink.finish().map_err(io_error)?;
        let Some(staged) = self.staged else {
            return Ok(self.summary);
        };
        let binary = self.opts.format == TraceFormat::OracleGeneral;
        if binary {
            fill_next_access(staged.as_file()).map_err(io_error)?;
        }
        // Text formats were compressed as they were written; oracle-general is compressed now.
        let compression = if binary {
            self.compression
        } else {
            Compression::None
        };
        match &self.dest {
            Destination::Replace(_) if compression == Compression::None => {
                persist(staged, &self.dest).map_err(io_error)?;
            }
            Destination::Replace(target) => {
                let packed = staged_file(&self.dest.staging_dir()).map_err(io_error)?;
                copy_encoded(&staged, packed.reopen().map_err(io_error)?, compression)
                    .map_err(io_error)?;
                packed.persist(target).map_err(|e| io_error(e.error))?;
            }
            Destination::Stdout => {
                io::copy(
                    &mut staged.reopen().map_err(io_error)?,
                    &mut io::stdout().lock(),
                )
                .map_err(io_error)?;
            }
            Destination::InPlace(p) => {
                copy_encoded(&staged, open_in_place(p).map_err(io_error)?, compression)
                    .map_err(io_error)?;
            }
        }
        Ok(self.summary)
    }
}

/// The sink that writes `dest` compressed as `compression` says: standard output, the
/// destination itself (a FIFO or device), or a file staged beside it (always when `stage`),
/// returned beside the sink to be renamed over it once complete ([`persist`]).
fn open_sink(
    dest: &Destination,
    compression: Compression,
    stage: bool,
) -> io::Result<(Sink, Option<tempfile::NamedTempFile>)> {
    Ok(match dest {
        Destination::Stdout if !stage => (Sink::Stdout(BufWriter::new(io::stdout())), None),
        Destination::InPlace(p) if !stage => (Sink::new(open_in_place(p)?, compression)?, None),
        _ => {
            let staged = staged_file(&dest.staging_dir())?;
            (Sink::new(staged.reopen()?, compression)?, Some(staged))
        }
    })
}

/// Renames the complete `staged` file over the destination it replaces.
fn persist(staged: tempfile::NamedTempFile, dest: &Destination) -> io::Result<()> {
    if let Destination::Replace(target) = dest {
        staged.persist(target).map_err(|e| e.error)?;
    }
    Ok(())
}

/// A file written by the rules of the trace writers: `-` is standard output, a FIFO or
/// device is written in place, a regular file is staged beside its path and renamed over it
/// once complete ([`OutputFile::finish`]); a name ending in `.zst` or `.gz` compresses. For
/// outputs that are not event traces (the rows of a multi-column workload, as CSV or Parquet).
pub struct OutputFile {
    path: PathBuf,
    dest: Destination,
    sink: Sink,
    staged: Option<tempfile::NamedTempFile>,
}

impl OutputFile {
    /// Starts writing `path`.
    pub fn create(path: &Path) -> Result<OutputFile, WorkloadError> {
        let io_error = |source| WorkloadError::Write {
            path: path.to_path_buf(),
            source,
        };
        let dest = destination(path).map_err(io_error)?;
        let compression = match dest {
            Destination::Stdout => Compression::None,
            _ => Compression::of_name(path),
        };
        let (sink, staged) = open_sink(&dest, compression, false).map_err(io_error)?;
        Ok(OutputFile {
            path: path.to_path_buf(),
            dest,
            sink,
            staged,
        })
    }

    /// Appends `bytes`.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), WorkloadError> {
        self.sink
            .writer()
            .write_all(bytes)
            .map_err(|source| WorkloadError::Write {
                path: self.path.clone(),
                source,
            })
    }

    /// Ends the file: flushed, and renamed over its path when staged (dropped unfinished, a
    /// staged file is removed and the path left as it was).
    pub fn finish(self) -> Result<(), WorkloadError> {
        let io_error = |source| WorkloadError::Write {
            path: self.path.clone(),
            source,
        };
        self.sink.finish().map_err(io_error)?;
        match self.staged {
            Some(staged) => persist(staged, &self.dest).map_err(io_error),
            None => Ok(()),
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.sink.writer().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.sink.writer().flush()
    }
}

/// Copies a staged plain file into `to`, compressed as `compression` says.
fn copy_encoded(
    staged: &tempfile::NamedTempFile,
    to: File,
    compression: Compression,
) -> io::Result<()> {
    let mut sink = Sink::new(to, compression)?;
    io::copy(&mut staged.reopen()?, sink.writer())?;
    sink.finish()
}

/// Appends a CSV field, quoted when it holds a delimiter, a quote or a line break.
fn push_csv_field(out: &mut Vec<u8>, field: &[u8]) {
    if field
        .iter()
        .any(|b| matches!(b, b',' | b'"' | b'\r' | b'\n'))
    {
        out.push(b'"');
        for &b in field {
            if b == b'"' {
                out.push(b'"');
            }
            out.push(b);
        }
        out.push(b'"');
    } else {
        out.extend_from_slice(field);
    }
}

/// Sets `next_access_vtime` of every record of a plain oracle-general file: the 1-based
/// position of the next request to the same id, -1 when there is none (libCacheSim's
/// convention). Reads the file backwards in blocks, so memory is one block plus one entry per
/// distinct id.
pub fn fill_next_access(file: &File) -> io::Result<()> {
    const BLOCK_RECORDS: u64 = 1 << 16;
    let mut file = file;
    let records = file.metadata()?.len() / RECORD_BYTES as u64;
    let mut next: hashbrown::HashMap<u64, u64, xxhash_rust::xxh3::Xxh3DefaultBuilder> =
        Default::default();
    let mut block = vec![0u8; (BLOCK_RECORDS as usize) * RECORD_BYTES];
    let mut end = records;
    while end > 0 {
        let start = end.saturating_sub(BLOCK_RECORDS);
        let bytes = &mut block[..((end - start) as usize) * RECORD_BYTES];
        file.seek(SeekFrom::Start(start * RECORD_BYTES as u64))?;
        file.read_exact(bytes)?;
        for i in (start..end).rev() {
            let r = &mut bytes[((i - start) as usize) * RECORD_BYTES..][..RECORD_BYTES];
            let id = u64::from_le_bytes(r[4..12].try_into().unwrap_or_default());
            let vtime = next.insert(id, i + 1).map_or(-1, |n| n as i64);
            r[16..24].copy_from_slice(&vtime.to_le_bytes());
        }
        file.seek(SeekFrom::Start(start * RECORD_BYTES as u64))?;
        file.write_all(bytes)?;
        end = start;
    }
    file.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{self, TraceOptions};
    use crate::{collect, Event};

    fn ev(op: Op, key: &[u8], end: Option<&[u8]>) -> Event<'static> {
        let key: &'static [u8] = Box::leak(key.to_vec().into_boxed_slice());
        let end = end.map(|e| &*Box::leak(e.to_vec().into_boxed_slice()));
        Event {
            op,
            key,
            end,
            timestamp: Some(5),
            size: Some(7),
        }
    }

    fn write(
        path: &Path,
        opts: WriteOptions,
        events: &[Event<'_>],
    ) -> Result<WriteSummary, WorkloadError> {
        let mut w = TraceWriter::create(path, opts)?;
        for e in events {
            w.write(e)?;
        }
        w.finish()
    }

    fn read_back(path: &Path, key_type: KeyType) -> EventChunk {
        collect(
            trace::open(&TraceOptions::new(path, key_type))
                .unwrap()
                .as_mut(),
        )
        .unwrap()
    }

    #[test]
    fn awkward_byte_keys_survive_a_csv_round_trip_compressed_or_not() {
        let events = [
            ev(Op::Get, b"plain", None),
            ev(Op::Put, b"with,comma", None),
            ev(Op::Delete, b"quote\"d", None),
            ev(Op::Scan, b"line\nbreak", Some(b"m")),
            ev(Op::Get, b" spaced ", None),
        ];
        let dir = tempfile::tempdir().unwrap();
        for name in ["k.csv", "k.csv.zst", "k.csv.gz"] {
            let path = dir.path().join(name);
            let opts = WriteOptions {
                format: TraceFormat::Csv,
                key_type: KeyType::Bytes,
                hash_keys: false,
                time_unit_ns: 1_000,
            };
            assert_eq!(write(&path, opts, &events).unwrap().events, 5);
            let back = read_back(&path, KeyType::Bytes);
            assert!(back.iter().eq(events.iter().copied()), "{name}");
        }
    }

    #[test]
    fn integer_keys_are_declared_in_the_header_and_read_back_as_integers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("u.csv");
        let (a, b) = (7u64.to_be_bytes(), 300u64.to_be_bytes());
        let events = [ev(Op::Get, &a, None), ev(Op::Scan, &a, Some(&b))];
        let opts = WriteOptions {
            format: TraceFormat::Csv,
            key_type: KeyType::U64,
            hash_keys: false,
            time_unit_ns: 1_000,
        };
        write(&path, opts, &events).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("key:u64,op,end,"), "{text}");
        // Asked for bytes, the declared column is still read as integers.
        let back = read_back(&path, KeyType::Bytes);
        assert!(back.iter().eq(events.iter().copied()));
        let opened = trace::open_detected(&TraceOptions::new(&path, KeyType::Bytes)).unwrap();
        assert_eq!(opened.key_type, KeyType::U64);
    }

    #[test]
    fn what_a_format_cannot_hold_is_refused_and_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.bin");
        let og = WriteOptions {
            format: TraceFormat::OracleGeneral,
            key_type: KeyType::U64,
            hash_keys: false,
            time_unit_ns: 1_000_000_000,
        };
        let e = write(
            &path,
            og,
            &[
                ev(Op::Get, &7u64.to_be_bytes(), None),
                ev(Op::Scan, &[0; 8], Some(&[1; 8])),
            ],
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains(":event 2: oracle-general records cannot hold a scan"),
            "{e}"
        );
        let e = write(&path, og, &[ev(Op::Get, b"user1", None)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("--hash-keys"), "{e}");
        let big = Event {
            timestamp: Some(1 << 40),
            ..ev(Op::Get, &[0; 8], None)
        };
        assert!(write(&path, og, &[big])
            .unwrap_err()
            .to_string()
            .contains("32-bit time field"));
        let text = WriteOptions {
            format: TraceFormat::Text,
            key_type: KeyType::Bytes,
            hash_keys: false,
            time_unit_ns: 1_000_000_000,
        };
        assert!(write(&path, text, &[ev(Op::Put, b"a", None)])
            .unwrap_err()
            .to_string()
            .contains("gets only"));
        let vscsi = WriteOptions {
            format: TraceFormat::Vscsi,
            ..text
        };
        assert!(write(&path, vscsi, &[])
            .unwrap_err()
            .to_string()
            .contains("writable formats: csv, text, oracle-general"));
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "no file, no temporary left"
        );
    }

    #[test]
    fn oracle_general_gets_hashed_keys_dropped_ops_and_next_access_times() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.oracleGeneral.bin");
        let og = WriteOptions {
            format: TraceFormat::OracleGeneral,
            key_type: KeyType::Bytes,
            hash_keys: true,
            time_unit_ns: 1_000_000_000,
        };
        let keys: [&[u8]; 5] = [b"a", b"b", b"a", &9u64.to_be_bytes(), b"a"];
        let events: Vec<Event<'_>> = keys
            .iter()
            .map(|k| ev(if k == b"b" { Op::Put } else { Op::Get }, k, None))
            .collect();
        let summary = write(&path, og, &events).unwrap();
        // Every key is a byte key, the 8-byte one too.
        assert_eq!(
            summary,
            WriteSummary {
                events: 5,
                ops_dropped: 1,
                keys_hashed: 5
            }
        );
        let bytes = std::fs::read(&path).unwrap();
        let next: Vec<i64> = bytes
            .chunks(24)
            .map(|r| i64::from_le_bytes(r[16..24].try_into().unwrap()))
            .collect();
        assert_eq!(next, [3, -1, 5, -1, -1]);
        let back = read_back(&path, KeyType::Bytes);
        assert_eq!(
            back.get(0).key,
            xxhash_rust::xxh3::xxh3_64(b"a").to_be_bytes()
        );
        assert_eq!(
            back.get(3).key,
            xxhash_rust::xxh3::xxh3_64(&9u64.to_be_bytes()).to_be_bytes()
        );
        assert!(back
            .iter()
            .all(|e| e.op == Op::Get && e.timestamp == Some(5) && e.size == Some(7)));
    }

    #[test]
    fn oracle_general_stores_whole_seconds_of_timestamps_in_any_unit() {
        // Microsecond timestamps (synthetic workloads, csv as `plan` reads it) were stored as
        // seconds unchanged: 2,500,000 us became 2,500,000 s, a million times too long a span.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.bin");
        let key = 7u64.to_be_bytes();
        let at = |t: u64| Event {
            timestamp: Some(t),
            ..ev(Op::Get, &key, None)
        };
        let mut og = WriteOptions {
            format: TraceFormat::OracleGeneral,
            key_type: KeyType::U64,
            hash_keys: false,
            time_unit_ns: 1_000,
        };
        write(
            &path,
            og,
            &[at(0), at(999_999), at(2_500_000), at(5_000_000_000)],
        )
        .unwrap();
        let times: Vec<Option<u64>> = read_back(&path, KeyType::U64)
            .iter()
            .map(|e| e.timestamp)
            .collect();
        assert_eq!(times, [Some(0), Some(0), Some(2), Some(5_000)]);
        // 2^32 s no longer fits, in any unit.
        og.time_unit_ns = 1_000_000_000;
        let e = write(&path, og, &[at(1 << 32)]).unwrap_err().to_string();
        assert!(e.contains("32-bit time field in seconds"), "{e}");
    }

    #[test]
    fn byte_keys_of_eight_bytes_are_not_taken_for_integers_in_oracle_general() {
        // The text key "24842796" (8 characters, read as bytes) was stored as the id
        // 3617578197517285686, its bytes read as an integer, without --hash-keys.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.bin");
        let mut og = WriteOptions {
            format: TraceFormat::OracleGeneral,
            key_type: KeyType::Bytes,
            hash_keys: false,
            time_unit_ns: 1_000_000_000,
        };
        let event = ev(Op::Get, b"24842796", None);
        let e = write(&path, og, &[event]).unwrap_err().to_string();
        assert!(
            e.contains("'24842796' is not a 64-bit integer") && e.contains("--key-type u64"),
            "{e}"
        );
        og.hash_keys = true;
        assert_eq!(write(&path, og, &[event]).unwrap().keys_hashed, 1);
        let back = read_back(&path, KeyType::U64);
        assert_eq!(
            back.get(0).key,
            xxhash_rust::xxh3::xxh3_64(b"24842796").to_be_bytes()
        );
        // Read as u64, the same key is the integer.
        og.key_type = KeyType::U64;
        let n = 24_842_796u64.to_be_bytes();
        assert_eq!(
            write(&path, og, &[ev(Op::Get, &n, None)])
                .unwrap()
                .keys_hashed,
            0
        );
        assert_eq!(read_back(&path, KeyType::U64).get(0).key, n);
    }
}
