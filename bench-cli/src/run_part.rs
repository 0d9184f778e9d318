//! `shardlab run --part I/K`: reads only the part's share of a trace given as files (see
//! [`crate::part`]) and writes its partial result to `--out`.
//!
//! What is written today is the partial's header (`partial.json`): the part, the
//! configuration hash and, for each file of the share, its size, checksum and event count,
//! from which `merge` places every file's events in the whole trace. The metric state of the
//! part (the mergeable accumulators of the metric registry, issue 13) is not written yet, so
//! `merge` checks a set of parts but cannot combine their metrics.

use anyhow::{Context, Result};
use reports::manifest::InputFile;

use crate::cli::RunArgs;
use crate::part::{config_hash, share, PartFile, PartIndex, PartialHeader, HEADER_FILE};
use crate::usage::usage;

/// Runs part `part` of `args` (a run with a trace and `--out`).
pub fn run_part(args: &RunArgs, part: PartIndex) -> Result<()> {
    if args.input.trace.is_empty() || !args.input.workloads.is_empty() {
        return Err(usage(
            "--part cuts a trace given as files (--trace, repeatable or a glob); write a \
             synthetic workload to files with `shardlab gen` first",
        ));
    }
    if args.output.out.is_none() {
        return Err(usage(
            "--part needs --out DIR: the directory of this part's partial result",
        ));
    }
    let files = workloads::trace::files::expand(&args.input.trace).map_err(usage)?;
    let sizes = files
        .iter()
        .map(|f| {
            std::fs::metadata(f)
                .ok()
                .filter(std::fs::Metadata::is_file)
                .map(|m| m.len())
                .ok_or_else(|| {
                    usage(format!(
                        "trace file '{}' is not a readable regular file; the files of a run cut \
                         into parts must be",
                        f.display()
                    ))
                })
        })
        .collect::<Result<Vec<u64>>>()?;
    let mut read = Vec::new();
    for position in share(&sizes, part) {
        let path = &files[position];
        let opts = args.read.options(path, args.input.format).map_err(usage)?;
        let mut source = workloads::trace::open(&opts)?;
        let events =
            workloads::trace::stream(source.as_mut(), |_| Ok::<_, workloads::WorkloadError>(()))?;
        let sum = InputFile::checksum(path)
            .with_context(|| format!("cannot checksum input '{}'", path.display()))?;
        read.push(PartFile {
            path: path.display().to_string(),
            position,
            bytes: sum.bytes,
            xxh3_128: sum.xxh3_128,
            events,
        });
    }
    let header = PartialHeader {
        format_version: crate::part::PARTIAL_FORMAT_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").into(),
        config_hash: config_hash(&serde_json::to_value(args)?),
        part,
        trace_files: files.len(),
        files: read,
    };
    let out = args.output.claim("")?;
    let mut json = serde_json::to_vec_pretty(&header)?;
    json.push(b'\n');
    let path = out.write_file(HEADER_FILE, &json)?;
    if !args.output.quiet {
        println!(
            "part {part}: {} file(s), {} events; header: {}",
            header.files.len(),
            header.events(),
            path.display()
        );
    }
    Ok(())
}
