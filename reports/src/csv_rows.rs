//! One row type per CSV file, used both to write the file and to read it back: the struct's
//! fields are the header, in order, and its serde attributes say how each value prints and
//! which columns a reader may do without (`#[serde(default)]`).
//!
//! [`write`] renders rows under the struct's header (an empty table still gets it); [`parse`]
//! reads a file by column name (extra columns are ignored) and reports every malformed value
//! with its file, line and column.
//!
//! ```
//! use reports::csv_rows;
//! use reports::summary::SummaryRow;
//! let bytes = csv_rows::write(Vec::<SummaryRow>::new()).unwrap();
//! assert_eq!(String::from_utf8(bytes).unwrap(), format!("{}\n", csv_rows::header::<SummaryRow>()));
//! ```

use std::collections::HashSet;
use std::path::Path;

use engine::metrics::{SchemeResult, WorkloadResult};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::ReportError;

/// Each scheme's load once per workload and shard count, in result order: a run with several
/// growth targets holds one row per target with the same load (only the remap and growth
/// figures differ), which `shards.csv` and `windows.csv` write once.
pub fn distinct_loads(
    results: &[WorkloadResult],
) -> impl Iterator<Item = (&WorkloadResult, &SchemeResult)> + '_ {
    let mut seen = HashSet::new();
    results
        .iter()
        .flat_map(|r| r.schemes.iter().map(move |s| (r, s)))
        .filter(move |(r, s)| seen.insert((r.workload.as_str(), s.scheme.as_str(), s.shards)))
}

/// A label (workload, scheme) as a row holds it: without the blanks around it, which a reader
/// of the file would trim.
pub fn label(text: &str) -> String {
    text.trim().to_string()
}

/// The header of the CSV file whose rows are `R`: its field names, comma-separated.
pub fn header<R: Serialize + Default>() -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    // Serializing a row writes the header first; a default row cannot fail to serialize.
    w.serialize(R::default()).expect("a default row serializes");
    let text = String::from_utf8(w.into_inner().expect("in memory")).expect("UTF-8 names");
    text.lines().next().unwrap_or_default().to_string()
}

/// Renders `rows` under `R`'s header (written even without rows).
pub fn write<R: Serialize + Default>(
    rows: impl IntoIterator<Item = R>,
) -> Result<Vec<u8>, ReportError> {
    write_under::<R, R>(rows)
}

/// [`write`] of rows held in a slice.
pub fn write_all<R: Serialize + Default>(rows: &[R]) -> Result<Vec<u8>, ReportError> {
    write_under::<R, &R>(rows)
}

/// Renders `rows` (`R`s, or references to them) under `R`'s header.
fn write_under<R: Serialize + Default, T: Serialize>(
    rows: impl IntoIterator<Item = T>,
) -> Result<Vec<u8>, ReportError> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    w.write_record(header::<R>().split(','))?;
    for row in rows {
        w.serialize(row)?;
    }
    w.into_inner().map_err(|e| ReportError::Io {
        path: "<memory>".into(),
        source: e.into_error(),
    })
}

/// A row read from a file, with its 1-based line number.
#[derive(Clone, Debug, PartialEq)]
pub struct Lined<R> {
    /// The line the row is on.
    pub line: u64,
    /// The row.
    pub row: R,
}

impl<R> Lined<R> {
    /// An error about this row, at its file and line.
    pub fn error(&self, path: &Path, message: String) -> ReportError {
        malformed(path, self.line, message)
    }
}

/// Reads every row of `bytes`, the contents of the file `path` (named in errors; values and
/// header names trimmed).
pub fn parse<R: DeserializeOwned + Send>(
    path: &Path,
    bytes: &[u8],
) -> Result<Vec<Lined<R>>, ReportError> {
    read_bytes(path, bytes, PARALLEL_BYTES)
}

/// Files at least this large, without quotes or carriage returns, are parsed in pieces in
/// parallel (a long run's windows.csv holds millions of rows).
const PARALLEL_BYTES: usize = 8 << 20;

