//! `shardlab plan`: how many shards each scheme needs for a workload, grown, replicated and
//! surviving failures; `plan.csv`, `plan-manifest.json` and a table on stdout.

use std::io::Write;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use planning::clock::{nanos_per_unit, parse_duration_ns, Clock, Windows};
use planning::figures::{rate, whole};
use planning::{
    note_with_warnings, plan_workload, PlanConfig, ReadPolicy, ReplicaPolicy, WorkloadPlan,
};
use reports::manifest::now_utc;
use reports::table::aligned;
use reports::Manifest;
use schemes::SchemeSpec;
use schemes::ShardCount;
use serde::Serialize;

use crate::cli::{InputArgs, OutputArgs, SchemeArgs, ThreadArgs, TraceArgs, INPUT, TRACE_READING};
use crate::inputs::{input_checksums, workload_specs, Input, TraceInput};
use crate::progress::ReplayProgress;
use crate::usage;

/// Examples shown by `shardlab plan --help`.
pub const PLAN_EXAMPLES: &str = "\
Examples:
  shardlab plan --workload zipf:s=1.0 --rate 200000 --capacity 20000 --growth 1,2,4
      shards each scheme needs for 200,000 requests/s, doubled and quadrupled, with no shard
      above 80% of 20,000 requests/s in any 1 s window
  shardlab plan --trace keys.csv --time-unit ms --capacity 5000 --replicas 3 --reads any --failures 1
  shardlab plan --workload hotspot:hot=0.001,traffic=0.5 --rate 10000 --capacity 5000 --current 4";

/// Help heading of the capacity options.
const CAPACITY: &str = "Capacity";

/// Options of `shardlab plan`.
#[derive(Debug, Args, Serialize)]
pub struct PlanArgs {
    /// What is planned.
    #[command(flatten)]
    #[serde(flatten)]
    pub input: InputArgs,

    /// Events per second: places event i at i/R seconds (synthetic workloads, which need a
    /// rate here or as `rate=R` in the spec, or a trace whose timestamps should be ignored).
    #[arg(long, value_name = "R", value_parser = clap::value_parser!(u64).range(1..), help_heading = INPUT)]
    pub rate: Option<u64>,

    /// How the trace is read.
    #[command(flatten)]
    #[serde(flatten)]
    pub read: TraceArgs,

    /// Unit of csv and text trace timestamps: s, ms, us or ns [default: us]. Other formats
    /// define their own unit.
    #[arg(long, value_name = "UNIT", value_parser = ["s", "ms", "us", "ns"], help_heading = TRACE_READING)]
    pub time_unit: Option<String>,

    /// The schemes.
    #[command(flatten)]
    #[serde(flatten)]
    pub schemes: SchemeArgs,

    /// Requests per second one shard can serve.
    #[arg(long, value_name = "R", value_parser = parse_positive, help_heading = CAPACITY)]
    pub capacity: f64,

    /// Bytes one shard can store (e.g. 500000000, 64MiB, 2GB); sizes come from the trace's
    /// size column or the workload's value_size.
    #[arg(long, value_name = "B", value_parser = parse_bytes, help_heading = CAPACITY)]
    pub capacity_bytes: Option<f64>,

    /// Share of the capacities a plan may use, in (0, 1].
    #[arg(long, default_value_t = 0.8, value_name = "F", value_parser = parse_headroom, help_heading = CAPACITY)]
    pub headroom: f64,

    /// Growth factors to plan for, comma-separated: traffic and stored bytes times G.
    #[arg(long, default_value = "1", value_name = "G,...", value_parser = parse_growth, help_heading = CAPACITY)]
    pub growth: String,

    /// Replicas of every key.
    #[arg(long, default_value_t = 1, value_name = "RF", value_parser = clap::value_parser!(u32).range(1..), help_heading = CAPACITY)]
    pub replicas: u32,

    /// Where reads go: the leaseholder (`leader`) or spread evenly over the replicas (`any`).
    /// Writes go to every replica.
    #[arg(long, default_value = "leader", value_parser = ["leader", "any"], help_heading = CAPACITY)]
    pub reads: String,

    /// Shards that may fail at once: the plan must hold after the worst F failures.
    #[arg(long, default_value_t = 0, value_name = "F", help_heading = CAPACITY)]
    pub failures: u32,

    /// Length of the windows in which rates are measured (e.g. 1s, 250ms, 1m).
    #[arg(long, default_value = "1s", value_name = "DURATION", value_parser = parse_rate_window, help_heading = CAPACITY)]
    pub rate_window: String,

    /// The shard count today: plans grow (or shrink) it by each scheme's own rule and report
    /// the share of keys that move (moved_fraction_from_current).
    #[arg(long, value_name = "N", help_heading = CAPACITY)]
    pub current: Option<ShardCount>,

    /// The largest shard count searched.
    #[arg(long, default_value = "1024", value_name = "N", help_heading = CAPACITY)]
    pub max_shards: ShardCount,

