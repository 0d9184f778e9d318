//! A run cut into parts (`run --part I/K`, `run --part I/K --counts`, `merge`) writes exactly
//! the run directory of a single run, timing aside: for 1, 2, 4 and 7 parts, with scans,
//! writes, timestamps, more distinct keys than `--distinct-limit`, windows and the warm-up
//! spanning files and parts, and parts with no file.

mod common;

use std::path::{Path, PathBuf};

use common::{manifest, shardlab, stderr_of};

/// Writes the csv `whole` (header first) cut after the given numbers of events into files
/// `t0.csv`, `t1.csv`, ... in `dir` (the last one takes the rest), each with the header; a
/// file whose name is given in `converted` is rewritten through `shardlab convert` to that
/// name (format and compression from the name). Returns the file names, in order.
fn cut(whole: &Path, dir: &Path, sizes: &[usize], converted: &[(usize, &str)]) -> Vec<String> {
    let text = std::fs::read_to_string(whole).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let rows: Vec<&str> = lines.collect();
    let mut start = 0;
    let mut names = Vec::new();
    for i in 0..=sizes.len() {
        let end = sizes.get(i).map_or(rows.len(), |n| start + n);
        let plain = dir.join(format!("t{i}.csv"));
        let body: String = std::iter::once(header)
            .chain(rows[start..end].iter().copied())
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(&plain, body).unwrap();
        let name = match converted.iter().find(|(j, _)| *j == i) {
            Some((_, name)) => {
                shardlab()
                    .args(["convert", "--quiet"])
                    .arg(&plain)
                    .arg("-o")
                    .arg(dir.join(name))
                    .assert()
                    .success();
                std::fs::remove_file(&plain).unwrap();
                name.to_string()
            }
            None => format!("t{i}.csv"),
        };
        names.push(name);
        start = end;
    }
    names
}

/// The run of `options` over the trace `pattern` in `dir`: whole into `single`, and cut into
/// `k` parts (counted, replayed, merged) into `merged-k`; returns both directories.
fn single_and_merged(dir: &Path, options: &[&str], pattern: &str, k: u32) -> (PathBuf, PathBuf) {
    let run = |extra: &[&str]| {
        let mut cmd = shardlab();
        cmd.current_dir(dir)
            .args(["run", "--quiet", "--trace", pattern])
            .args(options)
            .args(extra);
        cmd
    };
    let single = dir.join("single");
    if !single.exists() {
        run(&["--out", "single"]).assert().success();
    }
    let work = format!("work-{k}");
    for i in 0..k {
        let (part, out) = (format!("{i}/{k}"), format!("{work}/count-{i}"));
        run(&["--part", &part, "--out", &out]).assert().success();
    }
    let counts = format!("{work}/count-*");
    for i in 0..k {
        let (part, out) = (format!("{i}/{k}"), format!("{work}/part-{i}"));
        run(&["--part", &part, "--counts", &counts, "--out", &out])
            .assert()
            .success();
    }
    let merged = format!("merged-{k}");
    shardlab()
        .current_dir(dir)
        .args([
            "merge",
            "--quiet",
            &format!("{work}/part-*"),
            "--out",
            &merged,
        ])
        .assert()
        .success();
    (single, dir.join(merged))
}

/// The rows of a CSV file without its timing rows (by the `metric` column, when it has one).
fn rows_without_timing(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    let metric = header.iter().position(|c| c == "metric");
    let mut rows = vec![header];
    rows.extend(
        r.records()
            .map(|rec| rec.unwrap())
            .filter(|rec| !metric.is_some_and(|i| engine::metrics::is_timing(&rec[i])))
            .map(|rec| rec.iter().map(str::to_string).collect()),
    );
    rows
}

