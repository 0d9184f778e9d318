//! End-to-end tests of recorded traces: every format on its real sample (counts checked
//! against an independent parse in this file), compression, standard input, `inspect`, `gen`,
//! `convert`, and each bad-input case with its message and exit code.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

mod common;

use common::{manifest, shardlab, stderr_of, stdout_of};

/// A sample trace under `tests/fixtures/traces`.
fn fixture(name: &str) -> PathBuf {
    common::fixture("traces").join(name)
}

/// Runs `shardlab inspect TRACE ARGS --out DIR` and returns `inspect.csv` as metric -> value.
fn inspect(trace: &Path, args: &[&str]) -> BTreeMap<String, String> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("profile");
    shardlab()
        .arg("inspect")
        .arg(trace)
        .args(args)
        .args(["--quiet", "--out"])
        .arg(&out)
        .assert()
        .success();
    let mut rows = BTreeMap::new();
    let mut reader = csv::Reader::from_path(out.join("inspect.csv")).unwrap();
    assert_eq!(reader.headers().unwrap(), vec!["metric", "value"]);
    for rec in reader.records() {
        let rec = rec.unwrap();
        rows.insert(rec[0].to_string(), rec[1].to_string());
    }
    let top = std::fs::read_to_string(out.join("top_keys.csv")).unwrap();
    assert!(top.starts_with("rank,key,count,error,share\n"), "{top}");
    rows
}

/// What the independent parse of a sample counts.
#[derive(Debug, Default, PartialEq)]
struct Counts {
    events: u64,
    distinct_keys: u64,
    gets: u64,
    puts: u64,
    deletes: u64,
    scans: u64,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Get,
    Put,
    Delete,
    Scan,
}

/// Counts events, distinct keys (a scan by its start) and ops.
fn count<K: std::hash::Hash + Eq>(events: impl IntoIterator<Item = (K, Kind)>) -> Counts {
    let mut c = Counts::default();
    let mut keys = HashSet::new();
    for (key, kind) in events {
        c.events += 1;
        keys.insert(key);
        match kind {
            Kind::Get => c.gets += 1,
            Kind::Put => c.puts += 1,
            Kind::Delete => c.deletes += 1,
            Kind::Scan => c.scans += 1,
        }
    }
    c.distinct_keys = keys.len() as u64;
    c
}

/// The counts `inspect` reported.
fn reported(rows: &BTreeMap<String, String>) -> Counts {
    let n = |m: &str| {
        rows[m]
            .parse::<u64>()
            .unwrap_or_else(|_| panic!("{m} = {:?}", rows[m]))
    };
    assert_eq!(rows["distinct_keys_estimate"], "0");
    Counts {
        events: n("events"),
        distinct_keys: n("distinct_keys"),
        gets: n("gets"),
        puts: n("puts"),
        deletes: n("deletes"),
        scans: n("scans"),
    }
}

/// The fields of each line of a plain (unquoted) CSV sample.
fn fields(name: &str) -> Vec<Vec<String>> {
    std::fs::read_to_string(fixture(name))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.trim_end_matches('\r')
                .split(',')
                .map(str::to_string)
                .collect()
        })
        .collect()
}

fn le_u64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().unwrap())
}

fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b[..4].try_into().unwrap())
}

// ---- every format on its real sample ----

/// The CloudPhysics CSV (`version,time,op,size,lbn`), counted as csv reads it: op 28 is a
/// read, 2a a write.
fn cloud_physics_csv() -> Counts {
    let rows = fields("cloudPhysicsIO_2000.csv");
    count(rows[1..].iter().map(|f| {
        (
            f[4].clone(),
            if f[2] == "28" { Kind::Get } else { Kind::Put },
        )
    }))
}

#[test]
fn csv_reads_the_cloudphysics_sample_with_mapped_columns_and_an_op_map() {
    let rows = inspect(
        &fixture("cloudPhysicsIO_2000.csv"),
        &[
            "--key-col",
            "lbn",
            "--key-type",
            "u64",
            "--op-col",
            "3",
            "--op-map",
            "28=get,2a=put",
            "--time-col",
            "time",
            "--size-col",
            "size",
        ],
    );
    let expected = cloud_physics_csv();
    assert_eq!(expected.events, 2000);
    assert!(expected.gets > 0 && expected.puts > 0);
    assert_eq!(reported(&rows), expected);
    assert_eq!(rows["format"], "csv");
    // Timestamps and sizes come from the mapped columns.
    let f = fields("cloudPhysicsIO_2000.csv");
    assert_eq!(rows["time_first"], f[1][1]);
    assert_eq!(rows["time_last"], f[2000][1]);
    let max_size = f[1..]
        .iter()
        .map(|r| r[3].parse::<u64>().unwrap())
        .max()
        .unwrap();
    assert_eq!(rows["value_size_max"], max_size.to_string());
}

