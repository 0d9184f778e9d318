//! What a multi-column workload registers ([`TableKind`]) and implements ([`TableModel`]),
//! apart from the registry in the parent module, so that no workload imports the module that
//! imports it.

use crate::synthetic::kind::{Param, WorkloadRng};
use crate::{Spec, SpecError};

/// Builds a multi-column workload's model from its checked spec and seeded generator.
pub type BuildFn = fn(&Spec, WorkloadRng) -> Result<Box<dyn TableModel>, SpecError>;

/// One family of multi-column workloads.
#[derive(Debug)]
pub struct TableKind {
    /// The name before the colon in a spec (`orders`).
    pub name: &'static str,
    /// One line saying what the workload models.
    pub about: &'static str,
    /// Its parameters.
    pub params: &'static [Param],
    /// The CSV header: `op` first, then the data columns.
    pub columns: &'static [&'static str],
    /// Builds the model from a checked spec and its seeded generator.
    pub build: BuildFn,
}

/// One generated operation: its `op` and one cell per data column (`None` is empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The operation (`get`, `scan`, `put`).
    pub op: &'static str,
    /// The data columns' cells, in header order after `op`.
    pub cells: Vec<Option<u64>>,
}

/// What a multi-column workload implements: the next operations (one, or a transaction's).
pub trait TableModel: Send {
    /// Appends the next operation or the operations of the next transaction to `rows`.
    fn next_rows(&mut self, rows: &mut Vec<Row>);
}
