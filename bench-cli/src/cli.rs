//! Command-line interface (clap derive).

use std::path::{Path, PathBuf};

use crate::sweep;
use clap::Args;
use engine::metrics::failure::FailTarget;
use reports::output::OutputDir;
use schemes::key_counts::DEFAULT_DISTINCT_LIMIT;
use schemes::ShardCount;
use schemes::{BuildContext, SchemeSpec};
use serde::Serialize;
use workloads::trace::{Column, CsvColumns, InvalidPolicy, OpMap, TraceFormat, TraceOptions};
use workloads::KeyType;

/// How a recorded trace is read: the options shared by `run`, `plan`, `inspect` and `convert`.
#[derive(Clone, Debug, Default, Args, Serialize)]
#[command(next_help_heading = TRACE_READING)]
pub struct TraceArgs {
    /// How key text is read in csv, text and twitter traces: `bytes` (as is) or `u64`
    /// (decimal integers, ordered numerically). Binary and block traces have integer keys, and
    /// so does a csv whose header says `key:u64` (as `gen` writes it).
    #[arg(long, default_value = "bytes", value_parser = ["bytes", "u64"])]
    pub key_type: String,

    /// csv: the key column, by header name or 1-based number (default `key`, or 1 without a
    /// header); or a candidate key of a multi-column trace (`tenant,user`, `hashed(user)`),
    /// as `shardlab keys` measures it.
    #[arg(long, value_name = "COL", value_parser = parse_column)]
    pub key_col: Option<Column>,

    /// csv: the operation column (default `op` when present; empty cells are gets).
    #[arg(long, value_name = "COL", value_parser = parse_column)]
    pub op_col: Option<Column>,

    /// csv: the timestamp column (default `timestamp` when present).
    #[arg(long, value_name = "COL", value_parser = parse_column)]
    pub time_col: Option<Column>,

    /// csv: the value-size column (default `size` when present).
    #[arg(long, value_name = "COL", value_parser = parse_column)]
    pub size_col: Option<Column>,

    /// csv: the exclusive end key of scans (default `end` when present).
    #[arg(long, value_name = "COL", value_parser = parse_column)]
    pub end_col: Option<Column>,

    /// csv: the first line is data, not a header (columns are then given by number).
    #[arg(long)]
    pub no_header: bool,

    /// csv: the field delimiter: `,`, `tab`, `|`, `;` or any one character (default:
    /// detected among those four).
    #[arg(long, value_name = "CHAR", value_parser = parse_delimiter)]
    pub delimiter: Option<u8>,

    /// csv and twitter: names for operations beyond the usual ones, e.g. `28=get,2a=put`
    /// (ops: get, put, delete, scan).
    #[arg(long, value_name = "NAME=OP,...")]
    pub op_map: Option<String>,

    /// msr: bytes per key unit; a request spanning several units is a scan [default: 4096].
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..))]
    pub block_size: Option<u64>,

    /// Skip malformed records instead of stopping at the first; their count is printed and
    /// recorded in the manifest.
    #[arg(long)]
    pub skip_invalid: bool,

    /// Skip malformed records but fail after more than N (implies --skip-invalid).
    #[arg(long, value_name = "N")]
    pub max_invalid: Option<u64>,
}

impl TraceArgs {
    /// Options for the trace at `given`, and the trace opened to check it and learn its
    /// format. A trace that cannot be read again (standard input, a FIFO, `<(cmd)`) gets a
    /// byte tally for its checksum, since its opened stream is the only read.
    pub fn open_checked(
        &self,
        given: &Path,
        format: Option<TraceFormat>,
    ) -> anyhow::Result<(TraceOptions, workloads::trace::OpenedTrace)> {
        let mut opts = self.options(given, format).map_err(crate::usage::usage)?;
        if !workloads::trace::rereadable(given) {
            opts.tally = Some(workloads::trace::ByteTally::default());
        }
        let opened = workloads::trace::open_detected(&opts)?;
        Ok((opts, opened))
    }

