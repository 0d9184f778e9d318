//! The tables of changing layouts as CSV files: `timeline.csv` (one row per window, for
//! every changing layout) and each layout's own tables (`splits.csv`, `finders.csv`, ...).
//! One file holds the rows of every run of every workload that has the table, under one
//! header (the union of their columns, in the order first seen; a run without a column
//! leaves it empty), each followed by `workload,scheme,shards`.
//!
//! Cells are written as in `summary.csv`: numbers exactly ([`number::format_value`]),
//! undefined values empty; keys in the workload's [`KeyType`], the empty key (the first
//! range's start) as an empty field.
//!
//! In a run's model ([`crate::data::RunData`]) each table is a [`TextTable`]: the cells as
//! its file holds them. One exporter ([`crate::exporters::LayoutTablesCsv`]) writes every table a run has,
//! whatever layout made it; `shardlab report DIR` reads back every CSV file of the directory
//! other than the run's fixed files as a layout table named by its file.
//!
//! ```
//! use reports::layout_tables::TextTable;
//! use schemes::changing::{Cell, Table};
//! use workloads::KeyType;
//! let table = Table::new("timeline", &["window", "measured"], vec![vec![Cell::Count(3), Cell::Flag(true)]]);
//! let text = TextTable::of(&[("w", "toy", 4, KeyType::Bytes, &table)]);
//! assert_eq!(String::from_utf8(text.csv().unwrap()).unwrap(), "window,measured,workload,scheme,shards\n3,true,w,toy,4\n");
//! ```

use std::path::Path;

use schemes::changing::{Cell, Table};
use serde::de::DeserializeOwned;
use workloads::KeyType;

use crate::csv_rows::{self, malformed, number};
use crate::ReportError;

/// The columns that end every layout table's header: the run a row belongs to.
pub const RUN_COLUMNS: [&str; 3] = ["workload", "scheme", "shards"];

/// One run's table: its workload, scheme, node count, the workload's key type and the table.
pub type RunTable<'a> = (&'a str, &'a str, u32, KeyType, &'a Table);

/// A layout table as its file holds it: the header and each row's cells as text (trimmed,
/// as a reader sees them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TextTable {
    /// The file's stem (`timeline` for `timeline.csv`).
    pub name: String,
    /// The header: the union of the runs' columns, then [`RUN_COLUMNS`].
    pub columns: Vec<String>,
    /// One row per row of each run, one cell per column.
    pub rows: Vec<Vec<String>>,
}

impl TextTable {
    /// The tables of `runs` (all of one name) as one table.
    pub fn of(runs: &[RunTable<'_>]) -> TextTable {
        let mut columns: Vec<String> = Vec::new();
        for (.., t) in runs {
            for c in &t.columns {
                if !columns.contains(c) {
                    columns.push(c.clone());
                }
            }
        }
        let own = columns.len();
        columns.extend(RUN_COLUMNS.map(String::from));
        let mut rows = Vec::new();
        for &(workload, scheme, shards, key_type, table) in runs {
            for row in &table.rows {
                let mut cells: Vec<String> = columns[..own]
                    .iter()
                    .map(|c| {
                        table
                            .columns
                            .iter()
                            .position(|mine| mine == c)
                            .and_then(|i| row.get(i))
                            .map_or_else(String::new, |cell| text(cell, key_type))
                    })
                    .collect();
                cells.extend([workload.to_string(), scheme.to_string(), shards.to_string()]);
                rows.push(cells.iter().map(|c| c.trim().to_string()).collect());
            }
        }
        TextTable {
            name: runs
                .first()
                .map_or_else(String::new, |(.., t)| t.name.clone()),
            columns,
            rows,
        }
    }

    /// The file name (`<name>.csv`).
    pub fn file_name(&self) -> String {
        format!("{}.csv", self.name)
    }

    /// The file's bytes.
    pub fn csv(&self) -> Result<Vec<u8>, ReportError> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(&self.columns)?;
        for row in &self.rows {
            w.write_record(row)?;
        }
        w.into_inner().map_err(|e| ReportError::Io {
            path: "<memory>".into(),
            source: e.into_error(),
        })
    }

