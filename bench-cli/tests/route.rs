//! End-to-end tests of `shardlab route`.

mod common;

use common::{csv_rows as rows, shardlab, stderr_of, stdout_of};

#[test]
fn keys_given_as_arguments_get_one_row_per_scheme_with_the_exact_header() {
    let a = shardlab()
        .args(["route", "--schemes", "hash,ring:vnodes=8", "--shards", "7"])
        .args(["user42", "a,b"])
        .assert()
        .success();
    let rows = rows(&stdout_of(&a));
    assert_eq!(rows[0], ["key", "scheme", "shard", "detail"]);
    assert_eq!(rows.len(), 5);
    // hash64(b"user42") = 0x9fdc8e44c5b9267c, pinned.
    let want = (0x9fdc_8e44_c5b9_267c_u64 % 7).to_string();
    assert_eq!(rows[1], ["user42", "hash", want.as_str(), ""]);
    assert_eq!(rows[2][..2], ["user42", "ring:vnodes=8"]);
    assert!(rows[2][3].starts_with("hash=0x9fdc8e44c5b9267c point=0x"));
    // A key with a comma is quoted, and read back as given.
    assert_eq!(rows[3][..2], ["a,b", "hash"]);
    assert!(stdout_of(&a).contains("\"a,b\""));
}

#[test]
fn grow_adds_the_owner_after_the_schemes_own_rule() {
    let a = shardlab()
        .args(["route", "--schemes", "hash", "--shards", "4", "--grow", "5"])
        .args(["--key-type", "u64", "42"])
        .assert()
        .success();
    let rows = rows(&stdout_of(&a));
    assert_eq!(rows[0], ["key", "scheme", "shard", "detail", "shard_after"]);
    // hash64 of 42 as 8 big-endian bytes = 0x2e4fe982b68910ac, pinned.
    let h = 0x2e4f_e982_b689_10ac_u64;
    assert_eq!(rows[1][2], (h % 4).to_string());
    assert_eq!(rows[1][4], (h % 5).to_string());
}

#[test]
fn keys_stream_from_a_file_or_stdin_and_range_learns_from_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("keys.txt");
    let keys: String = (0..100).map(|i| format!("{i}\n")).collect();
    std::fs::write(&file, &keys).unwrap();
    let from_file = shardlab()
        .args(["route", "--schemes", "range", "--shards", "4"])
        .args(["--key-type", "u64", "--grow", "5", "--keys"])
        .arg(&file)
        .assert()
        .success();
    let from_stdin = shardlab()
        .args(["route", "--schemes", "range", "--shards", "4"])
        .args(["--key-type", "u64", "--grow", "5", "-"])
        .write_stdin(keys)
        .assert()
        .success();
    assert_eq!(stdout_of(&from_file), stdout_of(&from_stdin));
    let rows = rows(&stdout_of(&from_file));
    assert_eq!(rows.len(), 101);
    // Learned from the routed keys: about 25 keys per shard, in key order.
    let owners: Vec<&str> = rows[1..].iter().map(|r| r[2].as_str()).collect();
    assert!(owners[..20].iter().all(|s| *s == "0") && owners[80..].iter().all(|s| *s == "3"));
    // Growth gives the new shard (4) some of the routed keys.
    assert!(rows[1..].iter().any(|r| r[4] == "4"));
}

#[test]
fn bad_input_gets_a_clear_error() {
    let bad_line = shardlab()
        .args([
            "route",
            "--schemes",
            "hash",
            "--shards",
            "4",
            "--key-type",
            "u64",
            "-",
        ])
        .write_stdin("1\nx\n")
        .assert()
        .code(1);
    let err = stderr_of(&bad_line);
    assert!(
        err.contains("<stdin>:line 2") && err.contains("'x' is not a decimal"),
        "{err}"
    );
    let bad_scheme = shardlab()
        .args(["route", "--schemes", "nope", "--shards", "4", "k"])
        .assert()
        .code(2);
    assert!(stderr_of(&bad_scheme).contains("valid schemes"));
    // No keys at all is a usage error.
    shardlab()
        .args(["route", "--schemes", "hash", "--shards", "4"])
        .assert()
        .code(2);
    let dynamic = shardlab()
        .args(["route", "--schemes", "range-dynamic", "--shards", "4", "k"])
        .assert()
        .code(2);
    assert!(stderr_of(&dynamic).contains("shardlab run"));
}
