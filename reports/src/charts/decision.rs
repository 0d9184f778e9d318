//! The figure that decided each recommendation of a workload (`decided_by` of
//! recommendation.csv), one panel per shard count N: a bar per scheme, the recommended one in
//! full colour and labelled, the others muted. The procedure is docs/metrics.md's "How a
//! scheme is recommended" ([`planning::advice`]).

use engine::metrics::failure::{FAIL_REMAP_FRACTION, FAIL_SHARD};
use engine::metrics::registry::fanout::SCAN_FANOUT_MEAN;
use engine::metrics::registry::keys::DISTINCT_KEYS;
use engine::metrics::registry::latency::{LOOKUP_NS_P50, LOOKUP_NS_P99};
use engine::metrics::registry::load::USABLE_CAPACITY;
use engine::metrics::registry::remap::{
    GROW_ADDED_FAIR, GROW_ADDED_SHARE, REMAP_FRACTION, REMAP_IDEAL,
};
use planning::advice::{Criterion, CAPACITY_TIE};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use schemes::scenario::{REDUNDANT_MOVES, REFUSED_EVENTS};

use super::style::{self, decimal, font, percent, Bar, LegendEntry, Mark};
use super::{Canvas, Chart, ChartInput, DrawResult, Scope};
use crate::data::RunData;
use crate::recommendation_csv::RecommendationRow;

/// File name stem of the chart, which the report places beside the recommendation.
pub const NAME: &str = "decision";

/// The deciding criterion's figure per scheme, one panel per shard count.
pub struct DecisionChart;

/// One scheme's bar in a panel.
#[derive(Clone, Debug, PartialEq)]
pub struct DecisionBar {
    /// Scheme label.
    pub scheme: String,
    /// The criterion's figure.
    pub value: f64,
    /// Its 95% interval (lookup time: p50 to p99), where known.
    pub interval: Option<(f64, f64)>,
    /// The recommended scheme.
    pub recommended: bool,
    /// Tied with the winner on usable capacity (for a tie: every tied scheme).
    pub tied: bool,
}

/// One panel: the figure of the criterion that decided at one shard count.
#[derive(Clone, Debug, PartialEq)]
pub struct DecisionPanel {
    /// Shard count N.
    pub shards: u32,
    /// The criterion whose figure is drawn (usable capacity for a tie or no decision).
    pub criterion: Criterion,
    /// Caption above the plot: N and the outcome.
    pub caption: String,
    /// Y axis title, with unit.
    pub y_desc: &'static str,
    /// Whether the figure is a share (a percent axis) rather than a count or a time.
    pub share: bool,
    /// One bar per scheme with the figure, in run order.
    pub bars: Vec<DecisionBar>,
    /// Usable capacity: the tie band, from the best × (1 − [`CAPACITY_TIE`]) to the best.
    pub band: Option<(f64, f64)>,
    /// Heights of dashed reference lines (idle new shards: half the fair share).
    pub references: Vec<f64>,
    /// What the reader must know about the figure (a stand-in, schemes without it).
    pub note: Option<String>,
}

/// Every criterion, to read `decided_by` back.
const CRITERIA: [Criterion; 8] = [
    Criterion::UsableCapacity,
    Criterion::IdleNewShards,
    Criterion::GrowthCost,
    Criterion::FailureCost,
    Criterion::ScenarioCost,
    Criterion::ScanFanout,
    Criterion::LookupTime,
    Criterion::Tie,
];

/// The criterion whose figure a panel draws: the deciding one, usable capacity (the ranking
/// figure) for a tie or when nothing was compared.
fn drawn_criterion(row: &RecommendationRow) -> Criterion {
    CRITERIA
        .into_iter()
        .find(|c| c.name() == row.decided_by && *c != Criterion::Tie)
        .unwrap_or(Criterion::UsableCapacity)
}

/// Whether a scenario cost was decided by an event refused (no margin), not by keys moved.
fn by_refusal(c: Criterion, row: &RecommendationRow) -> bool {
    c == Criterion::ScenarioCost && row.margin.is_none()
}

