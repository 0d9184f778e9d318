//! `shardlab run`: build the workloads and schemes, replay, print and export.

use std::io::Write;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use engine::metrics::{confidence, LatencyConfig, WorkloadResult};
use engine::replay::{replay_targets, ReplayConfig, StreamWatch, WorkloadInput};
use reports::data::RunData;
use reports::manifest::now_utc;
use reports::{exporters, Manifest};
use schemes::SchemeSpec;
use schemes::ShardCount;
use workloads::{KeyType, WorkloadSpec};

use crate::cli::RunArgs;
use crate::inputs::{input_checksums, workload_specs, Input, TraceInput};
use crate::progress::{phase_line, ReplayProgress};
use crate::sweep;
use crate::trace_source::PrefixProfile;

/// Runs `shardlab run`.
pub fn run(
    args: RunArgs,
    options_given: &[String],
    config: Option<crate::config::ConfigFile>,
) -> Result<()> {
    let started = Instant::now();
    let started_utc = now_utc();
    if args.repeat > 1 && !args.input.trace.is_empty() {
        bail!(crate::usage::usage(format!(
            "--repeat {} replays synthetic workloads with other seeds, but a trace is one recording              that cannot be drawn again; drop --repeat (a trace's intervals come from the block              bootstrap over its windows and the placement spread)",
            args.repeat
        )));
    }
    let trace = TraceInput::open(&args.input, &args.read)?;
    let key_type = crate::inputs::key_type(trace.as_ref(), &args.read);
    let RunSetup {
        schemes,
        sweep,
        base,
    } = RunSetup::new(
        &args,
        key_type,
        trace.as_ref().and_then(|t| t.format().time_unit_ns()),
    )?;
    if let Some(t) = trace.as_ref().filter(|t| t.read_once()) {
        check_read_once(t, &sweep)?;
    }
    let profile = trace
        .as_ref()
        .map(|t| PrefixProfile::new(PROFILE_EVENTS, t.key_type, t.format().time_unit_ns()));
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

    let pool = args.threads.pool()?;
    let progress = ReplayProgress::new(args.output.quiet);
    let mut results = Vec::with_capacity(inputs.len() * sweep.len());
    for (pass, ((input, spec), (n, targets))) in inputs
        .iter()
        .zip(&repeatable)
        .flat_map(|i| sweep.iter().map(move |s| (i, s)))
        .enumerate()
    {
        let (cfg, targets) = replay_config(&base, *n, targets);
        let label = sweep_label(&input.label, *n, sweep.len());
        let on_progress = progress.callback(&label);
        // The trace (the first input) is profiled on its first pass.
        let watch = profile
            .as_ref()
            .filter(|_| pass == 0)
            .map(|p| p as &dyn StreamWatch);
        let replay = |input: &Input, cfg: &ReplayConfig, watch| {
            let workload = WorkloadInput {
                watch,
                ..input.workload()
            };
            pool.install(|| replay_targets(&workload, &schemes, cfg, &targets, &on_progress))
                .with_context(|| format!("replaying workload '{}' on {n} shards", input.label))
        };
        let mut result = replay(input, &cfg, watch)?;
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
                for (per_target, r) in repeats.iter_mut().zip(replay(&again, &untimed, None)?) {
                    per_target.push(r);
                }
            }
            for (r, reps) in result.iter_mut().zip(&repeats) {
                confidence::apply_repeats(r, reps);
            }
        }
        results.extend(result);
    }

    let workloads: Vec<(String, String)> = inputs
        .iter()
        .map(|i| (i.label.clone(), i.description.clone()))
        .collect();
    let mut parameters = run_parameters(&args, options_given, &workloads, &schemes, &sweep, &base);
    parameters["trace_profile"] = serde_json::json!(profile.map(profile_trace));
    let mut inputs = input_checksums(&schemes, trace.as_ref().zip(trace_checksum))?;
    let mut files = Vec::new();
    if let Some(config) = config {
        let mut file = reports::manifest::InputFile::of_bytes(&config.path, &config.bytes);
        file.format = Some("config".into());
        inputs.push(file);
        files.push((CONFIG_COPY.to_string(), config.bytes));
    }
    let record = RunRecord {
        seed: args.input.seed,
        parameters,
        inputs,
        files,
        threads: pool.current_num_threads(),
        started: (started_utc, started),
    };
    let conditions = args
        .scenario
        .assert
        .as_deref()
        .map(|text| crate::scenario::parse_conditions(text, &crate::scenario::known_metrics()))
        .transpose()?
        .unwrap_or_default();
    let failed = crate::scenario::failed_conditions(&conditions, &results);
    // The report (files, charts) is rendered on the --threads workers too.
    pool.install(|| publish(out, results, record, &progress, args.output.quiet))?;
    crate::scenario::exit_on_failures(&failed)
}