    /// Worker threads.
    #[command(flatten)]
    #[serde(flatten)]
    pub threads: ThreadArgs,

    /// Where plan.csv and plan-manifest.json go (default results/plan-<UTC time>/); with
    /// --force it may be a run directory, whose other files are left alone.
    #[command(flatten)]
    #[serde(flatten)]
    pub output: OutputArgs,
}

/// Runs `shardlab plan`.
pub fn plan(args: PlanArgs, options_given: &[String]) -> Result<()> {
    let started = Instant::now();
    let started_utc = now_utc();
    let cfg = plan_config(&args)?;
    // The trace is opened first: its key type is how boundaries files are read, as in `run`.
    let trace = TraceInput::open(&args.input, &args.read)?;
    let key_type = crate::inputs::key_type(trace.as_ref(), &args.read);
    let schemes = args
        .schemes
        .checked(&[ShardCount::new(1)?], key_type, None)?;
    planning::check_schemes(&schemes).map_err(usage::config_is_usage)?;
    if let Some(current) = args.current {
        // The current layout is built before the trace is read: its points first.
        for spec in schemes.iter().filter(|s| !s.is_changing()) {
            spec.check_points(current.get())?;
        }
    }
    let window_ns = parse_duration_ns(&args.rate_window).map_err(usage::usage)?;
    let inputs = plan_inputs(&args, trace.as_ref(), window_ns)?;
    let out = args.output.claim("plan-")?;
    let trace_checksum = trace.as_ref().map(TraceInput::spawn_checksum);
    let pool = args.threads.pool()?;
    let progress = ReplayProgress::new(args.output.quiet);
    let mut plans = Vec::with_capacity(inputs.len());
    for input in &inputs {
        let on_progress = progress.callback(&input.input.label);
        let plan = pool
            .install(|| {
                plan_workload(
                    &input.input.workload(),
                    &input.windows,
                    &schemes,
                    &cfg,
                    &on_progress,
                )
            })
            .map_err(|e| time_col_hint(e, trace.as_ref(), &args))
            .with_context(|| format!("planning workload '{}'", input.input.label))?;
        plans.push(plan);
    }
    let spinner = progress.phase("report");

    let rows: Vec<_> = plans.iter().flat_map(|p| p.rows.iter().cloned()).collect();
    let csv = reports::plan_csv::plan_csv(&rows)?;
    let manifest = Manifest {
        tool: "shardlab".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command_line: std::env::args().collect(),
        seed: args.input.seed,
        parameters: serde_json::json!({
            "plan": &args,
            "options_given": options_given,
            "config": &cfg,
            "workloads": inputs.iter().map(|i| &i.input.label).collect::<Vec<_>>(),
            "schemes": schemes.iter().map(SchemeSpec::label).collect::<Vec<_>>(),
        }),
        inputs: input_checksums(&schemes, trace.as_ref().zip(trace_checksum))?,
        threads: pool.current_num_threads(),
        started_utc,
        duration_secs: started.elapsed().as_secs_f64(),
        phase_secs: progress
            .clock()
            .finish()
            .0
            .into_iter()
            .filter(|(name, _)| *name != "report")
            .map(|(name, secs)| (name.to_string(), secs))
            .collect(),
    };
    let mut manifest_json = serde_json::to_vec_pretty(&manifest)?;
    manifest_json.push(b'\n');
    out.write_file("plan.csv", &csv)?;
    // Not `manifest.json`: a plan may be written into a run directory beside the run's own.
    out.write_file("plan-manifest.json", &manifest_json)?;
    spinner.finish_and_clear();
    if !args.output.quiet {
        let mut stdout = std::io::stdout().lock();
        for p in &plans {
            write!(stdout, "{}", plan_table(p))?;
        }
        writeln!(stdout, "plan: {}", out.path().join("plan.csv").display())?;
    }
    Ok(())
}

/// A trace event without a timestamp, when the trace was read without `--time-col` and has a
/// column that looks like one (`time`, `op_time`, `ts`, ...): the error then names the column
/// and the option.
fn time_col_hint(
    err: schemes::AnalysisError,
    trace: Option<&TraceInput>,
    args: &PlanArgs,
) -> anyhow::Error {
    let missing_time = err.to_string().contains("has no timestamp");
    let column = trace
        .filter(|_| missing_time && args.read.time_col.is_none() && args.rate.is_none())
        .and_then(|t| {
            workloads::trace::csv_header(&t.files[0].opts)
                .ok()
                .flatten()
        })
        .and_then(|header| {
            header.into_iter().find(|c| {
                let c = c.to_ascii_lowercase();
                c.contains("time") || c == "ts"
            })
        });
    match column {
        Some(col) => anyhow::Error::new(err).context(format!(
            "the trace has a column '{col}': pass --time-col {col} to read its timestamps \
             (or --rate R to place events R per second)"
        )),
        None => err.into(),
    }
}

