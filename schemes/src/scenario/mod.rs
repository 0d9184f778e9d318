//! Clusters over time (`run --scenario FILE`): any fixed scheme replayed as a changing
//! layout to which the scenario's timed events happen ([`file`]): shards added, drained,
//! failed and recovered, weights changed, each by the scheme's own rule
//! ([`Partitioner::resized`], [`Partitioner::without_shard`], a build with the new weights),
//! with moves paced by a bytes-per-second budget and shards throttled by token buckets
//! ([`throttle`]).
//!
//! **Time.** An event's time is its timestamp's distance from the first event's, in seconds
//! (timestamps read in the trace's unit); without timestamps it is the event's position from
//! 0, and scenario times, move budgets and token refills count events instead of seconds.
//!
//! **Moves.** When shards are added, drained or reweighted, every key seen so far whose
//! owner changes moves, in key order. With `--move-rate B` the moves of one event take bytes
//! from a budget of `B` bytes per second since the event (a key's bytes: its length plus the
//! size of its last event that carried one); a key not moved yet is still served by its old
//! owner, a key first seen after the event by its new one. An event that comes while the
//! moves of the one before are not done completes them first, at once. Scans route by the
//! layout being moved to.
//!
//! **Failures.** A failed shard answers nothing and nothing moves: a point request goes to
//! the first surviving of its key's `--replicas` replicas ([`Partitioner::replicas`]) and is
//! unavailable when none survives; a scan's failed shard is replaced by the first surviving
//! shard after it in shard order within the replicas, or makes the scan unavailable.

mod balancing;
mod clock;
mod file;
pub mod metrics;
mod moves;
mod served;
mod setup;
mod thrash;
mod throttle;

pub use balancing::{Balancing, DRAIN_SECS};
pub use clock::EventClock;
pub use file::{check, parse, Action, Step};
pub use metrics::*;
pub use moves::MoveGraph;
pub use served::Served;
pub use setup::Scenario;
pub use thrash::{tdtv, thrash};
pub use throttle::{Buckets, Throttle};

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use workloads::{Event, KeyType, Op};

use crate::changing::{
    converge_secs, decode_state, encode_state, Cell, ChangingLayout, LayoutEnd, LayoutOutput,
    LayoutSetup, Overlay, Table, WindowLoad, WindowLog, WindowShare, WindowTime, GENERIC_COLUMNS,
};
use crate::placement::Degraded;
use crate::value::MetricValue;
use crate::{AnalysisError, BuildContext, KeyCounts, Partitioner, SchemeSpec, ShardSet};

/// What a scheme under a scenario leaves at the end: the scenario's figures and the layout
/// after every change.
pub static END: LayoutEnd = LayoutEnd {
    metrics: METRICS,
    final_layout,
};

/// `spec` replayed under `scenario` as a changing layout.
pub fn under(spec: &SchemeSpec, scenario: Arc<Scenario>) -> SchemeSpec {
    spec.under(Arc::new(Under {
        scenario,
        spec: spec.clone(),
    }))
}

/// A fixed scheme and the scenario it runs under ([`Overlay`]).
struct Under {
    scenario: Arc<Scenario>,
    spec: SchemeSpec,
}

impl Overlay for Under {
    fn check(&self, shards: u32) -> Result<(), AnalysisError> {
        self.scenario.check(&self.spec, shards)
    }

    fn start(&self, setup: &LayoutSetup) -> Result<Box<dyn ChangingLayout>, AnalysisError> {
        let scenario = &self.scenario;
        scenario.check(&self.spec, setup.nodes)?;
        let kind = self.spec.kind();
        if let Some(changing) = &kind.changing {
            let inner = (changing.start)(&self.spec.spec, setup)?;
            return Ok(Box::new(Balancing::new(
                Arc::clone(scenario),
                kind.name,
                inner,
            )));
        }
        let layout = scenario.build(&self.spec, setup.nodes, scenario.weights.as_deref())?;
        Ok(Box::new(ScenarioLayout::new(
            Arc::clone(scenario),
            self.spec.clone(),
            setup.nodes,
            layout,
        )))
    }

    fn end(&self) -> &'static LayoutEnd {
        match self.spec.kind().changing {
            Some(_) => &balancing::END,
            None => &END,
        }
    }
}