/// The y axis title of a criterion's figure.
fn y_desc(c: Criterion, row: &RecommendationRow, exact_failure: bool) -> &'static str {
    match c {
        _ if by_refusal(c, row) => "events refused by its rule (count)",
        Criterion::IdleNewShards => "requests on added shards (%)",
        Criterion::GrowthCost => "worst |remap − ideal| (% of keys)",
        Criterion::FailureCost if exact_failure => "|failure remap − least| (% of keys)",
        Criterion::FailureCost => "keys moved by the failure (%)",
        Criterion::ScenarioCost => "keys moved in vain (% of keys)",
        Criterion::ScanFanout => "shards per scan (mean)",
        Criterion::LookupTime => "ns per lookup (p50, to p99)",
        Criterion::UsableCapacity | Criterion::Tie => "usable capacity (%)",
    }
}

/// The failed shard's own share of the distinct keys, the least a failure must move.
fn failure_least(data: &RunData, w: &str, s: &str, n: u32) -> Option<f64> {
    let shard = data.metric(w, s, n, FAIL_SHARD)?;
    let keys = &data.load_of(w, s, n)?.shard_distinct_keys;
    let total: u64 = keys.iter().sum();
    let own = *keys.get(shard as usize)?;
    (total > 0).then(|| own as f64 / total as f64)
}

/// The figure of criterion `c` for one scheme at N with its interval; `None` when missing.
fn figure(
    data: &RunData,
    (w, s, n): (&str, &str, u32),
    row: &RecommendationRow,
    c: Criterion,
    exact_failure: bool,
) -> Option<(f64, Option<(f64, f64)>)> {
    // A target equal to N is no growth and is not weighed.
    let grow_to = row.grow_to.iter().filter(|&&m| m != n);
    let with_ci = |id| {
        let row = data.metric_row(w, s, n, id)?;
        Some((row.value?, row.ci()))
    };
    let at = |m: u32, id| data.metric_at(w, s, (n, m), id)?.value;
    match c {
        Criterion::UsableCapacity | Criterion::Tie => with_ci(USABLE_CAPACITY),
        Criterion::ScanFanout => with_ci(SCAN_FANOUT_MEAN),
        Criterion::LookupTime => {
            let p50 = data.metric(w, s, n, LOOKUP_NS_P50)?;
            let p99 = data.metric(w, s, n, LOOKUP_NS_P99);
            Some((p50, p99.map(|p99| (p50, p99.max(p50)))))
        }
        _ if by_refusal(c, row) => Some((data.metric(w, s, n, REFUSED_EVENTS)?, None)),
        Criterion::GrowthCost => grow_to
            .map(|&m| Some((at(m, REMAP_FRACTION)? - at(m, REMAP_IDEAL)?).abs()))
            .collect::<Option<Vec<f64>>>()?
            .into_iter()
            .reduce(f64::max)
            .map(|v| (v, None)),
        Criterion::IdleNewShards => grow_to
            .filter_map(|&m| at(m, GROW_ADDED_SHARE))
            .reduce(f64::min)
            .map(|v| (v, None)),
        Criterion::FailureCost => {
            let moved = data.metric(w, s, n, FAIL_REMAP_FRACTION)?;
            let least = failure_least(data, w, s, n).filter(|_| exact_failure);
            Some((least.map_or(moved, |l| (moved - l).abs()), None))
        }
        Criterion::ScenarioCost => {
            let redundant = data.metric(w, s, n, REDUNDANT_MOVES)?;
            Some((
                redundant / data.metric(w, s, n, DISTINCT_KEYS)?.max(1.0),
                None,
            ))
        }
    }
}

/// `text` cut to at most `max` characters at a word, with an ellipsis when cut.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max.saturating_sub(1)).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
    format!("{}…", cut.trim_end_matches([',', ';', ':', ' ']))
}

