//! A trace given as several files (`--trace` repeated, or a glob pattern) is one trace: cut
//! into files of other formats and compressions, it gives exactly the numbers of the whole.

mod common;

use std::path::{Path, PathBuf};

use common::{manifest, shardlab, stderr_of};

/// Writes a `workload` trace of `events` events to `dir/whole.csv` with `shardlab gen`.
fn gen(dir: &Path, workload: &str, events: u64) -> PathBuf {
    let whole = dir.join("whole.csv");
    shardlab()
        .args([
            "gen",
            workload,
            "--quiet",
            "--events",
            &events.to_string(),
            "-o",
        ])
        .arg(&whole)
        .assert()
        .success();
    whole
}

/// Cuts the csv `whole` after the given numbers of events into `names.len()` files, each with
/// the header; a name that is not a plain `.csv` is written through `shardlab convert` (which
/// picks the format and compression from the name).
fn cut(whole: &Path, sizes: &[usize], names: &[&str]) -> Vec<PathBuf> {
    let text = std::fs::read_to_string(whole).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let rows: Vec<&str> = lines.collect();
    let dir = whole.parent().unwrap();
    let mut start = 0;
    let mut files = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let end = sizes.get(i).map_or(rows.len(), |n| start + n);
        let plain = dir.join(format!("piece{i}.csv"));
        let mut body = format!("{header}\n");
        for row in &rows[start..end] {
            body += row;
            body.push('\n');
        }
        std::fs::write(&plain, body).unwrap();
        let file = dir.join(name);
        if file != plain {
            shardlab()
                .args(["convert", "--quiet"])
                .arg(&plain)
                .arg("-o")
                .arg(&file)
                .assert()
                .success();
            std::fs::remove_file(&plain).unwrap();
        }
        files.push(file);
        start = end;
    }
    assert_eq!(start, rows.len());
    files
}

/// Runs `shardlab run` with `args` then `--trace` for each of `traces`, into `out`.
fn run(args: &[&str], traces: &[&str], cwd: &Path, out: &str) -> PathBuf {
    run_schemes(
        "range,hash,ring,salted,range-dynamic",
        args,
        traces,
        cwd,
        out,
    )
}

/// [`run`] of `schemes`.
fn run_schemes(schemes: &str, args: &[&str], traces: &[&str], cwd: &Path, out: &str) -> PathBuf {
    let mut cmd = shardlab();
    cmd.current_dir(cwd)
        .args(["run", "--quiet", "--no-latency", "--window", "1000"])
        .args(["--schemes", schemes])
        .args(args);
    for t in traces {
        cmd.args(["--trace", t]);
    }
    cmd.args(["--out", out]).assert().success();
    cwd.join(out)
}

/// The rows of a CSV file without its timing rows and without the workload label (the first
/// column, which names the input).
fn rows_without_label(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let metric = r.headers().unwrap().iter().position(|c| c == "metric");
    r.records()
        .map(|rec| rec.unwrap())
        .filter(|rec| !metric.is_some_and(|i| engine::metrics::is_timing(&rec[i])))
        .map(|rec| rec.iter().skip(1).map(str::to_string).collect())
        .collect()
}

/// summary.csv and shards.csv of two run directories are equal, timing rows and labels aside.
fn assert_same_results(a: &Path, b: &Path) {
    for file in ["summary.csv", "shards.csv"] {
        let (x, y) = (
            rows_without_label(&a.join(file)),
            rows_without_label(&b.join(file)),
        );
        assert!(x.len() > 20, "{file}: {} rows", x.len());
        assert_eq!(x, y, "{file}");
    }
}

