//! The decision procedure: which scheme to recommend for one workload and shard count N,
//! weighing every growth target M of the run, from the metrics alone (docs/metrics.md, "How a scheme is
//! recommended", states the same procedure).
//!
//! 1. **Enough data.** Under [`MIN_EVENTS`] measured events, or under
//!    [`MIN_KEYS_PER_SHARD`] distinct keys per shard, there is no recommendation; nor when
//!    the windows are too thin to judge usable capacity (under
//!    [`thin::MIN_REQUESTS_PER_SHARD_WINDOW`] requests per shard per window, or under
//!    [`thin::MIN_WINDOWS`] windows: see [`thin`]), and the warning names the `--window`
//!    that fixes it.
//! 2. **Hard limits.** A scheme without a `usable_capacity` figure is discarded.
//! 3. **Usable capacity** ranks the schemes. A scheme is tied with the best when the gap is
//!    under [`CAPACITY_TIE`] of the best's value (2 points at full capacity: the cluster
//!    would need under 2% more shards) or their 95% intervals overlap.
//! 4. Among the tied, the **growth cost** over every target M decides: a scheme that cannot
//!    reach one of the targets by its own rule loses to those that reach them all; a scheme
//!    whose growth to any target leaves the added shards nearly idle (`grow_added_share`
//!    below half of `grow_added_fair`) loses to one that does not; otherwise the worst
//!    distance from the ideal over the targets, `max_M |remap_fraction - remap_ideal|`,
//!    counts (a remap below the ideal is as far off as one above it), ties under
//!    [`GROWTH_TIE`] or within overlapping intervals. A target equal to N is no growth and
//!    is not weighed.
//! 5. With `--fail`, the **failure cost**: a scheme whose rule cannot remove the failed
//!    shard loses to those that can; then the distance of `fail_remap_fraction` from the
//!    least possible (the failed shard's own share of the keys), ties under [`GROWTH_TIE`];
//!    a winner whose failure moves over [`FAILURE_EXCESS`] times the least is named with
//!    that warning.
//! 6. Under a scenario (`run --scenario`), the **scenario cost**: a scheme whose own rule
//!    refused one of its events (`refused_events`) loses to those that applied them all; then
//!    the share of the keys moved in vain, `redundant_moves / distinct_keys` (moves that went
//!    back or round: a balancer's pure waste, which leaving a new shard idle cannot lower),
//!    ties under [`GROWTH_TIE`]; compared only when every scheme still tied reports it
//!    (balancers count their own moves in their own units).
//! 7. Then **scan fan-out** (`scan_fanout_mean`; ties within [`FANOUT_TIE`] of the smaller
//!    or within overlapping intervals), when the workload has scans.
//! 8. Then **lookup time** (`lookup_ns_p50`), only when the gap is large enough to matter
//!    beside a request and stable: the slower's median is at least [`LOOKUP_RATIO`] times the
//!    faster's and at least [`LOOKUP_MATTERS_NS`] above it, and the faster's `lookup_ns_p99` is below the slower's
//!    median (the batch timings do not overlap). Timings vary between runs, so the margin of
//!    such a decision is not the measured gap but the ratio the rule guarantees,
//!    [`LOOKUP_RATIO`]: identical runs give the same `recommendation.csv`.
//! 9. Schemes still tied after every criterion are reported as a tie: no scheme is named.
//!
//! Every decision says which criterion decided, by what margin (in that criterion's unit,
//! [`Criterion::unit`]), which schemes were tied with the winner on usable capacity and,
//! for every later criterion the procedure reached, which were tied with it there.

use engine::metrics::confidence::Interval;
use engine::metrics::failure::{FAIL_REMAP_FRACTION, FAIL_SHARD};
use engine::metrics::registry::fanout::SCAN_FANOUT_MEAN;
use engine::metrics::registry::latency::{LOOKUP_NS_P50, LOOKUP_NS_P99};
use engine::metrics::registry::load::USABLE_CAPACITY;
use engine::metrics::registry::remap::{REMAP_FRACTION, REMAP_IDEAL};
use engine::metrics::{MetricId, SchemeResult, WorkloadResult};
use schemes::scenario::{REDUNDANT_MOVES, REFUSED_EVENTS};

