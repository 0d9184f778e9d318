//! The Dask driver (`scripts/shardlab_dask.py`) on a `LocalCluster` of 2 workers, through its
//! Python checks (`scripts/test_shardlab_dask.py`). Python with `dask` and `distributed` is
//! looked for as `$SHARDLAB_PYTHON`, then `target/dask-venv/bin/python` (where `.ci/run`
//! installs `scripts/requirements-dask.txt`), then `python3`; without them the test prints a
//! SKIPPED line, or fails when `SHARDLAB_REQUIRE_DASK=1` (as `.ci/run` sets).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The repository root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A Python that imports `dask.distributed`, if any.
fn python() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("SHARDLAB_PYTHON").map(PathBuf::from),
        Some(repo().join("target/dask-venv/bin/python")),
        Some(PathBuf::from("python3")),
    ];
    candidates.into_iter().flatten().find(|p| {
        Command::new(p)
            .args(["-c", "import dask.distributed"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// Runs one check of `scripts/test_shardlab_dask.py`, or skips it without Dask.
fn check(name: &str) {
    let Some(python) = python() else {
        assert!(
            std::env::var("SHARDLAB_REQUIRE_DASK").as_deref() != Ok("1"),
            "SHARDLAB_REQUIRE_DASK=1 but no Python with dask and distributed was found \
             (pip install -r scripts/requirements-dask.txt, or run .ci/run)"
        );
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED dask {name}: no Python with dask and distributed (pip install -r \
             scripts/requirements-dask.txt, or set SHARDLAB_PYTHON); set SHARDLAB_REQUIRE_DASK=1 \
             to fail instead"
        );
        return;
    };
    let out = Command::new(&python)
        .arg(repo().join("scripts/test_shardlab_dask.py"))
        .arg(name)
        .env("SHARDLAB", assert_cmd::cargo::cargo_bin("shardlab"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} scripts/test_shardlab_dask.py {name} failed ({}):\n{}\n{}",
        python.display(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_dask_driver_runs_each_part_on_its_share() {
    check("parts");
}

#[test]
fn the_dask_driver_gives_the_summary_of_a_single_run() {
    check("merge");
}
