//! `shardlab plan`: how many shards each scheme needs for a workload, grown, replicated and
//! surviving failures; `plan.csv`, `plan-manifest.json` and a table on stdout.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use analysis::plan::clock::{nanos_per_unit, parse_duration_ns, Clock, Windows};
use analysis::plan::{plan_workload, PlanConfig, ReadPolicy, ReplicaPolicy, WorkloadPlan};
use analysis::replay::WorkloadInput;
use analysis::schemes::{BuildContext, SchemeSpec};
use anyhow::{bail, Context, Result};
use clap::Args;
use reports::manifest::{now_utc, InputFile};
use reports::output::OutputDir;
use reports::table::aligned;
use reports::Manifest;
use serde::Serialize;
use workloads::trace::{TraceFormat, TraceOptions};
use workloads::{KeyType, WorkloadSpec};

use crate::cli::TraceArgs;
use crate::progress::{events_bar, on_replay_progress, PhaseClock};
use crate::run::DEFAULT_SUITE;
use crate::trace_source::{self, Opener};

/// Examples shown by `shardlab plan --help`.
pub const PLAN_EXAMPLES: &str = "\
Examples:
  shardlab plan --workload zipf:s=1.0 --rate 200000 --capacity 20000 --growth 1,2,4
      shards each scheme needs for 200,000 requests/s, doubled and quadrupled, with no shard
      above 80% of 20,000 requests/s in any 1 s window
  shardlab plan --trace keys.csv --time-unit ms --capacity 5000 --replicas 3 --reads any --failures 1
  shardlab plan --workload hotspot:hot=0.001,traffic=0.5 --rate 10000 --capacity 5000 --current 4";

/// Options of `shardlab plan`.
#[derive(Debug, Args, Serialize)]
pub struct PlanArgs {
    /// A synthetic workload spec, repeatable (as for `run`); give its rate with --rate or
    /// `rate=R` in the spec. Without --workload and --trace the built-in suite is planned.
    #[arg(short, long = "workload", value_name = "SPEC")]
    pub workloads: Vec<String>,

    /// A recorded trace (`-` for standard input), as for `run`; rates come from its
    /// timestamps (see --time-unit) unless --rate is given.
    #[arg(short, long, value_name = "FILE")]
    pub trace: Option<PathBuf>,

    /// The trace format (default: from the name and first bytes).
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<TraceFormat>,

    /// Unit of csv and text trace timestamps: s, ms, us or ns [default: us]. Other formats
    /// define their own unit.
    #[arg(long, value_name = "UNIT", value_parser = ["s", "ms", "us", "ns"], help_heading = "Trace reading")]
    pub time_unit: Option<String>,

    /// Events per second: places event i at i/R seconds (synthetic workloads, or a trace
    /// whose timestamps should be ignored).
    #[arg(long, value_name = "R", value_parser = clap::value_parser!(u64).range(1..))]
    pub rate: Option<u64>,

    /// Requests per second one shard can serve.
    #[arg(long, value_name = "R", value_parser = parse_positive)]
    pub capacity: f64,

    /// Bytes one shard can store (e.g. 500000000, 64MiB, 2GB); sizes come from the trace's
    /// size column or the workload's value_size.
    #[arg(long, value_name = "B", value_parser = parse_bytes)]
    pub capacity_bytes: Option<f64>,

    /// Share of the capacities a plan may use, in (0, 1].
    #[arg(long, default_value_t = 0.8, value_name = "F", value_parser = parse_headroom)]
    pub headroom: f64,

    /// Growth factors to plan for, comma-separated: traffic and stored bytes times G.
    #[arg(long, default_value = "1", value_name = "G,...")]
    pub growth: String,

    /// Replicas of every key.
    #[arg(long, default_value_t = 1, value_name = "RF", value_parser = clap::value_parser!(u32).range(1..))]
    pub replicas: u32,

    /// Where reads go: the leaseholder (`leader`) or spread evenly over the replicas (`any`).
    /// Writes go to every replica.
    #[arg(long, default_value = "leader", value_parser = ["leader", "any"])]
    pub reads: String,

    /// Shards that may fail at once: the plan must hold after the worst F failures.
    #[arg(long, default_value_t = 0, value_name = "F")]
    pub failures: u32,

    /// Length of the windows in which rates are measured (e.g. 1s, 250ms, 1m).
    #[arg(long, default_value = "1s", value_name = "DURATION")]
    pub rate_window: String,

    /// The shard count today: plans grow (or shrink) it by each scheme's own rule and report
    /// the share of keys that move (moved_fraction_from_current).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub current: Option<u32>,

