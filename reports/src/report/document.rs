//! The report's content as format-neutral blocks, built once from the run and rendered to HTML
//! and Markdown, so the two files always say the same thing.

use engine::metrics::registry::fanout::SCANS;
use engine::metrics::registry::keys::{DISTINCT_KEYS, HOTTEST_KEY_SHARE};
use engine::metrics::registry::latency::LOOKUP_NS_P50;
use engine::metrics::registry::load::HOTTEST_SHARD_RATIO;
use engine::metrics::registry::remap::{REMAP_FRACTION, REMAP_IDEAL};
use engine::metrics::registry::router::{BUILD_NS, ROUTER_BYTES};
use engine::metrics::registry::traffic::EVENTS_MEASURED;
use engine::metrics::{MetricId, METRICS};
use schemes::display_label;

use super::findings::{self, Finding, Recommendation};
use crate::charts::{ChartOutcome, RenderedChart};
use crate::data::RunData;

/// One block of the report.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    /// A heading of level 1 to 3.
    Heading(u8, String),
    /// A paragraph of plain text.
    Paragraph(String),
    /// A bulleted list.
    List(Vec<String>),
    /// A table; columns from `numeric_from` on are right-aligned.
    Table {
        /// Column titles.
        header: Vec<String>,
        /// Cells, row by row.
        rows: Vec<Vec<String>>,
        /// First right-aligned column.
        numeric_from: usize,
    },
    /// The recommended scheme of a workload with its reasoning.
    Recommendation(Recommendation),
    /// A chart: inline SVG in HTML, a PNG link in Markdown.
    Figure(RenderedChart),
    /// Blocks folded away under a one-line summary (`<details>`).
    Details {
        /// The line shown while folded.
        summary: String,
        /// What unfolds.
        blocks: Vec<Block>,
    },
}

/// The whole report.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// The page title.
    pub title: String,
    /// The blocks in order.
    pub blocks: Vec<Block>,
}

/// Builds the report of `data` with its charts.
pub fn build(data: &RunData, charts: &[ChartOutcome]) -> Document {
    if data.is_plan_only() {
        let mut b = Vec::new();
        plan_section(data, charts, &mut b);
        return Document {
            title: "shardlab capacity plan".into(),
            blocks: b,
        };
    }
    let profiles = findings::profiles(data);
    let mut b = Vec::new();
    let m = &data.manifest;
    b.push(Block::Paragraph(format!(
        "{} workload(s) replayed through {} scheme(s) by {} {}, started {}.",
        data.workloads().len(),
        data.schemes().len(),
        if m.tool.is_empty() {
            "shardlab"
        } else {
            &m.tool
        },
        m.version,
        if m.started_utc.is_empty() {
            "at an unrecorded time"
        } else {
            &m.started_utc
        }
    )));

    decision_matrix(data, &mut b);
    what_was_run(data, &mut b);

    for w in data.workloads() {
        b.push(Block::Heading(2, format!("Workload {w}")));
        if let Some(d) = data.description(w) {
            b.push(Block::Paragraph(d.to_string()));
        }
        let mut last_recommendation = None;
        for p in profiles.iter().filter(|p| p.workload == w) {
            b.push(Block::Heading(3, format!("{} shards", p.shards)));
            b.push(list(findings::workload_findings(data, p)));
            for &m in &p.targets {
                b.push(list(findings::growth_findings(data, p, m)));
            }
            if let Some(r) = findings::recommend(data, p) {
                b.push(Block::Recommendation(r));
                last_recommendation = Some(b.len());
            }
            b.push(comparison_table(data, w, p.shards));
            b.push(Block::Heading(4, format!("Trade-offs at N = {}", p.shards)));
            b.push(tradeoff_table(data, w, p.shards));
        }
        let (decision, rest): (Vec<Block>, Vec<Block>) = figures(charts, Some(w))
            .into_iter()
            .partition(|f| matches!(f, Block::Figure(r) if is_decision_chart(r)));
        // The decision chart stands right after the (last) recommendation it draws.
        let at = last_recommendation.unwrap_or(b.len());
        b.splice(at..at, decision);
        b.extend(rest);
    }

    b.push(Block::Heading(2, "Across workloads".into()));
    let run_findings = findings::run_findings(data);
    if !run_findings.is_empty() {
        b.push(Block::Heading(3, "Findings".into()));
        b.push(list(run_findings));
    }
    b.extend(
        figures(charts, None)
            .into_iter()
            .filter(|f| !matches!(f, Block::Figure(r) if r.file_stem == PLAN_CHART)),
    );
    if data.plan.is_some() {
        plan_section(data, charts, &mut b);
    }

    let skipped: Vec<String> = charts
        .iter()
        .filter_map(|c| match c {
            ChartOutcome::Skipped(s) => Some(match &s.workload {
                Some(w) => format!("{} ({w}): {}.", s.title, s.reason),
                None => format!("{}: {}.", s.title, s.reason),
            }),
            ChartOutcome::Drawn(_) => None,
        })
        .collect();
    if !skipped.is_empty() {
        b.push(Block::Heading(2, "Charts not drawn".into()));
        b.push(Block::List(skipped));
    }

    how_to_read(&mut b);
    Document {
        title: "shardlab design review".into(),
        blocks: b,
    }
}