/// A margin in its unit: share points, shards or a ratio.
fn margin_text(row: &RecommendationRow) -> String {
    match (row.margin, row.margin_unit.as_str()) {
        (Some(m), "share") => format!(" by {:.1} points", m * 100.0),
        (Some(m), "shards") => format!(" by {} shards", decimal(&m)),
        (Some(m), "ratio") => format!(" ({}x faster)", decimal(&m)),
        _ => String::new(),
    }
}

/// The panel caption: N and the outcome, shortened to `max` characters.
fn panel_caption(row: &RecommendationRow, max: usize) -> String {
    let outcome = match &row.scheme {
        Some(s) => format!(
            "{s} recommended on {}{}",
            row.decided_by.replace('_', " "),
            margin_text(row)
        ),
        None if row.decided_by == Criterion::Tie.name() => row.warning.clone(),
        None => format!("no recommendation: {}", row.warning),
    };
    shorten(&format!("N = {}: {outcome}", row.shards), max)
}

/// One panel per shard count of the workload that has a recommendation row and a figure.
pub fn panels(input: &ChartInput<'_>) -> Vec<DecisionPanel> {
    let (data, w) = (input.data, input.workload());
    let rows: Vec<&RecommendationRow> = data
        .shard_counts(w)
        .into_iter()
        .filter_map(|n| data.recommendation(w, n))
        .collect();
    // A panel spans the chart's width alone, half of it beside another.
    let max = if style::columns(rows.len()) == 1 {
        110
    } else {
        60
    };
    rows.into_iter()
        .filter_map(|row| panel(data, w, row, max))
        .collect()
}

/// The panel of one recommendation row; `None` when no scheme has the figure.
fn panel(data: &RunData, w: &str, row: &RecommendationRow, max: usize) -> Option<DecisionPanel> {
    let n = row.shards;
    let c = drawn_criterion(row);
    // A later criterion decided between the schemes tied on usable capacity only.
    let contender = |s: &str| {
        c == Criterion::UsableCapacity
            || row.scheme.as_deref() == Some(s)
            || row.tied_with.iter().any(|t| t == s)
    };
    let schemes: Vec<&str> = data
        .schemes_at(w, n)
        .into_iter()
        .filter(|s| contender(s))
        .collect();
    let exact_failure = schemes
        .iter()
        .all(|s| failure_least(data, w, s, n).is_some());
    let mut missing = Vec::new();
    let bars: Vec<DecisionBar> = schemes
        .iter()
        .filter_map(|&s| {
            let found = figure(data, (w, s, n), row, c, exact_failure);
            if found.is_none() {
                missing.push(s);
            }
            let (value, interval) = found?;
            Some(DecisionBar {
                scheme: s.to_string(),
                value,
                interval,
                recommended: row.scheme.as_deref() == Some(s),
                tied: row.tied_with.iter().any(|t| t == s),
            })
        })
        .collect();
    if bars.is_empty() {
        return None;
    }
    let best = bars
        .iter()
        .map(|b| b.value)
        .fold(f64::NEG_INFINITY, f64::max);
    let mut notes = Vec::new();
    if c == Criterion::FailureCost && !exact_failure {
        notes.push("fail_remap_fraction drawn, the failed shard's own share not being in the run directory".to_string());
    }
    if !missing.is_empty() {
        notes.push(format!("no figure for {}", missing.join(", ")));
    }
    Some(DecisionPanel {
        shards: n,
        criterion: c,
        caption: panel_caption(row, max),
        y_desc: y_desc(c, row, exact_failure),
        share: !matches!(c, Criterion::ScanFanout | Criterion::LookupTime) && !by_refusal(c, row),
        band: (c == Criterion::UsableCapacity).then_some((best * (1.0 - CAPACITY_TIE), best)),
        references: match c {
            Criterion::IdleNewShards => {
                let mut halves: Vec<f64> = row
                    .grow_to
                    .iter()
                    .filter_map(|&m| {
                        schemes
                            .iter()
                            .find_map(|s| data.metric_at(w, s, (n, m), GROW_ADDED_FAIR)?.value)
                    })
                    .map(|fair| fair / 2.0)
                    .collect();
                halves.sort_by(f64::total_cmp);
                halves.dedup();
                halves
            }
            _ => Vec::new(),
        },
        note: (!notes.is_empty()).then(|| notes.join("; ")),
        bars,
    })
}

