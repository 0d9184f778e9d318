//! Opening a trace's bytes: a file or standard input (`-`), decompressed when its first bytes
//! are a zstd or gzip magic number, with the first bytes kept aside for format detection.
//!
//! Compression is recognised by content, never by name, so a `.csv` that is really zstd (or a
//! `.zst` that is not) reads correctly. A decompression error is rewritten into one sentence
//! that says the file is truncated or corrupt and how far it got.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use xxhash_rust::xxh3::Xxh3;

use crate::WorkloadError;

/// Bytes kept for format detection and content checks.
pub const HEAD_BYTES: usize = 64 * 1024;

/// Buffer size of the readers below the format parsers.
pub const BUFFER_BYTES: usize = 256 * 1024;

/// How a trace file is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Plain bytes.
    None,
    /// Zstandard (magic `28 b5 2f fd`).
    Zstd,
    /// gzip (magic `1f 8b`), possibly several members.
    Gzip,
}

impl Compression {
    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Zstd => "zstd",
            Compression::Gzip => "gzip",
        }
    }

    /// The compression whose magic number starts `head`; other known codecs are an error
    /// that names them.
    pub fn of_magic(head: &[u8]) -> Result<Compression, String> {
        const UNSUPPORTED: [(&[u8], &str); 4] = [
            (&[0xfd, b'7', b'z', b'X', b'Z', 0], "xz"),
            (b"BZh", "bzip2"),
            (&[0x04, 0x22, 0x4d, 0x18], "lz4"),
            (&[b'7', b'z', 0xbc, 0xaf, 0x27, 0x1c], "7z"),
        ];
        if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            return Ok(Compression::Zstd);
        }
        if head.starts_with(&[0x1f, 0x8b]) {
            return Ok(Compression::Gzip);
        }
        for (magic, name) in UNSUPPORTED {
            if head.starts_with(magic) {
                return Err(format!(
                    "the file is {name}-compressed, which shardlab does not read; \
                     decompress it or recompress it with zstd or gzip"
                ));
            }
        }
        Ok(Compression::None)
    }

    /// The compression a file name asks for when writing (`.zst`, `.zstd`, `.gz`).
    pub fn of_name(path: &Path) -> Compression {
        match extension(path).as_deref() {
            Some("zst" | "zstd") => Compression::Zstd,
            Some("gz" | "gzip") => Compression::Gzip,
            _ => Compression::None,
        }
    }
}

/// The lowercase extension of `path`, if any.
pub fn extension(path: &Path) -> Option<String> {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
}

/// `path` without a trailing compression extension (`a.csv.zst` is `a.csv`).
pub fn strip_compression(path: &Path) -> PathBuf {
    match Compression::of_name(path) {
        Compression::None => path.to_path_buf(),
        _ => path.with_extension(""),
    }
}

pub use crate::output::is_stdio;

/// The decompressed bytes of a trace, with their first bytes at hand.
pub struct Input {
    /// Up to [`HEAD_BYTES`] first decompressed bytes (all of them for a short trace).
    pub head: Vec<u8>,
    /// Every decompressed byte, the head included, from the start.
    pub reader: Box<dyn Read + Send>,
    /// How the file was compressed.
    pub compression: Compression,
    /// The size in bytes of a regular, uncompressed file (used to count binary records
    /// before reading them); `None` for pipes and compressed files.
    pub plain_size: Option<u64>,
}

