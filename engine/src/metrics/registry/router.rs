//! What the router costs: the memory of the lookup structure and the time to build it.

use crate::metrics::metric::{Accumulator, Finish, Metric};
use crate::metrics::{router, MetricDef, MetricId, SchemeResult, WorkloadResult};
use schemes::AnalysisError;

/// `router_bytes`: Memory of the lookup structure (table, points, arrays); empty when the scheme does not say.
pub const ROUTER_BYTES: MetricId = MetricId("router_bytes");
/// `build_ns`: Time to build the lookup structure from its spec (one build; learning the arrival order ....
pub const BUILD_NS: MetricId = MetricId("build_ns");

/// `router_bytes`, `build_ns`.
pub struct Router;

impl Metric for Router {
    fn name(&self) -> &'static str {
        "router"
    }

    fn defs(&self) -> &'static [MetricDef] {
        &[
            MetricDef { name: ROUTER_BYTES.0, unit: "bytes", definition: "Memory of the lookup structure (table, points, arrays); empty when the scheme does not say." },
            MetricDef { name: BUILD_NS.0, unit: "ns", definition: "Time to build the lookup structure from its spec (one build; learning the arrival order not included)." },
        ]
    }

    fn finish(
        &self,
        _: Option<Box<dyn Accumulator>>,
        ctx: &Finish<'_>,
        rows: &mut [SchemeResult],
    ) -> Result<(), AnalysisError> {
        let cost = router::cost(ctx.part, ctx.build_ns);
        rows.iter_mut().for_each(|r| r.router = cost);
        Ok(())
    }

    fn value(&self, id: MetricId, _: &WorkloadResult, s: &SchemeResult) -> Option<Option<f64>> {
        match id {
            ROUTER_BYTES => Some(s.router.bytes.map(|b| b as f64)),
            BUILD_NS => Some(s.router.build_ns),
            _ => None,
        }
    }
}