/// A colour faded towards white: the bars of the schemes not recommended.
fn muted(c: RGBColor) -> RGBColor {
    let fade = |v: u8| (f64::from(v) * 0.35 + 255.0 * 0.65).round() as u8;
    RGBColor(fade(c.0), fade(c.1), fade(c.2))
}

/// Draws one panel: the bars, the tie band over them, the winner outlined and labelled.
fn draw_panel(data: &RunData, p: &DecisionPanel, area: &Canvas<'_>) -> DrawResult {
    let named = p.bars.iter().any(|b| b.recommended);
    let bars: Vec<Bar> = p
        .bars
        .iter()
        .map(|b| {
            let full = style::scheme_color(data, &b.scheme);
            Bar {
                label: b.scheme.clone(),
                color: if b.recommended || !named {
                    full
                } else {
                    muted(full)
                },
                value: b.value,
                interval: b.interval,
            }
        })
        .collect();
    let names: Vec<&str> = bars.iter().map(|b| b.label.as_str()).collect();
    let top = p
        .references
        .iter()
        .copied()
        .fold(style::bars_top(&bars), f64::max);
    let format = if p.share { percent } else { decimal };
    // Room above the tallest bar for its label.
    let mut chart = style::bar_axes(area, &p.caption, p.y_desc, format, &names, top * 1.12)?;
    style::draw_bars(&mut chart, &bars)?;
    let last = names.len() as f64 - 0.5;
    if let Some((lo, hi)) = p.band {
        chart.draw_series([Rectangle::new(
            [(-0.5, lo), (last, hi)],
            style::REFERENCE.mix(0.18).filled(),
        )])?;
    }
    style::draw_references(&mut chart, names.len(), &p.references)?;
    let above = Pos::new(HPos::Center, VPos::Bottom);
    for (i, b) in p.bars.iter().enumerate() {
        let x = i as f64;
        let label = match (b.recommended, b.tied) {
            (true, _) => "recommended",
            (false, true) => "tied",
            _ => continue,
        };
        if b.recommended {
            chart.draw_series([Rectangle::new(
                [(x - 0.3, 0.0), (x + 0.3, b.value)],
                BLACK.stroke_width(2),
            )])?;
        }
        let y = b.interval.map_or(b.value, |i| i.1.max(b.value)) + top * 0.02;
        chart.draw_series([Text::new(label, (x, y), font(12).pos(above))])?;
    }
    Ok(())
}

