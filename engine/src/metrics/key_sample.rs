//! [`KeySample`]: how a replay sampled the key space, kept with the results (see
//! [`super::estimate`] for what it does to each metric). Apart from the estimates, which read
//! the results, so that the results do not import a module that imports them.

use serde::Serialize;
use workloads::stats::{share_estimate, Estimate};

use schemes::KeyCounts;

/// How a replay sampled the key space; `None` in a
/// [`WorkloadResult`](super::WorkloadResult) means every key was counted.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct KeySample {
    /// Share of the key space kept, 2^-k.
    pub sample_rate: f64,
    /// Distinct keys in the sample.
    pub sampled_keys: u64,
    /// Effective number of sampled keys behind traffic-weighted shares.
    pub effective_keys: f64,
    /// The distinct-key estimate with its interval.
    pub distinct: Estimate,
    /// How much the hottest key's count may overstate (0 when it is in the sample).
    pub hottest_key_error: u64,
}

impl KeySample {
    /// The sample of `keys`, or `None` while they are exact.
    pub fn of(keys: &KeyCounts) -> Option<KeySample> {
        (!keys.is_exact()).then(|| KeySample {
            sample_rate: keys.sample_rate(),
            sampled_keys: keys.len() as u64,
            effective_keys: keys.effective_keys(),
            distinct: keys.distinct(),
            hottest_key_error: keys.hottest().map_or(0, |h| h.error),
        })
    }
}

impl KeySample {
    /// The estimate of a share `p` measured over `n` sampled keys (or effective keys): Wilson's
    /// interval, finite-population corrected by the sample rate.
    pub fn share(&self, p: f64, n: f64) -> Option<MetricEstimate> {
        Some(share_estimate(p, n, self.sample_rate).into())
    }

    /// A figure computed over the sampled keys, without an interval of its own.
    pub fn unintervalled(&self) -> Option<MetricEstimate> {
        Some(MetricEstimate {
            sample_rate: self.sample_rate,
            ci: None,
        })
    }
}

/// The sample behind one estimated metric value.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MetricEstimate {
    /// Share of the key space measured.
    pub sample_rate: f64,
    /// The 95% confidence interval, when one can be given.
    pub ci: Option<(f64, f64)>,
}

impl From<Estimate> for MetricEstimate {
    fn from(e: Estimate) -> Self {
        MetricEstimate {
            sample_rate: e.sample_rate,
            ci: Some((e.ci_low, e.ci_high)),
        }
    }
}
