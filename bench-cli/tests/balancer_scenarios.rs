//! Balancers under `run --scenario` (citus, pd-hot, slicer, range-dynamic): an added node
//! gets shards only after its time, a drain empties its node (which then serves nothing), a
//! failure makes the node's keys unavailable until it recovers, a rule a balancer does not
//! have is refused with its reason; slicer's `move_rate` paces its moves; converge_secs is
//! reported for a balancer that starts grown.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{shardlab, stderr_of, summary_metric, table};

/// A csv trace of 20 000 events over 3 000 keys, 100 events per second (200 s), timestamps
/// in seconds, values of 10 to 99 bytes.
fn trace(dir: &Path) -> PathBuf {
    let mut text = String::from("key,op,timestamp,size\n");
    let mut x = 12345u64;
    for i in 0..20_000u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let key = (x >> 33) % 3_000;
        let op = if i % 4 == 0 { "put" } else { "get" };
        text.push_str(&format!("k{key},{op},{},{}\n", i / 100, 10 + key % 90));
    }
    let path = dir.join("t.csv");
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs `scheme` on 4 nodes over the trace, in windows of 1000 events (10 s), with the
/// scenario `lines` when given; returns the run's directory.
fn run(dir: &Path, scheme: &str, lines: Option<&str>) -> PathBuf {
    let out = dir.join(format!("run-{}", scheme.replace([':', ',', '='], "_")));
    let mut cmd = shardlab();
    cmd.current_dir(dir)
        .args(["run", "--quiet", "--no-latency", "--time-unit", "s"])
        .args(["--warmup", "0", "--window", "1000", "--shards", "4"])
        .arg("--trace")
        .arg(trace(dir))
        .args(["--schemes", scheme, "--out"])
        .arg(&out);
    if let Some(lines) = lines {
        std::fs::write(dir.join("s.txt"), lines).unwrap();
        cmd.args(["--scenario", "s.txt"]);
    }
    cmd.assert().success();
    out
}

fn num(row: &BTreeMap<String, String>, column: &str) -> f64 {
    row[column]
        .parse()
        .unwrap_or_else(|_| panic!("{column}: '{}'", row[column]))
}

/// Shards of `citus_shards.csv` on each of `nodes` nodes at the end.
fn shards_per_node(out: &Path, nodes: u32) -> Vec<usize> {
    let shards = table(out, "citus_shards.csv");
    (0..nodes)
        .map(|n| shards.iter().filter(|r| r["node"] == n.to_string()).count())
        .collect()
}

#[test]
fn citus_moves_shards_to_an_added_node_only_after_its_time_until_counts_are_equal() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), "citus:shards=40", Some("100 add 1\n"));
    let timeline = table(&out, "timeline.csv");
    for r in &timeline {
        if num(r, "time_secs") < 100.0 {
            assert_eq!(num(r, "shard_moves"), 0.0, "a move before the add: {r:?}");
            assert_eq!(num(r, "nodes_up"), 4.0);
        } else {
            assert_eq!(num(r, "nodes_up"), 5.0);
        }
    }
    assert_eq!(shards_per_node(&out, 5), [8; 5]);
    let moves: f64 = timeline.iter().map(|r| num(r, "shard_moves")).sum();
    assert_eq!(moves, 8.0);
    let events = table(&out, "events.csv");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["outcome"], "applied");
    assert_eq!(num(&events[0], "moves"), 8.0);
    let converge = summary_metric(&out, "converge_secs");
    assert!((0.0..=100.0).contains(&converge), "{converge}");
    assert_eq!(summary_metric(&out, "refused_events"), 0.0);
}

#[test]
fn a_citus_drain_moves_every_shard_off_the_node_which_then_serves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // About 6 KB per shard: a node's 10 shards take about a minute at 1000 bytes/s.
    let out = run(
        dir.path(),
        "citus:shards=40,move_rate=1000",
        Some("50 drain 1\n"),
    );
    assert_eq!(shards_per_node(&out, 4)[1], 0);
    let events = table(&out, "events.csv");
    let drain = num(&events[0], "move_secs");
    assert!(drain > 10.0 && drain < 150.0, "the drain took {drain} s");
    assert_eq!(summary_metric(&out, "drain_secs"), drain);
    // Node 1 served in the first window and serves nothing in the last one.
    let windows = table(&out, "windows.csv");
    let node1 = |w: &str| {
        windows
            .iter()
            .find(|r| r["window"] == w && r["shard"] == "1")
            .map_or(0.0, |r| num(r, "requests"))
    };
    let last = windows
        .iter()
        .map(|r| num(r, "window") as u64)
        .max()
        .unwrap();
    assert!(node1("0") > 0.0);
    assert_eq!(node1(&last.to_string()), 0.0);
    let timeline = table(&out, "timeline.csv");
    assert_eq!(num(timeline.last().unwrap(), "nodes_up"), 3.0);
}

