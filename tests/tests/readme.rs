//! The README documents exactly the metrics the program writes.

use engine::metrics::METRICS;

#[test]
fn the_readme_metric_table_matches_the_metrics_written() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let table = readme
        .split("<!-- metric-table")
        .nth(1)
        .and_then(|s| s.split("<!-- end metric-table -->").next())
        .expect("README has a metric table");
    let documented: Vec<&str> = table
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .collect();
    let written: Vec<&str> = METRICS.iter().map(|m| m.name).collect();
    assert_eq!(documented, written);
    for m in METRICS.iter() {
        let row = table
            .lines()
            .find(|l| l.starts_with(&format!("| `{}`", m.name)))
            .unwrap();
        assert!(
            row.contains(&format!("| {} |", m.unit)),
            "unit of {} differs: {row}",
            m.name
        );
    }
}