impl Input {
    /// Opens `path` (`-` for standard input), recognises compression by the first bytes and
    /// reads the head. `shown` is the name used in messages; `tally`, when given, sees every
    /// raw byte read.
    pub fn open(
        path: &Path,
        shown: &Path,
        tally: Option<&ByteTally>,
    ) -> Result<Input, WorkloadError> {
        let io_error = |source| WorkloadError::Io {
            path: shown.to_path_buf(),
            source,
        };
        let (raw, size): (Box<dyn Read + Send>, Option<u64>) = if is_stdio(path) {
            (Box::new(io::stdin()), None)
        } else {
            let open_error = |error| WorkloadError::Open {
                path: shown.to_path_buf(),
                error,
            };
            let file = File::open(path).map_err(open_error)?;
            let meta = file.metadata().map_err(open_error)?;
            if meta.is_dir() {
                return Err(WorkloadError::Trace {
                    path: shown.to_path_buf(),
                    message: "is a directory, not a trace file".into(),
                });
            }
            (Box::new(file), meta.is_file().then_some(meta.len()))
        };
        let raw: Box<dyn Read + Send> = match tally {
            Some(tally) => Box::new(Tallied {
                inner: raw,
                tally: tally.clone(),
            }),
            None => raw,
        };
        let mut raw = BufReader::with_capacity(BUFFER_BYTES, raw);
        let mut magic = Vec::with_capacity(8);
        read_up_to(&mut raw, &mut magic, 8).map_err(io_error)?;
        let compression =
            Compression::of_magic(&magic).map_err(|message| WorkloadError::Trace {
                path: shown.to_path_buf(),
                message,
            })?;
        let raw = io::Cursor::new(magic).chain(raw);
        let mut reader: Box<dyn Read + Send> = match compression {
            Compression::None => Box::new(raw),
            Compression::Zstd => {
                let decoder = zstd::stream::read::Decoder::new(raw).map_err(io_error)?;
                Box::new(Decompressed {
                    inner: decoder,
                    codec: "zstd",
                    bytes: 0,
                })
            }
            Compression::Gzip => Box::new(Decompressed {
                inner: flate2::read::MultiGzDecoder::new(raw),
                codec: "gzip",
                bytes: 0,
            }),
        };
        let mut head = Vec::with_capacity(HEAD_BYTES);
        read_up_to(&mut reader, &mut head, HEAD_BYTES).map_err(io_error)?;
        let reader = Box::new(io::Cursor::new(head.clone()).chain(reader));
        let plain_size = if compression == Compression::None {
            size
        } else {
            None
        };
        Ok(Input {
            head,
            reader,
            compression,
            plain_size,
        })
    }
}

/// Reads until `out` holds `limit` bytes or the stream ends.
fn read_up_to(reader: &mut dyn Read, out: &mut Vec<u8>, limit: usize) -> io::Result<()> {
    reader.take((limit - out.len()) as u64).read_to_end(out)?;
    Ok(())
}

/// A decompressing reader whose errors say, in one sentence, that the compressed data is cut
/// short or corrupt, and after how many decompressed bytes.
struct Decompressed<R> {
    inner: R,
    codec: &'static str,
    bytes: u64,
}

impl<R: Read> Read for Decompressed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => {
                self.bytes += n as u64;
                Ok(n)
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Err(e),
            Err(e) => {
                let what = if e.kind() == io::ErrorKind::UnexpectedEof
                    || e.to_string().contains("incomplete")
                {
                    "ends in the middle of the compressed data: the file is truncated".to_string()
                } else {
                    format!("is corrupt ({e})")
                };
                Err(io::Error::new(
                    e.kind(),
                    format!(
                        "the {} stream {what} (after {} decompressed bytes)",
                        self.codec, self.bytes
                    ),
                ))
            }
        }
    }
}

/// Standard input copied to a temporary file, removed when this is dropped (for a command
/// that must read its keys twice, `route --grow`; `run` and `plan` read once).
#[derive(Debug)]
pub struct Spool(tempfile::TempPath);

impl Spool {
    /// The temporary file.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

/// Where [`spool_stdin`] puts its file: the system's temporary directory.
pub fn spool_dir() -> PathBuf {
    std::env::temp_dir()
}

/// Copies standard input to a temporary file in [`spool_dir`], so that it can be read more
/// than once. The file is named with [`crate::output::staging_prefix`] (`.shardlab-PID-`),
/// so that a command stopped by a signal, which runs no destructor, can remove it by that
/// prefix.
pub fn spool_stdin() -> Result<Spool, WorkloadError> {
    let shown = PathBuf::from("<stdin>");
    let io_error = |source| WorkloadError::Io {
        path: shown.clone(),
        source,
    };
    let mut file = tempfile::Builder::new()
        .prefix(&crate::output::staging_prefix())
        .suffix(".spool")
        .tempfile_in(spool_dir())
        .map_err(io_error)?;
    io::copy(&mut io::stdin().lock(), file.as_file_mut()).map_err(io_error)?;
    io::Write::flush(file.as_file_mut()).map_err(io_error)?;
    Ok(Spool(file.into_temp_path()))
}

/// True when `path` can be opened and read again from its start: a regular file, not
/// standard input, a FIFO or a process substitution (`<(cmd)`), which are read once.
pub fn rereadable(path: &Path) -> bool {
    !is_stdio(path) && std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// The size and XXH3-128 hash of the raw (still compressed) bytes of a trace, taken as they
/// are read: the checksum of an input that cannot be read a second time.
#[derive(Clone, Default)]
pub struct ByteTally(Arc<Mutex<(Xxh3, u64)>>);

impl ByteTally {
    /// Bytes read so far.
    pub fn bytes(&self) -> u64 {
        self.0.lock().map_or(0, |t| t.1)
    }

    /// The XXH3-128 hash of the bytes read so far.
    pub fn xxh3_128(&self) -> u128 {
        self.0.lock().map_or(0, |t| t.0.digest128())
    }
}

impl std::fmt::Debug for ByteTally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ByteTally({} bytes)", self.bytes())
    }
}