/// The file stem of the plan chart, shown in the plan section rather than across workloads.
const PLAN_CHART: &str = crate::charts::PLAN_CHART;

/// Whether `chart` is a workload's decision chart (`decision-<ordinal>-<workload>`).
fn is_decision_chart(chart: &RenderedChart) -> bool {
    chart
        .file_stem
        .strip_prefix(crate::charts::DECISION_CHART)
        .is_some_and(|rest| rest.starts_with('-'))
}

/// "How many shards?": the plan's assumptions, a table per workload of scheme × growth, the
/// planner's notes and the chart.
fn plan_section(data: &RunData, charts: &[ChartOutcome], b: &mut Vec<Block>) {
    let rows = data.plan.as_deref().unwrap_or(&[]);
    b.push(Block::Heading(2, "How many shards?".into()));
    b.push(Block::Paragraph(plan_assumptions(data)));
    let workloads = data.plan_workloads();
    let with_moved = rows.iter().any(|r| r.moved_fraction_from_current.is_some());
    for w in &workloads {
        if workloads.len() > 1 {
            b.push(Block::Heading(3, format!("Workload {w}")));
        }
        let mut header: Vec<String> = [
            "scheme",
            "growth",
            "shards needed",
            "balanced",
            "binding",
            "peak requests/s per shard",
            "hottest share",
        ]
        .map(String::from)
        .to_vec();
        if with_moved {
            header.push("keys moved from current".into());
        }
        let table_rows = rows
            .iter()
            .filter(|r| r.workload == *w)
            .map(|r| {
                let mut row = vec![
                    r.scheme.clone(),
                    format!("×{}", r.growth),
                    match r.shards_needed {
                        Some(n) => count(n as f64),
                        None => format!("none works ({})", r.binding),
                    },
                    r.balanced_shards.map_or("-".into(), |n| count(n as f64)),
                    r.binding.clone(),
                    r.peak_rate_per_shard.map_or("-".into(), count),
                    r.hottest_share.map_or("-".into(), findings::pct),
                ];
                if with_moved {
                    row.push(
                        r.moved_fraction_from_current
                            .map_or("-".into(), findings::pct),
                    );
                }
                row
            })
            .collect();
        b.push(Block::Table {
            header,
            rows: table_rows,
            numeric_from: 1,
        });
    }
    let mut notes: Vec<String> = Vec::new();
    for r in rows {
        if !r.note.is_empty() && !notes.contains(&r.note) {
            notes.push(r.note.clone());
        }
    }
    if !notes.is_empty() {
        b.push(Block::Heading(3, "Notes from the planner".into()));
        b.push(Block::List(notes));
    }
    b.push(Block::Paragraph(
        "\"Balanced\" is what a perfectly even scheme needs; the gap between a scheme's count and it is the cost of that scheme's imbalance or of hot keys.".into(),
    ));
    b.extend(charts.iter().filter_map(|c| match c {
        ChartOutcome::Drawn(r) if r.file_stem == PLAN_CHART => Some(Block::Figure(r.clone())),
        _ => None,
    }));
}