#[test]
fn text_reads_one_key_per_line() {
    let text = std::fs::read_to_string(fixture("cloudPhysicsIO_2000.txt")).unwrap();
    let expected = count(
        text.lines()
            .filter(|l| !l.is_empty())
            .map(|l| (l.to_string(), Kind::Get)),
    );
    let rows = inspect(&fixture("cloudPhysicsIO_2000.txt"), &[]);
    assert_eq!(rows["format"], "text");
    assert_eq!(reported(&rows), expected);
    assert_eq!(
        expected.distinct_keys,
        cloud_physics_csv().distinct_keys,
        "the same requests as the CSV"
    );
}

#[test]
fn oracle_general_reads_24_byte_records() {
    let bytes = std::fs::read(fixture("cloudPhysicsIO_2000.oracleGeneral.bin")).unwrap();
    let expected = count(bytes.chunks(24).map(|r| (le_u64(&r[4..]), Kind::Get)));
    let rows = inspect(&fixture("cloudPhysicsIO_2000.oracleGeneral.bin"), &[]);
    assert_eq!(rows["format"], "oracle-general");
    assert_eq!(reported(&rows), expected);
    assert_eq!(expected.events, 2000);
    assert_eq!(expected.distinct_keys, cloud_physics_csv().distinct_keys);
    let times: Vec<u32> = bytes.chunks(24).map(le_u32).collect();
    assert_eq!(rows["time_first"], times[0].to_string());
    assert_eq!(
        rows["time_span"],
        (times.iter().max().unwrap() - times.iter().min().unwrap()).to_string()
    );
}

#[test]
fn vscsi_reads_v1_records_multi_block_reads_are_scans_and_multi_block_writes_range_writes() {
    let bytes = std::fs::read(fixture("cloudPhysicsIO_2000.vscsi")).unwrap();
    let expected = count(bytes.chunks(32).map(|r| {
        let (len, cmd, lbn) = (le_u32(&r[4..]), r[12], le_u64(&r[16..]));
        let kind = match (len > 512, cmd) {
            (true, 0x28) => Kind::Scan,
            (false, 0x28) => Kind::Get,
            (_, _) => Kind::Put,
        };
        (lbn, kind)
    }));
    let range_writes = bytes
        .chunks(32)
        .filter(|r| le_u32(&r[4..]) > 512 && r[12] != 0x28)
        .count();
    let rows = inspect(&fixture("cloudPhysicsIO_2000.vscsi"), &[]);
    assert_eq!(rows["format"], "vscsi");
    assert_eq!(reported(&rows), expected);
    assert!(expected.scans > 0 && expected.gets + expected.puts > 0);
    assert!(range_writes > 0);
    assert_eq!(rows["range_writes"], range_writes.to_string());
    // The same requests as the CSV: the same keys and sizes, and reads/writes agree.
    let csv = fields("cloudPhysicsIO_2000.csv");
    assert_eq!(expected.distinct_keys, cloud_physics_csv().distinct_keys);
    let writes = csv[1..].iter().filter(|f| f[2] == "2a").count() as u64;
    assert_eq!(expected.puts, writes, "every write, of one block or more");
    // Scan lengths in blocks: ceil(len / 512), over the reads.
    let longest = bytes
        .chunks(32)
        .filter(|r| r[12] == 0x28)
        .map(|r| u64::from(le_u32(&r[4..])).div_ceil(512))
        .max()
        .unwrap();
    assert_eq!(rows["scan_len_max"], longest.to_string());
}

#[test]
fn twitter_reads_the_cache_trace_with_its_op_names() {
    let expected = count(fields("twitter_sample.csv").into_iter().map(|f| {
        let kind = match f[5].as_str() {
            "get" | "gets" => Kind::Get,
            "delete" => Kind::Delete,
            _ => Kind::Put,
        };
        (f[1].clone(), kind)
    }));
    assert_eq!(expected.events, 100);
    let rows = inspect(&fixture("twitter_sample.csv"), &[]);
    assert_eq!(rows["format"], "twitter", "detected from the first line");
    assert_eq!(reported(&rows), expected);
}

#[test]
fn csv_reads_the_meta_kv_sample_by_header_names() {
    let rows_in = fields("metakv_sample.csv");
    let expected = count(rows_in[1..].iter().map(|f| {
        let kind = match f[3].as_str() {
            op if op.starts_with("GET") => Kind::Get,
            op if op.starts_with("SET") => Kind::Put,
            "DELETE" => Kind::Delete,
            op => panic!("op {op}"),
        };
        (f[1].clone(), kind)
    }));
    let rows = inspect(&fixture("metakv_sample.csv"), &["--time-col", "op_time"]);
    assert_eq!(reported(&rows), expected);
    assert!(expected.deletes > 0);
}