/// Every CSV file of two run directories is the same (timing rows aside), they have the same
/// files, and the manifests name the same inputs.
fn assert_same_run(single: &Path, merged: &Path) {
    let names = |dir: &Path| {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .collect();
        names.sort();
        names
    };
    assert_eq!(names(single), names(merged));
    let mut compared = 0;
    for name in names(single).iter().filter(|n| n.ends_with(".csv")) {
        let (a, b) = (
            rows_without_timing(&single.join(name)),
            rows_without_timing(&merged.join(name)),
        );
        assert_eq!(a, b, "{name} of {}", merged.display());
        compared += 1;
    }
    assert!(compared >= 4, "{compared} CSV files");
    let summary = rows_without_timing(&single.join("summary.csv"));
    assert!(summary.len() > 40, "{} summary rows", summary.len());
    let (m1, m2) = (manifest(single), manifest(merged));
    assert_eq!(m1["inputs"], m2["inputs"]);
    for key in [
        "workloads",
        "workload_descriptions",
        "schemes",
        "shards_and_targets",
    ] {
        assert_eq!(m1["parameters"][key], m2["parameters"][key], "{key}");
    }
    assert!(m2["parameters"]["merged_parts"]
        .as_array()
        .is_some_and(|p| !p.is_empty()));
}

#[test]
fn a_generated_trace_in_files_cut_into_1_2_4_and_7_parts_merges_into_the_single_run() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.csv");
    shardlab()
        .args([
            "gen",
            "zipf:keys=6000,s=1.1,scans=0.05,writes=0.2,rate=50000",
            "--quiet",
            "--events",
            "30000",
            "-o",
        ])
        .arg(&whole)
        .assert()
        .success();
    // Seven files of mixed formats; the first is shorter than the warm-up (3,000 events), so
    // the warm-up spans files and, with 4 and 7 parts, parts; cuts fall inside windows.
    cut(
        &whole,
        dir.path(),
        &[1_234, 2_500, 6_001, 3_333, 7_000, 4_321],
        &[(1, "t1.csv.zst"), (4, "t4.csv.gz")],
    );
    std::fs::remove_file(&whole).unwrap();
    let options = [
        "--no-latency",
        "--window",
        "1000",
        "--distinct-limit",
        "1500",
        "--schemes",
        "range,hash,ring,salted,jump,maglev",
        "--shards",
        "4,16",
        "--grow",
        "+1,x2",
        "--fail",
        "worst",
    ];
    for k in [1, 2, 4, 7] {
        let (single, merged) = single_and_merged(dir.path(), &options, "t*.csv*", k);
        assert_same_run(&single, &merged);
    }
    // More distinct keys than the limit: the key metrics are estimates from a sample
    // (`estimate` 1, `sample_rate` below 1), and still equal.
    let summary = rows_without_timing(&dir.path().join("single/summary.csv"));
    let distinct = summary.iter().find(|r| r[3] == "distinct_keys").unwrap();
    assert_eq!(distinct[7], "1", "{distinct:?}");
    assert!(distinct[8].parse::<f64>().unwrap() < 1.0, "{distinct:?}");
}

/// Plain binary files are counted from their sizes (not read in step 1); the merged run is
/// still the single run.
#[test]
fn a_binary_trace_in_three_files_merges_into_the_single_run() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.oracleGeneral.bin");
    shardlab()
        .args([
            "gen",
            "zipf:keys=3000,s=1.1",
            "--quiet",
            "--events",
            "25000",
        ])
        .args(["--format", "oracle-general", "-o"])
        .arg(&whole)
        .assert()
        .success();
    let bytes = std::fs::read(&whole).unwrap();
    let record = 24;
    assert_eq!(bytes.len(), 25_000 * record);
    for (i, (start, end)) in [(0, 2_000), (2_000, 11_111), (11_111, 25_000)]
        .into_iter()
        .enumerate()
    {
        std::fs::write(
            dir.path().join(format!("day.{i}.oracleGeneral.bin")),
            &bytes[start * record..end * record],
        )
        .unwrap();
    }
    std::fs::remove_file(&whole).unwrap();
    let options = ["--no-latency", "--window", "700", "--grow", "+1,x2"];
    for k in [2, 3] {
        let (single, merged) =
            single_and_merged(dir.path(), &options, "day.*.oracleGeneral.bin", k);
        assert_same_run(&single, &merged);
    }
    // Each file's count is its size in records.
    let mut counted = Vec::new();
    for i in 0..3 {
        let header: serde_json::Value = serde_json::from_slice(
            &std::fs::read(dir.path().join(format!("work-3/count-{i}/partial.json"))).unwrap(),
        )
        .unwrap();
        for f in header["files"].as_array().unwrap() {
            counted.push((f["path"].as_str().unwrap().to_string(), f["events"].clone()));
        }
    }
    counted.sort_by(|a, b| a.0.cmp(&b.0));
    let events: Vec<serde_json::Value> = counted.into_iter().map(|(_, e)| e).collect();
    assert_eq!(events, [2_000, 9_111, 13_889]);
}

