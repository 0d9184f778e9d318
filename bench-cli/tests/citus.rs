//! `citus` end to end: shards on 3 of 4 nodes (`grown_from=3`, the moment after a node add)
//! are rebalanced by Citus's planner, the new node gets its fair share, every move is
//! counted once, `move_rate` paces the moves, and a bad parameter is a usage error.

mod common;

use std::path::Path;

use common::{assert_bad_schemes, shardlab, summary_metric, table};

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

#[test]
fn the_new_node_gets_its_fair_share_and_every_move_is_counted() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    run("citus:grown_from=3", &out);
    let shards = table(&out, "citus_shards.csv");
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
    assert_eq!((summary_metric(&out, "citus_shard_moves") as u64), moved);
    assert_eq!((summary_metric(&out, "citus_redundant_moves") as u64), 0);
    let timeline = table(&out, "timeline.csv");
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
    assert_eq!((summary_metric(&out, "citus_bytes_moved") as u64), bytes);
    assert!(bytes > 0);
}

#[test]
fn move_rate_spreads_the_moves_over_windows() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    // Synthetic events are 1 µs apart: a window of 2,000 events earns 2 ms x 2.5 MB/s = 5,000
    // bytes.
    run("citus:grown_from=3,move_rate=2500000", &out);
    let timeline = table(&out, "timeline.csv");
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
        moves.iter().sum::<u64>() + (summary_metric(&out, "citus_pending_moves") as u64),
        8,
        "{moves:?} {pending:?}"
    );
}

#[test]
fn a_bad_parameter_is_a_usage_error_naming_it() {
    assert_bad_schemes(&[
        ("citus:threshold=2", "threshold=2"),
        ("citus:strategy=by_load", "strategy=by_load"),
        ("citus:grown_from=5", "grown_from=5"),
    ]);
}