#[test]
fn every_balancer_applies_add_and_drain_by_its_own_rule() {
    let dir = tempfile::tempdir().unwrap();
    for scheme in ["pd-hot", "slicer", "range-dynamic:replicas=1"] {
        let out = run(dir.path(), scheme, Some("60 add 1\n120 drain 0\n"));
        let events = table(&out, "events.csv");
        let outcomes: Vec<&str> = events.iter().map(|r| r["outcome"].as_str()).collect();
        assert_eq!(outcomes, ["applied", "applied"], "{scheme}");
        assert!(
            num(&events[1], "moves") > 0.0,
            "{scheme}: the drain moved nothing"
        );
        let drain = summary_metric(&out, "drain_secs");
        assert!((0.0..80.0).contains(&drain), "{scheme}: drain_secs {drain}");
        let timeline = table(&out, "timeline.csv");
        assert_eq!(num(timeline.last().unwrap(), "nodes_up"), 4.0, "{scheme}");
    }
}

#[test]
fn a_failed_node_is_unavailable_until_it_recovers_and_rules_a_balancer_lacks_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = "50 fail 1\n80 recover 1\n100 weight 0 2\n";
    let out = run(dir.path(), "slicer", Some(scenario));
    let events = table(&out, "events.csv");
    assert_eq!(events[0]["outcome"], "applied");
    assert!(
        events[2]["outcome"].starts_with("refused: its nodes are equal"),
        "{:?}",
        events[2]
    );
    assert_eq!(summary_metric(&out, "refused_events"), 1.0);
    let unavailable = summary_metric(&out, "unavailable_share");
    // A quarter of the keys for 30 of 200 s.
    assert!(unavailable > 0.02 && unavailable < 0.08, "{unavailable}");
    for r in table(&out, "timeline.csv") {
        let t = num(&r, "time_secs");
        if !(40.0..80.0).contains(&t) {
            assert_eq!(num(&r, "unavailable"), 0.0, "at {t}");
        }
    }
    // A balancer keeps one copy of every key: --replicas 2 is refused, saying so.
    let a = shardlab()
        .current_dir(dir.path())
        .args(["run", "--quiet", "--time-unit", "s", "--trace", "t.csv"])
        .args([
            "--schemes",
            "citus",
            "--scenario",
            "s.txt",
            "--replicas",
            "2",
        ])
        .args(["--out", "bad"])
        .assert()
        .code(2);
    assert!(stderr_of(&a).contains("keeps one copy of every key"));
}

#[test]
fn slicer_move_rate_paces_its_moves_and_settles_later() {
    let dir = tempfile::tempdir().unwrap();
    let instant = run(dir.path(), "slicer:grown_from=2", None);
    let rate = 200.0;
    let paced = run(dir.path(), "slicer:grown_from=2,move_rate=200", None);
    let last_move = |out: &Path| {
        let t = table(out, "timeline.csv");
        t.iter().rposition(|r| num(r, "moves") > 0.0).unwrap()
    };
    assert!(last_move(&paced) > last_move(&instant));
    // Bytes moved by the end of window w never exceed what w + 1 windows of 10 s earned.
    let mut moved = 0.0;
    for (w, r) in table(&paced, "timeline.csv").iter().enumerate() {
        moved += num(r, "bytes_moved");
        assert!(moved <= rate * 10.0 * (w + 1) as f64, "window {w}: {moved}");
    }
    let settle = |out: &Path| summary_metric(out, "converge_secs");
    assert!(settle(&paced) >= settle(&instant));
}

#[test]
fn citus_grown_from_3_reports_when_it_settled() {
    let dir = tempfile::tempdir().unwrap();
    let instant = run(dir.path(), "citus:grown_from=3", None);
    let paced = run(dir.path(), "citus:grown_from=3,move_rate=300", None);
    let (a, b) = (
        summary_metric(&instant, "converge_secs"),
        summary_metric(&paced, "converge_secs"),
    );
    // Instant moves settle at the first window end; paced ones later, within the run.
    assert!(a <= 10.0, "instant: {a}");
    assert!(b > a && b <= 200.0, "paced: {b}, instant {a}");
}
