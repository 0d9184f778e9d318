//! A `slicer` run's slices at its end as a fixed layout ([`FinalSlices`]), resized by the
//! balancer: to M tasks, the slices of removed tasks are reassigned and rounds of the
//! algorithm run on the loads of the keys counted (each key's requests at its hash) until
//! the imbalance is within the bound or a round changes nothing, so the remap is what the
//! balancer would move. Without requests, growth moves nothing (new tasks stay empty).

use serde::{Deserialize, Serialize};

use super::params::SlicerParams;
use super::round::{settle, RoundOptions};
use super::slices::{HashLoads, Slices};
use crate::changing::{decode_state, encode_state};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// Rounds run at most by a resize.
pub const MAX_RESIZE_ROUNDS: usize = 1000;

/// The slices on their tasks, with the parameters that rebalance them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FinalSlices {
    label: String,
    params: SlicerParams,
    slices: Slices,
}

impl FinalSlices {
    /// `slices` rebalanced with `params`, labelled `label`.
    pub fn new(label: &str, params: SlicerParams, slices: Slices) -> FinalSlices {
        FinalSlices {
            label: label.to_string(),
            params,
            slices,
        }
    }

    /// The slices.
    pub fn slices(&self) -> &Slices {
        &self.slices
    }

    /// The layout as the bytes of a changing layout's final state.
    pub fn state(&self) -> Result<Vec<u8>, AnalysisError> {
        encode_state(self)
    }

    /// The layout [`FinalSlices::state`] saved in `bytes`, checked: slices covering the hash
    /// space in order, each on one of at least one task.
    pub fn from_state(bytes: &[u8]) -> Result<FinalSlices, AnalysisError> {
        let layout: FinalSlices = decode_state(bytes)?;
        if !layout.slices.is_valid() {
            return Err(AnalysisError::Config(format!(
                "the saved final slices of '{}' do not cover the hash space on its {} task(s)",
                layout.label, layout.slices.tasks
            )));
        }
        Ok(layout)
    }

    /// The slices on `tasks` tasks after the balancer's rounds with `loads`.
    pub fn resized_slices(&self, tasks: u32, loads: &HashLoads) -> Slices {
        let mut slices = Slices {
            tasks,
            ..self.slices.clone()
        };
        let opts = RoundOptions::new(&self.params, tasks);
        settle(&mut slices, loads, &opts, MAX_RESIZE_ROUNDS);
        slices
    }
}

impl Partitioner for FinalSlices {
    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.slices.tasks
    }

    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.slices.task_of_key(key)
    }

    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        if end <= start {
            out.insert(self.shard_of(start));
        } else {
            self.slices.scan_tasks(out);
        }
    }

    fn resized(
        &self,
        shards: u32,
        keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        crate::kind::check_shard_count(shards)?;
        let slices = self.resized_slices(shards, &HashLoads::of_keys(keys.iter()));
        Ok(Box::new(FinalSlices::new(
            &self.label,
            self.params.clone(),
            slices,
        )))
    }
}
