//! `range-dynamic` driven by the engine, with the layout kept for what only it knows (its
//! typed timeline, split decisions, totals and final ranges).

#![allow(dead_code)]

use engine::changing::{drive_layout, LayoutOptions, LayoutRun};
use engine::metrics::remap::Remap;
use engine::metrics::SchemeResult;
use engine::replay::layout_result;
use schemes::range_dynamic::{
    DynamicParams, DynamicTotals, FinalRange, FinderSummary, RangeDynamic, SplitRow, TimelineRow,
};
use schemes::value::MetricValue;
use schemes::KeyCounts;
use workloads::{EventChunk, EventSource, Spec, WorkloadError};

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
    /// Measured point requests per distinct key.
    pub keys: KeyCounts,
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
        layout_result(&self.run, target, &self.keys)
    }
    pub fn remap(&self, target: u32) -> Remap {
        self.run.remap_of(target, &self.keys)
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
    let end = &schemes::range_dynamic::KIND.changing.as_ref().unwrap().end;
    let mut counted = Counted {
        source,
        seen: 0,
        warmup: opts.warmup_events,
        keys: KeyCounts::with_limit(workloads::stats::DEFAULT_DISTINCT_LIMIT),
    };
    let run = drive_layout(&mut layout, (label, end), opts, &mut counted)?;
    Ok(DynamicRun {
        run,
        keys: counted.keys,
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
        time_unit_ns: 1_000,
    };
    let mut run = simulate_with(&params, &opts, source)?;
    run.run.record.label = spec.to_string();
    Ok(run)
}

/// A source that counts the point keys of its events past the warm-up as they are read.
struct Counted<'s> {
    source: &'s mut dyn EventSource,
    seen: u64,
    warmup: u64,
    keys: KeyCounts,
}

impl EventSource for Counted<'_> {
    fn fill(&mut self, chunk: &mut EventChunk, max: usize) -> Result<usize, WorkloadError> {
        let before = chunk.len();
        let n = self.source.fill(chunk, max)?;
        for i in before..before + n {
            let e = chunk.get(i);
            if self.seen >= self.warmup && e.is_point() {
                self.keys.add(e.key, 1);
            }
            self.seen += 1;
        }
        Ok(n)
    }
}
