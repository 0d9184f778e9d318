//! Seeded synthetic workloads, written as spec strings such as `zipf:keys=1000,s=0.99`.
//!
//! Each workload lives in its own file and only chooses keys (a [`KeyModel`]); the shared
//! parameters (`scans`, `scan_len`, `writes`, `value_size`, `rate`), the op mix and the
//! event stream live in [`common`]. Adding a workload = one new file with a [`WorkloadKind`]
//! and one line in [`WORKLOADS`].
//!
//! Streams are generated with [`WorkloadRng`] (xoshiro256++, a pinned algorithm) seeded with
//! `seed_from_u64(seed)`: the same spec and seed give the same events on every platform and
//! release.
//!
//! ```
//! use workloads::{collect, WorkloadSpec};
//! let spec = WorkloadSpec::parse("hotspot:keys=1000,hot=0.1,traffic=0.8,writes=0.5").unwrap();
//! assert_eq!(spec.label(), "hotspot:keys=1000,hot=0.1,traffic=0.8,writes=0.5");
//! let events = collect(spec.open(7, 1000).unwrap().as_mut()).unwrap();
//! assert_eq!(events.len(), 1000);
//! ```

pub mod common;
mod hotspot;
pub mod kind;
mod latest;
mod sequential;
mod timestamp;
mod uniform;
mod ycsb;
mod zipf;

use std::fmt;
use std::str::FromStr;

use crate::{EventSource, KeyType, Spec, SpecError, WorkloadError};
use common::{CommonParams, COMMON_PARAMS};
pub use kind::{KeyModel, Param, ParamKind, Slot, WorkloadKind, WorkloadRng};

/// Every synthetic workload, in the order shown in help texts.
pub static WORKLOADS: &[&WorkloadKind] = &[
    &uniform::KIND,
    &zipf::KIND,
    &sequential::KIND,
    &timestamp::KIND,
    &hotspot::KIND,
    &latest::KIND,
    &ycsb::A,
    &ycsb::B,
    &ycsb::C,
    &ycsb::D,
    &ycsb::E,
    &ycsb::F,
];

impl WorkloadKind {
    /// The kind called `name` (case-insensitive).
    pub fn find(name: &str) -> Option<&'static WorkloadKind> {
        WORKLOADS
            .iter()
            .copied()
            .find(|kind| kind.name.eq_ignore_ascii_case(name))
    }

    /// The workload's own parameters followed by the shared ones.
    pub fn all_params(&self) -> impl Iterator<Item = &'static Param> {
        self.params.iter().chain(COMMON_PARAMS.iter())
    }
}

/// A checked synthetic workload spec such as `zipf:keys=1000,s=0.99`.
#[derive(Clone, Debug)]
pub struct WorkloadSpec {
    kind: &'static WorkloadKind,
    spec: Spec,
    common: CommonParams,
    label: String,
    description: String,
}

impl WorkloadSpec {
    /// Parses and checks one workload spec (no sweeps); errors list the valid names.
    pub fn parse(text: &str) -> Result<WorkloadSpec, WorkloadError> {
        Ok(WorkloadSpec::from_spec(Spec::parse(text)?)?)
    }

    /// Parses a spec whose parameters may hold several values (`zipf:s=0.6,0.8,1.0`) into
    /// one workload per combination, in the order given.
    pub fn parse_sweep(text: &str) -> Result<Vec<WorkloadSpec>, WorkloadError> {
        let spec = Spec::parse(text)?;
        let kind = find_kind(&spec)?;
        let known: Vec<&str> = kind.all_params().map(|p| p.name).collect();
        for (name, _) in &spec.params {
            if !known.contains(&name.as_str()) {
                return Err(unknown_param(&spec, name, &known).into());
            }
        }
        spec.expand()
            .into_iter()
            .map(|s| Ok(WorkloadSpec::from_spec(s)?))
            .collect()
    }

