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