#[test]
fn a_trace_cut_into_files_of_each_compression_gives_the_whole_files_results() {
    let dir = tempfile::tempdir().unwrap();
    let whole = gen(
        dir.path(),
        "zipf:keys=4000,s=1.1,scans=0.05,writes=0.2,rate=50000",
        30_000,
    );
    // Cuts inside windows (1,000 events), so windows span files.
    let files = cut(
        &whole,
        &[7_321, 12_345],
        &["piece0.csv", "piece1.csv.zst", "piece2.csv.gz"],
    );
    let single = run(&[], &["whole.csv"], dir.path(), "single");
    let many = run(
        &[],
        &["piece0.csv", "piece1.csv.zst", "piece2.csv.gz"],
        dir.path(),
        "many",
    );
    assert_same_results(&single, &many);
    // The manifest records every file with its checksum and format, in order.
    let m = manifest(&many);
    let inputs = m["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 3, "{inputs:?}");
    for (input, file) in inputs.iter().zip(&files) {
        let name = file.file_name().unwrap().to_str().unwrap();
        assert_eq!(input["path"], name);
        assert_eq!(input["bytes"], std::fs::metadata(file).unwrap().len());
        assert_eq!(input["format"], "csv");
        assert_eq!(input["xxh3_128"].as_str().unwrap().len(), 32);
    }
    // A quoted glob pattern reads the same files in the order of their sorted names.
    let globbed = run(&[], &["piece?.csv*"], dir.path(), "globbed");
    assert_same_results(&single, &globbed);
    let summary = std::fs::read_to_string(globbed.join("summary.csv")).unwrap();
    assert!(summary.contains("piece?.csv*"), "the label is the pattern");
}

#[test]
fn files_of_different_formats_read_as_one_trace() {
    let dir = tempfile::tempdir().unwrap();
    // Gets only, so that oracle-general holds every event as it is.
    let whole = gen(dir.path(), "zipf:keys=3000,s=0.9", 20_000);
    cut(
        &whole,
        &[4_999, 8_000],
        &["a.csv.gz", "b.oracleGeneral.bin.zst", "c.csv"],
    );
    // oracle-general holds whole seconds where csv holds microseconds, so range-dynamic
    // counts its windows in events here: times of two units in one trace are not comparable.
    let schemes = "range,hash,ring,salted,range-dynamic:window_time=events";
    let single = run_schemes(schemes, &[], &["whole.csv"], dir.path(), "single");
    let many = run_schemes(
        schemes,
        &[],
        &["a.csv.gz", "b.oracleGeneral.bin.zst", "c.csv"],
        dir.path(),
        "many",
    );
    assert_same_results(&single, &many);
    let formats: Vec<String> = manifest(&many)["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["format"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(formats, ["csv", "oracle-general", "csv"]);
    // `plan` reads them as one trace too.
    let plan = |traces: &[&str], out: &str| {
        let mut cmd = shardlab();
        cmd.current_dir(dir.path()).args([
            "plan",
            "--quiet",
            "--rate",
            "1000",
            "--capacity",
            "3000",
        ]);
        for t in traces {
            cmd.args(["--trace", t]);
        }
        cmd.args(["--out", out]).assert().success();
        rows_without_label(&dir.path().join(out).join("plan.csv"))
    };
    assert_eq!(
        plan(&["whole.csv"], "plan-single"),
        plan(
            &["a.csv.gz", "b.oracleGeneral.bin.zst", "c.csv"],
            "plan-many"
        )
    );
}

#[test]
fn a_bad_record_names_its_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    // `run --trace 't*.csv'` in `dir`, which fails with status 1: its error.
    let refused = || {
        let out = shardlab()
            .current_dir(dir.path())
            .args(["run", "--quiet", "--no-latency", "--trace", "t*.csv"])
            .args(["--out", "o"])
            .assert()
            .code(1);
        assert!(!dir.path().join("o").exists(), "nothing is written");
        stderr_of(&out)
    };
    std::fs::write(dir.path().join("t1.csv"), "key:u64\n1\n2\n").unwrap();
    std::fs::write(dir.path().join("t2.csv"), "key:u64\n3\nfour\n").unwrap();
    let e = refused();
    assert!(e.contains("t2.csv:line 3"), "{e}");
    // Keys of another type in a later file are refused by name.
    std::fs::write(dir.path().join("t2.csv"), "key\nx\n").unwrap();
    let e = refused();
    assert!(e.contains("t2.csv") && e.contains("one key type"), "{e}");
}

#[test]
fn a_pattern_that_matches_nothing_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = shardlab()
        .current_dir(dir.path())
        .args(["run", "--quiet", "--trace", "cluster52.*.zst", "--out", "o"])
        .assert()
        .code(2);
    let e = stderr_of(&out);
    assert!(
        e.contains("cluster52.*.zst") && e.contains("matches no file"),
        "{e}"
    );
}

