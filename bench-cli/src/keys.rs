//! `shardlab keys`: which column (or columns) to shard on, measured on a multi-column trace
//! under each scheme (the figures and the rule are in the `shardkeys` crate and docs/keys.md).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use reports::output::OutputDir;
use schemes::SchemeSpec;
use shardkeys::{analyze, KeysError, Options};
use workloads::trace::ops::OpMap;

use crate::usage::usage;

/// Examples of `shardlab keys`.
pub const KEYS_EXAMPLES: &str = "\
Example:
  shardlab keys --trace orders.csv --candidates 'tenant; tenant,user; hashed(user); ts' \\
      --schemes hash,range --shards 16 --txn-col txn --out keys-review";

/// Options of `shardlab keys`.
#[derive(Debug, Args)]
pub struct KeysArgs {
    /// The multi-column CSV trace, with a header (see docs/keys.md, "What to shard on").
    #[arg(long, value_name = "FILE")]
    pub trace: PathBuf,
    /// Candidate keys separated by ';': a column, columns in order (`tenant,user`) or
    /// `hashed(c)` parts.
    #[arg(long, value_name = "LIST")]
    pub candidates: String,
    /// Comma-separated schemes with parameters, as for `run --schemes` (fixed layouts only).
    #[arg(short, long, value_name = "LIST", default_value = "hash,range")]
    pub schemes: String,
    /// Number of shards N.
    #[arg(short = 'n', long, value_name = "N", default_value_t = 16)]
    pub shards: u32,
    /// Share of the rows whose keys learn range boundaries.
    #[arg(long, value_name = "F", default_value_t = 0.1)]
    pub warmup: f64,
    /// The column that names each row's operation.
    #[arg(long, value_name = "COL", default_value = "op")]
    pub op_col: String,
    /// A column whose non-empty cells group operations into transactions.
    #[arg(long, value_name = "COL")]
    pub txn_col: Option<String>,
    /// More operation names, `NAME=OP,...` (OP is get, put, delete or scan).
    #[arg(long, value_name = "MAP", default_value = "")]
    pub op_map: String,
    /// A candidate whose most common value carries at least this share of its key
    /// operations is unsplittable.
    #[arg(long, value_name = "SHARE", default_value_t = 0.3)]
    pub unsplittable: f64,
    /// Values per candidate in top_values.csv.
    #[arg(long, value_name = "K", default_value_t = 10)]
    pub top: usize,
    /// The directory to write keys.csv, top_values.csv and report.md into.
    #[arg(short, long, value_name = "DIR")]
    pub out: PathBuf,
    /// Replace an existing output directory (once the new one is complete).
    #[arg(long)]
    pub force: bool,
    /// Print nothing (the files are written all the same).
    #[arg(short, long)]
    pub quiet: bool,
}

/// Runs `shardlab keys`.
pub fn keys(args: KeysArgs) -> Result<()> {
    let schemes =
        SchemeSpec::parse_list(&args.schemes).map_err(|e| usage(format!("--schemes: {e}")))?;
    let op_map = OpMap::parse(&args.op_map).map_err(usage)?;
    for (name, v) in [
        ("--warmup", args.warmup),
        ("--unsplittable", args.unsplittable),
    ] {
        if !(0.0..=1.0).contains(&v) {
            return Err(usage(format!("{name} must be a share in [0, 1], not {v}")));
        }
    }
    let opts = Options {
        candidates: args.candidates.clone(),
        schemes,
        shards: args.shards,
        warmup: args.warmup,
        op_col: args.op_col.clone(),
        txn_col: args.txn_col.clone(),
        op_map,
        unsplittable: args.unsplittable,
        top: args.top,
    };
    let out = OutputDir::claim_staged(&args.out, args.force)?;
    let report = analyze(&args.trace, &opts).map_err(|e| match e {
        KeysError::Usage(m) => usage(m),
        KeysError::Data(m) => anyhow::anyhow!(m),
    })?;
    out.create()?;
    out.write_file("keys.csv", report.keys_csv.as_bytes())?;
    out.write_file("top_values.csv", report.top_values_csv.as_bytes())?;
    out.write_file("report.md", report.report_md.as_bytes())?;
    let dir = out
        .commit()
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    if !args.quiet {
        print!("{}", report.report_md);
        println!("\nwritten: {}", dir.display());
    }
    Ok(())
}
