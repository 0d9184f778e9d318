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
