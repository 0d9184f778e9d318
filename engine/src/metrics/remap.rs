//! Remap on growth or shrink: which distinct keys, and how much traffic, change owner.

use rayon::prelude::*;
use serde::Serialize;

use super::growth::{Growth, GrowthAccumulator};
use schemes::key_counts::held_out;
use schemes::{KeyCounts, Partitioner};

/// What changes owner when a scheme goes from `N` to `M` shards.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Remap {
    /// Shard count after the change.
    pub target_shards: u32,
    /// Share of distinct keys whose owner changes.
    pub remap_fraction: f64,
    /// Share of point requests whose key changes owner.
    pub remap_fraction_traffic: f64,
    /// The least any scheme must move: |M-N| / max(M,N).
    pub remap_ideal: f64,
    /// Share of the moved keys that move to a shard that did not exist before (1 for a
    /// consistent-hash ring on growth; 0 when nothing moves).
    pub moved_to_new_shards: f64,
    /// Where the measured point requests land on the resized layout.
    pub growth: Growth,
    /// Why the scheme cannot reach `M` shards by its own rule
    /// ([`schemes::Partitioner::resize_refusal`]); the figures above are then not applicable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refusal: Option<String>,
}

impl Remap {
    /// The remap to `m` shards of a scheme that cannot reach them, with its reason: every
    /// figure is NaN and every growth figure `None` (reported as not applicable).
    pub fn refused(m: u32, reason: String) -> Remap {
        Remap {
            target_shards: m,
            remap_fraction: f64::NAN,
            remap_fraction_traffic: f64::NAN,
            remap_ideal: f64::NAN,
            moved_to_new_shards: f64::NAN,
            growth: Growth::default(),
            refusal: Some(reason),
        }
    }
}

/// `before` resized to `m` shards by its own rule, as every figure and `route --grow` see
/// it: a layout whose resize learns from the keys ([`Partitioner::resize_learns`]) learns
/// from their [`KeyCounts::learning_half`] only, every other scheme from all of them.
pub fn resized(
    before: &dyn Partitioner,
    m: u32,
    keys: &KeyCounts,
) -> Result<Box<dyn Partitioner>, schemes::AnalysisError> {
    if before.resize_learns() {
        before.resized(m, keys.learning_half())
    } else {
        before.resized(m, keys)
    }
}

/// The remap of `before` resized to `m` shards ([`resized`]). The growth figures of a layout
/// whose resize learns are scored on the [held-out](held_out) half, so that cuts are never
/// judged on the very requests they were fitted to; every other scheme's on all keys.
pub fn of_resize(
    before: &dyn Partitioner,
    m: u32,
    keys: &KeyCounts,
) -> Result<Remap, schemes::AnalysisError> {
    let after = resized(before, m, keys)?;
    Ok(if before.resize_learns() {
        measure_scored(before, after.as_ref(), keys, held_out)
    } else {
        measure(before, after.as_ref(), keys)
    })
}

/// Compares the owners of every distinct key before and after resizing, and counts where
/// their point requests land after it.
pub fn measure(before: &dyn Partitioner, after: &dyn Partitioner, keys: &KeyCounts) -> Remap {
    measure_scored(before, after, keys, |_| true)
}

/// [`measure`], counting the growth figures ([`Growth`]) on the keys `scored` accepts only.
fn measure_scored(
    before: &dyn Partitioner,
    after: &dyn Partitioner,
    keys: &KeyCounts,
    scored: impl Fn(&[u8]) -> bool + Sync,
) -> Remap {
    let (n, m) = (before.shard_count(), after.shard_count());
    // (moved keys, moved requests, moved to a new shard), summed exactly in integers.
    let start = || ((0u64, 0u64, 0u64), GrowthAccumulator::new(n, m));
    let ((moved, moved_traffic, to_new), grown) = keys
        .par_iter()
        .fold(start, |(mut acc, mut grown), (key, count)| {
            let (a, b) = (before.shard_of(key), after.shard_of(key));
            if scored(key) {
                grown.add(b, count);
            }
            if a != b {
                acc.0 += 1;
                acc.1 += count;
                acc.2 += (b >= n) as u64;
            }
            (acc, grown)
        })
        .reduce(start, |(x, gx), (y, gy)| {
            ((x.0 + y.0, x.1 + y.1, x.2 + y.2), gx.merge(gy))
        });
    Remap {
        target_shards: m,
        remap_fraction: ratio(moved, keys.len() as u64),
        // Over the keys held: all of them, or the sample (then an estimate of the share).
        remap_fraction_traffic: ratio(moved_traffic, keys.held_total()),
        remap_ideal: ideal(n, m),
        moved_to_new_shards: ratio(to_new, moved),
        growth: grown.finish(),
        refusal: None,
    }
}

/// The least share of keys that must move from `n` to `m` shards: |m-n| / max(m,n).
pub fn ideal(n: u32, m: u32) -> f64 {
    ratio(n.abs_diff(m) as u64, n.max(m) as u64)
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ideal_remap_is_the_changed_share_of_the_larger_cluster() {
        assert!((ideal(16, 17) - 1.0 / 17.0).abs() < 1e-12);
        assert!((ideal(16, 12) - 0.25).abs() < 1e-12);
        assert_eq!(ideal(8, 8), 0.0);
    }
}
