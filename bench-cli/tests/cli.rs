//! What a newcomer meets first: `--help` grouped by purpose and listing every registered
//! workload and scheme, exit statuses (2 usage, 1 data) in every subcommand, generated traces
//! that read back without options, default output directories that never collide, and
//! errors that name the option that fixes them.

use std::collections::BTreeMap;
use std::path::Path;

mod common;

use common::{fixture, shardlab, stderr_of, stdout_of};

/// The long options of `shardlab SUB --help`, by the heading they are listed under.
fn help_sections(sub: &str) -> BTreeMap<String, Vec<String>> {
    let help = stdout_of(&shardlab().args([sub, "--help"]).assert().success());
    let mut sections: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut heading = String::new();
    for line in help.lines() {
        if !line.starts_with(' ') && line.ends_with(':') {
            heading = line.trim_end_matches(':').to_string();
        } else if let Some(option) = line
            .trim_start()
            .split([' ', ','])
            .find(|w| w.starts_with("--"))
            .filter(|_| line.trim_start().starts_with('-'))
        {
            sections
                .entry(heading.clone())
                .or_default()
                .push(option.to_string());
        }
    }
    sections
}

/// The heading `option` is listed under in `sub --help`.
fn heading_of(sections: &BTreeMap<String, Vec<String>>, option: &str) -> String {
    sections
        .iter()
        .find(|(_, options)| options.iter().any(|o| o == option))
        .map(|(h, _)| h.clone())
        .unwrap_or_else(|| panic!("{option} is not in the help: {sections:#?}"))
}

#[test]
fn help_groups_options_by_what_they_do() {
    let trace_reading = [
        "--key-type",
        "--key-col",
        "--op-col",
        "--time-col",
        "--no-header",
        "--delimiter",
        "--op-map",
        "--skip-invalid",
    ];
    for sub in ["run", "plan", "inspect", "convert"] {
        let sections = help_sections(sub);
        for option in trace_reading {
            assert_eq!(
                heading_of(&sections, option),
                "Trace reading",
                "{sub} {option}"
            );
        }
        // Nothing but trace-reading options under that heading.
        for option in &sections["Trace reading"] {
            assert!(
                trace_reading.contains(&option.as_str())
                    || [
                        "--format",
                        "--from",
                        "--size-col",
                        "--end-col",
                        "--block-size",
                        "--max-invalid",
                        "--time-unit"
                    ]
                    .contains(&option.as_str()),
                "{sub}: {option} is under Trace reading"
            );
        }
        for option in ["--force", "--quiet"] {
            assert_eq!(heading_of(&sections, option), "Output", "{sub} {option}");
        }
    }
    for sub in ["run", "plan"] {
        let sections = help_sections(sub);
        assert_eq!(heading_of(&sections, "--schemes"), "Schemes", "{sub}");
        assert_eq!(heading_of(&sections, "--workload"), "Input", "{sub}");
        assert_eq!(heading_of(&sections, "--events"), "Input", "{sub}");
        assert_eq!(heading_of(&sections, "--out"), "Output", "{sub}");
        assert_eq!(heading_of(&sections, "--threads"), "Measurement", "{sub}");
    }
    let run = help_sections("run");
    for option in ["--shards", "--grow", "--fail", "--warmup"] {
        assert_eq!(heading_of(&run, option), "Schemes", "{option}");
    }
    assert_eq!(heading_of(&help_sections("plan"), "--capacity"), "Capacity");
    let gen = help_sections("gen");
    assert_eq!(heading_of(&gen, "--events"), "Input");
    assert_eq!(heading_of(&gen, "--out"), "Output");
}

#[test]
fn help_lists_every_registered_workload_and_scheme() {
    for sub in ["run", "plan"] {
        let help = stdout_of(&shardlab().args([sub, "--help"]).assert().success());
        for kind in workloads::synthetic::WORKLOADS {
            assert!(
                help.contains(&format!("\n  {}", kind.name))
                    || help.contains(&format!(" {}[", kind.name)),
                "{sub} --help does not list workload {}",
                kind.name
            );
        }
        for kind in schemes::SCHEMES.iter().chain(schemes::CHANGING_SCHEMES) {
            assert!(
                help.contains(&format!(" {}\n", kind.name))
                    || help.contains(&format!(" {}[:", kind.name)),
                "{sub} --help does not list scheme {}",
                kind.name
            );
        }
        assert!(help.contains("ycsb:a") && help.contains("ycsb:f"));
    }
}