/// Columns of a scenario run's `timeline.csv` (the generic ones, then its own).
pub const TIMELINE_COLUMNS: [&str; 13] = [
    GENERIC_COLUMNS[0],
    "time_secs",
    GENERIC_COLUMNS[1],
    GENERIC_COLUMNS[2],
    GENERIC_COLUMNS[3],
    GENERIC_COLUMNS[4],
    "nodes_up",
    "throttled",
    "unavailable",
    "moved_keys",
    "moved_bytes",
    "pending_keys",
    "scenario_events",
];

/// One change of the layout, enough to build the final layout again from the spec.
#[derive(Clone, Debug, Serialize, Deserialize)]
enum Change {
    /// Resized to this many shards, with the keys given when the rule weighs them.
    Resize(u32, Option<Vec<(Vec<u8>, u64)>>),
    /// This shard removed (original number), with the keys when the rule weighs them.
    Remove(u32, Option<Vec<(Vec<u8>, u64)>>),
    /// Built again with these weights on the shards of the moment.
    Reweigh(Vec<f64>),
}

/// The final state: the spec, how it started and every change since.
#[derive(Serialize, Deserialize)]
struct FinalState {
    spec: String,
    shards: u32,
    key_type: KeyType,
    weights: Option<Vec<f64>>,
    changes: Vec<Change>,
}

/// Builds the scheme on a shard count with weights (a weight change places keys as a fresh
/// build with the new weights would).
type BuildFn<'a> = dyn Fn(u32, &[f64]) -> Result<Box<dyn Partitioner>, AnalysisError> + 'a;

/// The layout of `spec` after `changes` (the same steps the run took).
fn apply_change(
    layout: &Degraded,
    change: &Change,
    build: &BuildFn<'_>,
) -> Result<Result<Degraded, String>, AnalysisError> {
    let counts = |keys: &Option<Vec<(Vec<u8>, u64)>>| {
        let mut c = KeyCounts::new();
        for (k, n) in keys.iter().flatten() {
            c.add(k, *n);
        }
        c
    };
    Ok(match change {
        Change::Resize(to, keys) => match layout.resize_refusal(*to) {
            Some(why) => Err(why),
            None => Ok(Degraded::intact(layout.resized(*to, &counts(keys))?)),
        },
        Change::Remove(shard, keys) => match layout.without(*shard, &counts(keys))? {
            Some(d) => Ok(d),
            None => Err(layout.cannot_remove_message()),
        },
        Change::Reweigh(weights) => Ok(Degraded::intact(build(layout.shard_count(), weights)?)),
    })
}

fn final_layout(bytes: &[u8]) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let state: FinalState = decode_state(bytes)?;
    let spec = SchemeSpec::parse_list(&state.spec)?
        .pop()
        .ok_or_else(|| AnalysisError::Config("a scenario's saved layout has no scheme".into()))?;
    let build = |shards: u32, weights: &[f64]| {
        spec.build(&BuildContext {
            shards,
            warmup_keys: &[],
            key_type: state.key_type,
            weights: Some(weights).filter(|w| !w.is_empty()),
        })
    };
    let mut layout = Degraded::intact(build(
        state.shards,
        state.weights.as_deref().unwrap_or(&[]),
    )?);
    for change in &state.changes {
        layout = apply_change(&layout, change, &build)?.map_err(AnalysisError::Config)?;
    }
    Ok(Box::new(layout))
}

/// Moves of one event still under way.
struct Pending {
    /// Keys to move, sorted, with their bytes and (from, to) shards.
    movers: Vec<(Vec<u8>, u64, u32, u32)>,
    /// Keys `..cursor` have moved.
    cursor: usize,
    /// Bytes moved so far.
    spent: u64,
    /// When the moves began.
    since: f64,
    /// The row of [`ScenarioLayout::events`] they belong to.
    event: usize,
}

/// What happened at one scenario event.
struct EventRow {
    step: Step,
    applied_at: f64,
    outcome: String,
    moved_keys: u64,
    moved_bytes: u64,
    move_secs: Option<f64>,
}

/// What the layout knows of one key seen.
struct KeySeen {
    /// Its point requests.
    requests: u64,
    /// Its bytes: its length plus the size of its last event that carried one.
    bytes: u64,
    /// The phase of `phase_requests`.
    phase: usize,
    /// Its point requests in that phase.
    phase_requests: u64,
}

