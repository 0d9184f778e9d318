//! What every synthetic workload shares: the parameters `scans`, `scan_len`, `writes`,
//! `value_size` and `rate`, the op mix, and the event stream that asks a [`KeyModel`] for
//! keys.

use rand::distr::{Bernoulli, Distribution, Uniform};
use rand::SeedableRng;

use super::{KeyModel, Param, ParamKind, Slot, WorkloadRng};
use crate::key::encode_u64;
use crate::{Event, EventChunk, EventSource, Op, Spec, SpecError, WorkloadError};

/// The parameters every workload takes, after its own.
pub static COMMON_PARAMS: &[Param] = &[
    Param {
        name: "scans",
        kind: ParamKind::Fraction,
        default: "0",
        about: "share of events that are range scans",
    },
    Param {
        name: "scan_len",
        kind: ParamKind::Count,
        default: "100",
        about: "keys a scan covers: [k, k+scan_len) in key numbers",
    },
    Param {
        name: "writes",
        kind: ParamKind::Fraction,
        default: "0",
        about: "share of point operations that are puts (default 1.0 for sequential and timestamp, 0.05 for latest)",
    },
    Param {
        name: "value_size",
        kind: ParamKind::Count,
        default: "100",
        about: "value size in bytes carried by every event",
    },
    Param {
        name: "rate",
        kind: ParamKind::Count,
        default: "1000000",
        about: "events per second; event i has timestamp floor(i*1e6/rate) microseconds",
    },
];

/// The `keys` parameter of workloads over a fixed key space `[0, keys)`.
pub const KEYS: Param = Param {
    name: "keys",
    kind: ParamKind::Count,
    default: "1000000",
    about: "size of the key space [0, keys), at least 1",
};

/// Reads `keys` (at least 1).
pub(crate) fn keys(spec: &Spec) -> Result<u64, SpecError> {
    spec.u64_at_least("keys", 1_000_000, 1)
}

/// The uniform distribution over `[low, high)`; an empty range is a spec error.
pub(crate) fn uniform(spec: &Spec, low: u64, high: u64) -> Result<Uniform<u64>, SpecError> {
    Uniform::new(low, high)
        .map_err(|e| spec.error(format!("cannot draw keys from [{low}, {high}): {e}")))
}

/// The shared parameters of a workload, checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CommonParams {
    /// Share of events that are scans, in `[0, 1]`.
    pub scans: f64,
    /// Keys a scan covers (`end = start + scan_len`, saturating), at least 1.
    pub scan_len: u64,
    /// Share of point operations that are puts, in `[0, 1]`.
    pub writes: f64,
    /// Value size in bytes carried by every event.
    pub value_size: u32,
    /// Events per second, at least 1.
    pub rate: u64,
}

impl CommonParams {
    /// Reads the shared parameters of `spec`; `default_writes` is the workload's own default.
    pub fn parse(spec: &Spec, default_writes: f64) -> Result<CommonParams, SpecError> {
        let value_size = spec.u64_at_least("value_size", 100, 0)?;
        let value_size = u32::try_from(value_size).map_err(|_| {
            spec.error(format!(
                "value_size={value_size} must be at most {}",
                u32::MAX
            ))
        })?;
        Ok(CommonParams {
            scans: spec.fraction("scans", 0.0)?,
            scan_len: spec.u64_at_least("scan_len", 100, 1)?,
            writes: spec.fraction("writes", default_writes)?,
            value_size,
            rate: spec.u64_at_least("rate", 1_000_000, 1)?,
        })
    }

    /// The op-mix part of a description: `5% scans of 100 keys; 0% writes`, then the value
    /// size and rate when they are not the defaults.
    pub fn describe(&self) -> String {
        let mut text = format!(
            "{} scans of {} keys; {} writes",
            percent(self.scans),
            thousands(self.scan_len),
            percent(self.writes)
        );
        if self.value_size != 100 {
            text.push_str(&format!(
                "; {}-byte values",
                thousands(self.value_size.into())
            ));
        }
        if self.rate != 1_000_000 {
            text.push_str(&format!("; {} events/s", thousands(self.rate)));
        }
        text
    }

    /// The timestamp in microseconds of event `index`: `floor(index * 1e6 / rate)`, exact
    /// (saturating at `u64::MAX`, some 580,000 years in).
    pub fn time_us(&self, index: u64) -> u64 {
        u64::try_from(u128::from(index) * 1_000_000 / u128::from(self.rate)).unwrap_or(u64::MAX)
    }
}

