//! Charts of a run, drawn from [`RunData`] only, each to SVG and PNG.
//!
//! Every chart is one file implementing [`Chart`] and one line in [`all`]. A chart is drawn
//! once per run or once per workload ([`Scope`]); when its data is absent (no scans, no sweep,
//! no range dynamics) it is skipped with a reason that the report shows.

pub mod backend;
pub mod font;
pub mod style;

mod decision;
mod hottest_over_time;
mod latency;
mod layout_timeline;
mod load_bars;
mod load_heatmap;
mod loads;
mod plan_shards;
mod remap;
mod scan_fanout;
mod scenario_timeline;
mod shard_sweep;
mod skew_sweep;
mod split_balance;
mod sweep;
mod usable_capacity;

use plotters::coord::Shift;
use plotters::prelude::*;
use rayon::prelude::*;

pub use backend::AnyBackend;
pub use decision::NAME as DECISION_CHART;
pub use plan_shards::NAME as PLAN_CHART;
pub use split_balance::{finder_balances, FinderBalance};

use crate::data::RunData;
use crate::ReportError;

/// The area a chart draws on.
pub type Canvas<'a> = DrawingArea<AnyBackend<'a>, Shift>;

/// The result of drawing; plotters' errors are carried as boxed errors.
pub type DrawResult = Result<(), Box<dyn std::error::Error + Send + Sync>>;

/// Whether a chart is drawn once per run or once per workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// One chart for the whole run (sweeps and cross-workload comparisons).
    Run,
    /// One chart per workload.
    Workload,
}

/// What one chart is drawn from: the run, and the workload for per-workload charts.
#[derive(Clone, Copy, Debug)]
pub struct ChartInput<'a> {
    /// The run.
    pub data: &'a RunData,
    /// The workload of a per-workload chart.
    pub workload: Option<&'a str>,
}

impl ChartInput<'_> {
    /// The workload of a per-workload chart ("" for run charts, which do not ask).
    pub fn workload(&self) -> &str {
        self.workload.unwrap_or("")
    }
}

