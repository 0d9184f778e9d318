//! `ycsb:a` ... `ycsb:f`: the YCSB core workloads, as YCSB's `CoreWorkload` and the
//! `workloads/workload[a-f]` files define them, so results line up with YCSB runs.
//!
//! | workload | YCSB name      | operations                                | request distribution |
//! |----------|----------------|-------------------------------------------|----------------------|
//! | `ycsb:a` | update heavy   | 50% read, 50% update                      | zipfian              |
//! | `ycsb:b` | read mostly    | 95% read, 5% update                       | zipfian              |
//! | `ycsb:c` | read only      | 100% read                                 | zipfian              |
//! | `ycsb:d` | read latest    | 95% read, 5% insert                       | latest               |
//! | `ycsb:e` | short ranges   | 95% scan (length uniform 1..=100), 5% insert | zipfian           |
//! | `ycsb:f` | read-modify-write | 50% read, 50% read-modify-write        | zipfian              |
//!
//! As in YCSB:
//! - `records` keys (key numbers `0..records`) exist before the first operation; an insert
//!   adds the next key number.
//! - zipfian is YCSB's `ScrambledZipfianGenerator`: a Zipf rank with constant 0.99 over
//!   10^10 items, mapped to key number `fnvhash64(rank) % itemcount`, where itemcount is
//!   `records` plus twice the expected inserts (YCSB's `expectednewkeys`); numbers not yet
//!   inserted are drawn again.
//! - latest is `SkewedLatestGenerator`: the newest key number minus a Zipf(0.99) rank over
//!   the key numbers that exist.
//! - a key number `n` becomes the key `fnvhash64(n)` (YCSB's default `insertorder=hashed`),
//!   or `n` itself with `ordered=true`. shardlab keys are integers, so the order of keys is
//!   numeric where YCSB's `user<number>` strings sort as text: both spread hashed keys
//!   uniformly over the key space.
//! - a read-modify-write is two events, a get and then a put of the same key (what the store
//!   sees); every other operation is one event. `--events` counts events.
//! - a scan of L records from key k covers `[k, k + L)` with ordered keys; with hashed keys
//!   the next L records in key order span about `L * 2^63 / records` of the key space, so the
//!   scan is `[k, k + L * 2^63 / records)`.
//!
//! The shared parameters `scans`, `writes` and `scan_len`, when given, replace YCSB's
//! operation mix by shardlab's (a put is then an insert for `ycsb:d` and `ycsb:e` and an
//! update otherwise); `value_size` and `rate` apply as for every workload.

use rand::distr::{Distribution, Uniform};
use rand::Rng;
use rand_distr::Zipf;

use super::common::{self, thousands};
use super::zipf::{draw_rank, scrambled_key, ycsb_fnv_hash64};
use super::{KeyModel, Param, ParamKind, Slot, WorkloadKind, WorkloadRng};
use crate::{Op, Spec, SpecError};

/// YCSB's Zipfian constant.
pub const ZIPFIAN_CONSTANT: f64 = 0.99;
/// Items of YCSB's scrambled Zipfian generator (`ScrambledZipfianGenerator.ITEM_COUNT`).
pub const ITEM_COUNT: f64 = 1e10;

const PARAMS: &[Param] = &[
    Param {
        name: "records",
        kind: ParamKind::Count,
        default: "1000000",
        about: "records loaded before the first operation (YCSB recordcount), at least 1",
    },
    Param {
        name: "ordered",
        kind: ParamKind::Flag,
        default: "false",
        about: "true keeps key numbers in insert order (YCSB insertorder=ordered) instead of hashing them",
    },
    Param {
        name: "scan_max",
        kind: ParamKind::Count,
        default: "100",
        about: "longest scan in records; lengths are uniform over 1..=scan_max (YCSB maxscanlength)",
    },
];

/// One YCSB core workload: its operation proportions and request distribution.
#[derive(Clone, Copy, Debug)]
struct Mix {
    letter: char,
    title: &'static str,
    read: f64,
    update: f64,
    insert: f64,
    scan: f64,
    rmw: f64,
    latest: bool,
}