    /// Checks a parsed spec with one value per parameter.
    pub fn from_spec(spec: Spec) -> Result<WorkloadSpec, SpecError> {
        let kind = find_kind(&spec)?;
        let known: Vec<&str> = kind.all_params().map(|p| p.name).collect();
        spec.check(&known)?;
        let common = CommonParams::parse(&spec, kind.default_writes)?;
        let model = (kind.build)(&spec)?;
        let description = if model.own_op_mix() {
            model.describe()
        } else {
            format!("{}; {}", model.describe(), common.describe())
        };
        let label = normalized_label(kind, &spec);
        Ok(WorkloadSpec {
            kind,
            spec,
            common,
            label,
            description,
        })
    }

    /// The label in reports: the spec with the canonical name, the given parameters in
    /// declaration order and values in canonical form (`zipf:keys=1000,s=0.99`).
    pub fn label(&self) -> String {
        self.label.clone()
    }

    /// One sentence for people, e.g. "Zipf s=1.0 over 1,000,000 keys, hot ranks scrambled;
    /// 5% scans of 100 keys; 0% writes".
    pub fn describe(&self) -> String {
        self.description.clone()
    }

    /// The workload family.
    pub fn kind(&self) -> &'static WorkloadKind {
        self.kind
    }

    /// The spec as parsed.
    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// The shared parameters (op mix, scan length, value size, rate).
    pub fn common(&self) -> &CommonParams {
        &self.common
    }

    /// Synthetic keys are integers.
    pub fn key_type(&self) -> KeyType {
        KeyType::U64
    }

    /// Opens a stream of `events` events; the same spec and seed give the same events.
    pub fn open(&self, seed: u64, events: u64) -> Result<Box<dyn EventSource>, WorkloadError> {
        let model = (self.kind.build)(&self.spec)?;
        Ok(Box::new(common::SyntheticSource::new(
            model,
            self.common,
            seed,
            events,
        )))
    }
}

impl FromStr for WorkloadSpec {
    type Err = WorkloadError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        WorkloadSpec::parse(text)
    }
}

impl fmt::Display for WorkloadSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label)
    }
}

fn find_kind(spec: &Spec) -> Result<&'static WorkloadKind, SpecError> {
    WorkloadKind::find(&spec.name).ok_or_else(|| {
        if let Some(table) = crate::table::TableSpec::find(spec) {
            return spec.error(format!(
                "'{}' is a multi-column workload (several key columns), not a stream of keys: \
                 write it with `shardlab gen {} -o {}.csv` and measure candidate shard keys on \
                 it with `shardlab keys --trace {}.csv`",
                table.name, table.name, table.name, table.name
            ));
        }
        let names: Vec<&str> = WORKLOADS.iter().map(|k| k.name).collect();
        spec.error(format!(
            "unknown workload '{}'; valid workloads: {}",
            spec.name,
            names.join(", ")
        ))
    })
}

fn unknown_param(spec: &Spec, name: &str, known: &[&str]) -> SpecError {
    spec.error(format!(
        "unknown parameter '{name}' for '{}'; valid parameters: {}",
        spec.name,
        known.join(", ")
    ))
}

fn normalized_label(kind: &WorkloadKind, spec: &Spec) -> String {
    let mut label = kind.name.to_string();
    for (i, param) in kind
        .all_params()
        .filter_map(|p| spec.get(p.name).map(|v| (p, v)))
        .enumerate()
    {
        label.push(if i == 0 { ':' } else { ',' });
        label.push_str(param.0.name);
        label.push('=');
        label.push_str(&canonical_value(param.0.kind, param.1));
    }
    label
}