/// The event stream of a synthetic workload.
pub(crate) struct SyntheticSource {
    model: Box<dyn KeyModel>,
    params: CommonParams,
    scan: Bernoulli,
    write: Bernoulli,
    rng: WorkloadRng,
    next: u64,
    total: u64,
}

impl SyntheticSource {
    /// A stream of `total` events from `model`, seeded with `seed`.
    pub(crate) fn new(
        model: Box<dyn KeyModel>,
        params: CommonParams,
        seed: u64,
        total: u64,
    ) -> Self {
        let mut model = model;
        model.set_events(total);
        SyntheticSource {
            model,
            params,
            scan: bernoulli(params.scans),
            write: bernoulli(params.writes),
            rng: WorkloadRng::seed_from_u64(seed),
            next: 0,
            total,
        }
    }
}

/// `p` has been checked to lie in `[0, 1]`, the whole domain of `Bernoulli::new`.
fn bernoulli(p: f64) -> Bernoulli {
    Bernoulli::new(p).expect("fractions are checked to lie in [0, 1]")
}

impl EventSource for SyntheticSource {
    fn fill(&mut self, chunk: &mut EventChunk, max: usize) -> Result<usize, WorkloadError> {
        if chunk.is_empty() {
            chunk.first_index = self.next;
        }
        let n = (self.total - self.next).min(max as u64) as usize;
        for _ in 0..n {
            let slot = Slot {
                index: self.next,
                time_us: self.params.time_us(self.next),
            };
            let (op, key, end) = match self.model.next_event(slot, &mut self.rng) {
                Some(event) => event,
                None => {
                    // Draw order is part of the stream's definition: scan?, then put?, then the key.
                    let op = if self.scan.sample(&mut self.rng) {
                        Op::Scan
                    } else if self.write.sample(&mut self.rng) {
                        Op::Put
                    } else {
                        Op::Get
                    };
                    let key = self.model.next_key(op, slot, &mut self.rng);
                    (op, key, scan_end(key, self.params.scan_len))
                }
            };
            let end_bytes = encode_u64(end);
            chunk.push(Event {
                op,
                key: &encode_u64(key),
                end: (op == Op::Scan).then_some(&end_bytes[..]),
                timestamp: Some(slot.time_us),
                size: Some(self.params.value_size),
            });
            self.next += 1;
        }
        Ok(n)
    }

    fn len_hint(&self) -> Option<u64> {
        Some(self.total)
    }
}

/// The exclusive end of a scan of `len` keys from `start`, saturating at `u64::MAX`.
pub fn scan_end(start: u64, len: u64) -> u64 {
    start.saturating_add(len)
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let head = match digits.len() % 3 {
        0 => 3,
        partial => partial,
    };
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    out.push_str(&digits[..head]);
    for group in digits.as_bytes()[head..].chunks(3) {
        out.push(',');
        out.extend(group.iter().map(|&b| char::from(b)));
    }
    out
}

/// A fraction as a percentage with at most two decimals: `0.05` as `5%`, `0.125` as `12.5%`.
pub fn percent(fraction: f64) -> String {
    let text = format!("{:.2}", fraction * 100.0);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text}%")
}

/// A real number in its shortest form, keeping one decimal on whole numbers (`1.0`, `0.99`).
pub fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_for_people() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(percent(0.05), "5%");
        assert_eq!(percent(0.125), "12.5%");
        assert_eq!(percent(0.0), "0%");
        assert_eq!(percent(1.0), "100%");
        assert_eq!(number(1.0), "1.0");
        assert_eq!(number(0.99), "0.99");
    }

    #[test]
    fn scan_ends_saturate() {
        assert_eq!(scan_end(10, 100), 110);
        assert_eq!(scan_end(u64::MAX - 5, 100), u64::MAX);
    }

    #[test]
    fn timestamps_follow_the_rate_exactly() {
        let spec = Spec::parse("uniform:rate=3").unwrap();
        let p = CommonParams::parse(&spec, 0.0).unwrap();
        assert_eq!(
            [p.time_us(0), p.time_us(1), p.time_us(2), p.time_us(3)],
            [0, 333_333, 666_666, 1_000_000]
        );
        let p = CommonParams { rate: 1, ..p };
        assert_eq!(p.time_us(u64::MAX), u64::MAX);
    }
}
