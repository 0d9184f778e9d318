//! 95% confidence intervals of the load and decision metrics.
//!
//! - **Block bootstrap** (every workload): the measured windows are resampled in blocks of
//!   consecutive windows (block length ⌈W^(1/3)⌉, W windows, start drawn uniformly), 200
//!   times with a fixed seed per workload and scheme; every load metric is recomputed on each
//!   resample as it is measured (the windowed share weighting each window by its events) and the interval is the 2.5% and 97.5% quantiles of the 200 values (statrs),
//!   widened to include the measured value. Needs at least [`MIN_BOOTSTRAP_WINDOWS`] windows.
//!   Blocks keep the short-range correlation of a trace (bursts, drifting keys) that a
//!   resample of single windows would break.
//! - **Repeats** (`run --repeat K`, synthetic workloads): the workload is replayed with K
//!   seeds; a metric's interval is `value ± t(0.975, K-1) · s`, `s` the sample standard
//!   deviation of its K values and `t` the Student quantile (statrs), `value` the first
//!   seed's. It covers every non-timing metric, remap included, and replaces the bootstrap.
//!
//! Both narrow as the events (windows, or events per replay) grow.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use statrs::distribution::{ContinuousCDF, StudentsT};
use statrs::statistics::{Data, OrderStatistics, Statistics};

use super::load::{window_weights, windowed_mean, LoadSample};
use super::metric::Metric;
use super::registry::REGISTRY;
use super::{is_timing, MetricId, SchemeResult, ShardLoad, WorkloadResult};

/// Bootstrap resamples per interval.
pub const RESAMPLES: usize = 200;

/// Fewest windows a bootstrap interval is given for.
pub const MIN_BOOTSTRAP_WINDOWS: usize = 10;

pub use schemes::value::Interval;

/// Block-bootstrap intervals of the metrics of one load measured over `events` events that
/// the registered metrics compute on a resampled load ([`Metric::resampled`]), in registry
/// order; empty with too few windows. The windowed share of a resample is, as measured, the
/// mean of its windows' hottest shares weighted by their events.
pub fn bootstrap(load: &ShardLoad, events: u64, seed: u64) -> Vec<(&'static str, Interval)> {
    let windows = &load.window_requests;
    let w = windows.len();
    if w < MIN_BOOTSTRAP_WINDOWS {
        return Vec::new();
    }
    let whole = LoadSample::measured(load, events);
    let (metrics, measured): (Vec<(&dyn Metric, MetricId)>, Vec<f64>) = REGISTRY
        .iter()
        .flat_map(|&m| m.defs().iter().map(move |d| (m, MetricId(d.name))))
        .filter_map(|(m, id)| Some(((m, id), m.resampled(id, &whole)?)))
        .unzip();
    let n = load.shard_requests.len();
    let weights: Vec<f64> = window_weights(&load.window_events).collect();
    // With `--weights` usable capacity is measured per capacity (see `capacity`).
    let per_capacity = load
        .weights
        .is_some()
        .then(|| load.window_hottest_per_capacity());
    let block = (w as f64).cbrt().ceil() as usize;
    // Requests per shard summed over windows `0..i`, row `i` (and events likewise): a block's
    // totals are a difference of two rows, not a sum over its windows. Integers, so exactly
    // the sums; the shares (floats) are still added window by window, in order.
    let mut prefix = vec![0u64; (w + 1) * n];
    let mut events_before = vec![0u64; w + 1];
    for (i, counts) in windows.iter().enumerate() {
        let (done, next) = prefix.split_at_mut((i + 1) * n);
        for ((p, &before), &c) in next[..n].iter_mut().zip(&done[i * n..]).zip(counts) {
            *p = before + u64::from(c);
        }
        events_before[i + 1] = events_before[i] + load.window_events.get(i).copied().unwrap_or(0);
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(RESAMPLES); metrics.len()];
    let mut totals = vec![0u64; n];
    let mut blocks: Vec<std::ops::Range<usize>> = Vec::new();
    for _ in 0..RESAMPLES {
        totals.iter_mut().for_each(|t| *t = 0);
        blocks.clear();
        let (mut taken, mut ev) = (0usize, 0u64);
        while taken < w {
            let start = rng.random_range(0..=w - block);
            let end = (start + block).min(start + w - taken);
            let (from, to) = (&prefix[start * n..][..n], &prefix[end * n..][..n]);
            for ((t, &a), &b) in totals.iter_mut().zip(from).zip(to) {
                *t += b - a;
            }
            ev += events_before[end] - events_before[start];
            blocks.push(start..end);
            taken += end - start;
        }
        let hottest_windowed = windowed_mean(
            blocks
                .iter()
                .flat_map(|b| b.clone())
                .map(|i| (load.window_hottest_share[i], weights[i])),
        );
        let capacity_windowed = per_capacity.as_ref().map_or(hottest_windowed, |h| {
            windowed_mean(
                blocks
                    .iter()
                    .flat_map(|b| b.clone())
                    .map(|i| (h[i], weights[i])),
            )
        });
        let resampled = ShardLoad::from_counts(totals.clone(), Vec::new(), Vec::new());
        // Measured per weight as the value is (`--weights`: ratio and spread).
        let resampled = match &load.weights {
            Some(w) => resampled.per_weight(w),
            None => resampled,
        };
        let sample = LoadSample {
            load: &resampled,
            events: ev,
            hottest_windowed,
            capacity_windowed,
        };
        for (s, (m, id)) in samples.iter_mut().zip(&metrics) {
            s.push(m.resampled(*id, &sample).unwrap_or(f64::NAN));
        }
    }
    metrics
        .iter()
        .zip(samples)
        .zip(measured)
        .map(|((&(_, id), s), value)| {
            let mut data = Data::new(s);
            (
                id.name(),
                widened(data.quantile(0.025), data.quantile(0.975), value),
            )
        })
        .collect()
}