impl Chart for DecisionChart {
    fn name(&self) -> &'static str {
        NAME
    }
    fn title(&self) -> &'static str {
        "What decided the recommendation"
    }
    fn scope(&self) -> Scope {
        Scope::Workload
    }
    fn skip_reason(&self, input: &ChartInput<'_>) -> Option<String> {
        let (data, w) = (input.data, input.workload());
        if data
            .shard_counts(w)
            .iter()
            .all(|&n| data.recommendation(w, n).is_none())
        {
            return Some("recommendation.csv has no row for this workload".into());
        }
        if data.schemes().len() < 2 {
            return Some("only one scheme was measured: there is no choice to draw".into());
        }
        panels(input)
            .is_empty()
            .then(|| "summary.csv has none of the deciding figures for this workload".into())
    }
    fn caption(&self, input: &ChartInput<'_>) -> String {
        let notes: Vec<String> = panels(input)
            .iter()
            .filter_map(|p| Some(format!(" At N = {}: {}.", p.shards, p.note.as_deref()?)))
            .collect();
        format!(
            "Per shard count, the figure of the criterion that decided (recommendation.csv's decided_by; usable capacity for a tie or no recommendation), one bar per scheme (for a criterion after usable capacity, per scheme tied on it: those it decided between): the recommended one in full colour, outlined and labelled, the others muted; \"tied\": tied with it on usable capacity. Usable capacity with 95% intervals and the tie band shaded (within {:.0}% of the best); growth cost: the worst |remap_fraction − remap_ideal| over the targets weighed; idle new shards: the least share of point requests on the added shards, dashed at half their fair share; failure cost: |fail_remap_fraction − the failed shard's own share|; scenario cost: redundant_moves / distinct_keys, or refused_events when a refusal decided; scan fan-out: mean shards per scan with 95% intervals; lookup time: p50 with a whisker to p99.{}",
            CAPACITY_TIE * 100.0,
            notes.concat()
        )
    }
    fn size(&self, input: &ChartInput<'_>) -> (u32, u32) {
        style::grid_size(panels(input).len())
    }
    fn draw(&self, input: &ChartInput<'_>, root: &Canvas<'_>) -> DrawResult {
        let (data, panels) = (input.data, panels(input));
        let mut legend: Vec<LegendEntry> = data
            .schemes()
            .into_iter()
            .filter(|s| panels.iter().any(|p| p.bars.iter().any(|b| b.scheme == *s)))
            .map(|s| LegendEntry {
                label: s.to_string(),
                color: style::scheme_color(data, s),
                mark: Mark::Swatch,
            })
            .collect();
        if panels.iter().any(|p| p.band.is_some()) {
            legend.push(LegendEntry {
                label: format!("tie band (within {:.0}% of the best)", CAPACITY_TIE * 100.0),
                color: muted(style::REFERENCE),
                mark: Mark::Swatch,
            });
        }
        let title = format!("What decided the recommendation: {}", input.workload());
        let area = style::titled(root, &title, &legend)?;
        for (p, cell) in panels.iter().zip(style::panels(&area, panels.len())) {
            draw_panel(data, p, &cell)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheme_load::SchemeLoad;
    use crate::summary::SummaryRow;
    use schemes::value::MetricId;

    /// Schemes at N = 16 and 32 growing to N + 1 and 2N, with (usable capacity, remap
    /// fraction to N + 1, remap fraction to 2N) per scheme; ideal 1/(N+1) and 1/2.
    fn run(schemes: &[(&str, f64, f64, f64)], rows: Vec<RecommendationRow>) -> RunData {
        let mut metrics = Vec::new();
        for n in [16, 32] {
            for &(s, usable, near, double) in schemes {
                let mut push = |m: u32, metric: &str, value: f64| {
                    let ci =
                        (metric == "usable_capacity").then_some((usable - 0.01, usable + 0.01));
                    metrics.push(SummaryRow {
                        workload: "w".into(),
                        scheme: s.into(),
                        shards: n,
                        target_shards: m,
                        metric: metric.into(),
                        value: Some(value),
                        ci_low: ci.map(|c| c.0),
                        ci_high: ci.map(|c| c.1),
                        ..SummaryRow::default()
                    })
                };
                for (m, moved) in [(n + 1, near), (2 * n, double)] {
                    push(m, "usable_capacity", usable);
                    push(m, "remap_fraction", moved);
                    push(m, "remap_ideal", f64::from(m - n) / f64::from(m));
                }
            }
        }
        RunData {
            metrics,
            recommendations: Some(rows),
            ..RunData::default()
        }
    }

    fn rec(n: u32, scheme: Option<&str>, decided_by: &str, tied: &[&str]) -> RecommendationRow {
        RecommendationRow {
            workload: "w".into(),
            shards: n,
            grow_to: vec![n + 1, 2 * n],
            scheme: scheme.map(str::to_string),
            decided_by: decided_by.into(),
            margin: Some(0.05),
            margin_unit: "share".into(),
            tied_with: tied.iter().map(|s| s.to_string()).collect(),
            warning: if scheme.is_none() {
                "tie: hash, ring measure the same within noise on usable capacity, growth cost (every criterion they could be compared on)".into()
            } else {
                String::new()
            },
            ..RecommendationRow::default()
        }
    }

    const SCHEMES: [(&str, f64, f64, f64); 3] = [
        ("hash", 0.90, 0.94, 0.5),
        ("ring", 0.89, 0.06, 0.52),
        ("range", 0.60, 0.5, 0.9),
    ];

    fn panels_of(data: &RunData) -> Vec<DecisionPanel> {
        panels(&ChartInput {
            data,
            workload: Some("w"),
        })
    }

    #[test]
    fn usable_capacity_draws_a_bar_per_scheme_per_n_with_the_winner_highlighted() {
        let rows = [16, 32].map(|n| rec(n, Some("hash"), "usable_capacity", &["ring"]));
        let data = run(&SCHEMES, rows.to_vec());
        let panels = panels_of(&data);
        assert_eq!(
            panels.iter().map(|p| p.shards).collect::<Vec<_>>(),
            [16, 32]
        );
        for p in &panels {
            assert_eq!(p.criterion, Criterion::UsableCapacity);
            let bars: Vec<(&str, f64, bool, bool)> = p
                .bars
                .iter()
                .map(|b| (b.scheme.as_str(), b.value, b.recommended, b.tied))
                .collect();
            assert_eq!(
                bars,
                [
                    ("hash", 0.90, true, false),
                    ("ring", 0.89, false, true),
                    ("range", 0.60, false, false)
                ]
            );
            assert_eq!(p.bars[0].interval, Some((0.89, 0.91)));
            assert_eq!(p.band, Some((0.90 * (1.0 - CAPACITY_TIE), 0.90)));
            assert!(
                p.caption.starts_with(&format!(
                    "N = {}: hash recommended on usable capacity by 5.0 points",
                    p.shards
                )),
                "{}",
                p.caption
            );
        }
        let chart = DecisionChart;
        let input = ChartInput {
            data: &data,
            workload: Some("w"),
        };
        assert_eq!(chart.skip_reason(&input), None);
        assert!(crate::charts::render(&chart, &input, "decision-1-w".into()).is_ok());
    }

    #[test]
    fn growth_cost_draws_the_worst_distance_from_the_ideal_over_the_targets_of_the_tied() {
        let data = run(
            &SCHEMES,
            vec![rec(16, Some("ring"), "growth_cost", &["hash"])],
        );
        let panels = panels_of(&data);
        assert_eq!(panels.len(), 1);
        let p = &panels[0];
        assert_eq!((p.criterion, p.band), (Criterion::GrowthCost, None));
        let worst =
            |near: f64, double: f64| f64::max((near - 1.0 / 17.0).abs(), (double - 0.5).abs());
        let bars: Vec<(&str, f64, bool)> = p
            .bars
            .iter()
            .map(|b| (b.scheme.as_str(), b.value, b.recommended))
            .collect();
        assert_eq!(
            bars,
            [
                ("hash", worst(0.94, 0.5), false),
                ("ring", worst(0.06, 0.52), true),
            ]
        );
    }

    #[test]
    fn a_tie_says_so_in_the_caption_shortened_and_names_no_winner() {
        let data = run(&SCHEMES, vec![rec(16, None, "tie", &["hash", "ring"])]);
        let p = &panels_of(&data)[0];
        assert_eq!(p.criterion, Criterion::UsableCapacity);
        assert!(p.bars.iter().all(|b| !b.recommended));
        assert_eq!(p.bars.iter().filter(|b| b.tied).count(), 2);
        assert!(
            p.caption.starts_with("N = 16: tie: hash, ring"),
            "{}",
            p.caption
        );
        assert!(
            p.caption.chars().count() <= 110 && p.caption.ends_with('…'),
            "{}",
            p.caption
        );
    }

    /// `data` with more rows of one metric at N = 16 (every target), one value per scheme.
    fn with_metric(mut data: RunData, metric: MetricId, values: &[(&str, f64)]) -> RunData {
        for &(s, value) in values {
            for m in [17, 32] {
                data.metrics.push(SummaryRow {
                    workload: "w".into(),
                    scheme: s.into(),
                    shards: 16,
                    target_shards: m,
                    metric: metric.name().into(),
                    value: Some(value),
                    ..SummaryRow::default()
                });
            }
        }
        data
    }

    /// The (scheme, value, recommended) of the bars of the only panel of `data`.
    fn bars_of(data: &RunData) -> (DecisionPanel, Vec<(String, f64, bool)>) {
        let panels = panels_of(data);
        assert_eq!(panels.len(), 1, "{panels:?}");
        let bars = panels[0]
            .bars
            .iter()
            .map(|b| (b.scheme.clone(), b.value, b.recommended))
            .collect();
        (panels[0].clone(), bars)
    }

    fn bar(s: &str, value: f64, recommended: bool) -> (String, f64, bool) {
        (s.to_string(), value, recommended)
    }

    #[test]
    fn idle_new_shards_draws_the_least_added_share_over_the_targets_with_half_the_fair_share() {
        let mut data = run(
            &SCHEMES,
            vec![rec(16, Some("ring"), "idle_new_shards", &["hash"])],
        );
        // The added share to 17 and to 32 per scheme: the least of both is drawn.
        for (s, near, double) in [
            ("hash", 0.05, 0.5),
            ("ring", 0.06, 0.45),
            ("range", 0.0, 0.1),
        ] {
            for (m, added) in [(17, near), (32, double)] {
                for (metric, value) in [
                    (GROW_ADDED_SHARE, added),
                    (GROW_ADDED_FAIR, f64::from(m - 16) / f64::from(m)),
                ] {
                    data.metrics.push(SummaryRow {
                        workload: "w".into(),
                        scheme: s.into(),
                        shards: 16,
                        target_shards: m,
                        metric: metric.name().into(),
                        value: Some(value),
                        ..SummaryRow::default()
                    });
                }
            }
        }
        let (p, bars) = bars_of(&data);
        assert_eq!(p.criterion, Criterion::IdleNewShards);
        // Only the schemes tied on capacity: range (not tied) is not drawn.
        assert_eq!(bars, [bar("hash", 0.05, false), bar("ring", 0.06, true)]);
        assert_eq!(p.references, [1.0 / 34.0, 0.25]);
        assert!(p.share && p.band.is_none());
    }

    #[test]
    fn failure_cost_draws_the_distance_from_the_failed_shards_own_keys_or_says_it_cannot() {
        let data = run(
            &SCHEMES,
            vec![rec(16, Some("ring"), "failure_cost", &["hash"])],
        );
        let data = with_metric(data, FAIL_REMAP_FRACTION, &[("hash", 0.9), ("ring", 0.07)]);
        let data = with_metric(data, FAIL_SHARD, &[("hash", 0.0), ("ring", 1.0)]);
        // Without the per-shard keys: the moved share itself, and a note saying why.
        let (p, bars) = bars_of(&data);
        assert_eq!(p.criterion, Criterion::FailureCost);
        assert_eq!(bars, [bar("hash", 0.9, false), bar("ring", 0.07, true)]);
        assert_eq!(p.y_desc, "keys moved by the failure (%)");
        assert!(p.note.as_deref().unwrap().contains("own share"), "{p:?}");
        // With them: |moved - the failed shard's share of the keys| (shard 0 of hash holds
        // 1/16, shard 1 of ring 1/8).
        let mut data = data;
        for (s, keys) in [("hash", [10, 150]), ("ring", [140, 20])] {
            data.loads.push(SchemeLoad {
                workload: "w".into(),
                scheme: s.into(),
                shards: 16,
                shard_distinct_keys: keys.to_vec(),
                ..SchemeLoad::default()
            });
        }
        let (p, bars) = bars_of(&data);
        assert_eq!(
            bars,
            [
                bar("hash", (0.9f64 - 10.0 / 160.0).abs(), false),
                bar("ring", (0.07f64 - 20.0 / 160.0).abs(), true)
            ]
        );
        assert_eq!(p.y_desc, "|failure remap − least| (% of keys)");
        assert_eq!(p.note, None);
    }

    #[test]
    fn scenario_cost_draws_keys_moved_in_vain_per_key_or_the_events_refused() {
        let data = run(
            &SCHEMES,
            vec![rec(16, Some("ring"), "scenario_cost", &["hash"])],
        );
        let data = with_metric(data, REDUNDANT_MOVES, &[("hash", 300.0), ("ring", 10.0)]);
        let data = with_metric(data, DISTINCT_KEYS, &[("hash", 1000.0), ("ring", 1000.0)]);
        let data = with_metric(data, REFUSED_EVENTS, &[("hash", 2.0), ("ring", 0.0)]);
        let (p, bars) = bars_of(&data);
        assert_eq!(bars, [bar("hash", 0.3, false), bar("ring", 0.01, true)]);
        assert!(p.share);
        // Decided by an event refused (no margin): the refused events are drawn, as counts.
        let mut refused = data.clone();
        refused.recommendations.as_mut().unwrap()[0].margin = None;
        let (p, bars) = bars_of(&refused);
        assert_eq!(bars, [bar("hash", 2.0, false), bar("ring", 0.0, true)]);
        assert_eq!(p.y_desc, "events refused by its rule (count)");
        assert!(!p.share);
    }

    #[test]
    fn fanout_and_lookup_time_draw_their_figures_with_a_p99_whisker_for_lookups() {
        let data = run(
            &SCHEMES,
            vec![rec(16, Some("hash"), "scan_fanout", &["ring"])],
        );
        let data = with_metric(data, SCAN_FANOUT_MEAN, &[("hash", 3.5), ("ring", 16.0)]);
        let (p, bars) = bars_of(&data);
        assert_eq!(bars, [bar("hash", 3.5, true), bar("ring", 16.0, false)]);
        assert!(!p.share);
        let data = run(
            &SCHEMES,
            vec![rec(16, Some("ring"), "lookup_time", &["hash"])],
        );
        let data = with_metric(data, LOOKUP_NS_P50, &[("hash", 9.0), ("ring", 4.0)]);
        let data = with_metric(data, LOOKUP_NS_P99, &[("hash", 20.0), ("ring", 3.0)]);
        let (p, bars) = bars_of(&data);
        assert_eq!(bars, [bar("hash", 9.0, false), bar("ring", 4.0, true)]);
        // The whisker runs from p50 to p99, never below p50.
        let whiskers: Vec<_> = p.bars.iter().map(|b| b.interval).collect();
        assert_eq!(whiskers, [Some((9.0, 20.0)), Some((4.0, 4.0))]);
        assert_eq!(p.y_desc, "ns per lookup (p50, to p99)");
        // A scheme without the figure is named in the note, not drawn.
        let data = run(
            &SCHEMES,
            vec![rec(16, Some("ring"), "lookup_time", &["hash"])],
        );
        let data = with_metric(data, LOOKUP_NS_P50, &[("ring", 4.0)]);
        let (p, bars) = bars_of(&data);
        assert_eq!(bars, [bar("ring", 4.0, true)]);
        assert_eq!(p.note.as_deref(), Some("no figure for hash"));
    }

    #[test]
    fn no_rows_or_one_scheme_skip_with_a_reason() {
        let chart = DecisionChart;
        let none = run(&SCHEMES, Vec::new());
        let one = run(
            &SCHEMES[..1],
            vec![rec(16, Some("hash"), "usable_capacity", &[])],
        );
        for data in [&none, &one, &RunData::default()] {
            let input = ChartInput {
                data,
                workload: Some("w"),
            };
            assert!(chart.skip_reason(&input).is_some());
        }
    }
}
