//! Replaying layouts that change while events replay ([`schemes::changing::ChangingLayout`]):
//! the stream cut into windows and fed to the layout in order, and every figure a fixed
//! scheme has counted on the way ([`drive`]), then the run as the rows every scheme has
//! ([`crate::replay::layout_result`]), its remap and growth measured through the final
//! layout's own resize rule, as every scheme's are.
//!
//! ```
//! use engine::changing::{drive, LayoutOptions};
//! use schemes::SchemeSpec;
//! use workloads::WorkloadSpec;
//! let mut source = WorkloadSpec::parse("zipf:keys=10000,s=0.99").unwrap().open(1, 40_000).unwrap();
//! let spec = &SchemeSpec::parse_list("range-dynamic:max_load=800").unwrap()[0];
//! let opts = LayoutOptions { nodes: 4, window: 4_000, warmup_events: 0 };
//! let run = drive(spec, &opts, source.as_mut()).unwrap();
//! assert_eq!(run.timeline.rows.len(), 10);
//! assert_eq!((run.label.as_str(), run.nodes, run.load().requests), ("range-dynamic:max_load=800", 4, 40_000));
//! ```

mod drive;

pub use drive::{drive, drive_layout, LayoutOptions};

use serde::{Deserialize, Serialize};

use crate::metrics::fanout::ScanFanout;
use crate::metrics::load::ShardLoad;
use crate::metrics::remap::{self, Remap};
use schemes::changing::{LayoutOutput, Table, WindowClock};
use schemes::value::MetricValue;
use schemes::{AnalysisError, KeyCounts, Partitioner, SchemeSpec};

/// Everything the replay of one changing layout produced.
pub struct LayoutRun {
    /// The scheme's label (its spec string).
    pub label: String,
    /// Nodes `N` at the start.
    pub nodes: u32,
    /// How events were cut into windows.
    pub clock: WindowClock,
    /// Events replayed (warm-up included).
    pub events: u64,
    /// Events after the warm-up.
    pub measured_events: u64,
    /// `timeline.csv`: one row per window.
    pub timeline: Table,
    /// The layout's other tables and its own metrics.
    pub output: LayoutOutput,
    /// The layout at the end ([`schemes::changing::ChangingLayout::final_state`]).
    pub final_state: Vec<u8>,
    /// The layout at the end, as a fixed layout (made from `final_state`).
    pub final_layout: Box<dyn Partitioner>,
    /// Measured requests per node (a scan counts once per node it contacts).
    pub node_requests: Vec<u64>,
    /// Measured requests per node in each window holding measured events.
    pub window_node_requests: Vec<Vec<u32>>,
    /// Measured events in each window of `window_node_requests`.
    pub window_events: Vec<u64>,
    /// Nodes contacted per measured scan (`None` without scans).
    pub fanout: Option<ScanFanout>,
}

impl std::fmt::Debug for LayoutRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LayoutRun")
            .field("label", &self.label)
            .field("nodes", &self.nodes)
            .field("events", &self.events)
            .field("windows", &self.timeline.rows.len())
            .finish_non_exhaustive()
    }
}

impl LayoutRun {
    /// Node loads and their spread, as for any scheme.
    pub fn load(&self) -> ShardLoad {
        ShardLoad::from_counts(
            self.node_requests.clone(),
            self.window_node_requests.clone(),
            self.window_events.clone(),
        )
    }

    /// Distinct keys of `keys` served by each node at the end.
    pub fn node_distinct_keys(&self, keys: &KeyCounts) -> Vec<u64> {
        let mut counts = vec![0u64; self.node_requests.len()];
        for (key, _) in keys.iter() {
            if let Some(c) = counts.get_mut(self.final_layout.shard_of(key) as usize) {
                *c += 1;
            }
        }
        counts
    }

