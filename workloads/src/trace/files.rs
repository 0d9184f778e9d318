//! Many trace files read as one trace: `--trace` given several times and glob patterns
//! (`--trace 'cluster52.*.zst'`), read in the order given (the matches of a pattern sorted by
//! name), one after another as a single event stream.
//!
//! Each file is opened on its own: its compression and format are detected from its own name
//! and first bytes, a csv file reads its own header, and an error names the file and the line
//! in it. Every file must give keys of the same type (a u64 key and the same bytes as text
//! are different keys). A chunked trace thus gives exactly the events, in the same order, of
//! the whole file it was cut from.

use std::path::{Path, PathBuf};

use crate::trace::{open_detected, TraceOptions};
use crate::{EventChunk, EventSource, KeyType, Piece, WorkloadError};

/// The files that `--trace` arguments name, in order: an argument that names an existing
/// path is taken as it is; one with glob characters (`*`, `?`, `[`) is expanded in our code
/// (quote it so that the shell leaves it alone), its matches sorted by name. A pattern that
/// matches no file, or a malformed one, is an error that names it.
///
/// ```
/// # let dir = tempfile::tempdir().unwrap();
/// for name in ["t.2.csv", "t.10.csv", "t.1.csv"] {
///     std::fs::write(dir.path().join(name), "key\n1\n").unwrap();
/// }
/// let pattern = dir.path().join("t.*.csv");
/// let files = workloads::trace::files::expand(&[pattern]).unwrap();
/// let names: Vec<_> = files.iter().map(|f| f.file_name().unwrap().to_str().unwrap()).collect();
/// assert_eq!(names, ["t.1.csv", "t.10.csv", "t.2.csv"]);
/// ```
pub fn expand(args: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for arg in args {
        let text = arg.to_string_lossy();
        if arg.exists() || super::input::is_stdio(arg) || !text.contains(['*', '?', '[']) {
            files.push(arg.clone());
            continue;
        }
        let bad = |e: &dyn std::fmt::Display| format!("--trace '{text}': {e}");
        let mut matches = glob::glob(&text)
            .map_err(|e| bad(&e))?
            .collect::<Result<Vec<PathBuf>, _>>()
            .map_err(|e| bad(&e))?;
        matches.retain(|p| !p.is_dir());
        if matches.is_empty() {
            return Err(format!(
                "--trace '{text}' matches no file; check the pattern (it is expanded by \
                 shardlab, in the order of the sorted names)"
            ));
        }
        matches.sort();
        files.extend(matches);
    }
    if files.len() > 1 && files.iter().any(|f| super::input::is_stdio(f)) {
        return Err(
            "--trace - (standard input) cannot be read together with other trace files; \
             save it to a file first"
                .into(),
        );
    }
    Ok(files)
}

/// Several trace files read one after another as one event stream; each file is opened when
/// the one before it ends, so only one is open at a time.
pub struct FileChain {
    /// The files, in order, each with its own options.
    files: Vec<TraceOptions>,
    /// The index of the next file to open.
    next: usize,
    /// The stream of the file being read.
    current: Option<Box<dyn EventSource>>,
    /// The key type of the first file, which every file must have.
    key_type: KeyType,
    /// Events left to read, when every file knew its length on opening.
    left: Option<u64>,
    /// Events handed out so far (the position of the next one in the whole trace).
    emitted: u64,
}

impl FileChain {
    /// The chain of `files`, whose first `opened.len()` streams are already open (e.g. while
    /// they were checked); every file must have keys of type `key_type`. `len_hint` is the
    /// total number of events, when known.
    pub fn new(
        files: Vec<TraceOptions>,
        opened: Option<Box<dyn EventSource>>,
        key_type: KeyType,
        len_hint: Option<u64>,
    ) -> FileChain {
        FileChain {
            next: usize::from(opened.is_some()),
            current: opened,
            files,
            key_type,
            left: len_hint,
            emitted: 0,
        }
    }

    /// Opens the next file, refusing one whose keys are of another type.
    fn open_next(&mut self) -> Result<Box<dyn EventSource>, WorkloadError> {
        let opts = &self.files[self.next];
        self.next += 1;
        let opened = open_detected(opts)?;
        check_key_type(&opts.shown(), opened.key_type, self.key_type)?;
        Ok(opened.source)
    }
}

/// Refuses a file whose keys are of another type than the trace's first file.
pub fn check_key_type(file: &Path, found: KeyType, first: KeyType) -> Result<(), WorkloadError> {
    if found == first {
        return Ok(());
    }
    Err(WorkloadError::Trace {
        path: file.to_path_buf(),
        message: format!(
            "has {} keys but the trace's first file has {} keys; the files of one trace must \
             have one key type (pass --key-type, or give csv files the same `key` header)",
            found.name(),
            first.name()
        ),
    })
}