/// One sentence: capacity × headroom, replicas and reads, failures, from `plan-manifest.json`
/// when recorded, else from the rows.
fn plan_assumptions(data: &RunData) -> String {
    let rows = data.plan.as_deref().unwrap_or(&[]);
    let config = data
        .plan_manifest
        .as_ref()
        .and_then(|m| m.pointer("/parameters/config"));
    let num = |path: &str| {
        config
            .and_then(|c| c.pointer(path))
            .and_then(|v| v.as_f64())
    };
    let first = rows.first();
    let limit = first.and_then(|r| r.rate_limit_per_shard);
    let mut parts = Vec::new();
    match (num("/capacity"), num("/headroom")) {
        (Some(c), Some(h)) => parts.push(format!(
            "a shard capacity of {} requests/s × headroom {} = {} requests/s usable per shard",
            count(c),
            findings::pct(h),
            count(c * h)
        )),
        _ => match limit {
            Some(l) => parts.push(format!(
                "{} requests/s usable per shard (capacity × headroom; the plan's manifest is absent)",
                count(l)
            )),
            None => parts.push("an unrecorded shard capacity".into()),
        },
    }
    if let Some(bytes) = num("/capacity_bytes") {
        parts.push(format!("{} bytes per shard", count(bytes)));
    }
    let replicas = num("/policy/replicas")
        .map(|v| v as u32)
        .or(first.map(|r| r.replicas));
    let reads = config
        .and_then(|c| c.pointer("/policy/reads"))
        .and_then(|v| v.as_str())
        .map(str::to_string)
        .or(first.map(|r| r.reads.clone()).filter(|r| !r.is_empty()));
    if let Some(n) = replicas {
        let reads = match reads.as_deref() {
            Some("any") => ", reads spread over the replicas",
            Some("leader") => ", reads served by the leaseholder",
            _ => "",
        };
        parts.push(format!("{n} replica(s) of every key{reads}"));
    }
    if let Some(f) = num("/failures")
        .map(|v| v as u32)
        .or(first.map(|r| r.failures))
    {
        parts.push(if f == 0 {
            "no shard failures planned for".into()
        } else {
            format!("surviving the worst {f} shard failure(s) at once")
        });
    }
    if let Some(c) = first.and_then(|r| r.current_shards) {
        parts.push(format!("{c} shards today"));
    }
    format!("Planned for {}.", parts.join(", "))
}

/// The decision matrix: one row per workload and shard count, from `recommendation.csv`.
fn decision_matrix(data: &RunData, b: &mut Vec<Block>) {
    b.push(Block::Heading(2, "Decision matrix".into()));
    let Some(rows) = data.recommendations.as_deref() else {
        b.push(Block::Paragraph(
            "This run directory has no recommendation.csv (written by shardlab run since it decides by usable capacity); rerun to get recommendations.".into(),
        ));
        return;
    };
    b.push(Block::Paragraph(format!(
        "The scheme the decision procedure recommends for each workload and shard count N, every growth target M weighed, the criterion that decided and its margin, and the schemes tied with it on each criterion the procedure reached (see \"How to read the numbers\"). No scheme is named for a tie or when the data is too thin ({} measured events and {} distinct keys per shard at least).",
        count(planning::advice::MIN_EVENTS as f64),
        planning::advice::MIN_KEYS_PER_SHARD
    )));
    b.push(Block::Table {
        header: [
            "workload",
            "N",
            "M weighed",
            "recommended",
            "decided by",
            "margin",
            "tied with (per criterion)",
            "warning",
        ]
        .map(String::from)
        .to_vec(),
        rows: rows
            .iter()
            .map(|r| {
                vec![
                    r.workload.clone(),
                    r.shards.to_string(),
                    crate::table::targets(&r.grow_to),
                    r.scheme.clone().unwrap_or_else(|| "-".into()),
                    r.decided_by.replace('_', " "),
                    r.margin
                        .map_or("-".into(), |m| crate::table::margin(&r.decided_by, m)),
                    r.ties_text(),
                    r.warning.clone(),
                ]
            })
            .collect(),
        numeric_from: 8,
    });
}

fn list(findings: Vec<Finding>) -> Block {
    if findings.is_empty() {
        return Block::Paragraph("Nothing stands out in the numbers.".into());
    }
    Block::List(findings.into_iter().map(|f| f.text).collect())
}

fn figures(charts: &[ChartOutcome], workload: Option<&str>) -> Vec<Block> {
    charts
        .iter()
        .filter_map(|c| match c {
            ChartOutcome::Drawn(r) if r.workload.as_deref() == workload => {
                Some(Block::Figure(r.clone()))
            }
            _ => None,
        })
        .collect()
}

