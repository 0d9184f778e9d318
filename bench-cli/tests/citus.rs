//! `citus` end to end: shards on 3 of 4 nodes (`grown_from=3`, the moment after a node add)
//! are rebalanced by Citus's planner, the new node gets its fair share, every move is
//! counted once, `move_rate` paces the moves, and a bad parameter is a usage error.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{csv_rows, shardlab, stderr_of};

/// `shardlab run` of a zipf trace on 4 nodes with `scheme`, into `out`.
fn run(scheme: &str, out: &Path) {
    shardlab()
        .args([
            "run",
            "--workload",
            "zipf:keys=20000,s=0.99",
            "--events",
            "20000",
        ])
        .args([
            "--shards",
            "4",
            "--window",
            "2000",
            "--schemes",
            scheme,
            "--quiet",
            "--out",
        ])
        .arg(out)
        .assert()
        .success();
}

/// The rows of `file` in `out` as maps from column to cell.
fn rows(out: &Path, file: &str) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(out.join(file)).unwrap();
    let rows = csv_rows(&text);
    let head = &rows[0];
    rows[1..]
        .iter()
        .map(|r| head.iter().cloned().zip(r.iter().cloned()).collect())
        .collect()
}

/// The value of `metric` in `summary.csv`.
fn metric(out: &Path, metric: &str) -> u64 {
    let row = rows(out, "summary.csv")
        .into_iter()
        .find(|r| r["metric"] == metric)
        .unwrap_or_else(|| panic!("no {metric}"));
    row["value"].parse().unwrap()
}

#[test]
fn the_new_node_gets_its_fair_share_and_every_move_is_counted() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    run("citus:grown_from=3", &out);
    let shards = rows(&out, "citus_shards.csv");
    assert_eq!(shards.len(), 32);
    let on = |n: &str| shards.iter().filter(|r| r["node"] == n).count();
    // 32 shards on 4 nodes: 8 each, the new node included.
    assert_eq!([on("0"), on("1"), on("2"), on("3")], [8, 8, 8, 8]);
    assert!(shards.iter().all(|r| r["start_node"] != "3"));
    let moved = shards
        .iter()
        .filter(|r| r["node"] != r["start_node"])
        .count() as u64;
    assert_eq!(moved, 8);
    assert_eq!(metric(&out, "citus_shard_moves"), moved);
    assert_eq!(metric(&out, "citus_redundant_moves"), 0);
    let timeline = rows(&out, "timeline.csv");
    let per_window: Vec<u64> = timeline
        .iter()
        .map(|r| r["shard_moves"].parse().unwrap())
        .collect();
    // Instant moves: all in the first window, nothing after.
    assert_eq!(per_window.iter().sum::<u64>(), moved);
    assert_eq!(per_window[0], moved);
    let bytes: u64 = timeline
        .iter()
        .map(|r| r["bytes_moved"].parse::<u64>().unwrap())
        .sum();
    assert_eq!(metric(&out, "citus_bytes_moved"), bytes);
    assert!(bytes > 0);
}

#[test]
fn move_rate_spreads_the_moves_over_windows() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    // Synthetic events are 1 µs apart: a window of 2,000 events earns 2 ms x 2.5 MB/s = 5,000
    // bytes.
    run("citus:grown_from=3,move_rate=2500000", &out);
    let timeline = rows(&out, "timeline.csv");
    let pending: Vec<u64> = timeline
        .iter()
        .map(|r| r["pending_moves"].parse().unwrap())
        .collect();
    let moves: Vec<u64> = timeline
        .iter()
        .map(|r| r["shard_moves"].parse().unwrap())
        .collect();
    assert!(pending[0] > 0, "{pending:?}");
    assert!(moves.iter().filter(|&&m| m > 0).count() > 1, "{moves:?}");
    assert_eq!(
        moves.iter().sum::<u64>() + metric(&out, "citus_pending_moves"),
        8,
        "{moves:?} {pending:?}"
    );
}

#[test]
fn a_bad_parameter_is_a_usage_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    for (scheme, name) in [
        ("citus:threshold=2", "threshold=2"),
        ("citus:strategy=by_load", "strategy=by_load"),
        ("citus:grown_from=5", "grown_from=5"),
    ] {
        let assert = shardlab()
            .args(["run", "--workload", "zipf:keys=100", "--events", "1000"])
            .args(["--shards", "4", "--schemes", scheme, "--quiet", "--out"])
            .arg(dir.path().join("bad"))
            .assert()
            .code(2);
        let err = stderr_of(&assert);
        assert!(err.contains(name), "{scheme}: {err}");
    }
}
