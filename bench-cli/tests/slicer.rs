//! `slicer` end to end: slices on 3 of 4 tasks (`grown_from=3`, the moment after a task
//! joins) are rebalanced at window ends; the new task reaches its fair load within a few
//! windows, no window moves more than the churn budget, every move is counted, and a bad
//! parameter is a usage error naming it.

mod common;

use std::path::Path;

use common::{assert_bad_schemes, column, shardlab, summary_metric, table};

/// `shardlab run` of a zipf trace on 4 tasks, windows of 2000 events, with `scheme`.
fn run(scheme: &str, out: &Path) {
    shardlab()
        .args(["run", "--workload", "zipf:keys=20000,s=0.99"])
        .args(["--events", "20000", "--shards", "4", "--window", "2000"])
        .args(["--schemes", scheme, "--quiet", "--out"])
        .arg(out)
        .assert()
        .success();
}

#[test]
fn the_new_task_reaches_its_fair_load_within_the_churn_budget() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    run("slicer:grown_from=3", &out);
    let timeline = table(&out, "timeline.csv");
    assert_eq!(timeline.len(), 10);
    let churn = column(&timeline, "churn");
    assert!(churn.iter().all(|&c| c <= 0.09), "{churn:?}");
    assert!(churn[0] > 0.0, "{churn:?}");
    let moved: f64 = churn.iter().sum();
    assert!((summary_metric(&out, "slicer_keys_moved_share") - moved).abs() < 1e-9);
    let moves: f64 = column(&timeline, "moves").iter().sum();
    assert_eq!(summary_metric(&out, "slicer_moves"), moves);
    assert!(summary_metric(&out, "slicer_redundant_moves") <= moves);
    // The new task's requests per window (routed before the window's round): none in the
    // first window, then at least 90% of the fair 500 by the fourth window and at least
    // 80% from then on.
    let new_task: Vec<f64> = table(&out, "windows.csv")
        .iter()
        .filter(|r| r["shard"] == "3")
        .map(|r| r["requests"].parse().unwrap())
        .collect();
    assert_eq!(new_task.len(), 10);
    assert_eq!(new_task[0], 0.0);
    let first = new_task.iter().position(|&r| r >= 450.0);
    assert!(first.is_some_and(|w| w <= 4), "{new_task:?}");
    assert!(
        new_task[first.unwrap_or(0)..].iter().all(|&r| r >= 400.0),
        "{new_task:?}"
    );
    // The slices at the end cover the space, every task serves some.
    let slices = table(&out, "slicer_slices.csv");
    let last_count: f64 = column(&timeline, "slices")[9];
    assert_eq!(slices.len() as f64, last_count);
    let widths: f64 = column(&slices, "width_share").iter().sum();
    assert!((widths - 1.0).abs() < 1e-9, "{widths}");
    for task in ["0", "1", "2", "3"] {
        assert!(slices.iter().any(|r| r["task"] == task), "task {task}");
    }
    assert!(summary_metric(&out, "slicer_imbalance") <= 1.2);
}

#[test]
fn a_smaller_budget_moves_less_per_window() {
    let dir = tempfile::tempdir().unwrap();
    let churn_of = |scheme: &str| {
        let out = dir.path().join(scheme.replace([':', ',', '='], "_"));
        run(scheme, &out);
        column(&table(&out, "timeline.csv"), "churn")
    };
    // Slices of 1/12 of the space do not fit 0.05: only halves (1/24) of hot slices move.
    let small = churn_of("slicer:grown_from=3,churn_budget=0.05");
    assert!(small.iter().all(|&c| c <= 0.05), "{small:?}");
    assert!(small.iter().any(|&c| c > 0.0), "{small:?}");
    let default = churn_of("slicer:grown_from=3");
    assert!(small.iter().sum::<f64>() < default.iter().sum::<f64>());
    // Nothing fits 0.03: nothing moves.
    let none = churn_of("slicer:grown_from=3,churn_budget=0.03");
    assert!(none.iter().all(|&c| c == 0.0), "{none:?}");
}

#[test]
fn a_bad_parameter_is_a_usage_error_naming_it() {
    assert_bad_schemes(&[
        ("slicer:churn_budget=2", "churn_budget=2"),
        ("slicer:max_imbalance=0.5", "max_imbalance=0.5"),
        ("slicer:grown_from=5", "grown_from=5"),
        ("slicer:slices=3", "'slices'"),
    ]);
}

#[test]
fn a_run_cut_into_two_parts_merges_into_the_single_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let gen = |spec: &str, events: &str, file: &str| {
        shardlab()
            .current_dir(d)
            .args(["gen", spec, "--quiet", "--events", events, "-o", file])
            .assert()
            .success();
    };
    gen(
        "zipf:keys=4000,s=1.1,scans=0.05,writes=0.2",
        "12000",
        "t1.csv",
    );
    gen("zipf:keys=4000,s=1.0", "8000", "t2.csv");
    let run = |extra: &[&str]| {
        shardlab()
            .current_dir(d)
            .args(["run", "--quiet", "--trace", "t*.csv", "--no-latency"])
            .args(["--window", "1000", "--schemes", "slicer:grown_from=3,hash"])
            .args(["--shards", "4", "--grow", "+1"])
            .args(extra)
            .assert()
            .success();
    };
    run(&["--out", "single"]);
    for i in 0..2 {
        run(&[
            "--part",
            &format!("{i}/2"),
            "--out",
            &format!("w/count-{i}"),
        ]);
    }
    for i in 0..2 {
        let part = format!("{i}/2");
        let out = format!("w/part-{i}");
        run(&["--part", &part, "--counts", "w/count-*", "--out", &out]);
    }
    shardlab()
        .current_dir(d)
        .args(["merge", "--quiet", "w/part-*", "--out", "merged"])
        .assert()
        .success();
    for file in ["timeline.csv", "slicer_slices.csv", "windows.csv"] {
        let read = |run: &str| std::fs::read_to_string(d.join(run).join(file)).unwrap();
        assert_eq!(read("single"), read("merged"), "{file}");
    }
    let untimed = |run: &str| -> Vec<std::collections::BTreeMap<String, String>> {
        table(&d.join(run), "summary.csv")
            .into_iter()
            .filter(|r| !r["metric"].contains("_ns") && !r["metric"].contains("per_sec"))
            .collect()
    };
    let single = untimed("single");
    assert!(single.iter().any(|r| r["metric"] == "slicer_moves"));
    assert_eq!(single, untimed("merged"));
}
