//! The Citus rebalancer's planner, written from its description in Citus's
//! `shard_rebalancer.c` (`RebalancePlacementUpdates`): a pure function from nodes (capacity,
//! shards they refuse) and shard placements (node, cost) to the ordered list of shard moves.
//!
//! The plan, as Citus makes it:
//! 1. Placement groups (Citus's colocation groups) are balanced each on its own; groups with
//!    fewer placements than nodes are pooled into one last group.
//! 2. Draining, every group first: a shard on a node it is not allowed on moves to the least
//!    utilized node it is allowed on (costliest shard first; ties by shard id).
//! 3. Unless `drain_only`, group by group, greedy moves until none is left or the plan holds
//!    `max_shard_moves` moves (drain moves count; a group cut short stops the plan): the most
//!    utilized node (`cost / capacity`) gives its costliest shard that fits to the least
//!    utilized one, trying the next target, then the next source, when nothing fits. A node
//!    within `threshold` of the mean utilization neither gives to a node also within it nor
//!    receives from one; a move must not make the target more utilized than the source was,
//!    and one that leaves the target above the new source must improve the balance by at
//!    least `improvement_threshold` times the utilization the shard carries.
//!
//! Arithmetic is in `f32` as in Citus (`float4`), so ties and thresholds fall as there.

use std::cmp::Ordering;
use std::collections::HashSet;

use crate::AnalysisError;

/// A node the planner may place shards on.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanNode {
    /// Relative capacity (Citus's `node_capacity_function`); 0 = the node takes no cost.
    pub capacity: f32,
    /// Shards not allowed on the node (Citus's `shard_allowed_on_node_function`).
    pub disallowed: Vec<u64>,
}

impl PlanNode {
    /// A node of `capacity` that allows every shard.
    pub fn new(capacity: f32) -> PlanNode {
        PlanNode {
            capacity,
            disallowed: Vec::new(),
        }
    }

    fn allows(&self, shard: u64) -> bool {
        !self.disallowed.contains(&shard)
    }
}

/// A shard on a node (index into the node list) with its cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanShard {
    /// The shard's id.
    pub shard: u64,
    /// The node holding it.
    pub node: usize,
    /// Its cost (Citus's `shard_cost_function`: 1, or its bytes).
    pub cost: f32,
}

/// The knobs of a plan, named as Citus names them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanOptions {
    /// Nodes within this share of the mean utilization are balanced enough.
    pub threshold: f64,
    /// Least balance improvement, relative to the utilization the shard carries, of a move
    /// that leaves the target more utilized than the source.
    pub improvement_threshold: f32,
    /// Most moves in the plan (drain moves count, and are made even past it).
    pub max_shard_moves: usize,
    /// Only move shards off nodes they are not allowed on.
    pub drain_only: bool,
}

/// One move of a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardMove {
    /// The shard moved.
    pub shard: u64,
    /// The node it leaves.
    pub from: usize,
    /// The node it goes to.
    pub to: usize,
}

/// The moves, in order, and what the planner left undone.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    /// The moves, in the order they are made.
    pub moves: Vec<ShardMove>,
    /// Moves skipped because they improved the balance too little (Citus's notices).
    pub ignored_moves: u64,
    /// True when `max_shard_moves` cut the search short.
    pub stopped_early: bool,
    /// Shards on a node they are not allowed on, with no node to go to.
    pub stuck: Vec<u64>,
}

/// The plan for `groups` of placements on `nodes` (Citus's `RebalancePlacementUpdates`).
/// Errors when a placement names no node or a capacity or cost is not finite and at least 0.
pub fn plan(
    nodes: &[PlanNode],
    groups: &[Vec<PlanShard>],
    options: &PlanOptions,
) -> Result<Plan, AnalysisError> {
    check(nodes, groups)?;
    let mut states: Vec<Group> = pooled(groups, nodes.len())
        .iter()
        .map(|g| Group::new(nodes, g))
        .collect();
    let mut plan = Plan::default();
    for state in &mut states {
        state.drain(nodes, &mut plan);
    }
    if options.drain_only {
        return Ok(plan);
    }
    for state in &mut states {
        let mean = f64::from(state.total_cost / state.total_capacity);
        let lower = ((1.0 - options.threshold) * mean) as f32;
        let upper = ((1.0 + options.threshold) * mean) as f32;
        let mut more = true;
        while more && plan.moves.len() < options.max_shard_moves {
            more = state.move_one(nodes, (lower, upper), options, &mut plan);
        }
        if more {
            plan.stopped_early = true;
            break;
        }
    }
    Ok(plan)
}

