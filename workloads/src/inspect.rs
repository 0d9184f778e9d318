//! What `shardlab inspect` says about a trace, computed in one streaming pass in bounded
//! memory: events and op mix, distinct keys (exact up to a limit, then estimated), the
//! heaviest keys (exact while the key table is; beyond its limit, the sampled keys merged with
//! a space-saving sketch of the others), a Zipf fit, monotonicity, time span and rate, key and
//! value sizes, and scans.
//!
//! Keys are counted over every event; a scan counts its start key. Percentiles come from HDR
//! histograms (3 significant digits); minimum, maximum and mean are exact.
//!
//! ```
//! use workloads::inspect::{InspectConfig, Profiler};
//! use workloads::{collect, KeyType, WorkloadSpec};
//! let events = collect(WorkloadSpec::parse("sequential").unwrap().open(1, 1000).unwrap().as_mut()).unwrap();
//! let mut profiler = Profiler::new(&InspectConfig::default());
//! profiler.add_chunk(&events);
//! let profile = profiler.finish(None);
//! assert_eq!(profile.events, 1000);
//! assert_eq!(profile.monotonicity, Some(1.0));
//! ```

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::key::decode_u64;
use crate::stats::{zipf_fit, Estimate, HeavyHitter, KeyTable, ZipfFit, DEFAULT_DISTINCT_LIMIT};
use crate::{Event, EventChunk, KeyType, Op};

/// How a trace is profiled.
#[derive(Clone, Copy, Debug)]
pub struct InspectConfig {
    /// Distinct keys counted exactly before sampling.
    pub distinct_limit: usize,
    /// Keys listed in the top-keys table.
    pub top: usize,
    /// The key type of the events: scan lengths are measured for integer keys only (`U64`,
    /// the default, as synthetic workloads have).
    pub key_type: KeyType,
}

impl Default for InspectConfig {
    fn default() -> Self {
        InspectConfig {
            distinct_limit: DEFAULT_DISTINCT_LIMIT,
            top: 10,
            key_type: KeyType::U64,
        }
    }
}

/// Accumulates the profile of a stream of events.
pub struct Profiler {
    cfg: InspectConfig,
    events: u64,
    ops: [u64; 4],
    range_writes: u64,
    keys: KeyTable,
    time: Option<Extremes>,
    timed: u64,
    time_decreases: u64,
    last_time: Option<u64>,
    key_sizes: Sizes,
    value_sizes: Sizes,
    scan_lens: Sizes,
    max_key: Vec<u8>,
    prev_key: Vec<u8>,
    new_max: u64,
    increases: u64,
    /// Every byte key so far is an integer written in decimal (see [`is_decimal_u64`]).
    decimal: bool,
}

/// Whether a byte key is a 64-bit integer written in decimal, as `--key-type u64` reads it
/// back to the same text: digits only, no leading zero (but `0`), at most u64::MAX.
pub fn is_decimal_u64(key: &[u8]) -> bool {
    let canonical = !key.is_empty() && (key[0] != b'0' || key.len() == 1);
    canonical
        && key.len() <= 20
        && key.iter().all(u8::is_ascii_digit)
        && std::str::from_utf8(key).is_ok_and(|k| k.parse::<u64>().is_ok())
}

#[derive(Clone, Copy, Debug)]
struct Extremes {
    first: u64,
    last: u64,
    min: u64,
    max: u64,
}

/// A size distribution: exact count, min, max and sum, and a histogram for percentiles.
struct Sizes {
    count: u64,
    min: u64,
    max: u64,
    sum: u128,
    hist: Histogram<u64>,
}

impl Sizes {
    fn new() -> Self {
        // 3 significant digits, auto-resizing: a few KiB whatever the values.
        let hist = Histogram::new(3)
            .unwrap_or_else(|_| Histogram::new_with_bounds(1, 2, 1).expect("valid bounds"));
        Sizes {
            count: 0,
            min: u64::MAX,
            max: 0,
            sum: 0,
            hist,
        }
    }

    fn record(&mut self, v: u64) {
        self.record_n(v, 1);
    }

