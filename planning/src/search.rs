//! The capacity search of one scheme: the smallest shard count whose layout satisfies the
//! limits, and the reason that binds.
//!
//! For growth G the search starts at the count a perfectly balanced scheme would need (see
//! [`lower_bound`]); no smaller count can work. It then checks N = bound, bound + 1, ... one by
//! one for [`LINEAR_STEPS`] counts; past those it doubles the step until a count works (at most
//! `--max-shards`) and bisects back, so `shards_needed` works and `shards_needed - 1` does not.
//! Within the first [`LINEAR_STEPS`] counts it is the smallest count that works; beyond them
//! it assumes that more shards never hurt (a scheme whose balance changes with N could,
//! by luck, work at a count that the bisection skips). With `--current`, the counts the current
//! layout cannot reach by its scheme's rule ([`Partitioner::resize_refusal`]: Elasticsearch's
//! `_split` multiples, no fewer Kafka partitions) are skipped, and the row's note says why.

use std::collections::HashMap;

use workloads::KeyType;

use super::binding::Binding;
use super::failures::{worst_failures, Chain};
use super::heavy_keys::HeavyKeys;
use super::hot_key::{hottest_key, largest_key};
use super::search_limit::{self, Spread};
use super::traffic::Traffic;
use super::window_load::{evaluate, evaluate_with, LayoutLoad, ReplicaTable};
use super::{PlanConfig, PlanRow, FIT_TOLERANCE};
use engine::metrics::remap;
use schemes::{AnalysisError, Partitioner, ShardId};
use schemes::{BuildContext, SchemeSpec};

/// Shard counts checked one by one above the lower bound before the search gallops.
pub const LINEAR_STEPS: u32 = 64;

/// The smallest shard count any scheme could use at growth `growth`, and the limit that
/// sets it: `N >= F + ceil(G x busiest-window requests / (W x rate limit))` (the survivors of
/// F failures serve every request, each read once and each write on every replica);
/// `N >= F + ceil(G x rf x stored bytes / byte limit)`; `N >= F + rf`; `N >= 1`. A bound
/// past 4,294,967,295 shards cannot be counted: it is an error that names the capacity.
pub fn lower_bound(
    traffic: &Traffic,
    cfg: &PlanConfig,
    growth: f64,
) -> Result<(u32, Binding), AnalysisError> {
    let limits = cfg.limits();
    let (f, rf) = (cfg.failures, cfg.policy.replicas);
    let need = |total: f64, limit: f64, what: &str| {
        let n = (total / (limit * (1.0 + FIT_TOLERANCE))).ceil() + f64::from(f);
        if n <= f64::from(u32::MAX) {
            Ok(n as u32)
        } else {
            Err(AnalysisError::Config(format!(
                "{} {what} at growth x{growth} would need about {} shards of {} each \
                 (capacity x headroom), more than the 4,294,967,295 a plan can count; check the \
                 capacity's unit",
                figure(total),
                figure(n),
                figure(limit)
            )))
        }
    };
    let after = |b: Binding, failed: Binding| if f > 0 { failed } else { b };
    let window_rate = traffic.max_window_requests(rf) as f64 / traffic.window_secs();
    let mut terms = vec![(
        need(
            growth * window_rate,
            limits.rate,
            "requests/s in the busiest window (--capacity)",
        )?,
        after(Binding::Rate, Binding::RateAfterFailure),
    )];
    if let Some(bytes) = limits.bytes {
        let stored = growth * f64::from(rf) * traffic.total_bytes() as f64;
        terms.push((
            need(stored, bytes, "stored bytes (--capacity-bytes)")?,
            after(Binding::Bytes, Binding::BytesAfterFailure),
        ));
    }
    terms.push((f.saturating_add(rf), Binding::Replicas));
    // The largest term; among equal terms the first (rate, then bytes, then replicas).
    let (n, binding) =
        terms.into_iter().fold(
            (0, Binding::None),
            |best, t| if t.0 > best.0 { t } else { best },
        );
    Ok(if n <= 1 {
        (1, Binding::None)
    } else {
        (n, binding)
    })
}

/// A number for a message: plain when of everyday size, else in scientific notation.
fn figure(x: f64) -> String {
    if (1e-3..1e12).contains(&x.abs()) {
        format!("{}", (x * 1e3).round() / 1e3)
    } else {
        format!("{x:.3e}")
    }
}

