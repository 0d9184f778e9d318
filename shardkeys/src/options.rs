//! The options of one analysis of candidate keys.

use schemes::SchemeSpec;
use workloads::trace::ops::OpMap;

use crate::error::KeysError;

/// The options of one analysis.
#[derive(Clone, Debug)]
pub struct Options {
    /// The `--candidates` text.
    pub candidates: String,
    /// The schemes to cross the candidates with (fixed layouts only).
    pub schemes: Vec<SchemeSpec>,
    /// Number of shards `N`.
    pub shards: u32,
    /// Share of the trace's rows whose keys learn range boundaries (as `run --warmup`).
    pub warmup: f64,
    /// Name of the operation column.
    pub op_col: String,
    /// Name of the transaction column, if any.
    pub txn_col: Option<String>,
    /// Extra operation names.
    pub op_map: OpMap,
    /// A candidate whose most common value carries at least this share of its key operations
    /// is unsplittable.
    pub unsplittable: f64,
    /// Rows per candidate in `top_values.csv`.
    pub top: usize,
}

impl Options {
    /// The command's defaults (`--warmup 0.1`, `--op-col op`, `--unsplittable 0.3`,
    /// `--top 10`, no transactions) for these candidates, schemes and shards.
    pub fn new(candidates: &str, schemes: &str, shards: u32) -> Result<Options, KeysError> {
        Ok(Options {
            candidates: candidates.into(),
            schemes: SchemeSpec::parse_list(schemes)
                .map_err(|e| KeysError::Usage(format!("--schemes: {e}")))?,
            shards,
            warmup: 0.1,
            op_col: "op".into(),
            txn_col: None,
            op_map: OpMap::default(),
            unsplittable: 0.3,
            top: 10,
        })
    }
}
