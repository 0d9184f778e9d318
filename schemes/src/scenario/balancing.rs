//! A balancer under a scenario ([`Balancing`]): the changing layout of a balancer kind
//! (`citus`, `pd-hot`, `slicer`, `range-dynamic`) to which the scenario's events happen at
//! their times, each by the balancer's own rule.
//!
//! - `add K`, `drain S`, `weight S W` go to the balancer ([`ChangingLayout::apply_action`]):
//!   it applies them or refuses them with a reason (events.csv outcome `refused: ...`,
//!   counted in `refused_events`). Its own balancing then moves the data at the next window
//!   ends, paced by its own `move_rate`; a drain is done when the node holds nothing
//!   (`drain_secs`).
//! - `fail S` and `recover S` are the scenario's, the same for every balancer: a balancer keeps
//!   one copy of every key, so while node S is failed every event that contacts it is
//!   unavailable (as a fixed scheme with `--replicas 1`); the balancer is not told and moves
//!   nothing because of it.
//! - `--throttle` gives every node a token bucket, as for fixed schemes.
//!
//! The figures: the balancer's own, plus `throttled_share`, `unavailable_share`,
//! `converge_secs` (after each event, [`converge_secs`]), `refused_events` and `drain_secs`.

use std::sync::{Arc, LazyLock};

use serde::{Deserialize, Serialize};
use workloads::{Event, Op};

use super::{Action, EventClock, Scenario, Served, Step, METRICS as SCENARIO_METRICS};
use crate::changing::{
    converge_secs, decode_state, encode_state, Cell, ChangingLayout, LayoutEnd, LayoutOutput,
    Table, WindowLoad, WindowLog, WindowShare, WindowTime,
};
use crate::value::{MetricDef, MetricId, MetricValue};
use crate::{AnalysisError, Partitioner, ShardSet, CHANGING_SCHEMES};

/// The scenario figures a balancer under a scenario reports, by name, then its own.
const SCENARIO_FIGURES: [MetricId; 4] = [
    super::THROTTLED_SHARE,
    super::UNAVAILABLE_SHARE,
    super::CONVERGE_SECS,
    super::REFUSED_EVENTS,
];

/// The figure of a balancer's drains.
pub const DRAIN_SECS: MetricDef = MetricDef {
    name: "drain_secs",
    unit: "s",
    definition: "Balancers under a scenario: the longest time from a drain until the node held nothing (the balancer moved every shard, region, slice or range off it, paced by its move_rate); 0 without a drain; empty when a drain was not done by the end of the trace.",
};

/// Every figure a balancer under a scenario may report: the scenario's that apply,
/// [`DRAIN_SECS`], and every balancer's own (a balancer's `converge_secs` after its start
/// gives way to the scenario's, after each event).
static METRICS: LazyLock<Vec<MetricDef>> = LazyLock::new(|| {
    let mut all: Vec<MetricDef> = SCENARIO_FIGURES
        .iter()
        .filter_map(|id| {
            SCENARIO_METRICS
                .iter()
                .find(|d| d.name == id.name())
                .copied()
        })
        .chain([DRAIN_SECS])
        .collect();
    let own = CHANGING_SCHEMES
        .iter()
        .filter_map(|k| k.changing.as_ref())
        .flat_map(|c| c.end.metrics.iter().copied());
    for def in own {
        if !all.iter().any(|d| d.name == def.name) {
            all.push(def);
        }
    }
    all
});

/// What a balancer under a scenario leaves at the end.
pub static END: LazyLock<LayoutEnd> = LazyLock::new(|| LayoutEnd {
    metrics: &METRICS,
    final_layout,
});

/// Columns added to the balancer's own `timeline.csv` columns.
const TIMELINE_COLUMNS: [&str; 5] = [
    "time_secs",
    "nodes_up",
    "throttled",
    "unavailable",
    "scenario_events",
];

/// The columns of a balancer's `events.csv`.
const EVENT_COLUMNS: [&str; 9] = [
    "line",
    "at_secs",
    "applied_secs",
    "action",
    "outcome",
    "moves",
    "moved_bytes",
    "move_secs",
    "converge_secs",
];

