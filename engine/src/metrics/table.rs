//! The table of metrics ([`METRICS`], from the registry) and the values of one scheme read
//! through it.

use std::sync::LazyLock;

use super::registry::REGISTRY;
use super::{confidence, MetricDef, MetricId, MetricValue, SchemeResult, WorkloadResult};

/// Every metric in `summary.csv`, in row order: the definitions of the registered metrics.
pub static METRICS: LazyLock<Vec<MetricDef>> =
    LazyLock::new(|| REGISTRY.iter().flat_map(|m| m.defs()).copied().collect());

impl WorkloadResult {
    /// The metric values of one scheme, in [`METRICS`] order; metrics that do not apply to the
    /// scheme (split balance for hashed schemes) are left out. The rows only this scheme has
    /// follow.
    pub fn metric_values(&self, s: &SchemeResult) -> Vec<MetricValue> {
        let common = METRICS.iter().filter_map(|m| {
            self.value_of(s, MetricId(m.name)).map(|value| MetricValue {
                name: m.name,
                unit: m.unit,
                value,
            })
        });
        let own = s
            .extra_metrics
            .iter()
            .filter(|v| !METRICS.iter().any(|m| m.name == v.name))
            .copied();
        common.chain(own).collect()
    }

    /// One metric of one scheme: outer `None` = not applicable, inner `None` = undefined.
    fn value_of(&self, s: &SchemeResult, id: MetricId) -> Option<Option<f64>> {
        REGISTRY
            .iter()
            .find(|m| m.defs().iter().any(|d| d.name == id.name()))?
            .value(id, self, s)
    }

    /// A metric of one scheme with its 95% interval: the key-sample interval of an estimate
    /// and the bootstrap or repeat interval, joined when both exist; `None` when the metric
    /// is undefined or not applicable.
    pub fn figure(
        &self,
        s: &SchemeResult,
        id: MetricId,
    ) -> Option<(f64, Option<confidence::Interval>)> {
        let value = self.value_of(s, id).flatten()?;
        Some((value, self.interval_of(s, id)))
    }

    /// The 95% interval of a metric of one scheme (see [`WorkloadResult::figure`]).
    pub fn interval_of(&self, s: &SchemeResult, id: MetricId) -> Option<confidence::Interval> {
        let sample = self.estimate_of(s, id).and_then(|e| e.ci);
        match (sample, s.interval(id.name())) {
            (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.max(b.1))),
            (a, b) => a.or(b),
        }
    }
}