#[test]
fn a_recorded_trace_with_timestamps_merges_with_lookup_timing_and_empty_parts() {
    let dir = tempfile::tempdir().unwrap();
    let whole = common::fixture("traces/cloudPhysicsIO_2000.csv");
    cut(&whole, dir.path(), &[50, 150, 600, 600], &[]);
    let options = [
        "--key-col",
        "lbn",
        "--key-type",
        "u64",
        "--op-col",
        "op",
        "--op-map",
        "28=get,2a=put",
        "--time-col",
        "time",
        "--window",
        "100",
        "--distinct-limit",
        "300",
    ];
    // 7 parts over 5 files: some parts hold no file.
    for k in [2, 7] {
        let (single, merged) = single_and_merged(dir.path(), &options, "t?.csv", k);
        assert_same_run(&single, &merged);
    }
}

#[test]
fn bad_partial_results_are_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.csv");
    shardlab()
        .args(["gen", "zipf:keys=500", "--quiet", "--events", "3000", "-o"])
        .arg(&whole)
        .assert()
        .success();
    cut(&whole, dir.path(), &[700, 700], &[]);
    std::fs::remove_file(&whole).unwrap();
    let options = ["--no-latency"];
    single_and_merged(dir.path(), &options, "t?.csv", 2);
    let refused = |args: &[&str], want: &str| {
        let assert = shardlab()
            .current_dir(dir.path())
            .args(args)
            .assert()
            .failure();
        let err = stderr_of(&assert);
        assert!(err.contains(want), "want '{want}' in: {err}");
    };
    let merge = |parts: &[&str]| {
        let mut args = vec!["merge", "--quiet"];
        args.extend(parts);
        args.extend(["--out", "refused"]);
        args.into_iter().map(str::to_string).collect::<Vec<_>>()
    };
    let merge_refused = |parts: &[&str], want: &str| {
        let args = merge(parts);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(&args, want);
        assert!(!dir.path().join("refused").exists());
    };
    merge_refused(&["work-2/part-0"], "1/2 missing");
    merge_refused(&["work-2/part-0", "work-2/part-0"], "given twice");
    merge_refused(&["work-2/count-*"], "where step replayed");
    // A part of another run (another shard count): refused by the replay and by the merge.
    let other = |extra: &[&str]| {
        let mut cmd = shardlab();
        cmd.current_dir(dir.path())
            .args([
                "run",
                "--quiet",
                "--trace",
                "t?.csv",
                "--no-latency",
                "--shards",
                "8",
            ])
            .args(extra);
        cmd
    };
    let assert = other(&["--part", "1/2", "--counts", "work-2/count-*", "--out", "x"])
        .assert()
        .failure();
    assert!(stderr_of(&assert).contains("another run"));
    for i in 0..2 {
        let part = format!("{i}/2");
        other(&["--part", &part, "--out", &format!("other/count-{i}")])
            .assert()
            .success();
    }
    other(&[
        "--part",
        "1/2",
        "--counts",
        "other/count-*",
        "--out",
        "other/part-1",
    ])
    .assert()
    .success();
    merge_refused(
        &["work-2/part-0", "other/part-1"],
        "different runs (configuration",
    );
    // Another format version, and a damaged state file.
    let header = dir.path().join("work-2/part-1/partial.json");
    let text = std::fs::read_to_string(&header).unwrap();
    let version = format_version_field(&text);
    std::fs::write(&header, text.replace(&version, "\"format_version\": 99")).unwrap();
    merge_refused(&["work-2/part-*"], "format version 99");
    std::fs::write(&header, text).unwrap();
    std::fs::write(dir.path().join("work-2/part-1/state-0.bin"), b"garbage").unwrap();
    merge_refused(&["work-2/part-*"], "damaged");
    std::fs::remove_file(dir.path().join("work-2/part-1/state-0.bin")).unwrap();
    merge_refused(&["work-2/part-*"], "incomplete");
    // A scheme that places keys in their order of first appearance cannot be cut into
    // parts (a usage error, exit 2).
    let bounded = || {
        let mut cmd = shardlab();
        cmd.current_dir(dir.path())
            .args([
                "run",
                "--quiet",
                "--trace",
                "t?.csv",
                "--schemes",
                "bounded",
            ])
            .args(["--part", "0/1"]);
        cmd
    };
    bounded()
        .args(["--out", "arrival-count"])
        .assert()
        .success();
    let assert = bounded()
        .args(["--counts", "arrival-count", "--out", "arrival"])
        .assert()
        .code(2);
    assert!(stderr_of(&assert).contains("first appear"));
}