pub mod thin;

/// Fewest measured events a recommendation is given for.
pub const MIN_EVENTS: u64 = 10_000;
/// Fewest distinct keys per shard a recommendation is given for.
pub const MIN_KEYS_PER_SHARD: u64 = 100;
/// Usable capacities closer than this fraction of the best's are tied (2 points at full
/// capacity; relative, since the shards a cluster needs scale with 1 / usable capacity).
pub const CAPACITY_TIE: f64 = 0.02;
/// Growth distances from the ideal closer than this (2 points of keys) are tied.
pub const GROWTH_TIE: f64 = 0.02;
/// Scan fan-outs within this fraction of the smaller are tied.
pub const FANOUT_TIE: f64 = 0.10;
/// Lookup time decides only when the slower median is at least this many times the faster
/// (a few ns per lookup rarely matter beside a network round trip, and timings wander
/// between runs by tens of percent); it is also the margin such a decision reports.
pub const LOOKUP_RATIO: f64 = 2.0;
/// Lookup medians closer than this many ns are tied: a shard request costs a network round
/// trip (tens of microseconds or more), beside which a gap under a microsecond per lookup is
/// no reason to pick a scheme.
pub const LOOKUP_MATTERS_NS: f64 = 1000.0;

/// What decided a recommendation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Criterion {
    /// Usable capacity beyond the tie threshold and the intervals; margin in share points.
    UsableCapacity,
    /// The others tied on capacity leave the added shards nearly idle; margin: the
    /// winner's `grow_added_share` minus the best idle one's.
    IdleNewShards,
    /// Distance from the ideal remap; margin in share points of keys.
    GrowthCost,
    /// Keys moved by the failure of the `--fail` shard, as distance from the least possible
    /// (the failed shard's own keys); margin in share points of keys.
    FailureCost,
    /// Under a scenario: the events applied, then the keys moved in vain
    /// (`redundant_moves`) as a share of the distinct keys; margin in share points of keys.
    ScenarioCost,
    /// Mean shards per scan; margin in shards.
    ScanFanout,
    /// Median lookup time; margin: [`LOOKUP_RATIO`], the ratio the rule guarantees (the
    /// measured one varies between runs).
    LookupTime,
    /// Every criterion tied: no scheme is named.
    Tie,
}

impl Criterion {
    /// The criteria applied after usable capacity, in the order the procedure applies them
    /// (the idle-shard test is part of the growth cost).
    pub const LATER: [Criterion; 5] = [
        Criterion::GrowthCost,
        Criterion::FailureCost,
        Criterion::ScenarioCost,
        Criterion::ScanFanout,
        Criterion::LookupTime,
    ];

    /// The unit of a margin decided by this criterion, as `recommendation.csv` writes it:
    /// `share` (a difference of two shares: 0.04 is 4 points), `shards`, or `ratio`.
    pub fn unit(self) -> &'static str {
        match self {
            Criterion::ScanFanout => "shards",
            Criterion::LookupTime => "ratio",
            Criterion::Tie => "",
            _ => "share",
        }
    }

    /// The name written in `recommendation.csv`'s `decided_by`.
    pub fn name(self) -> &'static str {
        match self {
            Criterion::UsableCapacity => "usable_capacity",
            Criterion::IdleNewShards => "idle_new_shards",
            Criterion::GrowthCost => "growth_cost",
            Criterion::FailureCost => "failure_cost",
            Criterion::ScenarioCost => "scenario_cost",
            Criterion::ScanFanout => "scan_fanout",
            Criterion::LookupTime => "lookup_time",
            Criterion::Tie => "tie",
        }
    }
}

