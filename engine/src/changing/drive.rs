//! The replay of one changing layout: the stream cut into windows, each window's events routed
//! by the layout as it stands, counted as every scheme's requests are counted (node requests
//! overall and per window and scan fan-out, after the warm-up), then handed to
//! the layout to change, and its `timeline.csv` row written.

use schemes::changing::{
    Cell, ChangingLayout, LayoutEnd, LayoutSetup, Table, WindowLoad, WindowLog, WindowSink,
    Windower,
};
use schemes::{AnalysisError, SchemeSpec, ShardSet};
use workloads::{EventChunk, EventSource, Op};

use super::{LayoutRecord, LayoutRun};
use crate::metrics::fanout::FanoutAccumulator;

/// How a changing layout is replayed besides its own parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayoutOptions {
    /// Nodes `N` at the start (at least 1).
    pub nodes: u32,
    /// Window length in events (with timestamps: the average the time windows are sized for).
    pub window: u64,
    /// Leading events that the layout replays (it splits, merges and moves) but that the
    /// node loads, scan fan-out and key counts of the result leave out, as the replay engine
    /// leaves out the warm-up of learned schemes.
    pub warmup_events: u64,
    /// Nanoseconds of one timestamp unit of the trace ([`LayoutSetup::time_unit_ns`]).
    pub time_unit_ns: u64,
}

impl LayoutOptions {
    /// What a layout starts from under these options.
    pub fn setup(&self) -> LayoutSetup {
        LayoutSetup {
            nodes: self.nodes,
            time_unit_ns: self.time_unit_ns,
        }
    }
}

/// Starts the changing layout of `spec` on `opts.nodes` nodes and replays `source` through it.
pub fn drive(
    spec: &SchemeSpec,
    opts: &LayoutOptions,
    source: &mut dyn EventSource,
) -> Result<LayoutRun, AnalysisError> {
    check(opts)?;
    let (mut layout, end) = spec.start_layout(&opts.setup())?;
    drive_layout(layout.as_mut(), (spec.label(), end), opts, source)
}

/// Replays `source` through `layout` (already started on `opts.nodes` nodes), labelled `label`,
/// ending as `end` says; the layout keeps its state, for a caller that reads it afterwards.
pub fn drive_layout<L: ChangingLayout + ?Sized>(
    layout: &mut L,
    (label, end): (String, &LayoutEnd),
    opts: &LayoutOptions,
    source: &mut dyn EventSource,
) -> Result<LayoutRun, AnalysisError> {
    check(opts)?;
    let mut windower = Windower::new(layout.window_time(), opts.window);
    let mut counts = Counts::new(layout, opts);
    let mut chunk = EventChunk::with_capacity(1 << 14);
    loop {
        chunk.clear();
        if source.fill(&mut chunk, 1 << 14)? == 0 {
            break;
        }
        for e in chunk.iter() {
            windower.push(e, &mut counts);
        }
    }
    let clock = windower.finish(&mut counts);
    let Counts {
        layout,
        timeline,
        events_seen,
        node_requests,
        window_node_requests,
        window_events,
        fanout,
        ..
    } = counts;
    // Windows before a node was added count nothing on it.
    let mut window_node_requests = window_node_requests;
    for w in &mut window_node_requests {
        w.resize(node_requests.len().max(w.len()), 0);
    }
    let output = layout.output();
    let record = LayoutRecord {
        label,
        nodes: opts.nodes,
        clock,
        events: events_seen,
        measured_events: events_seen.saturating_sub(opts.warmup_events),
        timeline: Table::new("timeline", &layout.timeline_columns(), timeline),
        tables: output.tables,
        final_state: layout.final_state()?,
        node_requests,
        window_node_requests,
        window_events,
        fanout: fanout.finish(),
    };
    LayoutRun::new(record, output.metrics, end)
}

fn check(opts: &LayoutOptions) -> Result<(), AnalysisError> {
    if opts.nodes == 0 {
        return Err(AnalysisError::Config(
            "a changing layout needs at least 1 node (got 0)".into(),
        ));
    }
    if opts.window == 0 {
        return Err(AnalysisError::Config(
            "a changing layout needs windows of at least 1 event (got 0)".into(),
        ));
    }
    Ok(())
}

