//! `twitter`: the Twitter production cache traces (twitter/cache-trace), headerless CSV
//! `timestamp,anonymized_key,key_size,value_size,client_id,operation,ttl` with the timestamp
//! in seconds.
//!
//! It is the generic CSV reader with the columns fixed: key column 2, op column 6 (get and gets
//! are gets; set, add, replace, cas, append, prepend, incr and decr are puts; delete is a
//! delete), timestamp column 1, value size column 4.

use super::csv::{Column, CsvColumns};

/// The column mapping of the Twitter format.
pub fn columns() -> CsvColumns {
    CsvColumns {
        key: Some(Column::Index(2)),
        op: Some(Column::Index(6)),
        time: Some(Column::Index(1)),
        size: Some(Column::Index(4)),
        end: None,
    }
}

/// The operation names of the format.
pub const OPS: [&str; 11] = [
    "get", "gets", "set", "add", "replace", "cas", "append", "prepend", "delete", "incr", "decr",
];
