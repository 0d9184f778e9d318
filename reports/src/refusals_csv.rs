//! `refusals.csv`: why a figure is empty where a scheme's own rule refused the change it
//! measures (Elasticsearch grows only by `_split` to a multiple of its shard count, say): one
//! row per workload, scheme, shard count and growth target refused, written when a run has
//! any. The report quotes the reason; it never rebuilds a scheme to learn it.

use engine::metrics::WorkloadResult;
use serde::{Deserialize, Serialize};

use crate::csv_rows;

/// The file name inside a run directory.
pub const FILE: &str = "refusals.csv";

/// One row of `refusals.csv`: a growth (or shrink) a scheme's rule refused.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RefusalRow {
    /// Workload label.
    pub workload: String,
    /// Scheme label.
    pub scheme: String,
    /// Shard count N.
    pub shards: u32,
    /// The shard count M the scheme cannot reach from N.
    pub target_shards: u32,
    /// Why, in the scheme's words (its remap and growth figures to M are empty).
    pub reason: String,
}

/// The refusals of `results`, in result order.
pub fn refusal_rows(results: &[WorkloadResult]) -> Vec<RefusalRow> {
    results
        .iter()
        .flat_map(|r| r.schemes.iter().map(move |s| (r, s)))
        .filter_map(|(r, s)| {
            Some(RefusalRow {
                workload: csv_rows::label(&r.workload),
                scheme: csv_rows::label(&s.scheme),
                shards: s.shards,
                target_shards: s.remap.target_shards,
                reason: s.remap.refusal.clone()?,
            })
        })
        .collect()
}
