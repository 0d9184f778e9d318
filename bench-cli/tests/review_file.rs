//! A review as a file (`run --config`), shell completions and the man pages (issue 31).

mod common;

use std::fs;
use std::path::Path;
use std::process::Command as Process;

use common::{manifest, shardlab, stderr_of, without_timing};

/// The CSV files of a run directory, by name, without their timing rows (the manifest
/// differs between any two runs).
fn csv_files(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, without_timing(&p))
        })
        .collect();
    files.sort();
    files
}

const REVIEW: &str = r#"# the review of 2026-12-03
workload = ["zipf:s=1.1,keys=5000", "uniform:keys=5000"]
events = 20000
schemes = ["hash", "ring:vnodes=32", "range"]
shards = [4, 8]
grow = ["+1", "x2"]
seed = 7
window = 2000
no_latency = true
quiet = true
"#;

#[test]
fn a_config_file_gives_the_csv_of_the_same_options_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("review.toml");
    fs::write(&config, REVIEW).unwrap();
    let from_file = dir.path().join("from-file");
    shardlab()
        .args(["run", "--config"])
        .arg(&config)
        .arg("--out")
        .arg(&from_file)
        .assert()
        .success();
    let from_flags = dir.path().join("from-flags");
    shardlab()
        .args([
            "run",
            "--workload",
            "zipf:s=1.1,keys=5000",
            "--workload",
            "uniform:keys=5000",
            "--events",
            "20000",
            "--schemes",
            "hash,ring:vnodes=32,range",
            "--shards",
            "4,8",
            "--grow",
            "+1,x2",
            "--seed",
            "7",
            "--window",
            "2000",
            "--no-latency",
            "--quiet",
            "--out",
        ])
        .arg(&from_flags)
        .assert()
        .success();
    let (a, b) = (csv_files(&from_file), csv_files(&from_flags));
    let names = |files: &[(String, String)]| files.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert!(a.len() >= 4, "{:?}", names(&a));
    assert_eq!(names(&a), names(&b));
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{name} differs between --config and the same flags");
    }
    // The file is kept with the run, and the manifest names it with its checksum.
    assert_eq!(
        fs::read_to_string(from_file.join("config.toml")).unwrap(),
        REVIEW
    );
    let inputs = manifest(&from_file)["inputs"].clone();
    let entry = inputs
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["format"] == "config")
        .expect("the config file among the inputs");
    assert_eq!(entry["bytes"], REVIEW.len());
    assert_eq!(
        entry["xxh3_128"].as_str().unwrap(),
        format!("{:032x}", xxhash_rust::xxh3::xxh3_128(REVIEW.as_bytes()))
    );
}

#[test]
fn the_command_line_wins_and_bad_files_are_usage_errors_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("review.toml");
    fs::write(
        &config,
        "workload = \"uniform:keys=100\"\nevents = 1000\nshards = 2\n",
    )
    .unwrap();
    let out = dir.path().join("run");
    shardlab()
        .args([
            "run",
            "--quiet",
            "--no-latency",
            "--shards",
            "3",
            "--config",
        ])
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let shards = fs::read_to_string(out.join("shards.csv")).unwrap();
    assert!(shards.lines().any(|l| l.contains(",3,")), "3 shards, not 2");

    fs::write(&config, "events = 1000\nshard = 4\n").unwrap();
    let assert = shardlab()
        .args(["run", "--config"])
        .arg(&config)
        .assert()
        .code(2);
    let err = stderr_of(&assert);
    assert!(
        err.contains("review.toml:2: 'shard' is not an option"),
        "{err}"
    );
    fs::write(&config, "events = [1000\n").unwrap();
    let err = stderr_of(
        &shardlab()
            .args(["run", "--config"])
            .arg(&config)
            .assert()
            .code(2),
    );
    assert!(err.contains("review.toml:"), "{err}");
    let missing = dir.path().join("missing.toml");
    let err = stderr_of(
        &shardlab()
            .args(["run", "--config"])
            .arg(&missing)
            .assert()
            .code(1),
    );
    assert!(err.contains("cannot read the configuration"), "{err}");
}

#[test]
fn bash_completions_source_cleanly_and_complete_subcommands() {
    let script = shardlab().args(["completions", "bash"]).output().unwrap();
    assert!(script.status.success());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("shardlab.bash");
    fs::write(&file, &script.stdout).unwrap();
    // Source it, then ask the completion function for the words after `shardlab r`.
    let probe = format!(
        "set -e; source '{}'; complete -p shardlab; COMP_WORDS=(shardlab r); COMP_CWORD=1; \
         _shardlab shardlab r shardlab; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        file.display()
    );
    let out = Process::new("bash").args(["-c", &probe]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for word in ["run", "report", "route"] {
        assert!(stdout.lines().any(|l| l == word), "no '{word}' in {stdout}");
    }
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        shardlab().args(["completions", shell]).assert().success();
    }
    shardlab().args(["completions", "tcsh"]).assert().code(2);
}

#[test]
fn man_pages_render_for_shardlab_and_each_subcommand() {
    let main = shardlab().args(["man"]).output().unwrap();
    assert!(main.status.success());
    let roff = String::from_utf8(main.stdout).unwrap();
    assert!(roff.contains(".TH shardlab 1"), "{roff}");
    assert!(
        roff.contains("shardlab\\-run(1)") || roff.contains("run"),
        "lists subcommands"
    );
    shardlab().args(["man", "nope"]).assert().code(2);
    let have_man = Process::new("man").arg("--version").output().is_ok();
    if !have_man {
        assert!(
            std::env::var_os("SHARDLAB_REQUIRE_MAN").is_none(),
            "SHARDLAB_REQUIRE_MAN is set but `man` is missing"
        );
        eprintln!("SKIPPED: rendering the man pages needs `man` (apt-get install man-db)");
    }
    for sub in ["", "run", "plan", "route", "merge"] {
        let mut cmd = shardlab();
        cmd.arg("man");
        if !sub.is_empty() {
            cmd.arg(sub);
        }
        let page = cmd.output().unwrap();
        assert!(page.status.success(), "man {sub}");
        if !have_man {
            continue;
        }
        let file = tempfile::NamedTempFile::new().unwrap();
        fs::write(file.path(), &page.stdout).unwrap();
        let shown = Process::new("man")
            .arg("-l")
            .arg(file.path())
            .env("MANPAGER", "cat")
            .env("MANWIDTH", "100")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&shown.stdout);
        assert!(shown.status.success(), "man -l {sub}");
        assert!(
            text.contains("SYNOPSIS") && text.contains("OPTIONS"),
            "{text}"
        );
        if sub == "run" {
            assert!(text.contains("--config"), "{text}");
        }
    }
}
