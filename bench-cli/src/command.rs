//! The `shardlab` command line: its subcommands, each with its options (from [`crate::cli`]
//! and the command's own module) and examples.

use clap::{Parser, Subcommand};

use crate::cli::{ConvertArgs, GenArgs, InspectArgs, MergeArgs, ReportArgs, RunArgs};
use crate::completions::{CompletionsArgs, ManArgs, COMPLETIONS_EXAMPLES, MAN_EXAMPLES};
use crate::keys::{KeysArgs, KEYS_EXAMPLES};
use crate::migrate::{MigrateArgs, MIGRATE_EXAMPLES};
use crate::plan::{PlanArgs, PLAN_EXAMPLES};
use crate::route::{RouteArgs, ROUTE_EXAMPLES};

/// Examples shown by `shardlab --help` and `shardlab run --help`.
pub const EXAMPLES: &str = "\
Examples:
  shardlab run
      the built-in suite: zipf, uniform and sequential keys through range, hash, ring and
      salted on 16 shards growing to 17; report under results/<UTC time>/
  shardlab run --workload zipf:keys=100000,s=1.2 --schemes hash,ring:vnodes=64 --shards 32
  shardlab run --trace keys.csv --key-type u64 --schemes range:boundaries=splits.txt --out review
  shardlab run --workload sequential --shards 8 --grow 12 --window 5000
  shardlab run --workload zipf:s=0.6,0.8,1.0,1.2 --shards 4,8,16,32 --grow +1,x2,-1
      a sweep: every skew x shard count, each growing by one, doubling and shrinking by one";

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
    /// Describe a trace before replaying it: events, keys, op mix, time, sizes, top keys,
    /// Zipf fit, monotonicity, scans.
    #[command(after_help = INSPECT_EXAMPLES)]
    Inspect(InspectArgs),
    /// Record a synthetic workload to a trace file that `run --trace` replays identically.
    #[command(after_help = GEN_EXAMPLES)]
    Gen(GenArgs),
    /// Rewrite a trace in another format, preserving every event.
    #[command(after_help = CONVERT_EXAMPLES)]
    Convert(ConvertArgs),
    /// How many shards each scheme needs for a workload's peak rates, grown, replicated and
    /// surviving failures; writes plan.csv.
    #[command(after_help = PLAN_EXAMPLES)]
    Plan(PlanArgs),
    /// Where keys live under each scheme, and where after growth: CSV
    /// `key,scheme,shard,detail[,shard_after]` on stdout.
    #[command(after_help = ROUTE_EXAMPLES)]
    Route(RouteArgs),
    /// The moves of a growth or a drain in the system's own format (redis-cli reshard,
    /// kafka-reassign-partitions JSON, CSV), in steps under a byte budget per shard.
    #[command(after_help = MIGRATE_EXAMPLES)]
    Migrate(MigrateArgs),
    /// Combine the partial results of a run cut into parts (`run --part I/K`, e.g. on a
    /// cluster) into the run directory a single run writes.
    #[command(after_help = MERGE_EXAMPLES)]
    Merge(MergeArgs),
    /// Which column(s) to shard on: candidate keys of a multi-column trace measured under
    /// each scheme (single-shard, scatter-gather, monotonicity, hot values); writes keys.csv.
    #[command(after_help = KEYS_EXAMPLES)]
    Keys(KeysArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions(CompletionsArgs),
    /// Print the man page of shardlab, or of one subcommand, in roff (`man -l` renders it).
    #[command(after_help = MAN_EXAMPLES)]
    Man(ManArgs),
}

const MERGE_EXAMPLES: &str = "\
Examples (the three steps of a run cut into 2 parts; scripts/shardlab_dask.py runs them on Dask):
  shardlab run --trace 'day.*.csv.zst' --part 0/2 --out work/count-0     # and --part 1/2
  shardlab run --trace 'day.*.csv.zst' --part 0/2 --counts 'work/count-*' --out work/part-0
  shardlab merge 'work/part-*' --out results/day";

const INSPECT_EXAMPLES: &str = "\
Examples:
  shardlab inspect twitter_sample.csv
  shardlab inspect cluster52.oracleGeneral.bin.zst --out profile
  zstdcat trace.csv.zst | shardlab inspect - --format csv --key-col obj --op-col op
  shardlab inspect cloudPhysicsIO.csv --key-col lbn --key-type u64 --op-col op --op-map 28=get,2a=put";

const GEN_EXAMPLES: &str = "\
Examples:
  shardlab gen zipf:s=1.0 --events 1000000 -o zipf.csv
  shardlab gen ycsb:a -o ycsb_a.oracleGeneral.bin --format oracle-general
  shardlab run --trace zipf.csv     # same summary as: run --workload zipf:s=1.0";

const CONVERT_EXAMPLES: &str = "\
Examples:
  shardlab convert twitter_sample.csv -o twitter.oracleGeneral.bin --format oracle-general --hash-keys
  shardlab convert keys.csv --key-type u64 -o keys.bin.zst --format oracle-general
  shardlab convert trace.vscsi -o trace.csv.gz";
