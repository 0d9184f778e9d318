//! The key space of the measured point operations: its distinct keys, its hottest key, and
//! the distinct keys each shard owns (`shards.csv`).

use rayon::prelude::*;

use crate::metrics::key_sample::{KeySample, MetricEstimate};
use crate::metrics::metric::{Accumulator, Finish, Metric};
use crate::metrics::{MetricDef, MetricId, SchemeResult, WorkloadResult};
use schemes::{AnalysisError, KeyCounts, Partitioner};

/// `distinct_keys`: Distinct keys of measured point operations.
pub const DISTINCT_KEYS: MetricId = MetricId("distinct_keys");
/// `hottest_key_share`: Point requests of the most requested key / all point requests.
pub const HOTTEST_KEY_SHARE: MetricId = MetricId("hottest_key_share");

/// `distinct_keys`, `hottest_key_share`.
pub struct Keys;

impl Metric for Keys {
    fn name(&self) -> &'static str {
        "keys"
    }

    fn defs(&self) -> &'static [MetricDef] {
        &[
            MetricDef { name: DISTINCT_KEYS.0, unit: "keys", definition: "Distinct keys of measured point operations." },
            MetricDef { name: HOTTEST_KEY_SHARE.0, unit: "share", definition: "Point requests of the most requested key / all point requests. No scheme can spread one key." },
        ]
    }

    fn finish(
        &self,
        _: Option<Box<dyn Accumulator>>,
        ctx: &Finish<'_>,
        rows: &mut [SchemeResult],
    ) -> Result<(), AnalysisError> {
        let per_shard = distinct_per_shard(ctx.part, ctx.keys);
        rows.iter_mut()
            .for_each(|r| r.shard_distinct_keys = per_shard.clone());
        Ok(())
    }

    fn value(&self, id: MetricId, w: &WorkloadResult, _: &SchemeResult) -> Option<Option<f64>> {
        match id {
            DISTINCT_KEYS => Some(Some(w.distinct_keys as f64)),
            HOTTEST_KEY_SHARE => Some(Some(match &w.hottest_key {
                Some((_, n)) if w.point_requests > 0 => *n as f64 / w.point_requests as f64,
                _ => 0.0,
            })),
            _ => None,
        }
    }

    fn estimate(
        &self,
        id: MetricId,
        w: &WorkloadResult,
        _: &SchemeResult,
        ks: &KeySample,
    ) -> Option<MetricEstimate> {
        match id {
            DISTINCT_KEYS => Some(ks.distinct.into()),
            // The space-saving count of a hottest key outside the sample may overstate it by
            // its error: [count - error, count] / requests.
            HOTTEST_KEY_SHARE if ks.hottest_key_error > 0 => {
                let count = w.hottest_key.as_ref().map_or(0, |(_, n)| *n);
                let share = |n: u64| {
                    if w.point_requests == 0 {
                        0.0
                    } else {
                        n as f64 / w.point_requests as f64
                    }
                };
                Some(MetricEstimate {
                    sample_rate: ks.sample_rate,
                    ci: Some((
                        share(count.saturating_sub(ks.hottest_key_error)),
                        share(count),
                    )),
                })
            }
            _ => None,
        }
    }
}

/// Distinct keys owned by each shard.
fn distinct_per_shard(part: &dyn Partitioner, keys: &KeyCounts) -> Vec<u64> {
    let n = part.shard_count() as usize;
    keys.par_iter()
        .fold(
            || vec![0u64; n],
            |mut counts, (k, _)| {
                counts[part.shard_of(k) as usize] += 1;
                counts
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