/// One kind of chart.
pub trait Chart: Sync {
    /// File name stem, e.g. `load_bars`.
    fn name(&self) -> &'static str;
    /// Title for people, e.g. "Requests per shard".
    fn title(&self) -> &'static str;
    /// Once per run or once per workload.
    fn scope(&self) -> Scope;
    /// Why there is nothing to draw, or `None` when the chart can be drawn.
    fn skip_reason(&self, input: &ChartInput<'_>) -> Option<String>;
    /// One sentence saying what is shown (selection, reference lines), for the report.
    fn caption(&self, input: &ChartInput<'_>) -> String;
    /// Width and height in pixels.
    fn size(&self, input: &ChartInput<'_>) -> (u32, u32);
    /// Draws the chart on `root` (which has the size of [`Chart::size`]).
    fn draw(&self, input: &ChartInput<'_>, root: &Canvas<'_>) -> DrawResult;
}

/// Every chart, in report order.
pub fn all() -> Vec<Box<dyn Chart>> {
    vec![
        Box::new(decision::DecisionChart),
        Box::new(usable_capacity::UsableCapacityChart),
        Box::new(load_bars::LoadBars),
        Box::new(hottest_over_time::HottestOverTime),
        Box::new(load_heatmap::LoadHeatmap),
        Box::new(remap::RemapChart),
        Box::new(latency::LatencyChart),
        Box::new(scan_fanout::ScanFanoutChart),
        Box::new(skew_sweep::SkewSweep),
        Box::new(shard_sweep::ShardSweep),
        Box::new(layout_timeline::LayoutTimeline),
        Box::new(scenario_timeline::ScenarioTimeline),
        Box::new(split_balance::SplitBalanceChart),
        Box::new(plan_shards::PlanShards),
    ]
}

/// A chart drawn in both formats.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderedChart {
    /// File name stem inside `charts/`, e.g. `load_bars-1-zipf-s-1.0`.
    pub file_stem: String,
    /// The chart's title.
    pub title: String,
    /// What is shown, for the report.
    pub caption: String,
    /// The workload of a per-workload chart.
    pub workload: Option<String>,
    /// Width and height in pixels.
    pub size: (u32, u32),
    /// The SVG document.
    pub svg: String,
    /// The PNG file's bytes.
    pub png: Vec<u8>,
}

/// A chart that was not drawn, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct SkippedChart {
    /// The chart's title.
    pub title: String,
    /// The workload of a per-workload chart.
    pub workload: Option<String>,
    /// Why there was nothing to draw.
    pub reason: String,
}

/// What became of one chart.
#[derive(Clone, Debug, PartialEq)]
pub enum ChartOutcome {
    /// Drawn in both formats.
    Drawn(RenderedChart),
    /// Not drawn.
    Skipped(SkippedChart),
}

/// Draws every chart of [`all`] for `data`: run charts once, per-workload charts for each
/// workload in run order. The charts are drawn in parallel (each on its own canvases) and
/// come back in that order.
pub fn render_all(data: &RunData) -> Result<Vec<ChartOutcome>, ReportError> {
    let workloads = data.workloads();
    let charts = all();
    let mut jobs: Vec<(&dyn Chart, usize, ChartInput<'_>)> = Vec::new();
    for chart in &charts {
        match chart.scope() {
            Scope::Run => jobs.push((
                chart.as_ref(),
                0,
                ChartInput {
                    data,
                    workload: None,
                },
            )),
            Scope::Workload => jobs.extend(workloads.iter().enumerate().map(|(i, w)| {
                let input = ChartInput {
                    data,
                    workload: Some(w),
                };
                (chart.as_ref(), i + 1, input)
            })),
        }
    }
    jobs.into_par_iter()
        .map(|(chart, ordinal, input)| {
            let workload = input.workload.map(str::to_string);
            if let Some(reason) = chart.skip_reason(&input) {
                return Ok(ChartOutcome::Skipped(SkippedChart {
                    title: chart.title().into(),
                    workload,
                    reason,
                }));
            }
            let file_stem = match input.workload {
                Some(w) => format!("{}-{ordinal}-{}", chart.name(), style::slug(w)),
                None => chart.name().to_string(),
            };
            render(chart, &input, file_stem).map(ChartOutcome::Drawn)
        })
        .collect()
}

/// Draws one chart to SVG and PNG.
pub fn render(
    chart: &dyn Chart,
    input: &ChartInput<'_>,
    file_stem: String,
) -> Result<RenderedChart, ReportError> {
    let fail = |message: String| ReportError::Chart {
        chart: file_stem.clone(),
        message,
    };
    if !font::ensure_registered() {
        return Err(fail("the embedded font could not be loaded".into()));
    }
    let (w, h) = chart.size(input);
    let mut svg = String::new();
    {
        let root = AnyBackend::Svg(SVGBackend::with_string(&mut svg, (w, h))).into_drawing_area();
        chart.draw(input, &root).map_err(|e| fail(e.to_string()))?;
        root.present().map_err(|e| fail(e.to_string()))?;
    }
    let mut rgb = vec![255u8; w as usize * h as usize * 3];
    {
        let root =
            AnyBackend::Bitmap(BitMapBackend::with_buffer(&mut rgb, (w, h))).into_drawing_area();
        chart.draw(input, &root).map_err(|e| fail(e.to_string()))?;
        root.present().map_err(|e| fail(e.to_string()))?;
    }
    let png = encode_png(&rgb, w, h).map_err(|e| fail(format!("cannot encode PNG: {e}")))?;
    Ok(RenderedChart {
        file_stem: file_stem.clone(),
        title: chart.title().into(),
        caption: chart.caption(input),
        workload: input.workload.map(str::to_string),
        size: (w, h),
        svg,
        png,
    })
}

/// Encodes an RGB buffer as PNG.
fn encode_png(rgb: &[u8], w: u32, h: u32) -> Result<Vec<u8>, png::EncodingError> {
    let mut bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut bytes, w, h);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(rgb)?;
    }
    Ok(bytes)
}