#[test]
fn range_dynamic_beside_hash_and_ring_cut_into_2_and_3_parts_merges_into_the_single_run() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.csv");
    shardlab()
        .args([
            "gen",
            "zipf:keys=4000,s=1.1,scans=0.05,writes=0.2",
            "--quiet",
        ])
        .args(["--events", "24000", "-o"])
        .arg(&whole)
        .assert()
        .success();
    cut(
        &whole,
        dir.path(),
        &[5_000, 7_000, 4_000],
        &[(2, "t2.csv.zst")],
    );
    std::fs::remove_file(&whole).unwrap();
    let options = [
        "--no-latency",
        "--window",
        "1000",
        "--schemes",
        "range-dynamic:max_load=300,hash,ring,range-dynamic:finder=sampled,max_load=500",
        "--shards",
        "4,8",
        "--grow",
        "+1,x2",
        "--fail",
        "worst",
    ];
    for k in [2, 3] {
        let (single, merged) = single_and_merged(dir.path(), &options, "t*.csv*", k);
        assert_same_run(&single, &merged);
        for name in ["timeline.csv", "splits.csv", "finders.csv"] {
            assert!(merged.join(name).exists(), "{name}");
        }
    }
    // The layouts split: the timeline is not a copy of an idle one.
    let timeline = std::fs::read_to_string(dir.path().join("merged-3/timeline.csv")).unwrap();
    assert!(timeline.lines().count() > 40, "{timeline}");
    let splits = rows_without_timing(&dir.path().join("merged-3/splits.csv"));
    assert!(splits.len() > 2, "{splits:?}");
    // Only part 0 replays the changing layouts, one file per shard count.
    let part0 = files_of(&dir.path().join("work-3/part-0"));
    assert!(part0.contains(&"layouts-1.bin".to_string()), "{part0:?}");
    assert!(!files_of(&dir.path().join("work-3/part-1")).contains(&"layouts-0.bin".to_string()));
}

