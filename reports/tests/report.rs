//! The report of a run directory: reproducible, computed from the numbers, and refusing bad
//! input with the file and line.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::Variant;

/// Every file under `charts/`, by name.
fn charts(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir.join("charts"))
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

/// A run draws its report from its model, which the exporters write: the model must be the one
/// `shardlab report DIR` reads back from the written files.
#[test]
fn a_run_in_memory_is_the_model_its_written_files_read_back_into() {
    use reports::data::RunData;
    use reports::exporters;
    for variant in [Variant::MonotonicHotSpot, Variant::HotKey] {
        let mut results = common::results(variant);
        // Labels are trimmed when read back; a label with spaces around it must match.
        results[0].workload = format!("  {} ", results[0].workload);
        results[1].schemes[0].scheme = format!(" {}\t", results[1].schemes[0].scheme);
        let in_memory = RunData::of_run(&results, common::manifest(&results)).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let files = exporters::render(&in_memory, &exporters::all()).unwrap();
        assert!(files.iter().any(|(n, _)| n == "windows.csv"));
        let out = reports::output::OutputDir::claim(dir.path(), true).unwrap();
        out.write_files(&files).unwrap();
        let read_back = RunData::load(dir.path()).unwrap();
        assert!(read_back
            .loads
            .iter()
            .all(|l| !l.window_requests.is_empty()));
        assert_eq!(format!("{in_memory:?}"), format!("{read_back:?}"));
        assert_eq!(
            reports::report::render(&in_memory).unwrap(),
            reports::report::render(&read_back).unwrap()
        );
    }
}

#[test]
fn rendering_a_directory_twice_gives_identical_charts_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    common::write_run(dir.path(), Variant::MonotonicHotSpot);
    let first_written = reports::report::render_dir(dir.path()).unwrap();
    let (first, html, md) = (
        charts(dir.path()),
        std::fs::read(dir.path().join("report.html")).unwrap(),
        std::fs::read(dir.path().join("report.md")).unwrap(),
    );
    let second_written = reports::report::render_dir(dir.path()).unwrap();
    assert_eq!(first_written, second_written);
    assert_eq!(charts(dir.path()), first);
    assert_eq!(std::fs::read(dir.path().join("report.html")).unwrap(), html);
    assert_eq!(std::fs::read(dir.path().join("report.md")).unwrap(), md);
    assert!(first.len() >= 2 * common::expected_chart_stems().len());
}

#[test]
fn windows_csv_has_a_row_per_workload_scheme_window_and_shard() {
    let results = common::results(Variant::MonotonicHotSpot);
    let run = reports::data::RunData::of_run(&results, common::manifest(&results)).unwrap();
    let csv = String::from_utf8(reports::windows::windows_csv(&run.loads).unwrap()).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(reports::csv_rows::header::<reports::windows::WindowRow>().as_str())
    );
    let shards: usize = common::SHARD_COUNTS.iter().map(|&n| n as usize).sum();
    assert_eq!(
        lines.count(),
        4 * common::SCHEMES.len() * common::WINDOWS * shards
    );
    assert!(
        csv.contains("\nsequential:scans=0.05,range,4,11,3,5000,0.9988"),
        "{}",
        &csv[..200]
    );
}

fn report_md(variant: Variant) -> String {
    let dir = tempfile::tempdir().unwrap();
    common::write_run(dir.path(), variant);
    reports::report::render_dir(dir.path()).unwrap();
    std::fs::read_to_string(dir.path().join("report.md")).unwrap()
}

/// The headline of the recommendation of a workload at 4 shards (growing to 5) in report.md,
/// from its line `**w, 4 shards (growth to 5 weighed): ring**`.
fn recommended(md: &str, workload: &str) -> String {
    let head = format!(
        "**{}, 4 shards (growth to 5 weighed): ",
        workload.replace('_', "\\_")
    );
    let line = md
        .lines()
        .find(|l| l.starts_with(&head))
        .unwrap_or_else(|| panic!("no recommendation for {workload}"));
    line.trim_start_matches(&head)
        .trim_end_matches("**")
        .to_string()
}

