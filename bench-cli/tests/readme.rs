//! The README's examples run as written: every line of a ```` ```sh ```` block that calls
//! `shardlab` is run with `sh`, in a scratch directory where `tests/` is the repository's
//! (so the fixture paths resolve) and `shardlab` is this build's binary. The lines of one
//! block run in order (a later line may read what an earlier one wrote). Lines without
//! `shardlab` (the `cargo` commands) are left out, and so are other block kinds (```` ```text
//! ```` holds synopses and output).
//!
//! To stay fast, a `run`, `plan` or `gen` of synthetic workloads without `--events` gets
//! `--events 20000` appended; nothing else is changed.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The README of the repository.
fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    std::fs::read_to_string(path).unwrap()
}

/// The `sh` blocks of a Markdown text, each as its lines.
fn sh_blocks(markdown: &str) -> Vec<Vec<String>> {
    /// Where the reader is: outside blocks, in an `sh` block, or in another block.
    enum At {
        Text,
        Sh(Vec<String>),
        Other,
    }
    let mut blocks = Vec::new();
    let mut at = At::Text;
    for line in markdown.lines() {
        let fence = line.trim_start().starts_with("```");
        at = match (at, fence) {
            (At::Text, true) if line.trim_start().trim_start_matches('`').trim() == "sh" => {
                At::Sh(Vec::new())
            }
            (At::Text, true) => At::Other,
            (At::Sh(lines), true) => {
                blocks.push(lines);
                At::Text
            }
            (At::Other, true) => At::Text,
            (At::Sh(mut lines), false) => {
                lines.push(line.to_string());
                At::Sh(lines)
            }
            (other, false) => other,
        };
    }
    blocks
}

/// The commands of a block that call `shardlab`, without trailing comments.
fn shardlab_lines(block: &[String]) -> Vec<String> {
    block
        .iter()
        .map(|l| match l.find(" #") {
            Some(i) => l[..i].trim().to_string(),
            None => l.trim().to_string(),
        })
        .filter(|l| l.starts_with("shardlab ") || l.contains("| shardlab "))
        .collect()
}

/// `line` with `--events 20000` appended when it replays or records synthetic workloads
/// without saying how many events.
fn fast(line: &str) -> String {
    let words: Vec<&str> = line.split_whitespace().collect();
    let command = words
        .iter()
        .position(|w| *w == "shardlab")
        .and_then(|i| words.get(i + 1));
    let synthetic = matches!(command, Some(&"run") | Some(&"plan") | Some(&"gen"))
        && !words.contains(&"--trace")
        && !words.contains(&"--help");
    if synthetic && !words.contains(&"--events") && !words.contains(&"-e") {
        format!("{line} --events 20000")
    } else {
        line.to_string()
    }
}

/// A directory holding only a `shardlab` link to this build's binary, for `PATH`.
fn bin_dir(scratch: &Path) -> PathBuf {
    let bin = scratch.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_shardlab"));
    std::os::unix::fs::symlink(exe, bin.join("shardlab")).unwrap();
    bin
}

#[test]
fn the_readme_has_examples_of_every_subcommand() {
    let lines: Vec<String> = sh_blocks(&readme())
        .iter()
        .flat_map(|b| shardlab_lines(b))
        .collect();
    for sub in [
        "run",
        "inspect",
        "gen",
        "convert",
        "plan",
        "report",
        "route",
        "completions",
        "man",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.contains(&format!("shardlab {sub} "))),
            "no tested README example of `shardlab {sub}`: {lines:#?}"
        );
    }
    // A command in a block without a kind is neither run nor marked as a synopsis.
    let mut kind: Option<String> = None;
    for line in readme().lines() {
        let t = line.trim_start();
        if t.starts_with("```") {
            kind = match kind {
                None => Some(t.trim_start_matches('`').trim().to_string()),
                Some(_) => None,
            };
        } else if kind.as_deref() == Some("") {
            assert!(
                !t.starts_with("shardlab ") && !t.contains("| shardlab "),
                "a README command in a block that is neither `sh` (tested) nor `text`: {line}"
            );
        }
    }
    assert_eq!(fast("shardlab run"), "shardlab run --events 20000");
    assert_eq!(
        fast("shardlab run --trace t.csv --shards 4"),
        "shardlab run --trace t.csv --shards 4"
    );
}

#[test]
fn every_readme_example_runs_as_written() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let scratch = tempfile::tempdir().unwrap();
    let work = scratch.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::os::unix::fs::symlink(
        repo.join("tests").canonicalize().unwrap(),
        work.join("tests"),
    )
    .unwrap();
    let path = format!(
        "{}:{}",
        bin_dir(scratch.path()).display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    for block in sh_blocks(&readme()) {
        for line in shardlab_lines(&block) {
            let line = fast(&line);
            let out = Command::new("sh")
                .args(["-c", &format!("set -e; {line}")])
                .current_dir(&work)
                .env("PATH", &path)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "README example failed ({}): {line}\nstdout:\n{}\nstderr:\n{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            ran += 1;
        }
    }
    assert!(ran >= 15, "only {ran} README examples found");
}
