//! `shardlab migrate`: the moves of a growth or a drain in the system's own format, cut into
//! steps under a byte budget per shard (the logic lives in [`planning::migration`]).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use planning::migration::{self, Change, Move, SizedKey, Step};
use schemes::{BuildContext, SchemeSpec, ShardCount};
use workloads::KeyType;

use crate::usage;

/// Examples shown by `shardlab migrate --help`.
pub const MIGRATE_EXAMPLES: &str = "\
Examples:
  shardlab migrate --scheme redis-cluster --shards 5 --grow 6 --keys sizes.tsv \\
      --step-bytes 64MiB --bandwidth 100MB --nodes masters.txt --out move
      moves.csv, steps.csv and reshard.sh (redis-cli --cluster add-node and reshard)
  shardlab migrate --scheme kafka:brokers=3,rf=2 --shards 12 --drain 2 --keys sizes.tsv \\
      --step-bytes 1GB --bandwidth 50MB --topic events --out move
      reassign.sh: one kafka-reassign-partitions.sh JSON per step
  shardlab migrate --scheme ketama --shards 4 --grow 5 --keys sizes.tsv --step-bytes 1MB \\
      --bandwidth 10MB --out move
Keys file: one key a line, or KEY<TAB>BYTES; a line without a tab stores --key-bytes.";

/// Options of `shardlab migrate`.
#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// The scheme, with parameters (`redis-cluster`, `kafka:brokers=B,rf=R`, any other).
    #[arg(short, long, value_name = "SPEC")]
    pub scheme: String,

    /// Shards now N (masters, partitions, servers).
    #[arg(short = 'n', long, value_name = "N")]
    pub shards: ShardCount,

    /// Grow to M shards by the scheme's own rule (kafka: M brokers).
    #[arg(
        long,
        value_name = "M",
        conflicts_with = "drain",
        required_unless_present = "drain"
    )]
    pub grow: Option<ShardCount>,

    /// Empty shard S (0-based) and remove it (kafka: broker S).
    #[arg(long, value_name = "S")]
    pub drain: Option<u32>,

    /// The keys and their sizes: one key a line, or `KEY<TAB>BYTES`.
    #[arg(long, value_name = "FILE")]
    pub keys: PathBuf,

    /// Bytes a key line without a size stores.
    #[arg(long, default_value_t = 1, value_name = "B")]
    pub key_bytes: u64,

    /// How the keys are read: `bytes` (as written) or `u64` (decimal integers, stored as 8
    /// big-endian bytes, as `route --key-type u64` reads them).
    #[arg(long, default_value = "bytes", value_parser = ["bytes", "u64"])]
    pub key_type: String,

    /// The most bytes one shard may send plus receive in one step (e.g. 64MiB).
    #[arg(long, value_name = "B", value_parser = crate::plan::parse_bytes)]
    pub step_bytes: f64,

    /// Bytes per second one shard moves (e.g. 100MB).
    #[arg(long, value_name = "B", value_parser = crate::plan::parse_bytes)]
    pub bandwidth: f64,

    /// redis-cluster: the masters' `host:port`, one a line, shard i = line i (a growth lists
    /// the new masters too; `-` reads them from standard input); writes reshard.sh.
    #[arg(long, value_name = "FILE")]
    pub nodes: Option<PathBuf>,

    /// kafka: the topic named in reassign.sh.
    #[arg(long, default_value = "topic", value_name = "NAME")]
    pub topic: String,

    /// Output directory (created; files in it are replaced).
    #[arg(short, long, value_name = "DIR")]
    pub out: PathBuf,
}

/// Reads a keys file: `KEY` or `KEY<TAB>BYTES` a line; errors name the file and line.
fn read_keys(path: &Path, default_bytes: u64, key_type: KeyType) -> Result<Vec<SizedKey>> {
    let text = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let body = text.strip_suffix(b"\n").unwrap_or(&text);
    if body.is_empty() {
        anyhow::bail!("{}: no key; write one key a line", path.display());
    }
    body.split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, raw)| {
            let line = raw.strip_suffix(b"\r").unwrap_or(raw);
            let (key, bytes) = match line.iter().rposition(|&b| b == b'\t') {
                None => (line, default_bytes),
                Some(tab) => {
                    let size = std::str::from_utf8(&line[tab + 1..])
                        .ok()
                        .and_then(|s| s.parse::<u64>().ok());
                    let Some(size) = size else {
                        anyhow::bail!(
                            "{}:{}: the size after the tab must be a whole number of bytes",
                            path.display(),
                            i + 1
                        );
                    };
                    (&line[..tab], size)
                }
            };
            let mut parsed = Vec::new();
            key_type
                .parse_written(key, &mut parsed)
                .map_err(|e| anyhow::anyhow!("{}:{}: {e}", path.display(), i + 1))?;
            Ok(SizedKey { key: parsed, bytes })
        })
        .collect()
}

