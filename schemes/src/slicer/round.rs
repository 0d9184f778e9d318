//! One round of the weighted-move balancer ([`round`]), written from the description of
//! Slicer's sharding algorithm (Adya et al., OSDI 2016), on [`Slices`] and the window's
//! [`HashLoads`]. A slice's load is the requests of the hashes in its range; the churn of a
//! round is the width of the hash space it moved, and never exceeds the budget except to
//! place the slices of removed tasks. In this order:
//! 1. **Reassign**: every slice (in hash order) of a task that no longer exists goes to the
//!    least loaded task (ties: the lowest task).
//! 2. **Merge**, while there are more slices than `target_slices`: among adjacent pairs that
//!    are cold (their loads together at most `merge_load` x the mean task load) and whose
//!    churn fits the budget left, the one with the least churn, then the least load, then
//!    the lowest position merges. The merged slice stays on the task of the pair's busier
//!    slice (ties: the left one); the other slice's range moves there if its task differs
//!    (its width is the merge's churn).
//! 3. **Move**, while the hottest task is above `max_imbalance` x the mean task load: the
//!    sources are the tasks above that bound, hottest first (ties: lowest task); the move is
//!    the best candidate of the first source that has one. A source's candidates are its
//!    slices, and, for a slice whose load exceeds `split_load` x the mean task load and whose
//!    width is at least 2 while there are fewer than `max_slices` slices, each half of it
//!    split at the middle of its range (halves' loads are counted exactly from the hashes).
//!    A candidate of load `l` and width `w` moving from a source of load `hot` to the
//!    coldest task (lowest load `cold`, ties: lowest task) gains
//!    `g = hot - max(hot - l, cold + l)`; candidates with `g <= 0` or whose width would take
//!    the round's churn past the budget are skipped; the one with the highest `g / w` wins
//!    (ties: the first in hash order, whole slice before its lower half before its upper
//!    half) and is made (split first when it is a half). The round stops when no source has
//!    a candidate (a hottest task that is one hot key cannot be helped, the next one can).
//!    Every move lowers the sum of squared task loads, so
//!    a round ends.
//!
//! A paced round ([`round_paced`]) asks its [`Pace`] before every move (reassignment, merge
//! across tasks, move) whether the range's bytes fit the move budget; the first that does not
//! ends the round's moves of that kind (the rest wait for later rounds). Retired tasks (a
//! scenario's drain) are treated as tasks that no longer exist: their slices are reassigned,
//! and no slice goes to them.

use super::params::SlicerParams;
use super::slices::{share, HashLoads, Slices, SPACE};

/// The knobs of a round.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundOptions {
    /// Hash space (out of 2^64) moved per round at most.
    pub budget: u128,
    /// Imbalance at which moves stop.
    pub max_imbalance: f64,
    /// Share of the mean task load above which a slice may split.
    pub split_load: f64,
    /// Share of the mean task load at or below which an adjacent pair is cold.
    pub merge_load: f64,
    /// Slice count above which merges happen.
    pub target_slices: usize,
    /// Slice count at which splits stop.
    pub max_slices: usize,
}

impl RoundOptions {
    /// The options of `params` on `tasks` tasks.
    pub fn new(params: &SlicerParams, tasks: u32) -> RoundOptions {
        let per_tasks = |per: u32| (per as usize).saturating_mul(tasks as usize);
        RoundOptions {
            budget: (params.churn_budget * SPACE as f64) as u128,
            max_imbalance: params.max_imbalance,
            split_load: params.split_load,
            merge_load: params.merge_load,
            target_slices: per_tasks(params.slices_per_task),
            max_slices: per_tasks(params.max_slices_per_task),
        }
    }
}

/// A range of the hash space moved from one task to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceMove {
    /// Its first hash.
    pub start: u64,
    /// Its width.
    pub width: u128,
    /// Its requests in the window.
    pub load: u64,
    /// The task it leaves.
    pub from: u32,
    /// The task it goes to.
    pub to: u32,
}

/// What a round did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Round {
    /// Slices split.
    pub splits: u64,
    /// Pairs merged.
    pub merges: u64,
    /// Ranges moved (reassignments, merges across tasks and moves), in order.
    pub moves: Vec<SliceMove>,
}

impl Round {
    /// The hash space moved.
    pub fn churn(&self) -> u128 {
        self.moves.iter().map(|m| m.width).sum()
    }

    /// The hash space moved, as a share of the space.
    pub fn churn_share(&self) -> f64 {
        share(self.churn())
    }
}

/// The load of every task (slices of tasks beyond the count are left out).
pub fn task_loads(slices: &Slices, slice_loads: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; slices.tasks as usize];
    for (&t, &l) in slices.owner.iter().zip(slice_loads) {
        if let Some(x) = out.get_mut(t as usize) {
            *x += l;
        }
    }
    out
}