    /// The reader options for the trace at `path` (`-` for standard input).
    pub fn options(
        &self,
        path: &Path,
        format: Option<TraceFormat>,
    ) -> Result<TraceOptions, String> {
        let mut opts =
            TraceOptions::new(path, KeyType::from_name(&self.key_type).unwrap_or_default());
        opts.format = format;
        opts.csv = CsvColumns {
            key: self.key_col.clone(),
            op: self.op_col.clone(),
            time: self.time_col.clone(),
            size: self.size_col.clone(),
            end: self.end_col.clone(),
        };
        opts.no_header = self.no_header;
        opts.delimiter = self.delimiter;
        if let Some(map) = &self.op_map {
            opts.op_map = OpMap::parse(map)?;
        }
        opts.block_size = self.block_size;
        opts.invalid = if self.skip_invalid || self.max_invalid.is_some() {
            InvalidPolicy::skipping(self.max_invalid)
        } else {
            InvalidPolicy::strict()
        };
        Ok(opts)
    }
}

/// Options of `shardlab inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The trace (`-` for standard input); zstd and gzip are read directly.
    #[arg(value_name = "TRACE")]
    pub trace: PathBuf,

    /// The trace format (default: from the name and first bytes): csv, text, twitter,
    /// oracle-general, vscsi, msr.
    #[arg(long, value_name = "FORMAT", value_parser = parse_format, help_heading = TRACE_READING)]
    pub format: Option<TraceFormat>,

    /// How the trace is read.
    #[command(flatten)]
    pub read: TraceArgs,

    /// Keys listed in the top-keys table.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1000), help_heading = MEASUREMENT)]
    pub top: u64,

    /// Distinct keys counted exactly before switching to a hash sample (then estimated).
    #[arg(long, default_value_t = DEFAULT_DISTINCT_LIMIT as u64, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), help_heading = MEASUREMENT)]
    pub distinct_limit: u64,

    /// Also write DIR/inspect.csv (`metric,value`) and DIR/top_keys.csv.
    #[arg(short, long, value_name = "DIR", help_heading = OUTPUT)]
    pub out: Option<PathBuf>,

    /// Replace the files of an existing output directory.
    #[arg(long, help_heading = OUTPUT)]
    pub force: bool,

    /// No progress bar.
    #[arg(short, long, help_heading = OUTPUT)]
    pub quiet: bool,
}

/// Options of `shardlab gen`.
#[derive(Debug, Args)]
pub struct GenArgs {
    /// A synthetic workload spec, as for `run --workload` (e.g. `zipf:s=1.0`, `ycsb:a`), or
    /// a multi-column workload for `shardlab keys` (`orders:tenants=100,s=1.1`).
    #[arg(value_name = "WORKLOAD")]
    pub workload: String,

    /// Events to generate (the default of `run --events`).
    #[arg(short, long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..), help_heading = INPUT)]
    pub events: u64,

    /// Seed (the default of `run --seed`): same seed, same events.
    #[arg(long, default_value_t = 42, help_heading = INPUT)]
    pub seed: u64,

    /// The trace file to write (`-` for standard output); `.zst` or `.gz` compresses it.
    #[arg(short, long = "out", value_name = "FILE", help_heading = OUTPUT)]
    pub out: PathBuf,

    /// Output format: csv (every event; its header records the key type, so `run` and
    /// `inspect` read it back as written) or oracle-general (binary; no scans, puts stored
    /// as plain requests).
    #[arg(long, default_value = "csv", value_parser = ["csv", "oracle-general"], help_heading = OUTPUT)]
    pub format: String,

    /// Replace an existing file.
    #[arg(long, help_heading = OUTPUT)]
    pub force: bool,

    /// No progress bar.
    #[arg(short, long, help_heading = OUTPUT)]
    pub quiet: bool,
}

/// Options of `shardlab convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The trace to read (`-` for standard input).
    #[arg(value_name = "IN")]
    pub input: PathBuf,

    /// The trace to write (`-` for standard output); `.zst` or `.gz` compresses it.
    #[arg(short, long = "out", value_name = "OUT", help_heading = OUTPUT)]
    pub out: PathBuf,

    /// Output format: csv, text or oracle-general (default: from OUT's name).
    #[arg(long, value_name = "FORMAT", value_parser = parse_format, help_heading = OUTPUT)]
    pub format: Option<TraceFormat>,

    /// oracle-general: store keys that are not 64-bit integers as their XXH3-64 hash (key
    /// order is lost; distinct keys are kept up to hash collisions).
    #[arg(long, help_heading = OUTPUT)]
    pub hash_keys: bool,

    /// Replace an existing file.
    #[arg(long, help_heading = OUTPUT)]
    pub force: bool,

    /// No progress bar.
    #[arg(short, long, help_heading = OUTPUT)]
    pub quiet: bool,

    /// Input format (default: from IN's name and first bytes).
    #[arg(long, value_name = "FORMAT", value_parser = parse_format, help_heading = TRACE_READING)]
    pub from: Option<TraceFormat>,

    /// How the input is read.
    #[command(flatten)]
    pub read: TraceArgs,
}