#[test]
fn csv_reads_the_meta_cdn_sample_with_url_keys() {
    let rows_in = fields("metacdn_sample.csv");
    let expected = count(rows_in[1..].iter().map(|f| (f[1].clone(), Kind::Get)));
    let rows = inspect(
        &fixture("metacdn_sample.csv"),
        &[
            "--key-col",
            "cacheKey",
            "--size-col",
            "objectSize",
            "--time-col",
            "timestamp",
        ],
    );
    assert_eq!(reported(&rows), expected);
    let total: u64 = rows_in[1..]
        .iter()
        .map(|f| f[3].parse::<u64>().unwrap())
        .sum();
    let mean: f64 = rows["value_size_mean"].parse().unwrap();
    assert!((mean - total as f64 / expected.events as f64).abs() < 1e-6);
}

#[test]
fn csv_reads_the_meta_block_sample_with_loose_op_names() {
    let rows_in = fields("metastorage_block_sample.csv");
    let expected = count(rows_in[1..].iter().map(|f| {
        (
            f[1].clone(),
            if f[7].starts_with("get") {
                Kind::Get
            } else {
                Kind::Put
            },
        )
    }));
    let rows = inspect(
        &fixture("metastorage_block_sample.csv"),
        &[
            "--key-col",
            "block_id",
            "--op-col",
            "op_name",
            "--size-col",
            "io_size",
        ],
    );
    assert_eq!(reported(&rows), expected);
    assert!(expected.gets > 0 && expected.puts > 0);
}

#[test]
fn msr_reads_byte_ranges_as_blocks_multi_block_reads_as_scans_and_writes_as_range_writes() {
    for block in [4096u64, 512] {
        let mut range_writes = 0;
        let expected = count(fields("msr_cambridge_sample.csv").into_iter().map(|f| {
            let (disk, offset, size): (u64, u64, u64) = (
                f[2].parse().unwrap(),
                f[4].parse().unwrap(),
                f[5].parse().unwrap(),
            );
            let first = offset / block;
            let end = (offset + size).div_ceil(block).max(first + 1);
            let kind = match (end - first > 1, f[3].as_str()) {
                (true, "Read") => Kind::Scan,
                (false, "Read") => Kind::Get,
                (ranged, _) => {
                    range_writes += u64::from(ranged);
                    Kind::Put
                }
            };
            ((disk << 48) + first, kind)
        }));
        let rows = inspect(
            &fixture("msr_cambridge_sample.csv"),
            &["--block-size", &block.to_string()],
        );
        assert_eq!(rows["format"], "msr");
        assert_eq!(reported(&rows), expected, "block size {block}");
        assert_eq!(rows["range_writes"], range_writes.to_string());
        assert!(range_writes > 0);
    }
}

// ---- compression and standard input ----

#[test]
fn zstd_and_gzip_copies_give_the_same_results_as_the_plain_file() {
    for plain in [
        "twitter_sample.csv",
        "cloudPhysicsIO_2000.oracleGeneral.bin",
    ] {
        let strip = |mut rows: BTreeMap<String, String>| {
            rows.remove("trace");
            rows.remove("compression");
            rows
        };
        let base = strip(inspect(&fixture(plain), &[]));
        for ext in ["zst", "gz"] {
            let rows = inspect(&fixture(&format!("{plain}.{ext}")), &[]);
            assert_eq!(
                rows["compression"],
                if ext == "zst" { "zstd" } else { "gzip" }
            );
            assert_eq!(strip(rows), base, "{plain}.{ext}");
        }
    }
    // The replay too.
    let dir = tempfile::tempdir().unwrap();
    let replay = |name: &str| {
        let out = dir.path().join(name.replace('.', "_"));
        shardlab()
            .args(["run", "--quiet", "--no-latency", "--trace"])
            .arg(fixture(name))
            .arg("--out")
            .arg(&out)
            .assert()
            .success();
        summary_without_label(&out)
    };
    let plain = replay("cloudPhysicsIO_2000.oracleGeneral.bin");
    assert!(plain.len() > 50);
    assert_eq!(replay("cloudPhysicsIO_2000.oracleGeneral.bin.zst"), plain);
    assert_eq!(replay("cloudPhysicsIO_2000.oracleGeneral.bin.gz"), plain);
}

