//! The metric table of docs/metrics.md documents exactly the metrics the program writes.

use engine::metrics::METRICS;

#[test]
fn the_docs_metric_table_matches_the_metrics_written() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/metrics.md"))
        .unwrap();
    let table = page
        .split("<!-- metric-table")
        .nth(1)
        .and_then(|s| s.split("<!-- end metric-table -->").next())
        .expect("docs/metrics.md has a metric table");
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

/// The rows between `<!-- NAME` and `<!-- end NAME -->` of docs/metrics.md that start with
/// a metric name.
fn metrics_page_rows(name: &str) -> Vec<String> {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/metrics.md"))
        .unwrap();
    let table = page
        .split(&format!("<!-- {name}"))
        .nth(1)
        .and_then(|s| s.split(&format!("<!-- end {name} -->")).next())
        .unwrap_or_else(|| panic!("docs/metrics.md has no {name}"))
        .to_string();
    table
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_docs_table_of_layout_and_scenario_metrics_matches_their_definitions() {
    let mut expected = Vec::new();
    for kind in schemes::CHANGING_SCHEMES {
        let changing = kind.changing.as_ref().expect("a changing layout");
        for m in changing.end.metrics {
            expected.push((format!("`{}`", kind.name), m));
        }
    }
    for m in schemes::scenario::METRICS {
        expected.push(("`--scenario`".to_string(), m));
    }
    expected.push((
        "`--scenario` (balancers)".to_string(),
        &schemes::scenario::DRAIN_SECS,
    ));
    let expected: Vec<String> = expected
        .into_iter()
        .map(|(by, m)| {
            format!(
                "| `{}` | {by} | {} | {} |",
                m.name,
                m.unit,
                m.definition.replace('|', "\\|")
            )
        })
        .collect();
    assert_eq!(metrics_page_rows("layout-metric-table"), expected);
}
