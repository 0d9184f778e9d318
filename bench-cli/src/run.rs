//! `shardlab run`: build the workloads and schemes, replay, print and export.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use analysis::metrics::LatencyConfig;
use analysis::replay::{replay_targets, ReplayConfig, WorkloadInput};
use analysis::schemes::{BuildContext, SchemeSpec};
use anyhow::{bail, Context, Result};
use reports::manifest::{now_utc, InputFile};
use reports::output::OutputDir;
use reports::{exporters, Manifest, RunReport};
use workloads::trace::{TraceFormat, TraceOptions};
use workloads::{KeyType, WorkloadSpec};

use crate::cli::RunArgs;
use crate::progress::{events_bar, on_replay_progress, phase_line, PhaseClock};
use crate::sweep;
use crate::trace_source::{self, Opener, PrefixProfile};

/// The built-in suite run by `shardlab run` without workloads or a trace.
pub const DEFAULT_SUITE: [&str; 3] = [
    "zipf:s=1.0,scans=0.05",
    "uniform:scans=0.05",
    "sequential:scans=0.05",
];

/// Runs `shardlab run`.
pub fn run(args: RunArgs) -> Result<()> {
    let started = Instant::now();
    let started_utc = now_utc();
    let schemes = SchemeSpec::parse_list(&args.schemes)?;
    let (trace, trace_opener) = trace_input(&args)?.unzip();
    let key_type = match &trace {
        Some(t) => t.key_type,
        None => KeyType::from_name(&args.read.key_type).unwrap_or_default(),
    };
    // Every combination of shard count and target, checked before any replay.
    let mut sweep = Vec::with_capacity(args.shards.0.len());
    for &n in &args.shards.0 {
        check_schemes(&schemes, n, key_type)?;
        sweep.push((n, sweep::targets(n, args.grow.as_ref())?));
    }
    if let Some(t) = trace.as_ref().filter(|t| t.opts.tally.is_some()) {
        t.check_read_once(&args, &sweep, &schemes)?;
    }
    let inputs = workload_inputs(&args, trace.as_ref(), trace_opener)?;
    let out = OutputDir::claim_staged(&default_out(&args), args.force)?;
    // The checksum of a trace that can be read again is read beside the replay rather than
    // after it; one read once is tallied as it is read.
    let trace_checksum = trace
        .as_ref()
        .filter(|t| t.opts.tally.is_none())
        .map(|t| {
            let path = t.opts.path.clone();
            std::thread::spawn(move || InputFile::checksum(&path))
        });

    let base = ReplayConfig {
        window: args.window,
        warmup_fraction: args.warmup,
        latency: (!args.no_latency).then(LatencyConfig::default),
        distinct_key_limit: args.distinct_limit as usize,
        fail: args.fail,
        ..ReplayConfig::default()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0) as usize)
        .build()
        .context("cannot start the worker threads")?;
    let bar = events_bar(args.quiet);
    let clock = PhaseClock::default();
    let mut results = Vec::with_capacity(inputs.len() * sweep.len());
    for (input, (n, targets)) in inputs
        .iter()
        .flat_map(|i| sweep.iter().map(move |s| (i, s)))
    {
        let cfg = ReplayConfig {
            shards: *n,
            target_shards: targets[0],
            ..base.clone()
        };
        let workload = WorkloadInput {
            label: input.label.clone(),
            description: input.description.clone(),
            key_type: input.key_type,
            open: &*input.open,
        };
        let on_progress = on_replay_progress(&bar, &clock);
        let result = pool
            .install(|| replay_targets(&workload, &schemes, &cfg, targets, &on_progress))
            .with_context(|| format!("replaying workload '{}' on {n} shards", input.label))?;
        results.extend(result);
    }

    clock.enter("report");
    let (replay_phases, _) = clock.ended();
    let manifest = Manifest {
        tool: "shardlab".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command_line: std::env::args().collect(),
        seed: args.seed,
        parameters: serde_json::json!({
            "run": &args,
            "workloads": inputs.iter().map(|i| &i.label).collect::<Vec<_>>(),
            "workload_descriptions": inputs.iter().map(|i| (i.label.clone(), serde_json::Value::from(i.description.clone()))).collect::<serde_json::Map<_, _>>(),
            "machine": machine(),
            "schemes": schemes.iter().map(SchemeSpec::label).collect::<Vec<_>>(),
            "shards_and_targets": sweep,
            "trace_profile": trace.as_ref().map(profile_trace).transpose()?,
            "chunk_events": base.chunk_events,
            "warmup_rule": analysis::warmup::warmup_rule(args.warmup),
            "latency_sample_keys": base.latency_sample,
        }),
        inputs: input_checksums(&schemes, trace.as_ref(), trace_checksum)?,
        threads: pool.current_num_threads(),
        started_utc,
        duration_secs: started.elapsed().as_secs_f64(),
        phase_secs: replay_phases
            .into_iter()
            .map(|(name, secs)| (name.to_string(), secs))
            .collect(),
    };
    let report = RunReport { results, manifest };
    // The directory is written whole under a temporary name, then renamed into place.
    let staging = out.path().to_path_buf();
    crate::interrupt::stage(&staging, || out.create())?;
    let mut written = out.write_all(&report, &exporters::all())?;
    bar.set_message("report");
    written.extend(
        reports::report::render_into(&out).context("rendering the charts and report")?,
    );
    let out_path = crate::interrupt::unstage(&staging, || out.commit())?;
    bar.finish_and_clear();
    let (phases, replayed) = clock.finish();
    if !args.quiet {
        let mut stdout = std::io::stdout().lock();
        write!(
            stdout,
            "{}",
            reports::table::comparison_tables(&report.results)
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

/// A workload ready to open, with its label.
struct Input {
    label: String,
    description: String,
    key_type: KeyType,
    open: Opener,
}

/// The trace of the run, opened once to check it and learn its format and key type.
struct TraceInput {
    /// The path as given (`-` for standard input).
    given: PathBuf,
    opts: TraceOptions,
    format: TraceFormat,
    key_type: KeyType,
    /// The profile of its first events, taken during the replay.
    profile: PrefixProfile,
}

impl TraceInput {
    /// Refuses, before anything is read, a run that would read a trace twice when it can be
    /// read only once.
    fn check_read_once(
        &self,
        args: &RunArgs,
        sweep: &[(u32, Vec<u32>)],
        schemes: &[SchemeSpec],
    ) -> Result<()> {
        let why = if sweep.len() > 1 {
            "a sweep over --shards replays the trace once per shard count".to_string()
        } else if let Some(s) = schemes.iter().find(|s| s.is_dynamic()) {
            format!("the dynamic scheme '{}' replays the trace a second time", s.label())
        } else {
            return Ok(());
        };
        bail!(
            "trace '{}' is read once (standard input, a FIFO or a process substitution), but {why}; \
             save it to a regular file first (e.g. zstdcat t.zst > t.csv) and pass that to --trace",
            args.trace.as_deref().unwrap_or(Path::new("-")).display()
        )
    }
}

/// `--trace` with the trace-reading options, checked before anything is written; with the
/// opener of its stream.
fn trace_input(args: &RunArgs) -> Result<Option<(TraceInput, Opener)>> {
    let Some(given) = &args.trace else {
        return Ok(None);
    };
    let (opts, opened) = args.read.open_checked(given, args.format)?;
    let profile = PrefixProfile::new(PROFILE_EVENTS);
    let open = trace_source::opener(opts.clone(), profile.watch(opened.source));
    Ok(Some((
        TraceInput {
            given: given.clone(),
            format: opened.format,
            key_type: opened.key_type,
            opts,
            profile,
        },
        open,
    )))
}

/// The workloads of the run: the trace, the given specs, or the built-in suite.
fn workload_inputs(
    args: &RunArgs,
    trace: Option<&TraceInput>,
    trace_opener: Option<Opener>,
) -> Result<Vec<Input>> {
    let mut inputs = Vec::new();
    if let (Some(t), Some(open)) = (trace, trace_opener) {
        let shown = t.opts.shown().display().to_string();
        inputs.push(Input {
            label: shown.clone(),
            description: format!("recorded trace {shown} ({})", t.format),
            key_type: t.key_type,
            open,
        });
    }
    let specs: Vec<String> = if args.workloads.is_empty() && args.trace.is_none() {
        DEFAULT_SUITE.iter().map(|s| s.to_string()).collect()
    } else {
        args.workloads.clone()
    };
    for spec in specs
        .iter()
        .map(|t| WorkloadSpec::parse_sweep(t))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
    {
        let (seed, events) = (args.seed, args.events);
        inputs.push(Input {
            label: spec.label(),
            description: spec.describe(),
            key_type: spec.key_type(),
            open: Box::new(move || spec.open(seed, events)),
        });
    }
    Ok(inputs)
}

/// Builds every scheme once without data, so bad parameters fail before any replay.
fn check_schemes(schemes: &[SchemeSpec], shards: u32, key_type: KeyType) -> Result<()> {
    if schemes.is_empty() {
        bail!("--schemes is empty; valid schemes: range, hash, ring, salted, range-dynamic");
    }
    let ctx = BuildContext {
        shards,
        warmup_keys: &[],
        key_type,
    };
    for s in schemes {
        s.validate(&ctx)
            .with_context(|| format!("checking scheme '{}'", s.label()))?;
    }
    Ok(())
}

/// `--out`, or `results/<UTC time>` (colons left out so the name is portable).
fn default_out(args: &RunArgs) -> PathBuf {
    args.out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(now_utc().replace(':', "")))
}

/// Checksums of the trace (with its format and skipped records) and of every boundaries file.
/// The inputs with their checksums; the trace's is `trace_checksum`, computed on its own
/// thread.
fn input_checksums(
    schemes: &[SchemeSpec],
    trace: Option<&TraceInput>,
    trace_checksum: Option<std::thread::JoinHandle<std::io::Result<InputFile>>>,
) -> Result<Vec<InputFile>> {
    let failed = |p: &std::path::Path| format!("cannot checksum input '{}'", p.display());
    let checksum = |p: &std::path::Path| InputFile::checksum(p).with_context(|| failed(p));
    let mut inputs = Vec::new();
    if let Some(t) = trace {
        let skipped = t.opts.invalid.log.skipped();
        crate::inspect::report_skipped(&t.opts.invalid.log);
        let sum = match (trace_checksum, &t.opts.tally) {
            (Some(sum), _) => sum
                .join()
                .map_err(|_| anyhow::anyhow!("the checksum thread panicked"))?
                .with_context(|| failed(&t.opts.path))?,
            (None, tally) => trace_source::tallied(&tally.clone().unwrap_or_default()),
        };
        inputs.push(InputFile {
            path: t.given.display().to_string(),
            format: Some(t.format.name().to_string()),
            invalid_records_skipped: t.opts.invalid.skips().then_some(skipped),
            ..sum
        });
    }
    for p in schemes
        .iter()
        .filter_map(|s| s.spec.get("boundaries"))
        .map(PathBuf::from)
    {
        inputs.push(checksum(&p)?);
    }
    Ok(inputs)
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
fn profile_trace(trace: &TraceInput) -> Result<serde_json::Map<String, serde_json::Value>> {
    let (profiler, read) = trace.profile.take();
    let profile = profiler.finish(trace.format.time_unit_ns());
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
    Ok(rows)
}