/// Counts of the current window.
#[derive(Default)]
struct WindowCounts {
    start: Option<f64>,
    moved_keys: u64,
    moved_bytes: u64,
    events: Vec<String>,
}

/// A fixed scheme under a scenario.
struct ScenarioLayout {
    scenario: Arc<Scenario>,
    spec: SchemeSpec,
    start_shards: u32,
    layout: Degraded,
    weights: Vec<f64>,
    changes: Vec<Change>,
    next_step: usize,
    failed: Vec<u32>,
    pending: Option<Pending>,
    /// Every key seen.
    keys: HashMap<Vec<u8>, KeySeen>,
    /// Keys seen that each node holds (moves done).
    held: Vec<u64>,
    /// `held` at each window end.
    held_series: Vec<Vec<u64>>,
    /// The most point requests of one key in the current phase.
    phase_hottest_key: u64,
    clock: EventClock,
    now: f64,
    served: Served,
    window: WindowCounts,
    graph: MoveGraph,
    events: Vec<EventRow>,
    /// Node requests per phase (phase `i` follows the `i`-th event).
    phases: Vec<(f64, Vec<u64>)>,
    /// Per window: its start, hottest node share and node requests.
    series: Vec<WindowShare>,
    seen_events: u64,
    under: (u64, f64, f64),
    replicas: Vec<u32>,
    scan: ShardSet,
}

impl ScenarioLayout {
    fn new(
        scenario: Arc<Scenario>,
        spec: SchemeSpec,
        shards: u32,
        layout: Box<dyn Partitioner>,
    ) -> ScenarioLayout {
        let served = Served::new(scenario.throttle, shards);
        let clock = EventClock::new(scenario.time_unit_ns);
        let weights = scenario.weights.clone().unwrap_or_default();
        ScenarioLayout {
            scenario,
            spec,
            start_shards: shards,
            layout: Degraded::intact(layout),
            weights,
            changes: Vec::new(),
            next_step: 0,
            failed: Vec::new(),
            pending: None,
            keys: HashMap::new(),
            held: vec![0; shards as usize],
            held_series: Vec::new(),
            phase_hottest_key: 0,
            clock,
            now: 0.0,
            served,
            window: WindowCounts::default(),
            graph: MoveGraph::default(),
            events: Vec::new(),
            phases: vec![(0.0, vec![0; shards as usize])],
            series: Vec::new(),
            seen_events: 0,
            under: (0, 0.0, 0.0),
            replicas: Vec::new(),
            scan: ShardSet::new(shards),
        }
    }

    /// The keys for a change, kept only when the scheme's rule weighs them.
    fn change_keys(&self) -> Option<Vec<(Vec<u8>, u64)>> {
        self.layout.layout().resize_learns().then(|| {
            let mut keys: Vec<(Vec<u8>, u64)> = self
                .keys
                .iter()
                .map(|(k, seen)| (k.clone(), seen.requests.max(1)))
                .collect();
            keys.sort();
            keys
        })
    }

    /// Applies every scenario event due at `now`.
    fn apply_due(&mut self) {
        while let Some(&step) = self.scenario.steps.get(self.next_step) {
            if step.at > self.now {
                break;
            }
            self.next_step += 1;
            self.finish_moves(true);
            self.account_under_replication();
            let outcome = self.apply(step);
            self.window.events.push(step.action.to_string());
            let shards = self.layout.shard_count() as usize;
            self.phases.push((self.now, vec![0; shards]));
            self.phase_hottest_key = 0;
            if self.held.len() < shards {
                self.held.resize(shards, 0);
            }
            self.served.grow(shards as u32);
            self.recount_under_replicated();
            self.events.push(EventRow {
                step,
                applied_at: self.now,
                outcome,
                moved_keys: 0,
                moved_bytes: 0,
                move_secs: None,
            });
            if let Some(p) = &mut self.pending {
                p.event = self.events.len() - 1;
            }
            self.advance_moves();
        }
    }

