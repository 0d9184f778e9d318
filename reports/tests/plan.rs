//! The "How many shards?" section: plan.csv in a run directory, or alone.

mod common;

use std::path::Path;

const PLAN: &str = "workload,scheme,growth,replicas,failures,shards_needed,binding,peak_rate_per_shard,hottest_share,moved_fraction_from_current,reads,p99_rate_per_shard,rate_limit_per_shard,peak_bytes_per_shard,bytes_limit_per_shard,balanced_shards,current_shards,rate_window_secs,failed_shards,hot_key,hot_key_rate,note
w,hash,1,3,1,8,rate_after_failure,15000,0.125,0.5,any,15000,16000,0,,8,4,1,3,,,
w,hash,2,3,1,15,rate,15500,0.07,0.75,any,15500,16000,0,,14,4,1,,,,
w,range,1,3,1,9,rate,14000,0.11,0.4,any,14000,16000,0,,8,4,1,,,,
w,range,2,3,1,,hot_key,99000,0.3,,any,99000,16000,,,14,4,1,,42,5000,\"No shard count works: key '42' alone needs 99,000 requests/s\"
";

fn render(dir: &Path) -> (String, String, String) {
    reports::report::render_dir(dir).unwrap();
    let read = |p: &str| std::fs::read_to_string(dir.join(p)).unwrap();
    (
        read("report.md"),
        read("report.html"),
        read("charts/plan_shards.svg"),
    )
}

#[test]
fn a_run_directory_with_a_plan_renders_the_section_the_table_the_notes_and_the_chart() {
    let dir = tempfile::tempdir().unwrap();
    common::write_run(dir.path(), common::Variant::MonotonicHotSpot);
    std::fs::write(dir.path().join("plan.csv"), PLAN).unwrap();
    let (md, html, svg) = render(dir.path());
    for doc in [&md, &html] {
        assert!(doc.contains("How many shards?"), "{doc}");
        assert!(doc.contains("is what a perfectly even scheme needs"));
        assert!(doc.contains("No shard count works: key"));
        assert!(doc.contains("16,000 requests/s usable per shard"));
        assert!(doc.contains("3 replica(s)") && doc.contains("worst 1 shard failure"));
    }
    // The table: one row per scheme and growth, with shards, peak, hottest share and moved.
    assert!(
        md.contains("| hash | ×2 | 15 | 14 | rate | 15,500 | 7.0% | 75% |"),
        "{md}"
    );
    assert!(
        md.contains("| range | ×1 | 9 | 8 | rate | 14,000 | 11% | 40% |"),
        "{md}"
    );
    assert_eq!(
        md.matches("No shard count works: key").count(),
        1,
        "note once"
    );
    // The chart: a legend entry and a line per scheme, the dashed balanced floor.
    for label in [
        "hash",
        "range",
        "balanced (perfectly even)",
        "range: hot_key",
    ] {
        assert!(
            svg.contains(&format!(">\n{label}\n<")),
            "{label} missing in the SVG"
        );
    }
    // Lines in the scheme colours (by order in plan.csv: hash blue, range orange) and the
    // dashed balanced floor, drawn as many short segments.
    for stroke in ["#0072B2", "#D55E00"] {
        assert!(
            svg.contains(&format!(
                "<polyline fill=\"none\" opacity=\"1\" stroke=\"{stroke}\""
            )),
            "{stroke}"
        );
    }
    assert!(
        svg.matches("stroke=\"#282828\"").count() >= 4,
        "the dashed balanced line"
    );
    assert!(html.contains("How many shards? Shards needed"));
}

#[test]
fn a_row_where_no_count_works_shows_its_binding_not_a_number() {
    let dir = tempfile::tempdir().unwrap();
    common::write_run(dir.path(), common::Variant::MonotonicHotSpot);
    std::fs::write(dir.path().join("plan.csv"), PLAN).unwrap();
    let (md, _, _) = render(dir.path());
    let row = md
        .lines()
        .find(|l| l.starts_with("| range | ×2 |"))
        .expect("the infeasible row");
    let shards_cell = row.split('|').nth(3).unwrap().trim();
    assert!(shards_cell.contains("hot\\_key"), "{row}");
    assert!(!shards_cell.chars().any(|c| c.is_ascii_digit()), "{row}");
}

#[test]
fn a_directory_holding_only_a_plan_renders_just_the_plan() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("plan.csv"), PLAN).unwrap();
    let (md, html, svg) = render(dir.path());
    assert!(md.contains("How many shards?") && html.contains("How many shards?"));
    assert!(!md.contains("Recommendations") && !md.contains("What was run"));
    // Without plan-manifest.json the capacity comes from the rows.
    assert!(md.contains("16,000 requests/s usable per shard"), "{md}");
    assert!(svg.contains(">\nhash\n<"));
}

#[test]
fn a_malformed_plan_gives_its_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    common::write_run(dir.path(), common::Variant::MonotonicHotSpot);
    std::fs::write(
        dir.path().join("plan.csv"),
        PLAN.replace("w,range,1,3,1,9,", "w,range,1,3,1,nine,"),
    )
    .unwrap();
    let err = reports::report::render_dir(dir.path())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("plan.csv:4:") && err.contains("shards_needed"),
        "{err}"
    );
    std::fs::write(
        dir.path().join("plan.csv"),
        PLAN.replace("w,hash,2,3,1,15,rate,", "w,hash,2,3,1,,,"),
    )
    .unwrap();
    let err = reports::report::render_dir(dir.path())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("plan.csv:3:") && err.contains("binding"),
        "{err}"
    );
}
