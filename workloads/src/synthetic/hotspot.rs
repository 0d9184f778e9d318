//! `hotspot:keys=K,hot=F,traffic=T`: a share `T` of the traffic goes to the first `F * K`
//! keys (at least one), the rest spreads over the other keys; uniform within each set.

use rand::distr::{Bernoulli, Distribution, Uniform};

use super::common::{self, percent, thousands};
use super::{KeyModel, Param, ParamKind, Slot, WorkloadKind, WorkloadRng};
use crate::{Op, Spec, SpecError};

/// The registry entry.
pub(super) static KIND: WorkloadKind = WorkloadKind {
    name: "hotspot",
    about: "a share of the traffic on a contiguous hot set at the start of [0, keys)",
    params: &[
        common::KEYS,
        Param {
            name: "hot",
            kind: ParamKind::Fraction,
            default: "0.01",
            about: "share of the keys that are hot: the first max(1, hot*keys) keys",
        },
        Param {
            name: "traffic",
            kind: ParamKind::Fraction,
            default: "0.9",
            about: "share of the events that go to the hot keys",
        },
    ],
    default_writes: 0.0,
    build,
};

/// Two uniform key sets, one hot.
#[derive(Debug)]
struct HotspotWorkload {
    keys: u64,
    hot_keys: u64,
    traffic: f64,
    to_hot: Bernoulli,
    hot: Uniform<u64>,
    /// `None` when every key is hot.
    cold: Option<Uniform<u64>>,
}

fn build(spec: &Spec) -> Result<Box<dyn KeyModel>, SpecError> {
    let keys = common::keys(spec)?;
    let hot = spec.fraction("hot", 0.01)?;
    let traffic = spec.fraction("traffic", 0.9)?;
    let hot_keys = ((hot * keys as f64) as u64).clamp(1, keys);
    let to_hot =
        Bernoulli::new(traffic).map_err(|e| spec.error(format!("traffic={traffic}: {e}")))?;
    let cold = if hot_keys < keys {
        Some(common::uniform(spec, hot_keys, keys)?)
    } else {
        None
    };
    Ok(Box::new(HotspotWorkload {
        keys,
        hot_keys,
        traffic,
        to_hot,
        hot: common::uniform(spec, 0, hot_keys)?,
        cold,
    }))
}

impl KeyModel for HotspotWorkload {
    fn describe(&self) -> String {
        format!(
            "Hotspot: {} of traffic on the first {} of {} keys",
            percent(self.traffic),
            thousands(self.hot_keys),
            thousands(self.keys)
        )
    }

    fn next_key(&mut self, _op: Op, _slot: Slot, rng: &mut WorkloadRng) -> u64 {
        match (self.to_hot.sample(rng), self.cold) {
            (false, Some(cold)) => cold.sample(rng),
            _ => self.hot.sample(rng),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::key::decode_u64;
    use crate::{collect, WorkloadSpec};

    fn hot_share(spec: &str, hot_keys: u64) -> (f64, u64) {
        let spec = WorkloadSpec::parse(spec).unwrap();
        let chunk = collect(spec.open(8, 200_000).unwrap().as_mut()).unwrap();
        let keys: Vec<u64> = chunk.iter().map(|e| decode_u64(e.key).unwrap()).collect();
        let hot = keys.iter().filter(|&&k| k < hot_keys).count();
        (
            hot as f64 / keys.len() as f64,
            keys.iter().copied().max().unwrap(),
        )
    }

    #[test]
    fn the_hot_set_gets_its_share_of_the_traffic() {
        let (share, max) = hot_share("hotspot:keys=100000", 1000);
        assert!((share - 0.9).abs() < 0.01, "hot share {share}");
        assert!(max < 100_000 && max > 99_000);
        let (share, _) = hot_share("hotspot:keys=1000,hot=0.2,traffic=0.5,scans=0.1", 200);
        assert!((share - 0.5).abs() < 0.01, "hot share {share}");
    }

    #[test]
    fn the_hot_set_has_at_least_one_key_and_may_be_everything() {
        let (share, _) = hot_share("hotspot:keys=10,hot=0.001,traffic=0.3", 1);
        assert!((share - 0.3).abs() < 0.01, "hot share {share}");
        let (share, max) = hot_share("hotspot:keys=10,hot=1,traffic=0.3", 10);
        assert_eq!((share, max), (1.0, 9));
        assert!(WorkloadSpec::parse("hotspot:keys=10,hot=0.1")
            .unwrap()
            .describe()
            .starts_with("Hotspot: 90% of traffic on the first 1 of 10 keys"));
    }
}
