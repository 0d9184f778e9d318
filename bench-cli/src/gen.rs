//! `shardlab gen WORKLOAD -o FILE`: record a synthetic workload to a trace, so that
//! `run --trace FILE` replays exactly what `run --workload WORKLOAD` does (same events, seed
//! and count: the defaults match `run`'s; a csv header declares the integer keys).

use anyhow::{Context, Result};
use workloads::output::{destination, staging_prefix, Destination};
use workloads::table::parquet::{ColumnKind, ParquetTableWriter};
use workloads::table::TableSpec;
use workloads::trace::OutputFile;
use workloads::trace::{self, input::is_stdio, TraceFormat, TraceWriter, WriteOptions};
use workloads::{KeyType, WorkloadSpec};

use crate::cli::GenArgs;
use crate::progress::events_bar;
use crate::usage::usage;

/// Runs `shardlab gen`.
pub fn run(args: GenArgs) -> Result<()> {
    if let Ok(spec) = workloads::Spec::parse(&args.workload) {
        if TableSpec::find(&spec).is_some() {
            return gen_table(&args);
        }
    }
    let spec = WorkloadSpec::parse(&args.workload)?;
    let format: TraceFormat = args.format.parse().map_err(anyhow::Error::msg)?;
    if format == TraceFormat::OracleGeneral && spec.common().scans > 0.0 {
        return Err(usage(format!(
            "'{}' has scans, which oracle-general records cannot hold (no end key); use --format csv",
            spec.label()
        )));
    }
    claim_output(&args.out, args.force)?;
    let mut source = spec.open(args.seed, args.events)?;
    let opts = WriteOptions {
        format,
        key_type: KeyType::U64,
        hash_keys: false,
        // Synthetic timestamps are in microseconds.
        time_unit_ns: 1_000,
    };
    let mut writer = TraceWriter::create(&args.out, opts)?;
    let bar = events_bar(args.quiet, spec.label(), Some(args.events));
    trace::stream(source.as_mut(), |chunk| {
        bar.inc(chunk.len() as u64);
        writer.write_chunk(chunk)
    })
    .with_context(|| format!("writing '{}'", args.out.display()))?;
    let summary = writer
        .finish()
        .with_context(|| format!("writing '{}'", args.out.display()))?;
    bar.finish_and_clear();
    if !args.quiet && !is_stdio(&args.out) {
        eprintln!(
            "wrote {} events of {} to {}",
            summary.events,
            spec.label(),
            args.out.display()
        );
        if summary.ops_dropped > 0 {
            eprintln!(
                "note: oracle-general has no operation field: {} puts are stored as plain requests \
                 (no replay metric depends on the kind of a point operation)",
                summary.ops_dropped
            );
        }
        if std::fs::metadata(&args.out).is_ok_and(|m| m.is_file()) {
            eprintln!("replay with: shardlab run --trace {}", args.out.display());
        }
    }
    Ok(())
}

/// Writes `--events` rows of a multi-column workload ([`workloads::table`]) as a CSV trace
/// with a header, or as Parquet when the name ends in `.parquet`, for `shardlab keys` (a
/// transaction cut by the last row keeps its first rows).
fn gen_table(args: &GenArgs) -> Result<()> {
    let spec = TableSpec::parse(&args.workload).map_err(usage)?;
    if args.format != "csv" {
        return Err(usage(format!(
            "'{}' is a multi-column workload, written as csv only (its rows have several key \
             columns), or as Parquet when the output ends in .parquet; drop --format",
            spec.label()
        )));
    }
    claim_output(&args.out, args.force)?;
    let mut model = spec.open(args.seed).map_err(usage)?;
    let parquet = args.out.extension().is_some_and(|e| e == "parquet");
    let write_error = |e: String| anyhow::anyhow!("cannot write '{}': {e}", args.out.display());
    let file = OutputFile::create(&args.out)?;
    let mut out = match parquet {
        true => TableOut::Parquet(
            ParquetTableWriter::new(file, spec.columns(), &table_kinds(spec.columns()))
                .map_err(write_error)?,
        ),
        false => TableOut::Csv(file, spec.columns().join(",") + "\n"),
    };
    let bar = events_bar(args.quiet, spec.label(), Some(args.events));
    let (mut written, mut rows) = (0u64, Vec::new());
    while written < args.events {
        rows.clear();
        model.next_rows(&mut rows);
        let before = written;
        for row in rows.iter().take((args.events - written) as usize) {
            match &mut out {
                TableOut::Parquet(table) => table.push_row(row).map_err(write_error)?,
                TableOut::Csv(_, text) => push_csv_row(text, row),
            }
            written += 1;
        }
        if let TableOut::Csv(file, text) = &mut out {
            std::io::Write::write_all(file, text.as_bytes())
                .map_err(|e| write_error(e.to_string()))?;
            text.clear();
        }
        bar.inc(written - before);
    }
    match out {
        TableOut::Parquet(table) => table.finish().map_err(write_error)?.finish()?,
        TableOut::Csv(file, _) => file.finish()?,
    }
    bar.finish_and_clear();
    if !args.quiet && !is_stdio(&args.out) {
        eprintln!(
            "wrote {written} rows of {} to {}",
            spec.label(),
            args.out.display()
        );
        eprintln!(
            "choose a shard key with: shardlab keys --trace {} --txn-col txn --candidates \
             'tenant; tenant,user; user; hashed(order); ts'",
            args.out.display()
        );
    }
    Ok(())
}

/// The kinds of a multi-column workload's columns: `op` text, the others integers.
fn table_kinds(columns: &[&str]) -> Vec<ColumnKind> {
    let mut kinds = vec![ColumnKind::Int; columns.len()];
    kinds[0] = ColumnKind::Text;
    kinds
}

/// Appends `row` to `text` as a CSV line.
fn push_csv_row(text: &mut String, row: &workloads::table::Row) {
    text.push_str(row.op);
    for cell in &row.cells {
        text.push(',');
        if let Some(v) = cell {
            text.push_str(&v.to_string());
        }
    }
    text.push('\n');
}

/// Where the rows of a multi-column workload go (one per command: its size does not matter).
#[allow(clippy::large_enum_variant)]
enum TableOut {
    /// CSV text: the file and the lines not written yet.
    Csv(OutputFile, String),
    /// Parquet row groups.
    Parquet(ParquetTableWriter<OutputFile>),
}

/// Claims the output trace `path`: an existing regular file is refused unless `force` (a
/// FIFO, device or standard output is written in place and needs no `--force`), and staged
/// files of this process are registered for removal on an interruption.
pub fn claim_output(path: &std::path::Path, force: bool) -> Result<()> {
    let dest = destination(path).map_err(|e| {
        anyhow::Error::new(workloads::WorkloadError::Write {
            path: path.to_path_buf(),
            source: e,
        })
    })?;
    if !force && matches!(dest, Destination::Replace(_)) && path.exists() {
        return Err(usage(format!(
            "'{}' exists; pass --force to replace it",
            path.display()
        )));
    }
    crate::interrupt::stage_prefixed(&dest.staging_dir(), &staging_prefix());
    Ok(())
}
