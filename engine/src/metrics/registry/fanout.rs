//! Scan fan-out: how many shards each measured scan contacts.

use crate::metrics::fanout::FanoutAccumulator;
use crate::metrics::metric::{take, Accumulator, Finish, Metric, Routed, Start, State};
use crate::metrics::{MetricDef, MetricId, SchemeResult, WorkloadResult};
use schemes::AnalysisError;

/// `scans`: Measured scans.
pub const SCANS: MetricId = MetricId("scans");
/// `scan_fanout_mean`: Mean shards contacted per scan.
pub const SCAN_FANOUT_MEAN: MetricId = MetricId("scan_fanout_mean");
/// `scan_fanout_p99`: 99th percentile of shards contacted per scan.
pub const SCAN_FANOUT_P99: MetricId = MetricId("scan_fanout_p99");
/// `scan_fanout_max`: Most shards contacted by one scan.
pub const SCAN_FANOUT_MAX: MetricId = MetricId("scan_fanout_max");

/// `scans`, `scan_fanout_mean`, `scan_fanout_p99`, `scan_fanout_max`.
pub struct Fanout;

impl State for FanoutAccumulator {
    #[inline]
    fn record(&mut self, chunk: &Routed<'_>) {
        if chunk.points_only() {
            return;
        }
        for scan in chunk.scans() {
            FanoutAccumulator::record(self, scan.len() as u32);
        }
    }

    fn merge(&mut self, other: Self) {
        FanoutAccumulator::merge(self, &other)
    }
}

impl Metric for Fanout {
    fn name(&self) -> &'static str {
        "fanout"
    }

    fn defs(&self) -> &'static [MetricDef] {
        &[
            MetricDef {
                name: SCANS.0,
                unit: "scans",
                definition: "Measured scans.",
            },
            MetricDef {
                name: SCAN_FANOUT_MEAN.0,
                unit: "shards",
                definition: "Mean shards contacted per scan.",
            },
            MetricDef {
                name: SCAN_FANOUT_P99.0,
                unit: "shards",
                definition: "99th percentile of shards contacted per scan.",
            },
            MetricDef {
                name: SCAN_FANOUT_MAX.0,
                unit: "shards",
                definition: "Most shards contacted by one scan.",
            },
        ]
    }

    fn start(&self, _: &Start<'_>) -> Option<Box<dyn Accumulator>> {
        Some(Box::new(FanoutAccumulator::default()))
    }

    fn finish(
        &self,
        acc: Option<Box<dyn Accumulator>>,
        _: &Finish<'_>,
        rows: &mut [SchemeResult],
    ) -> Result<(), AnalysisError> {
        let Some(acc) = acc else { return Ok(()) };
        let fanout = take::<FanoutAccumulator>(acc)?.finish();
        rows.iter_mut().for_each(|r| r.fanout = fanout);
        Ok(())
    }

    fn value(&self, id: MetricId, w: &WorkloadResult, s: &SchemeResult) -> Option<Option<f64>> {
        let fan = |f: fn(&crate::metrics::ScanFanout) -> f64| Some(s.fanout.as_ref().map(f));
        match id {
            SCANS => Some(Some(w.scans as f64)),
            SCAN_FANOUT_MEAN => fan(|f| f.mean),
            SCAN_FANOUT_P99 => fan(|f| f.p99 as f64),
            SCAN_FANOUT_MAX => fan(|f| f.max as f64),
            _ => None,
        }
    }
}