    /// The largest shard count searched.
    #[arg(long, default_value_t = 1024, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_shards: u32,

    /// Comma-separated schemes with parameters, as for `run`.
    #[arg(
        short,
        long,
        default_value = "range,hash,ring,salted",
        value_name = "LIST"
    )]
    pub schemes: String,

    /// Events per synthetic workload.
    #[arg(short, long, default_value_t = 1_000_000)]
    pub events: u64,

    /// Seed of the synthetic workloads.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,

    /// Share of the events used only to learn range boundaries (when a scheme learns).
    #[arg(long, default_value_t = 0.1, value_parser = parse_warmup)]
    pub warmup: f64,

    /// Worker threads (default: all cores; at most 256). Results do not depend on it.
    #[arg(long, value_parser = crate::cli::parse_threads)]
    pub threads: Option<u64>,

    /// Output directory for plan.csv and plan-manifest.json (default results/plan-<UTC time>/);
    /// with --force it may be a run directory, whose other files are left alone.
    #[arg(short, long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Replace the files of an existing output directory.
    #[arg(long)]
    pub force: bool,

    /// No progress bar and no table on stdout.
    #[arg(short, long)]
    pub quiet: bool,

    /// How the trace is read.
    #[command(flatten)]
    #[serde(flatten)]
    pub read: TraceArgs,
}

/// Runs `shardlab plan`.
pub fn plan(args: PlanArgs) -> Result<()> {
    let started = Instant::now();
    let started_utc = now_utc();
    let cfg = plan_config(&args)?;
    let schemes = SchemeSpec::parse_list(&args.schemes)?;
    if schemes.is_empty() {
        bail!("--schemes is empty; valid schemes: range, hash, ring, salted");
    }
    analysis::plan::check_schemes(&schemes)?;
    let ctx = BuildContext {
        shards: 1,
        warmup_keys: &[],
        key_type: KeyType::Bytes,
    };
    for s in &schemes {
        s.validate(&ctx)
            .with_context(|| format!("checking scheme '{}'", s.label()))?;
    }
    let window_ns =
        parse_duration_ns(&args.rate_window).map_err(|e| anyhow::anyhow!("--rate-window {e}"))?;
    let inputs = plan_inputs(&args, window_ns)?;
    let out = OutputDir::claim(&default_out(&args), args.force)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0) as usize)
        .build()
        .context("cannot start the worker threads")?;
    let bar = events_bar(args.quiet);
    let clock = PhaseClock::default();
    let mut plans = Vec::with_capacity(inputs.len());
    for input in &inputs {
        let workload = WorkloadInput {
            label: input.label.clone(),
            description: input.description.clone(),
            key_type: input.key_type,
            open: &*input.open,
        };
        let on_progress = on_replay_progress(&bar, &clock);
        let plan = pool
            .install(|| plan_workload(&workload, &input.windows, &schemes, &cfg, &on_progress))
            .with_context(|| format!("planning workload '{}'", input.label))?;
        plans.push(plan);
    }
    bar.finish_and_clear();

    let rows: Vec<_> = plans.iter().flat_map(|p| p.rows.iter().cloned()).collect();
    let csv = reports::plan_csv::plan_csv(&rows)?;
    let manifest = Manifest {
        tool: "shardlab".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command_line: std::env::args().collect(),
        seed: args.seed,
        parameters: serde_json::json!({
            "plan": &args,
            "config": &cfg,
            "workloads": inputs.iter().map(|i| &i.label).collect::<Vec<_>>(),
            "schemes": schemes.iter().map(SchemeSpec::label).collect::<Vec<_>>(),
        }),
        inputs: input_checksums(&inputs)?,
        threads: pool.current_num_threads(),
        started_utc,
        duration_secs: started.elapsed().as_secs_f64(),
        phase_secs: clock
            .finish()
            .0
            .into_iter()
            .map(|(name, secs)| (name.to_string(), secs))
            .collect(),
    };
    let mut manifest_json = serde_json::to_vec_pretty(&manifest)?;
    manifest_json.push(b'\n');
    out.write_file("plan.csv", &csv)?;
    // Not `manifest.json`: a plan may be written into a run directory beside the run's own.
    out.write_file("plan-manifest.json", &manifest_json)?;
    if !args.quiet {
        let mut stdout = std::io::stdout().lock();
        for p in &plans {
            write!(stdout, "{}", plan_table(p))?;
        }
        writeln!(stdout, "plan: {}", out.path().join("plan.csv").display())?;
    }
    Ok(())
}

