//! Exporters: each renders one output file from a [`RunReport`] and never touches the disk.
//!
//! Adding a format: one struct implementing [`Exporter`] and one line in [`all`].

use engine::dynamic::DynamicRun;
use engine::metrics::WorkloadResult;

use crate::dynamic_csv::{self, RunLabel};
use crate::{summary, ReportError, RunReport};

/// Renders one output file.
pub trait Exporter: Sync {
    /// The file name inside the output directory.
    fn file_name(&self) -> &'static str;
    /// The file's bytes.
    fn render(&self, report: &RunReport) -> Result<Vec<u8>, ReportError>;
    /// False when the run has nothing for this file (it is then not written).
    fn applies(&self, _report: &RunReport) -> bool {
        true
    }
}

/// `summary.csv`: one row per workload, scheme and metric.
pub struct SummaryCsv;
/// `shards.csv`: one row per workload, scheme and shard.
pub struct ShardsCsv;
/// `manifest.json`: configuration, version, seed, inputs and timing.
pub struct ManifestJson;

impl Exporter for SummaryCsv {
    fn file_name(&self) -> &'static str {
        "summary.csv"
    }
    fn render(&self, report: &RunReport) -> Result<Vec<u8>, ReportError> {
        summary::summary_csv(&report.results)
    }
}

impl Exporter for ShardsCsv {
    fn file_name(&self) -> &'static str {
        "shards.csv"
    }
    fn render(&self, report: &RunReport) -> Result<Vec<u8>, ReportError> {
        summary::shards_csv(&report.results)
    }
}

impl Exporter for ManifestJson {
    fn file_name(&self) -> &'static str {
        "manifest.json"
    }
    fn render(&self, report: &RunReport) -> Result<Vec<u8>, ReportError> {
        let mut bytes = serde_json::to_vec_pretty(&report.manifest)?;
        bytes.push(b'\n');
        Ok(bytes)
    }
}

/// Every exporter a run writes, in writing order (the manifest last: its presence marks a
/// complete report).
pub fn all() -> Vec<Box<dyn Exporter>> {
    vec![
        Box::new(SummaryCsv),
        Box::new(ShardsCsv),
        Box::new(crate::windows::WindowsCsv),
        Box::new(crate::recommendation_csv::RecommendationCsv),
        Box::new(DynamicCsv {
            file: "timeline.csv",
            render_run: |_, run, label| dynamic_csv::timeline_csv(&run.timeline, label),
        }),
        Box::new(DynamicCsv {
            file: "splits.csv",
            render_run: |w, run, label| dynamic_csv::splits_csv(&run.splits, w.key_type, label),
        }),
        Box::new(DynamicCsv {
            file: "finders.csv",
            render_run: |_, run, label| dynamic_csv::finders_csv(&run.finder_summaries(), label),
        }),
        Box::new(ManifestJson),
    ]
}

/// Every file the exporters that apply to `report` render (name, bytes), in their order;
/// rendered in parallel, and nothing is returned unless every one rendered.
pub fn render(
    report: &RunReport,
    exporters: &[Box<dyn Exporter>],
) -> Result<Vec<(&'static str, Vec<u8>)>, ReportError> {
    use rayon::prelude::*;
    exporters
        .par_iter()
        .filter(|e| e.applies(report))
        .map(|e| Ok((e.file_name(), e.render(report)?)))
        .collect()
}

/// One of the `range-dynamic` files (`timeline.csv`, `splits.csv`, `finders.csv`): the rows of
/// every dynamic run of every workload under one header, each run once (the results of one
/// replay's growth targets share its run); written only when a run has them.
pub struct DynamicCsv {
    /// The file name.
    pub file: &'static str,
    /// Renders one run's rows with the header.
    pub render_run: fn(&WorkloadResult, &DynamicRun, RunLabel<'_>) -> Result<Vec<u8>, ReportError>,
}

impl Exporter for DynamicCsv {
    fn file_name(&self) -> &'static str {
        self.file
    }
    fn render(&self, report: &RunReport) -> Result<Vec<u8>, ReportError> {
        let mut out = Vec::new();
        let mut written: Vec<&std::sync::Arc<DynamicRun>> = Vec::new();
        for w in &report.results {
            for run in &w.dynamic {
                if written.iter().any(|r| std::sync::Arc::ptr_eq(r, run)) {
                    continue;
                }
                written.push(run);
                let bytes = (self.render_run)(
                    w,
                    run,
                    RunLabel {
                        workload: &w.workload,
                        scheme: &run.label,
                        shards: run.nodes,
                    },
                )?;
                // Keep the first header only.
                let body = if out.is_empty() {
                    &bytes[..]
                } else {
                    bytes.splitn(2, |&b| b == b'\n').nth(1).unwrap_or(&[])
                };
                out.extend_from_slice(body);
            }
        }
        Ok(out)
    }
    fn applies(&self, report: &RunReport) -> bool {
        report.results.iter().any(|w| !w.dynamic.is_empty())
    }
}