    /// Applies one event; returns what happened (`applied`, or why the scheme refused).
    fn apply(&mut self, step: Step) -> String {
        let change = match step.action {
            Action::Fail(s) => {
                self.failed.push(s);
                return "applied".into();
            }
            Action::Recover(s) => {
                self.failed.retain(|&f| f != s);
                return "applied".into();
            }
            Action::Add(k) => Change::Resize(self.layout.shard_count() + k, self.change_keys()),
            Action::Drain(s) => Change::Remove(s, self.change_keys()),
            Action::Weight(s, w) => {
                let n = self.layout.shard_count() as usize;
                let mut weights = self.weights.clone();
                weights.resize(n, 1.0);
                weights[s as usize] = w;
                Change::Reweigh(weights)
            }
        };
        let scenario = Arc::clone(&self.scenario);
        let spec = self.spec.clone();
        let build =
            move |shards: u32, weights: &[f64]| scenario.build(&spec, shards, Some(weights));
        let next = match apply_change(&self.layout, &change, &build) {
            Ok(Ok(next)) => next,
            Ok(Err(why)) => return format!("refused: {why}"),
            Err(e) => return format!("refused: {e}"),
        };
        if let Change::Reweigh(w) = &change {
            self.weights = w.clone();
        }
        let mut movers: Vec<(Vec<u8>, u64, u32, u32)> = self
            .keys
            .iter()
            .filter_map(|(k, &KeySeen { bytes, .. })| {
                let (from, to) = (self.layout.shard_of(k), next.shard_of(k));
                (from != to).then(|| (k.clone(), bytes, from, to))
            })
            .collect();
        movers.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        self.layout = next;
        self.changes.push(change);
        self.pending = Some(Pending {
            movers,
            cursor: 0,
            spent: 0,
            since: self.now,
            event: 0,
        });
        "applied".into()
    }

    /// Moves what the budget allows by now (everything when `all`, or without a budget).
    fn advance_moves(&mut self) {
        self.finish_moves(false);
    }

    fn finish_moves(&mut self, all: bool) {
        let Some(p) = &mut self.pending else { return };
        let allowance = match (all, self.scenario.move_rate) {
            (false, Some(rate)) => rate * (self.now - p.since),
            _ => f64::INFINITY,
        };
        let row = &mut self.events[p.event];
        while let Some(&(_, bytes, from, to)) = p.movers.get(p.cursor) {
            if (p.spent + bytes) as f64 > allowance {
                break;
            }
            p.spent += bytes;
            p.cursor += 1;
            self.graph.add(from, to, 1);
            self.held[from as usize] = self.held[from as usize].saturating_sub(1);
            self.held[to as usize] += 1;
            row.moved_keys += 1;
            row.moved_bytes += bytes;
            self.window.moved_keys += 1;
            self.window.moved_bytes += bytes;
        }
        if p.cursor == p.movers.len() {
            row.move_secs = Some(match (all, self.scenario.move_rate) {
                (false, Some(rate)) => p.spent as f64 / rate,
                _ => crate::changing::elapsed(p.since, self.now),
            });
            self.pending = None;
        }
    }

    /// Adds the key x time of under-replication since the last count.
    fn account_under_replication(&mut self) {
        let (keys, since, total) = self.under;
        self.under = (keys, self.now, total + keys as f64 * (self.now - since));
    }

    fn recount_under_replicated(&mut self) {
        let mut keys = 0;
        if !self.failed.is_empty() {
            let mut replicas = Vec::new();
            for k in self.keys.keys() {
                replicas.clear();
                self.layout
                    .replicas(k, self.scenario.replicas, &mut replicas);
                keys += replicas.iter().any(|s| self.failed.contains(s)) as u64;
            }
        }
        self.under.0 = keys;
    }

    /// The owner of `key` now: its old owner while its move waits.
    fn owner(&self, key: &[u8]) -> u32 {
        if let Some(p) = &self.pending {
            if let Ok(i) = p.movers.binary_search_by(|m| m.0.as_slice().cmp(key)) {
                if i >= p.cursor {
                    return p.movers[i].2;
                }
            }
        }
        self.layout.shard_of(key)
    }

    /// The first replica of `key` that is up, from `owner`.
    fn serving(&mut self, key: &[u8], owner: u32) -> Option<u32> {
        if !self.failed.contains(&owner) {
            return Some(owner);
        }
        self.replicas.clear();
        self.layout
            .replicas(key, self.scenario.replicas, &mut self.replicas);
        self.replicas
            .iter()
            .copied()
            .find(|s| !self.failed.contains(s))
    }
}

impl ChangingLayout for ScenarioLayout {
    fn window_time(&self) -> WindowTime {
        WindowTime::Auto
    }

