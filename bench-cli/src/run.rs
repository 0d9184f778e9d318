//! `shardlab run`: build the workloads and schemes, replay, print and export.

use std::io::Write;
use std::time::Instant;

use analysis::metrics::{confidence, LatencyConfig, WorkloadResult};
use analysis::replay::{replay_targets, ReplayConfig};
use analysis::schemes::SchemeSpec;
use anyhow::{bail, Context, Result};
use reports::manifest::now_utc;
use reports::{exporters, Manifest, RunReport};
use workloads::{KeyType, WorkloadSpec};

use crate::cli::RunArgs;
use crate::inputs::{input_checksums, workload_specs, Input, TraceInput};
use crate::progress::{phase_line, ReplayProgress};
use crate::sweep;
use crate::trace_source::PrefixProfile;

/// Runs `shardlab run`.
pub fn run(args: RunArgs, options_given: &[String]) -> Result<()> {
    if let Some(part) = args.part {
        return crate::run_part::run_part(&args, part);
    }
    let started = Instant::now();
    let started_utc = now_utc();
    let weights = args
        .weights
        .as_deref()
        .map(analysis::schemes::weights::parse)
        .transpose()
        .map_err(crate::usage::config_is_usage)?;
    let trace = TraceInput::open(&args.input, &args.read)?;
    let key_type = match &trace {
        Some(t) => t.key_type,
        None => KeyType::from_name(&args.read.key_type).unwrap_or_default(),
    };
    let schemes = args
        .schemes
        .checked(&args.shards.0, key_type, weights.as_deref())?;
    // Every combination of shard count and target, checked before any replay.
    let sweep = args
        .shards
        .0
        .iter()
        .map(|&n| Ok((n, sweep::targets(n, args.grow.as_ref())?)))
        .collect::<Result<Vec<_>>>()?;
    if let Some(t) = trace.as_ref().filter(|t| t.read_once()) {
        check_read_once(t, &sweep, &schemes)?;
    }
    let profile = trace.as_ref().map(|t| t.watch_profile(PROFILE_EVENTS));
    let mut inputs: Vec<Input> = trace.iter().map(Input::of_trace).collect();
    // Beside each input, its spec when `--repeat` replays it with other seeds.
    let mut repeatable: Vec<Option<WorkloadSpec>> = inputs.iter().map(|_| None).collect();
    for spec in workload_specs(&args.input, true)? {
        let description = spec.describe();
        repeatable.push((args.repeat > 1).then(|| spec.clone()));
        inputs.push(Input::of_spec(
            spec,
            description,
            args.input.seed,
            args.input.events,
        ));
    }
    let out = args.output.claim_staged("")?;
    // The trace's checksum is read beside the replay rather than after it (or tallied as it
    // is read, for a trace read once).
    let trace_checksum = trace.as_ref().map(TraceInput::spawn_checksum);

    let base = ReplayConfig {
        window: args.window,
        warmup_fraction: args.schemes.warmup,
        latency: (!args.no_latency).then(LatencyConfig::default),
        distinct_key_limit: args.distinct_limit as usize,
        fail: args.fail,
        weights: weights.clone(),
        ..ReplayConfig::default()
    };
    let pool = args.threads.pool()?;
    let progress = ReplayProgress::new(args.output.quiet);
    let mut results = Vec::with_capacity(inputs.len() * sweep.len());
    for ((input, spec), (n, targets)) in inputs
        .iter()
        .zip(&repeatable)
        .flat_map(|i| sweep.iter().map(move |s| (i, s)))
    {
        let targets: Vec<u32> = targets.iter().map(|&m| m.get()).collect();
        let cfg = ReplayConfig {
            shards: n.get(),
            target_shards: targets[0],
            ..base.clone()
        };
        let label = match sweep.len() {
            1 => input.label.clone(),
            _ => format!("{} on {n} shards", input.label),
        };
        let on_progress = progress.callback(&label);
        let replay = |input: &Input, cfg: &ReplayConfig| {
            pool.install(|| {
                replay_targets(&input.workload(), &schemes, cfg, &targets, &on_progress)
            })
            .with_context(|| format!("replaying workload '{}' on {n} shards", input.label))
        };
        let mut result = replay(input, &cfg)?;
        if let Some(spec) = spec {
            // The other seeds, without timing (their lookups would only cost time).
            let untimed = ReplayConfig {
                latency: None,
                ..cfg.clone()
            };
            let mut repeats: Vec<Vec<WorkloadResult>> = vec![Vec::new(); result.len()];
            for k in 1..u64::from(args.repeat) {
                let seed = args.input.seed.wrapping_add(k);
                let again = Input::of_spec(
                    spec.clone(),
                    input.description.clone(),
                    seed,
                    args.input.events,
                );
                for (per_target, r) in repeats.iter_mut().zip(replay(&again, &untimed)?) {
                    per_target.push(r);
                }
            }
            for (r, reps) in result.iter_mut().zip(&repeats) {
                confidence::apply_repeats(r, reps);
            }
        }
        results.extend(result);
    }

    let clock = progress.clock();
    clock.enter("report");
    let (replay_phases, _) = clock.ended();
    let manifest = Manifest {
        tool: "shardlab".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command_line: std::env::args().collect(),
        seed: args.input.seed,
        parameters: serde_json::json!({
            "run": &args,
            "options_given": options_given,
            "workloads": inputs.iter().map(|i| &i.label).collect::<Vec<_>>(),
            "workload_descriptions": inputs.iter().map(|i| (i.label.clone(), serde_json::Value::from(i.description.clone()))).collect::<serde_json::Map<_, _>>(),
            "machine": machine(),
            "schemes": schemes.iter().map(SchemeSpec::label).collect::<Vec<_>>(),
            "shards_and_targets": sweep,
            "trace_profile": trace.as_ref().zip(profile.as_ref()).map(profile_trace),
            "chunk_events": base.chunk_events,
            "warmup_rule": analysis::warmup::warmup_rule(args.schemes.warmup),
            "latency_sample_keys": base.latency_sample,
        }),
        inputs: input_checksums(&schemes, trace.as_ref().zip(trace_checksum))?,
        threads: pool.current_num_threads(),
        started_utc,
        duration_secs: started.elapsed().as_secs_f64(),
        phase_secs: replay_phases
            .into_iter()
            .map(|(name, secs)| (name.to_string(), secs))
            .collect(),
    };
    let report = RunReport { results, manifest };
    let spinner = progress.phase("report");
    // The directory is written whole under a temporary name, then renamed into place.
    let staging = out.path().to_path_buf();
    crate::interrupt::stage(&staging, || out.create())?;
    let mut written = out.write_all(&report, &exporters::all())?;
    written.extend(reports::report::render_into(&out).context("rendering the charts and report")?);
    let out_path = crate::interrupt::unstage(&staging, || out.commit())?;
    spinner.finish_and_clear();
    let (phases, replayed) = clock.finish();
    if !args.output.quiet {
        let mut stdout = std::io::stdout().lock();
        if let [single] = &report.results[..] {
            write!(stdout, "{}", reports::table::comparison_table(single))?;
        }
        write!(
            stdout,
            "{}",
            reports::table::decision_matrix(&report.results)
        )?;
        writeln!(stdout, "{}", phase_line(&phases, replayed))?;
        writeln!(
            stdout,
            "report: {} ({} files)",
            out_path.display(),
            written.len()
        )?;
    }
    Ok(())
}

