//! The trait every output file's exporter implements (registered in
//! [`crate::exporters::all`]).

use crate::data::RunData;
use crate::ReportError;

/// Renders output files from a run's model: the rows [`RunData`] holds, which `shardlab
/// report DIR` reads back into the same model.
pub trait Exporter: Sync {
    /// The files it renders (name, bytes); none when the run has nothing for it.
    fn render(&self, run: &RunData) -> Result<Vec<(String, Vec<u8>)>, ReportError>;
}

/// One file named `name` holding `bytes`: what an exporter of a single file renders.
pub fn file(name: &str, bytes: Vec<u8>) -> Vec<(String, Vec<u8>)> {
    vec![(name.to_string(), bytes)]
}
