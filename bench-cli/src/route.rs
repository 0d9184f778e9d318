//! `shardlab route`: the owner of each given key under each scheme, as CSV on stdout. The
//! placement logic lives in [`engine::route`]; this file reads options and writes rows.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use engine::route::{KeyLines, Placement, RouteConfig, Router, SeenKeys};
use schemes::weights;
use schemes::SchemeSpec;
use schemes::ShardCount;
use workloads::KeyType;

/// Examples shown by `shardlab route --help`.
pub const ROUTE_EXAMPLES: &str = "\
Examples:
  shardlab route --schemes hash,ring --shards 16 user42 user43
  shardlab route --schemes jump,maglev --shards 16 --grow 17 --keys keys.txt
  seq 1 1000 | shardlab route --schemes jump:hash=none --shards 100 --key-type u64 -
Output (CSV): key,scheme,shard,detail[,shard_after], one row per key and scheme, keys in
the order given. Schemes that learn from data (range) learn from the routed keys, and the
growth rule of --grow weighs them (range moves the ranges holding the fewest of them).";

/// Options of `shardlab route`.
#[derive(Debug, Args)]
pub struct RouteArgs {
    /// Comma-separated schemes with parameters, as for `run --schemes`.
    #[arg(short, long, value_name = "LIST")]
    pub schemes: String,

    /// Number of shards N.
    #[arg(short = 'n', long, value_name = "N")]
    pub shards: ShardCount,

    /// Also print `shard_after`: the owner once the scheme grows (or shrinks) to M shards by
    /// its own rule.
    #[arg(long, value_name = "M")]
    pub grow: Option<ShardCount>,

    /// How key text is read: `bytes` (as is) or `u64` (decimal integers, stored as 8
    /// big-endian bytes).
    #[arg(long, default_value = "bytes", value_parser = ["bytes", "u64"])]
    pub key_type: String,

    /// Relative shard weights, `W1,...,WN` or a file with one per line (schemes that cannot
    /// honour weights refuse them).
    #[arg(long, value_name = "W,...|FILE")]
    pub weights: Option<String>,

    /// Read the keys from FILE, one per line.
    #[arg(long = "keys", value_name = "FILE", conflicts_with = "keys")]
    pub keys_file: Option<PathBuf>,

    /// The keys to route; `-` alone reads them from standard input, one per line.
    #[arg(value_name = "KEY", required_unless_present = "keys_file")]
    pub keys: Vec<String>,
}

/// Where the keys come from.
enum Keys<'a> {
    Given(&'a [String]),
    File(&'a Path),
    Stdin,
}

/// Runs `shardlab route`.
pub fn route(args: RouteArgs) -> Result<()> {
    let schemes = SchemeSpec::parse_list(&args.schemes)?;
    if schemes.is_empty() {
        return Err(crate::usage::usage(
            "--schemes is empty; give at least one scheme, e.g. --schemes hash,ring",
        ));
    }
    let weights = args.weights.as_deref().map(weights::parse).transpose()?;
    let cfg = RouteConfig {
        shards: args.shards.get(),
        grow: args.grow.map(ShardCount::get),
        key_type: KeyType::from_name(&args.key_type).unwrap_or_default(),
        weights: weights.as_deref(),
    };
    // Refused before any key is read (exit 2: the command line alone decides).
    Router::check(&schemes, &cfg).map_err(crate::usage::config_is_usage)?;
    // Standard input is spooled when it must be read more than once.
    let mut spool = None;
    let keys = match (&args.keys_file, args.keys.as_slice()) {
        (Some(path), _) => Keys::File(path),
        (None, [dash]) if dash == "-" => {
            if Router::needs_keys(&schemes, &cfg) {
                // Registered before it exists: a signal removes it by its prefix (see
                // `interrupt`), at any point of the copy and after.
                let prefix = workloads::output::staging_prefix();
                crate::interrupt::stage_prefixed(&workloads::trace::spool_dir(), &prefix);
                spool = Some(workloads::trace::spool_stdin()?);
                Keys::File(spool.as_ref().map(|s| s.path()).unwrap_or(Path::new("-")))
            } else {
                Keys::Stdin
            }
        }
        (None, given) => Keys::Given(given),
    };
    let spooled = spool.is_some();
    let mut seen = SeenKeys::new();
    if Router::needs_keys(&schemes, &cfg) {
        for_each_key(&keys, cfg.key_type, spooled, |_, key| {
            seen.add(key);
            Ok(())
        })?;
    }
    let mut router = Router::build(&schemes, &cfg, seen)?;
    if router.grows() {
        // The grown layouts place every learned key again: learn them all first.
        if router.learns_arrival() {
            for_each_key(&keys, cfg.key_type, spooled, |_, key| {
                router.learn(key);
                Ok(())
            })?;
        }
        for refusal in router.finish_learning()? {
            eprintln!("warning: shard_after left empty: {refusal}");
        }
    }
    let labels = router.labels();
    let mut out = csv::Writer::from_writer(std::io::stdout().lock());
    let mut header = vec!["key", "scheme", "shard", "detail"];
    if router.grows() {
        header.push("shard_after");
    }
    out.write_record(&header)?;
    let mut placements: Vec<Placement> = Vec::with_capacity(labels.len());
    for_each_key(&keys, cfg.key_type, spooled, |text, key| {
        placements.clear();
        router.place(key, &mut placements);
        for (p, label) in placements.iter().zip(&labels) {
            let shard = p.shard.to_string();
            let after = p.shard_after.map(|s| s.to_string());
            let mut row: Vec<&[u8]> = vec![
                text,
                label.as_bytes(),
                shard.as_bytes(),
                p.detail.as_deref().unwrap_or("").as_bytes(),
            ];
            if router.grows() {
                // Empty when the scheme cannot reach the target (see `finish_learning`).
                row.push(after.as_deref().unwrap_or("").as_bytes());
            }
            out.write_record(&row)?;
        }
        Ok(())
    })?;
    out.flush()?;
    drop(spool);
    Ok(())
}

/// Calls `f` with the text and the key of every key in order; errors name the argument or
/// the file and line. `spooled` says that a file is standard input copied aside.
fn for_each_key(
    keys: &Keys<'_>,
    key_type: KeyType,
    spooled: bool,
    mut f: impl FnMut(&[u8], &[u8]) -> Result<()>,
) -> Result<()> {
    let mut lines = match keys {
        Keys::Given(given) => {
            let mut key = Vec::new();
            for (i, text) in given.iter().enumerate() {
                key.clear();
                // As keys from a file or stdin are read: u64 keys may be padded with spaces.
                key_type
                    .parse_written(text.as_bytes(), &mut key)
                    .map_err(|e| anyhow::anyhow!("key argument {} ('{text}'): {e}", i + 1))?;
                f(text.as_bytes(), &key)?;
            }
            return Ok(());
        }
        Keys::File(path) => {
            let file = File::open(path)
                .with_context(|| format!("cannot open key file '{}'", path.display()))?;
            let shown = if spooled {
                PathBuf::from("<stdin>")
            } else {
                path.to_path_buf()
            };
            KeyLines::new(
                Box::new(BufReader::new(file)) as Box<dyn std::io::BufRead>,
                shown,
                key_type,
            )
        }
        Keys::Stdin => KeyLines::new(
            Box::new(std::io::stdin().lock()) as Box<dyn std::io::BufRead>,
            "<stdin>",
            key_type,
        ),
    };
    while let Some((text, key)) = lines.next_key()? {
        f(text, key)?;
    }
    Ok(())
}