/// Refuses, before anything is read, a run that would read a trace twice when it can be read
/// only once.
fn check_read_once(
    trace: &TraceInput,
    sweep: &[(analysis::ShardCount, Vec<analysis::ShardCount>)],
    schemes: &[SchemeSpec],
) -> Result<()> {
    let why = if sweep.len() > 1 {
        "a sweep over --shards replays the trace once per shard count".to_string()
    } else if let Some(s) = schemes.iter().find(|s| s.is_dynamic()) {
        format!(
            "the dynamic scheme '{}' replays the trace a second time",
            s.label()
        )
    } else {
        return Ok(());
    };
    bail!(crate::usage::usage(format!(
        "trace '{}' is read once (standard input, a FIFO or a process substitution), but {why}; \
         save it to a regular file first (e.g. zstdcat t.zst > t.csv) and pass that to --trace",
        trace.label
    )))
}

/// The machine the run measured on: cores, OS, architecture and CPU model (when known).
fn machine() -> serde_json::Value {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        });
    serde_json::json!({
        "cores": std::thread::available_parallelism().map_or(1, |n| n.get()),
        "os": std::env::consts::OS,
        "arch": std::env::consts::ARCH,
        "cpu": cpu,
    })
}

/// Events of the trace profiled for the report (a prefix, profiled as the replay reads it;
/// `shardlab inspect` profiles it all).
const PROFILE_EVENTS: usize = 2_000_000;

/// The `shardlab inspect` figures of the trace's first [`PROFILE_EVENTS`] events, for the
/// report's account of what was run; `profiled_events` says how many were read.
fn profile_trace(
    (trace, profile): (&TraceInput, &PrefixProfile),
) -> serde_json::Map<String, serde_json::Value> {
    let (profiler, read) = profile.take();
    let profile = profiler.finish(trace.format().time_unit_ns());
    let mut rows: serde_json::Map<String, serde_json::Value> = profile
        .rows()
        .into_iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| (k, serde_json::Value::from(v)))
        .collect();
    let note = if read < PROFILE_EVENTS {
        "the whole trace".to_string()
    } else {
        format!("the first {read} events (shardlab inspect reads all)")
    };
    rows.insert("profiled_events".into(), note.into());
    rows
}