/// A 20-second zipf trace cut into 3 files, run under the scenario `add 1` at 4 s, `fail 0`
/// at 9 s, `recover 0` at 12 s, `drain 2` at 15 s with `options` (4 shards, 1-second
/// windows), single and in 3 parts merged: the same run, with `events` rows in events.csv.
fn scenario_in_3_parts(workload: &str, options: &[&str], events: usize) {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.csv");
    shardlab()
        .args(["gen", workload, "--quiet"])
        .args(["--events", "20000", "-o"])
        .arg(&whole)
        .assert()
        .success();
    cut(&whole, dir.path(), &[6_000, 7_000], &[]);
    std::fs::remove_file(&whole).unwrap();
    // gen writes one event per microsecond: read them in ms, the trace spans 20 s.
    std::fs::write(
        dir.path().join("s.txt"),
        "4 add 1\n9 fail 0\n12 recover 0\n15 drain 2\n",
    )
    .unwrap();
    let common = [
        "--no-latency",
        "--window",
        "1000",
        "--shards",
        "4",
        "--scenario",
        "s.txt",
        "--time-unit",
        "ms",
        "--throttle",
        "rate=300,burst=1",
    ];
    let all: Vec<&str> = common.iter().chain(options).copied().collect();
    let (single, merged) = single_and_merged(dir.path(), &all, "t*.csv", 3);
    assert_same_run(&single, &merged);
    let rows = rows_without_timing(&merged.join("events.csv"));
    assert_eq!(rows.len(), 1 + events, "{rows:?}");
}

#[test]
fn a_scenario_run_cut_into_3_parts_merges_into_the_single_run() {
    let options = [
        "--schemes",
        "hash,ring,rendezvous",
        "--replicas",
        "2",
        "--move-rate",
        "20000",
    ];
    scenario_in_3_parts("zipf:keys=3000,s=1.0,writes=0.2", &options, 3 * 4);
}

#[test]
fn balancers_under_a_scenario_cut_into_3_parts_merge_into_the_single_run() {
    let options = [
        "--schemes",
        "citus:move_rate=20000,pd-hot,slicer:move_rate=20000,range-dynamic",
    ];
    scenario_in_3_parts("zipf:keys=3000,s=1.0", &options, 4 * 4);
}

