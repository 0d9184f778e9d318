//! `latest:keys=K,s=S`: YCSB's "latest" distribution. The store starts with `K` keys; puts
//! insert `K, K+1, ...`; reads and scans favour the newest keys, key = newest - (rank - 1)
//! with rank drawn from Zipf(s) over the current key count.

use super::common::{self, number, thousands};
use super::zipf::{draw_rank, exponent, zipf};
use super::{KeyModel, Param, ParamKind, Slot, WorkloadKind, WorkloadRng};
use crate::{Op, Spec, SpecError};
use rand_distr::Zipf;

/// The registry entry.
pub(super) static KIND: WorkloadKind = WorkloadKind {
    name: "latest",
    about: "YCSB latest: keys initial keys, puts append, reads Zipf-skewed towards the newest",
    params: &[
        Param {
            about: "number of keys loaded before the first event, at least 1",
            ..common::KEYS
        },
        Param {
            name: "s",
            kind: ParamKind::Number,
            default: "0.99",
            about: "Zipf exponent of the recency skew, at least 0 (YCSB uses 0.99)",
        },
    ],
    default_writes: 0.05,
    build,
};

/// Appending inserts with reads skewed towards the newest key.
#[derive(Debug)]
struct LatestWorkload {
    initial: u64,
    s: f64,
    /// Keys that exist: `[0, count)`, the newest is `count - 1`.
    count: u64,
    ranks: Zipf<f64>,
    /// The key count `ranks` was built for; rebuilt lazily after inserts (O(1), no allocation).
    ranks_for: u64,
}

fn build(spec: &Spec) -> Result<Box<dyn KeyModel>, SpecError> {
    let initial = common::keys(spec)?;
    let s = exponent(spec, 0.99)?;
    let ranks = zipf(spec, initial, s)?;
    Ok(Box::new(LatestWorkload {
        initial,
        s,
        count: initial,
        ranks,
        ranks_for: initial,
    }))
}

impl KeyModel for LatestWorkload {
    fn describe(&self) -> String {
        format!(
            "Latest: {} keys loaded, puts append, reads Zipf s={} towards the newest",
            thousands(self.initial),
            number(self.s)
        )
    }

    fn next_key(&mut self, op: Op, _slot: Slot, rng: &mut WorkloadRng) -> u64 {
        if op == Op::Put {
            self.count += 1;
            return self.count - 1;
        }
        if self.ranks_for != self.count {
            // count >= 1 and s was checked when the workload was built.
            self.ranks = Zipf::new(self.count as f64, self.s)
                .expect("a valid Zipf over a non-empty key set");
            self.ranks_for = self.count;
        }
        self.count - draw_rank(&self.ranks, self.count, rng)
    }
}

#[cfg(test)]
mod tests {
    use crate::key::decode_u64;
    use crate::{collect, Op, WorkloadSpec};

    #[test]
    fn puts_append_and_reads_skew_to_the_newest_key() {
        let spec = WorkloadSpec::parse("latest:keys=1000,scans=0.1").unwrap();
        let chunk = collect(spec.open(3, 100_000).unwrap().as_mut()).unwrap();
        let mut count = 1000;
        let (mut reads, mut newest, mut near) = (0u32, 0u32, 0u32);
        for e in chunk.iter() {
            let key = decode_u64(e.key).unwrap();
            if e.op == Op::Put {
                assert_eq!(key, count, "puts must append");
                count += 1;
            } else {
                assert!(key < count, "read of {key} before it exists");
                let age = count - 1 - key;
                reads += 1;
                newest += u32::from(age == 0);
                near += u32::from(age < 10);
            }
        }
        assert!(count > 5000 && count < 5500, "{count} keys after 5% puts");
        // Zipf(0.99) over ~1000..5000 keys puts ~11-13% on the newest key and ~35% within 10
        // of it; uniform reads would put under 1% there.
        let (newest, near) = (newest as f64 / reads as f64, near as f64 / reads as f64);
        assert!((0.09..0.16).contains(&newest), "newest share {newest}");
        assert!(near > 0.3, "share within 10 of the newest {near}");
    }

    #[test]
    fn a_single_initial_key_works() {
        let spec = WorkloadSpec::parse("latest:keys=1,writes=0").unwrap();
        let chunk = collect(spec.open(3, 100).unwrap().as_mut()).unwrap();
        assert!(chunk.iter().all(|e| decode_u64(e.key) == Some(0)));
    }
}