/// Options of `shardlab report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A directory written by `shardlab run` (summary.csv, shards.csv, windows.csv, manifest.json).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// Options of `shardlab merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The partial results written by `run --part I/K --counts DIRS --out DIR`, one per part
    /// (directories, or a quoted glob such as 'work/part-*').
    #[arg(value_name = "PART_DIR", required = true)]
    pub parts: Vec<PathBuf>,

    /// The run directory to write.
    #[arg(short, long, value_name = "DIR")]
    pub out: PathBuf,

    /// Replace an existing run directory (once the new one is complete).
    #[arg(long)]
    pub force: bool,

    /// No progress bar and no table on stdout.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Options of `shardlab run`.
#[derive(Debug, Args, Serialize)]
pub struct RunArgs {
    /// What is replayed.
    #[command(flatten)]
    #[serde(flatten)]
    pub input: InputArgs,

    /// How the trace is read.
    #[command(flatten)]
    #[serde(flatten)]
    pub read: TraceArgs,

    /// The schemes.
    #[command(flatten)]
    #[serde(flatten)]
    pub schemes: SchemeArgs,

    /// Number of shards N, or a comma-separated list to sweep (e.g. 4,8,16,32,64).
    #[arg(short = 'n', long, default_value = "16", value_name = "N[,N...]", value_parser = sweep::parse_shards, help_heading = SCHEMES)]
    pub shards: sweep::ShardCounts,

    /// Shard count M for the remap measurement (default +1; below N measures a shrink): a
    /// comma-separated list of counts (17,20,24,32) or steps relative to N (+1,x2,-1).
    // Hyphen values: `--grow -1` is a step, not an unknown option.
    #[arg(long, value_name = "M[,M...]", value_parser = sweep::parse_grow, allow_hyphen_values = true, help_heading = SCHEMES)]
    pub grow: Option<sweep::GrowSteps>,

    /// Also measure the load after one shard fails: a shard number, or `worst` (the shard
    /// whose loss leaves the busiest survivor); adds the fail_* rows to summary.csv.
    #[arg(long, value_name = "K|worst", value_parser = parse_fail, help_heading = SCHEMES)]
    pub fail: Option<FailTarget>,

    /// Relative shard weights for machines of unequal size: `W1,...,WN` or a file with one
    /// per line. ring (vnodes), rendezvous (scores), maglev (table slots) and learned range
    /// boundaries follow them; other schemes refuse. Balance is then measured per weight.
    #[arg(long, value_name = "W,...|FILE", help_heading = SCHEMES)]
    pub weights: Option<String>,

    /// A cluster that changes over time.
    #[command(flatten)]
    #[serde(flatten)]
    pub scenario: crate::scenario::ScenarioArgs,

    /// Replay each synthetic workload with K seeds (--seed, --seed+1, ...) for 95% intervals
    /// of every non-timing metric (values stay those of --seed). A recorded trace gets a
    /// block bootstrap over its windows instead.
    #[arg(long, default_value_t = 1, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=1000), help_heading = MEASUREMENT)]
    pub repeat: u32,

    /// Events per window for the windowed hottest-shard share (at most 4294967295: the
    /// per-window counters are 32-bit).
    #[arg(long, default_value_t = 10_000, value_parser = parse_window, help_heading = MEASUREMENT)]
    pub window: u64,

    /// Distinct keys counted exactly; beyond, key metrics are estimated from a hash sample of
    /// the key space (summary.csv says which, with the sample rate and a 95% interval).
    #[arg(long, default_value_t = DEFAULT_DISTINCT_LIMIT as u64, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), help_heading = MEASUREMENT)]
    pub distinct_limit: u64,