#[test]
fn usage_errors_exit_2_and_data_errors_exit_1_in_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let existing = d.join("existing");
    std::fs::create_dir(&existing).unwrap();
    std::fs::write(d.join("exists.csv"), "key\n1\n").unwrap();
    std::fs::write(d.join("bad.csv"), "key,op\n1,get\n2,frobnicate\n").unwrap();
    let p = |name: &str| d.join(name).display().to_string();
    let twitter = fixture("traces/twitter_sample.csv").display().to_string();
    let never = p("never");
    std::fs::write(d.join("bad.tsv"), "a\tx\n").unwrap();
    let exists = p("exists.csv");
    let out = p("migration");
    // `shardlab migrate` of 4 shards with these options and keys, a 100-byte budget.
    fn migrate<'a>(out: &'a str, options: &[&'a str], keys: &'a str) -> Vec<&'a str> {
        let mut args = vec!["migrate", "--shards", "4", "--step-bytes", "100"];
        args.extend(["--bandwidth", "1MB", "--out", out, "--keys", keys]);
        args.extend(options);
        args
    }
    let cases: Vec<(Vec<String>, i32)> = [
        // run: usage
        (vec!["run", "--schemes", "btree"], 2),
        (vec!["run", "--schemes", "ring:vnodes=0"], 2),
        (vec!["run", "--schemes", ""], 2),
        (vec!["run", "--shards", "0"], 2),
        (vec!["run", "--grow=-20"], 2),
        (vec!["run", "--shards", "4", "--grow", "-4"], 2),
        (vec!["run", "--workload", "uniform", "--events", "0"], 2),
        (vec!["run", "--workload", "pareto"], 2),
        (vec!["run", "--workload", "zipf:s=-1"], 2),
        (vec!["run", "--out", &p("existing")], 2),
        // A trace is one recording: --repeat cannot draw it again (it was ignored).
        (vec!["run", "--trace", &twitter, "--repeat", "3"], 2),
        // run: data
        (vec!["run", "--trace", &p("missing.csv")], 1),
        (vec!["run", "--trace", &p("bad.csv")], 1),
        // plan: usage
        (vec!["plan", "--workload", "uniform", "--capacity", "10"], 2),
        (
            vec!["plan", "--rate", "5", "--capacity", "10", "--growth", "0"],
            2,
        ),
        (
            vec!["plan", "--rate", "5", "--capacity", "10", "--schemes", "x"],
            2,
        ),
        (vec!["plan", "--rate", "5", "--capacity", "0"], 2),
        (
            vec!["plan", "--rate", "5", "--capacity", "10", "--events", "0"],
            2,
        ),
        (
            vec!["plan", "--rate", "5", "--capacity", "10", "--current", "0"],
            2,
        ),
        // plan: data
        (
            vec!["plan", "--trace", &p("exists.csv"), "--capacity", "10"],
            1,
        ),
        // inspect
        (vec!["inspect", &twitter, "--op-map", "x=nope"], 2),
        (vec!["inspect", &twitter, "--top", "0"], 2),
        (vec!["inspect", &twitter, "--out", &p("existing")], 2),
        (vec!["inspect", &p("missing.csv")], 1),
        (vec!["inspect", &p("bad.csv")], 1),
        // gen
        (vec!["gen", "pareto", "-o", &p("g.csv")], 2),
        (
            vec!["gen", "uniform", "--events", "0", "-o", &p("g.csv")],
            2,
        ),
        (vec!["gen", "uniform", "-o", &p("exists.csv")], 2),
        (
            vec![
                "gen",
                "uniform:scans=0.1",
                "--format",
                "oracle-general",
                "-o",
                &p("g.bin"),
            ],
            2,
        ),
        (
            vec![
                "gen",
                "uniform",
                "--events",
                "10",
                "-o",
                &p("no/such/dir/g.csv"),
            ],
            1,
        ),
        // convert
        (vec!["convert", &twitter, "-o", &p("out.xyz")], 2),
        (vec!["convert", &twitter, "-o", &p("exists.csv")], 2),
        (vec!["convert", &p("missing.csv"), "-o", &p("c.csv")], 1),
        (vec!["convert", &p("bad.csv"), "-o", &p("c.csv")], 1),
        // route
        (vec!["route", "--schemes", "btree", "--shards", "4", "k"], 2),
        (vec!["route", "--schemes", "", "--shards", "4", "k"], 2),
        (vec!["route", "--schemes", "hash", "--shards", "0", "k"], 2),
        (
            vec![
                "route",
                "--schemes",
                "hash",
                "--shards",
                "4",
                "--keys",
                &p("missing.txt"),
            ],
            1,
        ),
        // migrate: usage
        (migrate(&out, &["--scheme", "ketama"], &exists), 2),
        (
            migrate(&out, &["--scheme", "btree", "--grow", "5"], &exists),
            2,
        ),
        (
            migrate(&out, &["--scheme", "kafka", "--grow", "5"], &exists),
            2,
        ),
        // migrate: data (no such file, a bad size, one key above the budget)
        (
            migrate(
                &out,
                &["--scheme", "ketama", "--grow", "5"],
                &p("missing.tsv"),
            ),
            1,
        ),
        (
            migrate(&out, &["--scheme", "ketama", "--grow", "5"], &p("bad.tsv")),
            1,
        ),
        (
            migrate(
                &out,
                &["--scheme", "ketama", "--grow", "5", "--key-bytes", "1000"],
                &exists,
            ),
            1,
        ),
        // report
        (vec!["report", &p("missing-run")], 1),
        (vec!["report"], 2),
    ]
    .into_iter()
    .map(|(args, code)| (args.into_iter().map(String::from).collect(), code))
    .collect();
    for (args, code) in cases {
        let mut cmd = shardlab();
        cmd.current_dir(d).args(&args);
        if matches!(args[0].as_str(), "run" | "plan") && !args.contains(&"--out".to_string()) {
            cmd.args(["--out", &never]);
        }
        if !matches!(args[0].as_str(), "report" | "route" | "migrate") {
            cmd.arg("--quiet");
        }
        let assert = cmd.assert().code(code);
        let stderr = stderr_of(&assert);
        assert!(
            !stderr.contains("panicked") && !stderr.trim().is_empty(),
            "{args:?}: {stderr}"
        );
        assert!(!Path::new(&never).exists(), "{args:?} wrote a report");
    }
}