/// The canonical text of a checked value; the raw text if it somehow does not parse.
fn canonical_value(kind: ParamKind, raw: &str) -> String {
    let clean = raw.replace('_', "");
    match kind {
        ParamKind::Count => clean.parse::<u64>().map(|v| v.to_string()).ok(),
        ParamKind::Fraction | ParamKind::Number => clean.parse::<f64>().map(common::number).ok(),
        ParamKind::Flag => clean.parse::<bool>().map(|v| v.to_string()).ok(),
    }
    .unwrap_or_else(|| raw.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{collect, EventChunk, Op};

    fn events(spec: &str, seed: u64, n: u64) -> EventChunk {
        let spec = WorkloadSpec::parse(spec).unwrap();
        collect(spec.open(seed, n).unwrap().as_mut()).unwrap()
    }

    fn same(a: &EventChunk, b: &EventChunk) -> bool {
        a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x == y)
    }

    #[test]
    fn every_workload_gives_the_same_events_for_the_same_seed_and_others_for_another() {
        for kind in WORKLOADS {
            let spec = format!("{}:scans=0.1,writes=0.3", kind.name);
            let a = events(&spec, 42, 5000);
            assert_eq!(a.len(), 5000, "{spec}");
            assert!(
                same(&a, &events(&spec, 42, 5000)),
                "{spec} is not deterministic"
            );
            assert!(
                !same(&a, &events(&spec, 43, 5000)),
                "{spec} ignores its seed"
            );
        }
    }

    #[test]
    fn reading_in_small_chunks_gives_the_same_stream_and_the_length_is_known() {
        let spec = WorkloadSpec::parse("latest:keys=100,writes=0.2,scans=0.1").unwrap();
        let whole = collect(spec.open(9, 1000).unwrap().as_mut()).unwrap();
        let mut source = spec.open(9, 1000).unwrap();
        assert_eq!(source.len_hint(), Some(1000));
        let mut chunk = EventChunk::default();
        let mut seen = 0;
        loop {
            chunk.clear();
            let n = source.fill(&mut chunk, 37).unwrap();
            if n == 0 {
                break;
            }
            assert_eq!(chunk.first_index, seen as u64);
            for i in 0..n {
                assert_eq!(chunk.get(i), whole.get(seen + i));
            }
            seen += n;
        }
        assert_eq!(seen, 1000);
    }

    #[test]
    fn every_event_carries_its_timestamp_and_value_size() {
        for kind in WORKLOADS {
            let spec = format!("{}:rate=3,value_size=64,scans=0.2", kind.name);
            let chunk = events(&spec, 1, 1000);
            let mut last = 0;
            for (i, e) in chunk.iter().enumerate() {
                let t = e.timestamp.unwrap();
                assert_eq!(t, i as u64 * 1_000_000 / 3, "{spec}");
                assert!(t >= last);
                last = t;
                assert_eq!(e.size, Some(64));
            }
        }
    }

    #[test]
    fn scans_take_their_share_and_cover_scan_len_keys() {
        for kind in WORKLOADS {
            let spec = format!("{}:scans=0.2,scan_len=50", kind.name);
            let chunk = events(&spec, 3, 100_000);
            let mut scans = 0;
            for e in chunk.iter() {
                if e.op == Op::Scan {
                    scans += 1;
                    let start = crate::key::decode_u64(e.key).unwrap();
                    let end = crate::key::decode_u64(e.end.unwrap()).unwrap();
                    assert_eq!(end, start + 50, "{spec}");
                } else {
                    assert_eq!(e.end, None);
                }
            }
            let share = scans as f64 / chunk.len() as f64;
            assert!((share - 0.2).abs() < 0.01, "{spec}: scan share {share}");
        }
    }

    #[test]
    fn writes_are_the_given_share_of_point_operations() {
        let chunk = events("uniform:keys=1000,writes=0.3,scans=0.5", 5, 100_000);
        let points = chunk.iter().filter(|e| e.is_point()).count();
        let puts = chunk.iter().filter(|e| e.op == Op::Put).count();
        let share = puts as f64 / points as f64;
        assert!((share - 0.3).abs() < 0.01, "put share {share}");
        assert!(chunk.iter().all(|e| e.op != Op::Delete));
    }

    #[test]
    fn unknown_workloads_and_parameters_are_refused_with_the_valid_names() {
        let e = WorkloadSpec::parse("zipfian:s=1").unwrap_err().to_string();
        assert!(e.contains("unknown workload 'zipfian'"), "{e}");
        for kind in WORKLOADS {
            assert!(e.contains(kind.name), "{e}");
        }
        let e = WorkloadSpec::parse("zipf:skew=1").unwrap_err().to_string();
        assert!(e.contains("unknown parameter 'skew'"), "{e}");
        assert!(
            e.contains("keys, s, ordered, scans, scan_len, writes, value_size, rate"),
            "{e}"
        );
        let e = WorkloadSpec::parse_sweep("hotspot:hot=0.1,0.2,temp=3")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("unknown parameter 'temp'") && e.contains("traffic"),
            "{e}"
        );
        let e = WorkloadSpec::parse("zipf:s=0.6,0.8")
            .unwrap_err()
            .to_string();
        assert!(e.contains("one value"), "{e}");
    }

    #[test]
    fn zero_keys_are_refused_by_every_workload_with_a_key_space() {
        for name in ["uniform", "zipf", "hotspot", "latest"] {
            let e = WorkloadSpec::parse(&format!("{name}:keys=0"))
                .unwrap_err()
                .to_string();
            assert!(e.contains("keys=0 must be at least 1"), "{e}");
        }
    }

    #[test]
    fn bad_shared_parameters_are_refused() {
        for (spec, needle) in [
            ("uniform:scans=1.5", "between 0 and 1"),
            ("uniform:writes=-0.1", "between 0 and 1"),
            ("uniform:scan_len=0", "scan_len=0 must be at least 1"),
            ("uniform:rate=0", "rate=0 must be at least 1"),
            ("uniform:value_size=5000000000", "at most 4294967295"),
            ("uniform:keys=ten", "not a whole number"),
        ] {
            let e = WorkloadSpec::parse(spec).unwrap_err().to_string();
            assert!(e.contains(needle), "{spec}: {e}");
        }
    }

    #[test]
    fn a_sweep_gives_one_workload_per_value() {
        let all = WorkloadSpec::parse_sweep("zipf:s=0.6,0.8,1.0,keys=1_000").unwrap();
        let labels: Vec<String> = all.iter().map(|w| w.label()).collect();
        assert_eq!(
            labels,
            [
                "zipf:keys=1000,s=0.6",
                "zipf:keys=1000,s=0.8",
                "zipf:keys=1000,s=1.0"
            ]
        );
    }

    #[test]
    fn labels_are_normalized() {
        let w: WorkloadSpec = "Zipf:ordered=true,s=1,keys=1_000".parse().unwrap();
        assert_eq!(w.label(), "zipf:keys=1000,s=1.0,ordered=true");
        assert_eq!(w.to_string(), w.label());
        assert_eq!(WorkloadSpec::parse("uniform").unwrap().label(), "uniform");
        assert_eq!(
            WorkloadSpec::parse("uniform").unwrap().key_type(),
            KeyType::U64
        );
    }

    #[test]
    fn descriptions_are_one_sentence_with_the_op_mix() {
        let d = WorkloadSpec::parse("zipf:scans=0.05").unwrap().describe();
        assert_eq!(
            d,
            "Zipf s=1.0 over 1,000,000 keys, hot ranks scrambled; 5% scans of 100 keys; 0% writes"
        );
        for kind in WORKLOADS {
            let d = WorkloadSpec::parse(kind.name).unwrap().describe();
            assert!(d.contains("% writes") && !d.contains('\n'), "{d}");
        }
        let d = WorkloadSpec::parse("sequential:value_size=10,rate=500")
            .unwrap()
            .describe();
        assert!(
            d.ends_with("100% writes; 10-byte values; 500 events/s"),
            "{d}"
        );
    }

    #[test]
    fn every_parameter_has_a_description_and_a_valid_default() {
        for kind in WORKLOADS {
            assert!(!kind.about.is_empty());
            for p in kind.all_params() {
                assert!(!p.about.is_empty(), "{}:{}", kind.name, p.name);
                let spec = format!("{}:{}={}", kind.name, p.name, p.default);
                WorkloadSpec::parse(&spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
            }
        }
    }
}