    /// Skip the lookup-latency phase.
    #[arg(long, help_heading = MEASUREMENT)]
    pub no_latency: bool,

    /// Run only part I of K (0-based) of a trace given as files, for clusters: step 1 counts
    /// the events of the part's share of the files into --out; step 2 (with --counts) replays
    /// the share; `shardlab merge` then writes the run. See docs/parts-and-dask.md.
    #[arg(long, value_name = "I/K", help_heading = OUTPUT)]
    pub part: Option<engine::part::PartIndex>,

    /// With --part, step 2: the count directories of step 1, one per part (repeatable, or a
    /// quoted glob such as 'work/count-*').
    #[arg(long, value_name = "DIR", num_args = 1.., requires = "part", help_heading = OUTPUT)]
    pub counts: Vec<PathBuf>,

    /// Worker threads.
    #[command(flatten)]
    #[serde(flatten)]
    pub threads: ThreadArgs,

    /// Where the report goes.
    #[command(flatten)]
    #[serde(flatten)]
    pub output: OutputArgs,

    /// Read options from a TOML file whose keys are long option names (`shards = [8, 16]`,
    /// `schemes = "hash,ring"`, `no-latency = true`); options on the command line win. The
    /// file is copied into the run directory as config.toml and its checksum is in the
    /// manifest. See docs/usage.md, "A review as a file".
    #[arg(long, value_name = "FILE", help_heading = OUTPUT)]
    #[serde(skip)]
    pub config: Option<PathBuf>,
}

/// Help heading of the options that say what is replayed.
pub const INPUT: &str = "Input";
/// Help heading of the options that say how a trace file is read.
pub const TRACE_READING: &str = "Trace reading";
/// Help heading of the scheme options.
pub const SCHEMES: &str = "Schemes";
/// Help heading of the options that tune what is measured.
pub const MEASUREMENT: &str = "Measurement";
/// Help heading of the output options.
pub const OUTPUT: &str = "Output";

/// What `run` and `plan` replay: synthetic workloads, a recorded trace, or the built-in suite.
#[derive(Debug, Args, Serialize)]
#[command(next_help_heading = INPUT)]
pub struct InputArgs {
    /// A synthetic workload spec, repeatable, with parameters (e.g.
    /// `zipf:keys=1000000,s=0.99,scans=0.05`). Without --workload and --trace the built-in
    /// suite runs.
    #[arg(short, long = "workload", value_name = "SPEC", help = workload_names(), long_help = workload_help())]
    pub workloads: Vec<String>,

    /// A recorded trace (`-` for standard input): csv, text, twitter, oracle-general, vscsi
    /// or msr, plain or zstd/gzip-compressed; see the trace-reading options. Repeatable, and
    /// a quoted glob pattern (`--trace 'cluster52.*.zst'`, matches sorted by name) is
    /// expanded: the files are read in order as one trace, each with its own format.
    #[arg(short, long, value_name = "FILE|GLOB")]
    pub trace: Vec<PathBuf>,

    /// Events per synthetic workload.
    #[arg(short, long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub events: u64,

    /// Seed of the synthetic workloads (same seed, same events).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,

    /// The trace format (default: from the name and first bytes).
    #[arg(long, value_name = "FORMAT", value_parser = parse_format, help_heading = TRACE_READING)]
    pub format: Option<TraceFormat>,
}

/// The built-in suite run by `shardlab run` without workloads or a trace.
pub const DEFAULT_SUITE: [&str; 3] = [
    "zipf:s=1.0,scans=0.05",
    "uniform:scans=0.05",
    "sequential:scans=0.05",
];

impl InputArgs {
    /// The workload specs to replay: the given ones, or the built-in suite when neither a
    /// workload nor a trace is given.
    pub fn specs(&self) -> Vec<String> {
        if self.workloads.is_empty() && self.trace.is_empty() {
            DEFAULT_SUITE.iter().map(|s| s.to_string()).collect()
        } else {
            self.workloads.clone()
        }
    }
}