/// The plan configuration from the options.
fn plan_config(args: &PlanArgs) -> Result<PlanConfig> {
    let growth = args
        .growth
        .split(',')
        .map(|g| {
            g.trim()
                .parse::<f64>()
                .ok()
                .filter(|g| g.is_finite() && *g > 0.0)
                .with_context(|| {
                    format!("--growth: '{g}' is not a positive number (e.g. --growth 1,2,4)")
                })
        })
        .collect::<Result<Vec<f64>>>()?;
    let reads = if args.reads == "any" {
        ReadPolicy::Any
    } else {
        ReadPolicy::Leader
    };
    let cfg = PlanConfig {
        capacity: args.capacity,
        capacity_bytes: args.capacity_bytes,
        headroom: args.headroom,
        growth,
        policy: ReplicaPolicy {
            replicas: args.replicas,
            reads,
        },
        failures: args.failures,
        current_shards: args.current,
        max_shards: args.max_shards,
        warmup_fraction: args.warmup,
    };
    cfg.check()?;
    Ok(cfg)
}

/// A workload to plan, with where its events sit in time.
struct PlanInput {
    label: String,
    description: String,
    key_type: KeyType,
    windows: Windows,
    open: Opener,
    /// For a trace: its options (the file to checksum, or the tally of an input read once),
    /// the path as given and its format.
    trace: Option<(TraceOptions, String, TraceFormat)>,
}

/// The trace and the synthetic workloads (or the built-in suite), each with its clock.
fn plan_inputs(args: &PlanArgs, window_ns: u64) -> Result<Vec<PlanInput>> {
    let mut inputs = Vec::new();
    if let Some(given) = &args.trace {
        inputs.push(trace_input(args, given, window_ns)?);
    }
    let specs: Vec<String> = if args.workloads.is_empty() && args.trace.is_none() {
        DEFAULT_SUITE.iter().map(|s| s.to_string()).collect()
    } else {
        args.workloads.clone()
    };
    for text in specs {
        let spec = WorkloadSpec::parse(&text)?;
        let given = spec.spec().get("rate").map(|_| spec.common().rate);
        let rate = match (args.rate, given) {
            (Some(r), Some(g)) if r != g => {
                bail!("workload '{text}' says rate={g} but --rate is {r}; give the rate once")
            }
            (Some(r), _) | (None, Some(r)) => r,
            (None, None) => bail!(
                "workload '{text}' has no rate: give --rate R (events per second) or rate=R in the spec, \
                 so that its events can be placed in time"
            ),
        };
        let windows = Windows::new(
            Clock::Rate {
                events_per_sec: rate,
            },
            window_ns,
        )?;
        let (seed, events) = (args.seed, args.events);
        inputs.push(PlanInput {
            label: spec.label(),
            description: format!("{} at {rate} events/s", spec.describe()),
            key_type: spec.key_type(),
            windows,
            open: Box::new(move || spec.open(seed, events)),
            trace: None,
        });
    }
    Ok(inputs)
}

/// The trace at `given`, opened once to check it and learn its format, key type and clock.
fn trace_input(args: &PlanArgs, given: &Path, window_ns: u64) -> Result<PlanInput> {
    let (opts, opened) = args.read.open_checked(given, args.format)?;
    let clock = match (args.rate, &args.time_unit) {
        (Some(_), Some(_)) => bail!(
            "--rate places the trace's events evenly in time and --time-unit reads its \
             timestamps; give one of them"
        ),
        (Some(rate), None) => Clock::Rate {
            events_per_sec: rate,
        },
        (None, Some(unit)) => Clock::Timestamps {
            nanos_per_tick: nanos_per_unit(unit).unwrap_or(1_000),
        },
        (None, None) => Clock::Timestamps {
            nanos_per_tick: opened.format.time_unit_ns().unwrap_or(1_000),
        },
    };
    let shown = opts.shown().display().to_string();
    Ok(PlanInput {
        label: shown.clone(),
        description: format!("recorded trace {shown} ({})", opened.format),
        key_type: opened.key_type,
        windows: Windows::new(clock, window_ns)?,
        open: trace_source::opener(opts.clone(), opened.source),
        trace: Some((opts, given.display().to_string(), opened.format)),
    })
}

/// `--out`, or `results/plan-<UTC time>` (colons left out so the name is portable).
fn default_out(args: &PlanArgs) -> PathBuf {
    args.out.clone().unwrap_or_else(|| {
        PathBuf::from("results").join(format!("plan-{}", now_utc().replace(':', "")))
    })
}

