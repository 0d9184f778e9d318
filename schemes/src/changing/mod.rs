//! Layouts that change while the events replay ([`ChangingLayout`]): ranges that split,
//! merge and move, nodes added or removed. The engine's one replay pass feeds every such
//! layout the whole stream in order, cut into windows ([`Windower`]); at the end of each
//! window the layout routes the window's events with the layout as it stands, then changes.
//! A fixed scheme never changes: it is a [`crate::Partitioner`] instead.
//!
//! Adding a changing layout: one file implementing [`ChangingLayout`] with a `pub const KIND:
//! SchemeKind` whose `changing` is set, and one line in [`crate::CHANGING_SCHEMES`]. The
//! engine counts every layout's node loads, scan fan-out and key counts and writes its
//! `timeline.csv` rows (the [`GENERIC_COLUMNS`] and the layout's own columns), its other
//! [`Table`]s (one CSV file each) and its metrics beside every scheme's.

mod action;
mod budget;
mod converge;
mod key_bytes;
mod table;
mod window;

pub use action::Action;
pub use budget::MoveBudget;
pub use converge::{converge_secs, elapsed, Settling, WindowShare, CONVERGE_AFTER_START};
pub use key_bytes::KeyBytes;
pub use table::{Cell, Table};
pub use window::{WindowClock, WindowLog, WindowSink, WindowTime, Windower, MAX_IDLE_WINDOWS};

use workloads::{Event, Spec};

use crate::value::{MetricDef, MetricValue};
use crate::{AnalysisError, Partitioner, ShardSet};

/// The columns of `timeline.csv` the engine fills for every changing layout: the window's
/// index, its events, the node requests they made (a scan counts once per node it contacts),
/// whether it holds measured events (after the warm-up), and the busiest node's share of its
/// node requests (0 when idle).
pub const GENERIC_COLUMNS: [&str; 5] = [
    "window",
    "events",
    "requests",
    "measured",
    "hottest_node_share",
];

/// What a changing layout starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayoutSetup {
    /// Nodes `N` at the start (at least 1).
    pub nodes: u32,
    /// Nanoseconds of one timestamp unit of the trace (`--time-unit`, else the format's own),
    /// for budgets and rates in seconds of trace time.
    pub time_unit_ns: u64,
}

/// One closed window as the engine measured it, after the layout routed its events.
#[derive(Clone, Copy, Debug)]
pub struct WindowLoad<'a> {
    /// The window's index (0-based; idle stretches past [`MAX_IDLE_WINDOWS`] are skipped).
    pub index: u64,
    /// Events in the window.
    pub events: u64,
    /// Node requests of the window's events, per node (warm-up events included).
    pub node_requests: &'a [u64],
    /// Their sum.
    pub requests: u64,
    /// The busiest node's share of `requests` (0 when idle).
    pub hottest_node_share: f64,
    /// True when the window holds measured events.
    pub measured: bool,
}

/// A layout that may change at window ends.
pub trait ChangingLayout: Send {
    /// How the stream is cut into windows (by event count unless the layout says otherwise).
    fn window_time(&self) -> WindowTime {
        WindowTime::Events
    }

    /// Nodes now; every node a route names is below it.
    fn nodes(&self) -> u32;

    /// Window `index` closed with the events of `log`, before they are routed (a layout that
    /// pre-splits knowing the first window's keys does it here). Nothing by default.
    fn begin_window(&mut self, index: u64, log: &WindowLog) {
        let _ = (index, log);
    }