/// [`parse`] of the file `path` holding `bytes`: in parallel pieces cut at line ends when the
/// file has at least `parallel_bytes` and no `"` or `\r` (so that every line is one record),
/// otherwise in one piece. The rows, their line numbers and the first error are the same
/// either way.
fn read_bytes<R: DeserializeOwned + Send>(
    path: &Path,
    bytes: &[u8],
    parallel_bytes: usize,
) -> Result<Vec<Lined<R>>, ReportError> {
    use rayon::prelude::*;
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(bytes);
    let headers = reader
        .headers()
        .map_err(|e| malformed(path, 1, format!("cannot read the header: {e}")))?
        .clone();
    let plain = bytes.len() >= parallel_bytes && memchr::memchr2(b'"', b'\r', bytes).is_none();
    let Some(body) = memchr::memchr(b'\n', bytes).filter(|_| plain) else {
        return read_piece(path, reader, &headers, 0);
    };
    // Pieces of the body (after the header line), each ending after a line end, with the
    // number of lines before each.
    let pieces = rayon::current_num_threads().max(1) * 4;
    let step = (bytes.len() - body).div_ceil(pieces).max(1);
    let mut cuts = vec![body + 1];
    while let Some(&last) = cuts.last().filter(|&&c| c < bytes.len()) {
        let end = (last + step).min(bytes.len());
        let next = memchr::memchr(b'\n', &bytes[end.saturating_sub(1)..])
            .map_or(bytes.len(), |i| end.saturating_sub(1) + i + 1);
        cuts.push(next.max(last + 1).min(bytes.len()));
    }
    let mut lines_before = 1u64;
    let ranges: Vec<(std::ops::Range<usize>, u64)> = cuts
        .windows(2)
        .map(|w| {
            let first = lines_before;
            lines_before += memchr::memchr_iter(b'\n', &bytes[w[0]..w[1]]).count() as u64;
            (w[0]..w[1], first)
        })
        .collect();
    let parts: Vec<Result<Vec<Lined<R>>, ReportError>> = ranges
        .into_par_iter()
        .map(|(range, before)| {
            let reader = csv::ReaderBuilder::new()
                .trim(csv::Trim::All)
                .has_headers(false)
                .from_reader(&bytes[range]);
            read_piece(path, reader, &headers, before)
        })
        .collect();
    let mut rows = Vec::new();
    for part in parts {
        rows.extend(part?);
    }
    Ok(rows)
}

/// The rows of one piece of a file, whose first line comes after `lines_before` lines.
fn read_piece<R: DeserializeOwned>(
    path: &Path,
    mut reader: csv::Reader<&[u8]>,
    headers: &csv::StringRecord,
    lines_before: u64,
) -> Result<Vec<Lined<R>>, ReportError> {
    let mut rows = Vec::new();
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                let line = lines_before + e.position().map_or(0, |p| p.line());
                return Err(malformed(path, line, format!("not valid CSV: {e}")));
            }
        }
        let line = lines_before + record.position().map_or(0, |p| p.line());
        let row = deserialize(path, line, headers, &record)?;
        rows.push(Lined { line, row });
    }
    Ok(rows)
}

/// `record`, line `line` of the file `path` headed `headers`, as an `R` (by column name);
/// a malformed value is an error naming the line and column.
pub fn deserialize<R: DeserializeOwned>(
    path: &Path,
    line: u64,
    headers: &csv::StringRecord,
    record: &csv::StringRecord,
) -> Result<R, ReportError> {
    record
        .deserialize(Some(headers))
        .map_err(|e| value_error(path, line, headers, record, &e))
}

/// The file's bytes; a missing file is [`ReportError::Missing`].
pub fn read_file(path: &Path) -> Result<Vec<u8>, ReportError> {
    std::fs::read(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => ReportError::Missing(path.to_path_buf()),
        _ => ReportError::Read {
            path: path.to_path_buf(),
            source,
        },
    })
}

