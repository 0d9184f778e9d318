//! Regression tests of issue 17: every input the issue found to panic, abort, exhaust memory,
//! hang or explain itself badly, with the outcome it must have now (a result, or exit 1 or 2
//! with a clear message); interrupted runs; inputs read once (FIFO, process substitution,
//! standard input, plain and compressed). The inputs are in `tests/fixtures/hardening/`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use common::{fixture, shardlab, stderr_of};

/// A file of the issue's corpus.
fn corpus(name: &str) -> PathBuf {
    fixture("hardening").join(name)
}

/// Asserts a failure with `code` whose message contains every one of `needles`, said once
/// (no cause repeated), and no panic.
fn fails_with(args: &[&str], code: i32, needles: &[&str]) -> String {
    let assert = shardlab().args(args).assert().code(code);
    let err = stderr_of(&assert);
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    for needle in needles {
        assert!(err.contains(needle), "{args:?}: no '{needle}' in: {err}");
    }
    err
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

// ---- panics and aborts ----

#[test]
fn plan_on_timestamps_zero_and_max_says_the_span_is_too_long() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p");
    let trace = corpus("times_0_and_max.csv");
    fails_with(
        &[
            "plan",
            "--quiet",
            "--trace",
            trace.to_str().unwrap(),
            "--capacity",
            "1000",
            "--out",
            out.to_str().unwrap(),
        ],
        1,
        &[
            "spans 18446744073709551616 rate windows",
            "choose a longer --rate-window",
        ],
    );
    assert!(!out.exists());
}

#[test]
fn plan_on_four_billion_empty_seconds_plans_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p");
    let started = Instant::now();
    shardlab()
        .args([
            "plan",
            "--quiet",
            "--capacity",
            "1000",
            "--schemes",
            "hash,range",
        ])
        .arg("--trace")
        .arg(corpus("times_0_and_ff000000.oracleGeneral.bin"))
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    assert!(started.elapsed() < Duration::from_secs(20));
    let plan = std::fs::read_to_string(out.join("plan.csv")).unwrap();
    assert!(plan.lines().count() == 3, "{plan}");
}

#[test]
fn plan_on_mutated_binary_traces_gives_a_plan_or_an_error() {
    for name in [
        "times_spread.oracleGeneral.bin",
        "truncated_record.oracleGeneral.bin",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let assert = shardlab()
            .args(["plan", "--quiet", "--capacity", "1000", "--out"])
            .arg(dir.path().join("p"))
            .arg("--trace")
            .arg(corpus(name))
            .assert();
        let code = assert.get_output().status.code();
        assert!(matches!(code, Some(0 | 1)), "{name}: {code:?}");
        assert!(!stderr_of(&assert).contains("panicked"), "{name}");
    }
    fails_with(
        &[
            "plan",
            "--quiet",
            "--capacity",
            "1000",
            "--trace",
            corpus("truncated_record.oracleGeneral.bin")
                .to_str()
                .unwrap(),
        ],
        1,
        &["not a whole number of"],
    );
}