const MIXES: [Mix; 6] = [
    Mix {
        letter: 'a',
        title: "update heavy",
        read: 0.5,
        update: 0.5,
        insert: 0.0,
        scan: 0.0,
        rmw: 0.0,
        latest: false,
    },
    Mix {
        letter: 'b',
        title: "read mostly",
        read: 0.95,
        update: 0.05,
        insert: 0.0,
        scan: 0.0,
        rmw: 0.0,
        latest: false,
    },
    Mix {
        letter: 'c',
        title: "read only",
        read: 1.0,
        update: 0.0,
        insert: 0.0,
        scan: 0.0,
        rmw: 0.0,
        latest: false,
    },
    Mix {
        letter: 'd',
        title: "read latest",
        read: 0.95,
        update: 0.0,
        insert: 0.05,
        scan: 0.0,
        rmw: 0.0,
        latest: true,
    },
    Mix {
        letter: 'e',
        title: "short ranges",
        read: 0.0,
        update: 0.0,
        insert: 0.05,
        scan: 0.95,
        rmw: 0.0,
        latest: false,
    },
    Mix {
        letter: 'f',
        title: "read-modify-write",
        read: 0.5,
        update: 0.0,
        insert: 0.0,
        scan: 0.0,
        rmw: 0.5,
        latest: false,
    },
];

macro_rules! kind {
    ($name:literal, $about:literal, $writes:expr) => {
        WorkloadKind {
            name: $name,
            about: $about,
            params: PARAMS,
            default_writes: $writes,
            build,
        }
    };
}

/// `ycsb:a`.
pub(super) static A: WorkloadKind = kind!(
    "ycsb:a",
    "YCSB A, update heavy: 50% reads, 50% updates, zipfian",
    0.5
);
/// `ycsb:b`.
pub(super) static B: WorkloadKind = kind!(
    "ycsb:b",
    "YCSB B, read mostly: 95% reads, 5% updates, zipfian",
    0.05
);
/// `ycsb:c`.
pub(super) static C: WorkloadKind = kind!("ycsb:c", "YCSB C, read only: 100% reads, zipfian", 0.0);
/// `ycsb:d`.
pub(super) static D: WorkloadKind = kind!(
    "ycsb:d",
    "YCSB D, read latest: 95% reads, 5% inserts, latest",
    0.05
);
/// `ycsb:e`.
pub(super) static E: WorkloadKind = kind!(
    "ycsb:e",
    "YCSB E, short ranges: 95% scans of 1-100 records, 5% inserts, zipfian",
    1.0
);
/// `ycsb:f`.
pub(super) static F: WorkloadKind = kind!(
    "ycsb:f",
    "YCSB F, read-modify-write: 50% reads, 50% read-modify-writes, zipfian",
    0.5
);

/// A YCSB core workload's key chooser and, unless overridden, operation mix.
#[derive(Debug)]
struct YcsbWorkload {
    mix: Mix,
    records: u64,
    ordered: bool,
    /// YCSB's op mix (false when the shared parameters replace it).
    own_mix: bool,
    scan_max: u64,
    scan_lengths: Uniform<u64>,
    /// Key numbers `[0, inserted)` exist.
    inserted: u64,
    /// `records` plus the expected new keys (set from the stream length).
    item_count: u64,
    ranks: Zipf<f64>,
    /// Latest: Zipf over the current key count, rebuilt lazily after inserts.
    recent: Zipf<f64>,
    recent_for: u64,
    /// The put half of a read-modify-write, emitted after its get.
    pending_put: Option<u64>,
}

fn build(spec: &Spec) -> Result<Box<dyn KeyModel>, SpecError> {
    let letter = spec.name.chars().last().unwrap_or('?').to_ascii_lowercase();
    let mix = MIXES
        .iter()
        .copied()
        .find(|m| m.letter == letter)
        .ok_or_else(|| {
            spec.error(format!(
                "unknown YCSB workload '{}'; valid: ycsb:a .. ycsb:f",
                spec.name
            ))
        })?;
    let records = spec.u64_at_least("records", 1_000_000, 1)?;
    let scan_max = spec.u64_at_least("scan_max", 100, 1)?;
    let zipf = |n: f64| {
        Zipf::new(n, ZIPFIAN_CONSTANT)
            .map_err(|e| spec.error(format!("no Zipf distribution over {n} items: {e}")))
    };
    Ok(Box::new(YcsbWorkload {
        mix,
        records,
        ordered: spec.flag("ordered", false)?,
        own_mix: !["scans", "writes", "scan_len"]
            .iter()
            .any(|p| spec.get(p).is_some()),
        scan_max,
        scan_lengths: common::uniform(spec, 1, scan_max.saturating_add(1))?,
        inserted: records,
        item_count: records,
        ranks: zipf(ITEM_COUNT)?,
        recent: zipf(records as f64)?,
        recent_for: records,
        pending_put: None,
    }))
}

impl YcsbWorkload {
    /// The key of key number `n`.
    fn key(&self, n: u64) -> u64 {
        if self.ordered {
            n
        } else {
            ycsb_fnv_hash64(n)
        }
    }

