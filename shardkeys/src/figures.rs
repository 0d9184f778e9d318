//! The figures counted per candidate (first pass) and per candidate and scheme (second pass).

use std::collections::HashMap;

use schemes::ShardSet;

/// Candidate-level figures from the first pass.
pub(crate) struct KeyStats {
    pub(crate) key_ops: u64,
    pub(crate) cardinality: u64,
    pub(crate) top: Vec<(String, u64)>,
    pub(crate) monotonicity: Option<f64>,
    pub(crate) writes: u64,
    pub(crate) key_updates: u64,
}

/// Per (candidate, scheme) counters of the second pass.
#[derive(Default)]
pub(crate) struct Routing {
    pub(crate) reads: [u64; 3],
    pub(crate) writes: [u64; 3],
    pub(crate) load: Vec<u64>,
    pub(crate) txns: HashMap<String, ShardSet>,
}

impl Routing {
    /// Share of transactions that touch more than one shard; `None` without transactions.
    pub(crate) fn cross_shard_txns(&self) -> Option<f64> {
        let total = self.txns.len() as u64;
        let cross = self.txns.values().filter(|s| s.len() > 1).count() as u64;
        share(cross, total)
    }
}

/// `a / b`, `None` when `b` is 0.
pub(crate) fn share(a: u64, b: u64) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}
