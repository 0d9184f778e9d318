//! Placement spread: how much of a hashed scheme's balance is the luck of its placement.
//!
//! The measured figures are those of the scheme as deployed (salt 0: the real system's own
//! hash and points). Another deployment of the same scheme (other node names, other seeds)
//! places the same keys differently, and on a skewed trace which shard gets the hot keys
//! moves the hottest shard by several points. So every scheme that can redraw its placement
//! ([`Partitioner::with_salt`]) is also evaluated under [`PLACEMENTS`] salts, and the 95%
//! intervals of `hottest_shard_share`, `hottest_shard_ratio`, `hottest_shard_share_windowed`
//! and `usable_capacity` are widened to cover where another placement's figure would fall.
//! Two schemes whose placement distributions overlap then tie in the decision.
//!
//! What is computed (cheap: no second replay):
//! - Each placement's **requests per shard**: the [`EXACT_KEYS`] most requested keys of the
//!   distinct-key table are placed again under the salt (exactly, with their counts); every
//!   other request (lighter keys, scans) stays on the shard that served it as deployed.
//!   Light keys move a shard's load by little, and a hashed scheme's scans contact every
//!   shard whatever the placement, so the spread is that of the hot keys' luck (and, for a
//!   ring, of its redrawn arcs as the heavy keys meet them): a lower bound that misses the
//!   light keys' own luck (under 1% of a shard's load beyond some 30,000 keys).
//! - Each placement's whole-trace hottest share `h_k` gives its **shift** from the deployed
//!   one, `d_k = h_k - h_0`; the placement's figures are the measured ones moved
//!   by it: hottest share `measured + d_k`, windowed share `measured windowed + d_k` (the
//!   window-noise excess of the windowed share is taken to be the same under every
//!   placement), usable capacity from that windowed share.
//! - The **interval** of a figure over the K + 1 placements (salt 0 included), values
//!   `v_0..v_K` with mean `m` and standard deviation `s`, is the 95% prediction interval of
//!   one more placement, `m ± t(0.975, K) · s · sqrt(1 + 1/(K+1))`, widened to include the
//!   measured value; it is joined with the bootstrap interval (the wider of both).
//!
//! Not evaluated: layouts learned from the data (key ranges: their spread is the data's, see
//! growth) or from the order of arrival, and weighted shards (`--weights`).

use rayon::prelude::*;
use statrs::distribution::{ContinuousCDF, StudentsT};
use statrs::statistics::Statistics;

use super::registry::load::{
    HOTTEST_SHARD_RATIO, HOTTEST_SHARD_SHARE, HOTTEST_SHARD_SHARE_WINDOWED, USABLE_CAPACITY,
};
use super::{capacity, MetricId, ShardLoad};
use schemes::{KeyCounts, Partitioner};

/// Placements evaluated besides the deployed one (salts 1..=K).
pub const PLACEMENTS: u64 = 16;

/// The most requested keys placed again under every salt.
pub const EXACT_KEYS: usize = 1 << 15;

/// The metrics whose intervals cover the placement spread.
pub const SPREAD: [MetricId; 4] = [
    HOTTEST_SHARD_SHARE,
    HOTTEST_SHARD_RATIO,
    HOTTEST_SHARD_SHARE_WINDOWED,
    USABLE_CAPACITY,
];

/// The most requested keys of a workload, placed again under every salt.
pub struct HeavyKeys<'k> {
    keys: Vec<(&'k [u8], u64)>,
}