/// Checksums of the trace, if any, and of every boundaries file is left to `run`; a plan
/// records the trace it read.
fn input_checksums(inputs: &[PlanInput]) -> Result<Vec<InputFile>> {
    inputs
        .iter()
        .filter_map(|i| i.trace.as_ref())
        .map(|(opts, given, format)| {
            let sum = match &opts.tally {
                Some(tally) => trace_source::tallied(tally),
                None => InputFile::checksum(&opts.path)
                    .with_context(|| format!("cannot checksum input '{given}'"))?,
            };
            Ok(InputFile {
                path: given.clone(),
                format: Some(format.name().to_string()),
                ..sum
            })
        })
        .collect()
}

/// The readable table of one workload's plan, with a note under it for every row that has
/// one (no shard count works, or failures cannot be checked).
pub fn plan_table(p: &WorkloadPlan) -> String {
    let Some(first) = p.rows.first() else {
        return format!("== {}: no schemes planned\n", p.workload);
    };
    let mut out = format!(
        "== {} ({} events; busiest {} s window {}/s, p99 window {}/s, mean {}/s)\n   limit per shard: {} requests/s (capacity x headroom){}; replicas {}, reads {}; failures {}\n",
        p.workload,
        p.events_measured,
        p.window_secs,
        whole(p.peak_rate),
        whole(p.p99_rate),
        whole(p.mean_rate),
        whole(first.rate_limit_per_shard),
        first.bytes_limit_per_shard.map(|b| format!(", {} bytes", whole(b))).unwrap_or_default(),
        first.replicas,
        first.reads.name(),
        first.failures,
    );
    let header = [
        "scheme",
        "growth",
        "shards",
        "binding",
        "peak/shard",
        "p99/shard",
        "hottest share",
        "balanced",
        "moved",
    ];
    let mut rows = vec![header.map(String::from).to_vec()];
    for r in &p.rows {
        let opt = |v: Option<f64>, f: fn(f64) -> String| v.map_or("-".to_string(), f);
        rows.push(vec![
            r.scheme.clone(),
            format!("x{}", r.growth),
            r.shards_needed
                .map_or("none".to_string(), |n| n.to_string()),
            r.binding.name().to_string(),
            opt(r.peak_rate_per_shard, whole),
            opt(r.p99_rate_per_shard, whole),
            opt(r.hottest_share, |s| format!("{s:.4}")),
            r.balanced_shards.to_string(),
            opt(r.moved_fraction_from_current, |s| format!("{s:.4}")),
        ]);
    }
    out.push_str(&aligned(&rows, &[0, 3]));
    let mut seen = Vec::new();
    for r in p.rows.iter().filter(|r| !r.note.is_empty()) {
        // Hot-key notes repeat for every scheme; print each distinct note once.
        if !seen.contains(&&r.note) {
            out.push_str(&format!(
                "   note ({} x{}): {}\n",
                r.scheme, r.growth, r.note
            ));
            seen.push(&r.note);
        }
    }
    out.push('\n');
    out
}

/// A whole number with thousands separators.
fn whole(x: f64) -> String {
    let digits = format!("{:.0}", x.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if x < -0.5 {
        out.insert(0, '-');
    }
    out
}

fn parse_positive(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("'{s}' must be a positive number, e.g. 5000")),
    }
}

fn parse_headroom(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 1.0 => Ok(v),
        _ => Err(format!("'{s}' must be a share in (0, 1], e.g. 0.8")),
    }
}

fn parse_warmup(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..1.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' must be a fraction in [0, 1), e.g. 0.1")),
    }
}

/// Bytes as a number with an optional unit: KB, MB, GB, TB (powers of 1000) or KiB, MiB,
/// GiB, TiB (powers of 1024).
fn parse_bytes(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let scale = match unit.trim() {
        "" | "B" => 1.0,
        "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "TiB" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => {
            return Err(format!(
                "'{s}': unknown unit '{unit}'; use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB"
            ))
        }
    };
    match number.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v * scale),
        _ => Err(format!(
            "'{s}' must be a positive number of bytes, e.g. 64MiB"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_sizes_take_decimal_and_binary_units() {
        assert_eq!(parse_bytes("500"), Ok(500.0));
        assert_eq!(parse_bytes("64MiB"), Ok(64.0 * 1024.0 * 1024.0));
        assert_eq!(parse_bytes("2 GB"), Ok(2e9));
        assert!(
            parse_bytes("0").is_err()
                && parse_bytes("5 parsecs").is_err()
                && parse_bytes("MB").is_err()
        );
    }

    #[test]
    fn whole_numbers_get_thousands_separators() {
        assert_eq!(
            [whole(0.4), whole(999.0), whole(1_000.0), whole(1_234_567.8)],
            ["0", "999", "1,000", "1,234,568"]
        );
    }
}