fn what_was_run(data: &RunData, b: &mut Vec<Block>) {
    let m = &data.manifest;
    b.push(Block::Heading(2, "What was run".into()));
    let mut facts = vec![
        ("version".to_string(), format!("{} {}", m.tool, m.version)),
        ("command".to_string(), m.command_line.join(" ")),
        ("seed".to_string(), m.seed.to_string()),
        ("started (UTC)".to_string(), m.started_utc.clone()),
        ("duration".to_string(), format!("{:.1} s", m.duration_secs)),
        ("worker threads".to_string(), m.threads.to_string()),
        ("machine".to_string(), machine(data)),
        (
            "schemes".to_string(),
            data.schemes()
                .iter()
                .map(|s| display_label(s))
                .collect::<Vec<_>>()
                .join(", "),
        ),
    ];
    let mut params = Vec::new();
    let mut parameters = m.parameters.clone();
    let object = parameters.as_object_mut();
    let (profile, given) = match object {
        Some(p) => (p.remove("trace_profile"), p.remove("options_given")),
        None => (None, None),
    };
    flatten("", &parameters, &mut params);
    // The command's options as given on the command line stay in view; the rest (defaults
    // and options not used) fold away. A manifest that does not say which were given shows
    // them all.
    let given: Option<Vec<String>> = given.and_then(|g| serde_json::from_value(g).ok());
    let is_default = |key: &str| {
        let option = key.split_once('.').map(|(command, option)| {
            (matches!(command, "run" | "plan") && !option.contains('.')).then_some(option)
        });
        match (option, &given) {
            (Some(Some(option)), Some(given)) => !given.iter().any(|g| g == option),
            _ => false,
        }
    };
    let (defaults, set): (Vec<_>, Vec<_>) = params.into_iter().partition(|(k, _)| is_default(k));
    facts.extend(set.into_iter().map(|(k, v)| (format!("parameter {k}"), v)));
    b.push(Block::Table {
        header: vec!["".into(), "".into()],
        rows: facts.into_iter().map(|(k, v)| vec![k, v]).collect(),
        numeric_from: 2,
    });
    if !defaults.is_empty() {
        b.push(Block::Details {
            summary: format!("{} more options, at their defaults", defaults.len()),
            blocks: vec![Block::Table {
                header: vec!["".into(), "".into()],
                rows: defaults
                    .into_iter()
                    .map(|(k, v)| vec![format!("parameter {k}"), v])
                    .collect(),
                numeric_from: 2,
            }],
        });
    }

    if let Some(serde_json::Value::Object(rows)) = profile {
        b.push(Block::Heading(3, "The trace (shardlab inspect)".into()));
        b.push(Block::Table {
            header: vec!["figure".into(), "value".into()],
            rows: rows
                .iter()
                .map(|(k, v)| {
                    vec![
                        k.clone(),
                        v.as_str().map_or_else(|| v.to_string(), str::to_string),
                    ]
                })
                .collect(),
            numeric_from: 1,
        });
    }

    b.push(Block::Heading(3, "Workloads".into()));
    let rows = data
        .workloads()
        .into_iter()
        .map(|w| {
            let n = data.base_shards(w).unwrap_or(0);
            let scheme = data.schemes_at(w, n).first().copied().unwrap_or("");
            let metric = |name: MetricId, f: fn(f64) -> String| {
                data.metric(w, scheme, n, name).map_or("-".into(), f)
            };
            vec![
                w.to_string(),
                data.description(w).unwrap_or("(not recorded)").to_string(),
                metric(EVENTS_MEASURED, count),
                metric(DISTINCT_KEYS, count),
                metric(SCANS, count),
                metric(HOTTEST_KEY_SHARE, findings::pct),
            ]
        })
        .collect();
    b.push(Block::Table {
        header: [
            "workload",
            "description",
            "events measured",
            "distinct keys",
            "scans",
            "hottest key share",
        ]
        .map(String::from)
        .to_vec(),
        rows,
        numeric_from: 2,
    });

    if !m.inputs.is_empty() {
        b.push(Block::Heading(3, "Input files".into()));
        b.push(Block::Table {
            header: ["path", "bytes", "XXH3-128"].map(String::from).to_vec(),
            rows: m
                .inputs
                .iter()
                .map(|i| vec![i.path.clone(), count(i.bytes as f64), i.xxh3_128.clone()])
                .collect(),
            numeric_from: 1,
        });
    }
}