    /// Records `n` values `v` at once (nothing when `n` is 0).
    fn record_n(&mut self, v: u64, n: u64) {
        if n == 0 {
            return;
        }
        self.count += n;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.sum += u128::from(v) * u128::from(n);
        // Auto-resizing takes any value a u64 holds but 2^63 and above; clamp those.
        if self.hist.record_n(v, n).is_err() {
            self.hist.saturating_record_n(v, n);
        }
    }

    /// The quantile as the lowest value of its histogram bucket (so 4096 reads 4096, not the
    /// bucket's top), within the exact extremes.
    fn quantile(&self, q: f64) -> u64 {
        self.hist
            .lowest_equivalent(self.hist.value_at_quantile(q))
            .clamp(self.min, self.max)
    }

    fn summary(&self) -> Option<SizeStats> {
        (self.count > 0).then(|| SizeStats {
            count: self.count,
            min: self.min,
            mean: self.sum as f64 / self.count as f64,
            p50: self.quantile(0.5),
            p99: self.quantile(0.99),
            max: self.max,
        })
    }
}

/// A distribution of sizes or lengths.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SizeStats {
    /// Values recorded.
    pub count: u64,
    /// Smallest (exact).
    pub min: u64,
    /// Mean (exact).
    pub mean: f64,
    /// Median (3 significant digits).
    pub p50: u64,
    /// 99th percentile (3 significant digits).
    pub p99: u64,
    /// Largest (exact).
    pub max: u64,
}

/// The time covered by a trace.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TimeSpan {
    /// Events with a timestamp.
    pub events: u64,
    /// First timestamp.
    pub first: u64,
    /// Last timestamp.
    pub last: u64,
    /// Smallest timestamp (below `first` when timestamps go backwards).
    pub min: u64,
    /// Largest timestamp (above `last` when timestamps go backwards).
    pub max: u64,
    /// max - min, in the trace's unit.
    pub span: u64,
    /// Consecutive timestamps that go backwards.
    pub decreases: u64,
    /// The unit in nanoseconds, when the format defines it.
    pub unit_ns: Option<u64>,
}

impl TimeSpan {
    /// The span in seconds, when the unit is known.
    pub fn seconds(&self) -> Option<f64> {
        self.unit_ns.map(|ns| self.span as f64 * ns as f64 / 1e9)
    }
}

/// One of the heaviest keys.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TopKey {
    /// Rank, from 1.
    pub rank: usize,
    /// The key.
    pub key: Vec<u8>,
    /// Its count (an upper bound; exact when `error` is 0).
    pub count: u64,
    /// How much `count` may overstate.
    pub error: u64,
    /// count / events.
    pub share: f64,
}

/// The profile of a trace.
#[derive(Clone, Debug, Serialize)]
pub struct TraceProfile {
    /// Events read.
    pub events: u64,
    /// Events per operation, in [`Op::ALL`] order.
    pub ops: [u64; 4],
    /// Puts and deletes of a key range (counted in `ops` too).
    pub range_writes: u64,
    /// Distinct keys (a scan counts its start key).
    pub distinct_keys: Estimate,
    /// The heaviest keys, heaviest first.
    pub top_keys: Vec<TopKey>,
    /// The share of all events on the 10 heaviest keys, however many are listed.
    pub top10_share: Option<f64>,
    /// The Zipf fit of key popularity, when enough keys repeat.
    pub zipf: Option<ZipfFit>,
    /// Share of events (after the first) whose key is greater than every key before it.
    pub monotonicity: Option<f64>,
    /// Share of consecutive pairs of events whose key increases.
    pub increases: Option<f64>,
    /// Timestamps, when the events carry them.
    pub time: Option<TimeSpan>,
    /// Key sizes in bytes.
    pub key_size: Option<SizeStats>,
    /// Value sizes in bytes (events that carry one).
    pub value_size: Option<SizeStats>,
    /// Scan lengths in keys (scans over 8-byte integer keys: end - start).
    pub scan_len: Option<SizeStats>,
    /// Keys read as bytes that are all integers written in decimal: `--key-type u64` would
    /// order them as numbers (see [`TraceProfile::key_type_hint`]).
    pub decimal_keys: bool,
}

