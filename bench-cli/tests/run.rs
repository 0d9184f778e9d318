//! End-to-end tests of `shardlab run`: the binary on fixtures and tiny workloads.

use std::collections::BTreeMap;
use std::path::Path;

mod common;

use common::{fixture, manifest, shardlab, stderr_of, stdout_of};

/// `summary.csv` as (workload, scheme, metric) -> value.
fn summary(dir: &Path) -> BTreeMap<(String, String, String), String> {
    let mut r = csv::Reader::from_path(dir.join("summary.csv")).unwrap();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            (
                (rec[0].to_string(), rec[1].to_string(), rec[3].to_string()),
                rec[4].to_string(),
            )
        })
        .collect()
}

fn first_line(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_tiny_run_writes_the_three_files_with_their_exact_headers() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    shardlab()
        .args([
            "run",
            "--workload",
            "uniform:keys=1000,scans=0.1",
            "--events",
            "20000",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    assert!(first_line(&out.join("summary.csv")).starts_with("workload,scheme,shards,metric,value"));
    assert!(first_line(&out.join("shards.csv"))
        .starts_with("workload,scheme,shard,requests,distinct_keys"));
    let manifest = manifest(&out);
    assert_eq!(manifest["seed"], 42);
    assert_eq!(manifest["tool"], "shardlab");
    assert!(manifest["version"].is_string() && manifest["started_utc"].is_string());
    // Where the time went: every phase of the replay, in seconds.
    for phase in ["warm-up", "replay", "remap", "latency"] {
        let secs = manifest["phase_secs"][phase].as_f64();
        assert!(secs.is_some_and(|s| s >= 0.0), "phase {phase}: {secs:?}");
    }
    for file in ["windows.csv", "report.html", "report.md"] {
        assert!(out.join(file).is_file(), "{file} is written");
    }
    let charts: Vec<String> = std::fs::read_dir(out.join("charts"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for stem in [
        "load_bars",
        "hottest_over_time",
        "load_heatmap",
        "remap",
        "latency",
        "scan_fanout",
    ] {
        for ext in ["svg", "png"] {
            assert!(
                charts
                    .iter()
                    .any(|c| c.starts_with(stem) && c.ends_with(ext)),
                "no {stem} {ext} in {charts:?}"
            );
        }
    }
    let s = summary(&out);
    let schemes: std::collections::BTreeSet<&str> = s.keys().map(|k| k.1.as_str()).collect();
    assert_eq!(
        schemes.into_iter().collect::<Vec<_>>(),
        ["hash", "range", "ring", "salted"]
    );
}

#[test]
fn hand_computed_loads_for_a_small_trace_with_given_boundaries() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("exact");
    let schemes = format!(
        "range:boundaries={}",
        fixture("exact_boundaries.txt").display()
    );
    shardlab()
        .args([
            "run",
            "--key-type",
            "u64",
            "--shards",
            "4",
            "--grow",
            "5",
            "--window",
            "5",
            "--quiet",
            "--schemes",
            &schemes,
        ])
        .arg("--trace")
        .arg(fixture("exact_trace.csv"))
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    // Shard loads: point requests plus one per shard each scan contacts (see the fixture).
    let shards = std::fs::read_to_string(out.join("shards.csv")).unwrap();
    let rows: Vec<(u64, u64)> = shards
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[3].parse().unwrap(), f[4].parse().unwrap())
        })
        .collect();
    assert_eq!(rows, [(4, 1), (6, 2), (4, 2), (3, 2)]);
    let s = summary(&out);
    let trace = fixture("exact_trace.csv").display().to_string();
    let get = |m: &str| {
        s[&(trace.clone(), schemes.clone(), m.to_string())]
            .parse::<f64>()
            .unwrap()
    };
    assert_eq!(get("events_measured"), 12.0);
    assert_eq!(get("warmup_events"), 0.0);
    assert_eq!(get("requests"), 17.0);
    assert!((get("hottest_shard_share") - 6.0 / 17.0).abs() < 1e-12);
    assert!((get("hottest_shard_ratio") - 24.0 / 17.0).abs() < 1e-12);
    // Windows of 5, 5 and 2 events with hottest shares 0.4, 2/7 and 0.4, weighed by events.
    let windowed = (5.0 * 0.4 + 5.0 * 2.0 / 7.0 + 2.0 * 0.4) / 12.0;
    assert!((get("hottest_shard_share_windowed") - windowed).abs() < 1e-12);
    assert_eq!(get("scans"), 3.0);
    assert!((get("scan_fanout_mean") - 8.0 / 3.0).abs() < 1e-9);
    assert_eq!(get("scan_fanout_max"), 4.0);
    assert_eq!(get("scan_fanout_p99"), 4.0);
    assert_eq!(get("distinct_keys"), 7.0);
    assert!((get("hottest_key_share") - 2.0 / 9.0).abs() < 1e-12);
    // grow=balanced, 4 -> 5 shards, learned out of sample: of the 7 keys, 150 is held out
    // (bit 0 of xxh3_64(key, seed 0x6f75745f6f665f73) is 1) and the rest are learned from.
    // Their point loads are 2, 1, 2, 2 of 7 (fair share 7/5 = 1.4): no shard is a whole
    // request above it, so nothing is cut and no key moves; the held-out key 150 (2 point
    // requests) stays on shard 1, so the added shard gets none of the scored requests.
    assert_eq!(get("remap_fraction"), 0.0);
    assert!((get("remap_ideal") - 0.2).abs() < 1e-12);
    assert_eq!(get("grow_added_share"), 0.0);
    assert_eq!(get("hottest_shard_share_grown"), 1.0);
    // Hottest range by point load: [100, 200) with 150 x2 and 199 x1; median key 199.
    assert!((get("split_balance") - 1.0 / 3.0).abs() < 1e-12);
    assert!((get("split_balance_optimal") - 1.0 / 3.0).abs() < 1e-12);
}