/// The outcome for one workload and shard count, every growth target weighed.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// Workload label.
    pub workload: String,
    /// Shard count N.
    pub shards: u32,
    /// The growth (or shrink) targets M weighed, in the run's order.
    pub grow_to: Vec<u32>,
    /// The recommended scheme; `None` for a tie or too little data.
    pub scheme: Option<String>,
    /// What decided; `None` when no comparison was made (too little data).
    pub decided_by: Option<Criterion>,
    /// By how much the deciding criterion separated the winner from the next scheme, in
    /// that criterion's unit; `None` when nothing was separated.
    pub margin: Option<f64>,
    /// Schemes tied with the winner on usable capacity (for a tie: every tied scheme).
    pub tied_with: Vec<String>,
    /// For each criterion of [`Criterion::LATER`] the procedure reached, the schemes still
    /// tied with the winner (or, for a tie, with each other) on it; a criterion that was
    /// not reached, or that separated them, has none.
    pub tied_on: Vec<(Criterion, Vec<String>)>,
    /// Why no scheme is named, or what the reader must know about the one named.
    pub warning: String,
}

/// One figure with its 95% interval.
#[derive(Clone, Copy, Debug)]
struct Figure {
    value: f64,
    ci: Option<Interval>,
}

impl Figure {
    /// Tied: closer than `threshold`, or overlapping intervals.
    fn ties(&self, other: &Figure, threshold: f64) -> bool {
        let overlap = match (self.ci, other.ci) {
            (Some(a), Some(b)) => a.0 <= b.1 && b.0 <= a.1,
            _ => false,
        };
        (self.value - other.value).abs() < threshold || overlap
    }
}

/// The growth cost of one scheme over every target.
#[derive(Clone, Copy, Debug)]
struct Growth {
    /// The first target whose added shards get less than half their fair share.
    idle_at: Option<u32>,
    /// The least share of the grown layout's point requests the added shards get, over the
    /// growing targets (`None` when no target grows).
    added_share: Option<f64>,
    /// The worst |remap_fraction - remap_ideal| over the targets; its interval is
    /// [max of the lower bounds, max of the upper bounds], which holds the maximum when each
    /// interval holds its distance.
    distance: Figure,
}

impl Growth {
    /// The growth cost of one scheme to one target; `None` when the scheme cannot reach it.
    fn to_target(r: &WorkloadResult, s: &SchemeResult) -> Option<Growth> {
        let (moved, ci) = r.figure(s, REMAP_FRACTION)?;
        let (ideal, _) = r.figure(s, REMAP_IDEAL)?;
        let ci = ci.map(|(lo, hi)| {
            let (a, b) = ((lo - ideal).abs(), (hi - ideal).abs());
            let low = if lo <= ideal && ideal <= hi {
                0.0
            } else {
                a.min(b)
            };
            (low, a.max(b))
        });
        Some(Growth {
            idle_at: s
                .remap
                .growth
                .leaves_added_idle()
                .then_some(s.remap.target_shards),
            added_share: s.remap.growth.added_share,
            distance: Figure {
                value: (moved - ideal).abs(),
                ci,
            },
        })
    }

    /// The cost over several targets: idle if any target is, the worst distance.
    fn worst(self, other: Growth) -> Growth {
        let interval = |f: Figure| f.ci.unwrap_or((f.value, f.value));
        let (a, b) = (interval(self.distance), interval(other.distance));
        Growth {
            idle_at: self.idle_at.or(other.idle_at),
            added_share: match (self.added_share, other.added_share) {
                (Some(x), Some(y)) => Some(x.min(y)),
                (x, y) => x.or(y),
            },
            distance: Figure {
                value: self.distance.value.max(other.distance.value),
                ci: (self.distance.ci.is_some() || other.distance.ci.is_some())
                    .then(|| (a.0.max(b.0), a.1.max(b.1))),
            },
        }
    }
}

/// What the procedure reads of one scheme.
struct Candidate<'a> {
    scheme: &'a str,
    capacity: Figure,
    growth: Option<Growth>,
    fanout: Option<Figure>,
    /// With `--fail`: |fail_remap_fraction - the failed shard's share of the keys|.
    failure: Option<Figure>,
    /// With `--fail`: (fail_remap_fraction, the failed shard's share of the keys).
    failure_moved: Option<(f64, f64)>,
    /// `lookup_ns_p50`, with (p50, p99) as its spread.
    lookup: Option<Figure>,
    /// Under a scenario.
    scenario: Option<ScenarioCost>,
}

