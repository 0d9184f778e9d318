//! Inputs and refusals of issue 35 items 6, 7 and 8: `plan` reads boundaries files as `run`
//! does; refusals the command line alone decides exit 2 and say the scheme once; `inspect -o
//! -`, write errors, closed pipes and u64 key arguments behave as their siblings do; `route
//! --grow` leaves no spool file of its standard input after a signal.

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

/// Runs shardlab with `args`, expects exit `code`, and returns stderr.
fn exits(args: &[&str], code: i32) -> String {
    let a = shardlab().args(args).assert().code(code);
    let err = stderr_of(&a);
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn refusals_decided_by_the_command_line_alone_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let out = out.to_str().unwrap();
    let err = exits(
        &["route", "--schemes", "range-dynamic", "--shards", "4", "k"],
        2,
    );
    assert!(err.contains("shardlab run"), "{err}");
    for command in ["route", "run"] {
        let mut args = vec![command, "--schemes", "ring,ring", "--shards", "4"];
        let mut redis = vec![command, "--schemes", "redis-cluster", "--shards", "20000"];
        match command {
            "route" => {
                args.push("k");
                redis.push("k");
            }
            _ => {
                for a in [&mut args, &mut redis] {
                    a.extend(["--quiet", "--events", "100", "--out", out]);
                }
            }
        }
        let err = exits(&args, 2);
        assert!(err.contains("'ring': the scheme is given twice"), "{err}");
        let err = exits(&redis, 2);
        assert!(err.contains("at most 16384 masters"), "{err}");
        assert_eq!(err.matches("redis-cluster").count(), 1, "{err}");
    }
    assert!(!Path::new(out).exists());
}

#[test]
fn a_refusal_names_its_scheme_once() {
    let err = exits(
        &[
            "route",
            "--schemes",
            "kafka",
            "--shards",
            "4",
            "--grow",
            "3",
            "k1",
        ],
        0,
    );
    assert!(err.contains("warning: shard_after left empty"), "{err}");
    assert!(err.contains("Kafka cannot reduce"), "{err}");
    assert_eq!(err.matches("scheme 'kafka'").count(), 1, "{err}");
    let a = shardlab()
        .args([
            "route",
            "--schemes",
            "kafka,hash",
            "--shards",
            "4",
            "--grow",
            "3",
            "k1",
        ])
        .assert()
        .success();
    let err = stderr_of(&a);
    assert!(err.contains("warning: shard_after left empty"), "{err}");
    assert_eq!(err.matches("scheme 'kafka'").count(), 1, "{err}");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let args = [
        "run", "--quiet", "--events", "100", "--shards", "2", "--out",
    ];
    let a = shardlab()
        .args(args)
        .arg(&out)
        .args(["--schemes", "kafka", "--weights", "1,2"])
        .assert()
        .code(2);
    let err = stderr_of(&a);
    assert!(err.contains("cannot honour --weights"), "{err}");
    assert_eq!(err.matches("'kafka'").count(), 1, "{err}");
    let a = shardlab()
        .args(args)
        .arg(&out)
        .args(["--schemes", "kafka:brokers=2,rf=3"])
        .assert()
        .code(2);
    let err = stderr_of(&a);
    assert_eq!(err.matches("'kafka:brokers=2,rf=3'").count(), 1, "{err}");
}

#[test]
fn inspect_out_dash_creates_no_directory_named_dash() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, _) = u64_trace(dir.path());
    for command in [
        vec!["inspect", trace.as_str(), "--quiet", "-o", "-"],
        vec!["run", "--quiet", "--events", "100", "--out", "-"],
    ] {
        let a = shardlab()
            .current_dir(dir.path())
            .args(&command)
            .assert()
            .code(2);
        let err = stderr_of(&a);
        assert!(err.contains("a directory named '-'"), "{err}");
        assert!(!dir.path().join("-").exists(), "{command:?}");
    }
}

#[test]
fn write_errors_of_gen_and_convert_say_cannot_write_once() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (trace, _) = u64_trace(dir.path());
    for args in [
        vec![
            "gen",
            "zipf",
            "--events",
            "200000",
            "--quiet",
            "-o",
            "/dev/full",
        ],
        vec![
            "convert",
            trace.as_str(),
            "--format",
            "csv",
            "--quiet",
            "-o",
            "/dev/full",
        ],
    ] {
        let err = exits(&args, 1);
        assert!(err.contains("cannot write '/dev/full'"), "{err}");
        assert!(!err.contains("cannot read"), "{err}");
        assert_eq!(err.matches("No space left on device").count(), 1, "{err}");
    }
}

#[test]
fn route_into_a_closed_pipe_ends_quietly_with_exit_0() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let keys = dir.path().join("keys.txt");
    let text: String = (0..300_000).map(|i| format!("user{i}\n")).collect();
    std::fs::write(&keys, text).unwrap();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("shardlab"))
        .args([
            "route",
            "--schemes",
            "hash,ring",
            "--shards",
            "16",
            "--keys",
        ])
        .arg(&keys)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // `| head -1`: one line read, then the pipe closed.
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line, "key,scheme,shard,detail\n");
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn u64_key_arguments_with_spaces_are_trimmed_as_keys_from_a_file_are() {
    let route = |key: &str| {
        let a = shardlab()
            .args(["route", "--key-type", "u64", "--schemes", "hash,jump"])
            .args(["--shards", "7", key])
            .assert()
            .success();
        csv_rows(&common::stdout_of(&a))
    };
    let (plain, padded) = (route("42"), route(" 42 "));
    assert_eq!(padded[1][0], " 42 ");
    for (p, q) in plain[1..].iter().zip(&padded[1..]) {
        assert_eq!(p[1..], q[1..]);
    }
}

/// The names of the entries of `dir`.
fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect()
}

#[test]
fn route_grow_from_stdin_leaves_no_spool_file_after_a_signal() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let keys: String = (0..200_000).map(|i| format!("user{i}\n")).collect();
    for (signal, code) in [("-INT", 130), ("-TERM", 143)] {
        // While standard input is still being copied, and once it is copied while the rows
        // are written (stdout is never read, so the command waits on it).
        for copied in [false, true] {
            let tmp = tempfile::tempdir().unwrap();
            let mut child = Command::new(assert_cmd::cargo::cargo_bin("shardlab"))
                .args([
                    "route",
                    "--schemes",
                    "hash,ring",
                    "--shards",
                    "4",
                    "--grow",
                    "5",
                    "-",
                ])
                .env("TMPDIR", tmp.path())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all(keys.as_bytes()).unwrap();
            let stdin = (!copied).then_some(stdin);
            let started = Instant::now();
            let spooled = || {
                entries(tmp.path()).iter().any(|name| {
                    std::fs::metadata(tmp.path().join(name))
                        .is_ok_and(|m| m.len() == keys.len() as u64)
                })
            };
            while !spooled() {
                assert!(started.elapsed() < Duration::from_secs(30), "never spooled");
                std::thread::sleep(Duration::from_millis(20));
            }
            // Once copied, give the command time to reach the rows.
            if copied {
                std::thread::sleep(Duration::from_millis(300));
            }
            Command::new("kill")
                .args([signal, &child.id().to_string()])
                .status()
                .unwrap();
            let status = child.wait().unwrap();
            drop(stdin);
            let what = format!("{signal}, stdin copied: {copied}");
            assert_eq!(status.code(), Some(code), "{what}");
            assert!(
                entries(tmp.path()).is_empty(),
                "{what}: left {:?}",
                entries(tmp.path())
            );
        }
    }
}
