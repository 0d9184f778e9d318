//! The options of `run` for clusters over time (`--scenario`, `--throttle`, `--replicas`,
//! `--move-rate`, `--time-unit`, `--assert`): every scheme then runs as a changing layout
//! under the scenario ([`schemes::scenario`]).

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Result};
use clap::Args;
use schemes::scenario::{self, Scenario, Throttle};
use schemes::SchemeSpec;
use serde::Serialize;
use workloads::KeyType;

use crate::usage::{config_is_usage, usage};

/// Help heading of the scenario options.
pub const SCENARIO: &str = "Clusters over time";

/// Options of a run whose cluster changes over time.
#[derive(Debug, Args, Serialize)]
#[command(next_help_heading = SCENARIO)]
pub struct ScenarioArgs {
    /// Timed events, one a line: `T add K`, `T drain S`, `T fail S`, `T recover S`,
    /// `T weight S W` (T: seconds from the first event, 90, 1.5, 10m, 2h; event positions for
    /// traces without timestamps). Every scheme applies them by its own rule; timeline.csv,
    /// events.csv and phases.csv per scheme.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,

    /// Token buckets per shard: `rate=C[,burst=B]` (C requests per second of trace time, B
    /// seconds of burst), `read=R,write=W[,burst=B]`, or `dynamodb` (3000 reads and 1000
    /// writes per partition, 300 s); adds throttled_share.
    #[arg(long, value_name = "SPEC")]
    pub throttle: Option<String>,

    /// Copies of every key: while a shard is failed, its keys are served by their first
    /// surviving replica (1: they are unavailable).
    #[arg(long, default_value_t = 1, value_name = "R", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub replicas: u32,

    /// Bytes moved per second after an add, drain or weight change (a key not moved yet is
    /// served by its old owner); instant without it.
    #[arg(long, value_name = "BYTES")]
    pub move_rate: Option<f64>,

    /// Unit of csv and text trace timestamps for scenario times, token refills and the
    /// balancers' move_rate (other formats have their own).
    #[arg(long, value_name = "s|ms|us|ns")]
    pub time_unit: Option<String>,

    /// Conditions on summary.csv figures, e.g. 'throttled_share<0.01, converge_secs<=600':
    /// when one fails for a scheme the run still writes everything, then exits with status 3.
    #[arg(long, value_name = "CONDITIONS")]
    pub assert: Option<String>,
}

impl ScenarioArgs {
    /// Nanoseconds of one timestamp unit of the trace: `--time-unit`, else the format's own
    /// (`format_unit_ns`), else microseconds.
    pub fn time_unit_ns(&self, format_unit_ns: Option<u64>) -> Result<u64> {
        match self.time_unit.as_deref() {
            None => Ok(format_unit_ns.unwrap_or(1_000)),
            Some(unit) => unit_ns(unit),
        }
    }

    /// The scenario every scheme runs under, or `None` without `--scenario` or `--throttle`.
    pub fn scenario(
        &self,
        key_type: KeyType,
        weights: Option<&[f64]>,
        format_unit_ns: Option<u64>,
    ) -> Result<Option<Arc<Scenario>>> {
        if self.scenario.is_none() && self.throttle.is_none() {
            if self.move_rate.is_some() || self.replicas > 1 {
                bail!(usage(
                    "--move-rate and --replicas shape a scenario; give --scenario FILE too"
                ));
            }
            return Ok(None);
        }
        let (name, steps) = match &self.scenario {
            None => (String::new(), Vec::new()),
            Some(path) => {
                let name = path.display().to_string();
                let text = std::fs::read_to_string(path)
                    .map_err(|e| usage(format!("cannot read the scenario file '{name}': {e}")))?;
                let steps = scenario::parse(&name, &text).map_err(config_is_usage)?;
                (name, steps)
            }
        };
        let throttle = self
            .throttle
            .as_deref()
            .map(Throttle::parse)
            .transpose()
            .map_err(config_is_usage)?;
        if let Some(rate) = self.move_rate.filter(|r| !(r.is_finite() && *r > 0.0)) {
            bail!(usage(format!(
                "--move-rate {rate}: give the bytes moved per second, above 0"
            )));
        }
        let time_unit_ns = self.time_unit_ns(format_unit_ns)?;
        Ok(Some(Arc::new(Scenario {
            name,
            steps,
            throttle,
            replicas: self.replicas,
            move_rate: self.move_rate,
            time_unit_ns,
            key_type,
            weights: weights.map(<[f64]>::to_vec),
        })))
    }
}

/// Nanoseconds of a `--time-unit`.
fn unit_ns(unit: &str) -> Result<u64> {
    Ok(match unit {
        "s" => 1_000_000_000,
        "ms" => 1_000_000,
        "us" => 1_000,
        "ns" => 1,
        other => bail!(usage(format!(
            "--time-unit '{other}': give s, ms, us or ns"
        ))),
    })
}