/// `--workload`'s short help: the registered workloads by name.
fn workload_names() -> String {
    let names: Vec<&str> = workloads::synthetic::WORKLOADS
        .iter()
        .map(|k| k.name)
        .collect();
    format!(
        "A synthetic workload spec, repeatable: {} (parameters: --help). Without --workload \
         and --trace the built-in suite runs",
        names.join(", ")
    )
}

/// `--workload`'s long help: every registered workload, from the registry.
fn workload_help() -> String {
    let mut text = String::from(
        "A synthetic workload spec, repeatable, with parameters, e.g. \
         `zipf:keys=1000000,s=0.99,scans=0.05`; every workload also takes scans, scan_len, \
         writes, value_size and rate. Without --workload and --trace the built-in suite runs.\n\nWorkloads:",
    );
    for kind in workloads::synthetic::WORKLOADS {
        let params: Vec<&str> = kind.params.iter().map(|p| p.name).collect();
        text.push_str(&format!("\n  {}", kind.name));
        if !params.is_empty() {
            text.push_str(&format!("[:{}]", params.join(",")));
        }
        text.push_str(&format!("\n      {}", kind.about));
    }
    text
}

/// The schemes to compare (`run` and `plan`).
#[derive(Debug, Args, Serialize)]
#[command(next_help_heading = SCHEMES)]
pub struct SchemeArgs {
    /// Comma-separated schemes with parameters.
    #[arg(
        short,
        long,
        default_value = "range,hash,ring,salted",
        value_name = "LIST",
        help = scheme_names(),
        long_help = schemes_help()
    )]
    pub schemes: String,

    /// Share of the events used only to learn range boundaries, not measured (when a scheme
    /// learns).
    #[arg(long, default_value_t = 0.1, value_parser = parse_fraction)]
    pub warmup: f64,
}

impl SchemeArgs {
    /// The schemes of `--schemes`, each built once for `shards` shards without data (dynamic
    /// ones have their parameters parsed), so that bad names and parameters are usage errors
    /// before anything is read or written. A boundaries file that cannot be read stays a data
    /// error.
    pub fn checked(
        &self,
        shards: &[ShardCount],
        key_type: KeyType,
        weights: Option<&[f64]>,
    ) -> anyhow::Result<Vec<SchemeSpec>> {
        let schemes = SchemeSpec::parse_list(&self.schemes)?;
        if schemes.is_empty() {
            return Err(crate::usage::usage(format!(
                "--schemes is empty; valid schemes: {}",
                registered_schemes().join(", ")
            )));
        }
        for &n in shards {
            let ctx = BuildContext {
                shards: n.get(),
                warmup_keys: &[],
                key_type,
                weights,
            };
            for s in &schemes {
                s.validate(&ctx).map_err(|e| {
                    // Named once: most refusals already say `scheme 'X'` or `spec 'X'`.
                    let names = e.to_string().contains(&format!("'{}'", s.label()));
                    let e = crate::usage::config_is_usage(e);
                    match names {
                        true => e,
                        false => e.context(format!("checking scheme '{}'", s.label())),
                    }
                })?;
            }
        }
        Ok(schemes)
    }

    /// What `--warmup 0` does to a run's schemes that learn boundaries from the warm-up:
    /// they learn none, so every key falls in their first range, on one shard. `None` when
    /// no scheme learns or there is a warm-up.
    pub fn without_warmup(&self, schemes: &[SchemeSpec]) -> Option<String> {
        let learning: Vec<String> = schemes
            .iter()
            .filter(|s| s.needs_warmup())
            .map(SchemeSpec::label)
            .collect();
        (self.warmup == 0.0 && !learning.is_empty()).then(|| {
            format!(
                "--warmup 0 leaves {} without a warm-up to learn boundaries from: every key \
                 falls in one range, on one shard; give --warmup a share such as 0.1 (the \
                 default), or fixed boundaries (range:boundaries=FILE)",
                learning.join(", ")
            )
        })
    }
}

/// `--schemes`'s short help: the registered schemes by name.
fn scheme_names() -> String {
    format!(
        "Comma-separated schemes with parameters: {} (parameters: --help)",
        registered_schemes().join(", ")
    )
}

/// The names of every registered scheme, fixed and dynamic, in registry order.
fn registered_schemes() -> Vec<&'static str> {
    schemes::SCHEMES
        .iter()
        .chain(schemes::CHANGING_SCHEMES)
        .map(|k| k.name)
        .collect()
}

