//! Multi-column traces as Parquet files (the `parquet` crate of arrow-rs): read row group by
//! row group as text cells ([`ParquetRows`]), so that a Parquet trace is read exactly as the
//! same trace in CSV; written by `shardlab gen` for a multi-column workload and by `shardlab
//! convert` for a CSV table ([`ParquetTableWriter`]).
//!
//! Columns must be flat (no groups or lists) of integer types (INT32, INT64, with or without
//! a logical integer, timestamp or date type: their stored number) or of strings (BYTE_ARRAY
//! with the UTF8/String logical type). A null is an empty cell. Any other type is a data
//! error naming the column.

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;

use parquet::basic::{ConvertedType, LogicalType, Repetition, Type as PhysicalType};
use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::record::reader::RowIter;
use parquet::record::Field;
use parquet::schema::types::Type as SchemaType;

use super::kind::Row;

/// The first bytes of every Parquet file.
const MAGIC: &[u8; 4] = b"PAR1";

/// Rows written per row group.
const ROW_GROUP_ROWS: usize = 1 << 16;

/// True when the file at `path` starts like a Parquet file.
pub fn is_parquet(path: &Path) -> bool {
    let mut head = [0u8; 4];
    File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == MAGIC)
}

/// The rows of a Parquet file, as text cells in its columns' order.
pub struct ParquetRows {
    columns: Vec<String>,
    rows: RowIter<'static>,
}

impl ParquetRows {
    /// Opens `path` and checks its columns' types; errors are messages naming the column.
    pub fn open(path: &Path) -> Result<ParquetRows, String> {
        let file = File::open(path).map_err(|e| format!("cannot open: {e}"))?;
        let reader = SerializedFileReader::new(file).map_err(|e| format!("not Parquet: {e}"))?;
        let schema = reader.metadata().file_metadata().schema_descr_ptr();
        let mut columns = Vec::new();
        for col in schema.columns() {
            let name = col.path().string();
            let text = col.physical_type() == PhysicalType::BYTE_ARRAY
                && (matches!(col.logical_type_ref(), Some(LogicalType::String))
                    || col.converted_type() == ConvertedType::UTF8);
            let integer = matches!(
                col.physical_type(),
                PhysicalType::INT32 | PhysicalType::INT64
            ) && !matches!(col.logical_type_ref(), Some(LogicalType::Decimal { .. }))
                && col.converted_type() != ConvertedType::DECIMAL;
            if col.max_rep_level() > 0 || col.path().parts().len() > 1 {
                return Err(format!(
                    "column '{name}' is nested (a list or group); shardlab reads flat columns"
                ));
            }
            if !(text || integer) {
                return Err(format!(
                    "column '{name}' is of type {} ({:?}); shardlab reads integer (INT32, \
                     INT64) and string (UTF8) columns",
                    col.physical_type(),
                    col.logical_type_ref()
                ));
            }
            columns.push(name);
        }
        let rows = RowIter::from_file_into(Box::new(reader));
        Ok(ParquetRows { columns, rows })
    }

    /// The column names, in order (the header).
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// Reads the next row's cells into `cells` (one per column); false at the end.
    pub fn next_row(&mut self, cells: &mut Vec<String>) -> Result<bool, String> {
        let Some(row) = self.rows.next() else {
            return Ok(false);
        };
        let row = row.map_err(|e| format!("cannot read a row: {e}"))?;
        cells.clear();
        for (name, field) in row.get_column_iter() {
            cells.push(match field {
                Field::Null => String::new(),
                Field::Str(s) => s.clone(),
                Field::Byte(v) => v.to_string(),
                Field::Short(v) => v.to_string(),
                Field::Int(v) => v.to_string(),
                Field::Long(v) => v.to_string(),
                Field::UByte(v) => v.to_string(),
                Field::UShort(v) => v.to_string(),
                Field::UInt(v) => v.to_string(),
                Field::ULong(v) => v.to_string(),
                Field::Date(v) => v.to_string(),
                Field::TimestampMillis(v) | Field::TimestampMicros(v) => v.to_string(),
                other => {
                    return Err(format!(
                        "column '{name}': the value {other} is not an integer or a string"
                    ))
                }
            });
        }
        if cells.len() != self.columns.len() {
            return Err(format!(
                "a row holds {} cells for {} columns",
                cells.len(),
                self.columns.len()
            ));
        }
        Ok(true)
    }
}

