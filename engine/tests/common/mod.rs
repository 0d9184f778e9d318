//! `range-dynamic` driven by the engine, with the layout kept for what only it knows (its
//! typed timeline, split decisions, totals and final ranges).

#![allow(dead_code)]

use engine::changing::{drive_layout, LayoutOptions, LayoutRun};
use engine::metrics::remap::Remap;
use engine::metrics::SchemeResult;
use schemes::range_dynamic::{
    DynamicParams, DynamicTotals, FinalRange, FinderSummary, RangeDynamic, SplitRow, TimelineRow,
};
use schemes::value::MetricValue;
use workloads::{EventSource, Spec};

/// A run and the layout after it.
pub struct DynamicRun {
    /// What the engine measured.
    pub run: LayoutRun,
    /// One row per window, as the layout recorded it.
    pub timeline: Vec<TimelineRow>,
    /// The split decisions.
    pub splits: Vec<SplitRow>,
    /// The totals of the actions.
    pub totals: DynamicTotals,
    /// The ranges at the end.
    pub ranges: Vec<FinalRange>,
    layout: RangeDynamic,
}

impl std::fmt::Debug for DynamicRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.run.fmt(f)
    }
}

impl std::ops::Deref for DynamicRun {
    type Target = LayoutRun;
    fn deref(&self) -> &LayoutRun {
        &self.run
    }
}

impl DynamicRun {
    pub fn finder_summaries(&self) -> Vec<FinderSummary> {
        self.layout.finder_summaries()
    }
    pub fn metric_values(&self) -> Vec<MetricValue> {
        self.layout.metric_values()
    }
    pub fn scheme_result(&self, target: u32) -> SchemeResult {
        self.run.scheme_result_on(target, &self.run.keys)
    }
    pub fn remap(&self, target: u32) -> Remap {
        self.run.remap_of(target, &self.run.keys)
    }
}

/// Replays `source` through a `range-dynamic` layout of `spec` with `opts`.
pub fn simulate_with(
    params: &DynamicParams,
    opts: &LayoutOptions,
    source: &mut dyn EventSource,
) -> Result<DynamicRun, schemes::AnalysisError> {
    let label = schemes::range_dynamic::params::NAME.to_string();
    let mut layout = RangeDynamic::new(label.clone(), params.clone(), opts.nodes.max(1));
    let run = drive_layout(&mut layout, label, opts, source)?;
    Ok(DynamicRun {
        run,
        timeline: layout.timeline().to_vec(),
        splits: layout.splits().to_vec(),
        totals: *layout.totals(),
        ranges: layout.final_ranges(),
        layout,
    })
}

/// [`simulate_with`] for `spec` on `nodes` nodes with windows of `window` events, without
/// warm-up.
pub fn simulate(
    spec: &Spec,
    nodes: u32,
    source: &mut dyn EventSource,
    window: u64,
) -> Result<DynamicRun, schemes::AnalysisError> {
    let params = DynamicParams::parse(spec)?;
    let opts = LayoutOptions {
        nodes,
        window,
        warmup_events: 0,
        distinct_key_limit: workloads::stats::DEFAULT_DISTINCT_LIMIT,
    };
    let mut run = simulate_with(&params, &opts, source)?;
    run.run.label = spec.to_string();
    Ok(run)
}