/// The plan configuration from the options.
fn plan_config(args: &PlanArgs) -> Result<PlanConfig> {
    let growth = args
        .growth
        .split(',')
        .map(|g| parse_factor(g).map_err(usage::usage))
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
        current_shards: args.current.map(ShardCount::get),
        max_shards: args.max_shards.get(),
        warmup_fraction: args.schemes.warmup,
    };
    cfg.check().map_err(usage::config_is_usage)?;
    Ok(cfg)
}

/// One growth factor: a positive number.
fn parse_factor(g: &str) -> Result<f64, String> {
    g.trim()
        .parse::<f64>()
        .ok()
        .filter(|g| g.is_finite() && *g > 0.0)
        .ok_or_else(|| format!("--growth: '{g}' is not a positive number (e.g. --growth 1,2,4)"))
}

/// `--growth` (a clap value parser): comma-separated positive factors, kept as written.
fn parse_growth(s: &str) -> Result<String, String> {
    s.split(',').try_for_each(|g| parse_factor(g).map(drop))?;
    Ok(s.to_string())
}

/// `--rate-window` (a clap value parser): a duration, kept as written.
fn parse_rate_window(s: &str) -> Result<String, String> {
    parse_duration_ns(s)
        .map(|_| s.to_string())
        .map_err(|e| e.to_string())
}

/// A workload to plan, with where its events sit in time.
struct PlanInput {
    input: Input,
    windows: Windows,
}

/// The trace and the synthetic workloads (or the built-in suite), each with its clock.
fn plan_inputs(
    args: &PlanArgs,
    trace: Option<&TraceInput>,
    window_ns: u64,
) -> Result<Vec<PlanInput>> {
    let mut inputs = Vec::new();
    if let Some(t) = trace {
        let clock =
            match (args.rate, &args.time_unit) {
                (Some(_), Some(_)) => return Err(usage::usage(
                    "--rate places the trace's events evenly in time and --time-unit reads its \
                 timestamps; give one of them",
                )),
                (Some(rate), None) => Clock::Rate {
                    events_per_sec: rate,
                },
                (None, Some(unit)) => Clock::Timestamps {
                    nanos_per_tick: nanos_per_unit(unit).unwrap_or(1_000),
                },
                (None, None) => Clock::Timestamps {
                    nanos_per_tick: t.format().read_unit_ns(),
                },
            };
        inputs.push(PlanInput {
            input: Input::of_trace(t),
            windows: Windows::new(clock, window_ns).map_err(usage::config_is_usage)?,
        });
    }
    for spec in workload_specs(&args.input, false)? {
        let text = spec.label();
        let given = spec.spec().get("rate").map(|_| spec.common().rate);
        let rate = match (args.rate, given) {
            (Some(r), Some(g)) if r != g => {
                return Err(usage::usage(format!(
                    "workload '{text}' says rate={g} but --rate is {r}; give the rate once"
                )))
            }
            (Some(r), _) | (None, Some(r)) => r,
            (None, None) => return Err(usage::usage(format!(
                "workload '{text}' has no rate: give --rate R (events per second) or rate=R in the spec, \
                 so that its events can be placed in time"
            ))),
        };
        let windows = Windows::new(
            Clock::Rate {
                events_per_sec: rate,
            },
            window_ns,
        )
        .map_err(usage::config_is_usage)?;
        let description = format!("{} at {rate} events/s", spec.describe());
        inputs.push(PlanInput {
            input: Input::of_spec(spec, description, args.input.seed, args.input.events),
            windows,
        });
    }
    Ok(inputs)
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
        rate(p.peak_rate),
        rate(p.p99_rate),
        rate(p.mean_rate),
        rate(first.rate_limit_per_shard),
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
            opt(r.peak_rate_per_shard, rate),
            opt(r.p99_rate_per_shard, rate),
            opt(r.hottest_share, |s| format!("{s:.4}")),
            r.balanced_shards.to_string(),
            opt(r.moved_fraction_from_current, |s| format!("{s:.4}")),
        ]);
    }
    out.push_str(&aligned(&rows, &[0, 3]));
    // Every row's note ends with the workload's warnings: print those once, first.
    let warnings = note_with_warnings("", &p.warnings);
    for w in &p.warnings {
        out.push_str(&format!("   warning: {w}\n"));
    }
    let mut seen = Vec::new();
    for r in &p.rows {
        let own = r.note.strip_suffix(&warnings).unwrap_or(&r.note).trim_end();
        // Hot-key notes repeat for every scheme; print each distinct note once.
        if !own.is_empty() && !seen.contains(&own) {
            out.push_str(&format!("   note ({} x{}): {own}\n", r.scheme, r.growth));
            seen.push(own);
        }
    }
    out.push('\n');
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

/// Bytes as a number with an optional unit: KB, MB, GB, TB (powers of 1000) or KiB, MiB,
/// GiB, TiB (powers of 1024).
pub(crate) fn parse_bytes(s: &str) -> Result<f64, String> {
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
}
