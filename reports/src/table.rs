//! Aligned text tables for stdout: the comparison table of one configuration (schemes as
//! columns, metrics as rows), the decision matrix of a run, and the column layout they share
//! with other commands' tables.

use engine::metrics::{MetricValue, WorkloadResult, METRICS};

use crate::recommendation_csv::RecommendationRow;

/// The decision matrix: one line per workload and shard count, every growth target weighed,
/// with the recommended scheme (or why none), what decided, by how much and the schemes tied
/// with it on each criterion reached.
pub fn decision_matrix(decisions: &[RecommendationRow]) -> String {
    let mut rows = vec![[
        "workload",
        "N",
        "M weighed",
        "recommended",
        "decided by",
        "margin",
        "tied with / warning",
    ]
    .map(String::from)
    .to_vec()];
    for d in decisions {
        let ties = d.ties_text();
        let note = match (ties.is_empty(), d.warning.is_empty()) {
            (false, false) if d.scheme.is_some() => format!("{ties}; {}", d.warning),
            (_, false) => d.warning.clone(),
            _ => ties,
        };
        rows.push(vec![
            d.workload.clone(),
            d.shards.to_string(),
            targets(&d.grow_to),
            d.scheme.clone().unwrap_or_else(|| "-".into()),
            if d.decided_by.is_empty() {
                "-".into()
            } else {
                d.decided_by.clone()
            },
            d.margin.map_or("-".into(), |m| margin(&d.decided_by, m)),
            note,
        ]);
    }
    let mut out = String::from("== recommendations (recommendation.csv)\n");
    out.push_str(&aligned(&rows, &[0, 3, 4, 6]));
    out
}

/// The growth targets a decision weighed, for people: `9, 16`.
pub fn targets(grow_to: &[u32]) -> String {
    let text: Vec<String> = grow_to.iter().map(u32::to_string).collect();
    text.join(", ")
}

/// A decision's margin in the unit of its criterion (`decided_by`): `6.1 pts` (share
/// points), `2.5 shards`, `at least 2x` (lookup time: the ratio the rule guarantees).
pub fn margin(decided_by: &str, m: f64) -> String {
    match decided_by {
        "scan_fanout" => format!("{m:.1} shards"),
        "lookup_time" => format!("at least {m}x"),
        _ => format!("{:.1} pts", m * 100.0),
    }
}

/// Renders the table of one workload.
pub fn comparison_table(r: &WorkloadResult) -> String {
    let per_scheme: Vec<Vec<MetricValue>> = r.schemes.iter().map(|s| r.metric_values(s)).collect();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut header = vec!["metric".to_string(), "unit".to_string()];
    header.extend(r.schemes.iter().map(|s| {
        let label = schemes::display_label(&s.scheme);
        format!("{label} ({}->{})", s.shards, s.remap.target_shards)
    }));
    rows.push(header);
    // Common metrics in table order, then the scheme-specific ones in order of appearance.
    let mut names: Vec<(&str, &str)> = METRICS.iter().map(|m| (m.name, m.unit)).collect();
    for v in per_scheme.iter().flatten() {
        if !names.iter().any(|(n, _)| *n == v.name) {
            names.push((v.name, v.unit));
        }
    }
    for (name, unit) in names {
        let cells: Vec<Option<&MetricValue>> = per_scheme
            .iter()
            .map(|vals| vals.iter().find(|v| v.name == name))
            .collect();
        if cells.iter().all(Option::is_none) {
            continue;
        }
        let mut row = vec![name.to_string(), unit.to_string()];
        row.extend(cells.iter().map(|c| c.map_or("n/a".to_string(), human)));
        rows.push(row);
    }
    let mut out = format!(
        "== {} ({} events measured)\n   {}\n",
        r.workload, r.events_measured, r.description
    );
    out.push_str(&aligned(&rows, &[0, 1]));
    for why in r.schemes.iter().filter_map(|s| s.remap.refusal.as_ref()) {
        out.push_str(&format!("   remap not applicable (empty): {why}\n"));
    }
    out
}

/// Lays out `rows` (the first is the header) in columns two spaces apart, each as wide as its
/// widest cell, with a line of dashes under the header. Columns listed in `left` are
/// left-aligned, the others (numbers) right-aligned; lines end without trailing spaces.
pub fn aligned(rows: &[Vec<String>], left: &[usize]) -> String {
    let Some(header) = rows.first() else {
        return String::new();
    };
    let widths: Vec<usize> = (0..header.len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                if left.contains(&c) {
                    format!("{cell:<w$}", w = widths[c])
                } else {
                    format!("{cell:>w$}", w = widths[c])
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
        if i == 0 {
            out.push_str(
                &widths
                    .iter()
                    .map(|w| "-".repeat(*w))
                    .collect::<Vec<_>>()
                    .join("  "),
            );
            out.push('\n');
        }
    }
    out
}

/// A value for people: integers plainly, shares and ratios with 4 decimals, others with 1.
fn human(v: &MetricValue) -> String {
    match v.value {
        None => "-".into(),
        Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{}", x as i64),
        Some(x) if matches!(v.unit, "share" | "ratio") => format!("{x:.4}"),
        Some(x) => format!("{x:.1}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_pads_left_columns_right_and_the_others_left_under_a_rule() {
        let rows = [["name", "n"], ["ab", "1234"], ["c", ""]]
            .map(|r| r.map(String::from).to_vec())
            .to_vec();
        assert_eq!(
            aligned(&rows, &[0]),
            "name     n\n----  ----\nab    1234\nc\n"
        );
        assert_eq!(aligned(&[], &[0]), "");
    }
}