/// `schemes` under `scenario`, each checked on every shard count of `shards`.
pub fn under(
    schemes: Vec<SchemeSpec>,
    scenario: Option<Arc<Scenario>>,
    shards: &[u32],
) -> Result<Vec<SchemeSpec>> {
    let Some(scenario) = scenario else {
        return Ok(schemes);
    };
    for spec in &schemes {
        for &n in shards {
            scenario.check(spec, n).map_err(config_is_usage)?;
        }
    }
    Ok(schemes
        .iter()
        .map(|s| scenario::under(s, Arc::clone(&scenario)))
        .collect())
}

/// One condition of `--assert`: a metric, a comparison and a bound.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    /// The metric's name in summary.csv.
    pub metric: String,
    /// `<`, `<=`, `>`, `>=`.
    pub op: &'static str,
    /// The bound.
    pub bound: f64,
}

impl Condition {
    /// True when `value` meets the condition.
    pub fn holds(&self, value: f64) -> bool {
        match self.op {
            "<" => value < self.bound,
            "<=" => value <= self.bound,
            ">" => value > self.bound,
            _ => value >= self.bound,
        }
    }
}

/// Parses `--assert`; every metric must be one of `known`.
pub fn parse_conditions(text: &str, known: &[&str]) -> Result<Vec<Condition>> {
    text.split(',')
        .filter(|c| !c.trim().is_empty())
        .map(|c| {
            let c = c.trim();
            let (at, op) = ["<=", ">=", "<", ">"]
                .iter()
                .find_map(|op| c.find(op).map(|i| (i, *op)))
                .ok_or_else(|| {
                    usage(format!(
                        "--assert '{c}': expected METRIC<VALUE (or <=, >, >=), e.g. throttled_share<0.01"
                    ))
                })?;
            let metric = c[..at].trim().to_string();
            if !known.contains(&metric.as_str()) {
                bail!(usage(format!(
                    "--assert '{c}': unknown metric '{metric}'; the metrics of summary.csv are {}",
                    known.join(", ")
                )));
            }
            let bound: f64 = c[at + op.len()..].trim().parse().map_err(|_| {
                usage(format!("--assert '{c}': '{}' is not a number", c[at + op.len()..].trim()))
            })?;
            Ok(Condition { metric, op, bound })
        })
        .collect()
}

/// The names of every figure `summary.csv` can hold, for `--assert`.
pub fn known_metrics() -> Vec<&'static str> {
    let changing = schemes::CHANGING_SCHEMES
        .iter()
        .filter_map(|k| k.changing.as_ref())
        .flat_map(|c| c.end.metrics.iter());
    engine::metrics::METRICS
        .iter()
        .chain(engine::metrics::failure::FAILURE_METRICS)
        .chain(scenario::METRICS)
        .chain(changing)
        .map(|d| d.name)
        .collect()
}

/// The conditions of `--assert` that fail, one sentence each: a figure a scheme does not
/// have is not checked for it; one it has without a value fails.
pub fn failed_conditions(
    conditions: &[Condition],
    results: &[engine::metrics::WorkloadResult],
) -> Vec<String> {
    let mut failed = Vec::new();
    for w in results {
        for s in &w.schemes {
            let values = w.metric_values(s);
            for c in conditions {
                let Some(v) = values.iter().find(|v| v.name == c.metric) else {
                    continue;
                };
                let ok = v.value.is_some_and(|x| c.holds(x));
                if !ok {
                    let shown = v.value.map_or("undefined".to_string(), |x| x.to_string());
                    let line = format!(
                        "{} on {} shards, {}: {} is {shown}, not {} {}",
                        s.scheme, s.shards, w.workload, c.metric, c.op, c.bound
                    );
                    if !failed.contains(&line) {
                        failed.push(line);
                    }
                }
            }
        }
    }
    failed
}

/// Prints the failed `--assert` conditions and fails with [`crate::usage::AssertionsFailed`]
/// (exit status 3) when there is one.
pub fn exit_on_failures(failed: &[String]) -> Result<()> {
    if failed.is_empty() {
        return Ok(());
    }
    for line in failed {
        eprintln!("assertion failed: {line}");
    }
    Err(crate::usage::AssertionsFailed(failed.len()).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_parse_and_hold() {
        let c = parse_conditions("a<0.5, b>=2", &["a", "b"]).unwrap();
        assert_eq!(c.len(), 2);
        assert!(c[0].holds(0.4) && !c[0].holds(0.5));
        assert!(c[1].holds(2.0) && !c[1].holds(1.9));
        assert!(parse_conditions("zzz<1", &["a"]).is_err());
        assert!(parse_conditions("a<x", &["a"]).is_err());
        assert!(parse_conditions("a=1", &["a"]).is_err());
    }
}