    /// A key number that exists, from the request distribution.
    fn choose(&mut self, rng: &mut WorkloadRng) -> u64 {
        if self.mix.latest {
            if self.recent_for != self.inserted {
                // inserted >= 1 and the constant is valid: the distribution always exists.
                if let Ok(z) = Zipf::new(self.inserted as f64, ZIPFIAN_CONSTANT) {
                    self.recent = z;
                }
                self.recent_for = self.inserted;
            }
            return self.inserted - draw_rank(&self.recent, self.inserted, rng);
        }
        loop {
            // YCSB draws again when the number is not inserted yet.
            let rank = (self.ranks.sample(rng) as u64).max(1);
            let n = scrambled_key(rank, self.item_count);
            if n < self.inserted {
                return n;
            }
        }
    }

    /// The key of a key number from the request distribution.
    fn chosen_key(&mut self, rng: &mut WorkloadRng) -> u64 {
        let n = self.choose(rng);
        self.key(n)
    }

    /// The next key number to insert.
    fn insert(&mut self) -> u64 {
        self.inserted += 1;
        self.inserted - 1
    }

    /// The exclusive end of a scan of `len` records from `key`.
    fn scan_end(&self, key: u64, len: u64) -> u64 {
        if self.ordered {
            key.saturating_add(len)
        } else {
            let gap = (1u64 << 63) / self.inserted.max(1);
            key.saturating_add(len.saturating_mul(gap.max(1)))
        }
    }
}

impl KeyModel for YcsbWorkload {
    fn describe(&self) -> String {
        let m = self.mix;
        let mut ops = Vec::new();
        for (share, what) in [
            (m.read, "reads"),
            (m.update, "updates"),
            (m.insert, "inserts"),
            (m.scan, "scans"),
            (m.rmw, "read-modify-writes (a get then a put)"),
        ] {
            if share > 0.0 {
                ops.push(format!("{} {what}", common::percent(share)));
            }
        }
        let events = 1.0 + m.rmw;
        let writes = (m.update + m.insert + m.rmw) / events;
        let scans = if m.scan > 0.0 {
            format!("; scans of 1-{} records", self.scan_max)
        } else {
            String::new()
        };
        format!(
            "YCSB {} ({}): {} ({} writes of events){scans}; {} over {} records, keys {}",
            m.letter.to_ascii_uppercase(),
            m.title,
            ops.join(", "),
            common::percent((writes * 10_000.0).round() / 10_000.0),
            if m.latest {
                "latest"
            } else {
                "zipfian 0.99, scrambled"
            },
            thousands(self.records),
            if self.ordered {
                "in insert order"
            } else {
                "hashed"
            }
        )
    }

    fn set_events(&mut self, events: u64) {
        // YCSB: itemcount = recordcount + 2 * operationcount * insertproportion.
        let expected = (events as f64 * self.mix.insert * 2.0) as u64;
        self.item_count = self.records.saturating_add(expected);
    }

    fn next_key(&mut self, op: Op, _slot: Slot, rng: &mut WorkloadRng) -> u64 {
        let n = match op {
            Op::Put if self.mix.insert > 0.0 => self.insert(),
            _ => self.choose(rng),
        };
        self.key(n)
    }

    fn next_event(&mut self, _slot: Slot, rng: &mut WorkloadRng) -> Option<(Op, u64, u64)> {
        if !self.own_mix {
            return None;
        }
        if let Some(key) = self.pending_put.take() {
            return Some((Op::Put, key, key));
        }
        let m = self.mix;
        let u: f64 = rng.random();
        let event = if u < m.read {
            let key = self.chosen_key(rng);
            (Op::Get, key, key)
        } else if u < m.read + m.update {
            let key = self.chosen_key(rng);
            (Op::Put, key, key)
        } else if u < m.read + m.update + m.insert {
            let n = self.insert();
            let key = self.key(n);
            (Op::Put, key, key)
        } else if u < m.read + m.update + m.insert + m.scan {
            let key = self.chosen_key(rng);
            let len = self.scan_lengths.sample(rng);
            (Op::Scan, key, self.scan_end(key, len))
        } else {
            let key = self.chosen_key(rng);
            self.pending_put = Some(key);
            (Op::Get, key, key)
        };
        Some(event)
    }

