//! A multi-column trace read as a stream of events keyed by one candidate (`run --key-col
//! tenant,user`): each operation becomes the request it makes under the candidate
//! ([`crate::request`]), so the ordinary comparison of schemes runs on the key a review
//! chose. A read with every key column is a get of its key, a write a put; an operation
//! with only a prefix of them (or a range on the next one) is a scan of the keys it allows;
//! one that does not constrain the first key column is a scan of every key
//! (`[empty, ALL_END)`). A write that changes a key column is a put of its key, then a put of
//! its new key.

use std::path::Path;

use workloads::trace::ops::OpMap;
use workloads::{EventChunk, EventSource, Op, WorkloadError};

use crate::candidate::{parse_candidates, Candidate};
use crate::error::KeysError;
use crate::targeting::{new_key, request, Request};
use crate::trace::{CsvTrace, Row};

/// The end of the scan of every key: longer than any key of a candidate of up to 16
/// integer columns (an encoded integer is 8 bytes), and greater than any UTF-8 text.
pub const ALL_END: [u8; 128] = [0xFF; 128];

/// The events of a multi-column trace under one candidate key.
pub struct CandidateEvents {
    path: std::path::PathBuf,
    trace: CsvTrace,
    cand: Candidate,
    row: Row,
    /// A new key waiting to be handed out (the second event of a key change).
    moved: Option<Vec<u8>>,
}

impl CandidateEvents {
    /// Opens the trace at `path` (CSV with a header or Parquet, operations in `op_col`) keyed
    /// by the candidate `candidate` (`tenant,user`, `hashed(user)`).
    pub fn open(
        path: &Path,
        candidate: &str,
        op_col: &str,
        op_map: &OpMap,
    ) -> Result<CandidateEvents, KeysError> {
        let trace = CsvTrace::open(path, op_col, None, op_map)?;
        let mut cands =
            parse_candidates(candidate, &trace.layout.columns).map_err(|e| match e {
                KeysError::Usage(m) => KeysError::Usage(m.replacen("--candidates", "--key-col", 1)),
                other => other,
            })?;
        if cands.len() != 1 {
            return Err(KeysError::Usage(format!(
                "--key-col '{candidate}' names {} candidates; give one (columns separated by \
                 ',', without ';')",
                cands.len()
            )));
        }
        Ok(CandidateEvents {
            path: path.to_path_buf(),
            trace,
            cand: cands.remove(0),
            row: Row::default(),
            moved: None,
        })
    }
}

impl EventSource for CandidateEvents {
    fn fill(&mut self, chunk: &mut EventChunk, max: usize) -> Result<usize, WorkloadError> {
        let mut n = 0;
        while n < max {
            if let Some(key) = self.moved.take() {
                chunk.push(point(Op::Put, &key));
                n += 1;
                continue;
            }
            let more = self
                .trace
                .next_row(&mut self.row)
                .map_err(|e| WorkloadError::Trace {
                    path: self.path.clone(),
                    message: e.to_string(),
                })?;
            if !more {
                break;
            }
            let op = if self.row.read { Op::Get } else { Op::Put };
            match request(&self.cand, &self.row.preds) {
                Request::Point(key) => chunk.push(point(op, &key)),
                Request::Scan(start, end) => chunk.push(scan(&start, &end)),
                Request::All => chunk.push(scan(&[], &ALL_END)),
            }
            n += 1;
            if !self.row.read {
                let mut key = Vec::new();
                if new_key(&self.cand, &self.row, &mut key) == Some(true) {
                    self.moved = Some(key);
                }
            }
        }
        Ok(n)
    }
}

fn point(op: Op, key: &[u8]) -> workloads::Event<'_> {
    workloads::Event {
        op,
        key,
        end: None,
        timestamp: None,
        size: None,
    }
}

fn scan<'a>(start: &'a [u8], end: &'a [u8]) -> workloads::Event<'a> {
    workloads::Event {
        op: Op::Scan,
        key: start,
        end: Some(end),
        timestamp: None,
        size: None,
    }
}
