//! Per-shard load over the whole replay and per window, and what it leaves usable.

use crate::metrics::capacity;
use crate::metrics::load::{LoadAccumulator, LoadSample};
use crate::metrics::metric::{take, Accumulator, Finish, Metric, Routed, Start, State};
use crate::metrics::{MetricDef, SchemeResult, WorkloadResult};
use schemes::AnalysisError;

/// `hottest_shard_share` to `usable_capacity`; also the scheme's own per-shard rows
/// ([`schemes::Partitioner::shard_load_metrics`]).
pub struct Load;

impl State for LoadAccumulator {
    #[inline]
    fn record(&mut self, chunk: &Routed<'_>) {
        if chunk.points_only() {
            self.record_run(chunk.chunk.first_index, chunk.point_shards);
        } else {
            chunk.for_each_request(|index, shard| LoadAccumulator::record(self, index, shard));
        }
    }

    fn merge(&mut self, other: Self) {
        LoadAccumulator::merge(self, other)
    }
}

impl Metric for Load {
    fn name(&self) -> &'static str {
        "load"
    }

    fn defs(&self) -> &'static [MetricDef] {
        &[
            MetricDef { name: "hottest_shard_share", unit: "share", definition: "Max shard requests / all requests, over the whole trace." },
            MetricDef { name: "hottest_shard_ratio", unit: "ratio", definition: "hottest_shard_share x N; 1.0 is a perfect spread. With --weights: the largest share / weight share over the shards." },
            MetricDef { name: "load_cv", unit: "ratio", definition: "Coefficient of variation (population) of shard requests (with --weights: of requests / weight)." },
            MetricDef { name: "hottest_shard_share_windowed", unit: "share", definition: "Mean over consecutive windows of --window events of the hottest shard's share within the window, each window weighted by its events (the last window may be shorter)." },
            MetricDef { name: "requests_per_event", unit: "requests/event", definition: "requests / events_measured: 1 without scans, more as scans fan out." },
            MetricDef { name: "usable_capacity", unit: "share", definition: "Share of the cluster's request capacity usable before the hottest shard saturates, a scan costing one request per shard contacted: 1 / (N x hottest_shard_share_windowed x requests_per_event), at most 1. With --weights each shard's capacity follows its weight: a window's hottest is then its largest share x W / (N x weight), W the weights' sum." },
        ]
    }

    fn start(&self, scheme: &Start<'_>) -> Option<Box<dyn Accumulator>> {
        Some(Box::new(LoadAccumulator::new(
            scheme.part.shard_count(),
            scheme.window,
        )))
    }

    fn finish(
        &self,
        acc: Option<Box<dyn Accumulator>>,
        ctx: &Finish<'_>,
        rows: &mut [SchemeResult],
    ) -> Result<(), AnalysisError> {
        let Some(acc) = acc else { return Ok(()) };
        let load = take::<LoadAccumulator>(acc)?.finish(ctx.events);
        let load = match ctx.weights {
            Some(w) => load.per_weight(w),
            None => load,
        };
        let own = ctx.part.shard_load_metrics(&load.shard_requests);
        for row in rows {
            row.extra_metrics.extend(own.iter().copied());
            row.load = load.clone();
        }
        Ok(())
    }

    fn value(&self, name: &str, w: &WorkloadResult, s: &SchemeResult) -> Option<Option<f64>> {
        let v = |x: f64| Some(Some(x));
        match name {
            "hottest_shard_share" => v(s.load.hottest_shard_share),
            "hottest_shard_ratio" => v(s.load.hottest_shard_ratio),
            "load_cv" => v(s.load.load_cv),
            "hottest_shard_share_windowed" => v(s.load.hottest_shard_share_windowed),
            "requests_per_event" => v(capacity::requests_per_event(
                s.load.requests,
                w.events_measured,
            )),
            "usable_capacity" => v(capacity::usable_of(&s.load, w.events_measured)),
            _ => None,
        }
    }

    fn resampled(&self, name: &str, sample: &LoadSample<'_>) -> Option<f64> {
        let load = sample.load;
        Some(match name {
            "hottest_shard_share" => load.hottest_shard_share,
            "hottest_shard_ratio" => load.hottest_shard_ratio,
            "load_cv" => load.load_cv,
            "hottest_shard_share_windowed" => sample.hottest_windowed,
            "requests_per_event" => capacity::requests_per_event(load.requests, sample.events),
            "usable_capacity" => capacity::usable(
                load.shard_requests.len(),
                sample.events,
                load.requests,
                sample.capacity_windowed,
            ),
            _ => return None,
        })
    }
}