/// The repeat interval of a value from the values of K replays (the first is `value`'s own):
/// `value ± t(0.975, K-1) · s`; `None` with fewer than 2 values.
pub fn from_repeats(value: f64, values: &[f64]) -> Option<Interval> {
    if values.len() < 2 {
        return None;
    }
    let sd = values.iter().std_dev();
    let t = StudentsT::new(0.0, 1.0, (values.len() - 1) as f64)
        .ok()?
        .inverse_cdf(0.975);
    Some((value - t * sd, value + t * sd))
}

/// Sets, on every scheme of `base`, the repeat interval of each non-timing metric from the
/// same metric of the same scheme in `repeats` (replays of the same workload with other
/// seeds, schemes in the same order).
pub fn apply_repeats(base: &mut WorkloadResult, repeats: &[WorkloadResult]) {
    let mut per_scheme: Vec<Vec<(&'static str, Interval)>> = Vec::new();
    for (i, s) in base.schemes.iter().enumerate() {
        let others: Vec<(&WorkloadResult, &SchemeResult)> = repeats
            .iter()
            .filter_map(|r| {
                r.schemes
                    .get(i)
                    .filter(|o| o.scheme == s.scheme)
                    .map(|o| (r, o))
            })
            .collect();
        let mut intervals = Vec::new();
        for m in base
            .metric_values(s)
            .into_iter()
            .filter(|m| !is_timing(m.name))
        {
            let Some(value) = m.value else { continue };
            let mut values = vec![value];
            values.extend(others.iter().filter_map(|(r, o)| {
                r.metric_values(o)
                    .into_iter()
                    .find(|x| x.name == m.name)?
                    .value
            }));
            if values.len() == others.len() + 1 {
                if let Some(ci) = from_repeats(value, &values) {
                    intervals.push((m.name, ci));
                }
            }
        }
        per_scheme.push(intervals);
    }
    for (s, intervals) in base.schemes.iter_mut().zip(per_scheme) {
        s.intervals = intervals;
    }
}

/// `(low, high)` stretched to include `value`.
fn widened(low: f64, high: f64, value: f64) -> Interval {
    (low.min(value), high.max(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::capacity;

    /// `windows` windows of 100 events over 4 shards, shard 0 taking `hot` of each plus noise.
    fn load(windows: usize, hot: u32) -> ShardLoad {
        let counts: Vec<Vec<u32>> = (0..windows)
            .map(|i| {
                let wobble = ((i * 7919) % 13) as u32;
                let h = hot + wobble;
                let rest = 100 - h;
                vec![h, rest / 3, rest / 3, rest - 2 * (rest / 3)]
            })
            .collect();
        let totals = (0..4)
            .map(|s| counts.iter().map(|w| u64::from(w[s])).sum())
            .collect();
        ShardLoad::from_counts(totals, counts, vec![100; windows])
    }

    #[test]
    fn bootstrap_intervals_hold_the_value_are_reproducible_and_narrow_with_more_windows() {
        let (small, big) = (load(20, 30), load(2000, 30));
        let a = bootstrap(&small, 2000, 7);
        assert_eq!(a, bootstrap(&small, 2000, 7));
        let b = bootstrap(&big, 200_000, 7);
        let names: Vec<&str> = a.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            names,
            [
                "hottest_shard_share",
                "hottest_shard_ratio",
                "load_cv",
                "hottest_shard_share_windowed",
                "requests_per_event",
                "usable_capacity",
            ]
        );
        for ((name, (lo, hi)), (_, (blo, bhi))) in a.iter().zip(&b) {
            let value = match *name {
                "usable_capacity" => capacity::usable_of(&small, 2000),
                "hottest_shard_share_windowed" => small.hottest_shard_share_windowed,
                _ => continue,
            };
            assert!(*lo <= value && value <= *hi, "{name}: {lo} {value} {hi}");
            assert!(hi - lo > 0.0, "{name}");
            assert!(
                bhi - blo < 0.5 * (hi - lo),
                "{name}: {} vs {}",
                bhi - blo,
                hi - lo
            );
        }
        assert!(bootstrap(&load(5, 30), 500, 7).is_empty());
    }

    #[test]
    fn a_resample_weighs_its_windows_by_their_events_as_the_value_does() {
        // 20 windows of 100 events, shard 0 taking 30 of each (share 0.3), then a last window
        // of 1 event (share 1): the value is (2000 · 0.3 + 1) / 2001. A resample holds k copies
        // of the short window among 21: (100 (21 - k) · 0.3 + k) / (100 (21 - k) + k), 0.3 to
        // 0.3008 for k up to 2, never near the (20 · 0.3 + 1) / 21 of a plain mean.
        let mut counts = vec![vec![30u32, 24, 23, 23]; 20];
        counts.push(vec![1, 0, 0, 0]);
        let totals = (0..4)
            .map(|s| counts.iter().map(|w| u64::from(w[s])).sum())
            .collect();
        let mut events = vec![100u64; 20];
        events.push(1);
        let load = ShardLoad::from_counts(totals, counts, events);
        let value = load.hottest_shard_share_windowed;
        assert!((value - 601.0 / 2001.0).abs() < 1e-12, "{value}");
        let intervals = bootstrap(&load, 2001, 7);
        let get = |name: &str| intervals.iter().find(|(n, _)| *n == name).unwrap().1;
        let (lo, hi) = get("hottest_shard_share_windowed");
        assert!(lo <= value && value <= hi, "[{lo}, {hi}] around {value}");
        assert!(lo >= 0.3 - 1e-12 && hi < 0.302, "[{lo}, {hi}]");
        let usable = capacity::usable_of(&load, 2001);
        let (lo, hi) = get("usable_capacity");
        assert!(lo <= usable && usable <= hi, "[{lo}, {hi}] around {usable}");
        assert!(
            lo > 0.99 * 1.0 / 1.2 && hi <= 1.0 / 1.2 + 1e-9,
            "[{lo}, {hi}]"
        );
    }

    #[test]
    fn with_weights_the_ratio_spread_and_capacity_are_resampled_per_weight_as_measured() {
        // Shard 0 takes about 35% of each window on a weight share of 2/5: per weight its
        // ratio is about 0.875, where share x N is about 1.4.
        let weighted = load(200, 30).per_weight(&[2.0, 1.0, 1.0, 1.0]);
        let intervals = bootstrap(&weighted, 20_000, 7);
        for (name, value) in [
            ("hottest_shard_ratio", weighted.hottest_shard_ratio),
            ("load_cv", weighted.load_cv),
            ("usable_capacity", capacity::usable_of(&weighted, 20_000)),
        ] {
            let (lo, hi) = intervals.iter().find(|(n, _)| *n == name).unwrap().1;
            // Before, the interval was of the unweighted figure, widened to reach the value.
            assert!(lo <= value && value <= hi, "{name}: {lo} {value} {hi}");
            assert!(hi < 1.25 * value, "{name}: [{lo}, {hi}] around {value}");
            assert!(lo > 0.8 * value, "{name}: [{lo}, {hi}] around {value}");
        }
    }

    #[test]
    fn a_repeat_interval_is_the_value_plus_or_minus_t_standard_deviations() {
        // Values 1, 2, 3: s = 1, t(0.975, 2) = 4.3027.
        let (lo, hi) = from_repeats(1.0, &[1.0, 2.0, 3.0]).unwrap();
        assert!((lo - (1.0 - 4.302652729911275)).abs() < 1e-6, "{lo}");
        assert!((hi - (1.0 + 4.302652729911275)).abs() < 1e-6, "{hi}");
        assert_eq!(from_repeats(1.0, &[1.0]), None);
        assert_eq!(from_repeats(2.0, &[2.0, 2.0]), Some((2.0, 2.0)));
    }
}
