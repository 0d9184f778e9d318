//! `zipf:keys=K,s=S,ordered=B`: Zipf-distributed popularity over `[0, K)`, rank 1 hottest.
//!
//! Ranks come from `rand_distr::Zipf`. By default a rank is scrambled into a key the way
//! YCSB's `ScrambledZipfianGenerator` does, so hot keys are spread over the key space (which
//! is what a range partitioner sees in practice); `ordered=true` keeps rank r at key r-1, so
//! hot keys sit next to each other (a worst case for range partitioning).
//!
//! As in YCSB, the scramble `hash(rank) % K` is not a permutation: some ranks share a key and
//! about 1/e of the keys are never drawn (at `keys=10`, `s=0`, key 0 gets two ranks and key 6
//! none). Measured hot-key shares are therefore those of YCSB's generator, not of an ideal
//! Zipf over exactly `K` distinct keys.

use rand::distr::Distribution;
use rand_distr::Zipf;

use super::common::{self, number, thousands};
use super::{KeyModel, Param, ParamKind, Slot, WorkloadKind, WorkloadRng};
use crate::{Op, Spec, SpecError};

/// The registry entry.
pub(super) static KIND: WorkloadKind = WorkloadKind {
    name: "zipf",
    about: "Zipf popularity over [0, keys); hot ranks scrambled over the key space as YCSB does",
    params: &[
        common::KEYS,
        Param {
            name: "s",
            kind: ParamKind::Number,
            default: "1.0",
            about: "Zipf exponent, at least 0 (0 is uniform; 0.99 is YCSB's)",
        },
        Param {
            name: "ordered",
            kind: ParamKind::Flag,
            default: "false",
            about: "true puts rank r at key r-1 (hot keys adjacent) instead of scrambling",
        },
    ],
    default_writes: 0.0,
    build,
};

/// Zipf ranks mapped to keys.
#[derive(Debug)]
struct ZipfWorkload {
    keys: u64,
    s: f64,
    ordered: bool,
    ranks: Zipf<f64>,
}

fn build(spec: &Spec) -> Result<Box<dyn KeyModel>, SpecError> {
    let keys = common::keys(spec)?;
    let s = exponent(spec, 1.0)?;
    let ordered = spec.flag("ordered", false)?;
    let ranks = zipf(spec, keys, s)?;
    Ok(Box::new(ZipfWorkload {
        keys,
        s,
        ordered,
        ranks,
    }))
}

/// Reads the exponent `s`: a finite number, at least 0.
pub(super) fn exponent(spec: &Spec, default: f64) -> Result<f64, SpecError> {
    let s: f64 = spec.parse_or("s", default, "a number")?;
    if !s.is_finite() || s < 0.0 {
        return Err(spec.error(format!(
            "s={s} must be a finite number, at least 0 (0 gives uniform keys)"
        )));
    }
    Ok(s)
}

/// The Zipf distribution of ranks `1..=n` with exponent `s`.
pub(super) fn zipf(spec: &Spec, n: u64, s: f64) -> Result<Zipf<f64>, SpecError> {
    Zipf::new(n as f64, s).map_err(|e| {
        spec.error(format!(
            "no Zipf distribution over {n} keys with s={s}: {e}"
        ))
    })
}

/// A rank drawn from `ranks`, clamped to `1..=n` (the float sampler never leaves that range,
/// the clamp only guards the conversion).
pub(super) fn draw_rank(ranks: &Zipf<f64>, n: u64, rng: &mut WorkloadRng) -> u64 {
    (ranks.sample(rng) as u64).clamp(1, n)
}

/// The key of `rank` (1-based) among `keys` keys: YCSB's scramble, `fnvhash64(rank - 1) % keys`.
pub fn scrambled_key(rank: u64, keys: u64) -> u64 {
    ycsb_fnv_hash64(rank - 1) % keys
}

/// YCSB's `Utils.fnvhash64`: FNV-1a (64-bit) over the 8 little-endian bytes of `item`, then
/// the absolute value as a signed 64-bit integer.
///
/// PINNED: the placement of every scrambled hot key depends on this function, so results
/// are only comparable across shardlab versions (and with YCSB) if it never changes. Do not
/// edit it, and do not swap in a library hash. FNV-1a is used rather than xxh3 because it is
/// what YCSB uses: the same rank lands on the same key number as in YCSB, and the whole
/// algorithm is here in ten lines, out of reach of dependency upgrades.
/// (YCSB's `Math.abs(Long.MIN_VALUE)` stays negative; here it is 2^63, a 2^-64 event.)
pub fn ycsb_fnv_hash64(item: u64) -> u64 {
    const OFFSET_BASIS: u64 = 0xCBF2_9CE4_8422_2325;
    const PRIME: u64 = 1_099_511_628_211;
    let mut hash = OFFSET_BASIS;
    for byte in item.to_le_bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(PRIME);
    }
    (hash as i64).unsigned_abs()
}

