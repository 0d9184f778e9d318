//! Load after one shard fails (`run --fail`): measured when asked, by each scheme's own
//! removal rule; a scheme that cannot remove an arbitrary shard gets empty values. Its rows
//! ([`crate::metrics::failure::FAILURE_METRICS`]) follow the common ones, so it has no row in
//! [`crate::metrics::METRICS`].

use crate::metrics::failure::{
    self, FAIL_HOTTEST_SURVIVING_RATIO, FAIL_HOTTEST_SURVIVING_SHARE, FAIL_REMAP_FRACTION,
    FAIL_REMAP_FRACTION_TRAFFIC,
};
use crate::metrics::key_sample::{KeySample, MetricEstimate};
use crate::metrics::metric::{Accumulator, Finish, Metric};
use crate::metrics::{MetricDef, MetricId, SchemeResult, WorkloadResult};
use schemes::AnalysisError;

/// The `fail_*` rows of `run --fail`.
pub struct Failure;

impl Metric for Failure {
    fn name(&self) -> &'static str {
        "failure"
    }

    fn defs(&self) -> &'static [MetricDef] {
        &[]
    }

    fn finish(
        &self,
        _: Option<Box<dyn Accumulator>>,
        ctx: &Finish<'_>,
        rows: &mut [SchemeResult],
    ) -> Result<(), AnalysisError> {
        if let Some(target) = ctx.fail {
            let values = failure::measure(ctx.part, target, ctx.keys)?.metric_values();
            rows.iter_mut()
                .for_each(|r| r.extra_metrics.extend(values.iter().copied()));
        }
        Ok(())
    }

    fn estimate(
        &self,
        id: MetricId,
        _: &WorkloadResult,
        s: &SchemeResult,
        ks: &KeySample,
    ) -> Option<MetricEstimate> {
        match id {
            FAIL_REMAP_FRACTION => ks.share(s.extra_value(id)??, ks.sampled_keys as f64),
            FAIL_REMAP_FRACTION_TRAFFIC => ks.share(s.extra_value(id)??, ks.effective_keys),
            // The busiest survivor's share of sampled keys' requests, without an interval.
            FAIL_HOTTEST_SURVIVING_SHARE | FAIL_HOTTEST_SURVIVING_RATIO
                if s.extra_value(id).flatten().is_some() =>
            {
                ks.unintervalled()
            }
            _ => None,
        }
    }
}
