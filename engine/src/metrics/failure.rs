//! Load after one shard fails (`run --fail K|worst`): the scheme removes the shard by its own
//! rule ([`schemes::Partitioner::without_shard`]) and the survivors serve its keys.
//!
//! Computed from the distinct keys and their point requests ([`KeyCounts`]): the share of
//! keys and of requests that change owner, and the hottest surviving shard. Shards keep their
//! numbers ([`Degraded`]), so a key moves only when its owner really changes.
//!
//! ```
//! use engine::metrics::failure::{measure, FailTarget, FailureOutcome};
//! use schemes::hash::ModHashPartitioner;
//! use schemes::KeyCounts;
//! let mut keys = KeyCounts::new();
//! (0u32..1000).for_each(|i| keys.add(&i.to_be_bytes(), 1));
//! let hash = ModHashPartitioner::new("hash", 4).unwrap();
//! let FailureOutcome::Measured(load) = measure(&hash, FailTarget::Shard(1), &keys).unwrap() else { panic!() };
//! assert_eq!(load.shard_requests_after[1], 0);
//! assert!(load.remap.remap_fraction > 0.5); // mod-N rehashes everything onto 3 shards
//! ```

use std::str::FromStr;

use rayon::prelude::*;
use serde::Serialize;

use super::remap::{self, Remap};
use super::{MetricDef, MetricId, MetricValue};
use schemes::placement::{cannot_remove_message, Degraded};
use schemes::{AnalysisError, KeyCounts, Partitioner, ShardId};

/// Which shard fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum FailTarget {
    /// This shard.
    Shard(ShardId),
    /// The shard whose loss leaves the busiest surviving shard with the most point requests
    /// (ties: the lowest number).
    Worst,
}

impl FromStr for FailTarget {
    type Err = AnalysisError;

    /// `worst` or a shard number.
    fn from_str(text: &str) -> Result<FailTarget, AnalysisError> {
        match text.trim() {
            "worst" => Ok(FailTarget::Worst),
            t => t.parse().map(FailTarget::Shard).map_err(|_| {
                AnalysisError::Config(format!(
                    "--fail '{text}': expected a shard number (0, 1, ...) or 'worst'"
                ))
            }),
        }
    }
}

/// The load after one shard failed.
#[derive(Clone, Debug, Serialize)]
pub struct FailureLoad {
    /// The shard that failed.
    pub failed_shard: ShardId,
    /// Keys and requests that change owner; `target_shards` is `N - 1` and `remap_ideal` is
    /// `1/N` (only the failed shard's keys must move).
    pub remap: Remap,
    /// Point requests per shard before the failure.
    pub shard_requests_before: Vec<u64>,
    /// Point requests per shard after it, under the original numbers (the failed one has 0).
    pub shard_requests_after: Vec<u64>,
    /// The surviving shard with the most point requests (ties: the lowest number).
    pub hottest_surviving_shard: ShardId,
    /// Its point requests / all point requests.
    pub hottest_surviving_share: f64,
    /// `hottest_surviving_share * (N - 1)`: 1.0 is a perfect spread over the survivors.
    pub hottest_surviving_ratio: f64,
}

/// What a failure did, or why it could not be measured.
#[derive(Clone, Debug)]
pub enum FailureOutcome {
    /// The scheme removed the shard.
    Measured(FailureLoad),
    /// The scheme cannot remove an arbitrary shard; the sentence says so.
    Unsupported(String),
}

/// `fail_shard`: The shard that failed (--fail K, or the worst one).
pub const FAIL_SHARD: MetricId = MetricId("fail_shard");
/// `fail_remap_fraction`: Distinct keys whose owner changes when that shard is removed by the scheme's own rule.
pub const FAIL_REMAP_FRACTION: MetricId = MetricId("fail_remap_fraction");
/// `fail_remap_fraction_traffic`: Point requests whose key changes owner when that shard is removed.
pub const FAIL_REMAP_FRACTION_TRAFFIC: MetricId = MetricId("fail_remap_fraction_traffic");
/// `fail_hottest_surviving_share`: Point requests of the busiest surviving shard / all point requests.
pub const FAIL_HOTTEST_SURVIVING_SHARE: MetricId = MetricId("fail_hottest_surviving_share");
/// `fail_hottest_surviving_ratio`: fail_hottest_surviving_share x (N-1); 1.0 is a perfect spread over the survivors.
pub const FAIL_HOTTEST_SURVIVING_RATIO: MetricId = MetricId("fail_hottest_surviving_ratio");

