//! Multi-column traces as Parquet files (the `parquet` crate of arrow-rs): read row group by
//! row group as text cells ([`ParquetRows`]), so that a Parquet trace is read exactly as the
//! same trace in CSV; written by `shardlab gen` for a multi-column workload
//! ([`ParquetTableWriter`]).
//!
//! Columns must be flat (no groups or lists) of integer types (INT32, INT64, with or without
//! a logical integer, timestamp or date type: their stored number) or of strings (BYTE_ARRAY
//! with the UTF8/String logical type). A null is an empty cell. Any other type is a data
//! error naming the column.

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;

use parquet::basic::{ConvertedType, LogicalType, Type as PhysicalType};
use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::record::reader::RowIter;
use parquet::record::Field;
use parquet::schema::parser::parse_message_type;

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

/// Writes the rows of a multi-column workload as Parquet: `op` a required string, every data
/// column an optional INT64 (a `None` cell is null); zstd-compressed row groups of 65,536 rows.
pub struct ParquetTableWriter<W: Write + Send> {
    writer: SerializedFileWriter<W>,
    ops: Vec<ByteArray>,
    cells: Vec<Vec<Option<u64>>>,
}

impl<W: Write + Send> ParquetTableWriter<W> {
    /// Starts writing the columns `columns` (`op` first) to `out`.
    pub fn new(out: W, columns: &[&str]) -> Result<Self, String> {
        let mut schema = String::from("message rows {\n  required binary op (UTF8);\n");
        for c in &columns[1..] {
            schema.push_str(&format!("  optional int64 {c};\n"));
        }
        schema.push('}');
        let schema = Arc::new(parse_message_type(&schema).map_err(|e| e.to_string())?);
        let props = WriterProperties::builder()
            .set_compression(parquet::basic::Compression::ZSTD(Default::default()))
            .build();
        let writer =
            SerializedFileWriter::new(out, schema, Arc::new(props)).map_err(|e| e.to_string())?;
        Ok(ParquetTableWriter {
            writer,
            ops: Vec::new(),
            cells: vec![Vec::new(); columns.len() - 1],
        })
    }

    /// Adds `row`, writing a row group when one is full.
    pub fn push(&mut self, row: &Row) -> Result<(), String> {
        self.ops.push(ByteArray::from(row.op));
        for (column, cell) in self.cells.iter_mut().zip(&row.cells) {
            column.push(*cell);
        }
        if self.ops.len() >= ROW_GROUP_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes the rows pushed so far as one row group.
    fn flush(&mut self) -> Result<(), String> {
        if self.ops.is_empty() {
            return Ok(());
        }
        let e = |e: parquet::errors::ParquetError| e.to_string();
        let mut group = self.writer.next_row_group().map_err(e)?;
        let mut op = group.next_column().map_err(e)?.ok_or("no op column")?;
        op.typed::<ByteArrayType>()
            .write_batch(&self.ops, None, None)
            .map_err(e)?;
        op.close().map_err(e)?;
        for column in &self.cells {
            let values: Vec<i64> = column.iter().flatten().map(|&v| v as i64).collect();
            let defs: Vec<i16> = column.iter().map(|c| i16::from(c.is_some())).collect();
            let mut w = group.next_column().map_err(e)?.ok_or("too few columns")?;
            w.typed::<Int64Type>()
                .write_batch(&values, Some(&defs), None)
                .map_err(e)?;
            w.close().map_err(e)?;
        }
        group.close().map_err(e)?;
        self.ops.clear();
        self.cells.iter_mut().for_each(Vec::clear);
        Ok(())
    }

    /// Writes the last row group and the footer, and hands back the output.
    pub fn finish(mut self) -> Result<W, String> {
        self.flush()?;
        self.writer.into_inner().map_err(|e| e.to_string())
    }
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
        let mut w =
            ParquetTableWriter::new(File::create(&path).unwrap(), &["op", "a", "b", "c"]).unwrap();
        for r in &rows {
            w.push(r).unwrap();
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
