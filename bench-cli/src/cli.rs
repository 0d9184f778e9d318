//! Command-line interface (clap derive).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use serde::Serialize;

const EXAMPLES: &str = "\
Examples:
  shardlab run
      the built-in suite: zipf, uniform and sequential keys through range, hash, ring and
      salted on 16 shards growing to 17; report under results/<UTC time>/
  shardlab run --workload zipf:keys=100000,s=1.2 --schemes hash,ring:vnodes=64 --shards 32
  shardlab run --trace keys.csv --key-type u64 --schemes range:boundaries=splits.txt --out review
  shardlab run --workload sequential --shards 8 --grow 12 --window 5000";

/// shardlab: replay key traces through partitioning schemes and measure hot spots, remap on
/// growth, scan fan-out, split quality and lookup latency.
#[derive(Debug, Parser)]
#[command(name = "shardlab", version, about, after_help = EXAMPLES)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Replay workloads or a trace through the schemes and write a report.
    #[command(after_help = EXAMPLES)]
    Run(RunArgs),
    /// Re-render the charts, report.html and report.md of a run directory from its CSV files,
    /// without replaying.
    #[command(after_help = "Example:\n  shardlab report results/2026-11-30T010203Z")]
    Report(ReportArgs),
}

/// Options of `shardlab report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A directory written by `shardlab run` (summary.csv, shards.csv, windows.csv, manifest.json).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// Options of `shardlab run`.
#[derive(Debug, Args, Serialize)]
pub struct RunArgs {
    /// A synthetic workload spec, repeatable: uniform, zipf, sequential, timestamp, hotspot,
    /// latest, each with parameters, e.g. `zipf:keys=1000000,s=0.99,scans=0.05`.
    /// Without --workload and --trace the built-in suite runs.
    #[arg(short, long = "workload", value_name = "SPEC")]
    pub workloads: Vec<String>,

    /// A recorded trace: CSV with a header naming `key` and optionally `op`, `end`,
    /// `timestamp`, `size`.
    #[arg(short, long, value_name = "FILE")]
    pub trace: Option<PathBuf>,

    /// How the trace's key text is read: `bytes` (as is) or `u64` (decimal integers).
    #[arg(long, default_value = "bytes", value_parser = ["bytes", "u64"])]
    pub key_type: String,

    /// Comma-separated schemes with parameters: range[:boundaries=FILE,ranges_per_shard=R],
    /// hash, ring[:vnodes=V], salted[:buckets=B].
    #[arg(short, long, default_value = "range,hash,ring,salted", value_name = "LIST")]
    pub schemes: String,

    /// Number of shards N.
    #[arg(short = 'n', long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..))]
    pub shards: u32,

    /// Shard count M for the remap measurement (default N+1; below N measures a shrink).
    #[arg(long, value_name = "M", value_parser = clap::value_parser!(u32).range(1..))]
    pub grow: Option<u32>,

    /// Events per synthetic workload.
    #[arg(short, long, default_value_t = 1_000_000)]
    pub events: u64,

    /// Seed of the synthetic workloads (same seed, same events).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,

    /// Events per window for the windowed hottest-shard share.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub window: u64,

    /// Share of the events used to learn range boundaries (not measured).
    #[arg(long, default_value_t = 0.1, value_parser = parse_fraction)]
    pub warmup: f64,

    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub threads: Option<u64>,

    /// Skip the lookup-latency phase.
    #[arg(long)]
    pub no_latency: bool,

    /// Output directory (default results/<UTC time>/).
    #[arg(short, long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Replace the files of an existing output directory.
    #[arg(long)]
    pub force: bool,

    /// No progress bar and no table on stdout.
    #[arg(short, long)]
    pub quiet: bool,
}

fn parse_fraction(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..1.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' must be a fraction in [0, 1), e.g. 0.1")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_cli_definition_is_valid() {
        Cli::command().debug_assert();
    }
}
