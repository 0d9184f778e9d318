//! `text`: one key per line, every event a get. A trailing `\r` and a UTF-8 byte order mark
//! at the start are dropped and blank lines are skipped; keys are read with `--key-type`
//! (bytes as written, or decimal integers).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use super::delimited::check_text;
use super::input::{Input, BUFFER_BYTES, HEAD_BYTES};
use super::invalid::{InvalidCounter, InvalidPolicy};
use crate::{Event, EventChunk, EventSource, KeyType, Op, WorkloadError};

/// A key-per-line trace.
pub(crate) struct TextReader {
    shown: PathBuf,
    key_type: KeyType,
    reader: BufReader<Box<dyn Read + Send>>,
    line: Vec<u8>,
    key: Vec<u8>,
    /// Physical line number of the last line read.
    line_no: u64,
    emitted: u64,
    done: bool,
    invalid: InvalidCounter,
}

impl TextReader {
    pub(crate) fn open(
        input: Input,
        shown: &Path,
        key_type: KeyType,
        policy: &InvalidPolicy,
    ) -> Result<Self, WorkloadError> {
        check_text(&input.head, "text").map_err(|message| WorkloadError::Trace {
            path: shown.to_path_buf(),
            message,
        })?;
        if input.head.len() < HEAD_BYTES && input.head.iter().all(|b| b.is_ascii_whitespace()) {
            return Err(WorkloadError::Trace {
                path: shown.to_path_buf(),
                message: "contains no events: the file is empty".into(),
            });
        }
        Ok(TextReader {
            shown: shown.to_path_buf(),
            key_type,
            reader: BufReader::with_capacity(BUFFER_BYTES, input.reader),
            line: Vec::new(),
            key: Vec::new(),
            line_no: 0,
            emitted: 0,
            done: false,
            invalid: InvalidCounter::new(policy),
        })
    }
}

impl EventSource for TextReader {
    fn fill(&mut self, chunk: &mut EventChunk, max: usize) -> Result<usize, WorkloadError> {
        if chunk.is_empty() {
            chunk.first_index = self.emitted;
        }
        let mut n = 0;
        while n < max && !self.done {
            self.line.clear();
            let read = self
                .reader
                .read_until(b'\n', &mut self.line)
                .map_err(|source| {
                    self.done = true;
                    WorkloadError::Io {
                        path: self.shown.clone(),
                        source,
                    }
                })?;
            if read == 0 {
                self.done = true;
                break;
            }
            self.line_no += 1;
            let mut text = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
            text = text.strip_suffix(b"\r").unwrap_or(text);
            if self.line_no == 1 {
                text = super::input::without_bom(text);
            }
            if text.trim_ascii().is_empty() {
                continue;
            }
            self.key.clear();
            match self.key_type.parse_written(text, &mut self.key) {
                Ok(()) => {
                    chunk.push(Event {
                        op: Op::Get,
                        key: &self.key,
                        end: None,
                        timestamp: None,
                        size: None,
                    });
                    self.emitted += 1;
                    n += 1;
                }
                Err(message) => {
                    let error = WorkloadError::Invalid {
                        path: self.shown.clone(),
                        location: format!("line {}", self.line_no),
                        message: format!("key: {message}"),
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
}