#[test]
fn grow_cheapest_keeps_the_old_whole_range_rule_on_the_small_trace() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cheapest");
    let boundaries = fixture("exact_boundaries.txt").display().to_string();
    let schemes = format!("range:boundaries={boundaries},grow=cheapest");
    shardlab()
        .args(["run", "--key-type", "u64", "--shards", "4", "--grow", "5,3"])
        .args(["--quiet", "--no-latency", "--schemes", &schemes, "--trace"])
        .arg(fixture("exact_trace.csv"))
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let mut r = csv::Reader::from_path(out.join("summary.csv")).unwrap();
    let remap: Vec<(String, String)> = r
        .records()
        .map(|rec| rec.unwrap())
        .filter(|rec| &rec[3] == "remap_fraction")
        .map(|rec| (rec[6].to_string(), rec[4].to_string()))
        .collect();
    // Growing: 4 ranges cannot give 5 shards whole ranges each, so nothing moves. Shrinking:
    // shard 3's range (keys 300, 1000) moves whole: 2 of 7 keys.
    let shrink = 2.0 / 7.0;
    assert_eq!(remap[0], ("5".to_string(), "0".to_string()));
    assert_eq!(remap[1].0, "3");
    assert!(
        (remap[1].1.parse::<f64>().unwrap() - shrink).abs() < 1e-12,
        "{remap:?}"
    );
}

#[test]
fn a_bad_trace_line_names_the_line_and_writes_no_report() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never");
    let assert = shardlab()
        .args(["run", "--quiet", "--trace"])
        .arg(fixture("bad_op_line4.csv"))
        .arg("--out")
        .arg(&out)
        .assert()
        .failure();
    let stderr = stderr_of(&assert);
    assert!(
        stderr.contains("bad_op_line4.csv") && stderr.contains("line 4"),
        "{stderr}"
    );
    assert!(!out.exists(), "no report may be written for a bad trace");
}

#[test]
fn the_same_seed_gives_the_same_summary_with_one_thread_and_with_two() {
    let dir = tempfile::tempdir().unwrap();
    let run = |threads: &str, name: &str| {
        let out = dir.path().join(name);
        shardlab()
            .args([
                "run",
                "--workload",
                "zipf:keys=5000,s=1.1,scans=0.05",
                "--workload",
                "sequential",
                "--events",
                "60000",
            ])
            .args(["--window", "1000", "--quiet", "--threads", threads, "--out"])
            .arg(&out)
            .assert()
            .success();
        summary(&out)
            .into_iter()
            .filter(|(k, _)| !engine::metrics::is_timing(&k.2))
            .collect::<Vec<_>>()
    };
    let one = run("1", "one");
    assert!(one.len() > 50);
    assert_eq!(one, run("2", "two"));
    let shards =
        |name: &str| std::fs::read_to_string(dir.path().join(name).join("shards.csv")).unwrap();
    assert_eq!(shards("one"), shards("two"));
}

