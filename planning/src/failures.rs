//! The worst failures a plan must survive.
//!
//! With `--failures F`, shards are removed one after another by the scheme's own rule
//! ([`schemes::Partitioner::without_shard`]); each time, every surviving shard is tried and the
//! one whose loss leaves the highest utilisation (the larger of peak rate / rate limit and
//! bytes / byte limit; ties: the lowest number) is removed. For `F = 1` this is the exact
//! worst case over every shard; for larger `F` it is the greedy worst case (checking every
//! set of F shards grows as N^F). The plan must hold in every state of the chain: with all
//! shards, and after each removal.
//!
//! Two shortcuts keep this affordable, both exact, each taken when the scheme says it holds
//! ([`Partitioner::removal_effect`]):
//! - Mod-N rehashes every key onto the survivors whichever shard left, so the layouts after
//!   losing any one shard are the same up to shard numbers: one removal (the last live shard)
//!   stands for all ([`RemovalEffect::Symmetric`]).
//! - For ring, range and salted, a removal changes the replicas of only the keys that had a
//!   replica on the removed shard ([`RemovalEffect::Local`]); only those are looked up again.
//!   Ring: a key's replicas are the first distinct shards met clockwise, and if the removed
//!   shard is not among them none of its points comes before the last of them. Range and
//!   salted: only the removed shard's ranges change owner, and the replicas `(owner + i) mod
//!   N` of any other range skip the removed shard exactly when they did not include it.
//!   Their new replicas are known without a look-up unless the removed shard owned them
//!   ([`RemovalIndex`]), and their requests are moved in per-window point loads
//!   ([`PointLoads`]) rather than sweeping every request again. `tests/plan.rs` checks both
//!   against full evaluations.

use rayon::prelude::*;

use super::point_loads::PointLoads;
use super::removal_index::RemovalIndex;
use super::removal_loads;
use super::traffic::Traffic;
use super::window_load::{evaluate_with, LayoutLoad, ReplicaPolicy, ReplicaTable, TableChange};
use super::Limits;
use schemes::placement::Degraded;
use schemes::{AnalysisError, Partitioner, RemovalEffect, ShardId};

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
    /// A state (after the removals listed) above the utilisation the search stopped at; the
    /// chain was not finished.
    Exceeds(FailureState),
    /// The scheme cannot remove an arbitrary shard; the sentence says so.
    Unsupported(String),
}

