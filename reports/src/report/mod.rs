//! The design-review report: charts, `report.html` and `report.md`, rendered from a run
//! directory's files alone, so `shardlab report DIR` redraws exactly what the run drew.
//!
//! ```no_run
//! let written = reports::report::render_dir(std::path::Path::new("results/review")).unwrap();
//! assert!(written.iter().any(|p| p.ends_with("report.html")));
//! ```

pub mod document;
pub mod finding;
pub mod findings;
pub mod html;
pub mod markdown;
pub mod scenario;

use std::path::{Path, PathBuf};

use crate::charts::{self, ChartOutcome};
use crate::data::RunData;
use crate::output::OutputDir;
use crate::ReportError;

/// The name of the HTML report inside a run directory.
pub const HTML_FILE: &str = "report.html";
/// The name of the Markdown report inside a run directory.
pub const MARKDOWN_FILE: &str = "report.md";
/// The directory of the charts inside a run directory.
pub const CHARTS_DIR: &str = "charts";

/// Every file of the report, rendered in memory: (path inside the run directory, bytes).
pub fn render(data: &RunData) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
    let charts = charts::render_all(data)?;
    let doc = document::build(data, &charts);
    let mut files = Vec::new();
    for outcome in &charts {
        if let ChartOutcome::Drawn(c) = outcome {
            files.push((
                format!("{CHARTS_DIR}/{}.svg", c.file_stem),
                c.svg.clone().into_bytes(),
            ));
            files.push((format!("{CHARTS_DIR}/{}.png", c.file_stem), c.png.clone()));
        }
    }
    files.push((HTML_FILE.to_string(), html::render(&doc).into_bytes()));
    files.push((
        MARKDOWN_FILE.to_string(),
        markdown::render(&doc).into_bytes(),
    ));
    Ok(files)
}

/// Reads the run in `dir` (summary.csv, shards.csv, windows.csv, manifest.json, and
/// timeline.csv and splits.csv when present) and writes its charts (`charts/*.svg`,
/// `charts/*.png`), `report.html` and `report.md` into it, each atomically. Everything is
/// rendered before anything is written, so an error leaves the directory as it was. Returns
/// the paths written.
pub fn render_dir(dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let out = OutputDir::claim(dir, true)?;
    out.write_files(&render(&RunData::load(dir)?)?)
}
