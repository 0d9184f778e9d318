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
//! let opts = LayoutOptions { nodes: 4, window: 4_000, warmup_events: 0, time_unit_ns: 1_000 };
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
use schemes::changing::{LayoutEnd, Table, WindowClock};
use schemes::value::MetricValue;
use schemes::{AnalysisError, KeyCounts, Partitioner, SchemeSpec};

/// Everything the replay of one changing layout produced: its [`LayoutRecord`] (plain data,
/// what a partial result saves), its metrics and its final layout.
pub struct LayoutRun {
    /// The figures and tables, as plain data.
    pub record: LayoutRecord,
    /// The layout's own metrics, in the order of its kind's registry.
    pub metrics: Vec<MetricValue>,
    /// The layout at the end, as a fixed layout (made from `record.final_state`).
    pub final_layout: Box<dyn Partitioner>,
}

/// What the replay of one changing layout counted and the layout reported, as plain data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayoutRecord {
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
    /// The layout's other tables (`splits`, `finders`, ...).
    pub tables: Vec<Table>,
    /// The layout at the end ([`schemes::changing::ChangingLayout::final_state`]).
    pub final_state: Vec<u8>,
    /// Measured requests per node (a scan counts once per node it contacts).
    pub node_requests: Vec<u64>,
    /// Measured requests per node in each window holding measured events.
    pub window_node_requests: Vec<Vec<u32>>,
    /// Measured events in each window of `window_node_requests`.
    pub window_events: Vec<u64>,
    /// Nodes contacted per measured scan (`None` without scans).
    pub fanout: Option<ScanFanout>,
}

impl std::ops::Deref for LayoutRun {
    type Target = LayoutRecord;
    fn deref(&self) -> &LayoutRecord {
        &self.record
    }
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
    /// A run of `record`, its metrics `metrics` and its final layout made as `end` says.
    pub fn new(
        record: LayoutRecord,
        metrics: Vec<MetricValue>,
        end: &LayoutEnd,
    ) -> Result<LayoutRun, AnalysisError> {
        let final_layout = (end.final_layout)(&record.final_state)?;
        Ok(LayoutRun {
            record,
            metrics,
            final_layout,
        })
    }

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
            record: self.record.clone(),
            metrics: self
                .metrics
                .iter()
                .map(|m| (m.name.to_string(), m.value))
                .collect(),
        }
    }

    /// The run of `spec` that [`LayoutRun::state`] saved in `state`, its final layout made
    /// again by the layout's kind and its metrics named by the kind's registry.
    pub fn restore(state: LayoutRunState, spec: &SchemeSpec) -> Result<LayoutRun, AnalysisError> {
        let end = spec.layout_end().ok_or_else(|| {
            AnalysisError::Config(format!("'{}' is not a changing layout", spec.label()))
        })?;
        let record = state.record;
        if record.label != spec.label() {
            return Err(AnalysisError::Config(format!(
                "the saved run is of '{}', not of '{}'",
                record.label,
                spec.label()
            )));
        }
        if record.window_events.len() != record.window_node_requests.len()
            || record.node_requests.len() < record.nodes as usize
        {
            return Err(AnalysisError::Config(format!(
                "the saved run of '{}' does not hold one count per node and window",
                spec.label()
            )));
        }
        let metrics = state
            .metrics
            .iter()
            .map(|(name, value)| {
                let def = end.metrics.iter().find(|d| d.name == name).ok_or_else(|| {
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
        LayoutRun::new(record, metrics, end)
    }
}

/// A [`LayoutRun`] as plain data ([`LayoutRun::state`]): its record, and its metrics by name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayoutRunState {
    /// The figures and tables.
    pub record: LayoutRecord,
    /// Its own metrics by name.
    pub metrics: Vec<(String, Option<f64>)>,
}