/// The name of the copy of the `--config` file in the run directory.
pub const CONFIG_COPY: &str = "config.toml";

/// What a run's manifest records besides its phase times: the seed, the configuration
/// (`parameters`), the input files, the thread count and when it started (UTC text and
/// clock).
pub struct RunRecord {
    /// The seed of synthetic workloads.
    pub seed: u64,
    /// The configuration ([`run_parameters`] and additions).
    pub parameters: serde_json::Value,
    /// The input files with their checksums.
    pub inputs: Vec<reports::manifest::InputFile>,
    /// Files copied into the run directory as they are (name, bytes): the `--config` file.
    pub files: Vec<(String, Vec<u8>)>,
    /// Worker threads.
    pub threads: usize,
    /// The start, as UTC text and as a clock reading.
    pub started: (String, Instant),
}

/// What every replay of a run shares: its schemes (checked), every shard count with its
/// growth targets (checked before any replay), and the replay configuration.
pub struct RunSetup {
    /// The schemes, checked for every shard count.
    pub schemes: Vec<SchemeSpec>,
    /// Each shard count with its targets.
    pub sweep: Vec<(ShardCount, Vec<ShardCount>)>,
    /// The replay configuration but for the shard counts.
    pub base: ReplayConfig,
}

impl RunSetup {
    /// The setup of `args` for keys of `key_type`.
    /// `format_unit_ns` is the nanoseconds of the trace format's own timestamp unit.
    pub fn new(args: &RunArgs, key_type: KeyType, format_unit_ns: Option<u64>) -> Result<RunSetup> {
        let weights = args
            .weights
            .as_deref()
            .map(schemes::weights::parse)
            .transpose()
            .map_err(crate::usage::config_is_usage)?;
        let sweep = args
            .shards
            .0
            .iter()
            .map(|&n| Ok((n, sweep::targets(n, args.grow.as_ref())?)))
            .collect::<Result<Vec<_>>>()?;
        // Every growth target holds its points too: refused before any scheme is built (the
        // shard counts themselves are checked as the schemes are built below).
        for spec in SchemeSpec::parse_list(&args.schemes.schemes)? {
            for (n, targets) in sweep.iter().filter(|_| !spec.is_changing()) {
                for m in targets {
                    spec.check_points(m.get()).with_context(|| {
                        format!("the --grow target {m} of {n} shards (by default N+1)")
                    })?;
                }
            }
        }
        let schemes = args
            .schemes
            .checked(&args.shards.0, key_type, weights.as_deref())?;
        let scenario = args
            .scenario
            .scenario(key_type, weights.as_deref(), format_unit_ns)?;
        let counts: Vec<u32> = args.shards.0.iter().map(|n| n.get()).collect();
        let schemes = crate::scenario::under(schemes, scenario, &counts)?;
        if let Some(warning) = args.schemes.without_warmup(&schemes) {
            eprintln!("warning: {warning}");
        }
        let base = ReplayConfig {
            window: args.window,
            warmup_fraction: args.schemes.warmup,
            latency: (!args.no_latency).then(LatencyConfig::default),
            distinct_key_limit: args.distinct_limit as usize,
            fail: args.fail,
            weights,
            time_unit_ns: args.scenario.time_unit_ns(format_unit_ns)?,
            ..ReplayConfig::default()
        };
        Ok(RunSetup {
            schemes,
            sweep,
            base,
        })
    }
}

/// The configuration of the replay on `n` shards, and its targets as numbers.
pub fn replay_config(
    base: &ReplayConfig,
    n: ShardCount,
    targets: &[ShardCount],
) -> (ReplayConfig, Vec<u32>) {
    let targets: Vec<u32> = targets.iter().map(|&m| m.get()).collect();
    let cfg = ReplayConfig {
        shards: n.get(),
        target_shards: targets[0],
        ..base.clone()
    };
    (cfg, targets)
}

