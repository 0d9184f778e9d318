//! Lookup latency: each scheme's `shard_of` timed single-threaded on the measured point keys,
//! after every other measurement, with nothing else running.

use crate::metrics::latency::{self, Latency};
use crate::metrics::metric::{Accumulator, Finish, Metric};
use crate::metrics::{MetricDef, SchemeResult, WorkloadResult};
use schemes::AnalysisError;

/// `lookup_ns_p50` to `lookups_per_sec` (timings: they differ between identical runs).
pub struct LatencyMetric;

impl Metric for LatencyMetric {
    fn name(&self) -> &'static str {
        "latency"
    }

    fn defs(&self) -> &'static [MetricDef] {
        &[
            MetricDef {
                name: "lookup_ns_p50",
                unit: "ns",
                definition:
                    "Median ns per shard_of lookup (per-batch means, timer overhead subtracted).",
            },
            MetricDef {
                name: "lookup_ns_p99",
                unit: "ns",
                definition: "99th percentile ns per lookup (of per-batch means).",
            },
            MetricDef {
                name: "lookup_ns_p999",
                unit: "ns",
                definition: "99.9th percentile ns per lookup (of per-batch means).",
            },
            MetricDef {
                name: "lookup_ns_mean",
                unit: "ns",
                definition: "Mean ns per lookup.",
            },
            MetricDef {
                name: "lookups_per_sec",
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

    fn value(&self, name: &str, _: &WorkloadResult, s: &SchemeResult) -> Option<Option<f64>> {
        let lat = |f: fn(&Latency) -> f64| Some(s.latency.as_ref().map(f));
        match name {
            "lookup_ns_p50" => lat(|l| l.p50_ns),
            "lookup_ns_p99" => lat(|l| l.p99_ns),
            "lookup_ns_p999" => lat(|l| l.p999_ns),
            "lookup_ns_mean" => lat(|l| l.mean_ns),
            "lookups_per_sec" => lat(|l| l.lookups_per_sec),
            _ => None,
        }
    }
}