    /// The table in `bytes`, the text of `path` (named by its file stem; rows may be shorter
    /// or longer than the header, as in hand-made files); text that is not CSV is an error
    /// naming the line.
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<TextTable, ReportError> {
        let mut reader = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .flexible(true)
            .from_reader(bytes);
        let header = reader
            .headers()
            .map_err(|e| malformed(path, 1, format!("cannot read the header: {e}")))?
            .clone();
        let columns: Vec<String> = header.iter().map(str::to_string).collect();
        let mut rows = Vec::new();
        for record in reader.records() {
            let record = record.map_err(|e| {
                let line = e.position().map_or(0, |p| p.line());
                malformed(path, line, format!("not valid CSV: {e}"))
            })?;
            rows.push(record.iter().map(str::to_string).collect());
        }
        let name = path
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        Ok(TextTable {
            name,
            columns,
            rows,
        })
    }

    /// The rows as `R` (by column name; extra columns ignored), each malformed value an error
    /// naming `path`, its line and column.
    pub fn rows_as<R: DeserializeOwned>(&self, path: &Path) -> Result<Vec<R>, ReportError> {
        let header = csv::StringRecord::from(self.columns.clone());
        (2..)
            .zip(&self.rows)
            .map(|(line, row)| {
                csv_rows::deserialize(path, line, &header, &csv::StringRecord::from(row.clone()))
            })
            .collect()
    }
}

/// A cell as written.
fn text(cell: &Cell, key_type: KeyType) -> String {
    match cell {
        Cell::Count(n) => n.to_string(),
        Cell::Number(x) => number::format_value(*x),
        Cell::Flag(b) => b.to_string(),
        Cell::Text(s) => s.clone(),
        Cell::Key(None) => String::new(),
        Cell::Key(Some(k)) if k.is_empty() => String::new(),
        Cell::Key(Some(k)) => key_type.display(k),
    }
}

/// Every layout table of `results`, by name in the order first seen (each run's timeline
/// first, then its own tables); each run is written once (the results of one replay's
/// growth targets share its run).
pub fn tables(results: &[engine::metrics::WorkloadResult]) -> Vec<TextTable> {
    let mut seen: Vec<&std::sync::Arc<engine::changing::LayoutRun>> = Vec::new();
    let mut by_name: Vec<(&str, Vec<RunTable<'_>>)> = Vec::new();
    for w in results {
        for run in &w.changing {
            if seen.iter().any(|r| std::sync::Arc::ptr_eq(r, run)) {
                continue;
            }
            seen.push(run);
            for t in std::iter::once(&run.timeline).chain(&run.tables) {
                let entry = (
                    w.workload.as_str(),
                    run.label.as_str(),
                    run.nodes,
                    w.key_type,
                    t,
                );
                match by_name.iter_mut().find(|(name, _)| *name == t.name) {
                    Some((_, runs)) => runs.push(entry),
                    None => by_name.push((&t.name, vec![entry])),
                }
            }
        }
    }
    by_name
        .iter()
        .map(|(_, runs)| TextTable::of(runs))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_print_exact_numbers_keys_in_their_type_and_empty_undefined_values() {
        let table = Table::new(
            "splits",
            &[
                "window",
                "range_start",
                "split_key",
                "balance",
                "none",
                "range_end",
                "applied",
                "why",
            ],
            vec![vec![
                Cell::Count(7),
                Cell::Key(Some(vec![])),
                Cell::Key(Some(500u64.to_be_bytes().to_vec())),
                Cell::Number(Some(1.0 / 3.0)),
                Cell::Number(None),
                Cell::Key(None),
                Cell::Flag(false),
                Cell::Text("popular_key".into()),
            ]],
        );
        let csv = TextTable::of(&[("w", "range-dynamic", 4, KeyType::U64, &table)])
            .csv()
            .unwrap();
        assert_eq!(
            String::from_utf8(csv).unwrap().lines().nth(1),
            Some("7,,500,0.3333333333333333,,,false,popular_key,w,range-dynamic,4")
        );
    }

    #[test]
    fn runs_with_other_columns_share_one_header_and_leave_the_missing_ones_empty() {
        let a = Table::new(
            "timeline",
            &["window", "splits"],
            vec![vec![Cell::Count(0), Cell::Count(2)]],
        );
        let b = Table::new(
            "timeline",
            &["window", "moves"],
            vec![vec![Cell::Count(0), Cell::Count(5)]],
        );
        let csv = TextTable::of(&[
            ("w", "a", 2, KeyType::Bytes, &a),
            ("w", "b", 3, KeyType::Bytes, &b),
        ])
        .csv()
        .unwrap();
        assert_eq!(
            String::from_utf8(csv).unwrap(),
            "window,splits,moves,workload,scheme,shards\n0,2,,w,a,2\n0,,5,w,b,3\n"
        );
    }
}
