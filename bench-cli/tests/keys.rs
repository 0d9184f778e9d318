//! `shardlab keys` from the command line: outputs, exit statuses, the recommendation.

mod common;

use assert_cmd::Command;

const TRACE: &str = "\
op,tenant,user,ts
put,a,1,1
put,a,2,2
put,a,3,3
put,b,4,4
get,c,5,
get,d,6,
get,e,7,
get,f,8,
get,g,9,
get,h,10,
";

fn shardlab(dir: &std::path::Path, args: &[&str]) -> assert_cmd::assert::Assert {
    std::fs::write(dir.join("t.csv"), TRACE).unwrap();
    Command::cargo_bin("shardlab")
        .unwrap()
        .current_dir(dir)
        .args(["keys", "--trace", "t.csv", "--out", "out", "--shards", "4"])
        .args(args)
        .assert()
}

#[test]
fn keys_writes_tidy_csv_and_names_the_unsplittable_candidate() {
    let dir = tempfile::tempdir().unwrap();
    // tenant 'a' carries 3 of 10 operations: 30%, unsplittable at the default 0.3.
    let out = shardlab(dir.path(), &["--candidates", "tenant; user"]).success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains("tenant is unsplittable"), "{stdout}");
    assert!(stdout.contains("Recommended: **user**"), "{stdout}");
    let keys = std::fs::read_to_string(dir.path().join("out/keys.csv")).unwrap();
    assert!(keys.starts_with("candidate,scheme,shards,metric,value\n"));
    assert!(keys.contains("tenant,,,top1_share,0.3\n"), "{keys}");
    assert!(dir.path().join("out/top_values.csv").is_file());
}

#[test]
fn an_unknown_column_exits_2_and_a_dangling_end_column_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let out = shardlab(dir.path(), &["--candidates", "region"]).code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("'region'"));
    std::fs::write(dir.path().join("b.csv"), "op,x,y_end\nget,1,2\n").unwrap();
    let out = Command::cargo_bin("shardlab")
        .unwrap()
        .current_dir(dir.path())
        .args([
            "keys",
            "--trace",
            "b.csv",
            "--candidates",
            "x",
            "--out",
            "o",
        ])
        .assert()
        .code(1);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("'y_end'"));
    assert!(!dir.path().join("o").exists(), "no output on error");
}

/// `shardlab` in `dir` with `args`.
fn cli(dir: &std::path::Path, args: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("shardlab")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .assert()
}

/// The value of `metric` for `candidate` (candidate-level, or under `scheme` on 16 shards).
fn figure(keys: &str, candidate: &str, scheme: &str, metric: &str) -> f64 {
    let mut r = csv::Reader::from_reader(keys.as_bytes());
    r.records()
        .map(|rec| rec.unwrap())
        .find(|rec| {
            &rec[0] == candidate
                && &rec[1] == scheme
                && &rec[2] == if scheme.is_empty() { "" } else { "16" }
                && &rec[3] == metric
        })
        .unwrap_or_else(|| panic!("no {candidate} {scheme} {metric} in {keys}"))[4]
        .parse()
        .unwrap()
}

#[test]
fn a_generated_orders_trace_is_read_by_keys_with_its_monotonic_and_unsplittable_columns() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Tenants Zipf s = 2 over 100: tenant 0 carries 1 / H(100, 2) = 61% of the operations
    // that name a tenant.
    cli(
        d,
        &[
            "gen",
            "orders:s=2",
            "--events",
            "60000",
            "-q",
            "-o",
            "o.csv.zst",
        ],
    )
    .success();
    cli(
        d,
        &[
            "gen",
            "orders:s=2",
            "--events",
            "60000",
            "-q",
            "-o",
            "again.csv",
        ],
    )
    .success();
    let plain = std::fs::read(d.join("again.csv")).unwrap();
    let packed = zstd::decode_all(std::fs::File::open(d.join("o.csv.zst")).unwrap()).unwrap();
    assert_eq!(plain, packed, "same spec and seed, same rows");
    assert_eq!(plain.iter().filter(|&&b| b == b'\n').count(), 60_001);
    let out = cli(
        d,
        &[
            "keys",
            "--trace",
            "o.csv.zst",
            "--txn-col",
            "txn",
            "--candidates",
            "tenant; tenant,user; order; hashed(order); ts; hashed(ts)",
            "--schemes",
            "hash,range",
            "--shards",
            "16",
            "--out",
            "k",
        ],
    )
    .success();
    let report = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(report.contains("tenant is unsplittable"), "{report}");
    assert!(!report.contains("Recommended: **tenant** "), "{report}");
    let keys = std::fs::read_to_string(d.join("k/keys.csv")).unwrap();
    let top = figure(&keys, "tenant", "", "top1_share");
    assert!((top - 0.608).abs() < 0.02, "{top}");
    for monotonic in ["order", "ts"] {
        assert_eq!(
            figure(&keys, monotonic, "", "monotonic"),
            1.0,
            "{monotonic}"
        );
        let hashed = format!("hashed({monotonic})");
        assert_eq!(figure(&keys, &hashed, "", "monotonic"), 0.0, "{hashed}");
    }
    // Moves hand orders to another user: shard-key updates under user, none under tenant.
    assert!(figure(&keys, "tenant,user", "", "shard_key_updates") > 0.05);
    assert_eq!(figure(&keys, "tenant", "", "shard_key_updates"), 0.0);
    // Under hashed(order) a user's orders are everywhere: every transaction (it reads its
    // user) crosses shards, and reads by user scatter.
    assert_eq!(
        figure(&keys, "hashed(order)", "hash", "cross_shard_txns"),
        1.0
    );
    assert!(figure(&keys, "tenant,user", "hash", "cross_shard_txns") < 0.2);
    assert!(figure(&keys, "hashed(order)", "hash", "scatter_gather_reads") > 0.5);
}