impl Profiler {
    /// An empty profile.
    pub fn new(cfg: &InspectConfig) -> Self {
        Profiler {
            cfg: *cfg,
            events: 0,
            ops: [0; 4],
            range_writes: 0,
            keys: KeyTable::with_limit(cfg.distinct_limit),
            time: None,
            timed: 0,
            time_decreases: 0,
            last_time: None,
            key_sizes: Sizes::new(),
            value_sizes: Sizes::new(),
            scan_lens: Sizes::new(),
            max_key: Vec::new(),
            prev_key: Vec::new(),
            new_max: 0,
            increases: 0,
            decimal: cfg.key_type == KeyType::Bytes,
        }
    }

    /// Adds every event of a chunk.
    pub fn add_chunk(&mut self, chunk: &EventChunk) {
        self.add_events(chunk, 0..chunk.len());
    }

    /// Adds the events of a chunk at positions `events`: the keys counted together
    /// ([`KeyTable::add_each`], much faster than one by one on a large table).
    pub fn add_events(&mut self, chunk: &EventChunk, events: std::ops::Range<usize>) {
        self.keys.add_each(events.clone().map(|i| chunk.get(i).key));
        // Checked until the first key that is not (then never again).
        self.decimal = self.decimal && events.clone().all(|i| is_decimal_u64(chunk.get(i).key));
        // Key lengths by runs of one length (one histogram update per run), and the previous
        // key read in place: per event, no more work than each statistic needs.
        let (mut length, mut run) = (0, 0);
        let mut prev = None;
        for i in events {
            let e = chunk.get(i);
            if e.key.len() as u64 != length {
                self.key_sizes.record_n(length, run);
                (length, run) = (e.key.len() as u64, 0);
            }
            run += 1;
            self.add_except_key(&e, prev);
            prev = Some(e.key);
        }
        self.key_sizes.record_n(length, run);
        if let Some(last) = prev {
            self.prev_key.clear();
            self.prev_key.extend_from_slice(last);
        }
    }

    /// Adds one event to every statistic but the key table and the key sizes; `prev` is the
    /// previous event's key when it is not the one kept from the last call.
    fn add_except_key(&mut self, e: &Event<'_>, prev: Option<&[u8]>) {
        self.ops[Op::ALL.iter().position(|op| *op == e.op).unwrap_or(0)] += 1;
        self.range_writes += u64::from(e.is_range_write());
        if let Some(size) = e.size {
            self.value_sizes.record(size.into());
        }
        if let (Op::Scan, KeyType::U64, Some(start), Some(end)) = (
            e.op,
            self.cfg.key_type,
            decode_u64(e.key),
            e.end.and_then(decode_u64),
        ) {
            self.scan_lens.record(end.saturating_sub(start));
        }
        if let Some(t) = e.timestamp {
            self.timed += 1;
            self.time = Some(match self.time {
                None => Extremes {
                    first: t,
                    last: t,
                    min: t,
                    max: t,
                },
                Some(x) => Extremes {
                    first: x.first,
                    last: t,
                    min: x.min.min(t),
                    max: x.max.max(t),
                },
            });
            if self.last_time.is_some_and(|last| t < last) {
                self.time_decreases += 1;
            }
            self.last_time = Some(t);
        }
        if self.events > 0 {
            if greater(e.key, prev.unwrap_or(&self.prev_key)) {
                self.increases += 1;
            }
            if greater(e.key, &self.max_key) {
                self.new_max += 1;
            }
        }
        if self.events == 0 || greater(e.key, &self.max_key) {
            self.max_key.clear();
            self.max_key.extend_from_slice(e.key);
        }
        self.events += 1;
    }