#[test]
fn findings_and_recommendations_follow_the_numbers_of_the_run() {
    let hot_spot = report_md(Variant::MonotonicHotSpot);
    let hot_key = report_md(Variant::HotKey);
    // A monotonic hot spot on range is found in one run and not in the other.
    assert!(
        hot_spot.contains(
            "range on 4 shards: one shard takes 100% of requests in every one of 12 windows"
        ),
        "{hot_spot}"
    );
    assert!(!hot_key.contains("range on 4 shards: one shard takes"));
    // mod-N growth: 4/5 of keys in one run, half in the other.
    assert!(
        hot_spot.contains("hash moves 80% of keys, more than 3x the least possible (20%)"),
        "{hot_spot}"
    );
    assert!(hot_key.contains("hash 50%"), "{hot_key}");
    // A very hot key is called out only where it exists.
    assert!(
        hot_key.contains("One key carries 31% of point requests"),
        "{hot_key}"
    );
    assert!(!hot_spot.contains("One key carries"));
    // The recommendation for the sequential workload changes with the numbers.
    assert_ne!(
        recommended(&hot_spot, "sequential:scans=0.05"),
        recommended(&hot_key, "sequential:scans=0.05")
    );
    // Every configuration is covered: 4 workloads x 4 shard counts, one target each.
    for n in common::SHARD_COUNTS {
        let title = format!(
            "**sequential:scans=0.05, {n} shards (growth to {} weighed): ",
            n + 1
        );
        assert!(hot_spot.contains(&title), "no recommendation at {n} shards");
    }
    let matrix = hot_spot.split("## Decision matrix").nth(1).unwrap();
    let matrix = matrix.split("\n## ").next().unwrap();
    assert_eq!(
        matrix
            .lines()
            .filter(|l| l.starts_with("| sequential"))
            .count(),
        common::SHARD_COUNTS.len()
    );
}

#[test]
fn the_report_reads_the_decision_and_usable_capacity_and_computes_neither() {
    let dir = tempfile::tempdir().unwrap();
    common::write_run(dir.path(), Variant::HotKey);
    let edit = |file: &str, f: &dyn Fn(&str) -> String| {
        let path = dir.path().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let edited: Vec<String> = text.lines().map(f).collect();
        assert_ne!(edited.join("\n") + "\n", text, "{file} unchanged");
        std::fs::write(&path, edited.join("\n") + "\n").unwrap();
    };
    edit("summary.csv", &|l| {
        if l.starts_with("sequential:scans=0.05,ring,4,usable_capacity,") {
            let mut f: Vec<&str> = l.split(',').collect();
            f[4] = "0.4321";
            f.join(",")
        } else {
            l.to_string()
        }
    });
    edit("recommendation.csv", &|l| {
        if l.starts_with("sequential:scans=0.05,4,5,") {
            "sequential:scans=0.05,4,5,ring,lookup_time,2,ratio,hash;salted,salted,,,,,".into()
        } else {
            l.to_string()
        }
    });
    reports::report::render_dir(dir.path()).unwrap();
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert_eq!(recommended(&md, "sequential:scans=0.05"), "ring");
    assert!(md.contains("ring leaves 43% of the cluster usable"), "{md}");
    assert!(
        md.contains("Tied on usable capacity (within 2% of the best or the 95% intervals) with hash, salted, on growth cost with salted; decided by lookup time, by at least 2x faster lookups (median)."),
        "{md}"
    );
    assert!(
        md.contains(
            "| sequential:scans=0.05 | 4 | 5 | ring | lookup time | at least 2x | usable capacity: hash, salted; growth cost: salted |"
        ),
        "{md}"
    );
}

#[test]
fn the_report_says_what_was_run() {
    let md = report_md(Variant::HotKey);
    for needle in [
        "shardlab 0.1.0",
        "cores: 2, os: linux",
        "sample workload sequential:scans=0.05",
        "| seed | 42 |",
    ] {
        assert!(md.contains(needle), "report.md lacks '{needle}'");
    }
    assert!(
        md.contains("![Requests per shard](charts/load_bars-1-"),
        "report.md lacks PNG links"
    );
    let html_dir = tempfile::tempdir().unwrap();
    common::write_run(html_dir.path(), Variant::HotKey);
    reports::report::render_dir(html_dir.path()).unwrap();
    let html = std::fs::read_to_string(html_dir.path().join("report.html")).unwrap();
    assert!(
        !html.contains("src=\"http") && !html.contains("href=\"http"),
        "report.html must not load anything"
    );
    assert!(
        !html.contains("<img") && !html.contains("<link"),
        "report.html must be self-contained"
    );
    assert_eq!(
        html.matches("<figure").count(),
        common::expected_chart_stems().len()
    );
}

#[test]
fn a_malformed_run_directory_is_refused_with_file_and_line_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    common::write_run(dir.path(), Variant::HotKey);
    let summary = std::fs::read_to_string(dir.path().join("summary.csv")).unwrap();
    let broken = summary.replacen(",range,4,", ",range,four,", 1);
    std::fs::write(dir.path().join("summary.csv"), broken).unwrap();
    let err = reports::report::render_dir(dir.path())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("summary.csv:2:") && err.contains("'four'"),
        "{err}"
    );
    assert!(!dir.path().join("report.html").exists() && !dir.path().join("charts").exists());
    std::fs::remove_file(dir.path().join("manifest.json")).unwrap();
    let err = reports::report::render_dir(dir.path())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("manifest.json") && err.contains("missing"),
        "{err}"
    );
}
