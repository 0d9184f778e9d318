//! `pd-hot` end to end: regions on 3 of 4 stores (`grown_from=3`, the moment after a store
//! joined) under a zipf trace; the scheduler moves hot regions off the hottest stores, the
//! hottest store's share falls, the new store takes regions, every move is counted once in
//! the timeline, the regions table and the summary, and a bad parameter is a usage error.

mod common;

use common::{assert_bad_schemes, column, shardlab, summary_metric, table};

#[test]
fn hot_regions_move_off_the_hottest_stores_and_every_move_is_counted() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    shardlab()
        .args(["run", "--workload", "zipf:keys=20000,s=0.99"])
        .args(["--events", "20000", "--shards", "4", "--window", "2000"])
        .args(["--schemes", "pd-hot:grown_from=3", "--quiet", "--out"])
        .arg(&out)
        .assert()
        .success();
    let timeline = table(&out, "timeline.csv");
    assert_eq!(timeline.len(), 10);
    let moves = column(&timeline, "region_moves");
    let share = column(&timeline, "hottest_node_share");
    let hot = column(&timeline, "hot_regions");
    // No region is hot before its third window in a row: no move before window 2.
    assert_eq!((hot[0], hot[1], moves[0], moves[1]), (0.0, 0.0, 0.0, 0.0));
    assert!(
        moves[2] > 0.0 && moves.iter().all(|&m| m <= 4.0),
        "{moves:?}"
    );
    // Three of four stores hold the regions at first (a third each, the hottest more);
    // once hot regions moved, the hottest store holds well under that.
    assert!(share[0] > 0.4 && share[1] > 0.4, "{share:?}");
    assert!(share[5..].iter().all(|&s| s < 0.3), "{share:?}");
    let total: f64 = moves.iter().sum();
    assert_eq!(summary_metric(&out, "pd_hot_moves"), total);
    let bytes: f64 = column(&timeline, "bytes_moved").iter().sum();
    assert_eq!(summary_metric(&out, "pd_hot_bytes_moved"), bytes);
    assert!(bytes > 0.0);
    assert_eq!(summary_metric(&out, "pd_hot_hot_regions"), hot[9]);
    let regions = table(&out, "pd_hot_regions.csv");
    assert_eq!(regions.len(), 64);
    assert!(regions.iter().all(|r| r["start_store"] != "3"));
    assert!(regions.iter().any(|r| r["store"] == "3"));
    let per_region: f64 = column(&regions, "moves").iter().sum();
    assert_eq!(per_region, total);
    let moved = regions
        .iter()
        .filter(|r| r["store"] != r["start_store"])
        .count() as f64;
    // A region away from its start store keeps at least one move that no cycle cancels.
    let redundant = summary_metric(&out, "pd_hot_redundant_moves");
    assert!(
        moved <= total && redundant <= total - moved,
        "{moved} {total} {redundant}"
    );
    let requests: f64 = column(&regions, "requests").iter().sum();
    assert_eq!(requests, 20000.0);
}

#[test]
fn a_bad_parameter_is_a_usage_error_naming_it() {
    assert_bad_schemes(&[
        ("pd-hot:tolerance=0.9", "tolerance=0.9"),
        ("pd-hot:dec_ratio=2", "dec_ratio=2"),
        ("pd-hot:hot_degree=0", "hot_degree=0"),
        ("pd-hot:grown_from=5", "grown_from=5"),
        ("pd-hot:vnodes=3", "vnodes"),
    ]);
}