    /// The profile; `time_unit_ns` is the unit of the timestamps when the format defines it.
    pub fn finish(self, time_unit_ns: Option<u64>) -> TraceProfile {
        let events = self.events;
        let share = |count: u64| count as f64 / events.max(1) as f64;
        // At least the 10 heaviest keys, for `top10_share` whatever `top` lists.
        let mut heaviest = self.keys.top(self.cfg.top.max(10));
        let top10_share = (!heaviest.is_empty())
            .then(|| share(heaviest.iter().take(10).map(|h| h.count).sum::<u64>()));
        heaviest.truncate(self.cfg.top);
        let top_keys = heaviest
            .into_iter()
            .enumerate()
            .map(|(i, HeavyHitter { key, count, error })| TopKey {
                rank: i + 1,
                key,
                count,
                error,
                share: share(count),
            })
            .collect();
        // Popularity ranks for the Zipf fit: every count while exact; once sampling, the keys
        // above the rank floor, where the list of top keys is complete.
        let counts: Vec<u64> = if self.keys.is_exact() {
            let mut counts: Vec<u64> = self
                .keys
                .iter()
                .map(|(_, n)| n)
                .filter(|&n| n >= zipf_fit::MIN_COUNT)
                .collect();
            counts.sort_unstable_by(|a, b| b.cmp(a));
            counts
        } else {
            // Guaranteed counts (count - error) above the floor: every key above it is listed.
            let floor = self.keys.rank_floor();
            let mut counts: Vec<u64> = self
                .keys
                .top(zipf_fit::MAX_RANKS)
                .iter()
                .map(|h| h.count - h.error)
                .filter(|&c| c > floor)
                .collect();
            counts.sort_unstable_by(|a, b| b.cmp(a));
            counts
        };
        let pairs = events.saturating_sub(1);
        let pair_share = |n: u64| (pairs > 0).then(|| n as f64 / pairs as f64);
        TraceProfile {
            events,
            ops: self.ops,
            range_writes: self.range_writes,
            distinct_keys: self.keys.distinct(),
            top_keys,
            top10_share,
            zipf: zipf_fit::fit(&counts),
            monotonicity: pair_share(self.new_max),
            increases: pair_share(self.increases),
            time: self.time.map(|x| TimeSpan {
                events: self.timed,
                first: x.first,
                last: x.last,
                min: x.min,
                max: x.max,
                span: x.max - x.min,
                decreases: self.time_decreases,
                unit_ns: time_unit_ns,
            }),
            key_size: self.key_sizes.summary(),
            value_size: self.value_sizes.summary(),
            scan_len: self.scan_lens.summary(),
            decimal_keys: self.decimal && events > 0,
        }
    }
}

impl TraceProfile {
    /// What to do when every key read as bytes is a decimal integer.
    pub fn key_type_hint(&self) -> Option<String> {
        self.decimal_keys.then(|| {
            "every key is a decimal integer but is read as bytes, so range layouts order them as text ('10' before '9'); pass --key-type u64 to read them as numbers".to_string()
        })
    }

    /// Events of one operation.
    pub fn op_count(&self, op: Op) -> u64 {
        self.ops[Op::ALL.iter().position(|o| *o == op).unwrap_or(0)]
    }

