//! A toy metric, registered in tests only, to show (and check) that a metric is one file and
//! one registration line: it counts point requests on even-numbered shards.

use serde::{Deserialize, Serialize};

use crate::metrics::metric::{take, Accumulator, Finish, Metric, Routed, Start, State};
use crate::metrics::{MetricDef, MetricValue, SchemeResult};
use schemes::AnalysisError;

/// `toy_even_shard_requests`.
pub struct Toy;

const DEFS: &[MetricDef] = &[MetricDef {
    name: "toy_even_shard_requests",
    unit: "requests",
    definition: "Point requests to even-numbered shards.",
}];

/// Point requests to even-numbered shards so far.
#[derive(Serialize, Deserialize)]
struct EvenShards(u64);

impl State for EvenShards {
    fn record(&mut self, chunk: &Routed<'_>) {
        self.0 += chunk.point_shards.iter().filter(|&&s| s % 2 == 0).count() as u64;
    }

    fn merge(&mut self, other: Self) {
        self.0 += other.0;
    }
}

impl Metric for Toy {
    fn name(&self) -> &'static str {
        "toy"
    }

    fn defs(&self) -> &'static [MetricDef] {
        DEFS
    }

    fn start(&self, _: &Start<'_>) -> Option<Box<dyn Accumulator>> {
        Some(Box::new(EvenShards(0)))
    }

    fn finish(
        &self,
        acc: Option<Box<dyn Accumulator>>,
        _: &Finish<'_>,
        rows: &mut [SchemeResult],
    ) -> Result<(), AnalysisError> {
        let Some(acc) = acc else { return Ok(()) };
        let value = take::<EvenShards>(acc)?.0 as f64;
        for row in rows {
            row.extra_metrics.push(MetricValue {
                name: DEFS[0].name,
                unit: DEFS[0].unit,
                value: Some(value),
            });
        }
        Ok(())
    }
}
