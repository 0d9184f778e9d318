//! The real systems' schemes through the `shardlab` binary: `run` and `plan` accept them like
//! any other scheme, Kafka's broker metrics reach `summary.csv`, and a growth the system
//! cannot make fails with the targets it can.

use std::path::Path;

mod common;

use common::{shardlab, stderr_of, stdout_of};

const SYSTEMS: &str = "redis-cluster,kafka:brokers=3,cassandra,elasticsearch";

/// `summary.csv` rows of `scheme` as (metric, value).
fn summary_of(dir: &Path, scheme: &str) -> Vec<(String, String)> {
    let mut r = csv::Reader::from_path(dir.join("summary.csv")).unwrap();
    r.records()
        .map(|rec| rec.unwrap())
        .filter(|rec| &rec[1] == scheme)
        .map(|rec| (rec[3].to_string(), rec[4].to_string()))
        .collect()
}

fn value(rows: &[(String, String)], metric: &str) -> f64 {
    rows.iter()
        .find(|(m, _)| m == metric)
        .unwrap_or_else(|| panic!("no {metric} in {rows:?}"))
        .1
        .parse()
        .unwrap()
}

#[test]
fn run_replays_the_four_systems_and_measures_the_hottest_kafka_broker() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    shardlab()
        .args([
            "run",
            "--workload",
            "uniform:keys=20000",
            "--events",
            "50000",
        ])
        .args([
            "--schemes",
            SYSTEMS,
            "--shards",
            "4",
            "--grow",
            "8",
            "--quiet",
        ])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let kafka = summary_of(&out, "kafka:brokers=3");
    // 4 partitions on 3 brokers: broker 0 leads partitions 0 and 3, so about half the load.
    let broker_share = value(&kafka, "broker_hottest_share");
    assert!((broker_share - 0.5).abs() < 0.03, "{broker_share}");
    assert!((value(&kafka, "broker_hottest_ratio") - 3.0 * broker_share).abs() < 1e-9);
    // Growing 4 to 8 partitions keeps a key when h mod 8 < 4: half the keys move.
    assert!((value(&kafka, "remap_fraction") - 0.5).abs() < 0.03);
    // Slots and routing shards spread evenly; 16 random tokens per node much less so.
    for (scheme, spread) in [
        ("redis-cluster", 1.1),
        ("elasticsearch", 1.1),
        ("cassandra", 2.0),
    ] {
        let rows = summary_of(&out, scheme);
        assert!(
            value(&rows, "hottest_shard_ratio") < spread,
            "{scheme}: {rows:?}"
        );
        assert!(rows.iter().all(|(m, _)| !m.starts_with("broker_")));
    }
    // Elasticsearch splits shard s into 2s and 2s+1 of a new index: a document keeps its shard
    // number only on shard 0 -> 0, 1/8 of them.
    let es = summary_of(&out, "elasticsearch");
    assert!((value(&es, "remap_fraction") - 0.875).abs() < 0.03);
    // Redis gives each new master 2048 slots taken from the old ones: half the slots move.
    let redis = summary_of(&out, "redis-cluster");
    assert!((value(&redis, "remap_fraction") - 0.5).abs() < 0.03);
}

#[test]
fn a_growth_the_system_cannot_make_is_refused_with_the_targets_it_can() {
    let assert = shardlab()
        .args(["run", "--workload", "uniform:keys=1000", "--events", "5000"])
        .args(["--schemes", "elasticsearch", "--shards", "6", "--grow", "8"])
        .args(["--quiet", "--out"])
        .arg(tempfile::tempdir().unwrap().path().join("run"))
        .assert()
        .failure();
    let stderr = stderr_of(&assert);
    assert!(
        stderr.contains("cannot _split an index of 6 shards")
            && stderr.contains("allowed targets: 12, 24, 48, 96, 192, 384, 768"),
        "{stderr}"
    );
    let assert = shardlab()
        .args(["run", "--workload", "uniform:keys=1000", "--events", "5000"])
        .args(["--schemes", "kafka", "--shards", "6", "--grow", "4"])
        .args(["--quiet", "--out"])
        .arg(tempfile::tempdir().unwrap().path().join("run"))
        .assert()
        .failure();
    assert!(stderr_of(&assert).contains("Kafka cannot reduce a topic's partitions"));
}

#[test]
fn plan_sizes_the_four_systems() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("plan");
    let assert = shardlab()
        .args([
            "plan",
            "--workload",
            "uniform:keys=100000",
            "--rate",
            "100000",
        ])
        .args([
            "--events",
            "50000",
            "--capacity",
            "12500",
            "--schemes",
            SYSTEMS,
        ])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let stdout = stdout_of(&assert);
    for scheme in [
        "redis-cluster",
        "kafka:brokers=3",
        "cassandra",
        "elasticsearch",
    ] {
        assert!(stdout.contains(scheme), "{scheme} missing from:\n{stdout}");
    }
    assert!(out.join("plan.csv").exists());
}
