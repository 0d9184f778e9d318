//! What one metric is ([`MetricDef`]) and what it measured ([`MetricValue`], [`Interval`]): the
//! types every
//! metric and every scheme with figures of its own (`Partitioner::shard_load_metrics`) uses.
//! They live in this ground crate so that a scheme names its figures without knowing the
//! metrics of the engine.

/// A metric's typed name: how code outside its definition finds the metric's rows and values
/// (`summary.csv`'s `metric` column holds [`MetricId::name`]). Each is a constant beside the
/// metric's definition, so a misspelt metric is a compile error, never a figure silently
/// missing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MetricId(pub &'static str);

impl MetricId {
    /// The name in `summary.csv`.
    pub fn name(self) -> &'static str {
        self.0
    }
}

impl std::fmt::Display for MetricId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

/// A metric's name, unit and definition.
#[derive(Clone, Copy, Debug)]
pub struct MetricDef {
    /// Column value in `summary.csv`.
    pub name: &'static str,
    /// Unit of the value.
    pub unit: &'static str,
    /// What it means, for docs/metrics.md and the report.
    pub definition: &'static str,
}

impl MetricDef {
    /// The values of `defs`, one per metric in order (extra values are ignored).
    pub fn values(
        defs: &'static [MetricDef],
        values: impl IntoIterator<Item = Option<f64>>,
    ) -> Vec<MetricValue> {
        defs.iter()
            .zip(values)
            .map(|(m, value)| MetricValue {
                name: m.name,
                unit: m.unit,
                value,
            })
            .collect()
    }
}

/// One metric value of one scheme on one workload; `value` is `None` when undefined (for
/// example scan fan-out without scans).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MetricValue {
    /// The metric.
    pub name: &'static str,
    /// Its unit.
    pub unit: &'static str,
    /// The value.
    pub value: Option<f64>,
}

/// A metric's 95% interval, `(low, high)`.
pub type Interval = (f64, f64);