/// The hottest task's load over the mean task load; 1 when there is no load.
pub fn imbalance(task_loads: &[u64]) -> f64 {
    let total: u64 = task_loads.iter().sum();
    match task_loads.iter().max() {
        Some(&max) if total > 0 => max as f64 * task_loads.len() as f64 / total as f64,
        _ => 1.0,
    }
}

/// The task of the highest (`hottest`) or lowest load; ties go to the lowest task.
fn pick(task_loads: &[u64], hottest: bool) -> (u32, u64) {
    let mut best = (0u32, task_loads.first().copied().unwrap_or(0));
    for (t, &l) in task_loads.iter().enumerate() {
        if (hottest && l > best.1) || (!hottest && l < best.1) {
            best = (t as u32, l);
        }
    }
    best
}

/// What a round asks before a range `[start, start + width)` moves: true when it may.
pub type Pace<'p> = dyn FnMut(u64, u128) -> bool + 'p;

/// The round's state: the slices, their loads and their tasks' loads.
struct State<'a, 'p> {
    slices: &'a mut Slices,
    loads: Vec<u64>,
    tasks: Vec<u64>,
    round: Round,
    /// Tasks that take no slice (drained).
    retired: &'a [u32],
    pace: &'a mut Pace<'p>,
}

impl State<'_, '_> {
    fn used(&self) -> u128 {
        self.round.churn()
    }

    fn mean(&self) -> f64 {
        let live = self.tasks.len().saturating_sub(self.retired.len());
        self.tasks.iter().sum::<u64>() as f64 / live.max(1) as f64
    }

    /// The loads of the tasks, a retired one's as the most (so it is never the coldest).
    fn live_loads(&self) -> Vec<u64> {
        let mut loads = self.tasks.clone();
        for &t in self.retired {
            if let Some(l) = loads.get_mut(t as usize) {
                *l = u64::MAX;
            }
        }
        loads
    }

    /// True when slice `i` may move now (its bytes fit the budget).
    fn admits(&mut self, i: usize) -> bool {
        (self.pace)(self.slices.starts[i], self.slices.width(i))
    }

    /// Moves slice `i` to task `to`.
    fn move_slice(&mut self, i: usize, to: u32) {
        let from = self.slices.owner[i];
        let load = self.loads[i];
        if let Some(x) = self.tasks.get_mut(from as usize) {
            *x -= load;
        }
        self.tasks[to as usize] += load;
        self.slices.owner[i] = to;
        self.round.moves.push(SliceMove {
            start: self.slices.starts[i],
            width: self.slices.width(i),
            load,
            from,
            to,
        });
    }

    fn reassign(&mut self) {
        for i in 0..self.slices.len() {
            let owner = self.slices.owner[i];
            if owner >= self.slices.tasks || self.retired.contains(&owner) {
                if !self.admits(i) {
                    return;
                }
                let (to, _) = pick(&self.live_loads(), false);
                self.move_slice(i, to);
            }
        }
    }

    /// Merges the best cold pair; false when none fits.
    fn merge_one(&mut self, opts: &RoundOptions) -> bool {
        let cold = opts.merge_load * self.mean();
        let mut best: Option<(u128, u64, usize)> = None;
        for i in 0..self.slices.len().saturating_sub(1) {
            let load = self.loads[i] + self.loads[i + 1];
            let cost = if self.slices.owner[i] == self.slices.owner[i + 1] {
                0
            } else {
                self.slices.width(self.lighter(i))
            };
            if load as f64 <= cold
                && self.used() + cost <= opts.budget
                && best.is_none_or(|b| (cost, load) < (b.0, b.1))
            {
                best = Some((cost, load, i));
            }
        }
        let Some((cost, _, i)) = best else {
            return false;
        };
        let moved = self.lighter(i);
        let keep = self.slices.owner[if moved == i { i + 1 } else { i }];
        if cost > 0 {
            if !self.admits(moved) {
                return false;
            }
            self.move_slice(moved, keep);
        }
        self.loads[i] += self.loads.remove(i + 1);
        self.slices.merge(i, keep);
        self.round.merges += 1;
        true
    }

    /// Of the pair at `i`, the slice that moves when merging across tasks: the less loaded
    /// one (ties: the right one).
    fn lighter(&self, i: usize) -> usize {
        if self.loads[i] < self.loads[i + 1] {
            i
        } else {
            i + 1
        }
    }