/// Runs `shardlab migrate`.
pub fn migrate(args: MigrateArgs) -> Result<()> {
    let spec = SchemeSpec::parse_list(&args.scheme)?;
    let [spec] = spec.as_slice() else {
        return Err(usage::usage("--scheme takes one scheme"));
    };
    let n = args.shards.get();
    let change = match (args.grow, args.drain) {
        (Some(m), _) => Change::Grow(m.get()),
        (None, Some(s)) => Change::Drain(s),
        (None, None) => return Err(usage::usage("give --grow M or --drain S")),
    };
    let key_type = KeyType::from_name(&args.key_type).unwrap_or_default();
    let name = spec.kind().name;
    if key_type == KeyType::U64 && matches!(name, "redis-cluster" | "kafka") {
        return Err(usage::usage(format!(
            "--key-type u64: {name} places a key by the bytes its clients send, its text; give \
             the keys as written (--key-type bytes)"
        )));
    }
    let ctx = BuildContext {
        shards: n,
        warmup_keys: &[],
        key_type,
        weights: None,
    };
    let scheme = spec.build(&ctx)?;
    if let Change::Grow(m) = change {
        spec.check_points(m)?;
    }
    let keys = read_keys(&args.keys, args.key_bytes, key_type)?;
    let budget = args.step_bytes as u64;
    let brokers = match name {
        "kafka" => schemes::kafka::brokers_of(&spec.spec)?,
        _ => None,
    };
    let moves: Vec<Move> = match (name, brokers) {
        ("redis-cluster", _) => migration::redis_moves(n, change, &keys)?,
        ("kafka", Some(b)) => migration::kafka_moves(n, b, change, &keys)?,
        ("kafka", None) => {
            return Err(usage::usage(
                "kafka: adding partitions moves no record; a migration is of brokers: give \
                 kafka:brokers=B[,rf=R] and --grow/--drain brokers",
            ))
        }
        _ => migration::key_moves(scheme.as_ref(), change, &keys)?,
    };
    let steps: Vec<Step> = migration::steps(&moves, budget, args.bandwidth)?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let write = |file: &str, bytes: &[u8]| {
        let path = args.out.join(file);
        workloads::output::write_file(&path, bytes)
            .with_context(|| format!("cannot write {}", path.display()))
    };
    write(
        "moves.csv",
        &migration::moves_csv(&moves, &steps, (&keys, key_type), args.bandwidth)?,
    )?;
    write("steps.csv", migration::steps_csv(&moves, &steps).as_bytes())?;
    let mut written = vec!["moves.csv", "steps.csv"];
    match (name, &args.nodes) {
        ("redis-cluster", Some(nodes)) => {
            let text = if nodes.as_os_str() == "-" {
                std::io::read_to_string(std::io::stdin()).context("cannot read the nodes")?
            } else {
                std::fs::read_to_string(nodes)
                    .with_context(|| format!("cannot read {}", nodes.display()))?
            };
            let lines: Vec<String> = text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect();
            let script = migration::redis_script(n, change, &moves, &steps, &lines, args.bandwidth)
                .with_context(|| format!("{}", nodes.display()))?;
            write("reshard.sh", script.as_bytes())?;
            written.push("reshard.sh");
        }
        ("kafka", _) => {
            write(
                "reassign.sh",
                migration::kafka_script(&args.topic, &moves, &steps).as_bytes(),
            )?;
            written.push("reassign.sh");
        }
        _ => {}
    }
    let bytes: u64 = moves.iter().map(|m| m.bytes).sum();
    let seconds: f64 = steps.iter().map(|s| s.seconds).sum();
    println!(
        "{}: {} moves, {bytes} bytes in {} steps of at most {budget} bytes per shard, {seconds:.3} \
         s at {} bytes/s; wrote {} in {}",
        spec.label(),
        moves.len(),
        steps.len(),
        args.bandwidth,
        written.join(", "),
        args.out.display()
    );
    Ok(())
}