    fn nodes(&self) -> u32 {
        self.layout.shard_count()
    }

    fn route(&mut self, e: &Event<'_>, out: &mut ShardSet) {
        let (now, second) = self.clock.tick(e);
        self.now = now;
        self.window.start.get_or_insert(now);
        self.apply_due();
        self.advance_moves();
        self.seen_events += 1;
        if e.op != Op::Scan && !self.keys.contains_key(e.key) {
            let owner = self.layout.shard_of(e.key) as usize;
            if let Some(held) = self.held.get_mut(owner) {
                *held += 1;
            }
            let seen = KeySeen {
                requests: 0,
                bytes: e.key.len() as u64,
                phase: 0,
                phase_requests: 0,
            };
            self.keys.insert(e.key.to_vec(), seen);
        }
        if let Some(seen) = self.keys.get_mut(e.key).filter(|_| e.op != Op::Scan) {
            seen.requests += 1;
            if let Some(size) = e.size {
                seen.bytes = e.key.len() as u64 + u64::from(size);
            }
        }
        let scan = e.op == Op::Scan && e.end.is_some_and(|end| end > e.key);
        if scan {
            self.scan.clear();
            self.layout
                .scan_shards(e.key, e.end.unwrap_or_default(), &mut self.scan);
            let n = self.layout.shard_count();
            for s in self.scan.iter() {
                let up = (0..self.scenario.replicas.min(n))
                    .map(|i| (s + i) % n)
                    .find(|r| !self.failed.contains(r));
                match up {
                    Some(r) => {
                        out.insert(r);
                    }
                    None => {
                        out.clear();
                        break;
                    }
                }
            }
        } else {
            let owner = self.owner(e.key);
            if let Some(s) = self.serving(e.key, owner) {
                out.insert(s);
            }
        }
        if out.is_empty() {
            self.served.unavailable();
            return;
        }
        let phase_index = self.phases.len() - 1;
        if let Some(seen) = self.keys.get_mut(e.key).filter(|_| e.op != Op::Scan) {
            if seen.phase != phase_index {
                (seen.phase, seen.phase_requests) = (phase_index, 0);
            }
            seen.phase_requests += 1;
            self.phase_hottest_key = self.phase_hottest_key.max(seen.phase_requests);
        }
        let write = matches!(e.op, Op::Put | Op::Delete);
        let phase = &mut self.phases[phase_index].1;
        for s in out.iter() {
            if let Some(c) = phase.get_mut(s as usize) {
                *c += 1;
            }
            self.served.request(s, second, write);
        }
    }

    fn end_window(&mut self, _log: &WindowLog, load: &WindowLoad<'_>) -> Vec<Cell> {
        let w = std::mem::take(&mut self.window);
        let (throttled, unavailable) = self.served.end_window();
        self.held_series.push(self.held.clone());
        let start = w.start.unwrap_or(self.now);
        self.series.push(WindowShare {
            start,
            hottest: load.hottest_node_share,
            requests: load.requests,
        });
        let n = self.layout.shard_count();
        let up = (0..n)
            .filter(|s| !self.failed.contains(s) && self.layout.live().contains(s))
            .count();
        let pending = self
            .pending
            .as_ref()
            .map_or(0, |p| (p.movers.len() - p.cursor) as u64);
        vec![
            Cell::Number(Some(start)),
            Cell::Count(up as u64),
            Cell::Count(throttled),
            Cell::Count(unavailable),
            Cell::Count(w.moved_keys),
            Cell::Count(w.moved_bytes),
            Cell::Count(pending),
            Cell::Text(w.events.join("; ")),
        ]
    }

