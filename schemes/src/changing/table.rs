//! A changing layout's tables: named columns and rows of typed cells, written as CSV by the
//! reports (numbers as in `summary.csv`, keys in the workload's key type).

use serde::{Deserialize, Serialize};

/// One value of a table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Cell {
    /// A count.
    Count(u64),
    /// A number; `None` when undefined (an empty field).
    Number(Option<f64>),
    /// A yes/no (`true`/`false`).
    Flag(bool),
    /// A name or a label.
    Text(String),
    /// A key, shown in the workload's key type; `None` or the empty key is an empty field.
    Key(Option<Vec<u8>>),
}

/// A table of a changing layout: `name.csv` in the run's directory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// The file's stem (`splits` for `splits.csv`).
    pub name: String,
    /// The column names, in order.
    pub columns: Vec<String>,
    /// The rows, each with one cell per column.
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// The table `name` with `columns` and `rows`.
    pub fn new(name: &str, columns: &[&str], rows: Vec<Vec<Cell>>) -> Table {
        Table {
            name: name.to_string(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows,
        }
    }
}
