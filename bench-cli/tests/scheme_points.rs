//! The bound on a scheme's points (issue 35 item 3): ring points, tokens, buckets and table
//! slots past `MAX_SCHEME_POINTS` are refused before anything is built, as a usage error
//! (exit 2) naming the scheme, the points, the limit and the fix; promptly and in little
//! memory, for `route`, `run`, `plan` and every `--grow` target.

mod common;

use std::time::{Duration, Instant};

use common::{shardlab, stderr_of};

/// Runs shardlab with `args`, expects exit 2 within a few seconds, and returns stderr.
fn refused(args: &[&str]) -> String {
    let start = Instant::now();
    let a = shardlab()
        .args(args)
        .timeout(Duration::from_secs(60))
        .assert()
        .code(2);
    let took = start.elapsed();
    assert!(took < Duration::from_secs(10), "{args:?} took {took:?}");
    let err = stderr_of(&a);
    assert!(err.contains("a scheme may hold"), "{args:?}: {err}");
    assert!(err.contains("4194304"), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn route_refuses_the_issues_point_bombs_before_building() {
    let err = refused(&[
        "route",
        "--schemes",
        "ring:vnodes=65536",
        "--shards",
        "65536",
        "k1",
    ]);
    assert!(err.contains("'ring:vnodes=65536'"), "{err}");
    assert!(err.contains("4294967296 points (vnodes x shards)"), "{err}");
    assert!(err.contains("fewer vnodes or fewer shards"), "{err}");
    let err = refused(&[
        "route",
        "--schemes",
        "cassandra:num_tokens=65536",
        "--shards",
        "1024",
        "k1",
    ]);
    assert!(
        err.contains("67108864 points (num_tokens x nodes)"),
        "{err}"
    );
    let err = refused(&[
        "route",
        "--schemes",
        "anchor:capacity=67108864",
        "--shards",
        "4",
        "k1",
    ]);
    assert!(err.contains("a smaller capacity"), "{err}");
    let err = refused(&["route", "--schemes", "ring", "--shards", "65536", "k1"]);
    assert!(err.contains("16777216 points"), "{err}");
    refused(&[
        "route",
        "--schemes",
        "maglev:table=5000011",
        "--shards",
        "4",
        "k1",
    ]);
    refused(&["route", "--schemes", "ketama", "--shards", "30000", "k1"]);
}

#[test]
fn the_default_ring_routes_at_the_bound() {
    // 256 vnodes x 16384 shards is exactly the bound.
    shardlab()
        .args(["route", "--schemes", "ring", "--shards", "16384", "k1"])
        .assert()
        .success();
}

#[test]
fn a_grow_target_past_the_bound_is_refused_before_any_key_is_read() {
    // Standard input is never read: the refusal comes first.
    let err = refused(&[
        "route",
        "--schemes",
        "hash,ring",
        "--shards",
        "16",
        "--grow",
        "20000",
        "-",
    ]);
    assert!(err.contains("on 20000 shards"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let err = refused(&[
        "run",
        "--quiet",
        "--events",
        "1000",
        "--schemes",
        "hash,ring",
        "--shards",
        "16",
        "--grow",
        "+1,20000",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        err.contains("'ring'") && err.contains("on 20000 shards"),
        "{err}"
    );
    assert!(
        err.contains("the --grow target 20000 of 16 shards"),
        "{err}"
    );
    assert!(!out.exists());
    let err = refused(&[
        "run",
        "--quiet",
        "--events",
        "1000",
        "--schemes",
        "cassandra:num_tokens=4096",
        "--shards",
        "2000",
        "--grow",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(err.contains("on 2000 shards"), "{err}");
    // The default target N+1 is past the bound, and named so.
    let err = refused(&[
        "run",
        "--quiet",
        "--events",
        "1000",
        "--schemes",
        "ring",
        "--shards",
        "16384",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        err.contains("the --grow target 16385 of 16384 shards"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn plan_refuses_a_current_layout_past_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("plan");
    let err = refused(&[
        "plan",
        "--quiet",
        "--workload",
        "uniform:keys=100",
        "--events",
        "1000",
        "--rate",
        "1000",
        "--capacity",
        "100",
        "--schemes",
        "ring:vnodes=65536",
        "--current",
        "100",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(err.contains("on 100 shards"), "{err}");
}
