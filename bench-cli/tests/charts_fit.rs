//! Charts that fit their data (issue 31): in the charts of the default suite, no line chart has
//! fewer than two x values (one shard count or one growth target gives bars), share and
//! capacity axes start at 0, and estimated intervals are drawn as error bars.

mod common;

use std::path::Path;

use common::shardlab;
use reports::charts::{self, style, ChartInput, Scope};
use reports::data::RunData;

/// The default suite, shortened, with its report.
fn default_run(dir: &Path) -> std::path::PathBuf {
    let out = dir.join("run");
    shardlab()
        .args([
            "run",
            "--events",
            "20000",
            "--quiet",
            "--no-latency",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    out
}

#[test]
fn no_chart_of_the_default_suite_is_a_line_over_one_x_value() {
    let dir = tempfile::tempdir().unwrap();
    let run = default_run(dir.path());
    let data = RunData::load(&run).unwrap();
    let workloads = data.workloads();
    let mut drawn = 0;
    for chart in charts::all() {
        let inputs: Vec<ChartInput<'_>> = match chart.scope() {
            Scope::Run => vec![ChartInput {
                data: &data,
                workload: None,
            }],
            Scope::Workload => workloads
                .iter()
                .map(|w| ChartInput {
                    data: &data,
                    workload: Some(w),
                })
                .collect(),
        };
        for input in inputs {
            if chart.skip_reason(&input).is_some() {
                continue;
            }
            let (rendered, counts) = style::audit_line_panels(|| {
                charts::render(chart.as_ref(), &input, chart.name().to_string())
            });
            rendered.unwrap();
            drawn += 1;
            assert!(
                counts.iter().all(|&c| c >= 2),
                "{} ({:?}): a line panel with x values {counts:?}",
                chart.name(),
                input.workload
            );
        }
    }
    assert!(drawn >= 10, "only {drawn} charts drawn");
}

/// The texts of an SVG file.
fn svg_texts(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    doc.descendants()
        .filter(|n| n.tag_name().name() == "text")
        .map(|n| n.text().unwrap_or("").trim().to_string())
        .collect()
}

#[test]
fn share_axes_start_at_zero_and_one_shard_count_is_a_bar_per_scheme() {
    let dir = tempfile::tempdir().unwrap();
    let run = default_run(dir.path());
    let svgs: Vec<_> = std::fs::read_dir(run.join("charts"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "svg"))
        .collect();
    for stem in ["usable_capacity", "remap", "load_bars", "decision"] {
        let files: Vec<_> = svgs
            .iter()
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(stem))
            .collect();
        assert_eq!(files.len(), 3, "{stem}: one per workload of the suite");
        for file in files {
            let texts = svg_texts(file);
            assert!(
                texts.iter().any(|t| t == "0" || t == "0%"),
                "{}: no 0 on the y axis: {texts:?}",
                file.display()
            );
            if stem != "load_bars" {
                // The schemes name the bars: in the legend and under each bar.
                for scheme in ["range", "hash", "ring", "salted"] {
                    let n = texts.iter().filter(|t| *t == scheme).count();
                    assert!(
                        n >= 2,
                        "{}: '{scheme}' {n} times: {texts:?}",
                        file.display()
                    );
                }
            }
        }
    }
}
