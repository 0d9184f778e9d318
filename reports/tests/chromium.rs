//! `report.html` opened in headless Chromium (Debian's `chromium` package): no console error,
//! every chart rendered, and screenshots saved under `target/test-artifacts/` (`report.png`,
//! the first 2,000 pixels; `report-full.png`, the whole page with every chart).
//!
//! Skipped when Chromium is not installed, with a `SKIPPED:` line on stderr that the test
//! harness does not hide, unless `SHARDLAB_REQUIRE_CHROMIUM` is set (CI sets it, so the test
//! cannot skip there).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest one Chromium invocation may take.
const TIMEOUT: Duration = Duration::from_secs(120);

fn chromium() -> Option<PathBuf> {
    let candidates = [
        PathBuf::from("/usr/bin/chromium"),
        PathBuf::from("/usr/bin/chromium-browser"),
    ];
    candidates.into_iter().find(|p| p.is_file())
}

/// Where test artifacts go: `<target dir>/test-artifacts`.
fn artifacts_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("test-artifacts")
}

/// Runs Chromium headless with the flags this machine's closed network needs; returns
/// (stdout, stderr).
fn run_chromium(binary: &Path, profile: &Path, extra: &[String], page: &Path) -> (String, String) {
    let mut child = Command::new(binary)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=10000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start chromium");
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut out, &mut s).ok();
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut err, &mut s).ok();
        s
    });
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > TIMEOUT {
            child.kill().ok();
            child.wait().ok();
            panic!("chromium did not finish within {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    (out_reader.join().unwrap(), err_reader.join().unwrap())
}

/// The value of `name="..."` in the `<body>` tag of a dumped DOM.
fn body_attribute<'a>(dom: &'a str, name: &str) -> Option<&'a str> {
    let body = &dom[dom.find("<body")?..];
    let tag = &body[..body.find('>')?];
    let start = tag.find(&format!("{name}=\""))? + name.len() + 2;
    Some(&tag[start..start + tag[start..].find('"')?])
}

/// Console messages Chromium logged for the page that are errors.
fn console_errors(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.contains("CONSOLE") || l.contains("Uncaught"))
        .filter(|l| {
            let l = l.to_ascii_lowercase();
            l.contains("error") || l.contains("uncaught") || l.contains("failed")
        })
        .collect()
}

#[test]
fn the_report_renders_in_headless_chromium_without_errors() {
    let Some(binary) = chromium() else {
        if std::env::var_os("SHARDLAB_REQUIRE_CHROMIUM").is_some() {
            panic!("SHARDLAB_REQUIRE_CHROMIUM is set but /usr/bin/chromium is missing (apt-get install -y chromium)");
        }
        // Written to the process's stderr, not through `eprintln!`, which the test harness
        // captures and hides for a passing test: a skip must be seen. (Whether Chromium is
        // installed is known only at run time, so the test cannot be marked `#[ignore]`.)
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr().lock(),
            "\nSKIPPED: the_report_renders_in_headless_chromium_without_errors: chromium not \
             found; install it with `apt-get install chromium`, or run .ci/run (which installs \
             it and sets SHARDLAB_REQUIRE_CHROMIUM=1 so that a missing browser fails)\n"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    common::write_run(&run, common::Variant::MonotonicHotSpot);
    reports::report::render_dir(&run).unwrap();
    let page = run.join("report.html");
    let figures = common::expected_chart_stems().len();

    let (dom, stderr) = run_chromium(
        &binary,
        &dir.path().join("profile-dom"),
        &["--dump-dom".into()],
        &page,
    );
    assert_eq!(
        body_attribute(&dom, "data-report-ready"),
        Some("1"),
        "the page did not finish loading:\n{stderr}"
    );
    assert_eq!(
        body_attribute(&dom, "data-figures"),
        Some(figures.to_string().as_str())
    );
    assert_eq!(
        body_attribute(&dom, "data-figures-rendered"),
        Some(figures.to_string().as_str()),
        "a chart did not render"
    );
    assert_eq!(body_attribute(&dom, "data-broken-images"), Some("0"));
    assert_eq!(body_attribute(&dom, "data-script-errors"), Some("0"));
    assert!(
        console_errors(&stderr).is_empty(),
        "console errors: {:?}",
        console_errors(&stderr)
    );

    let artifacts = artifacts_dir();
    std::fs::create_dir_all(&artifacts).unwrap();
    let shot = artifacts.join("report.png");
    std::fs::remove_file(&shot).ok();
    let (_, stderr) = run_chromium(
        &binary,
        &dir.path().join("profile-shot"),
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1280,2000".into(),
            "--hide-scrollbars".into(),
        ],
        &page,
    );
    assert!(
        console_errors(&stderr).is_empty(),
        "console errors: {:?}",
        console_errors(&stderr)
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let info = decoder.read_info().unwrap().info().clone();
    assert_eq!((info.width, info.height), (1280, 2000));
    println!("screenshot: {}", shot.display());

    // The whole page, every chart included, to look at.
    let height: u32 = body_attribute(&dom, "data-page-height")
        .and_then(|h| h.parse().ok())
        .expect("the page reports its height");
    let height = height.clamp(2000, 40_000);
    let full = artifacts.join("report-full.png");
    std::fs::remove_file(&full).ok();
    run_chromium(
        &binary,
        &dir.path().join("profile-full"),
        &[
            format!("--screenshot={}", full.display()),
            format!("--window-size=1280,{height}"),
            "--hide-scrollbars".into(),
        ],
        &page,
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&full).unwrap()));
    let info = decoder.read_info().unwrap().info().clone();
    assert_eq!((info.width, info.height), (1280, height));
    println!("whole page: {}", full.display());
}
