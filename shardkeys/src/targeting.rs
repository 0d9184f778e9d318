//! Where an operation goes under a candidate key: its full key when every key column is an
//! equality, else the scan its prefix of equalities and the next column allow, else every
//! shard (docs/keys.md, "Targeting").

use schemes::{Partitioner, ShardSet};

use crate::candidate::{self, Candidate};
use crate::trace::{Pred, Row};

/// The full key of `cand` from `preds` when every key column is an equality, into `out`.
pub(crate) fn full_key(cand: &Candidate, preds: &[Pred], out: &mut Vec<u8>) -> bool {
    out.clear();
    for p in &cand.parts {
        match &preds[p.col] {
            Pred::Eq(v) => push_part(p.hashed, v, out),
            _ => return false,
        }
    }
    true
}

fn push_part(hashed: bool, value: &[u8], out: &mut Vec<u8>) {
    if hashed {
        out.extend_from_slice(&candidate::hashed_component(value));
    } else {
        out.extend_from_slice(value);
    }
}

/// What an operation with `preds` asks of a layout keyed by `cand`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// The owner of this key: every key column is an equality.
    Point(Vec<u8>),
    /// The keys in `[start, end)`: after the longest prefix of equalities, the range the next
    /// column allows (its `[c, c_end)` when it is an unhashed range, every key with the
    /// prefix otherwise).
    Scan(Vec<u8>, Vec<u8>),
    /// Every shard: the first key column is not constrained.
    All,
}

/// The [`Request`] of an operation with `preds` under `cand`.
pub fn request(cand: &Candidate, preds: &[Pred]) -> Request {
    let mut prefix = Vec::new();
    for p in &cand.parts {
        match &preds[p.col] {
            Pred::Eq(v) => push_part(p.hashed, v, &mut prefix),
            Pred::Range(lo, hi) if !p.hashed => {
                let (mut start, mut end) = (prefix.clone(), prefix);
                start.extend_from_slice(lo);
                end.extend_from_slice(hi);
                return Request::Scan(start, end);
            }
            _ => {
                return match successor(&prefix) {
                    Some(end) if !prefix.is_empty() => Request::Scan(prefix, end),
                    _ => Request::All,
                };
            }
        }
    }
    Request::Point(prefix)
}

/// Adds to `out` the shards `req` contacts under `scheme`.
pub(crate) fn target(scheme: &dyn Partitioner, req: &Request, out: &mut ShardSet) {
    match req {
        Request::Point(key) => {
            out.insert(scheme.shard_of(key));
        }
        Request::Scan(start, end) => scheme.scan_shards(start, end, out),
        Request::All => out.insert_all(scheme.shard_count()),
    }
}

/// The least byte string greater than every string that starts with `prefix`.
pub(crate) fn successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let last = prefix.iter().rposition(|&b| b != 0xFF)?;
    let mut end = prefix[..=last].to_vec();
    end[last] += 1;
    Some(end)
}

/// The key after a write's changes, when it changes a key column and gives every one.
pub(crate) fn new_key(cand: &Candidate, row: &Row, out: &mut Vec<u8>) -> Option<bool> {
    let changed = cand.parts.iter().any(|p| row.new[p.col].is_some());
    if !changed {
        return Some(false);
    }
    out.clear();
    for p in &cand.parts {
        match (&row.new[p.col], &row.preds[p.col]) {
            (Some(v), _) | (None, Pred::Eq(v)) => push_part(p.hashed, v, out),
            _ => return None,
        }
    }
    Some(true)
}
