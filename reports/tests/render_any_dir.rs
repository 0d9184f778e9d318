//! Renders the run directory named by `SHARDLAB_RENDER_DIR` (a developer's check, ignored by
//! default): `SHARDLAB_RENDER_DIR=results/x cargo test -p reports --test render_any_dir -- --ignored`.

#[test]
#[ignore = "needs SHARDLAB_RENDER_DIR"]
fn renders_the_directory_named_by_the_environment() {
    let dir = std::env::var("SHARDLAB_RENDER_DIR").expect("set SHARDLAB_RENDER_DIR");
    let written = reports::report::render_dir(std::path::Path::new(&dir)).unwrap();
    for p in written {
        println!("{}", p.display());
    }
}

mod common;

/// Writes the tests' sample run (a sweep with range dynamics) to `SHARDLAB_SAMPLE_DIR` and
/// renders it, to look at: `SHARDLAB_SAMPLE_DIR=/tmp/sample cargo test -p reports --test
/// render_any_dir -- --ignored`.
#[test]
#[ignore = "needs SHARDLAB_SAMPLE_DIR"]
fn renders_the_sample_run_into_the_directory_named_by_the_environment() {
    let dir = std::env::var("SHARDLAB_SAMPLE_DIR").expect("set SHARDLAB_SAMPLE_DIR");
    let dir = std::path::Path::new(&dir);
    common::write_run(dir, common::Variant::MonotonicHotSpot);
    reports::report::render_dir(dir).unwrap();
}
