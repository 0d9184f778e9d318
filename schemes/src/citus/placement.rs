//! Where the logical shards of a `citus` cluster are ([`Placement`]), and the rebalancer's
//! plan for it.

use serde::{Deserialize, Serialize};

use super::params::{CitusParams, Strategy};
use super::rebalance::{plan, Plan, PlanNode, PlanShard, ShardMove};
use crate::pinned_hash::{hash64, reduce};
use crate::{AnalysisError, ShardSet};

/// Logical shards on nodes, with the bytes of the keys seen in each.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    /// Nodes.
    pub nodes: u32,
    /// The node serving each shard.
    pub owner: Vec<u32>,
    /// The bytes of each shard (key lengths plus last value sizes).
    pub bytes: Vec<u64>,
}

impl Placement {
    /// `shards` shards round-robin on the first `on` of `nodes` nodes (both at least 1).
    pub fn round_robin(shards: u32, on: u32, nodes: u32) -> Placement {
        let on = on.clamp(1, nodes.max(1));
        Placement {
            nodes: nodes.max(1),
            owner: (0..shards).map(|s| s % on).collect(),
            bytes: vec![0; shards as usize],
        }
    }

    /// The shard of `key`: its placement hash mod the shard count.
    pub fn shard_of_key(&self, key: &[u8]) -> usize {
        reduce(hash64(key), self.owner.len().max(1) as u32) as usize
    }

    /// The node serving `key`.
    pub fn node_of_key(&self, key: &[u8]) -> u32 {
        self.owner.get(self.shard_of_key(key)).copied().unwrap_or(0)
    }

    /// Every node that serves a shard: what a scan contacts.
    pub fn scan_nodes(&self, out: &mut ShardSet) {
        for &node in &self.owner {
            out.insert(node);
        }
    }

    /// Makes `m` (the shard now served by `m.to`).
    pub fn apply(&mut self, m: &ShardMove) {
        if let Some(owner) = usize::try_from(m.shard)
            .ok()
            .and_then(|s| self.owner.get_mut(s))
        {
            *owner = m.to as u32;
        }
    }

    /// The rebalancer's plan with `params` on `nodes` nodes, each of capacity `capacity(n)`;
    /// a node of capacity 0 is drained (no shard allowed): Citus's `citus_drain_node` then
    /// rebalance.
    pub fn plan(
        &self,
        params: &CitusParams,
        capacity: impl Fn(u32) -> f32,
    ) -> Result<Plan, AnalysisError> {
        let all: Vec<u64> = (0..self.owner.len() as u64).collect();
        let nodes: Vec<PlanNode> = (0..self.nodes)
            .map(|n| {
                let c = capacity(n);
                if c > 0.0 {
                    PlanNode::new(c)
                } else {
                    PlanNode {
                        capacity: 0.0,
                        disallowed: all.clone(),
                    }
                }
            })
            .collect();
        let shards: Vec<PlanShard> = self
            .owner
            .iter()
            .zip(&self.bytes)
            .enumerate()
            .map(|(shard, (&node, &bytes))| PlanShard {
                shard: shard as u64,
                node: node as usize,
                cost: match params.strategy {
                    Strategy::ByShardCount => 1.0,
                    Strategy::ByDiskSize => (bytes as f32).max(1.0),
                },
            })
            .collect();
        plan(&nodes, &[shards], &params.plan_options())
    }

    /// This placement on `target` nodes after the rebalancer's moves, all made: growth adds
    /// empty nodes and rebalances; shrinking drains the nodes removed, then rebalances.
    pub fn resized(&self, params: &CitusParams, target: u32) -> Result<Placement, AnalysisError> {
        let mut wide = Placement {
            nodes: self.nodes.max(target),
            ..self.clone()
        };
        let keep = |n: u32| if n < target { 1.0 } else { 0.0 };
        for m in &wide.plan(params, keep)?.moves {
            wide.apply(m);
        }
        if wide.owner.iter().any(|&n| n >= target) {
            return Err(AnalysisError::Config(format!(
                "the rebalancer could not drain the nodes above {target}"
            )));
        }
        wide.nodes = target;
        Ok(wide)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use workloads::Spec;

    fn params(text: &str) -> CitusParams {
        CitusParams::parse(&Spec::parse(text).unwrap()).unwrap()
    }

    #[test]
    fn growth_moves_a_fair_share_to_the_new_node_and_shrinking_drains() {
        let p = params("citus:shards=32");
        let start = Placement::round_robin(32, 3, 3);
        let grown = start.resized(&p, 4).unwrap();
        let on_new = grown.owner.iter().filter(|&&n| n == 3).count();
        let moved = start
            .owner
            .iter()
            .zip(&grown.owner)
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!((on_new, moved), (8, 8));
        let shrunk = grown.resized(&p, 2).unwrap();
        for n in 0..2 {
            assert_eq!(shrunk.owner.iter().filter(|&&o| o == n).count(), 16);
        }
        assert_eq!(shrunk.nodes, 2);
    }
}