#[test]
fn a_negative_grow_step_is_a_value_not_an_unknown_option() {
    // `--grow -1` (a documented shrink step) was refused as "unexpected argument '-1'".
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let args = [
        "run",
        "--workload",
        "uniform:keys=1000",
        "--events",
        "2000",
        "--shards",
        "4",
    ];
    shardlab()
        .args(args)
        .args([
            "--grow",
            "-1",
            "--schemes",
            "hash",
            "--quiet",
            "--no-latency",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let row = summary.lines().nth(1).unwrap();
    assert!(
        row.contains(",hash,4,events_measured,2000,events,3,"),
        "{row}"
    );
}

/// `inspect.csv` of `trace` (with `args`) as metric -> value.
fn inspect(trace: &Path, args: &[&str], out: &Path) -> BTreeMap<String, String> {
    shardlab()
        .arg("inspect")
        .arg(trace)
        .args(args)
        .args(["--quiet", "--out"])
        .arg(out)
        .assert()
        .success();
    csv::Reader::from_path(out.join("inspect.csv"))
        .unwrap()
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].to_string(), r[1].to_string())
        })
        .collect()
}

#[test]
fn a_generated_trace_inspects_with_its_integer_keys_without_key_type() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("seq.csv");
    shardlab()
        .args(["gen", "sequential", "--events", "5000", "--quiet", "-o"])
        .arg(&trace)
        .assert()
        .success();
    let header = std::fs::read_to_string(&trace).unwrap();
    assert!(header.starts_with("key:u64,"), "{}", &header[..40]);
    let plain = inspect(&trace, &[], &dir.path().join("a"));
    let typed = inspect(&trace, &["--key-type", "u64"], &dir.path().join("b"));
    // Every insert lands after all earlier keys: 1.0 only when keys are read as numbers
    // (as bytes, "10" < "9").
    assert_eq!(plain["monotonicity"], "1", "{plain:?}");
    let without_trace_name = |m: &BTreeMap<String, String>| {
        let mut m = m.clone();
        m.remove("trace");
        m
    };
    assert_eq!(without_trace_name(&plain), without_trace_name(&typed));
    let top = std::fs::read_to_string(dir.path().join("a/top_keys.csv")).unwrap();
    let first_key = top.lines().nth(1).unwrap().split(',').nth(1).unwrap();
    assert!(first_key.parse::<u64>().is_ok(), "{top}");
}