    fn own_op_mix(&self) -> bool {
        self.own_mix
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::decode_u64;
    use crate::{collect, EventChunk, WorkloadSpec};

    fn events(spec: &str, n: u64) -> EventChunk {
        collect(
            WorkloadSpec::parse(spec)
                .unwrap()
                .open(11, n)
                .unwrap()
                .as_mut(),
        )
        .unwrap()
    }

    fn share(chunk: &EventChunk, op: Op) -> f64 {
        chunk.iter().filter(|e| e.op == op).count() as f64 / chunk.len() as f64
    }

    #[test]
    fn operation_mixes_follow_the_ycsb_workload_files() {
        let n = 100_000;
        for (spec, get, put, scan) in [
            ("ycsb:a", 0.5, 0.5, 0.0),
            ("ycsb:b", 0.95, 0.05, 0.0),
            ("ycsb:c", 1.0, 0.0, 0.0),
            ("ycsb:d", 0.95, 0.05, 0.0),
            ("ycsb:e", 0.0, 0.05, 0.95),
            // 50% reads + 50% read-modify-writes (get + put): 2/3 gets, 1/3 puts of events.
            ("ycsb:f", 2.0 / 3.0, 1.0 / 3.0, 0.0),
        ] {
            let chunk = events(&format!("{spec}:records=10000"), n);
            for (op, expected) in [(Op::Get, get), (Op::Put, put), (Op::Scan, scan)] {
                let got = share(&chunk, op);
                assert!(
                    (got - expected).abs() < 0.01,
                    "{spec} {op:?}: {got} vs {expected}"
                );
            }
            assert_eq!(share(&chunk, Op::Delete), 0.0);
            let d = WorkloadSpec::parse(spec).unwrap().describe();
            assert!(d.starts_with("YCSB ") && d.contains("% writes"), "{d}");
        }
    }

    #[test]
    fn the_hottest_key_is_ycsbs_scrambled_rank_one() {
        let chunk = events("ycsb:c:records=1000", 200_000);
        let hottest_number = ycsb_fnv_hash64(0) % 1000;
        assert_eq!(hottest_number, 211);
        let hot = ycsb_fnv_hash64(hottest_number);
        let hits = chunk
            .iter()
            .filter(|e| decode_u64(e.key) == Some(hot))
            .count() as f64
            / 200_000.0;
        // Rank 1 of Zipf(0.99) over 1e10 items has 1/zeta = 1/26.469 = 3.78%, plus the ranks
        // that the modulo folds onto the same record (about 0.1% of the rest).
        assert!((hits - 0.0387).abs() < 0.003, "{hits}");
    }

    #[test]
    fn inserts_append_and_scans_cover_one_to_scan_max_records() {
        let chunk = events("ycsb:e:records=1000,ordered=true", 50_000);
        let mut next = 1000;
        let mut lens = Vec::new();
        for e in chunk.iter() {
            let key = decode_u64(e.key).unwrap();
            match e.op {
                Op::Put => {
                    assert_eq!(key, next);
                    next += 1;
                }
                Op::Scan => {
                    assert!(key < next, "a scan from {key} before it exists");
                    lens.push(decode_u64(e.end.unwrap()).unwrap() - key);
                }
                op => panic!("{op:?} in ycsb:e"),
            }
        }
        assert!(lens.iter().all(|l| (1..=100).contains(l)));
        let mean = lens.iter().sum::<u64>() as f64 / lens.len() as f64;
        assert!((mean - 50.5).abs() < 1.0, "{mean}");
    }

    #[test]
    fn a_read_modify_write_is_a_get_then_a_put_of_the_same_key() {
        let chunk = events("ycsb:f:records=100", 10_000);
        let all: Vec<_> = chunk.iter().collect();
        for (i, e) in all.iter().enumerate().filter(|(_, e)| e.op == Op::Put) {
            assert!(i > 0 && all[i - 1].op == Op::Get && all[i - 1].key == e.key);
        }
    }

    #[test]
    fn reads_of_ycsb_d_favour_the_newest_records() {
        let chunk = events("ycsb:d:records=1000,ordered=true", 100_000);
        let mut count = 1000;
        let (mut reads, mut newest) = (0u32, 0u32);
        for e in chunk.iter() {
            let key = decode_u64(e.key).unwrap();
            if e.op == Op::Put {
                assert_eq!(key, count);
                count += 1;
            } else {
                reads += 1;
                newest += u32::from(key == count - 1);
            }
        }
        let newest = f64::from(newest) / f64::from(reads);
        assert!((0.09..0.16).contains(&newest), "{newest}");
    }

    #[test]
    fn shared_parameters_replace_the_operation_mix() {
        let chunk = events("ycsb:a:scans=0.2,scan_len=10", 20_000);
        assert!((share(&chunk, Op::Scan) - 0.2).abs() < 0.02);
        let w = WorkloadSpec::parse("ycsb:a:scans=0.2").unwrap();
        assert!(w.describe().contains("20% scans"), "{}", w.describe());
        assert_eq!(w.label(), "ycsb:a:scans=0.2");
        let e = WorkloadSpec::parse("ycsb:g").unwrap_err().to_string();
        assert!(e.contains("ycsb:a") && e.contains("ycsb:f"), "{e}");
    }
}
