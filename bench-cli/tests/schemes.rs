//! End-to-end tests of the consistent-hashing family (jump, rendezvous, maglev, multiprobe,
//! anchor, bounded) and of `--weights`, through `shardlab run` and `shardlab route`.

use std::collections::BTreeMap;
use std::path::Path;

mod common;

use common::{shardlab, stderr_of, stdout_of};

/// `summary.csv` as (scheme, metric) -> value, for a run of one workload.
fn summary(dir: &Path) -> BTreeMap<(String, String), f64> {
    let mut r = csv::Reader::from_path(dir.join("summary.csv")).unwrap();
    r.records()
        .filter_map(|rec| {
            let rec = rec.unwrap();
            let value = rec[4].parse().ok()?;
            Some(((rec[1].to_string(), rec[3].to_string()), value))
        })
        .collect()
}

/// Distinct keys per shard of `scheme`, from `shards.csv`.
fn distinct_per_shard(dir: &Path, scheme: &str) -> Vec<u64> {
    let mut r = csv::Reader::from_path(dir.join("shards.csv")).unwrap();
    let headers = r.headers().unwrap().clone();
    let col = headers.iter().position(|h| h == "distinct_keys").unwrap();
    r.records()
        .map(|rec| rec.unwrap())
        .filter(|rec| &rec[1] == scheme)
        .map(|rec| rec[col].parse().unwrap())
        .collect()
}

#[test]
fn the_family_replays_with_its_growth_rules_and_bounded_keeps_its_cap() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    shardlab()
        .args([
            "run",
            "--workload",
            "uniform:keys=20000",
            "--events",
            "100000",
        ])
        .args([
            "--schemes",
            "jump,rendezvous,maglev,multiprobe,anchor,bounded:c=1.1",
        ])
        .args([
            "--shards",
            "16",
            "--grow",
            "17",
            "--no-latency",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let s = summary(&out);
    // A new shard takes 1/17 = 0.0588 of the keys; sd over ~20,000 keys is 0.0017.
    for scheme in ["jump", "rendezvous", "anchor", "multiprobe"] {
        let remap = s[&(scheme.to_string(), "remap_fraction".to_string())];
        assert!((remap - 1.0 / 17.0).abs() < 0.012, "{scheme}: {remap}");
    }
    let maglev = s[&("maglev".to_string(), "remap_fraction".to_string())];
    assert!(maglev > 0.05 && maglev < 0.09, "{maglev}");
    let distinct = s[&("bounded:c=1.1".to_string(), "distinct_keys".to_string())];
    let cap = (1.1 * distinct / 16.0).ceil() as u64;
    let loads = distinct_per_shard(&out, "bounded:c=1.1");
    assert_eq!(loads.len(), 16);
    assert!(loads.iter().all(|&l| l <= cap), "{loads:?} > {cap}");
}

#[test]
fn weights_are_honoured_or_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("w");
    shardlab()
        .args([
            "run",
            "--workload",
            "uniform:keys=30000",
            "--events",
            "100000",
        ])
        .args(["--schemes", "ring,rendezvous,maglev,range", "--shards", "2"])
        .args(["--weights", "1,2", "--no-latency", "--quiet", "--out"])
        .arg(&out)
        .assert()
        .success();
    let s = summary(&out);
    // Balance per weight: 1.0 when shard 1 holds two thirds.
    for (scheme, within) in [
        ("ring", 0.1),
        ("rendezvous", 0.03),
        ("maglev", 0.03),
        ("range", 0.1),
    ] {
        let ratio = s[&(scheme.to_string(), "hottest_shard_ratio".to_string())];
        assert!((ratio - 1.0).abs() < within, "{scheme}: {ratio}");
        // Each shard measured against its capacity: following the weights uses nearly all of
        // the cluster (measured against equal shards, shard 1's two thirds would leave 75%).
        let usable = s[&(scheme.to_string(), "usable_capacity".to_string())];
        assert!(usable > 1.0 - within - 0.03, "{scheme}: {usable}");
    }
    let refused = shardlab()
        .args([
            "run",
            "--workload",
            "uniform",
            "--schemes",
            "hash",
            "--shards",
            "2",
        ])
        .args(["--weights", "1,2", "--quiet", "--out"])
        .arg(dir.path().join("x"))
        .assert()
        // Options that conflict are a usage error (docs/usage.md: exit statuses).
        .code(2);
    let err = stderr_of(&refused);
    assert!(
        err.contains("cannot honour --weights") && err.contains("rendezvous"),
        "{err}"
    );
    // A simulated scheme gets no weights: its figures would be of equal nodes in a run whose
    // figures are per weight.
    let simulated = shardlab()
        .args(["run", "--workload", "uniform", "--schemes", "range-dynamic"])
        .args(["--shards", "2", "--weights", "1,2", "--quiet", "--out"])
        .arg(dir.path().join("d"))
        .assert()
        .code(2);
    let err = stderr_of(&simulated);
    assert!(
        err.contains("'range-dynamic' cannot honour --weights"),
        "{err}"
    );
    let wrong_count = shardlab()
        .args([
            "route",
            "--schemes",
            "rendezvous",
            "--shards",
            "3",
            "--weights",
            "1,2",
            "k",
        ])
        .assert()
        .code(1);
    assert!(stderr_of(&wrong_count).contains("2 weights given for 3 shards"));
}

#[test]
fn route_gives_each_schemes_detail_and_jump_reads_u64_keys_as_they_are() {
    let a = shardlab()
        .args([
            "route",
            "--schemes",
            "jump:hash=none,maglev,anchor,multiprobe,bounded",
        ])
        .args([
            "--shards",
            "100",
            "--key-type",
            "u64",
            "--grow",
            "101",
            "1",
            "2",
        ])
        .assert()
        .success();
    let text = stdout_of(&a);
    let rows: Vec<Vec<String>> = csv::Reader::from_reader(text.as_bytes())
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect();
    // Guava's vectors: keys 1 and 2 on 100 buckets are 55 and 62.
    assert_eq!(rows[0][..3], ["1", "jump:hash=none", "55"]);
    assert_eq!(rows[5][..3], ["2", "jump:hash=none", "62"]);
    assert!(rows[1][3].starts_with("slot="), "{:?}", rows[1]);
    assert!(rows[2][3].starts_with("bucket="), "{:?}", rows[2]);
    assert!(rows[3][3].starts_with("probe="), "{:?}", rows[3]);
    assert!(rows[4][3].starts_with("home="), "{:?}", rows[4]);
    assert!(rows.iter().all(|r| r.len() == 5 && !r[4].is_empty()));
}
