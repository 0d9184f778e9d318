//! `shardlab merge PART_DIR... --out DIR`: step 3 of a run cut into parts (see
//! [`engine::part`]): checks that the replayed parts are the parts of one run, each once,
//! adds their accumulators' states up and finishes them into the ordinary run directory.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{CommandFactory, FromArgMatches};
use std::sync::Arc;

use engine::changing::{LayoutRun, LayoutRunState};
use engine::replay::{build_fixed, finish_parts, Partial, PartialState, Warmup, WorkloadInput};
use rayon::prelude::*;
use reports::manifest::{now_utc, InputFile};
use workloads::{EventSource, WorkloadError};

use crate::cli::{MergeArgs, RunArgs};
use crate::command::{Cli, Command};
use crate::progress::ReplayProgress;
use crate::run::{publish, replay_config, run_parameters, RunRecord, RunSetup};
use engine::part::{
    check_set, expand_dirs, layouts_file, read_binary, state_file, PartialHeader, Stage,
    WARMUP_FILE,
};

/// Runs `shardlab merge`.
pub fn merge(args: &MergeArgs) -> Result<()> {
    let started = Instant::now();
    let started_utc = now_utc();
    let headers = expand_dirs(&args.parts)?
        .into_iter()
        .map(|dir| Ok((dir.clone(), PartialHeader::read(&dir)?)))
        .collect::<Result<Vec<_>>>()?;
    let parts = check_set(headers, Stage::Replayed)?;
    let (first_dir, first) = &parts[0];
    let (run_args, options_given) = run_options(first)?;
    let key_type = crate::run_part::trace_key_type(first)?;
    let setup = RunSetup::new(&run_args, key_type, crate::run_part::trace_unit_ns(first))?;
    let warmup: Warmup = read_binary(first_dir, first, WARMUP_FILE)?;
    let formats: Vec<&str> = parts
        .iter()
        .flat_map(|(_, h)| h.files.iter().map(|f| f.format.as_str()))
        .collect();
    let description = crate::inputs::trace_description(&first.label, &formats);
    let no_stream = || -> Result<Box<dyn EventSource>, WorkloadError> {
        Err(WorkloadError::Trace {
            path: PathBuf::from(&first.label),
            message: "a merged run does not read its trace again".into(),
        })
    };
    let input = WorkloadInput {
        label: first.label.clone(),
        description: description.clone(),
        key_type,
        open: &no_stream,
        watch: None,
    };
    let out = reports::output::OutputDir::claim_staged(&args.out, args.force)?;
    let progress = ReplayProgress::new(args.quiet);
    let on_progress = progress.callback(&first.label);
    let mut results = Vec::new();
    for (index, (n, targets)) in setup.sweep.iter().enumerate() {
        let (cfg, targets) = replay_config(&setup.base, *n, targets);
        let spinner = progress.phase("merge");
        let built = build_fixed(&setup.schemes, &cfg, &warmup, key_type)?;
        // The states are read a few at a time in parallel (memory holds one per thread beside
        // the sum) and added up in part order (the same sum on any thread count), each one's
        // key tables added into the sum's, part by part in parallel, without being rebuilt.
        let mut merged: Option<Partial> = None;
        let window = cfg.window.max(1);
        for batch in parts.chunks(rayon::current_num_threads().max(1)) {
            let states = batch
                .par_iter()
                .map(|(dir, h)| Ok((dir, read_binary(dir, h, &state_file(index))?)))
                .collect::<Result<Vec<(&PathBuf, PartialState)>>>()?;
            for (dir, state) in states {
                merged = Some(
                    match merged {
                        None => Partial::from_state(&built.parts, window, state),
                        Some(m) => m.merge_state(&built.parts, window, state),
                    }
                    .with_context(|| format!("'{}' does not fit this run", dir.display()))?,
                );
            }
        }
        let merged = merged.context("no part to merge")?;
        let layouts = changing_runs(first_dir, first, &setup.schemes, index)?;
        spinner.finish_and_clear();
        results.extend(
            finish_parts(
                &input,
                &setup.schemes,
                &built,
                (&cfg, &targets),
                warmup.events,
                merged,
                layouts,
                &on_progress,
            )
            .with_context(|| format!("finishing the merged parts on {n} shards"))?,
        );
    }
    let mut parameters = run_parameters(
        &run_args,
        &options_given,
        &[(first.label.clone(), description)],
        &setup.schemes,
        &setup.sweep,
        &setup.base,
    );
    parameters["merged_parts"] = serde_json::json!(parts
        .iter()
        .map(|(dir, h)| serde_json::json!({
            "part": h.part.to_string(),
            "dir": dir.display().to_string(),
            "events": h.events(),
            "command_line": h.command_line,
        }))
        .collect::<Vec<_>>());
    let record = RunRecord {
        seed: run_args.input.seed,
        parameters,
        files: Vec::new(),
        inputs: parts
            .iter()
            .flat_map(|(_, h)| &h.files)
            .map(|f| InputFile {
                path: f.path.clone(),
                bytes: f.bytes,
                xxh3_128: f.xxh3_128.clone(),
                format: Some(f.format.clone()),
                invalid_records_skipped: f.invalid_records_skipped,
            })
            .collect(),
        threads: rayon::current_num_threads(),
        started: (started_utc, started),
    };
    publish(out, results, record, &progress, args.quiet)
}

/// The runs of the changing layouts of `schemes` for the `index`th shard count, which part 0
/// (`dir`, `header`) replayed over the whole trace; none without changing layouts.
fn changing_runs(
    dir: &std::path::Path,
    header: &PartialHeader,
    schemes: &[schemes::SchemeSpec],
    index: usize,
) -> Result<Vec<Arc<LayoutRun>>> {
    let changing: Vec<&schemes::SchemeSpec> = schemes.iter().filter(|s| s.is_changing()).collect();
    if changing.is_empty() {
        return Ok(Vec::new());
    }
    let name = layouts_file(index);
    let states: Vec<LayoutRunState> = read_binary(dir, header, &name)?;
    if states.len() != changing.len() {
        bail!(
            "'{}' holds {} changing layout run(s) where the run has {}; {}",
            dir.join(&name).display(),
            states.len(),
            changing.len(),
            header.rerun()
        );
    }
    states
        .into_iter()
        .zip(changing)
        .map(|(state, spec)| {
            LayoutRun::restore(state, spec)
                .map(Arc::new)
                .with_context(|| format!("'{}' does not fit this run", dir.join(&name).display()))
        })
        .collect()
}

/// The `run` options of the parts (every part ran with the same, as their configuration
/// hashes say), read back from part 0's command line, with the options given on it.
fn run_options(first: &PartialHeader) -> Result<(RunArgs, Vec<String>)> {
    let matches = Cli::command()
        .try_get_matches_from(&first.command_line)
        .context("cannot read the run options back from part 0's command line")?;
    let given = crate::cli::options_given(&matches);
    let Command::Run(mut args) = Cli::from_arg_matches(&matches)?.command else {
        bail!("part 0 was not written by `shardlab run --part`");
    };
    args.part = None;
    args.counts.clear();
    args.output.out = None;
    Ok((args, given))
}
