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
//! ```
//! use reports::layout_tables::render;
//! use schemes::changing::{Cell, Table};
//! use workloads::KeyType;
//! let table = Table::new("timeline", &["window", "measured"], vec![vec![Cell::Count(3), Cell::Flag(true)]]);
//! let csv = render(&[("w", "toy", 4, KeyType::Bytes, &table)]).unwrap();
//! assert_eq!(String::from_utf8(csv).unwrap(), "window,measured,workload,scheme,shards\n3,true,w,toy,4\n");
//! ```

use schemes::changing::{Cell, Table};
use workloads::KeyType;

use crate::csv_rows::number;
use crate::exporter::Exporter;
use crate::{ReportError, RunReport};

/// One run's table: its workload, scheme, node count, the workload's key type and the table.
pub type RunTable<'a> = (&'a str, &'a str, u32, KeyType, &'a Table);

/// The CSV of `tables` (all of one name) under one header.
pub fn render(tables: &[RunTable<'_>]) -> Result<Vec<u8>, ReportError> {
    let mut columns: Vec<&str> = Vec::new();
    for (.., t) in tables {
        for c in &t.columns {
            if !columns.contains(&c.as_str()) {
                columns.push(c);
            }
        }
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(columns.iter().chain(&["workload", "scheme", "shards"]))?;
    for &(workload, scheme, shards, key_type, table) in tables {
        for row in &table.rows {
            let mut record: Vec<String> = columns
                .iter()
                .map(|c| {
                    table
                        .columns
                        .iter()
                        .position(|own| own == *c)
                        .and_then(|i| row.get(i))
                        .map_or_else(String::new, |cell| text(cell, key_type))
                })
                .collect();
            record.extend([workload.to_string(), scheme.to_string(), shards.to_string()]);
            w.write_record(&record)?;
        }
    }
    w.into_inner().map_err(|e| ReportError::Io {
        path: "<memory>".into(),
        source: e.into_error(),
    })
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

/// One table of the changing layouts: `<name>.csv`, written when a run has it. Each run is
/// written once (the results of one replay's growth targets share its run).
pub struct LayoutTableCsv {
    /// The file name.
    pub file: &'static str,
    /// The table's name (`timeline` is every layout's timeline).
    pub table: &'static str,
}

impl LayoutTableCsv {
    fn tables<'r>(&self, report: &'r RunReport) -> Vec<RunTable<'r>> {
        let mut seen: Vec<&std::sync::Arc<engine::changing::LayoutRun>> = Vec::new();
        let mut out = Vec::new();
        for w in &report.results {
            for run in &w.changing {
                if seen.iter().any(|r| std::sync::Arc::ptr_eq(r, run)) {
                    continue;
                }
                seen.push(run);
                let table = if self.table == "timeline" {
                    Some(&run.timeline)
                } else {
                    run.tables.iter().find(|t| t.name == self.table)
                };
                if let Some(t) = table {
                    out.push((
                        w.workload.as_str(),
                        run.label.as_str(),
                        run.nodes,
                        w.key_type,
                        t,
                    ));
                }
            }
        }
        out
    }
}

impl Exporter for LayoutTableCsv {
    fn file_name(&self) -> &'static str {
        self.file
    }
    fn render(&self, report: &RunReport) -> Result<Vec<u8>, ReportError> {
        render(&self.tables(report))
    }
    fn applies(&self, report: &RunReport) -> bool {
        !self.tables(report).is_empty()
    }
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
        let csv = render(&[("w", "range-dynamic", 4, KeyType::U64, &table)]).unwrap();
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
        let csv = render(&[
            ("w", "a", 2, KeyType::Bytes, &a),
            ("w", "b", 3, KeyType::Bytes, &b),
        ])
        .unwrap();
        assert_eq!(
            String::from_utf8(csv).unwrap(),
            "window,splits,moves,workload,scheme,shards\n0,2,,w,a,2\n0,,5,w,b,3\n"
        );
    }
}