/// What a scenario cost one scheme.
#[derive(Clone, Copy, Debug)]
struct ScenarioCost {
    /// Events its rule refused.
    refused: f64,
    /// `redundant_moves / distinct_keys`, for a scheme that counts `redundant_moves` in keys
    /// (a fixed scheme under a scenario); `None` for a balancer, which counts its own moves
    /// (shards, regions, slices) in its own metric, so keys moved in vain are not compared.
    waste: Option<Figure>,
}

/// The scenario cost of one scheme run under a scenario (its own metrics), `None` without.
fn scenario_cost(r: &WorkloadResult, s: &SchemeResult) -> Option<ScenarioCost> {
    let refused = s.extra_value(REFUSED_EVENTS)??;
    let waste = s
        .extra_value(REDUNDANT_MOVES)
        .flatten()
        .map(|redundant| Figure {
            value: redundant / r.distinct_keys.max(1) as f64,
            ci: None,
        });
    Some(ScenarioCost { refused, waste })
}

impl<'a> Candidate<'a> {
    /// The scheme at position `i` of every target's result (the first result gives the
    /// figures at N, which the targets share).
    fn of(targets: &[&'a WorkloadResult], i: usize) -> Option<Candidate<'a>> {
        let r = targets.first()?;
        let s = r.schemes.get(i)?;
        let figure = |id: MetricId| r.figure(s, id).map(|(value, ci)| Figure { value, ci });
        // A target equal to N (the count a scenario ended on, say) is no growth: not weighed.
        let growth = targets
            .iter()
            .filter(|t| grows(t))
            .map(|t| {
                let sr = t.schemes.get(i).filter(|x| x.scheme == s.scheme)?;
                Growth::to_target(t, sr)
            })
            .reduce(|a, b| Some(a?.worst(b?)))
            .flatten();
        let failure_moved = failure_moved(s);
        Some(Candidate {
            scheme: &s.scheme,
            capacity: figure(USABLE_CAPACITY)?,
            growth,
            fanout: figure(SCAN_FANOUT_MEAN),
            failure: failure_moved.map(|(moved, least)| Figure {
                value: (moved - least).abs(),
                ci: None,
            }),
            failure_moved,
            lookup: r.figure(s, LOOKUP_NS_P50).map(|(p50, _)| Figure {
                value: p50,
                ci: r
                    .figure(s, LOOKUP_NS_P99)
                    .map(|(p99, _)| (p50, p99.max(p50))),
            }),
            scenario: scenario_cost(r, s),
        })
    }
}

/// A failure moving more than this many times the least possible (the failed shard's keys)
/// is named in the decision's warning.
pub const FAILURE_EXCESS: f64 = 3.0;

/// `(fail_remap_fraction, the failed shard's share of the distinct keys)` of one scheme run
/// with `--fail`.
fn failure_moved(s: &SchemeResult) -> Option<(f64, f64)> {
    // The `fail_*` rows are the failure metric's own (`extra_metrics`), not table rows.
    let moved = s.extra_value(FAIL_REMAP_FRACTION)??;
    let shard = s.extra_value(FAIL_SHARD)?? as usize;
    let total: u64 = s.shard_distinct_keys.iter().sum();
    let own = *s.shard_distinct_keys.get(shard)?;
    (total > 0).then(|| (moved, own as f64 / total as f64))
}

/// Runs the procedure on a run's results: one decision per workload and shard count, in the
/// order they first appear, each weighing every growth target of that workload and count.
pub fn decide_all(results: &[WorkloadResult]) -> Vec<Decision> {
    let mut groups: Vec<Vec<&WorkloadResult>> = Vec::new();
    for r in results {
        let key = |x: &WorkloadResult| (x.workload.clone(), x.schemes.first().map(|s| s.shards));
        match groups.iter_mut().find(|g| key(g[0]) == key(r)) {
            Some(g) => g.push(r),
            None => groups.push(vec![r]),
        }
    }
    groups.iter().map(|g| decide(g)).collect()
}

/// True when the result's growth target differs from its shard count: a growth (or shrink)
/// to weigh.
fn grows(r: &WorkloadResult) -> bool {
    r.schemes
        .first()
        .is_some_and(|s| s.remap.target_shards != s.shards)
}

/// Runs the procedure on the results of one workload and shard count, one per growth target.
pub fn decide(targets: &[&WorkloadResult]) -> Decision {
    let r = targets[0];
    let first = r.schemes.first();
    let mut d = Decision {
        workload: r.workload.clone(),
        shards: first.map_or(0, |s| s.shards),
        grow_to: targets
            .iter()
            .filter(|t| grows(t))
            .filter_map(|t| t.schemes.first().map(|s| s.remap.target_shards))
            .collect(),
        scheme: None,
        decided_by: None,
        margin: None,
        tied_with: Vec::new(),
        tied_on: Vec::new(),
        warning: String::new(),
    };
    if let Some(why) = too_little_data(r, d.shards).or_else(|| thin::too_thin(r, d.shards)) {
        d.warning = why;
        return d;
    }
    let all: Vec<Candidate> = (0..r.schemes.len())
        .filter_map(|i| Candidate::of(targets, i))
        .collect();
    let Some(best) = all.iter().reduce(|b, c| {
        if c.capacity.value > b.capacity.value {
            c
        } else {
            b
        }
    }) else {
        d.warning = "no scheme has a usable_capacity figure".into();
        return d;
    };
    let tied: Vec<&Candidate> = all
        .iter()
        .filter(|c| {
            c.capacity
                .ties(&best.capacity, CAPACITY_TIE * best.capacity.value)
        })
        .collect();
    let mut steps = Vec::new();
    let (winner, decided_by, margin, finalists) = if tied.len() == 1 {
        let runner_up = all
            .iter()
            .filter(|c| c.scheme != best.scheme)
            .map(|c| c.capacity.value)
            .reduce(f64::max);
        (
            Some(best),
            Criterion::UsableCapacity,
            runner_up.map(|v| best.capacity.value - v),
            vec![best],
        )
    } else {
        break_tie(&tied, &mut steps)
    };
    d.decided_by = Some(decided_by);
    d.margin = margin;
    let named = winner.map(|w| w.scheme);
    d.tied_on = steps
        .into_iter()
        .map(|(c, tied)| {
            let others = tied
                .iter()
                .filter(|x| Some(x.scheme) != named)
                .map(|x| x.scheme.to_string());
            (c, others.collect())
        })
        .collect();
    match winner {
        Some(w) => {
            d.scheme = Some(w.scheme.to_string());
            d.tied_with = tied
                .iter()
                .filter(|c| c.scheme != w.scheme)
                .map(|c| c.scheme.to_string())
                .collect();
            if all.len() == 1 {
                d.warning = "only one scheme was measured".into();
            } else if let Some((m, g)) = w.growth.and_then(|g| Some((g.idle_at?, g))) {
                d.warning = format!(
                    "growing to {m} leaves the added shards nearly idle (at least one target: {} of point requests at the least, under half their fair share)",
                    g.added_share.map_or("none".into(), |s| format!("{:.1}%", s * 100.0))
                );
            }
            if let Some((moved, least)) = w
                .failure_moved
                .filter(|(moved, least)| *moved > FAILURE_EXCESS * least)
            {
                if !d.warning.is_empty() {
                    d.warning.push_str("; ");
                }
                d.warning.push_str(&format!(
                    "one shard failure (--fail) remaps {:.1}% of keys where {:.1}% (the failed shard's own) must move",
                    moved * 100.0,
                    least * 100.0
                ));
            }
        }
        None => {
            d.tied_with = finalists.iter().map(|c| c.scheme.to_string()).collect();
            let criteria: Vec<String> = std::iter::once(Criterion::UsableCapacity)
                .chain(d.tied_on.iter().map(|(c, _)| *c))
                .map(|c| c.name().replace('_', " "))
                .collect();
            d.warning = format!(
                "tie: {} measure the same within noise on {} (every criterion they could be compared on)",
                d.tied_with.join(", "),
                criteria.join(", ")
            );
        }
    }
    d
}

/// Why the data is too thin for a recommendation, if it is.
fn too_little_data(r: &WorkloadResult, shards: u32) -> Option<String> {
    if r.events_measured < MIN_EVENTS {
        return Some(format!(
            "too little data: {} measured events, a recommendation needs at least {MIN_EVENTS}",
            r.events_measured
        ));
    }
    let per_shard = r.distinct_keys / u64::from(shards.max(1));
    (per_shard < MIN_KEYS_PER_SHARD).then(|| {
        format!(
            "too little data: {} distinct keys over {shards} shards ({per_shard} per shard), a recommendation needs at least {MIN_KEYS_PER_SHARD} per shard",
            r.distinct_keys
        )
    })
}

/// (winner or `None` for a tie, criterion, margin, the schemes still tied at the end).
type Outcome<'c, 'a> = (
    Option<&'c Candidate<'a>>,
    Criterion,
    Option<f64>,
    Vec<&'c Candidate<'a>>,
);

/// The schemes tied on each later criterion the procedure reached, as it goes.
type Steps<'c, 'a> = Vec<(Criterion, Vec<&'c Candidate<'a>>)>;

/// Steps 4 to 7 among the schemes tied on usable capacity; `steps` gets the schemes tied on
/// each criterion reached (only the one kept when a criterion separates them).
fn break_tie<'c, 'a>(tied: &[&'c Candidate<'a>], steps: &mut Steps<'c, 'a>) -> Outcome<'c, 'a> {
    // Growth: first whether the added shards stay idle, then the distance from the ideal.
    let mut left: Vec<&Candidate> = tied.to_vec();
    // A scheme that cannot reach M by its own rule (no growth figures) loses to those that can.
    let reach: Vec<&Candidate> = left
        .iter()
        .copied()
        .filter(|c| c.growth.is_some())
        .collect();
    if reach.len() == 1 && left.len() > 1 {
        steps.push((Criterion::GrowthCost, reach.clone()));
        return (Some(reach[0]), Criterion::GrowthCost, None, reach);
    }
    if !reach.is_empty() {
        left = reach;
    }
    if left.iter().all(|c| c.growth.is_some()) {
        let busy: Vec<&Candidate> = left
            .iter()
            .copied()
            .filter(|c| c.growth.is_some_and(|g| g.idle_at.is_none()))
            .collect();
        if busy.len() == 1 && left.len() > 1 {
            let added = |c: &Candidate| c.growth.and_then(|g| g.added_share).unwrap_or(0.0);
            let idle_best = left
                .iter()
                .filter(|c| c.scheme != busy[0].scheme)
                .map(|c| added(c))
                .reduce(f64::max);
            steps.push((Criterion::GrowthCost, busy.clone()));
            return (
                Some(busy[0]),
                Criterion::IdleNewShards,
                idle_best.map(|v| added(busy[0]) - v),
                busy,
            );
        }
        if !busy.is_empty() {
            left = busy;
        }
        let distance = |c: &Candidate| c.growth.map(|g| g.distance);
        let step = narrow(&left, distance, |a, b| a.ties(b, GROWTH_TIE));
        if let Some(done) = settle(Criterion::GrowthCost, step, &mut left, steps) {
            return done;
        }
    }
    // With --fail, a scheme whose rule cannot remove the failed shard (jump: only the last)
    // loses to those that can, as one that cannot reach a growth target does.
    let survive: Vec<&Candidate> = left
        .iter()
        .copied()
        .filter(|c| c.failure.is_some())
        .collect();
    if survive.len() == 1 && left.len() > 1 {
        steps.push((Criterion::FailureCost, survive.clone()));
        return (Some(survive[0]), Criterion::FailureCost, None, survive);
    }
    if !survive.is_empty() {
        left = survive;
    }
    let failure = |c: &Candidate| c.failure;
    let step = narrow(&left, failure, |a, b| a.ties(b, GROWTH_TIE));
    if let Some(done) = settle(Criterion::FailureCost, step, &mut left, steps) {
        return done;
    }
    // Under a scenario, a scheme whose rule refused one of its events loses to those that
    // applied them all, as one that cannot reach a growth target does; then the waste.
    let applied: Vec<&Candidate> = left
        .iter()
        .copied()
        .filter(|c| c.scenario.is_some_and(|s| s.refused == 0.0))
        .collect();
    if applied.len() == 1 && left.len() > 1 {
        steps.push((Criterion::ScenarioCost, applied.clone()));
        return (Some(applied[0]), Criterion::ScenarioCost, None, applied);
    }
    if !applied.is_empty() {
        left = applied;
    }
    let waste = |c: &Candidate| c.scenario.and_then(|s| s.waste);
    let step = narrow(&left, waste, |a, b| a.ties(b, GROWTH_TIE));
    if let Some(done) = settle(Criterion::ScenarioCost, step, &mut left, steps) {
        return done;
    }
    let fanout = |c: &Candidate| c.fanout;
    let step = narrow(&left, fanout, |a, b| {
        a.ties(b, FANOUT_TIE * a.value.min(b.value))
    });
    if let Some(done) = settle(Criterion::ScanFanout, step, &mut left, steps) {
        return done;
    }
    let lookup = |c: &Candidate| c.lookup;
    let step = narrow(&left, lookup, |a, b| {
        let (fast, slow) = (a.value.min(b.value), a.value.max(b.value));
        a.ties(b, LOOKUP_MATTERS_NS) || slow < fast * LOOKUP_RATIO
    });
    if let Some(done) = settle(Criterion::LookupTime, step, &mut left, steps) {
        return done;
    }
    (None, Criterion::Tie, None, left)
}

/// Records the step of criterion `c`: the outcome when it decided (a lookup-time decision's
/// margin is the ratio the rule guarantees, [`LOOKUP_RATIO`]); otherwise `left` becomes the
/// schemes it left tied. Nothing when the criterion could not compare them.
fn settle<'c, 'a>(
    c: Criterion,
    step: Option<Narrowed<'c, 'a>>,
    left: &mut Vec<&'c Candidate<'a>>,
    steps: &mut Steps<'c, 'a>,
) -> Option<Outcome<'c, 'a>> {
    match step? {
        Narrowed::Decided(w, margin) => {
            steps.push((c, vec![w]));
            let margin = if c == Criterion::LookupTime {
                LOOKUP_RATIO
            } else {
                margin
            };
            Some((Some(w), c, Some(margin), vec![w]))
        }
        Narrowed::Tied(rest) => {
            steps.push((c, rest.clone()));
            *left = rest;
            None
        }
    }
}

/// The result of one lower-is-better criterion on the schemes still tied.
enum Narrowed<'c, 'a> {
    /// One scheme is better than every other beyond the tie rule, by this margin.
    Decided(&'c Candidate<'a>, f64),
    /// These are tied with the best (two or more).
    Tied(Vec<&'c Candidate<'a>>),
}

/// Applies a lower-is-better criterion; `None` when some scheme lacks the figure (the
/// criterion cannot compare them).
fn narrow<'c, 'a>(
    left: &[&'c Candidate<'a>],
    figure: impl Fn(&Candidate) -> Option<Figure>,
    ties: impl Fn(&Figure, &Figure) -> bool,
) -> Option<Narrowed<'c, 'a>> {
    let figures: Vec<(&'c Candidate<'a>, Figure)> = left
        .iter()
        .map(|c| Some((*c, figure(c)?)))
        .collect::<Option<_>>()?;
    let (best, best_fig) =
        figures
            .iter()
            .copied()
            .reduce(|b, c| if c.1.value < b.1.value { c } else { b })?;
    let rest: Vec<&Candidate> = figures
        .iter()
        .filter(|(_, f)| ties(f, &best_fig))
        .map(|(c, _)| *c)
        .collect();
    if rest.len() > 1 {
        return Some(Narrowed::Tied(rest));
    }
    let next = figures
        .iter()
        .filter(|(c, _)| c.scheme != best.scheme)
        .map(|(_, f)| f.value)
        .reduce(f64::min)?;
    Some(Narrowed::Decided(best, next - best_fig.value))
}

#[cfg(test)]
mod tests;