#[test]
fn a_multi_column_workload_is_written_as_csv_only_and_its_parameters_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = cli(
        d,
        &["gen", "orders", "--format", "oracle-general", "-o", "o.bin"],
    )
    .code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("csv only"));
    let out = cli(d, &["gen", "orders:tenant=3", "-o", "o.csv"]).code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("'tenant'"));
    assert!(!d.join("o.csv").exists() && !d.join("o.bin").exists());
}

#[test]
fn the_same_trace_as_csv_and_as_parquet_gives_identical_keys_csv() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let keys = |trace: &str, out: &str| {
        cli(
            d,
            &[
                "keys",
                "--trace",
                trace,
                "--txn-col",
                "txn",
                "--candidates",
                "tenant; tenant,user; hashed(order); ts",
                "--schemes",
                "hash,range",
                "--shards",
                "16",
                "--out",
                out,
            ],
        )
        .success();
        let read = |name: &str| std::fs::read_to_string(d.join(out).join(name)).unwrap();
        (read("keys.csv"), read("top_values.csv"))
    };
    // shardlab's own Parquet writer: 70,000 rows, two row groups.
    cli(
        d,
        &["gen", "orders", "--events", "70000", "-q", "-o", "o.csv"],
    )
    .success();
    cli(
        d,
        &[
            "gen",
            "orders",
            "--events",
            "70000",
            "-q",
            "-o",
            "o.parquet",
        ],
    )
    .success();
    assert_eq!(&std::fs::read(d.join("o.parquet")).unwrap()[..4], b"PAR1");
    let from_csv = keys("o.csv", "k-csv");
    assert!(from_csv.0.lines().count() > 40);
    assert_eq!(from_csv, keys("o.parquet", "k-parquet"));
    // `convert` writes the CSV as Parquet, read back the same.
    cli(d, &["convert", "o.csv", "-o", "c.parquet", "-q"]).success();
    assert_eq!(from_csv, keys("c.parquet", "k-converted"));
    // Text columns, integers that do not read back as written (007), empty cells.
    std::fs::write(
        d.join("m.csv"),
        "op,txn,tenant,user,order,ts\nget,,eu,007,,2024-01-01T00:00:00Z\nput,t1,,12,3,\nget,t1,us,5,,\n",
    )
    .unwrap();
    cli(d, &["convert", "m.csv", "-o", "m.parquet", "-q"]).success();
    let mixed = |trace: &str, out: &str| {
        cli(
            d,
            &[
                "keys",
                "--trace",
                trace,
                "--txn-col",
                "txn",
                "--candidates",
                "tenant; user; ts",
                "--shards",
                "16",
                "--out",
                out,
                "-q",
            ],
        )
        .success();
        let read = |name: &str| std::fs::read_to_string(d.join(out).join(name)).unwrap();
        (read("keys.csv"), read("top_values.csv"))
    };
    assert_eq!(mixed("m.csv", "m1"), mixed("m.parquet", "m2"));
    // A column of another type is a data error naming it.
    std::fs::write(d.join("bad.parquet"), b"PAR1 not really").unwrap();
    cli(
        d,
        &[
            "keys",
            "--trace",
            "bad.parquet",
            "--candidates",
            "x",
            "--out",
            "b",
        ],
    )
    .code(1);
}

