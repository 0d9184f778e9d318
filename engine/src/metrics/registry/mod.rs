//! The registered metrics, one file each: [`REGISTRY`] lists them in the order of their rows
//! in `summary.csv` ([`super::METRICS`]). See [`super::metric`] for how to add one.

mod failure;
pub mod fanout;
pub mod keys;
pub mod latency;
pub mod load;
pub mod remap;
pub mod router;
pub mod split;
#[cfg(test)]
mod toy;
pub mod traffic;

use super::metric::Metric;

/// Every registered metric, in row order.
pub static REGISTRY: &[&dyn Metric] = &[
    &traffic::Traffic,
    &keys::Keys,
    &load::Load,
    &remap::RemapMetric,
    &fanout::Fanout,
    &latency::LatencyMetric,
    &router::Router,
    &split::Split,
    &failure::Failure,
    #[cfg(test)]
    &toy::Toy,
];
