//! Multi-column traces (CSV with a header, or Parquet, whose rows are read as the text cells
//! of the same CSV), read row by row into operations with predicates.
//!
//! The encoding (docs/keys.md, "Trace encoding"): a row is one operation, named by the `op`
//! column in shardlab's vocabulary (`--op-map` for others). For a read, a non-empty cell in
//! column `c` is an equality predicate on `c` and an empty cell means no filter on `c`; a
//! non-empty `c_end` makes it the range `[c, c_end)`. A write carries the row's values; a
//! non-empty `c_new` that differs from `c` changes `c`'s value. `--txn-col` names a column
//! whose non-empty cells group operations into transactions.

use std::path::{Path, PathBuf};

use workloads::table::parquet::{is_parquet, ParquetRows};
use workloads::trace::ops::OpMap;
use workloads::Op;

use crate::candidate::{encode, ColType};
use crate::error::KeysError;

/// What the query says about one column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pred {
    /// No filter on the column (an empty cell).
    Any,
    /// Equality with this encoded value.
    Eq(Vec<u8>),
    /// The range `[lo, hi)` of encoded values.
    Range(Vec<u8>, Vec<u8>),
}

/// One operation: reads filter, writes carry values.
#[derive(Clone, Debug, Default)]
pub struct Row {
    /// True for gets and scans, false for puts and deletes.
    pub read: bool,
    /// One predicate per data column, in [`Layout::columns`] order.
    pub preds: Vec<Pred>,
    /// The new encoded value of each data column a write changes (`c_new` non-empty and
    /// different from `c`); `None` where it stays.
    pub new: Vec<Option<Vec<u8>>>,
    /// The transaction the operation belongs to, if any.
    pub txn: Option<String>,
    /// How each data column is encoded (its type so far).
    pub types: Vec<ColType>,
}

/// Where each part of a row is in the header.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The data columns (every column but `op`, the transaction column, `_end` and `_new`).
    pub columns: Vec<String>,
    idx: Vec<usize>,
    end_idx: Vec<Option<usize>>,
    new_idx: Vec<Option<usize>>,
    op_idx: usize,
    txn_idx: Option<usize>,
}

impl Layout {
    /// Reads the header: `op_col` must be there, and so must `txn_col` when given; a
    /// `c_end` or `c_new` column without its base column `c` is a data error naming it.
    fn new(
        header: &csv::StringRecord,
        op_col: &str,
        txn_col: Option<&str>,
        path: &Path,
    ) -> Result<Layout, KeysError> {
        let names: Vec<&str> = header.iter().collect();
        let find = |n: &str| names.iter().position(|h| *h == n);
        let op_idx = find(op_col).ok_or_else(|| {
            KeysError::Data(format!(
                "{}: line 1: the header has no operation column '{op_col}' (columns: {})",
                path.display(),
                names.join(", ")
            ))
        })?;
        let txn_idx = match txn_col {
            Some(t) => Some(find(t).ok_or_else(|| {
                KeysError::Usage(format!(
                    "--txn-col: the trace {} has no column '{t}' (columns: {})",
                    path.display(),
                    names.join(", ")
                ))
            })?),
            None => None,
        };
        for n in &names {
            for suffix in ["_end", "_new"] {
                if let Some(base) = n.strip_suffix(suffix) {
                    if find(base).is_none() {
                        return Err(KeysError::Data(format!(
                            "{}: line 1: column '{n}' has no base column '{base}' (a \
                             '{suffix}' column qualifies the column named before it)",
                            path.display()
                        )));
                    }
                }
            }
        }
        let is_qualifier = |n: &str| {
            ["_end", "_new"]
                .iter()
                .any(|s| n.strip_suffix(s).is_some_and(|b| find(b).is_some()))
        };
        let mut layout = Layout {
            columns: Vec::new(),
            idx: Vec::new(),
            end_idx: Vec::new(),
            new_idx: Vec::new(),
            op_idx,
            txn_idx,
        };
        for (i, n) in names.iter().enumerate() {
            if i == op_idx || Some(i) == txn_idx || is_qualifier(n) {
                continue;
            }
            layout.columns.push(n.to_string());
            layout.idx.push(i);
            layout.end_idx.push(find(&format!("{n}_end")));
            layout.new_idx.push(find(&format!("{n}_new")));
        }
        Ok(layout)
    }
}

/// Where a trace's records come from: CSV text or a Parquet file's rows, as text cells.
enum Records {
    Csv(csv::Reader<Box<dyn std::io::Read + Send>>),
    Parquet(ParquetRows, Vec<String>),
}

impl Records {
    /// Reads the next record into `record`; false at the end.
    fn read(&mut self, record: &mut csv::StringRecord) -> Result<bool, String> {
        match self {
            Records::Csv(reader) => reader.read_record(record).map_err(|e| e.to_string()),
            Records::Parquet(rows, cells) => {
                if !rows.next_row(cells)? {
                    return Ok(false);
                }
                record.clear();
                cells.iter().for_each(|c| record.push_field(c));
                Ok(true)
            }
        }
    }
}