#[test]
fn a_parquet_file_written_by_pyarrow_reads_as_its_csv() {
    let Some(python) =
        common::systems_python_or_skip("a_parquet_file_written_by_pyarrow_reads_as_its_csv")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // String, int32, int64 and timestamp columns with nulls, in row groups of 1,000; and the
    // same rows as CSV (a null is an empty cell; a timestamp is its stored microseconds).
    let script = r#"
import csv, sys, random
import pyarrow as pa, pyarrow.parquet as pq
random.seed(5)
rows = []
for i in range(5000):
    read = random.random() < 0.6
    tenant = random.choice(["acme", "globex", "initech", "umbrella"]) if random.random() < 0.9 else None
    user = random.randrange(300) if (not read or random.random() < 0.5) else None
    rows.append(("get" if read else "put", tenant, user, 1_700_000_000_000_000 + i * 1000, i % 7 if not read else None))
table = pa.table({
    "op": pa.array([r[0] for r in rows], pa.string()),
    "tenant": pa.array([r[1] for r in rows], pa.string()),
    "user": pa.array([r[2] for r in rows], pa.int32()),
    "ts": pa.array([r[3] for r in rows], pa.timestamp("us")),
    "shelf": pa.array([r[4] for r in rows], pa.int64()),
})
pq.write_table(table, sys.argv[1] + "/t.parquet", row_group_size=1000)
bad = pa.table({"op": pa.array(["get"]), "price": pa.array([1.5], pa.float64())})
pq.write_table(bad, sys.argv[1] + "/float.parquet")
with open(sys.argv[1] + "/t.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["op", "tenant", "user", "ts", "shelf"])
    for r in rows:
        w.writerow(["" if v is None else v for v in r])
"#;
    let status = std::process::Command::new(python)
        .args(["-c", script])
        .arg(d)
        .status()
        .unwrap();
    assert!(status.success());
    let keys = |trace: &str, out: &str| {
        cli(
            d,
            &[
                "keys",
                "--trace",
                trace,
                "--candidates",
                "tenant; tenant,user; user; ts; shelf",
                "--schemes",
                "hash,range",
                "--shards",
                "4",
                "--out",
                out,
            ],
        )
        .success();
        std::fs::read_to_string(d.join(out).join("keys.csv")).unwrap()
    };
    let from_csv = keys("t.csv", "k-csv");
    assert_eq!(from_csv, keys("t.parquet", "k-parquet"));
    assert_eq!(figure_at(&from_csv, "ts", "monotonic"), 1.0);
    let out = cli(
        d,
        &[
            "keys",
            "--trace",
            "float.parquet",
            "--candidates",
            "price",
            "--out",
            "f",
        ],
    )
    .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("column 'price'") && err.contains("DOUBLE"),
        "{err}"
    );
}

/// A candidate-level figure of `keys.csv`.
fn figure_at(keys: &str, candidate: &str, metric: &str) -> f64 {
    figure(keys, candidate, "", metric)
}

#[test]
fn quiet_keys_prints_nothing_and_writes_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = shardlab(dir.path(), &["--candidates", "tenant", "--quiet"]).success();
    assert!(out.get_output().stdout.is_empty());
    assert!(dir.path().join("out/report.md").is_file());
}

#[test]
fn run_with_a_compound_key_col_measures_the_candidate_as_keys_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // No moves: a key change is one request set in keys, two puts in run.
    cli(
        d,
        &[
            "gen",
            "orders:moves=0",
            "--events",
            "30000",
            "-q",
            "-o",
            "o.csv",
        ],
    )
    .success();
    cli(
        d,
        &[
            "gen",
            "orders:moves=0",
            "--events",
            "30000",
            "-q",
            "-o",
            "o.parquet",
        ],
    )
    .success();
    cli(
        d,
        &[
            "keys",
            "--trace",
            "o.csv",
            "--candidates",
            "tenant,user; hashed(order)",
            "--schemes",
            "hash",
            "--shards",
            "16",
            "--out",
            "k",
            "-q",
        ],
    )
    .success();
    let keys = std::fs::read_to_string(d.join("k/keys.csv")).unwrap();
    for (candidate, trace, out) in [
        ("tenant,user", "o.csv", "r1"),
        ("tenant,user", "o.parquet", "r2"),
        ("hashed(order)", "o.csv", "r3"),
    ] {
        cli(
            d,
            &[
                "run",
                "--trace",
                trace,
                "--key-col",
                candidate,
                "--schemes",
                "hash",
                "--shards",
                "16",
                "--no-latency",
                "-q",
                "--out",
                out,
            ],
        )
        .success();
        let summary = std::fs::read_to_string(d.join(out).join("summary.csv")).unwrap();
        let mut r = csv::Reader::from_reader(summary.as_bytes());
        let row = r
            .records()
            .map(|rec| rec.unwrap())
            .find(|rec| &rec[1] == "hash" && &rec[3] == "hottest_shard_share")
            .unwrap();
        assert_eq!(&row[0], format!("{trace} by {candidate}"));
        let value: f64 = row[4].parse().unwrap();
        assert_eq!(
            value,
            figure(&keys, candidate, "hash", "hottest_shard_share"),
            "{candidate} {trace}: {row:?}"
        );
    }
    let out = cli(
        d,
        &[
            "run",
            "--trace",
            "o.csv",
            "--key-col",
            "tenant,nope",
            "--schemes",
            "hash",
            "--no-latency",
            "-q",
            "--out",
            "bad",
        ],
    )
    .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("--key-col") && err.contains("'nope'"), "{err}");
    assert!(!d.join("bad").exists());
}
