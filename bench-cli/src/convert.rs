//! `shardlab convert IN -o OUT --format F`: rewrite a trace in another format, every event
//! kept; what the output format cannot hold is an error naming the event (see
//! [`workloads::trace::write`]).

use anyhow::{Context, Result};
use workloads::trace::input::{extension, strip_compression};
use workloads::trace::{self, TraceFormat, TraceWriter, WriteOptions};

use crate::cli::ConvertArgs;
use crate::gen::claim_output;
use crate::inspect::report_skipped;
use crate::progress::events_bar;

/// Runs `shardlab convert`.
pub fn run(args: ConvertArgs) -> Result<()> {
    if args.out.extension().is_some_and(|e| e == "parquet") {
        return table_to_parquet(&args);
    }
    let format = match args.format {
        Some(f) => f,
        None => format_of_name(&args.out).ok_or_else(|| {
            crate::usage::usage(format!("cannot tell the output format from '{}'; pass --format csv, text or oracle-general", args.out.display()))
        })?,
    };
    let opts = args
        .read
        .options(&args.input, args.from)
        .map_err(crate::usage::usage)?;
    let shown = opts.shown();
    claim_output(&args.out, args.force)?;
    let mut opened = trace::open_detected(&opts)?;
    let write = WriteOptions {
        format,
        key_type: opened.key_type,
        hash_keys: args.hash_keys,
        time_unit_ns: opened.format.read_unit_ns(),
    };
    let mut writer = TraceWriter::create(&args.out, write)?;
    let bar = events_bar(
        args.quiet,
        shown.display().to_string(),
        opened.source.len_hint(),
    );
    trace::stream(opened.source.as_mut(), |chunk| {
        bar.inc(chunk.len() as u64);
        writer.write_chunk(chunk)
    })
    .with_context(|| {
        format!(
            "converting '{}' to '{}'",
            shown.display(),
            args.out.display()
        )
    })?;
    let summary = writer
        .finish()
        .with_context(|| format!("writing '{}'", args.out.display()))?;
    bar.finish_and_clear();
    report_skipped(&opts.invalid.log);
    if !args.quiet {
        eprintln!(
            "converted {} events: {} ({}) -> {} ({format})",
            summary.events,
            shown.display(),
            opened.format,
            args.out.display()
        );
        if summary.ops_dropped > 0 {
            eprintln!(
                "note: oracle-general has no operation field: {} puts and deletes are stored as plain \
                 requests (no replay metric depends on the kind of a point operation)",
                summary.ops_dropped
            );
        }
        if summary.keys_hashed > 0 {
            eprintln!(
                "note: {} keys were stored as their XXH3-64 hash (--hash-keys)",
                summary.keys_hashed
            );
        }
    }
    Ok(())
}

/// The writable format an output name asks for: `.csv`, `.txt`, or `.bin`/`oracleGeneral`.
fn format_of_name(path: &std::path::Path) -> Option<TraceFormat> {
    let name = strip_compression(path);
    let lower = name.to_string_lossy().to_ascii_lowercase();
    match extension(&name).as_deref() {
        _ if lower.contains("oraclegeneral") => Some(TraceFormat::OracleGeneral),
        Some("csv") => Some(TraceFormat::Csv),
        Some("txt") => Some(TraceFormat::Text),
        Some("bin") => Some(TraceFormat::OracleGeneral),
        _ => None,
    }
}

/// Rows buffered to choose the columns' Parquet types (one row group).
const TYPED_ROWS: usize = 1 << 16;

/// `convert TABLE.csv -o TABLE.parquet`: a multi-column CSV trace with a header (as `shardlab
/// keys` reads it) rewritten as Parquet, every cell kept: a column whose first 65,536 rows
/// hold only integers (written as Rust writes them) becomes INT64, any other a UTF8 string;
/// an empty cell is null. `keys` reads the Parquet file as the very same text cells.
fn table_to_parquet(args: &ConvertArgs) -> Result<()> {
    use workloads::table::parquet::{column_kinds, Cell, ColumnKind, ParquetTableWriter};
    if args.format.is_some() || args.hash_keys {
        return Err(crate::usage::usage(
            "a .parquet output is a multi-column table: --format and --hash-keys do not apply",
        ));
    }
    let input = &args.input;
    let read_error = |e: csv::Error| anyhow::anyhow!("cannot read '{}': {e}", input.display());
    let opened = workloads::trace::input::Input::open(input, input, None)?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(opened.reader);
    let header: Vec<String> = reader
        .headers()
        .map_err(read_error)?
        .iter()
        .map(str::to_string)
        .collect();
    claim_output(&args.out, args.force)?;
    let mut records = reader.records();
    let mut first: Vec<Vec<String>> = Vec::new();
    for record in records.by_ref().take(TYPED_ROWS) {
        first.push(
            record
                .map_err(read_error)?
                .iter()
                .map(str::to_string)
                .collect(),
        );
    }
    let kinds = column_kinds(header.len(), &first);
    let names: Vec<&str> = header.iter().map(String::as_str).collect();
    let write_error = |e: String| anyhow::anyhow!("cannot write '{}': {e}", args.out.display());
    let out = workloads::trace::OutputFile::create(&args.out)?;
    let mut table = ParquetTableWriter::new(out, &names, &kinds).map_err(write_error)?;
    let bar = events_bar(args.quiet, input.display().to_string(), None);
    let mut rows = 0u64;
    let mut push = |cells: &[&str], line: u64| -> Result<()> {
        let mut row = Vec::with_capacity(kinds.len());
        for (c, kind) in kinds.iter().enumerate() {
            let text = cells.get(c).copied().unwrap_or("");
            row.push(match (text.is_empty(), kind) {
                (true, _) => None,
                (false, ColumnKind::Text) => Some(Cell::Text(text)),
                (false, ColumnKind::Int) => match text.parse::<i64>() {
                    Ok(v) if v.to_string() == text => Some(Cell::Int(v)),
                    _ => anyhow::bail!(
                        "{}: line {line}: column '{}': '{text}' is not an integer, as the \
                         column's first {TYPED_ROWS} rows are (its Parquet type is INT64)",
                        input.display(),
                        header[c]
                    ),
                },
            });
        }
        table.push(&row).map_err(write_error)?;
        Ok(())
    };
    for (i, cells) in first.iter().enumerate() {
        let cells: Vec<&str> = cells.iter().map(String::as_str).collect();
        push(&cells, i as u64 + 2)?;
        rows += 1;
    }
    for record in records {
        let record = record.map_err(read_error)?;
        let cells: Vec<&str> = record.iter().collect();
        push(&cells, rows + 2)?;
        rows += 1;
        if rows.is_multiple_of(65_536) {
            bar.inc(65_536);
        }
    }
    table.finish().map_err(write_error)?.finish()?;
    bar.finish_and_clear();
    if !args.quiet {
        eprintln!(
            "converted {rows} rows of {} columns: {} -> {} (Parquet)",
            header.len(),
            input.display(),
            args.out.display()
        );
    }
    Ok(())
}