/// The outcome of checking one shard count at one growth.
enum Check {
    Fits,
    Exceeds,
    Unsupported(String),
}

/// The floor under a layout's utilisation with every shard up, when computed, and its load
/// and replica table, unless the floor was already too high.
type AllUp = (Option<f64>, Option<(LayoutLoad, ReplicaTable)>);

/// What is known about one shard count.
struct Evaluation {
    state0: LayoutLoad,
    chain: Option<Chain>,
}

/// The search of one scheme over one workload's traffic; evaluations are cached across
/// growth values.
pub struct SchemeSearch<'a> {
    spec: &'a SchemeSpec,
    traffic: &'a Traffic,
    cfg: &'a PlanConfig,
    key_type: KeyType,
    workload: &'a str,
    /// The layout at `--current` shards, when given.
    current: Option<Box<dyn Partitioner>>,
    cache: HashMap<u32, Evaluation>,
    /// The heaviest keys, for floors under the utilisation with every shard up.
    heavy: HeavyKeys,
    /// The floors computed, by shard count.
    floors: HashMap<u32, f64>,
    /// The last layout evaluated in full and its replica table, kept for its failure chain.
    last_layout: Option<(u32, Box<dyn Partitioner>, ReplicaTable)>,
    /// The count checked after the current one, when known (the linear part of the search):
    /// its layout is built while the current one is evaluated.
    ahead: Option<u32>,
    /// The layout built ahead.
    prefetched: Option<(u32, Box<dyn Partitioner>)>,
    /// Told what the search checks, for progress.
    progress: &'a (dyn Fn(&str) + Sync),
}

/// No progress.
fn quiet(_: &str) {}

