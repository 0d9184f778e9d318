//! `timestamp:writers=W,jitter=J`: time-ordered keys, as written by `W` clients that stamp
//! rows with a clock that runs up to `J` microseconds ahead: key = (t + jitter) * 256 + writer,
//! where t is the event's timestamp. Keys grow with time, almost but not quite in order.

use rand::distr::{Distribution, Uniform};

use super::common::{self, thousands};
use super::{KeyModel, Param, ParamKind, Slot, WorkloadKind, WorkloadRng};
use crate::{Op, Spec, SpecError};

/// The registry entry.
pub(super) static KIND: WorkloadKind = WorkloadKind {
    name: "timestamp",
    about: "time-ordered keys (t + jitter) * 256 + writer from several writers",
    params: &[
        Param {
            name: "writers",
            kind: ParamKind::Count,
            default: "8",
            about: "number of writers, 1 to 256 (the writer id is the key's low byte)",
        },
        Param {
            name: "jitter",
            kind: ParamKind::Count,
            default: "1000",
            about: "clock jitter in microseconds: each key adds a uniform draw from [0, jitter)",
        },
    ],
    default_writes: 1.0,
    build,
};

/// Keys from the event time, a jitter and a writer id.
#[derive(Debug)]
struct TimestampWorkload {
    writers: u64,
    jitter: u64,
    writer: Uniform<u64>,
    /// `None` when `jitter` is 0.
    delay: Option<Uniform<u64>>,
}

fn build(spec: &Spec) -> Result<Box<dyn KeyModel>, SpecError> {
    let writers = spec.u64_at_least("writers", 8, 1)?;
    if writers > 256 {
        return Err(spec.error(format!(
            "writers={writers} must be at most 256 (the writer id is one byte)"
        )));
    }
    let jitter = spec.u64_at_least("jitter", 1000, 0)?;
    let delay = if jitter == 0 {
        None
    } else {
        Some(common::uniform(spec, 0, jitter)?)
    };
    Ok(Box::new(TimestampWorkload {
        writers,
        jitter,
        writer: common::uniform(spec, 0, writers)?,
        delay,
    }))
}

impl KeyModel for TimestampWorkload {
    fn describe(&self) -> String {
        format!(
            "Time-ordered keys from {} writers with {} µs jitter",
            thousands(self.writers),
            thousands(self.jitter)
        )
    }

    fn next_key(&mut self, _op: Op, slot: Slot, rng: &mut WorkloadRng) -> u64 {
        let jitter = self.delay.map_or(0, |d| d.sample(rng));
        let writer = self.writer.sample(rng);
        slot.time_us
            .saturating_add(jitter)
            .saturating_mul(256)
            .saturating_add(writer)
    }
}

#[cfg(test)]
mod tests {
    use crate::key::decode_u64;
    use crate::{collect, WorkloadSpec};

    #[test]
    fn keys_follow_the_clock_within_the_jitter() {
        let spec = WorkloadSpec::parse("timestamp:writers=4,jitter=50,rate=100000").unwrap();
        let chunk = collect(spec.open(5, 20_000).unwrap().as_mut()).unwrap();
        let mut writers = [0u32; 4];
        let mut out_of_order = 0;
        let mut last = 0;
        for e in chunk.iter() {
            let key = decode_u64(e.key).unwrap();
            let t = e.timestamp.unwrap();
            assert!(key / 256 >= t && key / 256 < t + 50, "key {key} at t={t}");
            writers[(key % 256) as usize] += 1;
            out_of_order += u32::from(key < last);
            last = key;
        }
        assert!(writers.iter().all(|&n| n > 4000), "{writers:?}");
        // Events 10 µs apart with 50 µs of jitter: keys are often out of order, yet grow.
        assert!(out_of_order > 1000, "{out_of_order}");
        assert!(decode_u64(chunk.get(19_999).key).unwrap() > decode_u64(chunk.get(0).key).unwrap());
    }

    #[test]
    fn without_jitter_keys_from_one_writer_are_the_timestamps() {
        let spec = WorkloadSpec::parse("timestamp:writers=1,jitter=0").unwrap();
        let chunk = collect(spec.open(5, 100).unwrap().as_mut()).unwrap();
        for e in chunk.iter() {
            assert_eq!(decode_u64(e.key).unwrap(), e.timestamp.unwrap() * 256);
        }
    }

    #[test]
    fn too_many_writers_are_refused() {
        let e = WorkloadSpec::parse("timestamp:writers=257")
            .unwrap_err()
            .to_string();
        assert!(e.contains("at most 256"), "{e}");
        assert!(WorkloadSpec::parse("timestamp:writers=0").is_err());
    }
}