fn check(nodes: &[PlanNode], groups: &[Vec<PlanShard>]) -> Result<(), AnalysisError> {
    let bad = |what: String| Err(AnalysisError::Config(format!("rebalance plan: {what}")));
    if let Some(n) = nodes
        .iter()
        .find(|n| !(n.capacity >= 0.0 && n.capacity.is_finite()))
    {
        return bad(format!(
            "node capacity {} is not a finite number >= 0",
            n.capacity
        ));
    }
    for p in groups.iter().flatten() {
        if p.node >= nodes.len() {
            return bad(format!(
                "shard {} is on node {}, of {}",
                p.shard,
                p.node,
                nodes.len()
            ));
        }
        if !(p.cost >= 0.0 && p.cost.is_finite()) {
            return bad(format!("shard {} has cost {}", p.shard, p.cost));
        }
    }
    Ok(())
}

/// The groups balanced on their own, then the small ones (fewer placements than nodes)
/// pooled into one last group, as Citus does.
fn pooled(groups: &[Vec<PlanShard>], nodes: usize) -> Vec<Vec<PlanShard>> {
    let (mut big, small): (Vec<_>, Vec<_>) = groups.iter().partition(|g| g.len() >= nodes);
    let pool: Vec<PlanShard> = small.into_iter().flatten().copied().collect();
    let mut out: Vec<Vec<PlanShard>> = big.drain(..).cloned().collect();
    if !pool.is_empty() {
        out.push(pool);
    }
    out
}

/// A shard's cost as the planner holds it.
#[derive(Clone, Copy, Debug)]
struct Cost {
    shard: u64,
    cost: f32,
}

/// Costliest first; equal costs by shard id, lowest first.
fn costliest_first(a: &Cost, b: &Cost) -> Ordering {
    b.cost
        .partial_cmp(&a.cost)
        .unwrap_or(Ordering::Equal)
        .then(a.shard.cmp(&b.shard))
}

/// One node's fill within a group.
#[derive(Debug)]
struct Fill {
    node: usize,
    capacity: f32,
    total: f32,
    utilization: f32,
    /// Its shards, [`costliest_first`].
    shards: Vec<Cost>,
}

impl Fill {
    fn set_total(&mut self, total: f32) {
        self.total = total;
        self.utilization = utilization(total, self.capacity);
    }
}

/// `total / capacity`, infinite on a node without capacity.
fn utilization(total: f32, capacity: f32) -> f32 {
    if capacity <= 0.0 {
        f32::INFINITY
    } else {
        total / capacity
    }
}

/// Least utilized first; then the larger capacity, then the lower node.
fn emptiest_first(a: &Fill, b: &Fill) -> Ordering {
    a.utilization
        .partial_cmp(&b.utilization)
        .unwrap_or(Ordering::Equal)
        .then(
            b.capacity
                .partial_cmp(&a.capacity)
                .unwrap_or(Ordering::Equal),
        )
        .then(a.node.cmp(&b.node))
}

/// One group's state while it is planned.
struct Group {
    fills: Vec<Fill>,
    /// Indices into `fills`, [`emptiest_first`].
    asc: Vec<usize>,
    placed: HashSet<(u64, usize)>,
    total_cost: f32,
    total_capacity: f32,
    /// Placements on nodes that refuse them: (shard, fill index).
    disallowed: Vec<(Cost, usize)>,
}

impl Group {
    fn new(nodes: &[PlanNode], placements: &[PlanShard]) -> Group {
        let mut fills: Vec<Fill> = nodes
            .iter()
            .enumerate()
            .map(|(node, n)| Fill {
                node,
                capacity: n.capacity,
                total: 0.0,
                utilization: utilization(0.0, n.capacity),
                shards: Vec::new(),
            })
            .collect();
        let mut placed = HashSet::new();
        let mut disallowed = Vec::new();
        let mut total_cost = 0.0f32;
        for p in placements {
            let cost = Cost {
                shard: p.shard,
                cost: p.cost,
            };
            let fill = &mut fills[p.node];
            fill.set_total(fill.total + p.cost);
            fill.shards.push(cost);
            total_cost += p.cost;
            placed.insert((p.shard, p.node));
            if !nodes[p.node].allows(p.shard) {
                disallowed.push((cost, p.node));
            }
        }
        for fill in &mut fills {
            fill.shards.sort_by(costliest_first);
        }
        let total_capacity = nodes.iter().map(|n| n.capacity).sum();
        let mut group = Group {
            asc: (0..fills.len()).collect(),
            fills,
            placed,
            total_cost,
            total_capacity,
            disallowed,
        };
        group.sort();
        group
    }

