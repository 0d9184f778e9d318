//! Lookup latency: each scheme's `shard_of` timed single-threaded on the measured point keys,
//! after every other measurement, with nothing else running.

use crate::metrics::latency::{self, Latency};
use crate::metrics::metric::{Accumulator, Finish, Metric};
use crate::metrics::{MetricDef, MetricId, SchemeResult, WorkloadResult};
use schemes::AnalysisError;

/// `lookup_ns_p50`: lookup_ns_p50.
pub const LOOKUP_NS_P50: MetricId = MetricId("lookup_ns_p50");
/// `lookup_ns_p99`: 99th percentile ns per lookup (of per-batch means).
pub const LOOKUP_NS_P99: MetricId = MetricId("lookup_ns_p99");
/// `lookup_ns_p999`: 99.9th percentile ns per lookup (of per-batch means).
pub const LOOKUP_NS_P999: MetricId = MetricId("lookup_ns_p999");
/// `lookup_ns_mean`: Mean ns per lookup.
pub const LOOKUP_NS_MEAN: MetricId = MetricId("lookup_ns_mean");
/// `lookups_per_sec`: Single-threaded lookups per second (1e9 / mean).
pub const LOOKUPS_PER_SEC: MetricId = MetricId("lookups_per_sec");

/// `lookup_ns_p50` to `lookups_per_sec` (timings: they differ between identical runs).
pub struct LatencyMetric;

impl Metric for LatencyMetric {
    fn name(&self) -> &'static str {
        "latency"
    }

    fn defs(&self) -> &'static [MetricDef] {
        &[
            MetricDef {
                name: LOOKUP_NS_P50.0,
                unit: "ns",
                definition:
                    "Median ns per shard_of lookup (per-batch means, timer overhead subtracted).",
            },
            MetricDef {
                name: LOOKUP_NS_P99.0,
                unit: "ns",
                definition: "99th percentile ns per lookup (of per-batch means).",
            },
            MetricDef {
                name: LOOKUP_NS_P999.0,
                unit: "ns",
                definition: "99.9th percentile ns per lookup (of per-batch means).",
            },
            MetricDef {
                name: LOOKUP_NS_MEAN.0,
                unit: "ns",
                definition: "Mean ns per lookup.",
            },
            MetricDef {
                name: LOOKUPS_PER_SEC.0,
                unit: "lookups/s",
                definition: "Single-threaded lookups per second (1e9 / mean).",
            },
        ]
    }

    fn finishes_last(&self) -> bool {
        true
    }

    fn phase(&self, ctx: &Finish<'_>) -> Option<&'static str> {
        ctx.latency.map(|_| "latency")
    }

    fn finish(
        &self,
        _: Option<Box<dyn Accumulator>>,
        ctx: &Finish<'_>,
        rows: &mut [SchemeResult],
    ) -> Result<(), AnalysisError> {
        if let Some((cfg, keys)) = ctx.latency {
            let measured = latency::measure(ctx.part, keys, cfg);
            rows.iter_mut().for_each(|r| r.latency = measured);
        }
        Ok(())
    }

    fn value(&self, id: MetricId, _: &WorkloadResult, s: &SchemeResult) -> Option<Option<f64>> {
        let lat = |f: fn(&Latency) -> f64| Some(s.latency.as_ref().map(f));
        match id {
            LOOKUP_NS_P50 => lat(|l| l.p50_ns),
            LOOKUP_NS_P99 => lat(|l| l.p99_ns),
            LOOKUP_NS_P999 => lat(|l| l.p999_ns),
            LOOKUP_NS_MEAN => lat(|l| l.mean_ns),
            LOOKUPS_PER_SEC => lat(|l| l.lookups_per_sec),
            _ => None,
        }
    }
}
