//! The exporters a run writes ([`all`]): each renders its files from the run's model
//! ([`RunData`]) and never touches the disk.
//!
//! Adding a format: one struct implementing [`Exporter`] and one line in [`all`].

use crate::data::RunData;
use crate::exporter::{file, Exporter};
use crate::windows::windows_csv;
use crate::{csv_rows, recommendation_csv, refusals_csv, ReportError};

/// `summary.csv`: one row per workload, scheme and metric.
pub struct SummaryCsv;
/// `shards.csv`: one row per workload, scheme and shard.
pub struct ShardsCsv;
/// `manifest.json`: configuration, version, seed, inputs and timing.
pub struct ManifestJson;

impl Exporter for SummaryCsv {
    fn render(&self, run: &RunData) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
        Ok(file("summary.csv", csv_rows::write_all(&run.metrics)?))
    }
}

impl Exporter for ShardsCsv {
    fn render(&self, run: &RunData) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
        Ok(file("shards.csv", csv_rows::write_all(&run.shard_rows)?))
    }
}

impl Exporter for ManifestJson {
    fn render(&self, run: &RunData) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
        let mut bytes = serde_json::to_vec_pretty(&run.manifest)?;
        bytes.push(b'\n');
        Ok(file("manifest.json", bytes))
    }
}

/// `windows.csv`: one row per workload, scheme, window and shard.
pub struct WindowsCsv;

impl Exporter for WindowsCsv {
    fn render(&self, run: &RunData) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
        Ok(file("windows.csv", windows_csv(&run.loads)?))
    }
}

/// `recommendation.csv`.
pub struct RecommendationCsv;

impl Exporter for RecommendationCsv {
    fn render(&self, run: &RunData) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
        match &run.recommendations {
            Some(rows) => Ok(file(recommendation_csv::FILE, csv_rows::write_all(rows)?)),
            None => Ok(Vec::new()),
        }
    }
}

/// `refusals.csv`, when the run has a refusal.
pub struct RefusalsCsv;

impl Exporter for RefusalsCsv {
    fn render(&self, run: &RunData) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
        if run.refusals.is_empty() {
            return Ok(Vec::new());
        }
        Ok(file(
            refusals_csv::FILE,
            csv_rows::write_all(&run.refusals)?,
        ))
    }
}
/// Every layout table of a run, one `<name>.csv` each.
pub struct LayoutTablesCsv;

impl Exporter for LayoutTablesCsv {
    fn render(&self, run: &RunData) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
        run.layout_tables
            .iter()
            .map(|t| Ok((t.file_name(), t.csv()?)))
            .collect()
    }
}
/// Every exporter a run writes, in writing order (the manifest last: its presence marks a
/// complete report).
pub fn all() -> Vec<Box<dyn Exporter>> {
    vec![
        Box::new(SummaryCsv),
        Box::new(ShardsCsv),
        Box::new(WindowsCsv),
        Box::new(RecommendationCsv),
        Box::new(RefusalsCsv),
        Box::new(LayoutTablesCsv),
        Box::new(ManifestJson),
    ]
}

/// Every file `exporters` render from `run` (name, bytes), in their order; rendered in
/// parallel, and nothing is returned unless every one rendered.
pub fn render(
    run: &RunData,
    exporters: &[Box<dyn Exporter>],
) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
    use rayon::prelude::*;
    let files: Vec<Vec<(String, Vec<u8>)>> = exporters
        .par_iter()
        .map(|e| e.render(run))
        .collect::<Result<_, _>>()?;
    Ok(files.into_iter().flatten().collect())
}