/// A malformed-file error at `path:line`.
pub fn malformed(path: &Path, line: u64, message: String) -> ReportError {
    ReportError::Malformed {
        path: path.to_path_buf(),
        line,
        message,
    }
}

/// Says which column of which line holds what, from a deserialization error.
fn value_error(
    path: &Path,
    line: u64,
    headers: &csv::StringRecord,
    record: &csv::StringRecord,
    e: &csv::Error,
) -> ReportError {
    use csv::DeserializeErrorKind as Kind;
    let csv::ErrorKind::Deserialize { err, .. } = e.kind() else {
        return malformed(path, line, format!("not valid CSV: {e}"));
    };
    let expected = match err.kind() {
        Kind::ParseInt(_) => "expected a whole number".to_string(),
        Kind::ParseFloat(_) => "expected a number".to_string(),
        Kind::ParseBool(_) => "expected true or false".to_string(),
        Kind::Message(m) => {
            // serde names a required column the header lacks as "missing field `x`".
            if let Some(column) = m
                .strip_prefix("missing field `")
                .and_then(|m| m.strip_suffix('`'))
            {
                return malformed(path, 1, format!("the header has no column '{column}'"));
            }
            m.clone()
        }
        other => format!("{other:?}"),
    };
    match err.field().map(|i| i as usize) {
        Some(i) => malformed(
            path,
            line,
            format!(
                "column '{}': {expected}, found '{}'",
                headers.get(i).unwrap_or("?"),
                record.get(i).unwrap_or("")
            ),
        ),
        None => malformed(path, line, expected),
    }
}

/// How numbers print and read: exactly and reproducibly (see [`format_value`]); an empty cell
/// is an undefined value; a non-finite number is refused when read.
pub mod number {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Formats a value exactly and reproducibly: integers without a fraction, other numbers
    /// in Rust's shortest round-trip form; `None` is empty.
    pub fn format_value(v: Option<f64>) -> String {
        match v {
            None => String::new(),
            Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{}", x as i64),
            Some(x) => format!("{x}"),
        }
    }

    /// Writes an optional number (`#[serde(with = "number")]`).
    pub fn serialize<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_value(*v))
    }

    /// Reads an optional number: empty is `None`, `inf` and `NaN` are refused.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        match Option::<f64>::deserialize(d)? {
            Some(x) if !x.is_finite() => Err(serde::de::Error::custom(format!(
                "expected a finite number, found '{x}'"
            ))),
            v => Ok(v),
        }
    }

    /// A number that is always there (`#[serde(with = "number::required")]`).
    pub mod required {
        use serde::{Deserializer, Serializer};

        /// Writes a number.
        pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
            super::serialize(&Some(*v), s)
        }

        /// Reads a number; an empty cell is refused.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
            super::deserialize(d)?
                .ok_or_else(|| serde::de::Error::custom("expected a number, found an empty cell"))
        }
    }
}