/// The machine as the manifest records it (`machine` at the top level or in the parameters),
/// e.g. `cores: 2, os: linux`.
fn machine(data: &RunData) -> String {
    let recorded = data
        .manifest_json
        .get("machine")
        .or_else(|| data.manifest.parameters.get("machine"));
    match recorded {
        Some(v) => {
            let mut parts = Vec::new();
            flatten("", v, &mut parts);
            parts
                .into_iter()
                .map(|(k, v)| format!("{k}: {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        }
        None => "not recorded in the manifest".into(),
    }
}

/// Flattens JSON into `a.b = value` pairs (arrays joined with ", "), leaving out the fields
/// shown elsewhere.
fn flatten(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                if prefix.is_empty() && matches!(k.as_str(), "workload_descriptions" | "machine") {
                    continue;
                }
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        serde_json::Value::Array(items) => {
            let texts: Vec<String> = items.iter().map(json_text).collect();
            out.push((prefix.to_string(), texts.join(", ")));
        }
        other => out.push((prefix.to_string(), json_text(other))),
    }
}

fn json_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "-".into(),
        other => other.to_string(),
    }
}

/// A count with thousands separators.
fn count(v: f64) -> String {
    crate::charts::style::thousands(v.max(0.0).round() as u64)
}

/// A metric value for the comparison table, by unit.
fn cell(value: Option<f64>, unit: &str) -> String {
    match value {
        None => "-".into(),
        Some(v) if unit == "share" => format!("{:.1}%", v * 100.0),
        Some(v) if unit == "ratio" => format!("{v:.3}"),
        Some(v) if (v.fract() == 0.0 || v.abs() >= 1000.0) && v.abs() < 1e15 => count(v),
        Some(v) => format!("{v:.1}"),
    }
}

/// Metrics as rows, schemes as columns, at shard count `n`.
fn comparison_table(data: &RunData, workload: &str, n: u32) -> Block {
    let schemes = data.schemes_at(workload, n);
    let mut header = vec!["metric".to_string(), "unit".to_string()];
    header.extend(schemes.iter().map(|s| {
        let m = data
            .metric_row(workload, s, n, REMAP_FRACTION)
            .map_or(n, |r| r.target_shards);
        format!("{} ({n}→{m})", display_label(s))
    }));
    let rows = METRICS
        .iter()
        .filter(|def| {
            schemes.iter().any(|s| {
                data.metric_row(workload, s, n, MetricId(def.name))
                    .is_some()
            })
        })
        .map(|def| {
            let mut row = vec![def.name.to_string(), def.unit.to_string()];
            row.extend(schemes.iter().map(|s| {
                let r = data.metric_row(workload, s, n, MetricId(def.name));
                let value = cell(r.and_then(|r| r.value), def.unit);
                match r.and_then(|r| r.ci()) {
                    Some((lo, hi)) => format!(
                        "{value} ({} to {})",
                        cell(Some(lo), def.unit),
                        cell(Some(hi), def.unit)
                    ),
                    None => value,
                }
            }));
            row
        })
        .collect();
    Block::Table {
        header,
        rows,
        numeric_from: 2,
    }
}

/// The metrics that trade against each other, one row per scheme: lookup time, balance,
/// growth disruption (against the least any scheme must move) and router memory.
fn tradeoff_table(data: &RunData, workload: &str, n: u32) -> Block {
    const COLUMNS: [(MetricId, &str); 6] = [
        (LOOKUP_NS_P50, "ns"),
        (HOTTEST_SHARD_RATIO, "ratio"),
        (REMAP_FRACTION, "share"),
        (REMAP_IDEAL, "share"),
        (ROUTER_BYTES, "bytes"),
        (BUILD_NS, "ns"),
    ];
    let mut header = vec!["scheme".to_string()];
    header.extend(COLUMNS.iter().map(|(name, _)| name.to_string()));
    let rows = data
        .schemes_at(workload, n)
        .iter()
        .map(|s| {
            let mut row = vec![s.to_string()];
            row.extend(
                COLUMNS
                    .iter()
                    .map(|(id, unit)| cell(data.metric(workload, s, n, *id), unit)),
            );
            row
        })
        .collect();
    Block::Table {
        header,
        rows,
        numeric_from: 1,
    }
}

