//! `uniform:keys=K`: every key of `[0, K)` equally likely.

use rand::distr::{Distribution, Uniform};

use super::common::{self, thousands};
use super::{KeyModel, Slot, WorkloadKind, WorkloadRng};
use crate::{Op, Spec, SpecError};

/// The registry entry.
pub(super) static KIND: WorkloadKind = WorkloadKind {
    name: "uniform",
    about: "keys drawn uniformly from [0, keys)",
    params: &[common::KEYS],
    default_writes: 0.0,
    build,
};

/// Uniform keys over `[0, keys)`.
#[derive(Debug)]
struct UniformWorkload {
    keys: u64,
    dist: Uniform<u64>,
}

fn build(spec: &Spec) -> Result<Box<dyn KeyModel>, SpecError> {
    let keys = common::keys(spec)?;
    Ok(Box::new(UniformWorkload {
        keys,
        dist: common::uniform(spec, 0, keys)?,
    }))
}

impl KeyModel for UniformWorkload {
    fn describe(&self) -> String {
        format!("Uniform over {} keys", thousands(self.keys))
    }

    fn next_key(&mut self, _op: Op, _slot: Slot, rng: &mut WorkloadRng) -> u64 {
        self.dist.sample(rng)
    }
}

#[cfg(test)]
mod tests {
    use crate::key::decode_u64;
    use crate::{collect, WorkloadSpec};

    #[test]
    fn uniform_keys_stay_in_range_and_spread_evenly() {
        let spec = WorkloadSpec::parse("uniform:keys=100,scans=0.1,writes=0.5").unwrap();
        let chunk = collect(spec.open(11, 100_000).unwrap().as_mut()).unwrap();
        let mut counts = [0u64; 100];
        for e in chunk.iter() {
            let k = decode_u64(e.key).unwrap();
            assert!(k < 100, "key {k} out of range");
            counts[k as usize] += 1;
        }
        // Chi-square with 99 degrees of freedom: 148 is its 0.999 quantile.
        let expected = 1000.0;
        let chi2: f64 = counts
            .iter()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum();
        assert!(chi2 < 148.0, "chi-square {chi2} with counts {counts:?}");
    }

    #[test]
    fn one_key_is_a_valid_key_space() {
        let spec = WorkloadSpec::parse("uniform:keys=1").unwrap();
        let chunk = collect(spec.open(1, 100).unwrap().as_mut()).unwrap();
        assert!(chunk.iter().all(|e| decode_u64(e.key) == Some(0)));
    }
}