    /// The rows of `inspect.csv`: (metric, value), values empty when undefined.
    pub fn rows(&self) -> Vec<(String, String)> {
        let mut rows: Vec<(String, String)> = Vec::new();
        let mut put = |name: &str, value: Option<String>| {
            rows.push((name.to_string(), value.unwrap_or_default()))
        };
        let num = |x: f64| Some(format_number(x));
        let int = |x: u64| Some(x.to_string());
        let events = self.events;
        put("events", int(events));
        let d = &self.distinct_keys;
        put("distinct_keys", num(d.value.round()));
        put(
            "distinct_keys_estimate",
            Some(u8::from(!d.is_exact()).to_string()),
        );
        put("distinct_keys_sample_rate", num(d.sample_rate));
        put("distinct_keys_ci_low", num(d.ci_low.floor()));
        put("distinct_keys_ci_high", num(d.ci_high.ceil()));
        for op in Op::ALL {
            put(&format!("{}s", op.name()), int(self.op_count(op)));
        }
        for op in Op::ALL {
            let share = (events > 0).then(|| self.op_count(op) as f64 / events as f64);
            put(&format!("{}_share", op.name()), share.and_then(num));
        }
        put("range_writes", int(self.range_writes));
        put(
            "hottest_key_share",
            self.top_keys.first().and_then(|t| num(t.share)),
        );
        put("top10_share", self.top10_share.and_then(num));
        put("zipf_s", self.zipf.and_then(|z| num(z.s)));
        put("zipf_ks", self.zipf.and_then(|z| num(z.ks)));
        put("zipf_ranks", self.zipf.map(|z| z.ranks.to_string()));
        put("monotonicity", self.monotonicity.and_then(num));
        put("monotonic_increases", self.increases.and_then(num));
        put(
            "decimal_keys",
            Some(u8::from(self.decimal_keys).to_string()),
        );
        let t = self.time.as_ref();
        put("time_first", t.map(|t| t.first.to_string()));
        put("time_last", t.map(|t| t.last.to_string()));
        put("time_span", t.map(|t| t.span.to_string()));
        put("time_decreases", t.map(|t| t.decreases.to_string()));
        put(
            "time_unit_ns",
            t.and_then(|t| t.unit_ns).map(|u| u.to_string()),
        );
        put("time_span_s", t.and_then(TimeSpan::seconds).and_then(num));
        put(
            "events_per_s",
            t.and_then(TimeSpan::seconds)
                .filter(|s| *s > 0.0)
                .and_then(|s| num(events as f64 / s)),
        );
        for (name, stats) in [
            ("key_size", &self.key_size),
            ("value_size", &self.value_size),
            ("scan_len", &self.scan_len),
        ] {
            if name != "key_size" {
                put(
                    &format!("{name}_count"),
                    stats.map(|s| s.count.to_string()).or(Some("0".into())),
                );
            }
            put(&format!("{name}_min"), stats.map(|s| s.min.to_string()));
            put(&format!("{name}_mean"), stats.and_then(|s| num(s.mean)));
            put(&format!("{name}_p50"), stats.map(|s| s.p50.to_string()));
            put(&format!("{name}_p99"), stats.map(|s| s.p99.to_string()));
            put(&format!("{name}_max"), stats.map(|s| s.max.to_string()));
        }
        rows
    }

    /// The rows of `top_keys.csv`: rank, key (shown for people), count, error, share.
    pub fn top_key_rows(&self, key_type: KeyType) -> Vec<[String; 5]> {
        self.top_keys
            .iter()
            .map(|t| {
                [
                    t.rank.to_string(),
                    key_type.display(&t.key),
                    t.count.to_string(),
                    t.error.to_string(),
                    format_number(t.share),
                ]
            })
            .collect()
    }
}

impl TraceProfile {
    /// `inspect.csv`: the header `metric,value`, then `extra` (e.g. the trace and its format)
    /// and [`TraceProfile::rows`].
    pub fn inspect_csv(&self, extra: &[(&str, String)]) -> Vec<u8> {
        let mut w = csv::Writer::from_writer(Vec::new());
        let rows = extra
            .iter()
            .map(|(m, v)| (m.to_string(), v.clone()))
            .chain(self.rows());
        for (metric, value) in
            std::iter::once(("metric".to_string(), "value".to_string())).chain(rows)
        {
            // Writing to memory cannot fail.
            let _ = w.write_record([metric, value]);
        }
        w.into_inner().unwrap_or_default()
    }

    /// `top_keys.csv`: `rank,key,count,error,share`, keys shown with `key_type`.
    pub fn top_keys_csv(&self, key_type: KeyType) -> Vec<u8> {
        let mut w = csv::Writer::from_writer(Vec::new());
        let _ = w.write_record(["rank", "key", "count", "error", "share"]);
        for row in self.top_key_rows(key_type) {
            let _ = w.write_record(row);
        }
        w.into_inner().unwrap_or_default()
    }
}

/// `a > b` in byte order; 8-byte keys (every integer key) compare as integers, without a
/// call to `memcmp`.
#[inline]
fn greater(a: &[u8], b: &[u8]) -> bool {
    match (<[u8; 8]>::try_from(a), <[u8; 8]>::try_from(b)) {
        (Ok(x), Ok(y)) => u64::from_be_bytes(x) > u64::from_be_bytes(y),
        _ => a > b,
    }
}

