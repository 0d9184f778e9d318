//! The one output rule (issue 35, item 1): `--force` replaces regular files only. A FIFO or
//! device is written in place and stays what it was, a symbolic link stays a link (the file it
//! names is replaced), and new files follow the umask. Each case runs `gen` and `convert` (the
//! commands that write a single file) and a report file through `inspect --out`.

mod common;

use std::fs;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;

use common::{fixture, shardlab};

/// Makes a FIFO at `path` with `mkfifo`.
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

/// Runs `shardlab args` while another thread reads `fifo`; returns what it read.
fn through_fifo(fifo: &Path, args: &[&str]) -> Vec<u8> {
    let reader = {
        let fifo = fifo.to_path_buf();
        std::thread::spawn(move || fs::read(fifo).unwrap())
    };
    shardlab().args(args).assert().success();
    // Checked before joining: a reader of a FIFO that was replaced would wait forever.
    assert!(
        fs::symlink_metadata(fifo).unwrap().file_type().is_fifo(),
        "{args:?} replaced the FIFO"
    );
    reader.join().unwrap()
}

#[test]
fn gen_and_convert_write_into_a_fifo_and_leave_it_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("trace.fifo");
    mkfifo(&fifo);
    let f = fifo.to_str().unwrap();
    for format in ["csv", "oracle-general"] {
        let bytes = through_fifo(
            &fifo,
            &[
                "gen", "zipf", "--events", "10", "--format", format, "-o", f, "--force",
            ],
        );
        assert!(!bytes.is_empty(), "{format}: nothing came through the FIFO");
        if format == "oracle-general" {
            assert_eq!(bytes.len(), 10 * 24, "ten whole records");
        }
    }
    // Without --force too: writing into a FIFO replaces nothing.
    let csv = through_fifo(
        &fifo,
        &[
            "gen", "uniform", "--events", "5", "--format", "csv", "-o", f,
        ],
    );
    assert_eq!(String::from_utf8(csv).unwrap().lines().count(), 6);
    let trace = fixture("exact_trace.csv");
    let converted = through_fifo(
        &fifo,
        &[
            "convert",
            trace.to_str().unwrap(),
            "--key-type",
            "u64",
            "--format",
            "csv",
            "-o",
            f,
            "--force",
        ],
    );
    assert!(converted.starts_with(b"key"), "a csv header first");
    let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1, "no staged file left beside the FIFO");
}

#[test]
fn a_symlink_stays_a_link_and_the_file_it_names_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.csv");
    fs::write(&real, "old").unwrap();
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    shardlab()
        .args(["gen", "zipf", "--events", "10", "-o"])
        .arg(&link)
        .arg("--force")
        .assert()
        .success();
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(fs::read_to_string(&real).unwrap().starts_with("key"));
    // A link to nothing is refused (exit 1) and creates nothing.
    let dangling = dir.path().join("dangling.csv");
    std::os::unix::fs::symlink(dir.path().join("missing.csv"), &dangling).unwrap();
    shardlab()
        .args(["gen", "zipf", "--events", "10", "-o"])
        .arg(&dangling)
        .assert()
        .code(1);
    assert!(!dir.path().join("missing.csv").exists());
}

#[test]
fn outputs_are_created_with_the_umask_like_any_file() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.csv");
    let out = dir.path().join("inspected");
    // The test's own umask decides; the run directory's files and the trace must agree with
    // a file the test creates itself.
    let probe = dir.path().join("probe");
    fs::write(&probe, "").unwrap();
    let expected = fs::metadata(&probe).unwrap().permissions().mode() & 0o777;
    shardlab()
        .args(["gen", "zipf", "--events", "10", "-o"])
        .arg(&trace)
        .assert()
        .success();
    shardlab()
        .args(["inspect", "--quiet"])
        .arg(&trace)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    for file in [trace, out.join("inspect.csv")] {
        let mode = fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, expected, "{}: mode {mode:o}", file.display());
    }
}

#[test]
fn a_report_file_that_is_a_fifo_is_written_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.csv");
    shardlab()
        .args(["gen", "zipf", "--events", "10", "-o"])
        .arg(&trace)
        .assert()
        .success();
    let out = dir.path().join("inspected");
    fs::create_dir(&out).unwrap();
    let fifo = out.join("top_keys.csv");
    mkfifo(&fifo);
    let bytes = through_fifo(
        &fifo,
        &[
            "inspect",
            "--quiet",
            trace.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--force",
        ],
    );
    assert!(
        bytes.starts_with(b"rank"),
        "{}",
        String::from_utf8_lossy(&bytes)
    );
}