/// The final state: the balancer's kind and its own final state.
#[derive(Serialize, Deserialize)]
struct FinalState {
    kind: String,
    state: Vec<u8>,
}

fn final_layout(bytes: &[u8]) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let state: FinalState = decode_state(bytes)?;
    let end = CHANGING_SCHEMES
        .iter()
        .find(|k| k.name == state.kind)
        .and_then(|k| k.changing.as_ref())
        .ok_or_else(|| {
            AnalysisError::Config(format!(
                "a scenario's saved layout names an unknown balancer '{}'",
                state.kind
            ))
        })?;
    (end.end.final_layout)(&state.state)
}

/// What happened at one scenario event.
struct EventRow {
    step: Step,
    applied_at: f64,
    outcome: Result<(), String>,
    /// The balancer's moves made when it came.
    moves_before: (u64, Option<u64>),
    /// For an applied drain: seconds until the node held nothing.
    drain_secs: Option<f64>,
}

/// Counts of the current window.
#[derive(Default)]
struct WindowCounts {
    start: Option<f64>,
    events: Vec<String>,
}

/// A balancer's changing layout under a scenario.
pub struct Balancing {
    scenario: Arc<Scenario>,
    kind: &'static str,
    inner: Box<dyn ChangingLayout>,
    clock: EventClock,
    now: f64,
    next_step: usize,
    failed: Vec<u32>,
    served: Served,
    rows: Vec<EventRow>,
    windows: Vec<WindowShare>,
    window: WindowCounts,
    seen_events: u64,
}

impl Balancing {
    /// `inner`, a layout of the balancer kind `kind`, under `scenario`.
    pub fn new(
        scenario: Arc<Scenario>,
        kind: &'static str,
        inner: Box<dyn ChangingLayout>,
    ) -> Balancing {
        let served = Served::new(scenario.throttle, inner.nodes());
        let clock = EventClock::new(scenario.time_unit_ns);
        Balancing {
            scenario,
            kind,
            inner,
            clock,
            now: 0.0,
            next_step: 0,
            failed: Vec::new(),
            served,
            rows: Vec::new(),
            windows: Vec::new(),
            window: WindowCounts::default(),
            seen_events: 0,
        }
    }

    /// Applies every scenario event due by now.
    fn apply_due(&mut self) {
        while let Some(&step) = self.scenario.steps.get(self.next_step) {
            if step.at > self.now {
                break;
            }
            self.next_step += 1;
            let outcome = match step.action {
                Action::Fail(s) => {
                    self.failed.push(s);
                    Ok(())
                }
                Action::Recover(s) => {
                    self.failed.retain(|&f| f != s);
                    Ok(())
                }
                action => self.inner.apply_action(&action),
            };
            self.served.grow(self.inner.nodes());
            self.window.events.push(step.action.to_string());
            self.rows.push(EventRow {
                step,
                applied_at: self.now,
                outcome,
                moves_before: self.inner.moves_made(),
                drain_secs: None,
            });
        }
    }

    /// Nodes answering: neither failed nor drained to nothing.
    fn nodes_up(&self) -> u64 {
        let gone = |n: &u32| self.failed.contains(n) || self.drained(*n);
        (0..self.inner.nodes()).filter(|n| !gone(n)).count() as u64
    }

    /// True when node `n` was drained and holds nothing.
    fn drained(&self, n: u32) -> bool {
        self.rows
            .iter()
            .any(|r| r.step.action == Action::Drain(n) && r.drain_secs.is_some())
    }