/// The layout and what its replay counted so far.
struct Counts<'l, L: ?Sized> {
    layout: &'l mut L,
    warmup: u64,
    events_seen: u64,
    /// The nodes the current event contacts (it grows with the nodes).
    hit: ShardSet,
    timeline: Vec<Vec<Cell>>,
    node_requests: Vec<u64>,
    window_node_requests: Vec<Vec<u32>>,
    window_events: Vec<u64>,
    fanout: FanoutAccumulator,
}

impl<'l, L: ChangingLayout + ?Sized> Counts<'l, L> {
    fn new(layout: &'l mut L, opts: &LayoutOptions) -> Self {
        Counts {
            layout,
            warmup: opts.warmup_events,
            events_seen: 0,
            hit: ShardSet::new(opts.nodes),
            timeline: Vec::new(),
            node_requests: vec![0; opts.nodes as usize],
            window_node_requests: Vec::new(),
            window_events: Vec::new(),
            fanout: FanoutAccumulator::default(),
        }
    }
}

impl<L: ChangingLayout + ?Sized> WindowSink for Counts<'_, L> {
    fn close(&mut self, index: u64, log: &WindowLog) {
        self.layout.begin_window(index, log);
        let nodes = self.layout.nodes();
        let n = nodes as usize;
        if self.node_requests.len() < n {
            self.node_requests.resize(n, 0);
        }
        let measured_from = usize::try_from(self.warmup.saturating_sub(self.events_seen))
            .unwrap_or(usize::MAX)
            .min(log.len());
        let (mut window_nodes, mut measured_nodes) = (vec![0u64; n], vec![0u32; n]);
        for (i, e) in log.events().enumerate() {
            let measured = i >= measured_from;
            self.hit.clear();
            self.layout.route(&e, &mut self.hit);
            // As in the replay of fixed schemes, a scan whose end is not after its start
            // reaches the owner of its start only: a point request.
            let scan = e.op == Op::Scan && e.end.is_none_or(|end| end > e.key);
            if measured && scan {
                self.fanout.record(self.hit.len());
            }
            // A layout may add nodes while it routes (a scenario's `add` at its time).
            let now = self.layout.nodes() as usize;
            if now > window_nodes.len() {
                window_nodes.resize(now, 0);
                measured_nodes.resize(now, 0);
                self.node_requests
                    .resize(now.max(self.node_requests.len()), 0);
            }
            let n = window_nodes.len();
            for node in self.hit.iter().map(|s| s as usize).filter(|&s| s < n) {
                window_nodes[node] += 1;
                if measured {
                    measured_nodes[node] = measured_nodes[node].saturating_add(1);
                    self.node_requests[node] += 1;
                }
            }
        }
        let measured = measured_from < log.len();
        if measured {
            self.window_node_requests.push(measured_nodes);
            self.window_events.push((log.len() - measured_from) as u64);
        }
        let requests: u64 = window_nodes.iter().sum();
        let hottest = window_nodes.iter().copied().max().unwrap_or(0);
        let load = WindowLoad {
            index,
            events: log.len() as u64,
            node_requests: &window_nodes,
            requests,
            hottest_node_share: if requests == 0 {
                0.0
            } else {
                hottest as f64 / requests as f64
            },
            measured,
        };
        let mut own = self.layout.end_window(log, &load).into_iter();
        let row = self
            .layout
            .timeline_columns()
            .into_iter()
            .map(|column| match column {
                "window" => Cell::Count(load.index),
                "events" => Cell::Count(load.events),
                "requests" => Cell::Count(load.requests),
                "measured" => Cell::Flag(load.measured),
                "hottest_node_share" => Cell::Number(Some(load.hottest_node_share)),
                _ => own.next().unwrap_or(Cell::Number(None)),
            })
            .collect();
        self.timeline.push(row);
        self.events_seen += log.len() as u64;
    }
}
