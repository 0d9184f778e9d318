//! Lookup latency: `shard_of` timed single-threaded, in batches, recorded per lookup.
//!
//! What is timed: a batch of `batch` consecutive `shard_of` calls over a sample of the
//! replayed point keys (in trace order), each key and result passed through
//! `std::hint::black_box`. The batch time minus the calibrated cost of one `Instant::now()`
//! pair, divided by the batch size, is one sample (ns per lookup) in an HDR histogram kept in
//! hundredths of a nanosecond. Percentiles are therefore of per-batch means: they show
//! variation between batches (cache misses, interrupts), not of single lookups, which a
//! timer cannot resolve at a few nanoseconds.
//!
//! How long: until [`LatencyConfig::max_lookups`], or until [`LatencyConfig::budget`] has
//! passed and at least [`MIN_BATCHES`] batches are timed, whichever comes first. Both bounds
//! are fixed, whatever the trace's length, so the phase costs about `budget` per scheme.

use std::hint::black_box;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use serde::Serialize;

use schemes::Partitioner;

/// How long and how finely to time lookups.
#[derive(Clone, Copy, Debug)]
pub struct LatencyConfig {
    /// Lookups per timed batch.
    pub batch: usize,
    /// Stop after this many lookups...
    pub max_lookups: u64,
    /// ...or after this much time, whichever comes first (once [`MIN_BATCHES`] are timed).
    pub budget: Duration,
}

impl Default for LatencyConfig {
    fn default() -> Self {
        LatencyConfig {
            batch: 128,
            max_lookups: 4 << 20,
            budget: Duration::from_millis(15),
        }
    }
}

/// Batches timed at least (unless [`LatencyConfig::max_lookups`] comes first), so that the
/// 99.9th percentile is never the single slowest batch: at 10-50 ns a lookup, the default
/// budget times 2,000 to 10,000 batches of 128.
pub const MIN_BATCHES: u64 = 2000;

/// Lookup latency of one scheme.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Latency {
    /// Median ns per lookup.
    pub p50_ns: f64,
    /// 99th percentile ns per lookup.
    pub p99_ns: f64,
    /// 99.9th percentile ns per lookup.
    pub p999_ns: f64,
    /// Mean ns per lookup.
    pub mean_ns: f64,
    /// Lookups per second of timed work (1e9 / mean).
    pub lookups_per_sec: f64,
    /// Lookups timed.
    pub lookups: u64,
    /// The subtracted cost of one pair of timer reads, in ns.
    pub timer_overhead_ns: f64,
}

/// The median cost of reading the clock twice, in ns.
pub fn timer_overhead_ns() -> f64 {
    let mut v: Vec<u128> = (0..2001)
        .map(|_| {
            let t = Instant::now();
            black_box(Instant::now()).duration_since(t).as_nanos()
        })
        .collect();
    v.sort_unstable();
    v[v.len() / 2] as f64
}

/// Times `partitioner.shard_of` over `keys`; `None` when there are no keys.
pub fn measure(
    partitioner: &dyn Partitioner,
    keys: &[Vec<u8>],
    cfg: &LatencyConfig,
) -> Option<Latency> {
    if keys.is_empty() {
        return None;
    }
    let overhead = timer_overhead_ns();
    let batch = cfg.batch.max(1);
    // Hundredths of a nanosecond, up to 1 second per lookup.
    let mut hist = Histogram::<u64>::new_with_bounds(1, 100_000_000_000, 3).ok()?;
    let (mut lookups, mut batches, mut total_ns) = (0u64, 0u64, 0f64);
    let start = Instant::now();
    'outer: loop {
        for part in keys.chunks(batch) {
            let t = Instant::now();
            for key in part {
                black_box(partitioner.shard_of(black_box(key)));
            }
            // The batch's end also tells when the budget is spent: no extra clock read.
            let end = Instant::now();
            let ns = (end.duration_since(t).as_nanos() as f64 - overhead).max(0.0);
            let per = ns / part.len() as f64;
            hist.saturating_record(((per * 100.0).round() as u64).max(1));
            lookups += part.len() as u64;
            batches += 1;
            total_ns += ns;
            let spent = batches >= MIN_BATCHES && end.duration_since(start) >= cfg.budget;
            if lookups >= cfg.max_lookups || spent {
                break 'outer;
            }
        }
    }
    let mean = total_ns / lookups as f64;
    Some(Latency {
        p50_ns: hist.value_at_quantile(0.5) as f64 / 100.0,
        p99_ns: hist.value_at_quantile(0.99) as f64 / 100.0,
        p999_ns: hist.value_at_quantile(0.999) as f64 / 100.0,
        mean_ns: mean,
        lookups_per_sec: if mean > 0.0 { 1e9 / mean } else { 0.0 },
        lookups,
        timer_overhead_ns: overhead,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemes::hash::ModHashPartitioner;

    #[test]
    fn lookups_are_timed_and_counted() {
        let part = ModHashPartitioner::new("hash", 16).unwrap();
        let keys: Vec<Vec<u8>> = (0u64..1000).map(|k| k.to_be_bytes().to_vec()).collect();
        let cfg = LatencyConfig {
            batch: 100,
            max_lookups: 10_000,
            budget: Duration::from_secs(5),
        };
        let lat = measure(&part, &keys, &cfg).expect("keys were given");
        assert_eq!(lat.lookups, 10_000);
        assert!(
            lat.p50_ns > 0.0 && lat.p50_ns <= lat.p99_ns && lat.p99_ns <= lat.p999_ns,
            "{lat:?}"
        );
        assert!(lat.mean_ns > 0.0 && lat.lookups_per_sec > 0.0);
        assert!(measure(&part, &[], &cfg).is_none());
    }

    #[test]
    fn timing_stops_after_the_budget_once_enough_batches_are_timed() {
        let part = ModHashPartitioner::new("hash", 16).unwrap();
        let keys: Vec<Vec<u8>> = (0u64..1000).map(|k| k.to_be_bytes().to_vec()).collect();
        let cfg = LatencyConfig {
            batch: 10,
            max_lookups: u64::MAX,
            budget: Duration::ZERO,
        };
        // No budget at all: exactly the minimum of batches, whatever the keys.
        let lat = measure(&part, &keys, &cfg).unwrap();
        assert_eq!(lat.lookups, MIN_BATCHES * 10);
        let cfg = LatencyConfig {
            budget: Duration::from_millis(30),
            ..cfg
        };
        let started = Instant::now();
        let lat = measure(&part, &keys, &cfg).unwrap();
        let took = started.elapsed();
        assert!(lat.lookups > MIN_BATCHES * 10, "{lat:?}");
        assert!(
            took >= cfg.budget && took < Duration::from_secs(2),
            "{took:?}"
        );
    }
}