#[test]
fn an_existing_output_directory_is_kept_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("keep.txt"), "mine").unwrap();
    let run_dir = dir.path().join("run");
    let args = [
        "run",
        "--workload",
        "uniform:keys=100",
        "--events",
        "2000",
        "--quiet",
        "--out",
    ];
    let assert = shardlab().args(args).arg(dir.path()).assert().failure();
    assert!(stderr_of(&assert).contains("--force"));
    assert!(!dir.path().join("summary.csv").exists());
    // --force replaces only a run directory (one with a manifest.json), and whole.
    let assert = shardlab()
        .args(args)
        .arg(dir.path())
        .arg("--force")
        .assert()
        .failure();
    assert!(stderr_of(&assert).contains("not a shardlab run directory"));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    shardlab().args(args).arg(&run_dir).assert().success();
    std::fs::write(run_dir.join("stale.csv"), "old").unwrap();
    shardlab().args(args).arg(&run_dir).assert().failure();
    shardlab()
        .args(args)
        .arg(&run_dir)
        .arg("--force")
        .assert()
        .success();
    assert!(run_dir.join("summary.csv").exists() && !run_dir.join("stale.csv").exists());
    assert!(dir.path().join("keep.txt").exists());
}

#[test]
fn unknown_names_and_zero_counts_are_refused_with_the_valid_choices() {
    let assert = shardlab()
        .args(["run", "--schemes", "range,btree", "--quiet"])
        .assert()
        .failure();
    let stderr = stderr_of(&assert);
    assert!(
        stderr.contains("valid schemes: range, hash, ring, salted"),
        "{stderr}"
    );
    let assert = shardlab()
        .args(["run", "--workload", "pareto", "--quiet"])
        .assert()
        .failure();
    assert!(stderr_of(&assert).contains("uniform"));
    for bad in [
        &["--schemes", "ring:vnodes=0"][..],
        &["--schemes", "salted:buckets=0"],
        &["--schemes", "ring:vnode=3"],
    ] {
        let assert = shardlab()
            .args(["run", "--quiet"])
            .args(bad)
            .assert()
            .code(2);
        let stderr = stderr_of(&assert);
        assert!(
            stderr.starts_with("Error: ") && !stderr.contains("panicked"),
            "{stderr}"
        );
    }
    shardlab().args(["run", "--shards", "0"]).assert().code(2);
}

#[test]
fn help_shows_examples() {
    let assert = shardlab().args(["run", "--help"]).assert().success();
    let out = stdout_of(&assert);
    assert!(
        out.contains("Examples:") && out.contains("--workload"),
        "{out}"
    );
}