/// The label of a workload's results on `n` shards, in a sweep of `counts` shard counts.
pub fn sweep_label(label: &str, n: ShardCount, counts: usize) -> String {
    match counts {
        1 => label.to_string(),
        _ => format!("{label} on {n} shards"),
    }
}

/// The manifest's account of a run's configuration (`parameters`), but for the trace
/// profile.
pub fn run_parameters(
    args: &RunArgs,
    options_given: &[String],
    workloads: &[(String, String)],
    schemes: &[SchemeSpec],
    sweep: &[(ShardCount, Vec<ShardCount>)],
    base: &ReplayConfig,
) -> serde_json::Value {
    serde_json::json!({
        "run": args,
        "options_given": options_given,
        "workloads": workloads.iter().map(|(label, _)| label).collect::<Vec<_>>(),
        "workload_descriptions": workloads
            .iter()
            .map(|(l, d)| (l.clone(), serde_json::Value::from(d.clone())))
            .collect::<serde_json::Map<_, _>>(),
        "machine": machine(),
        "schemes": schemes.iter().map(SchemeSpec::label).collect::<Vec<_>>(),
        "shards_and_targets": sweep,
        "trace_profile": null,
        "chunk_events": base.chunk_events,
        "warmup_rule": engine::warmup::warmup_rule(args.schemes.warmup),
        "latency_sample_keys": base.latency_sample,
    })
}

/// Writes a run's directory (CSV, charts, report, and the manifest of `record` with the phase
/// times so far) whole under a temporary name and renames it into place, then prints the
/// comparison and the phase times.
pub fn publish(
    out: reports::output::OutputDir,
    results: Vec<WorkloadResult>,
    record: RunRecord,
    progress: &ReplayProgress,
    quiet: bool,
) -> Result<()> {
    let clock = progress.clock();
    clock.enter("report");
    let (phases, _) = clock.ended();
    let manifest = Manifest {
        tool: "shardlab".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command_line: std::env::args().collect(),
        seed: record.seed,
        parameters: record.parameters,
        inputs: record.inputs,
        threads: record.threads,
        started_utc: record.started.0,
        duration_secs: record.started.1.elapsed().as_secs_f64(),
        phase_secs: phases
            .into_iter()
            .map(|(name, secs)| (name.to_string(), secs))
            .collect(),
    };
    let spinner = progress.phase("report");
    let staging = out.path().to_path_buf();
    crate::interrupt::stage(&staging, || out.create())?;
    // One model: the exporters write it, the charts and the report are drawn from it, as
    // `shardlab report` draws them from the model its files read back into.
    let data = RunData::of_run(&results, manifest)?;
    let files = exporters::render(&data, &exporters::all())?;
    // The files are written while the charts are drawn.
    let (written, pictures) = rayon::join(
        || out.write_files(&files),
        || reports::report::render(&data).context("rendering the charts and report"),
    );
    let mut written = written?;
    written.extend(out.write_files(&pictures?)?);
    written.extend(out.write_files(&record.files)?);
    let out_path = crate::interrupt::unstage(&staging, || out.commit())?;
    spinner.finish_and_clear();
    let (phases, replayed) = clock.finish();
    if !quiet {
        let mut stdout = std::io::stdout().lock();
        if let [single] = &results[..] {
            write!(stdout, "{}", reports::table::comparison_table(single))?;
        }
        write!(
            stdout,
            "{}",
            reports::table::decision_matrix(data.recommendations.as_deref().unwrap_or_default())
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
    sweep: &[(schemes::ShardCount, Vec<schemes::ShardCount>)],
) -> Result<()> {
    let why = if sweep.len() > 1 {
        "a sweep over --shards replays the trace once per shard count"
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
fn profile_trace(profile: PrefixProfile) -> serde_json::Map<String, serde_json::Value> {
    let (profile, read) = profile.into_profile();
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
    if let Some(hint) = profile.key_type_hint() {
        eprintln!("hint: {hint}");
        rows.insert("key_type_hint".into(), hint.into());
    }
    rows
}
