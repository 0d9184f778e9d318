//! `sequential:recent=R`: auto-increment keys. Every put inserts the next counter value, so
//! each insert lands after every earlier key (the append hot spot of range partitioning);
//! reads and scans go to one of the `R` most recently inserted keys.

use rand::Rng;

use super::common::thousands;
use super::{KeyModel, Param, ParamKind, Slot, WorkloadKind, WorkloadRng};
use crate::{Op, Spec, SpecError};

/// The registry entry.
pub(super) static KIND: WorkloadKind = WorkloadKind {
    name: "sequential",
    about: "auto-increment keys: puts insert 0, 1, 2, ...; reads go to recent inserts",
    params: &[Param {
        name: "recent",
        kind: ParamKind::Count,
        default: "1000",
        about: "reads and scans pick uniformly among this many most recently inserted keys",
    }],
    default_writes: 1.0,
    build,
};

/// Auto-increment inserts with reads of recent keys.
#[derive(Debug)]
struct SequentialWorkload {
    recent: u64,
    inserted: u64,
}

fn build(spec: &Spec) -> Result<Box<dyn KeyModel>, SpecError> {
    Ok(Box::new(SequentialWorkload {
        recent: spec.u64_at_least("recent", 1000, 1)?,
        inserted: 0,
    }))
}

impl KeyModel for SequentialWorkload {
    fn describe(&self) -> String {
        format!(
            "Sequential inserts of ever-increasing keys, reads among the last {} inserted",
            thousands(self.recent)
        )
    }

    fn next_key(&mut self, op: Op, _slot: Slot, rng: &mut WorkloadRng) -> u64 {
        if op == Op::Put {
            self.inserted += 1;
            return self.inserted - 1;
        }
        // Before the first insert there is nothing recent: read key 0, the next to exist.
        let window = self.recent.min(self.inserted);
        if window == 0 {
            return 0;
        }
        self.inserted - 1 - rng.random_range(0..window)
    }
}

#[cfg(test)]
mod tests {
    use crate::key::decode_u64;
    use crate::{collect, Op, WorkloadSpec};

    #[test]
    fn every_put_inserts_a_key_after_all_earlier_ones() {
        let spec = WorkloadSpec::parse("sequential").unwrap();
        let chunk = collect(spec.open(1, 10_000).unwrap().as_mut()).unwrap();
        let keys: Vec<u64> = chunk.iter().map(|e| decode_u64(e.key).unwrap()).collect();
        assert!(chunk.iter().all(|e| e.op == Op::Put));
        assert_eq!(keys, (0..10_000).collect::<Vec<u64>>());
    }

    #[test]
    fn reads_and_scans_go_to_recent_inserts() {
        let spec = WorkloadSpec::parse("sequential:writes=0.5,scans=0.2,recent=100").unwrap();
        let chunk = collect(spec.open(1, 50_000).unwrap().as_mut()).unwrap();
        let mut next = 0;
        let mut reads = 0;
        for e in chunk.iter() {
            let key = decode_u64(e.key).unwrap();
            if e.op == Op::Put {
                assert_eq!(key, next, "puts must count up");
                next += 1;
            } else if next > 0 {
                reads += 1;
                assert!(
                    key < next && key + 100 >= next,
                    "read {key} with {next} inserted"
                );
            }
        }
        assert!(reads > 20_000, "{reads}");
    }
}
