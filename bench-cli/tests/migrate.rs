//! `shardlab migrate` with integer keys: the moves are exactly the keys `route` says change
//! owner, between the same shards, and the keys are shown as written.

mod common;

use common::shardlab;

/// `shardlab migrate` in `dir` of the u64 keys in `keys` under `scheme`, from `shards` to
/// `grow` shards, into `out`.
fn migrate_u64(
    dir: &std::path::Path,
    scheme: &str,
    (shards, grow): (&str, &str),
    keys: &str,
    out: &str,
) -> assert_cmd::assert::Assert {
    shardlab()
        .current_dir(dir)
        .args([
            "migrate", "--scheme", scheme, "--shards", shards, "--grow", grow,
        ])
        .args(["--keys", keys, "--key-type", "u64", "--step-bytes", "1MB"])
        .args(["--bandwidth", "1MB", "--out", out])
        .assert()
}

#[test]
fn migrate_with_u64_keys_moves_what_route_says_moves() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let keys: String = (1..=3000u64).map(|k| format!("{}\n", k * 7919)).collect();
    std::fs::write(d.join("k.txt"), keys).unwrap();
    let routed = shardlab()
        .current_dir(d)
        .args([
            "route",
            "--schemes",
            "vitess-hash",
            "--shards",
            "2",
            "--grow",
            "4",
        ])
        .args(["--key-type", "u64", "--keys", "k.txt"])
        .assert()
        .success();
    let mut want: Vec<String> = String::from_utf8(routed.get_output().stdout.clone())
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|c| c[2] != c[4])
        .map(|c| format!("{},{},{}", c[0], c[2], c[4]))
        .collect();
    migrate_u64(d, "vitess-hash", ("2", "4"), "k.txt", "m").success();
    let moves = std::fs::read_to_string(d.join("m/moves.csv")).unwrap();
    let mut got: Vec<String> = moves
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .map(|c| format!("{},{},{}", c[2], c[3], c[4]))
        .collect();
    want.sort();
    got.sort();
    assert!(want.len() > 1000, "{}", want.len());
    assert_eq!(got, want);
    // A key that is not an integer names its line; Redis is placed by the key's text.
    std::fs::write(d.join("bad.txt"), "12\nx\n").unwrap();
    let bad = migrate_u64(d, "hash", ("2", "3"), "bad.txt", "b").code(1);
    let err = String::from_utf8_lossy(&bad.get_output().stderr).into_owned();
    assert!(err.contains("bad.txt:2:"), "{err}");
    migrate_u64(d, "redis-cluster", ("3", "4"), "k.txt", "r").code(2);
}
