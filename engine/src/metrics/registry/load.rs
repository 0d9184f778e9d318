//! Per-shard load over the whole replay and per window, and what it leaves usable.

use crate::metrics::capacity;
use crate::metrics::load::{LoadAccumulator, LoadSample};
use crate::metrics::metric::{take, Accumulator, Finish, Metric, Routed, Start, State};
use crate::metrics::{MetricDef, MetricId, SchemeResult, WorkloadResult};
use schemes::AnalysisError;

/// The hottest shard's share of all requests.
pub const HOTTEST_SHARD_SHARE: MetricId = MetricId("hottest_shard_share");
/// The hottest shard's share times N.
pub const HOTTEST_SHARD_RATIO: MetricId = MetricId("hottest_shard_ratio");
/// The coefficient of variation of shard requests.
pub const LOAD_CV: MetricId = MetricId("load_cv");
/// The hottest shard's share per window, averaged.
pub const HOTTEST_SHARD_SHARE_WINDOWED: MetricId = MetricId("hottest_shard_share_windowed");
/// Shard requests per event.
pub const REQUESTS_PER_EVENT: MetricId = MetricId("requests_per_event");
/// The share of capacity usable before the hottest shard saturates.
pub const USABLE_CAPACITY: MetricId = MetricId("usable_capacity");

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
            MetricDef { name: HOTTEST_SHARD_SHARE.0, unit: "share", definition: "Max shard requests / all requests, over the whole trace." },
            MetricDef { name: HOTTEST_SHARD_RATIO.0, unit: "ratio", definition: "hottest_shard_share x N; 1.0 is a perfect spread. With --weights: the largest share / weight share over the shards." },
            MetricDef { name: LOAD_CV.0, unit: "ratio", definition: "Coefficient of variation (population) of shard requests (with --weights: of requests / weight)." },
            MetricDef { name: HOTTEST_SHARD_SHARE_WINDOWED.0, unit: "share", definition: "Mean over consecutive windows of --window events of the hottest shard's share within the window, each window weighted by its events (the last window may be shorter)." },
            MetricDef { name: REQUESTS_PER_EVENT.0, unit: "requests/event", definition: "requests / events_measured: 1 without scans, more as scans fan out." },
            MetricDef { name: USABLE_CAPACITY.0, unit: "share", definition: "Share of the cluster's request capacity usable before the hottest shard saturates, a scan costing one request per shard contacted: 1 / (N x hottest_shard_share_windowed x requests_per_event), at most 1. With --weights each shard's capacity follows its weight: a window's hottest is then its largest share x W / (N x weight), W the weights' sum." },
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

    fn value(&self, id: MetricId, w: &WorkloadResult, s: &SchemeResult) -> Option<Option<f64>> {
        let v = |x: f64| Some(Some(x));
        match id {
            HOTTEST_SHARD_SHARE => v(s.load.hottest_shard_share),
            HOTTEST_SHARD_RATIO => v(s.load.hottest_shard_ratio),
            LOAD_CV => v(s.load.load_cv),
            HOTTEST_SHARD_SHARE_WINDOWED => v(s.load.hottest_shard_share_windowed),
            REQUESTS_PER_EVENT => v(capacity::requests_per_event(
                s.load.requests,
                w.events_measured,
            )),
            USABLE_CAPACITY => v(capacity::usable_of(&s.load, w.events_measured)),
            _ => None,
        }
    }

    fn resampled(&self, id: MetricId, sample: &LoadSample<'_>) -> Option<f64> {
        let load = sample.load;
        Some(match id {
            HOTTEST_SHARD_SHARE => load.hottest_shard_share,
            HOTTEST_SHARD_RATIO => load.hottest_shard_ratio,
            LOAD_CV => load.load_cv,
            HOTTEST_SHARD_SHARE_WINDOWED => sample.hottest_windowed,
            REQUESTS_PER_EVENT => capacity::requests_per_event(load.requests, sample.events),
            USABLE_CAPACITY => capacity::usable(
                load.shard_requests.len(),
                sample.events,
                load.requests,
                sample.capacity_windowed,
            ),
            _ => return None,
        })
    }
}