#[test]
fn report_re_renders_the_same_charts_from_the_csv_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    shardlab()
        .args([
            "run",
            "--workload",
            "zipf:keys=2000,scans=0.1",
            "--events",
            "30000",
            // A sweep with a dynamic scheme: every file the report reads (timeline, splits
            // and finders too), drawn by the run from memory and by `report` from disk.
            "--schemes",
            "range,hash,range-dynamic",
            "--shards",
            "4,8",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    for file in ["windows.csv", "timeline.csv", "splits.csv", "finders.csv"] {
        assert!(out.join(file).exists(), "{file}");
    }
    let read_all = |d: &Path| -> BTreeMap<String, Vec<u8>> {
        std::fs::read_dir(d.join("charts"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .chain([d.join("report.html"), d.join("report.md")])
            .map(|p| {
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read(&p).unwrap(),
                )
            })
            .collect()
    };
    let before = read_all(&out);
    std::fs::remove_dir_all(out.join("charts")).unwrap();
    std::fs::remove_file(out.join("report.html")).unwrap();
    shardlab().arg("report").arg(&out).assert().success();
    assert_eq!(before, read_all(&out));
    let missing = dir.path().join("nothing");
    let assert = shardlab().arg("report").arg(&missing).assert().code(1);
    assert!(stderr_of(&assert).contains("nothing"));
}

#[test]
fn range_dynamic_sits_beside_the_fixed_schemes_and_writes_its_timeline() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dyn");
    shardlab()
        .args([
            "run",
            "--workload",
            "zipf:keys=20000,s=0.99",
            "--events",
            "100000",
            "--shards",
            "8",
            "--grow",
            "+1,x2",
            "--window",
            "5000",
        ])
        .args([
            "--schemes",
            "range,hash,range-dynamic:max_load=800",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let s = summary(&out);
    let get = |scheme: &str, m: &str| {
        s[&(
            "zipf:keys=20000,s=0.99".to_string(),
            scheme.to_string(),
            m.to_string(),
        )]
            .clone()
    };
    assert_eq!(
        get("range-dynamic:max_load=800", "events_measured"),
        get("range", "events_measured")
    );
    assert!(
        get("range-dynamic:max_load=800", "dynamic_load_splits")
            .parse::<u64>()
            .unwrap()
            > 0
    );
    let timeline = std::fs::read_to_string(out.join("timeline.csv")).unwrap();
    assert!(timeline.starts_with("window,ranges,splits,merges"));
    let mut rows = csv::Reader::from_reader(timeline.as_bytes());
    assert!(rows
        .headers()
        .unwrap()
        .iter()
        .rev()
        .take(3)
        .eq(["shards", "scheme", "workload"]));
    let labels: Vec<(String, String, String, String)> = rows
        .records()
        .map(|r| r.unwrap())
        .map(|r| {
            let n = r.len();
            (
                r[0].to_string(),
                r[n - 3].to_string(),
                r[n - 2].to_string(),
                r[n - 1].to_string(),
            )
        })
        .collect();
    assert!(labels.len() > 10);
    assert!(
        labels
            .iter()
            .all(|(_, w, s, n)| w == "zipf:keys=20000,s=0.99"
                && s == "range-dynamic:max_load=800"
                && n == "8"),
        "{labels:?}"
    );
    // The run is written once, not once per growth target: windows only increase.
    let windows: Vec<u64> = labels.iter().map(|l| l.0.parse().unwrap()).collect();
    assert!(
        windows.windows(2).all(|p| p[0] < p[1]),
        "a window is repeated: {windows:?}"
    );
    assert!(std::fs::read_to_string(out.join("splits.csv"))
        .unwrap()
        .starts_with(
            "window,finder,range_start,split_key,balance_after,optimal_balance,contained,reason"
        ));
    assert!(out.join("finders.csv").is_file());
    // Without a dynamic scheme there is no timeline.
    let plain = dir.path().join("plain");
    shardlab()
        .args([
            "run",
            "--workload",
            "uniform:keys=100",
            "--events",
            "2000",
            "--quiet",
            "--out",
        ])
        .arg(&plain)
        .assert()
        .success();
    assert!(!plain.join("timeline.csv").exists());
}

#[test]
fn a_sweep_over_shard_counts_skews_and_growth_writes_every_combination_and_its_charts() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    shardlab()
        .args([
            "run",
            "--workload",
            "zipf:keys=5000,s=0.6,0.9,1.2,scans=0.05",
            "--events",
            "20000",
            "--window",
            "2000",
        ])
        .args([
            "--shards",
            "4,8,16,32",
            "--grow",
            "+1,x2",
            "--no-latency",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let mut r = csv::Reader::from_path(out.join("summary.csv")).unwrap();
    let mut combos = std::collections::BTreeSet::new();
    for rec in r.records() {
        let rec = rec.unwrap();
        if &rec[3] == "remap_fraction" {
            combos.insert((
                rec[0].to_string(),
                rec[1].to_string(),
                rec[2].parse::<u32>().unwrap(),
                rec[6].parse::<u32>().unwrap(),
            ));
        }
    }
    // 3 skews x 4 schemes x 4 shard counts x 2 targets.
    assert_eq!(combos.len(), 3 * 4 * 4 * 2, "{combos:?}");
    assert!(combos.contains(&(
        "zipf:keys=5000,s=0.9,scans=0.05".into(),
        "hash".into(),
        8,
        16
    )));
    // The loads are those of N shards, the same for every target: written once, so that a
    // sum over shards.csv or windows.csv counts each request once.
    let mut shards = csv::Reader::from_path(out.join("shards.csv")).unwrap();
    let mut rows = std::collections::BTreeSet::new();
    let mut requests = 0u64;
    for rec in shards.records() {
        let rec = rec.unwrap();
        let key = (
            rec[0].to_string(),
            rec[1].to_string(),
            rec[5].to_string(),
            rec[2].to_string(),
        );
        assert!(rows.insert(key.clone()), "shards.csv repeats {key:?}");
        requests += rec[3].parse::<u64>().unwrap();
    }
    assert_eq!(rows.len(), 3 * 4 * (4 + 8 + 16 + 32));
    let mut windows = csv::Reader::from_path(out.join("windows.csv")).unwrap();
    let mut cells = std::collections::BTreeSet::new();
    let mut window_requests = 0u64;
    for rec in windows.records() {
        let rec = rec.unwrap();
        let key: Vec<String> = (0..5).map(|i| rec[i].to_string()).collect();
        assert!(cells.insert(key.clone()), "windows.csv repeats {key:?}");
        window_requests += rec[5].parse::<u64>().unwrap();
    }
    assert_eq!(window_requests, requests);
    let charts: Vec<String> = std::fs::read_dir(out.join("charts"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for stem in ["skew_sweep", "shard_sweep"] {
        let svg = charts
            .iter()
            .find(|c| c.starts_with(stem) && c.ends_with(".svg"))
            .unwrap_or_else(|| panic!("no {stem} in {charts:?}"));
        let text = std::fs::read_to_string(out.join("charts").join(svg)).unwrap();
        let labels: Vec<&str> = text
            .split("<text")
            .skip(1)
            .filter_map(|t| t.split('>').nth(1))
            .map(|t| t.split('<').next().unwrap_or("").trim())
            .collect();
        for scheme in ["range", "hash", "ring", "salted"] {
            assert!(
                labels.contains(&scheme),
                "{stem} lacks the {scheme} series: {labels:?}"
            );
        }
    }
}

#[test]
fn a_trace_run_reports_the_inspect_figures_of_the_trace() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    shardlab()
        .args([
            "run",
            "--key-type",
            "u64",
            "--no-latency",
            "--quiet",
            "--trace",
        ])
        .arg(fixture("exact_trace.csv"))
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let manifest = manifest(&out);
    assert_eq!(manifest["parameters"]["trace_profile"]["events"], "12");
    assert_eq!(manifest["parameters"]["trace_profile"]["scans"], "3");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("### The trace (shardlab inspect)") && md.contains("| monotonicity |"),
        "{md}"
    );
}

#[test]
fn fail_worst_measures_each_scheme_losing_a_shard_by_its_own_rule() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f");
    shardlab()
        .args([
            "run",
            "--workload",
            "uniform:keys=100000",
            "--events",
            "200000",
            "--fail",
            "worst",
            "--no-latency",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let s = summary(&out);
    let get = |scheme: &str, m: &str| {
        s[&(
            "uniform:keys=100000".to_string(),
            scheme.to_string(),
            m.to_string(),
        )]
            .parse::<f64>()
            .unwrap()
    };
    // mod-N rehashes everything onto 15 shards: about 15/16 of the keys move; the ring and
    // range hand only the lost shard's keys (about 1/16) to the survivors.
    assert!((get("hash", "fail_remap_fraction") - 15.0 / 16.0).abs() < 0.01);
    for scheme in ["ring", "range"] {
        assert!(
            (get(scheme, "fail_remap_fraction") - 1.0 / 16.0).abs() < 0.02,
            "{scheme}"
        );
        assert!(get(scheme, "fail_hottest_surviving_share") >= 1.0 / 15.0);
    }
    let assert = shardlab()
        .args([
            "run",
            "--workload",
            "uniform:keys=100",
            "--events",
            "1000",
            "--fail",
            "x",
            "--quiet",
        ])
        .assert()
        .code(2);
    assert!(stderr_of(&assert).contains("worst"));
}

/// `file`'s rows without timing metrics, with the workload label `label` replaced by `-`.
fn rows_as(dir: &Path, file: &str, label: &str) -> Vec<String> {
    common::without_timing(&dir.join(file))
        .lines()
        .map(|l| {
            common::csv_rows(l)[0]
                .iter()
                .map(|c| if c == label { "-" } else { c.as_str() })
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect()
}

#[test]
fn a_changing_layout_reads_standard_input_once_with_the_fixed_schemes() {
    // range-dynamic beside hash and ring reads the one pass: standard input (read once) gives
    // the figures of the trace file, and of range-dynamic and the fixed schemes run apart.
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.csv");
    shardlab()
        .args([
            "gen",
            "zipf:keys=5000,s=0.9",
            "--events",
            "60000",
            "--seed",
            "3",
            "-o",
        ])
        .arg(&trace)
        .assert()
        .success();
    let run = |schemes: &str, stdin: bool, out: &str| {
        let out = dir.path().join(out);
        let mut cmd = shardlab();
        cmd.args(["run", "--quiet", "--shards", "4", "--window", "2000"])
            .args(["--schemes", schemes, "--out"])
            .arg(&out);
        if stdin {
            cmd.args(["--trace", "-"])
                .write_stdin(std::fs::read(&trace).unwrap());
        } else {
            cmd.arg("--trace").arg(&trace);
        }
        cmd.assert().success();
        out
    };
    let all = "hash,ring,range-dynamic:max_load=400";
    let (file, piped) = (run(all, false, "file"), run(all, true, "piped"));
    let label = trace.display().to_string();
    for table in [
        "summary.csv",
        "shards.csv",
        "windows.csv",
        "timeline.csv",
        "splits.csv",
    ] {
        assert_eq!(
            rows_as(&file, table, &label),
            rows_as(&piped, table, "<stdin>"),
            "{table}"
        );
    }
    let (fixed, alone) = (
        run("hash,ring", false, "fixed"),
        run("range-dynamic:max_load=400", false, "alone"),
    );
    let together = rows_as(&file, "summary.csv", &label);
    let mut apart = rows_as(&fixed, "summary.csv", &label);
    apart.extend(rows_as(&alone, "summary.csv", &label).into_iter().skip(1));
    let sorted = |mut rows: Vec<String>| {
        rows.sort();
        rows
    };
    assert_eq!(sorted(together), sorted(apart));
    assert_eq!(
        rows_as(&file, "timeline.csv", &label),
        rows_as(&alone, "timeline.csv", &label)
    );
    let splits = rows_as(&file, "timeline.csv", &label);
    assert!(splits.len() > 10, "{splits:?}");
}

#[test]
fn the_trace_profile_of_a_run_is_inspects_whatever_else_reads_the_stream() {
    // A sweep over two shard counts (the trace is replayed twice) with a changing layout
    // beside the fixed schemes (both read the same ordered pass as the profile): every event
    // is profiled once, with the figures `shardlab inspect` gives.
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("z.csv");
    shardlab()
        .args([
            "gen",
            "zipf:s=1.1,keys=5000",
            "--events",
            "30000",
            "-q",
            "-o",
        ])
        .arg(&trace)
        .assert()
        .success();
    let inspected = dir.path().join("i");
    shardlab()
        .args(["inspect", "--key-type", "u64", "-q", "--out"])
        .arg(&inspected)
        .arg(&trace)
        .assert()
        .success();
    let rows = std::fs::read_to_string(inspected.join("inspect.csv")).unwrap();
    // On one worker the profile runs on it; on two, on a thread of its own.
    for threads in ["1", "2"] {
        let out = dir.path().join(format!("run{threads}"));
        shardlab()
            .args(["run", "--key-type", "u64", "--no-latency", "--quiet"])
            .args([
                "--shards",
                "4,8",
                "--schemes",
                "range-dynamic:max_load=300,hash",
            ])
            .args(["--threads", threads, "--trace"])
            .arg(&trace)
            .arg("--out")
            .arg(&out)
            .assert()
            .success();
        let profile = &manifest(&out)["parameters"]["trace_profile"];
        let mut compared = 0;
        for line in rows.lines().skip(1) {
            let (metric, value) = line.split_once(',').unwrap();
            if let Some(ours) = profile[metric].as_str() {
                assert_eq!(ours, value, "{metric} on {threads} thread(s)");
                compared += 1;
            }
        }
        assert_eq!(profile["events"], "30000");
        assert!(compared >= 20, "{compared} figures compared: {profile}");
    }
}