impl FileChain {
    /// Appends events with `fill` from the file being read, going on to the next file at
    /// the end of one.
    fn fill_with(
        &mut self,
        max: usize,
        mut fill: impl FnMut(&mut dyn EventSource) -> Result<usize, WorkloadError>,
    ) -> Result<usize, WorkloadError> {
        loop {
            let source = match &mut self.current {
                Some(source) => source,
                None if self.next < self.files.len() => {
                    let source = self.open_next()?;
                    self.current.insert(source)
                }
                None => return Ok(0),
            };
            let n = fill(source.as_mut())?;
            if n > 0 || max == 0 {
                self.emitted += n as u64;
                self.left = self.left.map(|l| l.saturating_sub(n as u64));
                return Ok(n);
            }
            self.current = None;
        }
    }
}

impl EventSource for FileChain {
    fn fill(&mut self, chunk: &mut EventChunk, max: usize) -> Result<usize, WorkloadError> {
        let (empty, first) = (chunk.is_empty(), self.emitted);
        let n = self.fill_with(max, |source| source.fill(chunk, max))?;
        // The file's reader numbers its events from its own start.
        if empty {
            chunk.first_index = first;
        }
        Ok(n)
    }

    fn fill_piece(&mut self, piece: &mut Piece, max: usize) -> Result<usize, WorkloadError> {
        self.fill_with(max, |source| source.fill_piece(piece, max))
    }

    fn len_hint(&self) -> Option<u64> {
        self.left
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect;

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    fn chain_of(paths: &[PathBuf], key_type: KeyType) -> FileChain {
        let files = paths
            .iter()
            .map(|p| TraceOptions::new(p, key_type))
            .collect();
        FileChain::new(files, None, key_type, None)
    }

    #[test]
    fn files_in_any_format_and_compression_read_as_one_stream() {
        let dir = tempfile::tempdir().unwrap();
        let whole = write(
            dir.path(),
            "all.csv",
            b"key:u64,op\n1,get\n2,put\n3,get\n4,get\n",
        );
        let a = write(dir.path(), "a.csv", b"key:u64,op\n1,get\n2,put\n");
        let b = write(
            dir.path(),
            "b.txt.zst",
            &zstd::encode_all(&b"3\n"[..], 1).unwrap(),
        );
        let c = write(dir.path(), "c.csv", b"key:u64\n4\n");
        let expected =
            collect(&mut *crate::trace::open(&TraceOptions::new(&whole, KeyType::U64)).unwrap())
                .unwrap();
        let got = collect(&mut chain_of(&[a, b, c], KeyType::U64)).unwrap();
        assert_eq!(got.len(), 4);
        assert!(got.iter().zip(expected.iter()).all(|(x, y)| x == y));
    }

    #[test]
    fn a_file_with_another_key_type_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let a = write(dir.path(), "a.csv", b"key:u64\n1\n");
        let b = write(dir.path(), "b.csv", b"key\nx\n");
        let mut chain = chain_of(&[a, b], KeyType::U64);
        chain.files[1].key_type = KeyType::Bytes;
        let e = collect(&mut chain).unwrap_err().to_string();
        assert!(e.contains("b.csv") && e.contains("one key type"), "{e}");
    }

    #[test]
    fn a_bad_record_is_reported_with_its_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let a = write(dir.path(), "a.csv", b"key:u64\n1\n2\n");
        let b = write(dir.path(), "b.csv", b"key:u64\n3\nfour\n");
        let e = collect(&mut chain_of(&[a, b], KeyType::U64))
            .unwrap_err()
            .to_string();
        assert!(e.contains("b.csv:line 3"), "{e}");
    }

    #[test]
    fn patterns_expand_sorted_and_an_empty_match_names_the_pattern() {
        let dir = tempfile::tempdir().unwrap();
        let b = write(dir.path(), "t.b.csv", b"key\n1\n");
        let a = write(dir.path(), "t.a.csv", b"key\n1\n");
        let literal = write(dir.path(), "odd[1].csv", b"key\n1\n");
        let got = expand(&[dir.path().join("t.*.csv"), literal.clone(), a.clone()]).unwrap();
        assert_eq!(got, [a.clone(), b, literal, a]);
        let none = dir.path().join("nothing.*.zst");
        let e = expand(&[none]).unwrap_err();
        assert!(
            e.contains("nothing.*.zst") && e.contains("matches no file"),
            "{e}"
        );
        let e = expand(&[PathBuf::from("-"), dir.path().join("t.a.csv")]).unwrap_err();
        assert!(e.contains("standard input"), "{e}");
        assert_eq!(expand(&[PathBuf::from("-")]).unwrap(), [PathBuf::from("-")]);
    }
}
