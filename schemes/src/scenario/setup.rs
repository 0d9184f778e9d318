//! A scenario and the options it runs with ([`Scenario`]), and which schemes can run under it.

use super::file::{check, Action, Step};
use super::throttle::Throttle;
use crate::{AnalysisError, BuildContext, Partitioner, SchemeSpec};
use workloads::KeyType;

/// A scenario and the options it runs with, shared by every scheme of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The file's name, for messages.
    pub name: String,
    /// Its events, in time order.
    pub steps: Vec<Step>,
    /// Token buckets per shard (`--throttle`).
    pub throttle: Option<Throttle>,
    /// Copies of every key (`--replicas`), at least 1.
    pub replicas: u32,
    /// Bytes moved per second after an event (`--move-rate`); `None`: moves are instant.
    pub move_rate: Option<f64>,
    /// Nanoseconds of one timestamp unit of the trace.
    pub time_unit_ns: u64,
    /// How the schemes read key text in files.
    pub key_type: KeyType,
    /// Shard weights at the start (`--weights`).
    pub weights: Option<Vec<f64>>,
}

impl Scenario {
    /// Why `spec` cannot run under a scenario on `shards` shards, or a line of the scenario
    /// that does not fit that cluster.
    pub fn check(&self, spec: &SchemeSpec, shards: u32) -> Result<(), AnalysisError> {
        let refuse = |why: &str| {
            Err(AnalysisError::Config(format!(
                "--scenario cannot run '{}': {why}",
                spec.label()
            )))
        };
        if let Some(changing) = &spec.kind().changing {
            if self.replicas > 1 {
                return refuse(&format!(
                    "it keeps one copy of every key; --replicas {} cannot apply (a failed node's \
                     keys are unavailable until it recovers)",
                    self.replicas
                ));
            }
            if self.move_rate.is_some() {
                return refuse(
                    "it paces its moves by its own move_rate parameter, not --move-rate",
                );
            }
            (changing.check)(&spec.spec)?;
            return check(&self.name, &self.steps, shards);
        }
        if spec.needs_warmup() {
            return refuse(
                "it learns its boundaries from a warm-up; give them (boundaries=FILE) or use \
                 another scheme",
            );
        }
        let part = self.build(spec, shards, self.weights.as_deref())?;
        if part.learns_arrival() {
            return refuse("it places keys in the order they first appear in the whole stream");
        }
        check(&self.name, &self.steps, shards)?;
        if let Some(step) = self
            .steps
            .iter()
            .find(|s| matches!(s.action, Action::Weight(..)))
        {
            let ones = vec![1.0; shards as usize];
            self.build(spec, shards, Some(&ones)).map_err(|e| {
                AnalysisError::Config(format!(
                    "{}:{}: '{}': '{}' cannot take weights: {e}",
                    self.name,
                    step.line,
                    step.action,
                    spec.label()
                ))
            })?;
        }
        Ok(())
    }

    /// `spec` built on `shards` shards with `weights`, in the scenario's key type.
    pub(super) fn build(
        &self,
        spec: &SchemeSpec,
        shards: u32,
        weights: Option<&[f64]>,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        spec.build(&BuildContext {
            shards,
            warmup_keys: &[],
            key_type: self.key_type,
            weights,
        })
    }
}