#[test]
fn standard_input_reads_like_the_file() {
    let bytes = std::fs::read(fixture("twitter_sample.csv.zst")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("stdin");
    shardlab()
        .args(["inspect", "-", "--quiet", "--out"])
        .arg(&out)
        .write_stdin(bytes.clone())
        .assert()
        .success();
    let text = std::fs::read_to_string(out.join("inspect.csv")).unwrap();
    assert!(
        text.contains("format,twitter") && text.contains("events,100"),
        "{text}"
    );
    // `run` reads standard input once, as it replays it.
    let run_out = dir.path().join("run");
    shardlab()
        .args(["run", "--quiet", "--no-latency", "--trace", "-", "--out"])
        .arg(&run_out)
        .write_stdin(bytes)
        .assert()
        .success();
    let stdin_summary = summary_without_label(&run_out);
    let file_out = dir.path().join("file");
    shardlab()
        .args(["run", "--quiet", "--no-latency", "--trace"])
        .arg(fixture("twitter_sample.csv"))
        .arg("--out")
        .arg(&file_out)
        .assert()
        .success();
    assert_eq!(stdin_summary, summary_without_label(&file_out));
}

// ---- gen, run and convert ----

/// `summary.csv` as (scheme, shards, metric) -> every other column, without the workload label
/// (it names the input) and without timing rows.
fn summary_without_label(dir: &Path) -> BTreeMap<(String, String, String), Vec<String>> {
    let mut r = csv::Reader::from_path(dir.join("summary.csv")).unwrap();
    r.records()
        .map(|rec| rec.unwrap())
        .filter(|rec| !engine::metrics::is_timing(&rec[3]))
        .map(|rec| {
            (
                (rec[1].to_string(), rec[2].to_string(), rec[3].to_string()),
                rec.iter().skip(4).map(str::to_string).collect(),
            )
        })
        .collect()
}

#[test]
fn gen_then_run_trace_equals_run_workload() {
    let dir = tempfile::tempdir().unwrap();
    for (workload, format, file) in [
        (
            "zipf:keys=5000,s=1.1,scans=0.05,writes=0.2",
            "csv",
            "zipf.csv",
        ),
        ("ycsb:e:records=2000", "csv", "ycsb_e.csv.zst"),
        (
            "uniform:keys=3000,writes=0.3",
            "oracle-general",
            "uniform.oracleGeneral.bin",
        ),
        ("sequential", "oracle-general", "sequential.bin.gz"),
    ] {
        let trace = dir.path().join(file);
        let events = "30000";
        shardlab()
            .args([
                "gen", workload, "--events", events, "--quiet", "--format", format, "-o",
            ])
            .arg(&trace)
            .assert()
            .success();
        let direct = dir.path().join(format!("{file}.direct"));
        shardlab()
            .args([
                "run",
                "--workload",
                workload,
                "--events",
                events,
                "--window",
                "1000",
                "--quiet",
                "--out",
            ])
            .arg(&direct)
            .assert()
            .success();
        // No --key-type: a csv declares its integer keys, binary formats have them.
        let replayed = dir.path().join(format!("{file}.replayed"));
        shardlab()
            .args(["run", "--window", "1000", "--quiet", "--trace"])
            .arg(&trace)
            .arg("--out")
            .arg(&replayed)
            .assert()
            .success();
        let (a, b) = (
            summary_without_label(&direct),
            summary_without_label(&replayed),
        );
        assert!(a.len() > 50, "{workload}");
        assert_eq!(a, b, "{workload} as {format}");
        let shards = |d: &Path| {
            let mut r = csv::Reader::from_path(d.join("shards.csv")).unwrap();
            r.records()
                .map(|rec| {
                    rec.unwrap()
                        .iter()
                        .skip(1)
                        .map(str::to_string)
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(shards(&direct), shards(&replayed), "{workload}");
    }
}

#[test]
fn plan_of_a_generated_oracle_general_trace_reads_the_rates_of_its_workload() {
    // oracle-general holds seconds; synthetic times are microseconds. Written unchanged, a
    // workload of 20,000 events/s read back at 1 event/s and `plan` answered 1 shard.
    let dir = tempfile::tempdir().unwrap();
    let workload = "zipf:keys=10000,s=1.0,rate=20000";
    let trace = dir.path().join("z.oracleGeneral.bin");
    shardlab()
        .args(["gen", workload, "--events", "200000", "--quiet", "-o"])
        .arg(&trace)
        .args(["--format", "oracle-general"])
        .assert()
        .success();
    let plan = |input: &[&str], out: &str| {
        let out = dir.path().join(out);
        shardlab()
            .arg("plan")
            .args(input)
            .args([
                "--schemes",
                "hash",
                "--capacity",
                "5000",
                "--quiet",
                "--out",
            ])
            .arg(&out)
            .assert()
            .success();
        let mut r = csv::Reader::from_path(out.join("plan.csv")).unwrap();
        let col = r
            .headers()
            .unwrap()
            .iter()
            .position(|h| h == "shards_needed")
            .unwrap();
        let rec = r.records().next().unwrap().unwrap();
        rec[col].parse::<u32>().unwrap()
    };
    let direct = plan(&["--workload", workload, "--events", "200000"], "direct");
    let traced = plan(&["--trace", trace.to_str().unwrap()], "traced");
    assert!(direct >= 5, "{direct}");
    assert_eq!(traced, direct);
}

#[test]
fn gen_refuses_what_the_format_cannot_hold_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.bin");
    let assert = shardlab()
        .args([
            "gen",
            "uniform:scans=0.1",
            "--format",
            "oracle-general",
            "--quiet",
            "-o",
        ])
        .arg(&out)
        .assert()
        .code(2);
    assert!(
        stderr_of(&assert).contains("oracle-general records cannot hold"),
        "{}",
        stderr_of(&assert)
    );
    let assert = shardlab()
        .args([
            "gen",
            "ycsb:e",
            "--events",
            "1000",
            "--format",
            "oracle-general",
            "--quiet",
            "-o",
        ])
        .arg(&out)
        .assert()
        .code(1);
    let stderr = stderr_of(&assert);
    assert!(
        stderr.contains("event ") && stderr.contains("cannot hold a scan"),
        "{stderr}"
    );
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "nothing is left behind"
    );
}

#[test]
fn convert_round_trips_csv_through_oracle_general() {
    let dir = tempfile::tempdir().unwrap();
    let original = dir.path().join("keys.csv");
    shardlab()
        .args([
            "gen",
            "zipf:keys=2000",
            "--events",
            "20000",
            "--quiet",
            "-o",
        ])
        .arg(&original)
        .assert()
        .success();
    let binary = dir.path().join("keys.oracleGeneral.bin");
    shardlab()
        .args(["convert", "--key-type", "u64", "--quiet"])
        .arg(&original)
        .arg("-o")
        .arg(&binary)
        .assert()
        .success();
    assert_eq!(std::fs::metadata(&binary).unwrap().len(), 20000 * 24);
    let back = dir.path().join("back.csv");
    shardlab()
        .args(["convert", "--quiet"])
        .arg(&binary)
        .arg("-o")
        .arg(&back)
        .args(["--format", "csv"])
        .assert()
        .success();
    let (a, b) = (
        std::fs::read_to_string(&original).unwrap(),
        std::fs::read_to_string(&back).unwrap(),
    );
    assert_eq!(a.lines().count(), 20001);
    // Every event survives csv -> oracle-general -> csv, its time rounded down to the whole
    // second oracle-general holds (csv times are microseconds: 20,000 events 1 us apart all
    // fall in second 0).
    let whole_seconds = |line: &str| {
        let mut f: Vec<String> = line.split(',').map(str::to_string).collect();
        if let Ok(t) = f[3].parse::<u64>() {
            f[3] = (t / 1_000_000 * 1_000_000).to_string();
        }
        f.join(",")
    };
    assert!(
        a.lines()
            .map(whole_seconds)
            .eq(b.lines().map(str::to_string)),
        "every event survives csv -> oracle-general -> csv"
    );
    assert!(b.lines().skip(1).all(|l| l.split(',').nth(3) == Some("0")));
    // next_access_vtime is libCacheSim's: the 1-based position of the next request to the id.
    let bytes = std::fs::read(&binary).unwrap();
    let records: Vec<&[u8]> = bytes.chunks(24).collect();
    for (i, r) in records.iter().enumerate().take(500) {
        let next = i64::from_le_bytes(r[16..24].try_into().unwrap());
        let id = le_u64(&r[4..]);
        let expected = records
            .iter()
            .skip(i + 1)
            .position(|s| le_u64(&s[4..]) == id)
            .map_or(-1, |j| (i + j + 2) as i64);
        assert_eq!(next, expected, "record {i}");
    }
}

#[test]
fn convert_keeps_every_event_of_other_formats_or_says_why_not() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.oracleGeneral.bin");
    let assert = shardlab()
        .args(["convert", "--quiet"])
        .arg(fixture("twitter_sample.csv"))
        .arg("-o")
        .arg(&out)
        .assert()
        .code(1);
    let stderr = stderr_of(&assert);
    assert!(
        stderr.contains("is not a 64-bit integer") && stderr.contains("--hash-keys"),
        "{stderr}"
    );
    assert!(!out.exists());
    let assert = shardlab()
        .args(["convert", "--hash-keys"])
        .arg(fixture("twitter_sample.csv"))
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    assert!(stderr_of(&assert).contains("7 puts and deletes are stored as plain requests"));
    let (a, b) = (
        inspect(&fixture("twitter_sample.csv"), &[]),
        inspect(&out, &[]),
    );
    for m in [
        "events",
        "distinct_keys",
        "time_first",
        "time_last",
        "value_size_mean",
        "hottest_key_share",
    ] {
        assert_eq!(a[m], b[m], "{m}");
    }
    // vscsi scans survive a conversion to csv, and the csv replays like the vscsi file.
    let csv_out = dir.path().join("blocks.csv.gz");
    shardlab()
        .args(["convert", "--quiet"])
        .arg(fixture("cloudPhysicsIO_2000.vscsi"))
        .arg("-o")
        .arg(&csv_out)
        .assert()
        .success();
    let (v, c) = (
        inspect(&fixture("cloudPhysicsIO_2000.vscsi"), &[]),
        inspect(&csv_out, &["--key-type", "u64"]),
    );
    for m in [
        "events",
        "distinct_keys",
        "gets",
        "puts",
        "scans",
        "scan_len_mean",
        "value_size_mean",
        "time_span",
        "monotonicity",
    ] {
        assert_eq!(v[m], c[m], "{m}");
    }
}

// ---- inspect ----

#[test]
fn inspect_fits_the_zipf_exponent_and_sees_sequential_keys_as_monotonic() {
    let dir = tempfile::tempdir().unwrap();
    let zipf = dir.path().join("zipf.csv");
    shardlab()
        .args(["gen", "zipf:s=1.0", "--events", "200000", "--quiet", "-o"])
        .arg(&zipf)
        .assert()
        .success();
    let rows = inspect(&zipf, &["--key-type", "u64"]);
    let s: f64 = rows["zipf_s"].parse().unwrap();
    assert!((s - 1.0).abs() < 0.1, "zipf_s {s}");
    assert!(rows["zipf_ks"].parse::<f64>().unwrap() < 0.05);
    let seq = dir.path().join("seq.oracleGeneral.bin");
    shardlab()
        .args([
            "gen",
            "sequential",
            "--events",
            "50000",
            "--format",
            "oracle-general",
            "--quiet",
            "-o",
        ])
        .arg(&seq)
        .assert()
        .success();
    let rows = inspect(&seq, &[]);
    assert!(
        rows["monotonicity"].parse::<f64>().unwrap() > 0.99,
        "{rows:?}"
    );
    assert!(rows["monotonic_increases"].parse::<f64>().unwrap() > 0.99);
    let rows = inspect(&zipf, &["--key-type", "u64"]);
    assert!(rows["monotonicity"].parse::<f64>().unwrap() < 0.01);
}

#[test]
fn inspect_prints_a_table_and_writes_the_required_rows() {
    let assert = shardlab()
        .arg("inspect")
        .arg(fixture("twitter_sample.csv"))
        .arg("--quiet")
        .assert()
        .success();
    let out = stdout_of(&assert);
    for label in [
        "events",
        "distinct keys",
        "ops",
        "time",
        "key size",
        "value size",
        "scans",
        "zipf",
        "monotonicity",
        "top keys",
    ] {
        assert!(
            out.lines().any(|l| l.starts_with(label)),
            "{label} missing:\n{out}"
        );
    }
    let rows = inspect(&fixture("cloudPhysicsIO_2000.vscsi"), &[]);
    for m in ["events", "distinct_keys", "scans", "zipf_s", "monotonicity"] {
        assert!(rows.contains_key(m), "{m}");
    }
}

#[test]
fn past_the_distinct_limit_inspect_and_run_report_estimates() {
    let rows = inspect(
        &fixture("cloudPhysicsIO_2000.oracleGeneral.bin"),
        &["--distinct-limit", "100"],
    );
    assert_eq!(rows["distinct_keys_estimate"], "1");
    let exact = cloud_physics_csv().distinct_keys as f64;
    let (lo, hi): (f64, f64) = (
        rows["distinct_keys_ci_low"].parse().unwrap(),
        rows["distinct_keys_ci_high"].parse().unwrap(),
    );
    assert!(lo <= exact && exact <= hi, "[{lo}, {hi}] vs {exact}");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    shardlab()
        .args([
            "run",
            "--quiet",
            "--no-latency",
            "--schemes",
            "hash",
            "--distinct-limit",
            "100",
            "--trace",
        ])
        .arg(fixture("cloudPhysicsIO_2000.oracleGeneral.bin"))
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let mut r = csv::Reader::from_path(out.join("summary.csv")).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    assert_eq!(
        header[7..],
        ["estimate", "sample_rate", "ci_low", "ci_high"]
    );
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    let distinct = rows.iter().find(|r| &r[3] == "distinct_keys").unwrap();
    assert_eq!(&distinct[7], "1");
    assert!(distinct[8].parse::<f64>().unwrap() < 1.0);
    let requests = rows.iter().find(|r| &r[3] == "requests").unwrap();
    assert_eq!((&requests[7], &requests[8], &requests[9]), ("0", "1", ""));
}

// ---- bad input ----

/// Runs `shardlab run` on `trace` with `args`; checks exit code 1, no report, and returns stderr.
fn run_fails(trace: &Path, args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never");
    let assert = shardlab()
        .args(["run", "--quiet", "--no-latency", "--trace"])
        .arg(trace)
        .args(args)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(1);
    assert!(!out.exists(), "no report may be written");
    let stderr = stderr_of(&assert);
    assert!(
        stderr.starts_with("Error: ") && !stderr.contains("panicked"),
        "{stderr}"
    );
    stderr
}

fn temp_file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::File::create(&path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
    path
}

#[test]
fn a_truncated_compressed_file_says_it_is_truncated() {
    let e = run_fails(&fixture("msr_truncated.csv.zst"), &[]);
    assert!(
        e.contains("msr_truncated.csv.zst")
            && e.contains(
                "the zstd stream ends in the middle of the compressed data: the file is truncated"
            ),
        "{e}"
    );
    let dir = tempfile::tempdir().unwrap();
    let gz = std::fs::read(fixture("cloudPhysicsIO_2000.oracleGeneral.bin.gz")).unwrap();
    let cut = temp_file(dir.path(), "cut.oracleGeneral.bin.gz", &gz[..gz.len() / 2]);
    let e = run_fails(&cut, &[]);
    assert!(
        e.contains(
            "the gzip stream ends in the middle of the compressed data: the file is truncated"
        ),
        "{e}"
    );
}

#[test]
fn a_binary_file_that_is_not_whole_records_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(fixture("cloudPhysicsIO_2000.oracleGeneral.bin")).unwrap();
    let short = temp_file(
        dir.path(),
        "short.oracleGeneral.bin",
        &bytes[..bytes.len() - 10],
    );
    let e = run_fails(&short, &[]);
    assert!(e.contains("is 47990 bytes, not a whole number of 24-byte oracle-general records (1999 records and 14 bytes over)"), "{e}");
    // Compressed, the size is only known at the end: the message gives the byte offset.
    let vscsi = std::fs::read(fixture("cloudPhysicsIO_2000.vscsi")).unwrap();
    let mut gz = flate_free_gzip(&vscsi[..vscsi.len() - 5]);
    let partial = temp_file(dir.path(), "partial.vscsi.gz", &std::mem::take(&mut gz));
    let e = run_fails(&partial, &[]);
    assert!(
        e.contains("byte offset 63968")
            && e.contains("ends 27 bytes into a 32-byte vscsi v1 record"),
        "{e}"
    );
}

