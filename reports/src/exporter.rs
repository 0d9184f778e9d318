//! The trait every output file's exporter implements (registered in
//! [`crate::exporters::all`]).

use crate::{ReportError, RunReport};

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
