//! The worst failures a plan must survive.
//!
//! With `--failures F`, shards are removed one after another by the scheme's own rule
//! ([`crate::Partitioner::without_shard`]); each time, every surviving shard is tried and the
//! one whose loss leaves the highest utilisation (the larger of peak rate / rate limit and
//! bytes / byte limit; ties: the lowest number) is removed. For `F = 1` this is the exact
//! worst case over every shard; for larger `F` it is the greedy worst case (checking every
//! set of F shards grows as N^F). The plan must hold in every state of the chain: with all
//! shards, and after each removal.
//!
//! Mod-N rehashes every key onto the survivors whichever shard left, so the layouts after
//! losing any one shard are the same up to shard numbers: one removal (the last live shard)
//! stands for all.

use rayon::prelude::*;

use super::traffic::Traffic;
use super::window_load::{evaluate, LayoutLoad, ReplicaPolicy};
use super::Limits;
use crate::placement::Degraded;
use crate::schemes::{hash, SchemeSpec};
use crate::{AnalysisError, Partitioner, ShardId};

/// One state of the failure chain.
#[derive(Clone, Debug)]
pub struct FailureState {
    /// The shards removed so far, in order.
    pub failed: Vec<ShardId>,
    /// The load in this state.
    pub load: LayoutLoad,
}

/// The failure chain of one layout, or why there is none.
#[derive(Clone, Debug)]
pub enum Chain {
    /// The states after 1, 2, ..., F removals.
    States(Vec<FailureState>),
    /// The scheme cannot remove an arbitrary shard; the sentence says so.
    Unsupported(String),
}

/// True when every single removal gives the same layout up to shard numbers (mod-N).
pub fn removal_is_symmetric(spec: &SchemeSpec) -> bool {
    spec.kind().name == hash::KIND.name
}

/// Removes the worst shard `failures` times from `layout` (see the module).
pub fn worst_failures(
    layout: Box<dyn Partitioner>,
    failures: u32,
    symmetric: bool,
    traffic: &Traffic,
    policy: ReplicaPolicy,
    limits: &Limits,
) -> Result<Chain, AnalysisError> {
    let mut current = Degraded::intact(layout);
    let mut states = Vec::with_capacity(failures as usize);
    for _ in 0..failures {
        let candidates: Vec<ShardId> = match (symmetric, current.live().last()) {
            (true, Some(&last)) => vec![last],
            _ => current.live().to_vec(),
        };
        let tried: Vec<Option<(f64, ShardId, Degraded, LayoutLoad)>> = candidates
            .par_iter()
            .map(|&shard| {
                let Some(next) = current.without(shard, traffic.counts())? else {
                    return Ok(None);
                };
                let load = evaluate(&next, traffic, policy)?;
                Ok(Some((limits.utilisation(&load), shard, next, load)))
            })
            .collect::<Result<_, AnalysisError>>()?;
        let Some(tried) = tried.into_iter().collect::<Option<Vec<_>>>() else {
            return Ok(Chain::Unsupported(current.cannot_remove_message()));
        };
        // The highest utilisation; ties keep the lowest shard (candidates are increasing).
        let worst = tried
            .into_iter()
            .reduce(|best, next| if next.0 > best.0 { next } else { best })
            .ok_or_else(|| AnalysisError::Config("no shard is left to fail".into()))?;
        let (_, _, next, load) = worst;
        states.push(FailureState { failed: next.failed().to_vec(), load });
        current = next;
    }
    Ok(Chain::States(states))
}
