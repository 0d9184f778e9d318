//! What the end-to-end tests of the `shardlab` binary share: the command, the fixtures, and
//! reading what a finished command printed and wrote.

#![allow(dead_code)] // each test file uses a part

use std::path::{Path, PathBuf};

use assert_cmd::assert::Assert;
use assert_cmd::Command;

/// The rows of `file` in run directory `out` as maps from column to cell.
pub fn table(out: &Path, file: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    let text = std::fs::read_to_string(out.join(file)).unwrap();
    let rows = csv_rows(&text);
    let head = &rows[0];
    rows[1..]
        .iter()
        .map(|r| head.iter().cloned().zip(r.iter().cloned()).collect())
        .collect()
}

/// The value of `metric` in `out`'s `summary.csv` (its first row of that metric).
pub fn summary_metric(out: &Path, metric: &str) -> f64 {
    let row = table(out, "summary.csv")
        .into_iter()
        .find(|r| r["metric"] == metric)
        .unwrap_or_else(|| panic!("no {metric}"));
    row["value"].parse().unwrap()
}

/// Column `name` of every row, as numbers.
pub fn column(rows: &[std::collections::BTreeMap<String, String>], name: &str) -> Vec<f64> {
    rows.iter().map(|r| r[name].parse().unwrap()).collect()
}

/// Each `(scheme, named)` of `cases`, run on 4 shards, is a usage error (exit 2) whose message
/// contains `named` (the bad parameter).
pub fn assert_bad_schemes(cases: &[(&str, &str)]) {
    let dir = tempfile::tempdir().unwrap();
    for (scheme, name) in cases {
        let assert = shardlab()
            .args(["run", "--workload", "zipf:keys=100", "--events", "1000"])
            .args(["--shards", "4", "--schemes", scheme, "--quiet", "--out"])
            .arg(dir.path().join("bad"))
            .assert()
            .code(2);
        let err = stderr_of(&assert);
        assert!(err.contains(name), "{scheme}: {err}");
    }
}

/// The `shardlab` binary of this build, ready for arguments.
pub fn shardlab() -> Command {
    Command::cargo_bin("shardlab").expect("the shardlab binary is built")
}

/// A file or folder under the repository's `tests/fixtures`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(name)
}

/// What a finished command printed on standard output.
pub fn stdout_of(assert: &Assert) -> String {
    String::from_utf8_lossy(&assert.get_output().stdout).to_string()
}

/// What a finished command printed on standard error.
pub fn stderr_of(assert: &Assert) -> String {
    String::from_utf8_lossy(&assert.get_output().stderr).to_string()
}

/// The `manifest.json` of a run directory.
pub fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap()
}

/// The rows of a CSV text, header first, as strings.
pub fn csv_rows(text: &str) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes())
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect()
}

/// The file's text without the rows of metrics that measure time (its records are one line
/// each: no field holds a line break).
pub fn without_timing(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let metric = reader.headers().unwrap().iter().position(|c| c == "metric");
    let timing: Vec<bool> = reader
        .records()
        .map(|r| metric.is_some_and(|i| engine::metrics::is_timing(&r.unwrap()[i])))
        .collect();
    let mut lines = text.lines();
    let mut kept = format!("{}\n", lines.next().unwrap_or_default());
    for (line, timing) in lines.zip(timing) {
        if !timing {
            kept += line;
            kept.push('\n');
        }
    }
    kept
}

/// Processes started by a test (servers, proxies); killed and reaped when dropped, even when
/// the test fails.
pub struct Daemons(pub Vec<std::process::Child>);

impl Drop for Daemons {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A free loopback port, never one this test process handed out before: the kernel may give a
/// port back as soon as its probe closes, and the tests of one binary run at once, so two
/// daemons (a backend of one test, a proxy of another) could otherwise be told the same port
/// and one of them fail to bind it.
pub fn free_port() -> u16 {
    static GIVEN: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    let mut given = GIVEN.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
    }
}

/// True when `program ARG` runs and succeeds.
pub fn runs(program: &str, arg: &str) -> bool {
    std::process::Command::new(program)
        .arg(arg)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A Python that imports every library of `scripts/requirements-systems.txt`, if any.
fn systems_python() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("SHARDLAB_SYSTEMS_PYTHON").map(PathBuf::from),
        Some(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join("target/systems-venv/bin/python"),
        ),
    ];
    candidates.into_iter().flatten().find(|p| {
        std::process::Command::new(p)
            .args([
                "-c",
                "import uhashring, memcache, pymemcache, xxhash, pyarrow",
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// The Python to use, or `None` after printing why the test `name` is skipped (failing
/// instead when `SHARDLAB_REQUIRE_CLIENTS=1`).
pub fn systems_python_or_skip(name: &str) -> Option<PathBuf> {
    let found = systems_python();
    if found.is_none() {
        assert!(
            std::env::var("SHARDLAB_REQUIRE_CLIENTS").as_deref() != Ok("1"),
            "SHARDLAB_REQUIRE_CLIENTS=1 but no Python with the client libraries was found \
             (python3 -m venv target/systems-venv && target/systems-venv/bin/pip install -r \
             scripts/requirements-systems.txt, or run .ci/run)"
        );
        let _ = std::io::Write::write_fmt(
            &mut std::io::stderr(),
            format_args!(
            "SKIPPED {name}: no Python with uhashring, python-memcached, pymemcache, xxhash and pyarrow \
             (pip install -r scripts/requirements-systems.txt into target/systems-venv, or set \
             SHARDLAB_SYSTEMS_PYTHON); set SHARDLAB_REQUIRE_CLIENTS=1 to fail instead\n"
            ),
        );
    }
    found
}