/// Three parts of a small run (`--shards 4,8`: two state files, and in part 0 two runs of
/// the changing layout) counted, replayed and merged in `dir` (`work-3/count-I`,
/// `work-3/part-I`), with the trace `t?.csv`.
fn three_parts(dir: &Path) -> [&'static str; 7] {
    let whole = dir.join("whole.csv");
    shardlab()
        .args(["gen", "zipf:keys=500", "--quiet", "--events", "3000", "-o"])
        .arg(&whole)
        .assert()
        .success();
    // Three files, one a part (shares are balanced by bytes, and the first keys are shorter).
    cut(&whole, dir, &[1100, 1000], &[]);
    std::fs::remove_file(&whole).unwrap();
    let options = [
        "--no-latency",
        "--shards",
        "4,8",
        "--window",
        "300",
        "--schemes",
        "range,hash,range-dynamic:max_load=100",
    ];
    single_and_merged(dir, &options, "t?.csv", 3);
    for i in 0..3 {
        let header: serde_json::Value = serde_json::from_slice(
            &std::fs::read(dir.join(format!("work-3/part-{i}/partial.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(header["files"].as_array().unwrap().len(), 1, "part {i}");
    }
    options
}

/// `shardlab merge work-3/part-*` in `dir` exits 1 (promptly: a hang or a crash fails) with
/// every one of `want` in its message, and writes nothing; returns the message.
fn merge_fails(dir: &Path, want: &[&str]) -> String {
    let assert = shardlab()
        .current_dir(dir)
        .args(["merge", "--quiet", "work-3/part-*", "--out", "refused"])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(1);
    let err = stderr_of(&assert);
    for w in want {
        assert!(err.contains(w), "want '{w}' in: {err}");
    }
    assert!(!dir.join("refused").exists());
    err
}

/// Replaces the file `name` of the partial result `part` by `bytes` and rewrites its
/// `partial.json` to list them (size, checksum and decoded size, or the recorded decoded size
/// kept when `decoded` is none) under a new seal, as its writer would: only the checks past
/// the header's can refuse them.
fn replace_listed(part: &Path, name: &str, bytes: &[u8], decoded: Option<u64>) {
    use engine::part::PartialHeader;
    let json = part.join("partial.json");
    let mut header: PartialHeader = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let entry = header.owned.iter_mut().find(|f| f.name == name).unwrap();
    entry.bytes = bytes.len() as u64;
    entry.decoded_bytes = decoded.unwrap_or(entry.decoded_bytes);
    entry.xxh3_128 = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes));
    header.reseal().unwrap();
    std::fs::write(part.join(name), bytes).unwrap();
    std::fs::write(&json, header.to_json().unwrap()).unwrap();
}

/// The files of a directory, sorted.
fn files_of(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_flipped_byte_in_any_file_of_a_partial_result_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    three_parts(dir.path());
    let mut flipped = 0;
    for part in ["work-3/part-0", "work-3/part-1"] {
        let names = files_of(&dir.path().join(part));
        assert!(names.contains(&"state-1.bin".to_string()), "{names:?}");
        if part.ends_with("part-0") {
            assert!(names.contains(&"layouts-1.bin".to_string()), "{names:?}");
        }
        for name in names {
            let path = dir.path().join(part).join(&name);
            let good = std::fs::read(&path).unwrap();
            let len = good.len();
            let mut at = vec![0, len / 3, len / 2, 2 * len / 3, len - 1];
            if name == "partial.json" {
                let text = String::from_utf8(good.clone()).unwrap();
                // Inside the seal, a file's checksum, its decoded size, and the part index.
                for field in [
                    "\"seal\": \"",
                    "\"xxh3_128\": \"",
                    "\"decoded_bytes\": ",
                    "\"index\": ",
                ] {
                    at.push(text.rfind(field).unwrap() + field.len());
                }
            }
            for i in at {
                let mut bad = good.clone();
                bad[i] ^= 1;
                std::fs::write(&path, &bad).unwrap();
                let shown = format!("{part}/{name}");
                merge_fails(dir.path(), &[&shown]);
                flipped += 1;
            }
            std::fs::write(&path, &good).unwrap();
        }
    }
    assert!(flipped >= 30, "{flipped}");
    // Restored, the parts merge.
    shardlab()
        .current_dir(dir.path())
        .args(["merge", "--quiet", "work-3/part-*", "--out", "again"])
        .assert()
        .success();
}

#[test]
fn a_file_of_another_part_step_or_run_is_refused_even_when_listed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let options = three_parts(d);
    let read = |p: &str| std::fs::read(d.join(p)).unwrap();
    let part1 = d.join("work-3/part-1");
    let part2 = d.join("work-3/part-2");
    let state = "work-3/part-2/state-0.bin";
    let listed = |part: &Path, name: &str, bytes: Vec<u8>| {
        let decoded = zstd::decode_all(bytes.as_slice()).unwrap().len() as u64;
        replace_listed(part, name, &bytes, Some(decoded));
    };
    let (good_state, good_header) = (read(state), read("work-3/part-2/partial.json"));
    let restore = || {
        std::fs::write(d.join(state), &good_state).unwrap();
        std::fs::write(part2.join("partial.json"), &good_header).unwrap();
    };
    // Part 1's state copied over part 2's: its size or checksum is not the one listed.
    std::fs::copy(part1.join("state-0.bin"), d.join(state)).unwrap();
    merge_fails(d, &[state, "rerun part 2/3"]);
    // ... and with the header rewritten to list it, its binding is another part's.
    listed(&part2, "state-0.bin", read("work-3/part-1/state-0.bin"));
    merge_fails(
        d,
        &[
            state,
            "belongs to another part of this run (part 1/3, not 2/3)",
        ],
    );
    restore();
    // Another shard count's state of the same part, listed under this name.
    listed(&part2, "state-0.bin", read("work-3/part-2/state-1.bin"));
    merge_fails(d, &[state, "is this part's 'state-1.bin'"]);
    restore();
    // A run with other options (--shards 8): its state, and its warm-up given to a replay.
    let other = |extra: &[&str]| {
        shardlab()
            .current_dir(d)
            .args([
                "run",
                "--quiet",
                "--trace",
                "t?.csv",
                "--no-latency",
                "--shards",
                "8",
            ])
            .args(extra)
            .assert()
            .success();
    };
    for i in 0..3 {
        other(&[
            "--part",
            &format!("{i}/3"),
            "--out",
            &format!("other/count-{i}"),
        ]);
    }
    other(&[
        "--part",
        "1/3",
        "--counts",
        "other/count-*",
        "--out",
        "other/part-1",
    ]);
    listed(&part2, "state-0.bin", read("other/part-1/state-0.bin"));
    merge_fails(d, &[state, "belongs to another run"]);
    restore();
    listed(
        &d.join("work-3/count-0"),
        "warmup.bin",
        read("other/count-0/warmup.bin"),
    );
    let assert = shardlab()
        .current_dir(d)
        .args(["run", "--quiet", "--trace", "t?.csv"])
        .args(options)
        .args([
            "--part",
            "1/3",
            "--counts",
            "work-3/count-*",
            "--out",
            "replayed",
        ])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(1);
    let err = stderr_of(&assert);
    assert!(
        err.contains("work-3/count-0/warmup.bin") && err.contains("belongs to another run"),
        "{err}"
    );
    // Restored, the parts merge.
    shardlab()
        .current_dir(d)
        .args(["merge", "--quiet", "work-3/part-*", "--out", "again"])
        .assert()
        .success();
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_or_a_fifo_in_a_partial_result_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    three_parts(d);
    let state = d.join("work-3/part-1/state-0.bin");
    let good = std::fs::read(&state).unwrap();
    // A link to /dev/zero (endless) and a FIFO nobody writes (a read would wait forever):
    // merge_fails's timeout turns a hang into a failure.
    std::fs::remove_file(&state).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &state).unwrap();
    merge_fails(d, &["work-3/part-1/state-0.bin", "is a symbolic link"]);
    std::fs::remove_file(&state).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&state)
        .status()
        .unwrap();
    assert!(made.success());
    merge_fails(d, &["work-3/part-1/state-0.bin", "is a FIFO"]);
    std::fs::remove_file(&state).unwrap();
    std::fs::write(&state, &good).unwrap();
    // The header itself as a link to a good copy of it.
    let header = d.join("work-3/part-1/partial.json");
    std::fs::rename(&header, d.join("partial-copy.json")).unwrap();
    std::os::unix::fs::symlink(d.join("partial-copy.json"), &header).unwrap();
    merge_fails(d, &["work-3/part-1/partial.json", "is a symbolic link"]);
}