    /// The `events.csv` rows and each event's converge_secs.
    fn events_table(&self) -> (Table, Vec<Option<f64>>) {
        let end = self.inner.moves_made();
        let mut converge = Vec::new();
        let rows = self
            .rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let next = self.rows.get(i + 1);
                let until = next.map_or(f64::INFINITY, |n| n.applied_at);
                let c = converge_secs(&self.windows, r.applied_at, until);
                converge.push(c);
                let after = next.map_or(end, |n| n.moves_before);
                let bytes = after.1.zip(r.moves_before.1).map(|(a, b)| a - b);
                vec![
                    Cell::Count(r.step.line as u64),
                    Cell::Number(Some(r.step.at)),
                    Cell::Number(Some(r.applied_at)),
                    Cell::Text(r.step.action.to_string()),
                    Cell::Text(match &r.outcome {
                        Ok(()) => "applied".into(),
                        Err(why) => format!("refused: {why}"),
                    }),
                    Cell::Count(after.0 - r.moves_before.0),
                    bytes.map_or(Cell::Number(None), Cell::Count),
                    Cell::Number(r.drain_secs),
                    Cell::Number(c),
                ]
            })
            .collect();
        (Table::new("events", &EVENT_COLUMNS, rows), converge)
    }

    /// The longest drain, `None` when one was not done.
    fn drain_secs(&self) -> Option<f64> {
        self.rows
            .iter()
            .filter(|r| r.outcome.is_ok() && matches!(r.step.action, Action::Drain(_)))
            .try_fold(0.0, |m: f64, r| r.drain_secs.map(|d| m.max(d)))
    }
}

impl ChangingLayout for Balancing {
    fn window_time(&self) -> WindowTime {
        self.inner.window_time()
    }

    fn nodes(&self) -> u32 {
        self.inner.nodes()
    }

    fn begin_window(&mut self, index: u64, log: &WindowLog) {
        self.inner.begin_window(index, log);
    }

    fn route(&mut self, e: &Event<'_>, out: &mut ShardSet) {
        let (now, second) = self.clock.tick(e);
        self.now = now;
        self.window.start.get_or_insert(now);
        self.apply_due();
        self.seen_events += 1;
        self.inner.route(e, out);
        if out.iter().any(|n| self.failed.contains(&n)) {
            out.clear();
        }
        if out.is_empty() {
            self.served.unavailable();
            return;
        }
        let write = matches!(e.op, Op::Put | Op::Delete);
        for n in out.iter() {
            self.served.request(n, second, write);
        }
    }

    fn end_window(&mut self, log: &WindowLog, load: &WindowLoad<'_>) -> Vec<Cell> {
        let mut cells = self.inner.end_window(log, load);
        let w = std::mem::take(&mut self.window);
        let (throttled, unavailable) = self.served.end_window();
        let start = w.start.unwrap_or(self.now);
        self.windows.push(WindowShare {
            start,
            hottest: load.hottest_node_share,
            requests: load.requests,
        });
        for i in 0..self.rows.len() {
            let r = &self.rows[i];
            if let (Ok(()), Action::Drain(s), None) = (&r.outcome, r.step.action, r.drain_secs) {
                if self.inner.holds_nothing(s) {
                    let took = crate::changing::elapsed(r.applied_at, self.now);
                    self.rows[i].drain_secs = Some(took);
                }
            }
        }
        cells.extend([
            Cell::Number(Some(start)),
            Cell::Count(self.nodes_up()),
            Cell::Count(throttled),
            Cell::Count(unavailable),
            Cell::Text(w.events.join("; ")),
        ]);
        cells
    }

    fn timeline_columns(&self) -> Vec<&'static str> {
        let mut columns = self.inner.timeline_columns();
        columns.extend(TIMELINE_COLUMNS);
        columns
    }

    fn final_state(&self) -> Result<Vec<u8>, AnalysisError> {
        encode_state(&FinalState {
            kind: self.kind.to_string(),
            state: self.inner.final_state()?,
        })
    }

    fn output(&self) -> LayoutOutput {
        let own = self.inner.output();
        let (events, converge) = self.events_table();
        let values = [
            self.served.throttled_share(),
            self.served.unavailable_share(self.seen_events),
            converge.iter().flatten().copied().reduce(f64::max),
            Some(self.rows.iter().filter(|r| r.outcome.is_err()).count() as f64),
            self.drain_secs(),
        ];
        let scenario = METRICS.iter().zip(values).map(|(d, value)| MetricValue {
            name: d.name,
            unit: d.unit,
            value,
        });
        let metrics = scenario
            .chain(
                own.metrics
                    .into_iter()
                    .filter(|m| m.name != super::CONVERGE_SECS.name()),
            )
            .collect();
        let mut tables = own.tables;
        tables.push(events);
        LayoutOutput { tables, metrics }
    }
}
