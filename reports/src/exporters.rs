//! The exporters a run writes ([`all`]): each renders one output file from a [`RunReport`]
//! and never touches the disk.
//!
//! Adding a format: one struct implementing [`Exporter`] and one line in [`all`].

use crate::exporter::Exporter;
use crate::layout_tables::LayoutTableCsv;
use crate::{summary, ReportError, RunReport};

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
        Box::new(LayoutTableCsv {
            file: "timeline.csv",
            table: "timeline",
        }),
        Box::new(LayoutTableCsv {
            file: "splits.csv",
            table: "splits",
        }),
        Box::new(LayoutTableCsv {
            file: "finders.csv",
            table: "finders",
        }),
        Box::new(LayoutTableCsv {
            file: "events.csv",
            table: "events",
        }),
        Box::new(LayoutTableCsv {
            file: "phases.csv",
            table: "phases",
        }),
        Box::new(LayoutTableCsv {
            file: "citus_shards.csv",
            table: "citus_shards",
        }),
        Box::new(LayoutTableCsv {
            file: "slicer_slices.csv",
            table: "slicer_slices",
        }),
        Box::new(LayoutTableCsv {
            file: "pd_hot_regions.csv",
            table: "pd_hot_regions",
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