/// A number in its shortest round-trip form; whole numbers without a fraction.
pub fn format_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{collect, WorkloadSpec};

    #[test]
    fn decimal_keys_are_canonical_u64_text() {
        for key in ["0", "7", "123", "18446744073709551615"] {
            assert!(is_decimal_u64(key.as_bytes()), "{key}");
        }
        for key in ["", "007", "12a", "-1", "1 ", "18446744073709551616", "１"] {
            assert!(!is_decimal_u64(key.as_bytes()), "{key}");
        }
    }

    fn profile(spec: &str, events: u64, limit: usize) -> TraceProfile {
        let chunk = collect(
            WorkloadSpec::parse(spec)
                .unwrap()
                .open(5, events)
                .unwrap()
                .as_mut(),
        )
        .unwrap();
        let mut p = Profiler::new(&InspectConfig {
            distinct_limit: limit,
            top: 10,
            ..InspectConfig::default()
        });
        p.add_chunk(&chunk);
        p.finish(Some(1000))
    }

    #[test]
    fn exact_and_sampled_profiles_agree_on_what_matters() {
        let exact = profile(
            "zipf:keys=100000,s=1.0,scans=0.1,writes=0.2",
            200_000,
            10_000_000,
        );
        let sampled = profile(
            "zipf:keys=100000,s=1.0,scans=0.1,writes=0.2",
            200_000,
            3_000,
        );
        assert!(exact.distinct_keys.is_exact() && !sampled.distinct_keys.is_exact());
        let d = sampled.distinct_keys;
        assert!(
            d.ci_low <= exact.distinct_keys.value && exact.distinct_keys.value <= d.ci_high,
            "{d:?}"
        );
        assert_eq!(exact.top_keys[0].key, sampled.top_keys[0].key);
        let (a, b) = (exact.zipf.unwrap().s, sampled.zipf.unwrap().s);
        assert!((a - 1.0).abs() < 0.1 && (b - 1.0).abs() < 0.1, "{a} {b}");
        assert_eq!(exact.ops, sampled.ops);
        assert_eq!(exact.scan_len, sampled.scan_len);
        assert_eq!(exact.monotonicity, sampled.monotonicity);
    }

    #[test]
    fn key_sizes_and_order_are_the_same_added_in_pieces_or_whole() {
        let names: [&[u8]; 7] = [b"b", b"aa", b"ccc", b"ccc", b"ccd", b"a", b"zz"];
        let mut chunk = EventChunk::with_capacity(names.len());
        for key in names {
            chunk.push(Event {
                op: Op::Get,
                key,
                end: None,
                timestamp: None,
                size: None,
            });
        }
        let cfg = InspectConfig::default();
        let mut whole = Profiler::new(&cfg);
        whole.add_chunk(&chunk);
        let mut pieces = Profiler::new(&cfg);
        for range in [0..0, 0..2, 2..3, 3..6, 6..7] {
            pieces.add_events(&chunk, range);
        }
        let (whole, pieces) = (whole.finish(None), pieces.finish(None));
        let k = whole.key_size.unwrap();
        assert_eq!((k.count, k.min, k.max, k.p50), (7, 1, 3, 2));
        assert!((k.mean - 15.0 / 7.0).abs() < 1e-12, "{k:?}");
        // The key increases in 3 of the 6 consecutive pairs: aa -> ccc, ccc -> ccd, a -> zz.
        assert_eq!(whole.increases, Some(3.0 / 6.0));
        assert_eq!(format!("{whole:?}"), format!("{pieces:?}"));
    }

    #[test]
    fn the_profile_counts_ops_times_sizes_and_scans() {
        let p = profile(
            "uniform:keys=1000,scans=0.25,scan_len=7,rate=1000,value_size=33",
            10_000,
            100,
        );
        assert_eq!(p.events, 10_000);
        let scans = p.op_count(Op::Scan);
        assert!((2_300..2_700).contains(&scans), "{scans}");
        let len = p.scan_len.unwrap();
        assert_eq!((len.min, len.max, len.count), (7, 7, scans));
        let v = p.value_size.unwrap();
        assert_eq!((v.min, v.p50, v.max, v.count), (33, 33, 33, 10_000));
        let t = p.time.unwrap();
        // rate=1000: event i at i ms, in microseconds; the unit given is 1 us = 1000 ns.
        assert_eq!(
            (t.first, t.last, t.span, t.decreases),
            (0, 9_999_000, 9_999_000, 0)
        );
        assert!((t.seconds().unwrap() - 9.999).abs() < 1e-9);
        let rows = p.rows();
        let row = |m: &str| {
            rows.iter()
                .find(|(k, _)| k == m)
                .map(|(_, v)| v.clone())
                .unwrap()
        };
        assert_eq!(row("events"), "10000");
        assert_eq!(row("scan_len_max"), "7");
        assert_eq!(row("time_span_s"), "9.999");
        assert_eq!(row("distinct_keys_estimate"), "1");
    }

    /// An event given as its op, key and scan end.
    type Plain<'a> = (Op, &'a [u8], Option<&'a [u8]>);

    /// The profile of `events` with `cfg`.
    fn profile_of(events: &[Plain<'_>], cfg: InspectConfig) -> TraceProfile {
        let mut chunk = EventChunk::with_capacity(events.len());
        for &(op, key, end) in events {
            chunk.push(Event {
                op,
                key,
                end,
                timestamp: None,
                size: None,
            });
        }
        let mut p = Profiler::new(&cfg);
        p.add_chunk(&chunk);
        p.finish(None)
    }

    #[test]
    fn top10_share_is_that_of_the_ten_heaviest_keys_however_many_are_listed() {
        // 13 keys in turn over 200 events: k0..k4 16 times, k5..k12 15 times; the ten
        // heaviest hold 5 x 16 + 5 x 15 = 155 events. With `top` 3 it read 48 / 200.
        let names: Vec<String> = (0..200).map(|i| format!("k{:02}", i % 13)).collect();
        let events: Vec<Plain<'_>> = names
            .iter()
            .map(|k| (Op::Get, k.as_bytes(), None))
            .collect();
        for top in [1, 3, 10, 20] {
            let cfg = InspectConfig {
                top,
                ..InspectConfig::default()
            };
            let p = profile_of(&events, cfg);
            assert_eq!(p.top_keys.len(), top.min(13));
            assert_eq!(p.top10_share, Some(155.0 / 200.0), "top {top}");
            assert_eq!(p.top_keys[0].share, 16.0 / 200.0);
        }
    }

    #[test]
    fn scan_lengths_are_measured_over_integer_keys_only() {
        // Byte keys of 8 bytes read as integers made "aaaaaaaa".."aaaaaaab" a scan of 1 key
        // and "cccccccc".."ccccccdd" one of 257, beside the 2-byte scan left out.
        let scans: [Plain<'_>; 3] = [
            (Op::Scan, b"aaaaaaaa", Some(b"aaaaaaab")),
            (Op::Scan, b"bb", Some(b"bc")),
            (Op::Scan, b"cccccccc", Some(b"ccccccdd")),
        ];
        let bytes = InspectConfig {
            key_type: KeyType::Bytes,
            ..InspectConfig::default()
        };
        let p = profile_of(&scans, bytes);
        assert_eq!((p.op_count(Op::Scan), p.scan_len), (3, None));
        let (a, b, c, d) = (
            1u64.to_be_bytes(),
            5u64.to_be_bytes(),
            3u64.to_be_bytes(),
            4u64.to_be_bytes(),
        );
        let integer: [Plain<'_>; 2] = [(Op::Scan, &a, Some(&b)), (Op::Scan, &c, Some(&d))];
        let len = profile_of(&integer, InspectConfig::default())
            .scan_len
            .unwrap();
        assert_eq!((len.count, len.min, len.max, len.mean), (2, 1, 4, 2.5));
    }
}