#[test]
fn parts_read_only_their_share_and_together_hold_every_event_once() {
    let dir = tempfile::tempdir().unwrap();
    let whole = gen(dir.path(), "zipf:keys=4000,s=1.1,scans=0.05", 20_000);
    let names = ["t.0.csv", "t.1.csv.zst", "t.2.csv", "t.3.csv.gz", "t.4.csv"];
    cut(&whole, &[1_000, 7_000, 2_500, 4_000], &names);
    for k in [1, 2, 4, 7] {
        let mut files = Vec::new();
        for i in 0..k {
            let out = format!("k{k}-part{i}");
            shardlab()
                .current_dir(dir.path())
                .args(["run", "--quiet", "--trace", "t.*", "--part"])
                .arg(format!("{i}/{k}"))
                .args(["--out", &out])
                .assert()
                .success();
            let text = std::fs::read_to_string(dir.path().join(&out).join("partial.json")).unwrap();
            let header: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(header["part"]["index"], i, "{text}");
            assert_eq!(header["trace_files"], 5, "{text}");
            files.extend(header["files"].as_array().unwrap().clone());
        }
        let positions: Vec<u64> = files
            .iter()
            .map(|f| f["position"].as_u64().unwrap())
            .collect();
        assert_eq!(
            positions,
            [0, 1, 2, 3, 4],
            "k={k}: every file once, in order"
        );
        let events: Vec<u64> = files
            .iter()
            .map(|f| f["events"].as_u64().unwrap())
            .collect();
        assert_eq!(events, [1_000, 7_000, 2_500, 4_000, 5_500], "k={k}");
        for (f, name) in files.iter().zip(names) {
            assert_eq!(f["path"], name);
        }
    }
    // Counted parts are step 1 of 3: `merge` wants replayed ones (see tests/parts.rs).
    let out = shardlab()
        .current_dir(dir.path())
        .args(["merge", "k2-part0", "k2-part1", "--out", "merged"])
        .assert()
        .code(1);
    let e = stderr_of(&out);
    assert!(e.contains("where step replayed"), "{e}");
    assert!(!dir.path().join("merged").exists());
}

#[test]
fn one_trace_file_is_checksummed_from_the_bytes_its_replay_reads() {
    // One regular file: its bytes are hashed as the replay reads them (no second read).
    let dir = tempfile::tempdir().unwrap();
    let whole = gen(dir.path(), "zipf:keys=3000,s=0.9", 20_000);
    cut(&whole, &[], &["t.oracleGeneral.bin.zst"]);
    // Every scheme `run` replays here, `range-dynamic` included, reads the one pass.
    for (name, out) in [("whole.csv", "csv"), ("t.oracleGeneral.bin.zst", "bin")] {
        let out = run(&[], &[name], dir.path(), out);
        let bytes = std::fs::read(dir.path().join(name)).unwrap();
        let m = manifest(&out);
        let input = &m["inputs"][0];
        assert_eq!(input["bytes"], bytes.len() as u64, "{name}");
        let hash = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&bytes));
        assert_eq!(input["xxh3_128"], hash.as_str(), "{name}");
    }
}