/// Removes the worst shard `failures` times from `layout` (see the module); the layout's
/// [`Partitioner::removal_effect`] says which shortcuts apply. A plan only needs to know that a count fails, so the search stops at the
/// first removal (in shard order) whose utilisation is above `stop_above` and returns it as
/// [`Chain::Exceeds`]; `f64::INFINITY` always finishes the chain. `on_removals(tried, of)`
/// is called as trial removals start, for progress. `table`, when given, is the replica
/// table of `layout` (`policy.replicas` replicas), which the chain then need not look up again.
#[allow(clippy::too_many_arguments)]
pub fn worst_failures(
    layout: Box<dyn Partitioner>,
    table: Option<ReplicaTable>,
    failures: u32,
    traffic: &Traffic,
    policy: ReplicaPolicy,
    limits: &Limits,
    stop_above: f64,
    on_removals: &dyn Fn(usize, usize),
) -> Result<Chain, AnalysisError> {
    let effect = layout.removal_effect();
    let symmetric = effect == RemovalEffect::Symmetric;
    let local = matches!(effect, RemovalEffect::Local | RemovalEffect::Successor);
    let successor = effect == RemovalEffect::Successor;
    let mut current = Degraded::intact(layout);
    let mut table = match table {
        Some(table) => table,
        None => ReplicaTable::new(&current, traffic, policy.replicas)?,
    };
    let mut states = Vec::with_capacity(failures as usize);
    let first_batch = rayon::current_num_threads().max(1) * 4;
    for _ in 0..failures {
        let (points, index) = if local {
            (
                PointLoads::new(&table, traffic, policy.reads, current.shard_count()),
                Some(RemovalIndex::new(&current, &table, traffic, successor)?),
            )
        } else {
            (None, None)
        };
        let candidates: Vec<ShardId> = match (symmetric, current.live().last()) {
            (true, Some(&last)) => vec![last],
            _ => current.live().to_vec(),
        };
        let try_removal =
            |shard: ShardId, next: Option<Degraded>| -> Result<Option<Removal>, AnalysisError> {
                let Some(next) = next else {
                    return Ok(None);
                };
                let (change, load) = if let Some(index) = &index {
                    let change = index.local_removal(&table, &next, shard, traffic)?;
                    let load =
                        match &points {
                            Some(points) => points
                                .moved(&table, &change, traffic, policy.reads)
                                .load(&next, next.failed(), traffic, policy.replicas),
                            None => evaluate_with(
                                &next,
                                next.failed(),
                                traffic,
                                policy,
                                &table.changed(&change),
                            ),
                        };
                    (Change::Rows(change), load)
                } else {
                    let next_table = ReplicaTable::new(&next, traffic, policy.replicas)?;
                    let load = evaluate_with(&next, next.failed(), traffic, policy, &next_table);
                    (Change::Table(next_table), load)
                };
                Ok(Some(Removal {
                    utilisation: limits.utilisation(&load),
                    shard,
                    failed: next.failed().to_vec(),
                    next: Some(next),
                    change: Some(change),
                    load,
                }))
            };
        // With point loads small enough, the removals of a batch move their keys in one pass
        // ([`removal_loads`]), and the table's change is worked out for the worst one only.
        let pass = match (&points, &index) {
            (Some(points), Some(index)) if removal_loads::batch_limit(points) > 0 => Some(Pass {
                points,
                index,
                table: &table,
            }),
            _ => None,
        };
        // When every key's new replicas are predicted and no scan needs a layout, the pass
        // needs none: only the worst removal's is built, for the next state.
        let lazy = pass.is_some()
            && traffic.scans().is_empty()
            && index.as_ref().is_some_and(RemovalIndex::predicts_every_key);
        let try_batch = |chunk: &[ShardId]| -> Result<Vec<Option<Removal>>, AnalysisError> {
            let nexts = if lazy {
                None
            } else {
                Some(current.without_each(chunk, traffic.counts())?)
            };
            match (&pass, nexts) {
                (Some(pass), nexts) => {
                    pass.removals(&current, chunk, nexts, traffic, policy, limits)
                }
                (None, nexts) => chunk
                    .par_iter()
                    .zip(nexts.expect("built without a pass"))
                    .map(|(&shard, next)| try_removal(shard, next))
                    .collect(),
            }
        };
        let mut worst: Option<Removal> = None;
        // A few removals per thread first (a count that fails often fails early); then, when
        // a removal costs little beside building its layout (local ones), `MAX_BATCH`
        // layouts at a time, so that schemes that weigh the keys for their removals
        // (`without_each`) weigh them a few times per state only.
        let later_batch = match (lazy, local) {
            (true, _) => usize::MAX,
            (false, true) => MAX_BATCH,
            (false, false) => first_batch,
        };
        let (mut tried, mut batch) = (0, first_batch);
        while tried < candidates.len() {
            let chunk = &candidates[tried..tried.saturating_add(batch).min(candidates.len())];
            (tried, batch) = (tried + chunk.len(), later_batch);
            on_removals(tried, candidates.len());
            let tried = try_batch(chunk)?;
            for removal in tried {
                let Some(removal) = removal else {
                    return Ok(Chain::Unsupported(current.cannot_remove_message()));
                };
                if removal.utilisation > stop_above {
                    return Ok(Chain::Exceeds(FailureState {
                        failed: removal.failed,
                        load: removal.load,
                    }));
                }
                // The highest utilisation; ties keep the lowest shard (candidates are increasing).
                if worst
                    .as_ref()
                    .is_none_or(|w| removal.utilisation > w.utilisation)
                {
                    worst = Some(removal);
                }
            }
        }
        let worst =
            worst.ok_or_else(|| AnalysisError::Config("no shard is left to fail".into()))?;
        states.push(FailureState {
            failed: worst.failed,
            load: worst.load,
        });
        if states.len() == failures as usize {
            break; // the last state's layout and table are not needed
        }
        let next = match worst.next {
            Some(next) => next,
            None => match current.without(worst.shard, traffic.counts())? {
                Some(next) => next,
                None => return Ok(Chain::Unsupported(current.cannot_remove_message())),
            },
        };
        table = match worst.change {
            Some(Change::Rows(change)) => table.changed(&change),
            Some(Change::Table(next_table)) => next_table,
            None => {
                let index = index.as_ref().expect("a pass has the removal index");
                table.changed(&index.local_removal(&table, &next, worst.shard, traffic)?)
            }
        };
        current = next;
    }
    Ok(Chain::States(states))
}