/// The type a column is written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnKind {
    /// An optional INT64.
    Int,
    /// An optional UTF8 string.
    Text,
}

/// One cell of a row being written; `None` in a row is null.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell<'a> {
    /// An integer (for an [`ColumnKind::Int`] column).
    Int(i64),
    /// A string (for a [`ColumnKind::Text`] column).
    Text(&'a str),
}

/// The cells of one column buffered for the row group being written.
enum Column {
    Int(Vec<i64>, Vec<i16>),
    Text(Vec<ByteArray>, Vec<i16>),
}

/// Writes rows as Parquet: every column optional (a `None` cell is null), of the kinds
/// given; zstd-compressed row groups of 65,536 rows.
pub struct ParquetTableWriter<W: Write + Send> {
    writer: SerializedFileWriter<W>,
    columns: Vec<Column>,
    rows: usize,
}

impl<W: Write + Send> ParquetTableWriter<W> {
    /// Starts writing the columns `names` of `kinds` to `out`.
    pub fn new(out: W, names: &[&str], kinds: &[ColumnKind]) -> Result<Self, String> {
        // Built field by field (not parsed from a message text), so that any header name is
        // a column name.
        let fields = names
            .iter()
            .zip(kinds)
            .map(|(name, kind)| {
                let field = match kind {
                    ColumnKind::Int => {
                        SchemaType::primitive_type_builder(name, PhysicalType::INT64)
                    }
                    ColumnKind::Text => {
                        SchemaType::primitive_type_builder(name, PhysicalType::BYTE_ARRAY)
                            .with_converted_type(ConvertedType::UTF8)
                    }
                };
                field
                    .with_repetition(Repetition::OPTIONAL)
                    .build()
                    .map(Arc::new)
                    .map_err(|e| format!("column '{name}': {e}"))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let schema = Arc::new(
            SchemaType::group_type_builder("rows")
                .with_fields(fields)
                .build()
                .map_err(|e| e.to_string())?,
        );
        let props = WriterProperties::builder()
            .set_compression(parquet::basic::Compression::ZSTD(Default::default()))
            .build();
        let writer =
            SerializedFileWriter::new(out, schema, Arc::new(props)).map_err(|e| e.to_string())?;
        let columns = kinds
            .iter()
            .map(|k| match k {
                ColumnKind::Int => Column::Int(Vec::new(), Vec::new()),
                ColumnKind::Text => Column::Text(Vec::new(), Vec::new()),
            })
            .collect();
        Ok(ParquetTableWriter {
            writer,
            columns,
            rows: 0,
        })
    }

    /// Adds a row of one cell per column (of its column's kind), writing a row group when one
    /// is full.
    pub fn push(&mut self, cells: &[Option<Cell<'_>>]) -> Result<(), String> {
        if cells.len() != self.columns.len() {
            return Err(format!(
                "{} cells for {} columns",
                cells.len(),
                self.columns.len()
            ));
        }
        for (column, cell) in self.columns.iter_mut().zip(cells) {
            match (column, cell) {
                (Column::Int(values, defs), Some(Cell::Int(v))) => {
                    values.push(*v);
                    defs.push(1);
                }
                (Column::Text(values, defs), Some(Cell::Text(t))) => {
                    values.push(ByteArray::from(*t));
                    defs.push(1);
                }
                (Column::Int(_, defs) | Column::Text(_, defs), None) => defs.push(0),
                _ => return Err("a cell of another kind than its column".into()),
            }
        }
        self.rows += 1;
        if self.rows >= ROW_GROUP_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    /// Adds a row of a multi-column workload: `op`, then its integer cells.
    pub fn push_row(&mut self, row: &Row) -> Result<(), String> {
        let mut cells = Vec::with_capacity(row.cells.len() + 1);
        cells.push(Some(Cell::Text(row.op)));
        for cell in &row.cells {
            let v = cell.map(|v| i64::try_from(v).map_err(|_| format!("{v} is past i64")));
            cells.push(v.transpose()?.map(Cell::Int));
        }
        self.push(&cells)
    }

    /// Writes the rows pushed so far as one row group.
    fn flush(&mut self) -> Result<(), String> {
        if self.rows == 0 {
            return Ok(());
        }
        let e = |e: parquet::errors::ParquetError| e.to_string();
        let mut group = self.writer.next_row_group().map_err(e)?;
        for column in &mut self.columns {
            let mut w = group.next_column().map_err(e)?.ok_or("too few columns")?;
            match column {
                Column::Int(values, defs) => {
                    w.typed::<Int64Type>()
                        .write_batch(values, Some(defs), None)
                        .map_err(e)?;
                    values.clear();
                    defs.clear();
                }
                Column::Text(values, defs) => {
                    w.typed::<ByteArrayType>()
                        .write_batch(values, Some(defs), None)
                        .map_err(e)?;
                    values.clear();
                    defs.clear();
                }
            }
            w.close().map_err(e)?;
        }
        group.close().map_err(e)?;
        self.rows = 0;
        Ok(())
    }

    /// Writes the last row group and the footer, and hands back the output.
    pub fn finish(mut self) -> Result<W, String> {
        self.flush()?;
        self.writer.into_inner().map_err(|e| e.to_string())
    }
}

/// The kind each column of a CSV table is written as: integers when every non-empty cell of
/// `rows` (the first rows) is a signed 64-bit integer written as Rust writes it (so it reads
/// back as the same text), text otherwise.
pub fn column_kinds(columns: usize, rows: &[Vec<String>]) -> Vec<ColumnKind> {
    (0..columns)
        .map(|c| {
            let integer = rows
                .iter()
                .filter_map(|r| r.get(c))
                .filter(|t| !t.is_empty())
                .all(|t| t.parse::<i64>().is_ok_and(|v| v.to_string() == *t));
            if integer && rows.iter().any(|r| r.get(c).is_some_and(|t| !t.is_empty())) {
                ColumnKind::Int
            } else {
                ColumnKind::Text
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_written_read_back_as_the_text_cells_of_the_same_csv() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let rows = [
            Row {
                op: "put",
                cells: vec![Some(1), None, Some(u64::from(u32::MAX) + 7)],
            },
            Row {
                op: "get",
                cells: vec![None, Some(0), None],
            },
        ];
        let kinds = [
            ColumnKind::Text,
            ColumnKind::Int,
            ColumnKind::Int,
            ColumnKind::Int,
        ];
        let file = File::create(&path).unwrap();
        let mut w = ParquetTableWriter::new(file, &["op", "a", "b", "c"], &kinds).unwrap();
        for r in &rows {
            w.push_row(r).unwrap();
        }
        w.finish().unwrap();
        assert!(is_parquet(&path));
        let mut read = ParquetRows::open(&path).unwrap();
        assert_eq!(read.columns(), ["op", "a", "b", "c"]);
        let mut cells = Vec::new();
        let mut all = Vec::new();
        while read.next_row(&mut cells).unwrap() {
            all.push(cells.join(","));
        }
        assert_eq!(all, ["put,1,,4294967302", "get,,0,"]);
    }
}

#[cfg(test)]
mod kinds {
    use super::*;

    #[test]
    fn integers_that_read_back_as_written_are_int64_and_the_rest_text() {
        let rows: Vec<Vec<String>> = [["1", "007", "a", ""], ["-5", "3", "", ""]]
            .iter()
            .map(|r| r.iter().map(|c| c.to_string()).collect())
            .collect();
        assert_eq!(
            column_kinds(4, &rows),
            [
                ColumnKind::Int,
                ColumnKind::Text,
                ColumnKind::Text,
                ColumnKind::Text
            ]
        );
    }
}