/// A zstd frame of `blocks` RLE blocks of 128 KiB of zeros each, 4 bytes a block: a file of
/// 4 x `blocks` bytes that decodes to 32,768 times as many.
fn zstd_bomb(blocks: usize) -> Vec<u8> {
    // Magic number; no content size, no checksum; a window of 2^17 bytes.
    let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38];
    for i in 0..blocks {
        let last = u32::from(i + 1 == blocks);
        let header = (128 << 10) << 3 | 1 << 1 | last;
        frame.extend_from_slice(&header.to_le_bytes()[..3]);
        frame.push(0);
    }
    frame
}

#[test]
fn a_zstd_bomb_listed_with_its_true_size_is_refused_without_decoding_it_whole() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    three_parts(d);
    // 2 MiB on disk, 64 GiB decoded; the header lists its size and checksum (and the small
    // decoded size of the state it replaces), sealed, so only the decoded-size bound is left.
    let bomb = zstd_bomb(1 << 19);
    assert_eq!(
        zstd::decode_all(&zstd_bomb(3)[..]).unwrap(),
        vec![0; 3 << 17]
    );
    replace_listed(&d.join("work-3/part-1"), "state-0.bin", &bomb, None);
    merge_fails(
        d,
        &[
            "work-3/part-1/state-0.bin",
            "decodes to more than the",
            "recorded in partial.json",
        ],
    );
}

/// The `"format_version": N` field of a partial header's text.
fn format_version_field(header: &str) -> String {
    let at = header
        .find("\"format_version\":")
        .expect("a format version");
    let end = header[at..]
        .find([',', '\n', '}'])
        .expect("the field's end");
    header[at..at + end].to_string()
}