/// The most trial layouts built at once.
const MAX_BATCH: usize = 64;

/// One tried removal.
struct Removal {
    utilisation: f64,
    /// The shard removed.
    shard: ShardId,
    /// The shards removed so far, this one last.
    failed: Vec<ShardId>,
    /// The layout without the shard; `None` when not built (see [`Pass::removals`]).
    next: Option<Degraded>,
    /// How the table changes; `None` when worked out only if this removal is the worst.
    change: Option<Change>,
    load: LayoutLoad,
}

/// How the replica table changes in a removal.
enum Change {
    /// Some keys' rows (local removals).
    Rows(TableChange),
    /// The whole table.
    Table(ReplicaTable),
}

/// A removal's layout (when built) and its point loads.
type Moved = (Option<Degraded>, PointLoads);

/// What the removals of one failure-chain state share when they move their keys in one pass.
struct Pass<'a> {
    points: &'a PointLoads,
    index: &'a RemovalIndex,
    table: &'a ReplicaTable,
}

impl Pass<'_> {
    /// The removal of each of `chunk` from `current` (`None` where the scheme cannot remove
    /// it), in order. `nexts` are the layouts without each; when `None`, no layout is built:
    /// every key's new replicas must be predicted ([`RemovalIndex::predicts_every_key`]) and
    /// the traffic must have no scans (a load then needs only the shard count, `current`'s).
    fn removals(
        &self,
        current: &Degraded,
        chunk: &[ShardId],
        nexts: Option<Vec<Option<Degraded>>>,
        traffic: &Traffic,
        policy: ReplicaPolicy,
        limits: &Limits,
    ) -> Result<Vec<Option<Removal>>, AnalysisError> {
        let nexts: Vec<Option<Option<Degraded>>> = match nexts {
            Some(nexts) => nexts.into_iter().map(|next| next.map(Some)).collect(),
            None => chunk.iter().map(|_| Some(None)).collect(),
        };
        let mut moved = Vec::with_capacity(chunk.len());
        {
            let removals: Vec<(ShardId, Option<&dyn Partitioner>)> = chunk
                .iter()
                .zip(&nexts)
                .filter_map(|(&shard, next)| {
                    let next = next.as_ref()?.as_ref().map(|n| n as &dyn Partitioner);
                    Some((shard, next))
                })
                .collect();
            for part in removals.chunks(removal_loads::batch_limit(self.points)) {
                moved.extend(removal_loads::after_each(
                    self.points,
                    self.table,
                    self.index,
                    part,
                    traffic,
                    policy.reads,
                )?);
            }
        }
        let mut moved = moved.into_iter();
        let removals: Vec<(ShardId, Option<Moved>)> = chunk
            .iter()
            .zip(nexts)
            .map(|(&shard, next)| {
                let next = next.map(|next| (next, moved.next().expect("one per removal")));
                (shard, next)
            })
            .collect();
        Ok(removals
            .into_par_iter()
            .map(|(shard, next)| {
                next.map(|(next, points)| {
                    let mut failed = current.failed().to_vec();
                    failed.push(shard);
                    let part: &dyn Partitioner = match &next {
                        Some(next) => next,
                        None => current,
                    };
                    let load = points.load(part, &failed, traffic, policy.replicas);
                    Removal {
                        utilisation: limits.utilisation(&load),
                        shard,
                        failed,
                        next,
                        change: None,
                        load,
                    }
                })
            })
            .collect())
    }
}