/// `--schemes`'s long help: every registered scheme with its parameters, from the registry.
fn schemes_help() -> String {
    use schemes::{CHANGING_SCHEMES, SCHEMES};
    let mut text = String::from(
        "Comma-separated schemes with parameters, e.g. `range:ranges_per_shard=4,ring:vnodes=64`.\n\nSchemes:",
    );
    for kind in SCHEMES.iter().chain(CHANGING_SCHEMES) {
        let params: Vec<&str> = kind.params.iter().map(|(name, _)| *name).collect();
        text.push_str(&format!("\n  {}", kind.name));
        if !params.is_empty() {
            text.push_str(&format!("[:{}]", params.join(",")));
        }
        text.push_str(&format!("\n      {}", kind.about));
    }
    text
}

/// Worker threads (`run` and `plan`).
#[derive(Debug, Args, Serialize)]
#[command(next_help_heading = MEASUREMENT)]
pub struct ThreadArgs {
    /// Worker threads (default: all cores; at most 256). Results do not depend on it.
    #[arg(long, value_parser = parse_threads)]
    pub threads: Option<u64>,
}

impl ThreadArgs {
    /// The worker pool.
    pub fn pool(&self) -> anyhow::Result<rayon::ThreadPool> {
        use anyhow::Context;
        rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads.unwrap_or(0) as usize)
            .build()
            .context("cannot start the worker threads")
    }
}

/// Where a report goes (`run` and `plan`).
#[derive(Debug, Args, Serialize)]
#[command(next_help_heading = OUTPUT)]
pub struct OutputArgs {
    /// Output directory (default: a new directory under results/ named by the start time,
    /// e.g. results/2026-12-01T144151.123Z/, or results/plan-.../ for a plan). An existing
    /// one is refused unless --force.
    #[arg(short, long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Use an existing output directory: `run` replaces a run directory whole once the new
    /// one is complete; `plan` replaces the files it writes (other files are left alone).
    #[arg(long)]
    pub force: bool,

    /// No progress bar and no table on stdout.
    #[arg(short, long)]
    pub quiet: bool,
}

impl OutputArgs {
    /// Like [`OutputArgs::claim`], but written whole under a temporary sibling name and
    /// renamed into place by its commit (`run`).
    pub fn claim_staged(&self, prefix: &str) -> anyhow::Result<OutputDir> {
        let out = match &self.out {
            Some(dir) => {
                crate::usage::not_dash_dir(dir, "--out")?;
                OutputDir::claim_staged(dir, self.force)?
            }
            None => OutputDir::claim_staged_unique(Path::new("results"), prefix)?,
        };
        Ok(out)
    }

    /// `--out` claimed (refused when it exists, unless `--force`), or a new directory under
    /// `results/` named `{prefix}<UTC time>`, created here so that two commands started at
    /// once never share it.
    pub fn claim(&self, prefix: &str) -> anyhow::Result<OutputDir> {
        let out = match &self.out {
            Some(dir) => {
                crate::usage::not_dash_dir(dir, "--out")?;
                OutputDir::claim(dir, self.force)?
            }
            None => OutputDir::create_unique(Path::new("results"), prefix)?,
        };
        Ok(out)
    }
}

/// The options of the subcommand given on the command line (not defaults), by field name
/// (`key_type`), for the report to show what was chosen and fold the rest.
pub fn options_given(matches: &clap::ArgMatches) -> Vec<String> {
    let Some((_, sub)) = matches.subcommand() else {
        return Vec::new();
    };
    sub.ids()
        .filter(|id| sub.value_source(id.as_str()) == Some(clap::parser::ValueSource::CommandLine))
        .map(|id| id.to_string())
        .collect()
}

fn parse_format(s: &str) -> Result<TraceFormat, String> {
    s.parse()
}

fn parse_column(s: &str) -> Result<Column, String> {
    s.parse()
}