/// The rows `run --fail` adds to `summary.csv` for each scheme.
pub static FAILURE_METRICS: &[MetricDef] = &[
    MetricDef {
        name: FAIL_SHARD.0,
        unit: "shard",
        definition: "The shard that failed (--fail K, or the worst one).",
    },
    MetricDef {
        name: FAIL_REMAP_FRACTION.0,
        unit: "share",
        definition:
            "Distinct keys whose owner changes when that shard is removed by the scheme's own rule.",
    },
    MetricDef {
        name: FAIL_REMAP_FRACTION_TRAFFIC.0,
        unit: "share",
        definition: "Point requests whose key changes owner when that shard is removed.",
    },
    MetricDef {
        name: FAIL_HOTTEST_SURVIVING_SHARE.0,
        unit: "share",
        definition: "Point requests of the busiest surviving shard / all point requests.",
    },
    MetricDef {
        name: FAIL_HOTTEST_SURVIVING_RATIO.0,
        unit: "ratio",
        definition:
            "fail_hottest_surviving_share x (N-1); 1.0 is a perfect spread over the survivors.",
    },
];

impl FailureOutcome {
    /// The [`FAILURE_METRICS`] values; all empty when the scheme cannot remove the shard.
    pub fn metric_values(&self) -> Vec<MetricValue> {
        let values = match self {
            FailureOutcome::Measured(l) => [
                Some(f64::from(l.failed_shard)),
                Some(l.remap.remap_fraction),
                Some(l.remap.remap_fraction_traffic),
                Some(l.hottest_surviving_share),
                Some(l.hottest_surviving_ratio),
            ],
            FailureOutcome::Unsupported(_) => [None; 5],
        };
        MetricDef::values(FAILURE_METRICS, values)
    }
}

/// Fails `target` in `part` and measures the survivors' load on `keys`.
pub fn measure(
    part: &dyn Partitioner,
    target: FailTarget,
    keys: &KeyCounts,
) -> Result<FailureOutcome, AnalysisError> {
    let before = requests_per_shard(part, keys);
    let candidates: Vec<ShardId> = match target {
        FailTarget::Shard(shard) => vec![shard],
        FailTarget::Worst => (0..part.shard_count()).collect(),
    };
    let measured: Vec<Option<(Degraded, Vec<u64>)>> = candidates
        .par_iter()
        .map(|&shard| {
            Ok(Degraded::after_removal(part, shard, keys)?.map(|after| {
                let loads = requests_per_shard(&after, keys);
                (after, loads)
            }))
        })
        .collect::<Result<_, AnalysisError>>()?;
    let Some(measured) = measured.into_iter().collect::<Option<Vec<_>>>() else {
        return Ok(FailureOutcome::Unsupported(cannot_remove_message(part)));
    };
    // The worst candidate: most requests on one survivor; ties keep the lowest shard.
    let hottest = |loads: &[u64]| loads.iter().copied().max().unwrap_or(0);
    let (after, loads) = measured
        .into_iter()
        .reduce(|best, next| {
            if hottest(&next.1) > hottest(&best.1) {
                next
            } else {
                best
            }
        })
        .ok_or_else(|| AnalysisError::Config("a scheme with no shards cannot lose one".into()))?;
    let n = part.shard_count();
    let (shard, max) = loads
        .iter()
        .enumerate()
        .fold((0, 0), |acc, (s, &r)| if r > acc.1 { (s, r) } else { acc });
    let total: u64 = loads.iter().sum();
    let share = if total == 0 {
        0.0
    } else {
        max as f64 / total as f64
    };
    let remap = Remap {
        target_shards: n - 1,
        remap_ideal: remap::ideal(n, n - 1),
        ..remap::measure(part, &after, keys)
    };
    Ok(FailureOutcome::Measured(FailureLoad {
        failed_shard: after.failed()[0],
        remap,
        shard_requests_before: before,
        shard_requests_after: loads,
        hottest_surviving_shard: shard as ShardId,
        hottest_surviving_share: share,
        hottest_surviving_ratio: share * f64::from(n - 1),
    }))
}

/// Point requests per shard: every key's count added to its owner (exact integer sums).
pub fn requests_per_shard(part: &dyn Partitioner, keys: &KeyCounts) -> Vec<u64> {
    let n = part.shard_count() as usize;
    keys.par_iter()
        .fold(
            || vec![0u64; n],
            |mut loads, (key, count)| {
                loads[part.shard_of(key) as usize] += count;
                loads
            },
        )
        .reduce(
            || vec![0; n],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fail_targets_parse_from_a_number_or_worst() {
        assert_eq!("worst".parse::<FailTarget>().unwrap(), FailTarget::Worst);
        assert_eq!(" 3".parse::<FailTarget>().unwrap(), FailTarget::Shard(3));
        let err = "three".parse::<FailTarget>().unwrap_err().to_string();
        assert!(
            err.contains("--fail 'three'") && err.contains("'worst'"),
            "{err}"
        );
    }
}
