//! A `citus` run's shards at its end as a fixed layout ([`FinalShards`]), resized by the
//! rebalancer: growth adds empty nodes and rebalances, shrinking drains the nodes removed,
//! so the remap is the keys of the shards moved.

use serde::{Deserialize, Serialize};

use super::params::CitusParams;
use super::placement::Placement;
use crate::changing::{decode_state, encode_state};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// The logical shards on their nodes, with the parameters that rebalance them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FinalShards {
    label: String,
    params: CitusParams,
    placement: Placement,
}

impl FinalShards {
    /// `placement` rebalanced with `params`, labelled `label`.
    pub fn new(label: &str, params: CitusParams, placement: Placement) -> FinalShards {
        FinalShards {
            label: label.to_string(),
            params,
            placement,
        }
    }

    /// The shards' nodes.
    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    /// The layout as the bytes of a changing layout's final state.
    pub fn state(&self) -> Result<Vec<u8>, AnalysisError> {
        encode_state(self)
    }

    /// The layout [`FinalShards::state`] saved in `bytes`, checked: at least one node and one
    /// shard, owners among the nodes, a size per shard.
    pub fn from_state(bytes: &[u8]) -> Result<FinalShards, AnalysisError> {
        let layout: FinalShards = decode_state(bytes)?;
        let p = &layout.placement;
        if p.nodes == 0
            || p.owner.is_empty()
            || p.owner.len() != p.bytes.len()
            || p.owner.iter().any(|&n| n >= p.nodes)
        {
            return Err(AnalysisError::Config(format!(
                "the saved final shards of '{}' are not placed on its {} node(s)",
                layout.label, p.nodes
            )));
        }
        Ok(layout)
    }
}

impl Partitioner for FinalShards {
    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.placement.nodes
    }

    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.placement.node_of_key(key)
    }

    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        if end <= start {
            out.insert(self.shard_of(start));
        } else {
            self.placement.scan_nodes(out);
        }
    }

    fn resized(
        &self,
        shards: u32,
        _keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        crate::kind::check_shard_count(shards)?;
        let placement = self.placement.resized(&self.params, shards)?;
        Ok(Box::new(FinalShards::new(
            &self.label,
            self.params.clone(),
            placement,
        )))
    }
}