impl<'k> HeavyKeys<'k> {
    /// The [`EXACT_KEYS`] most requested keys of `keys` (ties: the smaller key), in no order.
    pub fn of(keys: &'k KeyCounts) -> HeavyKeys<'k> {
        // The order read does not matter: the selection's order is total.
        let mut all: Vec<(&[u8], u64)> = keys.par_iter().collect();
        if all.len() > EXACT_KEYS {
            all.select_nth_unstable_by(EXACT_KEYS, |a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
            all.truncate(EXACT_KEYS);
        }
        HeavyKeys { keys: all }
    }

    /// Their point requests per shard under `part`.
    fn loads(&self, part: &dyn Partitioner) -> Vec<u64> {
        let mut loads = vec![0u64; part.shard_count() as usize];
        for &(k, c) in &self.keys {
            loads[part.shard_of(k) as usize] += c;
        }
        loads
    }
}

/// The placement intervals of [`SPREAD`] for one scheme measured as `load` over `events`
/// events, `heavy` the workload's most requested keys; empty when the scheme cannot redraw
/// its placement or the shards are weighted.
pub fn spread(
    part: &dyn Partitioner,
    heavy: &HeavyKeys<'_>,
    load: &ShardLoad,
    events: u64,
) -> Vec<(&'static str, super::confidence::Interval)> {
    if load.weights.is_some() || load.requests == 0 || part.with_salt(1).is_none() {
        return Vec::new();
    }
    let n = part.shard_count() as usize;
    // What stays on each shard under every placement: its requests but the heavy keys'.
    let deployed = heavy.loads(part);
    let stays: Vec<u64> = load
        .shard_requests
        .iter()
        .zip(&deployed)
        .map(|(&r, &h)| r.saturating_sub(h))
        .collect();
    let hottest = |loads: &[u64]| {
        let top = loads
            .iter()
            .zip(&stays)
            .map(|(h, s)| h + s)
            .max()
            .unwrap_or(0);
        top as f64 / load.requests as f64
    };
    let at_salt_0 = hottest(&deployed);
    let shifts: Vec<f64> = std::iter::once(0.0)
        .chain(
            (1..=PLACEMENTS)
                .into_par_iter()
                .map(|salt| {
                    part.with_salt(salt)
                        .map_or(at_salt_0, |p| hottest(&heavy.loads(p.as_ref())))
                        - at_salt_0
                })
                .collect::<Vec<_>>(),
        )
        .collect();
    let fair = 1.0 / n as f64;
    let share = |measured: f64| -> Vec<f64> {
        shifts
            .iter()
            .map(|d| (measured + d).clamp(fair, 1.0))
            .collect()
    };
    let hottest_values = share(load.hottest_shard_share);
    let windowed_values = share(load.hottest_shard_share_windowed);
    let usable_values: Vec<f64> = windowed_values
        .iter()
        .map(|&w| capacity::usable(n, events, load.requests, w))
        .collect();
    let ratio_values: Vec<f64> = hottest_values.iter().map(|h| h * n as f64).collect();
    let measured = [
        load.hottest_shard_share,
        load.hottest_shard_ratio,
        load.hottest_shard_share_windowed,
        capacity::usable_of(load, events),
    ];
    SPREAD
        .iter()
        .zip([hottest_values, ratio_values, windowed_values, usable_values])
        .zip(measured)
        .filter_map(|((&id, values), value)| Some((id.name(), prediction(&values, value)?)))
        .collect()
}

/// The 95% prediction interval of one more draw from `values` (see the module), widened to
/// include `value`.
pub fn prediction(values: &[f64], value: f64) -> Option<super::confidence::Interval> {
    if values.len() < 2 {
        return None;
    }
    let k = values.len() as f64;
    let mean = values.iter().mean();
    let sd = values.iter().std_dev();
    let t = StudentsT::new(0.0, 1.0, k - 1.0).ok()?.inverse_cdf(0.975);
    let half = t * sd * (1.0 + 1.0 / k).sqrt();
    Some(((mean - half).min(value), (mean + half).max(value)))
}

/// `a` joined with `b` where both give an interval of the same metric: the wider of both.
pub fn join(
    intervals: &mut Vec<(&'static str, super::confidence::Interval)>,
    more: Vec<(&'static str, super::confidence::Interval)>,
) {
    for (name, (lo, hi)) in more {
        match intervals.iter_mut().find(|(n, _)| *n == name) {
            Some((_, ci)) => *ci = (ci.0.min(lo), ci.1.max(hi)),
            None => intervals.push((name, (lo, hi))),
        }
    }
}