impl KeyModel for ZipfWorkload {
    fn describe(&self) -> String {
        let placement = if self.ordered {
            "hot ranks adjacent"
        } else {
            "hot ranks scrambled"
        };
        format!(
            "Zipf s={} over {} keys, {placement}",
            number(self.s),
            thousands(self.keys)
        )
    }

    fn next_key(&mut self, _op: Op, _slot: Slot, rng: &mut WorkloadRng) -> u64 {
        let rank = draw_rank(&self.ranks, self.keys, rng);
        if self.ordered {
            rank - 1
        } else {
            scrambled_key(rank, self.keys)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::decode_u64;
    use crate::{collect, WorkloadSpec};
    use std::collections::HashMap;

    fn key_counts(spec: &str, events: u64) -> HashMap<u64, u64> {
        let spec = WorkloadSpec::parse(spec).unwrap();
        let chunk = collect(spec.open(2024, events).unwrap().as_mut()).unwrap();
        let mut counts = HashMap::new();
        for e in chunk.iter() {
            *counts.entry(decode_u64(e.key).unwrap()).or_insert(0) += 1;
        }
        counts
    }

    fn harmonic(n: u64, s: f64) -> f64 {
        (1..=n).map(|k| (k as f64).powf(-s)).sum()
    }

    fn top(counts: &HashMap<u64, u64>, n: usize) -> Vec<u64> {
        let mut by_count: Vec<(u64, u64)> = counts.iter().map(|(&k, &c)| (c, k)).collect();
        by_count.sort_unstable_by(|a, b| b.cmp(a));
        by_count.iter().take(n).map(|&(_, k)| k).collect()
    }

    #[test]
    fn the_fnv_scramble_is_pinned_to_ycsbs_values() {
        assert_eq!(ycsb_fnv_hash64(0), 6_284_781_860_667_377_211);
        assert_eq!(ycsb_fnv_hash64(1), 8_517_097_267_634_966_620);
        assert_eq!(ycsb_fnv_hash64(123_456_789), 2_350_796_791_908_741_607);
        assert_eq!(scrambled_key(1, 1_000_000), 377_211);
        assert_eq!(scrambled_key(3, 1_000_000), 198_393);
    }

    #[test]
    fn the_hottest_rank_takes_one_over_the_harmonic_number() {
        let n = 200_000;
        for (s, tol) in [(1.0, 0.004), (0.8, 0.002)] {
            let expected = 1.0 / harmonic(1_000_000, s);
            for (spec, hottest) in [
                (format!("zipf:s={s},ordered=true"), 0),
                (format!("zipf:s={s}"), scrambled_key(1, 1_000_000)),
            ] {
                let counts = key_counts(&spec, n);
                let share = counts[&hottest] as f64 / n as f64;
                assert!(
                    (share - expected).abs() < tol,
                    "{spec}: top share {share}, expected {expected}"
                );
            }
        }
    }

    #[test]
    fn scrambled_hot_keys_are_spread_and_ordered_ones_are_adjacent() {
        let ordered = top(&key_counts("zipf:keys=1000000,ordered=true", 200_000), 5);
        assert_eq!(ordered, [0, 1, 2, 3, 4]);
        let mut scrambled = top(&key_counts("zipf:keys=1000000", 200_000), 5);
        let expected: Vec<u64> = (1..=5).map(|r| scrambled_key(r, 1_000_000)).collect();
        assert_eq!(scrambled, expected);
        scrambled.sort_unstable();
        assert!(
            scrambled.windows(2).all(|w| w[1] - w[0] > 1000),
            "hot keys bunch up: {scrambled:?}"
        );
    }

    #[test]
    fn keys_stay_in_range() {
        let counts = key_counts("zipf:keys=10,s=2.5,scans=0.3", 10_000);
        assert!(counts.keys().all(|&k| k < 10));
    }

    #[test]
    fn exponent_zero_is_uniform_and_negative_exponents_are_refused() {
        let counts = key_counts("zipf:keys=10,s=0,ordered=true", 100_000);
        assert!(
            counts.values().all(|&c| (9_000..11_000).contains(&c)),
            "{counts:?}"
        );
        for bad in ["zipf:s=-0.5", "zipf:s=inf", "zipf:s=NaN"] {
            let e = WorkloadSpec::parse(bad).unwrap_err().to_string();
            assert!(
                e.contains("must be a finite number, at least 0"),
                "{bad}: {e}"
            );
        }
    }
}