fn how_to_read(b: &mut Vec<Block>) {
    b.push(Block::Heading(2, "How to read the numbers".into()));
    b.push(Block::Paragraph(format!(
        "Usable capacity = 1 / (N × hottest_shard_share_windowed × requests_per_event): the share of the cluster's request capacity the workload can use before its hottest shard saturates, a scan costing one request per shard it contacts (with --weights, each shard against its weight's share of the capacity). The decision procedure: no recommendation under {} measured events or {} distinct keys per shard, nor when the windows are too thin to rank usable capacity (under {} requests per shard per window, or under {} windows: the warning gives the --window that fixes it); schemes without the figures are discarded; the highest usable capacity wins unless another is within {:.0}% of it or its 95% interval overlaps, and then among the tied, weighing every growth target of the run at once (one answer per N): a scheme that cannot reach a target loses, then one whose growth to any target leaves the added shards nearly idle (under half their fair share) loses, then the smallest worst distance over the targets, max |remap_fraction − remap_ideal|, wins (moving less than the ideal is no saving; ties within {:.0} points), then with --fail a scheme that cannot remove the failed shard loses and the smallest distance of the keys a one-shard failure moves from the failed shard's own share (same ties), then the smaller scan fan-out (ties within {:.0}%), then the faster lookup (only at {}x the speed or more and at least {} ns slower, since a smaller gap is nothing beside a request's round trip, and when the faster one's p99 is below the other's median; the margin is then that guaranteed ratio, not the measured one). Schemes tied on everything are reported as a tie; the decision matrix names the schemes tied with the winner on each criterion reached. A figure followed by (a to b) in the comparison tables carries its 95% interval: a block bootstrap over consecutive windows of the load metrics, joined for hashed schemes with the spread of {} other placements of the same keys (other hash seeds and ring points: where another deployment's figure would fall), or, with --repeat K, the spread over K seeds of every non-timing metric. A hot spot is a hottest share of {}x the fair share 1/N or more (with --weights, of the shard's weight's share).",
        count(planning::advice::MIN_EVENTS as f64),
        planning::advice::MIN_KEYS_PER_SHARD,
        planning::advice::thin::MIN_REQUESTS_PER_SHARD_WINDOW,
        planning::advice::thin::MIN_WINDOWS,
        planning::advice::CAPACITY_TIE * 100.0,
        planning::advice::GROWTH_TIE * 100.0,
        planning::advice::FANOUT_TIE * 100.0,
        planning::advice::LOOKUP_RATIO,
        planning::advice::LOOKUP_MATTERS_NS,
        engine::metrics::placement::PLACEMENTS,
        findings::HOT_SPOT_FACTOR
    )));
    b.push(Block::Table {
        header: ["metric", "unit", "definition"].map(String::from).to_vec(),
        rows: METRICS
            .iter()
            .map(|m| {
                vec![
                    m.name.to_string(),
                    m.unit.to_string(),
                    m.definition.to_string(),
                ]
            })
            .collect(),
        numeric_from: 3,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recommendation_csv::RecommendationRow;
    use crate::summary::SummaryRow;

    fn figure(stem: &str) -> ChartOutcome {
        ChartOutcome::Drawn(RenderedChart {
            file_stem: stem.into(),
            title: stem.into(),
            caption: String::new(),
            workload: Some("w".into()),
            size: (1, 1),
            svg: String::new(),
            png: Vec::new(),
        })
    }

    #[test]
    fn the_decision_chart_stands_right_after_the_recommendation_and_nowhere_else() {
        let data = RunData {
            metrics: ["hash", "ring"]
                .map(|s| SummaryRow {
                    workload: "w".into(),
                    scheme: s.into(),
                    shards: 16,
                    target_shards: 17,
                    metric: "usable_capacity".into(),
                    value: Some(0.9),
                    ..SummaryRow::default()
                })
                .to_vec(),
            recommendations: Some(vec![RecommendationRow {
                workload: "w".into(),
                shards: 16,
                grow_to: vec![17],
                scheme: Some("hash".into()),
                decided_by: "usable_capacity".into(),
                ..RecommendationRow::default()
            }]),
            ..RunData::default()
        };
        let charts = [figure("usable_capacity-1-w"), figure("decision-1-w")];
        let blocks = build(&data, &charts).blocks;
        let stems: Vec<(usize, &str)> = blocks
            .iter()
            .enumerate()
            .filter_map(|(i, b)| match b {
                Block::Figure(r) => Some((i, r.file_stem.as_str())),
                _ => None,
            })
            .collect();
        let recommendation = blocks
            .iter()
            .position(|b| matches!(b, Block::Recommendation(_)))
            .unwrap();
        assert_eq!(
            stems[0],
            (recommendation + 1, "decision-1-w"),
            "{blocks:#?}"
        );
        assert_eq!(
            stems.iter().map(|s| s.1).collect::<Vec<_>>(),
            ["decision-1-w", "usable_capacity-1-w"]
        );
        assert!(stems[1].0 > recommendation + 2);
    }
}
