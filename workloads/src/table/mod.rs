//! Seeded multi-column workloads for choosing a shard key (`shardlab keys`): each row is one
//! operation with the columns of a table (`orders:tenants=100,s=1.1`), written as a CSV
//! trace with a header by `shardlab gen` in the encoding `shardlab keys` reads (an empty cell
//! is no predicate on that column, `c_end` ends a range, `c_new` changes `c`).
//!
//! Adding one: a file implementing [`TableModel`] with a [`TableKind`], and one line in
//! [`TABLE_WORKLOADS`]. Rows are generated with [`WorkloadRng`] seeded with
//! `seed_from_u64(seed)`, so the same spec and seed give the same rows everywhere.
//!
//! ```
//! use workloads::table::TableSpec;
//! let spec = TableSpec::parse("orders:tenants=20,users=50").unwrap();
//! let mut model = spec.open(7).unwrap();
//! let mut rows = Vec::new();
//! while rows.len() < 1000 {
//!     model.next_rows(&mut rows);
//! }
//! assert_eq!(spec.columns()[0], "op");
//! assert!(rows.iter().all(|r| r.cells.len() + 1 == spec.columns().len()));
//! ```

pub mod kind;
mod orders;
pub mod parquet;

pub use kind::{Row, TableKind, TableModel};

use crate::synthetic::kind::WorkloadRng;
use crate::{Spec, SpecError};

/// Every multi-column workload, in the order shown in help texts.
pub static TABLE_WORKLOADS: &[&TableKind] = &[&orders::KIND];

/// A checked multi-column workload spec.
#[derive(Clone, Debug)]
pub struct TableSpec {
    kind: &'static TableKind,
    spec: Spec,
}

impl TableSpec {
    /// The multi-column workload named by `spec`, when its name is one.
    pub fn find(spec: &Spec) -> Option<&'static TableKind> {
        TABLE_WORKLOADS
            .iter()
            .copied()
            .find(|k| k.name.eq_ignore_ascii_case(&spec.name))
    }

    /// Parses and checks `text` (`orders:tenants=100`).
    pub fn parse(text: &str) -> Result<TableSpec, SpecError> {
        let spec = Spec::parse(text)?;
        let kind = Self::find(&spec).ok_or_else(|| {
            let names: Vec<&str> = TABLE_WORKLOADS.iter().map(|k| k.name).collect();
            spec.error(format!(
                "unknown multi-column workload '{}'; valid ones: {}",
                spec.name,
                names.join(", ")
            ))
        })?;
        let known: Vec<&str> = kind.params.iter().map(|p| p.name).collect();
        spec.check(&known)?;
        // Parameters are checked by building once.
        use rand::SeedableRng;
        (kind.build)(&spec, WorkloadRng::seed_from_u64(0))?;
        Ok(TableSpec { kind, spec })
    }

    /// The spec as written.
    pub fn label(&self) -> String {
        self.spec.to_string()
    }

    /// The CSV header's columns: `op`, then the data columns.
    pub fn columns(&self) -> &'static [&'static str] {
        self.kind.columns
    }

    /// The model, seeded with `seed`.
    pub fn open(&self, seed: u64) -> Result<Box<dyn TableModel>, SpecError> {
        use rand::SeedableRng;
        (self.kind.build)(&self.spec, WorkloadRng::seed_from_u64(seed))
    }
}