#[test]
fn a_huge_window_is_refused_and_a_long_one_costs_nothing_more() {
    fails_with(
        &["run", "--window", "18446744073709551615"],
        2,
        &["too large: at most 4294967295 events per window"],
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    let started = Instant::now();
    shardlab()
        .args([
            "run",
            "--quiet",
            "--no-latency",
            "--workload",
            "uniform",
            "--events",
        ])
        .args(["20000", "--window", "4294967295", "--out"])
        .arg(&out)
        .assert()
        .success();
    assert!(started.elapsed() < Duration::from_secs(30));
    // One window holds every measured event: the windowed share is the whole-trace share.
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let value = |scheme: &str, metric: &str| -> String {
        let line = summary
            .lines()
            .find(|l| l.contains(&format!(",{scheme},")) && l.contains(&format!(",{metric},")))
            .unwrap_or_else(|| panic!("{scheme} {metric}"));
        line.split(',').nth(4).unwrap().to_string()
    };
    assert_eq!(
        value("hash", "hottest_shard_share_windowed"),
        value("hash", "hottest_shard_share")
    );
}

// ---- unbounded resources ----

#[test]
fn shard_counts_threads_and_grow_factors_are_bounded_up_front() {
    fails_with(
        &["run", "--shards", "1000000"],
        2,
        &["1000000 shards is too many", "at most 65536"],
    );
    fails_with(
        &["run", "--shards", "99999999999"],
        2,
        &["too many", "at most 65536"],
    );
    fails_with(
        &["run", "--grow", "x1000000"],
        2,
        &["'x1000000' is too large", "65536"],
    );
    fails_with(
        &[
            "run", "--shards", "16", "--grow", "x8192", "--events", "1000",
        ],
        2,
        &["--grow x8192 from 16 shards gives more than 65536 shards"],
    );
    fails_with(
        &["run", "--threads", "100000"],
        2,
        &["too large: at most 256 worker threads"],
    );
    fails_with(
        &["plan", "--capacity", "10", "--threads", "100000"],
        2,
        &["at most 256"],
    );
}

// ---- messages ----

#[test]
fn a_quote_is_not_a_delimiter_and_the_message_says_why() {
    fails_with(
        &[
            "inspect",
            corpus("quoted_keys.csv").to_str().unwrap(),
            "--delimiter",
            "\"",
        ],
        2,
        &["quote character"],
    );
}

#[test]
fn a_missing_trace_is_reported_once() {
    for command in ["run", "inspect", "plan"] {
        let mut args = vec![command];
        match command {
            "inspect" => args.push("no-such-trace.csv"),
            _ => args.extend(["--trace", "no-such-trace.csv"]),
        }
        if command == "plan" {
            args.extend(["--capacity", "10"]);
        }
        let err = fails_with(
            &args,
            1,
            &["cannot open trace 'no-such-trace.csv': No such file or directory"],
        );
        assert_eq!(err.matches("No such file").count(), 1, "{err}");
        assert!(!err.contains("os error"), "{err}");
    }
}

#[test]
fn a_truncated_compressed_trace_says_so_once() {
    let trace = fixture("traces/msr_truncated.csv.zst");
    for command in ["inspect", "run"] {
        let mut args = vec![command];
        match command {
            "inspect" => args.push(trace.to_str().unwrap()),
            _ => args.extend(["--trace", trace.to_str().unwrap(), "--quiet"]),
        }
        let err = fails_with(&args, 1, &["the file is truncated"]);
        assert_eq!(err.matches("the file is truncated").count(), 1, "{err}");
        assert_eq!(err.matches("msr_truncated.csv.zst").count(), 1, "{err}");
    }
}

#[test]
fn a_scheme_given_twice_and_an_empty_boundaries_file_are_refused() {
    let err = shardlab()
        .args(["run", "--schemes", "hash,hash"])
        .assert()
        .code(2);
    assert!(
        stderr_of(&err).contains("'hash': the scheme is given twice"),
        "{}",
        stderr_of(&err)
    );
    let spec = format!(
        "range:boundaries={}",
        corpus("empty_boundaries.txt").display()
    );
    let err = shardlab()
        .args(["run", "--events", "1000", "--schemes", &spec])
        .assert()
        .failure();
    assert!(
        stderr_of(&err).contains("the boundaries file is empty"),
        "{}",
        stderr_of(&err)
    );
}

#[test]
fn a_capacity_too_small_to_count_shards_for_is_an_error_not_a_saturated_count() {
    let dir = tempfile::tempdir().unwrap();
    fails_with(
        &[
            "plan",
            "--quiet",
            "--workload",
            "uniform",
            "--events",
            "2000",
            "--rate",
            "1000",
            "--capacity",
            "1e-300",
            "--out",
            dir.path().join("p").to_str().unwrap(),
        ],
        1,
        &["more than the 4,294,967,295 a plan can count", "--capacity"],
    );
}

// ---- inputs read once ----

/// The summary of a run, without its workload label and timing rows.
fn summary(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("summary.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split_once(',').unwrap().1.to_string())
        .filter(|l| !engine::metrics::is_timing(l.split(',').nth(2).unwrap_or_default()))
        .collect()
}

/// `run --trace <trace>` on the Twitter sample, with `TMPDIR` an empty directory that must
/// stay empty (nothing is copied aside).
fn run_trace(trace: &str, stdin: Option<Vec<u8>>, out: &Path) {
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = shardlab();
    cmd.args(["run", "--quiet", "--no-latency", "--trace", trace, "--out"])
        .arg(out)
        .env("TMPDIR", tmp.path())
        .timeout(Duration::from_secs(60));
    if let Some(bytes) = stdin {
        cmd.write_stdin(bytes);
    }
    cmd.assert().success();
    assert!(names(tmp.path()).is_empty(), "{:?}", names(tmp.path()));
}

/// A FIFO `dir/trace.fifo` and the process that writes `file` into it.
fn fifo_of(dir: &Path, file: &Path) -> (std::path::PathBuf, std::process::Child) {
    let fifo = dir.join("trace.fifo");
    assert!(Process::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let writer = Process::new("sh")
        .arg("-c")
        .arg(format!("cat '{}' > '{}'", file.display(), fifo.display()))
        .spawn()
        .unwrap();
    (fifo, writer)
}

#[test]
fn run_reads_a_fifo_a_process_substitution_and_standard_input_in_one_pass() {
    let dir = tempfile::tempdir().unwrap();
    let sample = fixture("traces/twitter_sample.csv");
    let from_file = dir.path().join("file");
    run_trace(sample.to_str().unwrap(), None, &from_file);
    let want = summary(&from_file);

    // Standard input, plain and compressed.
    for name in [
        "twitter_sample.csv",
        "twitter_sample.csv.zst",
        "twitter_sample.csv.gz",
    ] {
        let out = dir.path().join(format!("stdin-{name}"));
        let bytes = std::fs::read(fixture("traces").join(name)).unwrap();
        run_trace("-", Some(bytes), &out);
        assert_eq!(summary(&out), want, "{name}");
    }

    // A FIFO, written by another process.
    let (fifo, mut writer) = fifo_of(dir.path(), &sample);
    let out = dir.path().join("fifo");
    run_trace(fifo.to_str().unwrap(), None, &out);
    assert!(writer.wait().unwrap().success());
    assert_eq!(summary(&out), want);

    // A process substitution.
    let out = dir.path().join("subst");
    let status = Process::new("bash")
        .arg("-c")
        .arg(format!(
            "'{}' run --quiet --no-latency --trace <(zstdcat '{}') --out '{}'",
            assert_cmd::cargo::cargo_bin("shardlab").display(),
            fixture("traces/twitter_sample.csv.zst").display(),
            out.display()
        ))
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(summary(&out), want);
    let manifest = common::manifest(&out);
    let input = &manifest["inputs"][0];
    assert_eq!(
        input["bytes"].as_u64(),
        Some(std::fs::metadata(&sample).unwrap().len())
    );
}

/// `range-dynamic` beside fixed schemes reads a FIFO once, in one run, and each scheme's
/// figures are those of a run of that scheme alone from the file.
#[test]
fn range_dynamic_beside_hash_and_ring_reads_a_fifo_once_with_the_figures_of_separate_runs() {
    let dir = tempfile::tempdir().unwrap();
    let sample = dir.path().join("trace.csv");
    shardlab()
        .args([
            "gen",
            "zipf:keys=5000,s=1.1",
            "--quiet",
            "--events",
            "30000",
            "-o",
        ])
        .arg(&sample)
        .assert()
        .success();
    let schemes = ["range-dynamic:max_load=300", "hash", "ring"];
    let run = |trace: &Path, schemes: &str, out: &Path| {
        shardlab()
            .args([
                "run",
                "--quiet",
                "--no-latency",
                "--window",
                "500",
                "--schemes",
            ])
            .arg(schemes)
            .arg("--trace")
            .arg(trace)
            .arg("--out")
            .arg(out)
            .timeout(Duration::from_secs(60))
            .assert()
            .success();
    };
    let (fifo, mut writer) = fifo_of(dir.path(), &sample);
    let together = dir.path().join("together");
    run(&fifo, &schemes.join(","), &together);
    assert!(writer.wait().unwrap().success());
    let all = summary(&together);
    let timeline = std::fs::read_to_string(together.join("timeline.csv")).unwrap();
    for (i, scheme) in schemes.iter().enumerate() {
        let alone = dir.path().join(format!("alone-{i}"));
        run(&sample, scheme, &alone);
        let own: Vec<String> = all
            .iter()
            .filter(|row| row.starts_with(&format!("{scheme},")))
            .cloned()
            .collect();
        assert!(!own.is_empty(), "{scheme}");
        assert_eq!(own, summary(&alone), "{scheme}");
        if i == 0 {
            let alone_timeline = std::fs::read_to_string(alone.join("timeline.csv")).unwrap();
            let label = |path: &Path| path.display().to_string();
            assert_eq!(
                timeline.replace(&label(&fifo), "trace"),
                alone_timeline.replace(&label(&sample), "trace")
            );
            let splits: u64 = all
                .iter()
                .filter(|r| {
                    r.starts_with(&format!("{scheme},")) && r.contains(",dynamic_load_splits,")
                })
                .map(|r| r.split(',').nth(3).unwrap().parse::<f64>().unwrap() as u64)
                .sum();
            assert!(
                splits > 0,
                "the layout changed while the FIFO was read: {all:?}"
            );
        }
    }
}

#[test]
fn a_second_pass_over_an_input_read_once_is_refused_before_reading() {
    let bytes = std::fs::read(fixture("traces/twitter_sample.csv")).unwrap();
    let assert = shardlab()
        .args(["run", "--quiet", "--trace", "-", "--shards", "4,8"])
        .write_stdin(bytes)
        .assert()
        .code(2);
    let err = stderr_of(&assert);
    assert!(
        err.contains("is read once") && err.contains("save it to a regular file"),
        "{err}"
    );
}

// ---- interrupted runs ----

/// The files every complete run directory has.
const COMPLETE: [&str; 6] = [
    "manifest.json",
    "report.html",
    "report.md",
    "shards.csv",
    "summary.csv",
    "windows.csv",
];

/// A sweep writing `out` (with `--force`: over an older run).
fn sweep(out: &Path, force: bool) -> Process {
    let mut cmd = Process::new(assert_cmd::cargo::cargo_bin("shardlab"));
    cmd.args([
        "run", "--quiet", "--events", "100000", "--shards", "4,8", "--out",
    ])
    .arg(out)
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    if force {
        cmd.arg("--force");
    }
    cmd
}

/// Either no directory or a complete one under the final name; with `clean`, nothing else
/// beside it.
fn check_outcome(dir: &Path, out: &Path, clean: bool, what: &str) {
    if out.exists() {
        let files = names(out);
        for file in COMPLETE {
            assert!(
                files.iter().any(|f| f == file),
                "{what}: {file} missing in {files:?}"
            );
        }
        assert!(
            !files.iter().any(|f| f.starts_with('.')),
            "{what}: {files:?}"
        );
    }
    if clean {
        let others: Vec<String> = names(dir)
            .into_iter()
            .filter(|n| Some(n.as_str()) != out.file_name().and_then(|n| n.to_str()))
            .collect();
        assert!(others.is_empty(), "{what}: left {others:?}");
    }
}

#[test]
fn an_interrupted_sweep_leaves_no_directory_or_a_complete_one() {
    // How long a whole sweep takes here, to aim signals at every phase, the last writes too.
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    assert!(sweep(&dir.path().join("run"), false)
        .status()
        .unwrap()
        .success());
    let whole = started.elapsed();
    let signals = ["-INT", "-TERM", "-KILL"];
    let fractions = [0.02, 0.3, 0.6, 0.85, 0.93, 0.97, 0.99, 1.0, 1.02];
    for (i, fraction) in fractions.into_iter().enumerate() {
        let signal = signals[i % 3];
        let force = i % 2 == 1;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run");
        if force {
            // An older complete run, replaced only by the final rename.
            shardlab()
                .args([
                    "run",
                    "--quiet",
                    "--events",
                    "2000",
                    "--no-latency",
                    "--out",
                ])
                .arg(&out)
                .assert()
                .success();
        }
        let mut child = sweep(&out, force).spawn().unwrap();
        std::thread::sleep(whole.mul_f64(fraction));
        let _ = Process::new("kill")
            .args([signal, &child.id().to_string()])
            .status();
        let code = child.wait().unwrap().code();
        let what = format!("{signal} at {fraction} of {whole:?} (force: {force}): exit {code:?}");
        match (signal, code) {
            (_, Some(0)) => assert!(out.exists(), "{what}"),
            ("-INT", c) => assert_eq!(c, Some(130), "{what}"),
            ("-TERM", c) => assert_eq!(c, Some(143), "{what}"),
            _ => {}
        }
        check_outcome(dir.path(), &out, signal != "-KILL", &what);
        if force && signal != "-KILL" {
            assert!(
                out.exists(),
                "{what}: the older run is kept until the rename"
            );
        }
    }
}
