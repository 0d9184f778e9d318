//! Split quality of the hottest range: measured for every scheme that has range boundaries
//! ([`schemes::Partitioner::range_starts`]), whatever its name.

use crate::metrics::key_sample::{KeySample, MetricEstimate};
use crate::metrics::metric::{Accumulator, Finish, Metric};
use crate::metrics::{split, MetricDef, SchemeResult, SplitBalance, WorkloadResult};
use schemes::AnalysisError;

/// `split_balance`, `split_balance_optimal`.
pub struct Split;

impl Metric for Split {
    fn name(&self) -> &'static str {
        "split"
    }

    fn defs(&self) -> &'static [MetricDef] {
        &[
            MetricDef { name: "split_balance", unit: "ratio", definition: "Range only: |L-R|/(L+R) of the hottest range's point load split at its median distinct key." },
            MetricDef { name: "split_balance_optimal", unit: "ratio", definition: "Range only: the same at the exact load-halving key." },
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

    fn value(&self, name: &str, _: &WorkloadResult, s: &SchemeResult) -> Option<Option<f64>> {
        let split = |f: fn(&SplitBalance) -> f64| s.split.as_ref().map(|x| Some(f(x)));
        match name {
            "split_balance" => split(|x| x.median_balance),
            "split_balance_optimal" => split(|x| x.optimal_balance),
            _ => None,
        }
    }

    fn estimate(
        &self,
        name: &str,
        _: &WorkloadResult,
        s: &SchemeResult,
        ks: &KeySample,
    ) -> Option<MetricEstimate> {
        // Computed over the sampled keys of the hottest range, without an interval.
        let own = name == "split_balance" || name == "split_balance_optimal";
        (own && s.split.is_some()).then(|| ks.unintervalled())?
    }
}