    fn sort(&mut self) {
        let fills = &self.fills;
        self.asc
            .sort_by(|&a, &b| emptiest_first(&fills[a], &fills[b]));
    }

    /// Moves every shard off a node that refuses it, costliest first, to the least utilized
    /// node that allows it.
    fn drain(&mut self, nodes: &[PlanNode], plan: &mut Plan) {
        let mut disallowed = std::mem::take(&mut self.disallowed);
        disallowed.sort_by(|a, b| costliest_first(&a.0, &b.0));
        for (cost, from) in disallowed {
            let target =
                self.asc.iter().copied().find(|&f| {
                    !self.placed.contains(&(cost.shard, f)) && nodes[f].allows(cost.shard)
                });
            match target {
                Some(to) => self.apply(from, to, cost, plan),
                None => plan.stuck.push(cost.shard),
            }
        }
    }

    /// Makes one greedy move; false when no move is left.
    fn move_one(
        &mut self,
        nodes: &[PlanNode],
        (lower, upper): (f32, f32),
        options: &PlanOptions,
        plan: &mut Plan,
    ) -> bool {
        for &source in self.asc.iter().rev() {
            let src = &self.fills[source];
            if src.utilization <= lower {
                return false;
            }
            for &target in &self.asc {
                let tgt = &self.fills[target];
                if tgt.utilization >= upper
                    || (tgt.utilization >= lower && src.utilization <= upper)
                {
                    break;
                }
                for cost in &src.shards {
                    if self.placed.contains(&(cost.shard, target))
                        || !nodes[target].allows(cost.shard)
                    {
                        continue;
                    }
                    match judge(src, tgt, cost.cost, options.improvement_threshold) {
                        Verdict::Move => {
                            let cost = *cost;
                            self.apply(source, target, cost, plan);
                            return true;
                        }
                        Verdict::Ignored => plan.ignored_moves += 1,
                        Verdict::Skip => {}
                    }
                }
            }
        }
        false
    }

    /// Records the move of `cost` from fill `from` to fill `to` and updates the fills.
    fn apply(&mut self, from: usize, to: usize, cost: Cost, plan: &mut Plan) {
        plan.moves.push(ShardMove {
            shard: cost.shard,
            from: self.fills[from].node,
            to: self.fills[to].node,
        });
        self.placed.remove(&(cost.shard, from));
        self.placed.insert((cost.shard, to));
        let src = &mut self.fills[from];
        src.set_total(src.total - cost.cost);
        if let Some(i) = src.shards.iter().position(|c| c.shard == cost.shard) {
            src.shards.remove(i);
        }
        let tgt = &mut self.fills[to];
        tgt.set_total(tgt.total + cost.cost);
        tgt.shards.push(cost);
        tgt.shards.sort_by(costliest_first);
        self.sort();
    }
}

/// What the planner does with a candidate move.
enum Verdict {
    Move,
    /// Not worth it for the shard's size (counted as an ignored move).
    Ignored,
    /// Not an improvement.
    Skip,
}

/// Judges moving a shard of `cost` from `src` to `tgt`.
fn judge(src: &Fill, tgt: &Fill, cost: f32, improvement_threshold: f32) -> Verdict {
    let new_target = utilization(tgt.total + cost, tgt.capacity);
    let new_source = utilization(src.total - cost, src.capacity);
    if new_target <= new_source {
        return Verdict::Move;
    }
    if new_target > src.utilization
        || (new_target == src.utilization && new_source <= tgt.utilization)
    {
        return Verdict::Skip;
    }
    let improvement = (src.utilization - new_target).max(new_source - tgt.utilization);
    let carried = (new_target - tgt.utilization).min(src.utilization - new_source);
    if improvement / carried < improvement_threshold {
        Verdict::Ignored
    } else {
        Verdict::Move
    }
}

#[cfg(test)]
#[path = "vectors.rs"]
mod vectors;