/// `tab` or `\t` is a tab; otherwise exactly one ASCII character that is not the quote or a
/// line end.
fn parse_delimiter(s: &str) -> Result<u8, String> {
    match s {
        "tab" | "\\t" | "\t" => Ok(b'\t'),
        "\"" => Err(
            "'\"' cannot be the delimiter: it is the quote character of csv fields; use \
                     `,`, `tab`, `|`, `;` or another single character"
                .into(),
        ),
        "\n" | "\r" => Err(
            "a line end cannot be the delimiter: it ends records; use `,`, \
                             `tab`, `|`, `;` or another single character"
                .into(),
        ),
        _ if s.len() == 1 && s.is_ascii() => Ok(s.as_bytes()[0]),
        _ => Err(format!(
            "'{s}' is not one character; use `,`, `tab`, `|`, `;` or another single character"
        )),
    }
}

/// The most worker threads (each holds its own accumulators).
const MAX_THREADS: u64 = 256;

/// `--threads`: 1 to [`MAX_THREADS`].
fn parse_threads(s: &str) -> Result<u64, String> {
    parse_bounded(
        s,
        1,
        MAX_THREADS,
        "worker threads (each holds its own accumulators)",
    )
}

/// `--window`: 1 to `u32::MAX` events.
fn parse_window(s: &str) -> Result<u64, String> {
    let why = "events per window (the per-window counters are 32-bit)";
    parse_bounded(s, 1, u64::from(u32::MAX), why)
}

/// A whole number in `min..=max`; `what` says what it counts and why it is bounded.
fn parse_bounded(s: &str, min: u64, max: u64, what: &str) -> Result<u64, String> {
    let t = s.trim();
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("'{s}' is not a whole number"));
    }
    match t.parse::<u64>() {
        Ok(n) if n < min => Err(format!("{n} is too small: at least {min}")),
        Ok(n) if n <= max => Ok(n),
        _ => Err(format!("{t} is too large: at most {max} {what}")),
    }
}

fn parse_fraction(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..1.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' must be a fraction in [0, 1), e.g. 0.1")),
    }
}

fn parse_fail(s: &str) -> Result<FailTarget, String> {
    s.parse().map_err(|e: schemes::AnalysisError| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::{Cli, Command};
    use clap::{CommandFactory, Parser};

    #[test]
    fn the_cli_definition_is_valid() {
        Cli::command().debug_assert();
    }

    #[test]
    fn a_run_without_warm_up_warns_about_the_schemes_that_learn_from_it() {
        let args = |schemes: &str, warmup: f64| SchemeArgs {
            schemes: schemes.into(),
            warmup,
        };
        let schemes = |a: &SchemeArgs| SchemeSpec::parse_list(&a.schemes).unwrap();
        let none = args("range,hash,salted:buckets=4", 0.0);
        let warning = none.without_warmup(&schemes(&none)).expect("a warning");
        assert!(
            warning.contains("leaves range, salted:buckets=4 without a warm-up")
                && warning.contains("--warmup"),
            "{warning}"
        );
        for quiet in [args("range,hash", 0.1), args("hash,ring", 0.0)] {
            assert_eq!(quiet.without_warmup(&schemes(&quiet)), None);
        }
    }

    #[test]
    fn trace_options_are_built_from_the_shared_flags() {
        let cli = Cli::try_parse_from([
            "shardlab",
            "inspect",
            "t.csv",
            "--key-col",
            "lbn",
            "--op-col",
            "3",
            "--delimiter",
            "tab",
            "--op-map",
            "28=get",
            "--max-invalid",
            "5",
            "--key-type",
            "u64",
        ])
        .unwrap();
        let Command::Inspect(args) = cli.command else {
            panic!("not inspect")
        };
        let opts = args.read.options(&args.trace, args.format).unwrap();
        assert_eq!(opts.csv.key, Some(Column::Name("lbn".into())));
        assert_eq!(opts.csv.op, Some(Column::Index(3)));
        assert_eq!(opts.delimiter, Some(b'\t'));
        assert_eq!(opts.key_type, KeyType::U64);
        assert!(opts.invalid.skips() && opts.invalid.max == Some(5));
        for bad in [
            &["--key-col", "0"][..],
            &["--delimiter", "ab"],
            &["--delimiter", "\""],
            &["--format", "parquet"],
        ] {
            assert!(
                Cli::try_parse_from(["shardlab", "inspect", "t"].iter().chain(bad)).is_err(),
                "{bad:?}"
            );
        }
    }
}
