//! The examples of the README and of every page of `docs/` run as written: every line of a
//! ```` ```sh ```` block that calls `shardlab` is run with `sh`, in a scratch directory where `tests/` is the repository's
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

/// The repository's root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The README of the repository.
fn readme() -> String {
    std::fs::read_to_string(repo().join("README.md")).unwrap()
}

/// The documents whose examples are tested, each as its path from the repository's root and
/// its text: `README.md`, then every `docs/*.md` in name order.
fn documents() -> Vec<(String, String)> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    assert!(pages.len() >= 10, "docs/ holds only {pages:?}");
    let mut docs = vec![("README.md".to_string(), readme())];
    for page in pages {
        let name = format!("docs/{}", page.file_name().unwrap().to_string_lossy());
        docs.push((name, std::fs::read_to_string(&page).unwrap()));
    }
    docs
}

/// The `sh` blocks of a Markdown text, each as its lines.
fn sh_blocks(markdown: &str) -> Vec<Vec<String>> {
    sh_blocks_at(markdown).into_iter().map(|(_, b)| b).collect()
}

/// The `sh` blocks of a Markdown text, each as the line number of its opening fence and its
/// lines.
fn sh_blocks_at(markdown: &str) -> Vec<(usize, Vec<String>)> {
    /// Where the reader is: outside blocks, in an `sh` block (opened on a line), or in
    /// another block.
    enum At {
        Text,
        Sh(usize, Vec<String>),
        Other,
    }
    let mut blocks = Vec::new();
    let mut at = At::Text;
    for (i, line) in markdown.lines().enumerate() {
        let fence = line.trim_start().starts_with("```");
        at = match (at, fence) {
            (At::Text, true) if line.trim_start().trim_start_matches('`').trim() == "sh" => {
                At::Sh(i + 1, Vec::new())
            }
            (At::Text, true) => At::Other,
            (At::Sh(start, lines), true) => {
                blocks.push((start, lines));
                At::Text
            }
            (At::Other, true) => At::Text,
            (At::Sh(start, mut lines), false) => {
                lines.push(line.to_string());
                At::Sh(start, lines)
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
fn the_readme_and_docs_have_examples_of_every_subcommand() {
    let docs = documents();
    let lines: Vec<String> = docs
        .iter()
        .flat_map(|(_, text)| sh_blocks(text))
        .flat_map(|b| shardlab_lines(&b))
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
        "migrate",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.contains(&format!("shardlab {sub} "))),
            "no tested example of `shardlab {sub}` in README.md or docs/: {lines:#?}"
        );
    }
    // The README's own examples: run, inspect, plan, route and a sweep over shard counts.
    let readme: Vec<String> = sh_blocks(&readme())
        .iter()
        .flat_map(|b| shardlab_lines(b))
        .collect();
    for sub in ["run", "inspect", "plan", "route"] {
        assert!(
            readme
                .iter()
                .any(|l| l.contains(&format!("shardlab {sub} "))),
            "no tested README example of `shardlab {sub}`: {readme:#?}"
        );
    }
    assert!(
        readme
            .iter()
            .any(|l| l.contains("shardlab run ") && l.contains("--shards ") && l.contains(',')),
        "no tested README example of a sweep over shard counts: {readme:#?}"
    );
    // A command in a block without a kind is neither run nor marked as a synopsis.
    for (name, text) in &docs {
        let mut kind: Option<String> = None;
        for (i, line) in text.lines().enumerate() {
            let t = line.trim_start();
            if t.starts_with("```") {
                kind = match kind {
                    None => Some(t.trim_start_matches('`').trim().to_string()),
                    Some(_) => None,
                };
            } else if kind.as_deref() == Some("") {
                assert!(
                    !t.starts_with("shardlab ") && !t.contains("| shardlab "),
                    "{name}:{}: a command in a block that is neither `sh` (tested) nor `text`: {line}",
                    i + 1
                );
            }
        }
    }
    assert_eq!(fast("shardlab run"), "shardlab run --events 20000");
    assert_eq!(
        fast("shardlab run --trace t.csv --shards 4"),
        "shardlab run --trace t.csv --shards 4"
    );
}

/// Runs every `shardlab` line of every `sh` block of the document `name` in order, in a
/// scratch directory of its own; the error names the file, the block's line and the command
/// that failed.
fn run_examples(name: &str, text: &str) -> Result<usize, String> {
    let scratch = tempfile::tempdir().unwrap();
    let work = scratch.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::os::unix::fs::symlink(
        repo().join("tests").canonicalize().unwrap(),
        work.join("tests"),
    )
    .unwrap();
    let path = format!(
        "{}:{}",
        bin_dir(scratch.path()).display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    for (block_line, block) in sh_blocks_at(text) {
        for line in shardlab_lines(&block) {
            let line = fast(&line);
            let out = Command::new("sh")
                .args(["-c", &format!("set -e; {line}")])
                .current_dir(&work)
                .env("PATH", &path)
                .output()
                .unwrap();
            if !out.status.success() {
                return Err(format!(
                    "{name}: the example in the `sh` block at line {block_line} failed ({}): {line}\nstdout:\n{}\nstderr:\n{}",
                    out.status,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            ran += 1;
        }
    }
    Ok(ran)
}

#[test]
fn every_readme_and_docs_example_runs_as_written() {
    let mut ran = 0;
    for (name, text) in documents() {
        ran += run_examples(&name, &text).unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(
        ran >= 20,
        "only {ran} examples found in README.md and docs/"
    );
}

#[test]
fn a_failing_example_fails_the_test_naming_its_file_and_block() {
    let page = "# A page\n\n```sh\nshardlab route --schemes hash --shards 4 k1\n```\n\n```sh\nshardlab run --no-such-option\n```\n";
    let err = run_examples("docs/broken.md", page).unwrap_err();
    assert!(
        err.starts_with("docs/broken.md: the example in the `sh` block at line 7 failed"),
        "{err}"
    );
    assert!(
        err.contains("shardlab run --no-such-option --events 20000"),
        "{err}"
    );
}