    fn timeline_columns(&self) -> Vec<&'static str> {
        TIMELINE_COLUMNS.to_vec()
    }

    fn final_state(&self) -> Result<Vec<u8>, AnalysisError> {
        encode_state(&FinalState {
            spec: self.spec.label(),
            shards: self.start_shards,
            key_type: self.scenario.key_type,
            weights: self.scenario.weights.clone(),
            changes: self.changes.clone(),
        })
    }

    fn output(&self) -> LayoutOutput {
        // Keys of each event still waiting to move at the end.
        let mut left = vec![0u64; self.events.len()];
        if let Some(p) = &self.pending {
            left[p.event] = (p.movers.len() - p.cursor) as u64;
        }
        let converge: Vec<Option<f64>> = (0..self.events.len())
            .map(|i| self.converge_secs(i))
            .collect();
        let events = self
            .events
            .iter()
            .zip(&converge)
            .zip(&left)
            .map(|((r, c), left)| {
                vec![
                    Cell::Count(r.step.line as u64),
                    Cell::Number(Some(r.step.at)),
                    Cell::Number(Some(r.applied_at)),
                    Cell::Text(r.step.action.to_string()),
                    Cell::Text(r.outcome.clone()),
                    Cell::Count(r.moved_keys),
                    Cell::Count(r.moved_bytes),
                    Cell::Count(*left),
                    Cell::Number(r.move_secs),
                    Cell::Number(*c),
                ]
            })
            .collect();
        let phases = self
            .phases
            .iter()
            .enumerate()
            .flat_map(|(i, (from, nodes))| {
                nodes.iter().enumerate().map(move |(node, &requests)| {
                    vec![
                        Cell::Count(i as u64),
                        Cell::Number(Some(*from)),
                        Cell::Count(node as u64),
                        Cell::Count(requests),
                    ]
                })
            })
            .collect();
        let mut under = self.under;
        under.2 += under.0 as f64 * (self.now - under.1);
        let max = |v: &mut dyn Iterator<Item = f64>| {
            v.fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))))
        };
        let values = [
            self.served.throttled_share(),
            self.served.unavailable_share(self.seen_events),
            Some(self.events.iter().map(|r| r.moved_keys).sum::<u64>() as f64),
            Some(self.events.iter().map(|r| r.moved_bytes).sum::<u64>() as f64),
            Some(self.graph.redundant() as f64),
            // Undefined while the moves of an event are not done at the end.
            match self.pending {
                Some(_) => None,
                None => {
                    Some(max(&mut self.events.iter().filter_map(|r| r.move_secs)).unwrap_or(0.0))
                }
            },
            max(&mut converge.iter().flatten().copied()),
            Some(under.2),
            Some(
                self.events
                    .iter()
                    .filter(|r| r.outcome != "applied")
                    .count() as f64,
            ),
            Some(self.thrash()),
            self.overcommit(),
        ];
        LayoutOutput {
            tables: vec![
                Table::new(
                    "events",
                    &[
                        "line",
                        "at_secs",
                        "applied_secs",
                        "action",
                        "outcome",
                        "moved_keys",
                        "moved_bytes",
                        "keys_left",
                        "move_secs",
                        "converge_secs",
                    ],
                    events,
                ),
                Table::new(
                    "phases",
                    &["phase", "from_secs", "node", "requests"],
                    phases,
                ),
            ],
            metrics: METRICS
                .iter()
                .zip(values)
                .map(|(d, value)| MetricValue {
                    name: d.name,
                    unit: d.unit,
                    value,
                })
                .collect(),
        }
    }
}

impl ScenarioLayout {
    /// [`thrash`] of the keys each node held at each window end (see [`METRICS`]).
    fn thrash(&self) -> f64 {
        let nodes = self.held_series.last().map_or(0, Vec::len);
        let series: Vec<Vec<f64>> = (0..nodes)
            .map(|n| {
                let at = |w: &Vec<u64>| w.get(n).copied().unwrap_or(0) as f64;
                self.held_series.iter().map(at).collect()
            })
            .collect();
        thrash(&series)
    }

    /// The busiest node of the last phase against the best possible (see [`METRICS`]).
    fn overcommit(&self) -> Option<f64> {
        let requests = &self.phases.last()?.1;
        let total: u64 = requests.iter().sum();
        let busiest = requests.iter().copied().max().unwrap_or(0);
        let live = self.layout.live();
        let up = (0..requests.len() as u32)
            .filter(|s| !self.failed.contains(s) && live.contains(s))
            .count()
            .max(1);
        let best = (total as f64 / up as f64).max(self.phase_hottest_key as f64);
        (total > 0).then(|| busiest as f64 / best)
    }

    /// Seconds after event `i` until the hottest node share settles (see [`METRICS`]).
    fn converge_secs(&self, i: usize) -> Option<f64> {
        let until = self
            .events
            .get(i + 1)
            .map_or(f64::INFINITY, |r| r.applied_at);
        converge_secs(&self.series, self.events[i].applied_at, until)
    }
}