/// A reader that adds every byte it reads to a [`ByteTally`].
struct Tallied<R> {
    inner: R,
    tally: ByteTally,
}

impl<R: Read> Read for Tallied<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Ok(mut t) = self.tally.0.lock() {
            t.0.update(&buf[..n]);
            t.1 += n as u64;
        }
        Ok(n)
    }
}

/// The UTF-8 byte order mark that some editors put at the start of a text file; every text
/// reader drops it, as the csv crate does.
pub const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

/// `first` (the first line or bytes of a text input) without a [`UTF8_BOM`] at its start.
pub fn without_bom(first: &[u8]) -> &[u8] {
    first.strip_prefix(UTF8_BOM).unwrap_or(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn open_bytes(bytes: &[u8]) -> Result<(Input, Vec<u8>), WorkloadError> {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), bytes).unwrap();
        let mut input = Input::open(file.path(), Path::new("t"), None)?;
        let mut all = Vec::new();
        input
            .reader
            .read_to_end(&mut all)
            .map_err(|source| WorkloadError::Io {
                path: "t".into(),
                source,
            })?;
        Ok((input, all))
    }

    fn zstd_of(bytes: &[u8]) -> Vec<u8> {
        zstd::encode_all(bytes, 3).unwrap()
    }

    fn gzip_of(bytes: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(bytes).unwrap();
        enc.finish().unwrap()
    }

    #[test]
    fn plain_zstd_and_gzip_give_the_same_bytes_and_head() {
        let text: Vec<u8> = (0..100_000u32)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect();
        for (bytes, compression) in [
            (text.clone(), Compression::None),
            (zstd_of(&text), Compression::Zstd),
            (gzip_of(&text), Compression::Gzip),
        ] {
            let (input, all) = open_bytes(&bytes).unwrap();
            assert_eq!(input.compression, compression);
            assert_eq!(all, text);
            assert_eq!(input.head, text[..HEAD_BYTES]);
            assert_eq!(input.plain_size.is_some(), compression == Compression::None);
        }
    }

    #[test]
    fn short_and_empty_inputs_are_read_whole() {
        let (input, all) = open_bytes(b"ab").unwrap();
        assert_eq!(
            (input.head.as_slice(), all.as_slice()),
            (&b"ab"[..], &b"ab"[..])
        );
        let (input, all) = open_bytes(b"").unwrap();
        assert!(input.head.is_empty() && all.is_empty());
        let (input, _) = open_bytes(&zstd_of(b"")).unwrap();
        assert!(input.head.is_empty());
    }

    #[test]
    fn truncated_compressed_files_say_so() {
        let text: Vec<u8> = (0..200_000u32)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect();
        for bytes in [zstd_of(&text), gzip_of(&text)] {
            let cut = &bytes[..bytes.len() / 2];
            let message = match open_bytes(cut) {
                Err(e) => e.to_string(),
                Ok((_, all)) => panic!("read {} bytes of a truncated file", all.len()),
            };
            assert!(message.contains("the file is truncated"), "{message}");
        }
    }

    #[test]
    fn other_codecs_are_named() {
        let e = open_bytes(b"BZh91AY&SY").err().unwrap().to_string();
        assert!(e.contains("bzip2-compressed"), "{e}");
    }

    #[test]
    fn compression_extensions_are_recognised_for_writing() {
        assert_eq!(
            Compression::of_name(Path::new("a.csv.zst")),
            Compression::Zstd
        );
        assert_eq!(
            Compression::of_name(Path::new("a.CSV.GZ")),
            Compression::Gzip
        );
        assert_eq!(Compression::of_name(Path::new("a.csv")), Compression::None);
        assert_eq!(
            strip_compression(Path::new("a.csv.zst")),
            Path::new("a.csv")
        );
    }
}