/// A list in one cell, its items separated by `;` (labels may hold commas):
/// `#[serde(with = "list")]`.
pub mod list {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serializer};
    use std::fmt::Display;
    use std::str::FromStr;

    /// Separates the items.
    pub const SEPARATOR: char = ';';

    /// Writes the items joined by [`SEPARATOR`].
    pub fn serialize<T: Display, S: Serializer>(items: &[T], s: S) -> Result<S::Ok, S::Error> {
        let text: Vec<String> = items.iter().map(T::to_string).collect();
        s.serialize_str(&text.join(&SEPARATOR.to_string()))
    }

    /// Reads the items; an empty cell is no item.
    pub fn deserialize<'de, T, D>(d: D) -> Result<Vec<T>, D::Error>
    where
        T: FromStr,
        T::Err: Display,
        D: Deserializer<'de>,
    {
        let text = Option::<String>::deserialize(d)?.unwrap_or_default();
        if text.is_empty() {
            return Ok(Vec::new());
        }
        text.split(SEPARATOR)
            .map(|item| {
                item.parse()
                    .map_err(|e| D::Error::custom(format!("item '{item}': {e}")))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    struct Row {
        name: String,
        count: u32,
        #[serde(with = "number")]
        share: Option<f64>,
        #[serde(default, with = "list")]
        tags: Vec<String>,
    }

    fn read_text(text: &str) -> Result<Vec<Lined<Row>>, ReportError> {
        parse(Path::new("t.csv"), text.as_bytes())
    }

    #[test]
    fn a_file_read_in_parallel_pieces_gives_the_rows_and_errors_of_one_piece() {
        let path = Path::new("t.csv");
        let mut text = String::from("name,count,share,tags\n");
        for i in 0..5_000u32 {
            text += &format!("k{i}, {i},{},a;b\n", f64::from(i) / 7.0);
            if i % 997 == 0 {
                text.push('\n'); // blank lines are skipped but counted
            }
        }
        let whole = |t: &str| read_bytes::<Row>(path, t.as_bytes(), usize::MAX);
        let pieces = |t: &str| read_bytes::<Row>(path, t.as_bytes(), 1);
        let (a, b) = (whole(&text).unwrap(), pieces(&text).unwrap());
        assert_eq!(a.len(), 5_000);
        assert_eq!(a, b);
        assert_eq!(
            b[4_999].line,
            5_000 + 1 + 6,
            "header and 6 blank lines before"
        );
        // The first bad value is reported at the same line, however the file is cut.
        let bad = text
            .replacen("k4321, 4321", "k4321, x", 1)
            .replacen("k99, 99", "k99, y", 1);
        let (ea, eb) = (whole(&bad).unwrap_err(), pieces(&bad).unwrap_err());
        assert_eq!(ea.to_string(), eb.to_string());
        assert!(ea.to_string().contains("t.csv:102:"), "{ea}");
        // A file with quotes is read in one piece (a quoted field may hold a line end).
        let quoted = text.replacen("k7,", "\"k\n7\",", 1);
        assert_eq!(whole(&quoted).unwrap(), pieces(&quoted).unwrap());
    }

    #[test]
    fn rows_round_trip_with_exact_numbers() {
        let rows = vec![
            Row {
                name: "a,b".into(),
                count: 3,
                share: Some(1.0),
                tags: vec!["x".into(), "y,z".into()],
            },
            Row {
                name: "c".into(),
                count: 0,
                share: Some(1.0 / 3.0),
                tags: vec![],
            },
        ];
        let text = String::from_utf8(write(rows.clone()).unwrap()).unwrap();
        assert_eq!(
            text,
            "name,count,share,tags\n\"a,b\",3,1,\"x;y,z\"\nc,0,0.3333333333333333,\n"
        );
        let back: Vec<Row> = read_text(&text)
            .unwrap()
            .into_iter()
            .map(|l| l.row)
            .collect();
        assert_eq!(back, rows);
    }

    #[test]
    fn optional_columns_may_be_missing_and_extra_ones_are_ignored() {
        let rows = read_text("extra,count,name,share\n1, 2 ,n,\n").unwrap();
        assert_eq!(rows[0].line, 2);
        assert_eq!(
            rows[0].row,
            Row {
                name: "n".into(),
                count: 2,
                share: None,
                tags: vec![]
            }
        );
    }

    #[test]
    fn errors_name_the_line_and_column() {
        let e = read_text("name,count,share\nn,1,0.5\nn,x,0.5\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("t.csv:3: column 'count': expected a whole number, found 'x'"),
            "{e}"
        );
        let e = read_text("name,count,share\nn,1,inf\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.csv:2:") && e.contains("finite"), "{e}");
        let e = read_text("name,share\nn,1\n").unwrap_err().to_string();
        assert!(
            e.ends_with("t.csv:1: the header has no column 'count'"),
            "{e}"
        );
    }
}