    /// Inserts into `out` the nodes event `e` contacts with the layout as it stands (a
    /// layout may record the request, as a range counts its load).
    fn route(&mut self, e: &Event<'_>, out: &mut ShardSet);

    /// The window's events were routed and counted (`load`): the layout changes (splits,
    /// merges, moves, nodes added or removed) and returns its own cells of the window's
    /// `timeline.csv` row, one per column of [`ChangingLayout::timeline_columns`] that is not
    /// a [generic](GENERIC_COLUMNS) one, in that order.
    fn end_window(&mut self, log: &WindowLog, load: &WindowLoad<'_>) -> Vec<Cell>;

    /// Every column of `timeline.csv` in order: the [`GENERIC_COLUMNS`] (the engine fills
    /// them, wherever they stand) and the layout's own.
    fn timeline_columns(&self) -> Vec<&'static str> {
        GENERIC_COLUMNS.to_vec()
    }

    /// The layout at the end of the stream as bytes ([`encode_state`]) that its kind's
    /// [`LayoutEnd::final_layout`] turns into a fixed layout. Every run goes through the bytes,
    /// so a run cut into parts, whose merge reads them from a file, measures the same layout.
    fn final_state(&self) -> Result<Vec<u8>, AnalysisError>;

    /// Its tables other than the timeline (one CSV file each) and its own metrics' values,
    /// in the order of its [`LayoutEnd::metrics`].
    fn output(&self) -> LayoutOutput;

    /// Applies a scenario event (`run --scenario`) by the layout's own rule: `add K` and
    /// `drain S` (or `weight S W`). Its moves are made by the layout's own balancing at the
    /// next window ends, paced as its moves always are. `Err` says why the layout refuses it
    /// (nothing changed). The scenario file was checked ([`crate::scenario::check`]): a node
    /// drained exists, was not drained before and is not the last one. Failures are not the
    /// layout's: a failed node just stops answering ([`crate::scenario`]). By default every
    /// event is refused ([`no_rule`]).
    fn apply_action(&mut self, action: &Action) -> Result<(), String> {
        Err(no_rule(action))
    }

    /// True when `node` holds no data and no request routes to it (a drain is done).
    fn holds_nothing(&self, node: u32) -> bool {
        let _ = node;
        false
    }

    /// The moves made since the start, in the layout's own units (shards, regions, slices),
    /// and their bytes when the layout counts them.
    fn moves_made(&self) -> (u64, Option<u64>) {
        (0, None)
    }
}

/// What a changing layout reports at the end beside the timeline.
#[derive(Clone, Debug, Default)]
pub struct LayoutOutput {
    /// Its tables (`splits`, `finders`, ...).
    pub tables: Vec<Table>,
    /// Its own metrics, for `summary.csv`.
    pub metrics: Vec<MetricValue>,
}

/// The constructor of a changing layout: its spec and setup to the layout at the start.
pub type StartFn = fn(&Spec, &LayoutSetup) -> Result<Box<dyn ChangingLayout>, AnalysisError>;

/// How the registry starts a changing layout (a [`crate::SchemeKind`]'s `changing`).
#[derive(Clone, Copy)]
pub struct Changing {
    /// Checks the parameters without data; errors name the spec and the bad value.
    pub check: fn(&Spec) -> Result<(), AnalysisError>,
    /// Starts the layout.
    pub start: StartFn,
    /// Its metrics and its layout at the end.
    pub end: LayoutEnd,
}

/// What a changing layout leaves at the end, however it started: its own metrics and its
/// final layout.
#[derive(Clone, Copy)]
pub struct LayoutEnd {
    /// Its own metrics (the values of [`LayoutOutput::metrics`]).
    pub metrics: &'static [MetricDef],
    /// The layout at the end from its [`ChangingLayout::final_state`], as a fixed layout: the
    /// owner of every key, how scans route, and its own rule to grow or shrink, through which
    /// its remap and growth figures are measured as every scheme's are.
    pub final_layout: FinalLayoutFn,
}

/// A run-wide rule that replays one fixed scheme as a changing layout (a scenario of
/// cluster events, [`crate::scenario`]). A [`crate::SchemeSpec`] under an overlay
/// ([`crate::SchemeSpec::under`]) checks and starts through it instead of through its kind.
pub trait Overlay: Send + Sync {
    /// Why the scheme cannot run under the overlay on `shards` shards.
    fn check(&self, shards: u32) -> Result<(), AnalysisError>;
    /// Starts the layout.
    fn start(&self, setup: &LayoutSetup) -> Result<Box<dyn ChangingLayout>, AnalysisError>;
    /// Its metrics and its layout at the end.
    fn end(&self) -> &'static LayoutEnd;
}

/// Turns a changing layout's [`ChangingLayout::final_state`] into a fixed layout.
pub type FinalLayoutFn = fn(&[u8]) -> Result<Box<dyn Partitioner>, AnalysisError>;

/// Why a changing layout refuses `action`, which it has no rule for.
pub fn no_rule(action: &Action) -> String {
    match action {
        Action::Weight(..) => {
            "its nodes are equal (each is balanced to the mean load): it has no weights".into()
        }
        _ => format!("it has no rule for '{action}' under a scenario"),
    }
}

/// The refusal of a changing layout asked to be built as a fixed one: `spec` `changes` (its
/// ranges, shards, ...) as events replay.
pub fn not_built(spec: &Spec, changes: &str) -> AnalysisError {
    AnalysisError::Config(format!(
        "'{spec}' {changes} as events replay; it is simulated by the replay, not built as a fixed layout"
    ))
}

/// `value` as the bytes of a [`ChangingLayout::final_state`].
pub fn encode_state<T: serde::Serialize>(value: &T) -> Result<Vec<u8>, AnalysisError> {
    postcard::to_stdvec(value)
        .map_err(|e| AnalysisError::Config(format!("cannot encode a layout's state: {e}")))
}

/// The value [`encode_state`] encoded in `bytes`.
pub fn decode_state<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, AnalysisError> {
    postcard::from_bytes(bytes)
        .map_err(|e| AnalysisError::Config(format!("a layout's saved state is damaged: {e}")))
}