impl<'a> SchemeSearch<'a> {
    /// A search for `spec`; builds the current layout when `cfg.current_shards` is given.
    pub fn new(
        spec: &'a SchemeSpec,
        traffic: &'a Traffic,
        cfg: &'a PlanConfig,
        workload: &'a str,
        key_type: KeyType,
    ) -> Result<SchemeSearch<'a>, AnalysisError> {
        let mut search = SchemeSearch {
            spec,
            traffic,
            cfg,
            key_type,
            workload,
            current: None,
            cache: HashMap::new(),
            heavy: HeavyKeys::new(traffic),
            floors: HashMap::new(),
            last_layout: None,
            ahead: None,
            prefetched: None,
            progress: &quiet,
        };
        if let Some(c) = cfg.current_shards {
            search.current = Some(search.build(c)?);
        }
        if cfg.policy.replicas > 1 {
            let layout = search.build(cfg.current_shards.unwrap_or(1))?;
            if let Some(why) = layout.replica_refusal() {
                return Err(AnalysisError::Config(why));
            }
        }
        Ok(search)
    }

    /// This search telling `progress` which shard count and failure check it is on (a line
    /// such as `ring x2: 94 shards, failures: 16/94 removals tried`).
    pub fn with_progress(self, progress: &'a (dyn Fn(&str) + Sync)) -> SchemeSearch<'a> {
        SchemeSearch { progress, ..self }
    }

    /// The scheme built fresh for `shards` shards.
    fn build(&self, shards: u32) -> Result<Box<dyn Partitioner>, AnalysisError> {
        let ctx = BuildContext {
            shards,
            warmup_keys: self.traffic.warmup_keys(),
            key_type: self.key_type,
            weights: None,
        };
        self.spec.build(&ctx)
    }

    /// The layout the plan evaluates at `shards` shards: the current layout grown or shrunk by
    /// the scheme's own rule when `--current` is given, else the scheme built for `shards`.
    pub fn layout_at(&self, shards: u32) -> Result<Box<dyn Partitioner>, AnalysisError> {
        match &self.current {
            Some(current) => {
                // Grown by its own rule, the layout holds its points at `shards` too.
                self.spec.check_points(shards)?;
                engine::metrics::remap::resized(current.as_ref(), shards, self.traffic.counts())
            }
            None => self.build(shards),
        }
    }

    /// The load at `shards` shards with every shard up.
    pub fn load_at(&mut self, shards: u32) -> Result<&LayoutLoad, AnalysisError> {
        Ok(&self.evaluation(shards)?.state0)
    }

    fn evaluation(&mut self, shards: u32) -> Result<&mut Evaluation, AnalysisError> {
        if !self.cache.contains_key(&shards) {
            let layout = self.layout_at(shards)?;
            let state0 = evaluate(layout.as_ref(), self.traffic, self.cfg.policy)?;
            self.cache.insert(
                shards,
                Evaluation {
                    state0,
                    chain: None,
                },
            );
        }
        Ok(self.cache.get_mut(&shards).expect("inserted above"))
    }

    /// The utilisation at `shards` shards with every shard up, or a floor under it
    /// ([`HeavyKeys`]) when the floor is already too high for growth `growth`.
    fn all_up_utilisation(&mut self, shards: u32, growth: f64) -> Result<f64, AnalysisError> {
        let limits = self.cfg.limits();
        if let Some(e) = self.cache.get(&shards) {
            return Ok(limits.utilisation(&e.state0));
        }
        if let Some(&floor) = self.floors.get(&shards) {
            if !limits.fits(growth, floor) {
                return Ok(floor);
            }
        }
        let layout = match self.prefetched.take() {
            Some((n, layout)) if n == shards => layout,
            _ => self.layout_at(shards)?,
        };
        let ahead = self.ahead.take().filter(|n| !self.cache.contains_key(n));
        let need_floor = !self.floors.contains_key(&shards);
        let this = &*self;
        let (measured, built) = rayon::join(
            || this.measure_all_up(layout.as_ref(), growth, need_floor),
            || ahead.map(|n| (n, this.layout_at(n))),
        );
        // A layout that cannot be built ahead is built (and refused) again when checked.
        if let Some((n, Ok(built))) = built {
            self.prefetched = Some((n, built));
        }
        let (floor, load) = measured?;
        if let Some(floor) = floor {
            self.floors.insert(shards, floor);
        }
        match load {
            Some((state0, table)) => {
                let utilisation = limits.utilisation(&state0);
                let evaluation = Evaluation {
                    state0,
                    chain: None,
                };
                self.cache.insert(shards, evaluation);
                self.last_layout = Some((shards, layout, table));
                Ok(utilisation)
            }
            None => Ok(floor.expect("a floor too high stops the evaluation")),
        }
    }

    /// The floor under `layout`'s utilisation with every shard up when `need_floor`, and
    /// its full load and replica table unless that floor is already too high for growth
    /// `growth`.
    fn measure_all_up(
        &self,
        layout: &dyn Partitioner,
        growth: f64,
        need_floor: bool,
    ) -> Result<AllUp, AnalysisError> {
        let (limits, policy) = (self.cfg.limits(), self.cfg.policy);
        let floor = need_floor
            .then(|| {
                self.heavy
                    .utilisation_floor(layout, self.traffic, policy, &limits)
            })
            .flatten();
        if floor.is_some_and(|f| !limits.fits(growth, f)) {
            return Ok((floor, None));
        }
        let table = ReplicaTable::new(layout, self.traffic, policy.replicas)?;
        let load = evaluate_with(layout, &[], self.traffic, policy, &table);
        Ok((floor, Some((load, table))))
    }

    /// The failure chain at `shards` shards, finished unless a state's utilisation is above
    /// `stop_above`; computed again only when a cached early stop does not answer.
    fn chain(
        &mut self,
        shards: u32,
        growth: f64,
        stop_above: f64,
    ) -> Result<&Chain, AnalysisError> {
        let limits = self.cfg.limits();
        let answers = match &self.evaluation(shards)?.chain {
            Some(Chain::Exceeds(state)) => limits.utilisation(&state.load) > stop_above,
            Some(_) => true,
            None => false,
        };
        if !answers {
            let (layout, table) = match self.last_layout.take() {
                Some((n, layout, table)) if n == shards => (layout, Some(table)),
                _ => (self.layout_at(shards)?, None),
            };
            let on_removals = |tried: usize, of: usize| {
                (self.progress)(&format!(
                    "{}: failures: {tried}/{of} removals tried",
                    self.step(shards, growth)
                ))
            };
            let chain = worst_failures(
                layout,
                table,
                self.cfg.failures,
                self.traffic,
                self.cfg.policy,
                &limits,
                stop_above,
                &on_removals,
            )?;
            self.evaluation(shards)?.chain = Some(chain);
        }
        Ok(self.cache[&shards].chain.as_ref().expect("computed above"))
    }

    /// `scheme xG: N shards`, the start of a progress line.
    fn step(&self, shards: u32, growth: f64) -> String {
        format!("{} x{growth}: {shards} shards", self.spec.label())
    }

    /// Whether `shards` shards satisfy the limits at growth `growth` (with every shard up and
    /// after the worst failures).
    fn check(&mut self, shards: u32, growth: f64) -> Result<Check, AnalysisError> {
        let limits = self.cfg.limits();
        if shards < self.cfg.failures.saturating_add(self.cfg.policy.replicas) {
            return Ok(Check::Exceeds);
        }
        (self.progress)(&format!("{}: all shards up", self.step(shards, growth)));
        if !limits.fits(growth, self.all_up_utilisation(shards, growth)?) {
            return Ok(Check::Exceeds);
        }
        if self.cfg.failures == 0 {
            return Ok(Check::Fits);
        }
        Ok(match self.chain(shards, growth, stop_above(growth))? {
            Chain::Unsupported(message) => Check::Unsupported(message.clone()),
            Chain::Exceeds(_) => Check::Exceeds,
            Chain::States(states) => {
                let worst = states
                    .iter()
                    .map(|s| limits.utilisation(&s.load))
                    .fold(0.0, f64::max);
                if limits.fits(growth, worst) {
                    Check::Fits
                } else {
                    Check::Exceeds
                }
            }
        })
    }

    /// The plan row of this scheme at growth `growth`.
    pub fn row(&mut self, growth: f64) -> Result<PlanRow, AnalysisError> {
        let limits = self.cfg.limits();
        let (bound, bound_binding) = lower_bound(self.traffic, self.cfg, growth)?;
        let mut row = self.empty_row(growth, bound);
        if let Some(hot) = hottest_key(self.traffic, self.cfg.policy) {
            if growth * hot.rate_per_replica > limits.rate * (1.0 + FIT_TOLERANCE) {
                row.binding = Binding::HotKey;
                row.peak_rate_per_shard = Some(growth * hot.rate_per_replica);
                row.hottest_share = Some(hot.share);
                row.hot_key = Some(self.key_type.display(&hot.key));
                row.hot_key_rate = Some(growth * hot.rate_per_replica);
                row.note = hot.advice(
                    self.key_type,
                    self.traffic.window_secs(),
                    growth,
                    limits.rate,
                    self.cfg.policy,
                );
                return Ok(row);
            }
        }
        if let (Some(limit), Some((key, bytes))) = (limits.bytes, largest_key(self.traffic)) {
            if growth * bytes as f64 > limit * (1.0 + FIT_TOLERANCE) {
                row.binding = Binding::KeyBytes;
                row.hot_key = Some(self.key_type.display(&key));
                row.peak_bytes_per_shard = Some(growth * bytes as f64);
                row.note = format!(
                    "No shard count works: key '{}' alone stores {} bytes (growth x{growth}), above the {} \
                     bytes one shard may hold (capacity-bytes x headroom); split the value or raise --capacity-bytes.",
                    self.key_type.display_short(&key, super::hot_key::NOTE_KEY_CHARS),
                    growth * bytes as f64,
                    limit
                );
                return Ok(row);
            }
        }
        match self.find(bound, growth)? {
            Found::Shards(n) => {
                // Counts the current layout cannot reach are skipped: the binding is the
                // reason the reachable count below `n` fails, and the note says why.
                let below = (bound..n).rev().find(|&k| self.reachable(k));
                let binding = match below {
                    // The bound says that one shard fewer breaks a limit after the failures;
                    // which limit, and whether it already breaks with every shard up, only
                    // that count's layout says.
                    None if n == bound && bound_binding.after_failure() => {
                        self.binding_below(n, growth)?
                    }
                    None => bound_binding,
                    Some(below) => self.binding_below(below + 1, growth)?,
                };
                self.fill(&mut row, n, growth, binding)?;
                if let Some(why) = (bound..n).find_map(|k| self.refusal(k)) {
                    row.note = format!(
                        "Shard counts the current layout cannot reach were skipped: {why}."
                    );
                }
            }
            Found::Unsupported(message) => {
                row.binding = Binding::NoRemoval;
                row.note = message;
            }
            Found::Nothing => {
                row.binding = Binding::SearchLimit;
                let max = self.cfg.max_shards;
                let mut spread = None;
                if max >= self.cfg.failures.saturating_add(self.cfg.policy.replicas)
                    && self.reachable(max)
                {
                    let load = self.load_at(max)?.clone();
                    row.peak_rate_per_shard = Some(growth * load.peak_rate());
                    row.p99_rate_per_shard = Some(growth * load.p99_rate());
                    row.hottest_share = Some(load.hottest_share());
                    let half = max / 2;
                    if half >= 1 && bound <= max && self.reachable(half) {
                        spread = Some(Spread {
                            half,
                            peak_half: self.load_at(half)?.peak_rate(),
                            peak_max: load.peak_rate(),
                        });
                    }
                }
                // Every shard of a hashed scheme serves every scan.
                let scan_rate = self.traffic.max_window_scans() as f64 / self.traffic.window_secs();
                let stall = (spread, scan_rate);
                row.note = search_limit::note(self.spec, self.cfg, bound, growth, stall);
            }
        }
        Ok(row)
    }

    /// Why the current layout (`--current`) cannot be resized to `shards` by its scheme's
    /// rule ([`Partitioner::resize_refusal`]); `None` when it can or there is no current layout.
    fn refusal(&self, shards: u32) -> Option<String> {
        self.current.as_ref()?.resize_refusal(shards)
    }

    /// True when the plan can evaluate `shards` shards (see [`Self::refusal`]).
    fn reachable(&self, shards: u32) -> bool {
        self.refusal(shards).is_none()
    }

    /// The smallest reachable count in `from..=--max-shards`.
    fn next_reachable(&self, from: u32) -> Option<u32> {
        (from..=self.cfg.max_shards).find(|&n| self.reachable(n))
    }

    /// The smallest shard count that works, searched as the module describes over the counts
    /// the current layout can reach (all of them without `--current`).
    fn find(&mut self, bound: u32, growth: f64) -> Result<Found, AnalysisError> {
        let max = self.cfg.max_shards;
        let mut lo = None; // the largest count known not to work
        let linear_end = bound.saturating_add(LINEAR_STEPS - 1).min(max);
        let mut next = self.next_reachable(bound);
        while let Some(n) = next.filter(|&n| n <= linear_end) {
            next = n.checked_add(1).and_then(|n| self.next_reachable(n));
            self.ahead = next.filter(|&n| n <= linear_end);
            let check = self.check(n, growth);
            self.ahead = None;
            match check? {
                Check::Fits => return Ok(Found::Shards(n)),
                Check::Unsupported(m) => return Ok(Found::Unsupported(m)),
                Check::Exceeds => lo = Some(n),
            }
        }
        self.prefetched = None;
        if bound > max {
            return Ok(Found::Nothing); // the bound is above --max-shards
        }
        // Without a reachable count up to `linear_end`, the first one above is checked, so
        // that `lo` is a count known not to work.
        let mut lo = match (lo, next) {
            (Some(lo), _) => lo,
            (None, None) => return Ok(Found::Nothing),
            (None, Some(n)) => match self.check(n, growth)? {
                Check::Fits => return Ok(Found::Shards(n)),
                Check::Unsupported(m) => return Ok(Found::Unsupported(m)),
                Check::Exceeds => n,
            },
        };
        // The largest reachable count: the gallop and the bisection stay at or below it, so
        // every count they probe has a reachable count at or above it to check.
        let Some(last) = (bound..=max).rev().find(|&n| self.reachable(n)) else {
            return Ok(Found::Nothing);
        };
        let mut step = lo - bound + 1;
        // `works(x)`: the smallest reachable count at or above x works.
        let hi = loop {
            if lo >= last {
                return Ok(Found::Nothing);
            }
            let x = lo.saturating_add(step).min(last);
            let n = self.next_reachable(x).expect("last is reachable");
            match self.check(n, growth)? {
                Check::Fits => break x,
                Check::Unsupported(m) => return Ok(Found::Unsupported(m)),
                Check::Exceeds => (lo, step) = (n, step.saturating_mul(2)),
            }
        };
        let mut hi = hi;
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            let n = self.next_reachable(mid).expect("hi has a reachable count");
            match self.check(n, growth)? {
                Check::Fits => hi = mid,
                Check::Unsupported(m) => return Ok(Found::Unsupported(m)),
                Check::Exceeds => lo = n,
            }
        }
        Ok(Found::Shards(
            self.next_reachable(hi).expect("hi has a reachable count"),
        ))
    }

    /// Why `shards - 1` (which was checked and does not work) does not work.
    fn binding_below(&mut self, shards: u32, growth: f64) -> Result<Binding, AnalysisError> {
        let limits = self.cfg.limits();
        let below = shards - 1;
        if below < self.cfg.failures.saturating_add(self.cfg.policy.replicas) {
            return Ok(Binding::Replicas);
        }
        let (rate, bytes) = limits.parts(self.load_at(below)?);
        if !limits.fits(growth, rate.max(bytes)) {
            return Ok(if rate >= bytes {
                Binding::Rate
            } else {
                Binding::Bytes
            });
        }
        let loads: Vec<&LayoutLoad> = match self.chain(below, growth, stop_above(growth))? {
            Chain::States(states) => states.iter().map(|s| &s.load).collect(),
            Chain::Exceeds(state) => vec![&state.load],
            Chain::Unsupported(_) => return Ok(Binding::NoRemoval),
        };
        let (rate, bytes) = loads
            .iter()
            .map(|l| limits.parts(l))
            .fold((0.0, 0.0), |a, p| (f64::max(a.0, p.0), f64::max(a.1, p.1)));
        Ok(if rate >= bytes {
            Binding::RateAfterFailure
        } else {
            Binding::BytesAfterFailure
        })
    }

    /// Fills the figures of a plan that works at `shards` shards.
    fn fill(
        &mut self,
        row: &mut PlanRow,
        shards: u32,
        growth: f64,
        binding: Binding,
    ) -> Result<(), AnalysisError> {
        let state0 = self.load_at(shards)?.clone();
        let mut loads = vec![state0.clone()];
        let mut failed: Vec<ShardId> = Vec::new();
        if self.cfg.failures > 0 {
            if let Chain::States(states) = self.chain(shards, growth, stop_above(growth))? {
                loads.extend(states.iter().map(|s| s.load.clone()));
                failed = states.last().map(|s| s.failed.clone()).unwrap_or_default();
            }
        }
        let max_of = |f: fn(&LayoutLoad) -> f64| growth * loads.iter().map(f).fold(0.0, f64::max);
        row.shards_needed = Some(shards);
        row.binding = binding;
        row.peak_rate_per_shard = Some(max_of(LayoutLoad::peak_rate));
        row.p99_rate_per_shard = Some(max_of(LayoutLoad::p99_rate));
        row.peak_bytes_per_shard = Some(max_of(|l| l.max_bytes() as f64));
        row.hottest_share = Some(state0.hottest_share());
        row.failed_shards = failed;
        if let Some(current) = &self.current {
            let target = self.layout_at(shards)?;
            let moved = remap::measure(current.as_ref(), target.as_ref(), self.traffic.counts());
            row.moved_fraction_from_current = Some(moved.remap_fraction);
        }
        Ok(())
    }

    /// A row with the inputs filled in and no result yet.
    fn empty_row(&self, growth: f64, bound: u32) -> PlanRow {
        let limits = self.cfg.limits();
        PlanRow {
            workload: self.workload.to_string(),
            scheme: self.spec.label(),
            growth,
            replicas: self.cfg.policy.replicas,
            reads: self.cfg.policy.reads,
            failures: self.cfg.failures,
            shards_needed: None,
            binding: Binding::None,
            peak_rate_per_shard: None,
            p99_rate_per_shard: None,
            hottest_share: None,
            moved_fraction_from_current: None,
            rate_limit_per_shard: limits.rate,
            peak_bytes_per_shard: None,
            bytes_limit_per_shard: limits.bytes,
            balanced_shards: bound,
            current_shards: self.cfg.current_shards,
            rate_window_secs: self.traffic.window_secs(),
            failed_shards: Vec::new(),
            hot_key: None,
            hot_key_rate: None,
            note: String::new(),
        }
    }
}

/// The utilisation above which a plan at growth `growth` fails.
fn stop_above(growth: f64) -> f64 {
    (1.0 + FIT_TOLERANCE) / growth
}

/// The result of [`SchemeSearch::find`].
enum Found {
    Shards(u32),
    Unsupported(String),
    Nothing,
}
