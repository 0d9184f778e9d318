//! What the metrics cover: the measured events, the warm-up before them and the shard
//! requests they made (counted by the load metric).

use crate::metrics::metric::Metric;
use crate::metrics::{MetricDef, MetricId, SchemeResult, WorkloadResult};

/// `events_measured`: Events the metrics cover (after the warm-up); the same events for every scheme.
pub const EVENTS_MEASURED: MetricId = MetricId("events_measured");
/// `warmup_events`: Leading events used only to learn range boundaries (0 when no scheme learns).
pub const WARMUP_EVENTS: MetricId = MetricId("warmup_events");
/// `requests`: Shard requests: one per point operation, one per shard contacted by a scan or a range ....
pub const REQUESTS: MetricId = MetricId("requests");

/// `events_measured`, `warmup_events`, `requests`.
pub struct Traffic;

impl Metric for Traffic {
    fn name(&self) -> &'static str {
        "traffic"
    }

    fn defs(&self) -> &'static [MetricDef] {
        &[
            MetricDef { name: EVENTS_MEASURED.0, unit: "events", definition: "Events the metrics cover (after the warm-up); the same events for every scheme." },
            MetricDef { name: WARMUP_EVENTS.0, unit: "events", definition: "Leading events used only to learn range boundaries (0 when no scheme learns)." },
            MetricDef { name: REQUESTS.0, unit: "requests", definition: "Shard requests: one per point operation, one per shard contacted by a scan or a range write." },
        ]
    }

    fn value(&self, id: MetricId, w: &WorkloadResult, s: &SchemeResult) -> Option<Option<f64>> {
        match id {
            EVENTS_MEASURED => Some(Some(w.events_measured as f64)),
            WARMUP_EVENTS => Some(Some(w.warmup_events as f64)),
            REQUESTS => Some(Some(s.load.requests as f64)),
            _ => None,
        }
    }
}
