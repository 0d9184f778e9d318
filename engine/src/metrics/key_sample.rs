//! [`KeySample`]: how a replay sampled the key space, kept with the results (see
//! [`super::estimate`] for what it does to each metric). Apart from the estimates, which read
//! the results, so that the results do not import a module that imports them.

use serde::Serialize;
use workloads::stats::Estimate;

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
