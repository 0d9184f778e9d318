//! Inputs of issue 35 item 6: `plan` reads boundaries files as `run` does.

mod common;

use std::path::Path;

use common::{csv_rows, shardlab, stderr_of};

/// A csv trace of integer keys, one a line, and a boundaries file `5, 10, 100`.
fn u64_trace(dir: &Path) -> (String, String) {
    let trace = dir.join("keys.csv");
    let keys: String = (0..400)
        .map(|i| format!("{}\n", (i * 7919) % 1000))
        .collect();
    std::fs::write(&trace, format!("key\n{keys}")).unwrap();
    let bounds = dir.join("bounds.txt");
    std::fs::write(&bounds, "5\n10\n100\n").unwrap();
    (
        trace.to_str().unwrap().to_string(),
        format!("range:boundaries={}", bounds.display()),
    )
}

#[test]
fn plan_reads_a_boundaries_file_as_integers_under_key_type_u64_as_run_and_route_do() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, range) = u64_trace(dir.path());
    // `5 < 10 < 100` as integers, but not as text.
    shardlab()
        .args([
            "route",
            "--key-type",
            "u64",
            "--shards",
            "4",
            "--schemes",
            &range,
            "7",
        ])
        .assert()
        .success();
    let run_out = dir.path().join("run");
    shardlab()
        .args(["run", "--quiet", "--trace", &trace, "--key-type", "u64"])
        .args(["--shards", "4", "--schemes", &range, "--out"])
        .arg(&run_out)
        .assert()
        .success();
    let out = dir.path().join("plan");
    let a = shardlab()
        .args(["plan", "--quiet", "--trace", &trace, "--key-type", "u64"])
        .args([
            "--rate",
            "1000",
            "--capacity",
            "100",
            "--schemes",
            &range,
            "--out",
        ])
        .arg(&out)
        .assert();
    let err = stderr_of(&a);
    a.success();
    assert!(!err.contains("is not greater than"), "{err}");
    let rows = csv_rows(&std::fs::read_to_string(out.join("plan.csv")).unwrap());
    assert_eq!(rows.len(), 2, "{rows:?}");
}
