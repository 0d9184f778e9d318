//! Seeded synthetic workloads (stub: being written).

use crate::{EventSource, KeyType, WorkloadError};

/// A synthetic workload spec such as `zipf:keys=1000,s=0.99`.
#[derive(Clone, Debug)]
pub struct WorkloadSpec {
    spec: crate::Spec,
}

impl WorkloadSpec {
    /// Parses one workload spec (no sweeps).
    pub fn parse(text: &str) -> Result<WorkloadSpec, WorkloadError> {
        Ok(WorkloadSpec { spec: crate::Spec::parse(text)? })
    }
    /// The label in reports.
    pub fn label(&self) -> String {
        self.spec.to_string()
    }
    /// Synthetic keys are integers.
    pub fn key_type(&self) -> KeyType {
        KeyType::U64
    }
    /// Opens the event stream.
    pub fn open(&self, _seed: u64, _events: u64) -> Result<Box<dyn EventSource>, WorkloadError> {
        unimplemented!()
    }
}