    /// The remap of the final layout to `target` nodes by its own rule, judged on `keys`.
    pub fn remap_of(&self, target: u32, keys: &KeyCounts) -> Remap {
        remap::of_resize(self.final_layout.as_ref(), target, keys)
            .unwrap_or_else(|e| Remap::refused(target, e.to_string()))
    }

    /// The run as plain data, for a partial result ([`LayoutRun::restore`] reads it back).
    pub fn state(&self) -> LayoutRunState {
        LayoutRunState {
            label: self.label.clone(),
            nodes: self.nodes,
            clock: self.clock,
            events: self.events,
            measured_events: self.measured_events,
            timeline: self.timeline.clone(),
            tables: self.output.tables.clone(),
            metrics: self
                .output
                .metrics
                .iter()
                .map(|m| (m.name.to_string(), m.value))
                .collect(),
            final_state: self.final_state.clone(),
            node_requests: self.node_requests.clone(),
            window_node_requests: self.window_node_requests.clone(),
            window_events: self.window_events.clone(),
            fanout: self.fanout,
        }
    }

    /// The run of `spec` that [`LayoutRun::state`] saved in `state`, its final layout made
    /// again by the layout's kind and its metrics named by the kind's registry.
    pub fn restore(state: LayoutRunState, spec: &SchemeSpec) -> Result<LayoutRun, AnalysisError> {
        let changing = spec.kind().changing.as_ref().ok_or_else(|| {
            AnalysisError::Config(format!("'{}' is not a changing layout", spec.label()))
        })?;
        if state.label != spec.label() {
            return Err(AnalysisError::Config(format!(
                "the saved run is of '{}', not of '{}'",
                state.label,
                spec.label()
            )));
        }
        let metrics = state
            .metrics
            .iter()
            .map(|(name, value)| {
                let def = changing
                    .metrics
                    .iter()
                    .find(|d| d.name == name)
                    .ok_or_else(|| {
                        AnalysisError::Config(format!(
                            "the saved run of '{}' has an unknown metric '{name}'",
                            spec.label()
                        ))
                    })?;
                Ok(MetricValue {
                    name: def.name,
                    unit: def.unit,
                    value: *value,
                })
            })
            .collect::<Result<Vec<_>, AnalysisError>>()?;
        let final_layout = (changing.final_layout)(&state.final_state)?;
        let measured_windows = state.window_node_requests.len();
        if state.window_events.len() != measured_windows
            || state.node_requests.len() < state.nodes as usize
        {
            return Err(AnalysisError::Config(format!(
                "the saved run of '{}' does not hold one count per node and window",
                spec.label()
            )));
        }
        Ok(LayoutRun {
            label: state.label,
            nodes: state.nodes,
            clock: state.clock,
            events: state.events,
            measured_events: state.measured_events,
            timeline: state.timeline,
            output: LayoutOutput {
                tables: state.tables,
                metrics,
            },
            final_state: state.final_state,
            final_layout,
            node_requests: state.node_requests,
            window_node_requests: state.window_node_requests,
            window_events: state.window_events,
            fanout: state.fanout,
        })
    }
}

/// A [`LayoutRun`] as plain data ([`LayoutRun::state`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayoutRunState {
    /// The scheme's label.
    pub label: String,
    /// Nodes at the start.
    pub nodes: u32,
    /// How events were cut into windows.
    pub clock: WindowClock,
    /// Events replayed.
    pub events: u64,
    /// Events after the warm-up.
    pub measured_events: u64,
    /// The timeline.
    pub timeline: Table,
    /// The layout's other tables.
    pub tables: Vec<Table>,
    /// Its own metrics by name.
    pub metrics: Vec<(String, Option<f64>)>,
    /// The layout at the end.
    pub final_state: Vec<u8>,
    /// Measured requests per node.
    pub node_requests: Vec<u64>,
    /// Measured requests per node and window.
    pub window_node_requests: Vec<Vec<u32>>,
    /// Measured events per window.
    pub window_events: Vec<u64>,
    /// Nodes contacted per measured scan.
    pub fanout: Option<ScanFanout>,
}