/// A multi-column trace being read (CSV with a header, or Parquet): its layout and the
/// column types seen so far.
pub struct CsvTrace {
    path: PathBuf,
    reader: Records,
    record: csv::StringRecord,
    /// The header's reading.
    pub layout: Layout,
    types: Vec<Option<ColType>>,
    op_map: OpMap,
    line: u64,
}

impl CsvTrace {
    /// Opens `path` and reads its header.
    pub fn open(
        path: &Path,
        op_col: &str,
        txn_col: Option<&str>,
        op_map: &OpMap,
    ) -> Result<CsvTrace, KeysError> {
        let io =
            |e: csv::Error| KeysError::Data(format!("cannot read trace {}: {e}", path.display()));
        let (reader, header) = if is_parquet(path) {
            let rows = ParquetRows::open(path)
                .map_err(|e| KeysError::Data(format!("{}: {e}", path.display())))?;
            let header = csv::StringRecord::from(rows.columns().to_vec());
            (Records::Parquet(rows, Vec::new()), header)
        } else {
            // Compressed traces (zstd, gzip) are recognised by their first bytes, as by `run`.
            let input = workloads::trace::input::Input::open(path, path, None)
                .map_err(|e| KeysError::Data(e.to_string()))?;
            let mut reader = csv::ReaderBuilder::new()
                .has_headers(true)
                .from_reader(input.reader);
            let header = reader.headers().map_err(io)?.clone();
            (Records::Csv(reader), header)
        };
        let layout = Layout::new(&header, op_col, txn_col, path)?;
        Ok(CsvTrace {
            path: path.to_path_buf(),
            reader,
            record: csv::StringRecord::new(),
            types: vec![None; layout.columns.len()],
            layout,
            op_map: op_map.clone(),
            line: 1,
        })
    }

    /// Reads the next operation into `row`; false at the end of the trace.
    pub fn next_row(&mut self, row: &mut Row) -> Result<bool, KeysError> {
        let more = self.reader.read(&mut self.record).map_err(|e| {
            KeysError::Data(format!("cannot read trace {}: {e}", self.path.display()))
        })?;
        if !more {
            return Ok(false);
        }
        self.line += 1;
        let at = |what: String| {
            KeysError::Data(format!(
                "{}: line {}: {what}",
                self.path.display(),
                self.line
            ))
        };
        let op_text = self.record.get(self.layout.op_idx).unwrap_or("");
        let op = self
            .op_map
            .op_of(op_text.as_bytes())
            .ok_or_else(|| at(format!("unknown op '{op_text}'; {}", self.op_map.help())))?;
        row.read = matches!(op, Op::Get | Op::Scan);
        row.txn = self
            .layout
            .txn_idx
            .and_then(|i| self.record.get(i))
            .filter(|t| !t.is_empty())
            .map(str::to_string);
        row.preds.clear();
        row.new.clear();
        row.types.clear();
        for c in 0..self.layout.columns.len() {
            let cell = |i: Option<usize>| i.and_then(|i| self.record.get(i)).unwrap_or("");
            let value = cell(Some(self.layout.idx[c]));
            let end = cell(self.layout.end_idx[c]);
            let new = cell(self.layout.new_idx[c]);
            let name = &self.layout.columns[c];
            let ty = match (
                self.types[c],
                [value, end, new].into_iter().find(|s| !s.is_empty()),
            ) {
                (Some(ty), _) => ty,
                (None, Some(first)) => *self.types[c].insert(type_of(first)),
                (None, None) => ColType::Str, // nothing to encode in this row
            };
            let enc = |text: &str, which: &str| {
                let mut out = Vec::new();
                encode(ty, text, &mut out).map(|()| out).ok_or_else(|| {
                    at(format!(
                        "column '{which}': '{text}' is not an integer, as the column's first \
                         value was"
                    ))
                })
            };
            let pred = match (value.is_empty(), end.is_empty()) {
                (true, true) => Pred::Any,
                (true, false) => {
                    return Err(at(format!(
                        "column '{name}_end' is given without a value in '{name}'"
                    )))
                }
                (false, true) => Pred::Eq(enc(value, name)?),
                (false, false) => Pred::Range(enc(value, name)?, enc(end, &format!("{name}_end"))?),
            };
            let changed = if !row.read && !new.is_empty() && new != value {
                Some(enc(new, &format!("{name}_new"))?)
            } else {
                None
            };
            row.types.push(ty);
            row.preds.push(pred);
            row.new.push(changed);
        }
        Ok(true)
    }
}

/// The type a column's first non-empty cell (of `c`, `c_end` or `c_new`) gives it.
fn type_of(cell: &str) -> ColType {
    if cell.parse::<i64>().is_ok() {
        ColType::Int
    } else {
        ColType::Str
    }
}