/// A gzip file of `data` written by the shardlab binary itself would test the writer with the
/// reader; use the system `gzip` instead.
fn flate_free_gzip(data: &[u8]) -> Vec<u8> {
    let mut child = std::process::Command::new("gzip")
        .args(["-c", "-n"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("gzip is installed");
    child.stdin.take().unwrap().write_all(data).unwrap();
    child.wait_with_output().unwrap().stdout
}

#[test]
fn an_empty_trace_says_it_has_no_events_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let empty = temp_file(dir.path(), "empty", b"");
    for format in ["csv", "text", "twitter", "oracle-general", "vscsi", "msr"] {
        let e = run_fails(&empty, &["--format", format]);
        assert!(
            e.contains("contains no events: the file is empty"),
            "{format}: {e}"
        );
    }
    let header_only = temp_file(dir.path(), "header.csv", b"key,op\n");
    let e = run_fails(&header_only, &[]);
    assert!(
        e.contains("contains no events: there is nothing after the header line"),
        "{e}"
    );
}

#[test]
fn a_key_column_that_does_not_exist_lists_the_columns() {
    let e = run_fails(&fixture("metakv_sample.csv"), &["--key-col", "cache_key"]);
    assert!(e.contains("the header has no column 'cache_key' (asked for by --key-col); its columns are 'op_time', 'key'"), "{e}");
    let e = run_fails(&fixture("metacdn_sample.csv"), &[]);
    assert!(
        e.contains("a `key` column is required") && e.contains("--key-col"),
        "{e}"
    );
    let e = run_fails(&fixture("metakv_sample.csv"), &["--key-col", "11"]);
    assert!(
        e.contains("--key-col 11 asks for column 11, but the header line has 10 columns"),
        "{e}"
    );
}

#[test]
fn binary_garbage_fed_to_a_text_format_says_it_is_binary() {
    for format in ["csv", "text", "twitter", "msr"] {
        let e = run_fails(
            &fixture("cloudPhysicsIO_2000.oracleGeneral.bin"),
            &["--format", format],
        );
        assert!(
            e.contains(&format!("is binary data, not {format} text (byte offset")),
            "{format}: {e}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let unnamed = temp_file(
        dir.path(),
        "blob",
        &std::fs::read(fixture("cloudPhysicsIO_2000.oracleGeneral.bin")).unwrap(),
    );
    let e = run_fails(&unnamed, &[]);
    assert!(
        e.contains("neither its name nor its first bytes say which binary format; pass --format"),
        "{e}"
    );
}

#[test]
fn bad_records_name_their_line_unless_skipped_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let bad = temp_file(
        dir.path(),
        "bad.csv",
        b"key,op\n1,get\nx,get\n2,put\n3,frobnicate\n4,get\n",
    );
    let e = run_fails(&bad, &["--key-type", "u64"]);
    assert!(
        e.contains("bad.csv:line 3: key: 'x' is not a decimal integer key"),
        "{e}"
    );
    let out = dir.path().join("skipped");
    let assert = shardlab()
        .args([
            "run",
            "--quiet",
            "--no-latency",
            "--schemes",
            "hash",
            "--key-type",
            "u64",
            "--skip-invalid",
            "--trace",
        ])
        .arg(&bad)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let stderr = stderr_of(&assert);
    assert!(
        stderr.contains("skipped 2 invalid records (first: ") && stderr.contains("line 3"),
        "{stderr}"
    );
    let manifest = manifest(&out);
    assert_eq!(manifest["inputs"][0]["invalid_records_skipped"], 2);
    assert_eq!(manifest["inputs"][0]["format"], "csv");
    let e = run_fails(&bad, &["--key-type", "u64", "--max-invalid", "1"]);
    assert!(
        e.contains("more than 1 invalid records (the limit of --max-invalid)")
            && e.contains("line 5: unknown op 'frobnicate'"),
        "{e}"
    );
    let e = run_fails(
        &fixture("cloudPhysicsIO_2000.csv"),
        &["--key-col", "lbn", "--key-type", "u64", "--op-col", "op"],
    );
    assert!(
        e.contains("line 2: unknown op '2a'") && e.contains("--op-map"),
        "{e}"
    );
}

#[test]
fn options_a_format_does_not_take_are_refused() {
    let e = run_fails(&fixture("twitter_sample.csv"), &["--key-col", "2"]);
    assert!(e.contains("do(es) not apply to twitter traces"), "{e}");
    let assert = shardlab()
        .args(["inspect", "x.csv", "--format", "parquet"])
        .assert()
        .code(2);
    assert!(stderr_of(&assert)
        .contains("valid formats: csv, text, twitter, oracle-general, vscsi, msr"));
}

#[test]
fn decimal_keys_read_as_bytes_get_a_key_type_hint_from_inspect_and_run() {
    let trace = fixture("cloudPhysicsIO_2000.txt");
    let rows = inspect(&trace, &[]);
    assert_eq!(
        rows["decimal_keys"], "1",
        "every key of the sample is a block number"
    );
    let out = shardlab().arg("inspect").arg(&trace).assert().success();
    assert!(
        stderr_of(&out).contains("--key-type u64"),
        "{}",
        stderr_of(&out)
    );
    let out = shardlab()
        .arg("inspect")
        .arg(&trace)
        .args(["--key-type", "u64"])
        .assert()
        .success();
    assert!(!stderr_of(&out).contains("hint"), "{}", stderr_of(&out));
    let dir = tempfile::tempdir().unwrap();
    let out = shardlab()
        .args([
            "run",
            "--schemes",
            "hash",
            "--shards",
            "4",
            "--quiet",
            "--trace",
        ])
        .arg(&trace)
        .arg("--out")
        .arg(dir.path().join("r"))
        .assert()
        .success();
    assert!(
        stderr_of(&out).contains("--key-type u64"),
        "{}",
        stderr_of(&out)
    );
    let profile = &manifest(&dir.path().join("r"))["parameters"]["trace_profile"];
    assert!(profile["key_type_hint"].is_string(), "{profile}");
    // Words are not numbers: no hint.
    let words = dir.path().join("words.txt");
    std::fs::write(&words, "alpha\n12\nbeta\n").unwrap();
    assert_eq!(inspect(&words, &[])["decimal_keys"], "0");
}

#[test]
fn a_multi_block_write_contacts_the_owners_of_its_blocks_and_a_read_every_shard() {
    let trace = fixture("cloudPhysicsIO_2000.vscsi");
    let bytes = std::fs::read(&trace).unwrap();
    let records: Vec<(u64, u64, bool)> = bytes
        .chunks(32)
        .map(|r| {
            let blocks = u64::from(le_u32(&r[4..])).div_ceil(512).max(1);
            (le_u64(&r[16..]), blocks, r[12] == 0x28)
        })
        .collect();
    // Every block's owner under hash on 4 shards, from `shardlab route`.
    let blocks: Vec<String> = records
        .iter()
        .flat_map(|&(lbn, n, _)| (lbn..lbn + n).map(|b| b.to_string()))
        .collect();
    let routed = shardlab()
        .args([
            "route",
            "--schemes",
            "hash",
            "--shards",
            "4",
            "--key-type",
            "u64",
            "-",
        ])
        .write_stdin(blocks.join("\n") + "\n")
        .assert()
        .success();
    let owner: BTreeMap<u64, u32> = stdout_of(&routed)
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect();
    let expected: usize = records
        .iter()
        .map(|&(lbn, n, read)| match (n, read) {
            (1, _) => 1,
            (_, true) => 4, // a scan: hashing keeps no key order
            _ => (lbn..lbn + n)
                .map(|b| owner[&b])
                .collect::<HashSet<_>>()
                .len(),
        })
        .sum();
    let dir = tempfile::tempdir().unwrap();
    shardlab()
        .args([
            "run",
            "--schemes",
            "hash",
            "--shards",
            "4",
            "--warmup",
            "0",
            "--quiet",
        ])
        .arg("--trace")
        .arg(&trace)
        .arg("--out")
        .arg(dir.path().join("r"))
        .assert()
        .success();
    let summary = std::fs::read_to_string(dir.path().join("r/summary.csv")).unwrap();
    let value = |metric: &str| {
        summary
            .lines()
            .find(|l| l.split(',').nth(3) == Some(metric))
            .and_then(|l| l.split(',').nth(4))
            .unwrap_or_else(|| panic!("{metric} in {summary}"))
            .to_string()
    };
    let reads = records.iter().filter(|r| r.1 > 1 && r.2).count();
    assert_eq!(value("events_measured"), records.len().to_string());
    assert_eq!(
        value("scans"),
        reads.to_string(),
        "range writes are not scans"
    );
    assert_eq!(value("requests"), expected.to_string());
}