    /// Makes the best move off the hottest task that has one; false when none helps or fits.
    fn move_one(&mut self, loads: &HashLoads, opts: &RoundOptions) -> bool {
        let mean = self.mean();
        let (cold, cl) = pick(&self.live_loads(), false);
        let bound = opts.max_imbalance * mean;
        if mean == 0.0 || pick(&self.tasks, true).1 as f64 <= bound {
            return false;
        }
        // Sources: the tasks above the bound, hottest first (ties: lowest task).
        let mut sources: Vec<(u32, u64)> = (0..self.tasks.len() as u32)
            .map(|t| (t, self.tasks[t as usize]))
            .filter(|&(t, l)| l as f64 > bound && !self.retired.contains(&t))
            .collect();
        sources.sort_by_key(|&(t, l)| (std::cmp::Reverse(l), t));
        for (hot, hl) in sources {
            if let Some((i, part, low)) = self.best_candidate(loads, opts, (hot, hl), cl) {
                let (start, end) = (u128::from(self.slices.starts[i]), self.slices.end(i));
                let mid = (start + end) / 2;
                let (from, to) = [(start, end), (start, mid), (mid, end)][usize::from(part)];
                if !(self.pace)(from as u64, to - from) {
                    return false;
                }
                self.make(i, part, low, cold);
                return true;
            }
        }
        false
    }

    /// The best candidate off task `hot` of load `hl` to a task of load `cl`: (slice, part:
    /// 0 whole, 1 lower half, 2 upper half, the lower half's load).
    fn best_candidate(
        &self,
        loads: &HashLoads,
        opts: &RoundOptions,
        (hot, hl): (u32, u64),
        cl: u64,
    ) -> Option<(usize, u8, u64)> {
        let mean = self.mean();
        let left = opts.budget.saturating_sub(self.used());
        let mut best: Option<(f64, usize, u8, u64)> = None;
        let mut consider = |(l, w): (u64, u128), i: usize, part: u8, low: u64| {
            if l == 0 || w > left || cl + l >= hl {
                return;
            }
            let gain = hl - (hl - l).max(cl + l);
            let score = gain as f64 / w as f64;
            if best.is_none_or(|b| score > b.0) {
                best = Some((score, i, part, low));
            }
        };
        for i in 0..self.slices.len() {
            if self.slices.owner[i] != hot {
                continue;
            }
            let (start, end) = (u128::from(self.slices.starts[i]), self.slices.end(i));
            consider((self.loads[i], end - start), i, 0, 0);
            if self.loads[i] as f64 > opts.split_load * mean
                && end - start >= 2
                && self.slices.len() < opts.max_slices
            {
                let mid = (start + end) / 2;
                let low = loads.range(start, mid);
                consider((low, mid - start), i, 1, low);
                consider((self.loads[i] - low, end - mid), i, 2, low);
            }
        }
        best.map(|(_, i, part, low)| (i, part, low))
    }

    /// Moves candidate `(i, part)` to task `cold`, splitting slice `i` first for a half.
    fn make(&mut self, i: usize, part: u8, low: u64, cold: u32) {
        let moved = if part == 0 {
            i
        } else {
            let high = self.loads[i] - low;
            self.slices.split(i);
            self.loads[i] = low;
            self.loads.insert(i + 1, high);
            self.round.splits += 1;
            i + usize::from(part == 2)
        };
        self.move_slice(moved, cold);
    }
}

/// One round on `slices` with the window's `loads` (see the module's rules).
pub fn round(slices: &mut Slices, loads: &HashLoads, opts: &RoundOptions) -> Round {
    round_paced(slices, loads, opts, &[], &mut |_, _| true)
}

/// One round that moves no slice to a `retired` task and moves each range only when `pace`
/// admits it (see the module's rules).
pub fn round_paced(
    slices: &mut Slices,
    loads: &HashLoads,
    opts: &RoundOptions,
    retired: &[u32],
    pace: &mut Pace<'_>,
) -> Round {
    let slice_loads = loads.per_slice(slices);
    let tasks = task_loads(slices, &slice_loads);
    let mut state = State {
        slices,
        loads: slice_loads,
        tasks,
        round: Round::default(),
        retired,
        pace,
    };
    state.reassign();
    while state.slices.len() > opts.target_slices && state.merge_one(opts) {}
    while state.move_one(loads, opts) {}
    state.round
}

/// Rounds on `slices` with `loads` until the imbalance is within the bound or a round
/// changes nothing (at most `max_rounds`); the rounds made.
pub fn settle(
    slices: &mut Slices,
    loads: &HashLoads,
    opts: &RoundOptions,
    max_rounds: usize,
) -> Vec<Round> {
    let mut rounds = Vec::new();
    for _ in 0..max_rounds {
        let r = round(slices, loads, opts);
        let idle = r.moves.is_empty() && r.merges == 0;
        rounds.push(r);
        let balanced =
            imbalance(&task_loads(slices, &loads.per_slice(slices))) <= opts.max_imbalance;
        if idle || balanced {
            break;
        }
    }
    rounds
}
