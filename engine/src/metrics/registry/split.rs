//! Split quality of the hottest range: measured for every scheme that has range boundaries
//! ([`schemes::Partitioner::range_starts`]), whatever its name.

use crate::metrics::key_sample::{KeySample, MetricEstimate};
use crate::metrics::metric::{Accumulator, Finish, Metric};
use crate::metrics::{split, MetricDef, MetricId, SchemeResult, SplitBalance, WorkloadResult};
use schemes::AnalysisError;

/// `split_balance`: Range only: |L-R|/(L+R) of the hottest range's point load split at its median distinct key.
pub const SPLIT_BALANCE: MetricId = MetricId("split_balance");
/// `split_balance_optimal`: Range only: the same at the exact load-halving key.
pub const SPLIT_BALANCE_OPTIMAL: MetricId = MetricId("split_balance_optimal");

/// `split_balance`, `split_balance_optimal`.
pub struct Split;

impl Metric for Split {
    fn name(&self) -> &'static str {
        "split"
    }

    fn defs(&self) -> &'static [MetricDef] {
        &[
            MetricDef { name: SPLIT_BALANCE.0, unit: "ratio", definition: "Range only: |L-R|/(L+R) of the hottest range's point load split at its median distinct key." },
            MetricDef { name: SPLIT_BALANCE_OPTIMAL.0, unit: "ratio", definition: "Range only: the same at the exact load-halving key." },
        ]
    }

    fn finish(
        &self,
        _: Option<Box<dyn Accumulator>>,
        ctx: &Finish<'_>,
        rows: &mut [SchemeResult],
    ) -> Result<(), AnalysisError> {
        let measured = ctx
            .part
            .range_starts()
            .and_then(|starts| split::measure(starts, ctx.keys));
        rows.iter_mut().for_each(|r| r.split = measured.clone());
        Ok(())
    }

    fn value(&self, id: MetricId, _: &WorkloadResult, s: &SchemeResult) -> Option<Option<f64>> {
        let split = |f: fn(&SplitBalance) -> f64| s.split.as_ref().map(|x| Some(f(x)));
        match id {
            SPLIT_BALANCE => split(|x| x.median_balance),
            SPLIT_BALANCE_OPTIMAL => split(|x| x.optimal_balance),
            _ => None,
        }
    }

    fn estimate(
        &self,
        id: MetricId,
        _: &WorkloadResult,
        s: &SchemeResult,
        ks: &KeySample,
    ) -> Option<MetricEstimate> {
        // Computed over the sampled keys of the hottest range, without an interval.
        let own = id == SPLIT_BALANCE || id == SPLIT_BALANCE_OPTIMAL;
        (own && s.split.is_some()).then(|| ks.unintervalled())?
    }
}