#[test]
fn plan_without_time_col_names_the_time_column_and_the_option() {
    let trace = fixture("traces/cloudPhysicsIO_2000.csv");
    let dir = tempfile::tempdir().unwrap();
    let assert = shardlab()
        .args([
            "plan",
            "--key-col",
            "lbn",
            "--op-col",
            "op",
            "--op-map",
            "28=get,2a=put",
        ])
        .args(["--capacity", "100", "--quiet", "--out"])
        .arg(dir.path().join("never"))
        .arg("--trace")
        .arg(&trace)
        .assert()
        .code(1);
    let stderr = stderr_of(&assert);
    assert!(
        stderr.contains("--time-col time") && stderr.contains("has no timestamp"),
        "{stderr}"
    );
    shardlab()
        .args([
            "plan",
            "--key-col",
            "lbn",
            "--op-col",
            "op",
            "--op-map",
            "28=get,2a=put",
        ])
        .args([
            "--time-col",
            "time",
            "--capacity",
            "100",
            "--quiet",
            "--out",
        ])
        .arg(dir.path().join("plan"))
        .arg("--trace")
        .arg(&trace)
        .assert()
        .success();
}

#[test]
fn runs_started_at_the_same_moment_get_their_own_default_directories() {
    let dir = tempfile::tempdir().unwrap();
    let start = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_shardlab"))
            .current_dir(dir.path())
            .args(["run", "--workload", "uniform:keys=100", "--events", "2000"])
            .args(["--schemes", "hash", "--no-latency", "--quiet"])
            .spawn()
            .unwrap()
    };
    let children: Vec<_> = (0..3).map(|_| start()).collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let runs: Vec<_> = std::fs::read_dir(dir.path().join("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 3, "{runs:?}");
    assert!(runs.iter().all(|r| r.join("summary.csv").is_file()));
}

#[test]
fn the_report_shows_the_options_given_and_folds_the_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    shardlab()
        .args(["run", "--workload", "uniform:keys=100", "--events", "2000"])
        .args(["--schemes", "hash", "--no-latency", "--quiet", "--out"])
        .arg(&out)
        .assert()
        .success();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let (shown, folded) = md
        .split_once("<details>")
        .unwrap_or_else(|| panic!("nothing folded:\n{md}"));
    for given in ["run.events", "run.schemes", "run.no\\_latency"] {
        assert!(
            shown.contains(&format!("parameter {given} ")),
            "{given}:\n{shown}"
        );
    }
    for default in ["run.window", "run.seed", "run.key\\_type", "run.force"] {
        assert!(
            !shown.contains(&format!("parameter {default} ")),
            "{default}:\n{shown}"
        );
        assert!(
            folded.contains(&format!("parameter {default} ")),
            "{default}"
        );
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("<details>\n<summary>") && html.contains("more options, at their defaults")
    );
}

#[test]
fn a_run_without_warm_up_says_which_schemes_learn_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let run = |warmup: &str| {
        let assert = shardlab()
            .args(["run", "--workload", "uniform:keys=1000", "--events", "2000"])
            .args(["--schemes", "range,hash", "--quiet", "--no-latency"])
            .args(["--warmup", warmup, "--out"])
            .arg(dir.path().join(format!("out-{warmup}")))
            .assert()
            .success();
        stderr_of(&assert)
    };
    let warned = run("0");
    assert!(
        warned.contains("warning: --warmup 0 leaves range without a warm-up"),
        "{warned}"
    );
    assert!(!run("0.1").contains("warning"));
}

#[test]
fn inspect_shows_the_smallest_and_largest_time_when_timestamps_go_backwards() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("back.csv");
    std::fs::write(&trace, "timestamp,key\n100,a\n50,b\n300,c\n200,d\n").unwrap();
    let shown = stdout_of(&shardlab().arg("inspect").arg(&trace).assert().success());
    assert!(
        shown.contains("100 .. 200; min 50 .. max 300 (250 trace units)")
            && shown.contains("2 go backwards"),
        "{shown}"
    );
    let ordered = dir.path().join("ordered.csv");
    std::fs::write(&ordered, "timestamp,key\n100,a\n300,b\n").unwrap();
    let shown = stdout_of(&shardlab().arg("inspect").arg(&ordered).assert().success());
    assert!(shown.contains("100 .. 300 (200 trace units)"), "{shown}");
}
