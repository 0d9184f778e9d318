//! End-to-end tests of `shardlab plan`: the binary on small workloads and traces.

use std::io::Write;
use std::path::Path;

mod common;

use common::{shardlab, stderr_of, stdout_of};

/// `plan.csv` as a header and rows of cells.
fn plan_csv(dir: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(dir.join("plan.csv")).unwrap();
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name}"))
}

#[test]
fn a_plan_writes_plan_csv_and_a_balanced_scheme_needs_rate_times_growth_over_capacity() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("plan");
    // 100,000 uniform requests/s; a shard serves 12,500 at 80%: 10,000. Formula: 10 and 20.
    let assert = shardlab()
        .args([
            "plan",
            "--workload",
            "uniform:keys=1000000",
            "--rate",
            "100000",
            "--events",
            "100000",
        ])
        .args([
            "--capacity",
            "12500",
            "--growth",
            "1,2",
            "--schemes",
            "hash,ring:vnodes=16",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let stdout = stdout_of(&assert);
    assert!(stdout.contains("busiest 1 s window 100,000/s"), "{stdout}");
    assert!(
        stdout.contains("limit per shard: 10,000 requests/s"),
        "{stdout}"
    );
    let (header, rows) = plan_csv(&out);
    assert_eq!(
        header[..10].join(","),
        "workload,scheme,growth,replicas,failures,shards_needed,binding,peak_rate_per_shard,hottest_share,moved_fraction_from_current"
    );
    assert_eq!(rows.len(), 4);
    let (scheme, growth, needed) = (
        column(&header, "scheme"),
        column(&header, "growth"),
        column(&header, "shards_needed"),
    );
    for row in &rows[..2] {
        let n: u32 = row[needed].parse().unwrap();
        let formula = if row[growth] == "1" { 10 } else { 20 };
        assert_eq!(row[scheme], "hash");
        assert!(n.abs_diff(formula) <= 1, "{row:?}");
    }
    // 16 vnodes spread worse than mod-N: more shards at the same growth.
    let n = |i: usize| rows[i][needed].parse::<u32>().unwrap();
    assert!(n(2) > n(0) && n(3) > n(1), "{rows:?}");
    assert!(out.join("plan-manifest.json").exists());
}

#[test]
fn a_key_above_capacity_is_named_with_what_would_work_and_three_spread_replicas_fit() {
    let dir = tempfile::tempdir().unwrap();
    let base = [
        "plan",
        "--workload",
        "hotspot:keys=1000,hot=0.001,traffic=0.5",
        "--rate",
        "10000",
        "--events",
        "20000",
    ];
    let out = dir.path().join("one");
    let assert = shardlab()
        .args(base)
        .args(["--capacity", "5000", "--out"])
        .arg(&out)
        .assert()
        .success();
    let stdout = stdout_of(&assert);
    assert!(
        stdout.contains("No shard count works: key '0' alone needs"),
        "{stdout}"
    );
    assert!(
        stdout.contains("What would work: --replicas 2 --reads any") && stdout.contains("cache"),
        "{stdout}"
    );
    let (header, rows) = plan_csv(&out);
    let (needed, binding, key) = (
        column(&header, "shards_needed"),
        column(&header, "binding"),
        column(&header, "hot_key"),
    );
    assert_eq!(rows.len(), 4);
    assert!(
        rows.iter()
            .all(|r| r[needed].is_empty() && r[binding] == "hot_key" && r[key] == "0"),
        "{rows:?}"
    );
    let out = dir.path().join("three");
    shardlab()
        .args(base)
        .args([
            "--capacity",
            "5000",
            "--replicas",
            "3",
            "--reads",
            "any",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let (_, rows) = plan_csv(&out);
    assert!(rows.iter().all(|r| r[needed] == "3"), "{rows:?}");
}

#[test]
fn a_trace_burst_sets_the_peak_rate_in_the_trace_time_unit() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("burst.csv");
    let mut file = std::fs::File::create(&trace).unwrap();
    writeln!(file, "timestamp,key").unwrap();
    // 20 seconds of 10 events, except second 7 with 1,000 (1,190 events, mean 59.5/s);
    // timestamps in milliseconds.
    for second in 0..20u64 {
        let n = if second == 7 { 1_000 } else { 10 };
        for i in 0..n {
            writeln!(file, "{},k{i}", second * 1_000 + i * 1_000 / n).unwrap();
        }
    }
    drop(file);
    let out = dir.path().join("plan");
    let assert = shardlab()
        .args(["plan", "--trace"])
        .arg(&trace)
        .args([
            "--time-unit",
            "ms",
            "--capacity",
            "500",
            "--schemes",
            "hash",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let stdout = stdout_of(&assert);
    assert!(
        stdout.contains("busiest 1 s window 1,000/s") && stdout.contains("mean 59.5/s"),
        "{stdout}"
    );
    let (header, rows) = plan_csv(&out);
    // ceil(1,000 / 400) = 3 shards at least, though the mean would fit on one.
    assert_eq!(rows[0][column(&header, "balanced_shards")], "3");
    assert!(
        rows[0][column(&header, "shards_needed")]
            .parse::<u32>()
            .unwrap()
            >= 3
    );
}

#[test]
fn bad_plan_options_fail_with_a_message_naming_them_and_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let keys_only = dir.path().join("keys.csv");
    std::fs::write(&keys_only, "key\na\nb\n").unwrap();
    // A valid workload with its rate and a shard capacity, then the options of one case.
    let rated = |extra: &[&'static str]| {
        [
            &["--workload", "uniform", "--rate", "5", "--capacity", "10"][..],
            extra,
        ]
        .concat()
    };
    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        (
            vec!["--workload", "uniform", "--capacity", "10"],
            2,
            "has no rate",
        ),
        (
            vec![
                "--workload",
                "uniform:rate=5",
                "--rate",
                "6",
                "--capacity",
                "10",
            ],
            2,
            "give the rate once",
        ),
        (
            vec!["--workload", "uniform", "--rate", "5", "--capacity", "0"],
            2,
            "--capacity",
        ),
        (rated(&["--growth", "1,abc"]), 2, "--growth: 'abc'"),
        (rated(&["--growth", "0"]), 2, "--growth: '0'"),
        (rated(&["--rate-window", "1.5s"]), 2, "--rate-window"),
        (rated(&["--headroom", "1.5"]), 2, "--headroom"),
        (
            rated(&["--replicas", "3", "--max-shards", "2"]),
            2,
            "--max-shards",
        ),
        (
            vec!["--trace", "/nonexistent/trace.csv", "--capacity", "10"],
            1,
            "/nonexistent/trace.csv",
        ),
        (
            vec!["--trace", keys_only.to_str().unwrap(), "--capacity", "10"],
            1,
            "has no timestamp",
        ),
        (
            vec![
                "--trace",
                keys_only.to_str().unwrap(),
                "--capacity",
                "10",
                "--rate",
                "5",
                "--time-unit",
                "s",
            ],
            2,
            "give one of them",
        ),
        (rated(&["--schemes", "rung"]), 2, "unknown scheme 'rung'"),
        (
            rated(&["--schemes", "range-dynamic"]),
            2,
            "plan cannot size 'range-dynamic' yet",
        ),
        (rated(&["--schemes", "ring:vnodes=0"]), 2, "vnodes"),
    ];
    for (args, code, needle) in cases {
        let out = dir.path().join("never");
        let assert = shardlab()
            .arg("plan")
            .args(&args)
            .arg("--out")
            .arg(&out)
            .arg("--quiet")
            .assert()
            .code(code);
        let stderr = stderr_of(&assert);
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn an_existing_output_directory_is_refused_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "plan",
        "--workload",
        "uniform:keys=100",
        "--rate",
        "100",
        "--events",
        "200",
        "--capacity",
        "100",
        "--quiet",
        "--out",
    ];
    shardlab().args(args).arg(dir.path()).assert().code(2);
    shardlab()
        .args(args)
        .arg(dir.path())
        .arg("--force")
        .assert()
        .success();
    assert!(dir.path().join("plan.csv").exists());
}

/// `shardlab plan` on the CloudPhysics fixture (2,000 block requests whose `time` column is in
/// seconds), with `args` after the trace options; the finished command and its `plan.csv`.
fn plan_cloudphysics(args: &[&str], out: &Path) -> (String, Vec<String>, Vec<Vec<String>>) {
    let assert = shardlab()
        .args(["plan", "--trace"])
        .arg(common::fixture("traces/cloudPhysicsIO_2000.csv"))
        .args(["--key-col", "lbn", "--key-type", "u64", "--op-col", "op"])
        .args(["--op-map", "28=get,2a=put", "--time-col", "time"])
        .args(args)
        .arg("--out")
        .arg(out)
        .assert()
        .success();
    let (header, rows) = plan_csv(out);
    (stdout_of(&assert), header, rows)
}

#[test]
fn a_trace_in_one_window_or_an_implausible_time_unit_is_warned_about_naming_the_options() {
    let dir = tempfile::tempdir().unwrap();
    // Read in microseconds (the default), the 3 s of the fixture last 3 us: one 1 s window.
    let args = ["--capacity", "200", "--schemes", "hash,ring"];
    let (stdout, header, rows) = plan_cloudphysics(&args, &dir.path().join("us"));
    assert!(
        stdout.contains("warning: The timestamps span 3.0 us read in us (--time-unit us)")
            && stdout.contains("--time-unit s gives 3.0 s"),
        "{stdout}"
    );
    assert!(
        stdout.contains("warning: The measured events fall in 1 rate window of 1.0 s")
            && stdout.contains("--rate-window"),
        "{stdout}"
    );
    // Printed once, not once per row.
    assert_eq!(stdout.matches("The timestamps span").count(), 1, "{stdout}");
    let note = column(&header, "note");
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert!(
            row[note].contains("--time-unit s gives 3.0 s") && row[note].contains("--rate-window"),
            "{row:?}"
        );
    }
    // In seconds the fixture spans 3 s over 4 windows: nothing to warn about.
    let args = ["--time-unit", "s", "--capacity", "200", "--schemes", "hash"];
    let (stdout, header, rows) = plan_cloudphysics(&args, &dir.path().join("s"));
    assert!(!stdout.contains("warning"), "{stdout}");
    assert_eq!(rows[0][column(&header, "note")], "");
}

#[test]
fn growing_the_current_cluster_names_the_rule_that_makes_a_plan_infeasible() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--time-unit",
        "s",
        "--rate-window",
        "10s",
        "--capacity",
        "20",
        "--current",
        "4",
        "--max-shards",
        "64",
        "--schemes",
        "range:grow=cheapest,range,salted",
    ];
    let (stdout, header, rows) = plan_cloudphysics(&args, &dir.path().join("p"));
    let (needed, binding, note) = (
        column(&header, "shards_needed"),
        column(&header, "binding"),
        column(&header, "note"),
    );
    let cheapest = &rows[0];
    assert_eq!(
        (cheapest[needed].as_str(), cheapest[binding].as_str()),
        ("", "search_limit")
    );
    assert!(
        cheapest[note].contains("more shards would not help")
            && cheapest[note].contains("grow=cheapest")
            && cheapest[note].contains("cannot cut the hot range"),
        "{cheapest:?}"
    );
    assert!(!cheapest[note].contains("raise --max-shards"), "{stdout}");
    // The default rule cuts ranges: the same growth works, for range and salted.
    for row in &rows[1..] {
        assert_eq!(row[binding], "rate", "{row:?}");
        assert!(row[needed].parse::<u32>().unwrap() <= 64, "{row:?}");
    }
}

#[test]
fn a_schemes_plan_is_the_same_alone_and_beside_a_scheme_that_learns_boundaries() {
    // range learns its cuts from a warm-up; the rates are still the whole trace's, so hash's
    // rows do not depend on range being listed.
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("z.csv");
    shardlab()
        .args(["gen", "zipf:keys=50000,s=0.9", "--events", "60000", "-o"])
        .arg(&trace)
        .assert()
        .success();
    let rows_of = |schemes: &str| {
        let out = dir.path().join(schemes.replace(',', "-"));
        shardlab()
            .args(["plan", "--trace"])
            .arg(&trace)
            .args([
                "--schemes",
                schemes,
                "--capacity",
                "2000",
                "--quiet",
                "--out",
            ])
            .arg(&out)
            .assert()
            .success();
        let (header, rows) = plan_csv(&out);
        let scheme = column(&header, "scheme");
        let rows: Vec<Vec<String>> = rows.into_iter().filter(|r| r[scheme] == "hash").collect();
        assert!(!rows.is_empty());
        rows
    };
    assert_eq!(rows_of("hash"), rows_of("hash,range"));
}
