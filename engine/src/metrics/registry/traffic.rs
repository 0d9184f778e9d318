//! What the metrics cover: the measured events, the warm-up before them and the shard
//! requests they made (counted by the load metric).

use crate::metrics::metric::Metric;
use crate::metrics::{MetricDef, SchemeResult, WorkloadResult};

/// `events_measured`, `warmup_events`, `requests`.
pub struct Traffic;

impl Metric for Traffic {
    fn name(&self) -> &'static str {
        "traffic"
    }

    fn defs(&self) -> &'static [MetricDef] {
        &[
            MetricDef { name: "events_measured", unit: "events", definition: "Events the metrics cover (after the warm-up); the same events for every scheme." },
            MetricDef { name: "warmup_events", unit: "events", definition: "Leading events used only to learn range boundaries (0 when no scheme learns)." },
            MetricDef { name: "requests", unit: "requests", definition: "Shard requests: one per point operation, one per shard contacted by a scan or a range write." },
        ]
    }

    fn value(&self, name: &str, w: &WorkloadResult, s: &SchemeResult) -> Option<Option<f64>> {
        match name {
            "events_measured" => Some(Some(w.events_measured as f64)),
            "warmup_events" => Some(Some(w.warmup_events as f64)),
            "requests" => Some(Some(s.load.requests as f64)),
            _ => None,
        }
    }
}
