//! Golden outputs: `summary.csv` and `shards.csv` of small fixed runs (a sweep of synthetic
//! workloads and a trace, every scheme including `range-dynamic`) must stay byte-identical,
//! timing rows aside. A restructuring that changes no behaviour leaves them alone; a change
//! that means to move a number (a new rule, a new column) updates them in one command and
//! shows the difference in review:
//!
//! ```sh
//! UPDATE_GOLDEN=1 cargo test -p bench-cli --test golden   # rewrites tests/fixtures/golden/
//! git diff tests/fixtures/golden/
//! ```

mod common;

use common::{fixture, shardlab, without_timing};

/// The files compared, each without its timing rows.
const FILES: [&str; 2] = ["summary.csv", "shards.csv"];

#[test]
fn a_synthetic_sweep_gives_the_golden_summary_and_shards() {
    check(
        "sweep",
        &[
            "--workload",
            "zipf:keys=5000,s=0.9,1.2,scans=0.05",
            "--workload",
            "sequential:scans=0.05",
            "--events",
            "20000",
            "--shards",
            "4,6",
            "--grow",
            "+1,x2,-1",
            "--fail",
            "worst",
        ],
    );
}

#[test]
fn a_trace_gives_the_golden_summary_and_shards() {
    // Relative to `tests/fixtures` (where `check` runs), so the label is the same everywhere.
    check(
        "trace",
        &[
            "--trace",
            "traces/cloudPhysicsIO_2000.csv",
            "--key-col",
            "lbn",
            "--key-type",
            "u64",
            "--op-col",
            "op",
            "--op-map",
            "28=get,2a=put",
            "--shards",
            "5",
        ],
    );
}

/// Runs `shardlab run` with `args` on every scheme, in `tests/fixtures`, and compares its files with
/// `tests/fixtures/golden/<name>/`, or rewrites those with `UPDATE_GOLDEN=1`.
fn check(name: &str, args: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    shardlab()
        .current_dir(fixture(""))
        .args([
            "run",
            "--quiet",
            "--no-latency",
            "--threads",
            "2",
            "--window",
            "1000",
        ])
        .args(["--schemes", "range,hash,ring,salted,range-dynamic"])
        .args(args)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let golden = fixture("golden").join(name);
    let update = std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v != "0");
    for file in FILES {
        let got = without_timing(&out.join(file));
        let path = golden.join(file);
        if update {
            std::fs::create_dir_all(&golden).unwrap();
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}; create it with UPDATE_GOLDEN=1", path.display()));
        if got != want {
            let first = got
                .lines()
                .zip(want.lines())
                .position(|(g, w)| g != w)
                .unwrap_or(got.lines().count().min(want.lines().count()));
            panic!(
                "{name}/{file} differs from {} from line {}:\n  got:  {}\n  want: {}\n\
                 If the change is meant, rewrite the golden files with UPDATE_GOLDEN=1 \
                 (see the top of this file) and review their diff.",
                path.display(),
                first + 1,
                got.lines().nth(first).unwrap_or("(end of file)"),
                want.lines().nth(first).unwrap_or("(end of file)"),
            );
        }
    }
}
