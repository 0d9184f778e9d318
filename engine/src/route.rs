//! `shardlab route`: where given keys live under each scheme, and where after growth.
//!
//! Keys come one per line ([`KeyLines`], streamed: one line in memory at a time). Schemes that
//! learn from data learn from the routed keys themselves, collected in a first pass
//! ([`SeenKeys`], bounded like the replay's tables): `range` takes its boundaries from the
//! distinct routed keys as it takes them from the warm-up in `run`, and the growth rule of
//! `--grow` weighs the routed keys as `run` weighs the measured ones (range moves the ranges
//! holding the fewest routed keys). Schemes that need no data are built without that pass.

use std::io::BufRead;
use std::path::PathBuf;

use workloads::{KeyType, WorkloadError};

use crate::warmup::WarmupKeys;
use schemes::key_counts::DEFAULT_DISTINCT_LIMIT;
use schemes::{AnalysisError, KeyCounts, Partitioner, ShardId};
use schemes::{BuildContext, SchemeSpec};

/// What to route to.
#[derive(Clone, Copy, Debug)]
pub struct RouteConfig<'a> {
    /// Shard count `N`.
    pub shards: u32,
    /// Shard count `M` after growth (or shrink), for the `shard_after` column.
    pub grow: Option<u32>,
    /// How key text is read.
    pub key_type: KeyType,
    /// Relative shard weights (`--weights`), one per shard.
    pub weights: Option<&'a [f64]>,
}

/// The routed keys, for schemes that learn from data and for growth rules that weigh it:
/// their distinct keys with counts (exact up to [`DEFAULT_DISTINCT_LIMIT`], then a sample, as
/// in the replay) and the sorted distinct keys a warm-up would give.
#[derive(Debug, Default)]
pub struct SeenKeys {
    counts: KeyCounts,
    warmup: WarmupKeys,
}

impl SeenKeys {
    /// No keys yet.
    pub fn new() -> Self {
        SeenKeys {
            counts: KeyCounts::with_limit(DEFAULT_DISTINCT_LIMIT),
            warmup: WarmupKeys::new(),
        }
    }

    /// Counts one routed key.
    pub fn add(&mut self, key: &[u8]) {
        self.counts.add(key, 1);
        self.warmup.add_each([key]);
    }
}

/// One scheme as `route` uses it: the layout now and, with `--grow`, after growth.
struct Routed {
    now: Box<dyn Partitioner>,
    after: Option<Box<dyn Partitioner>>,
}

/// The schemes to route through, built.
///
/// Schemes that learn the order in which keys arrive (`bounded`) learn the routed keys: as
/// they are placed, or, with `--grow`, in a pass before ([`Router::learn`], then
/// [`Router::finish_learning`]), since the grown layout places every learned key again.
pub struct Router {
    schemes: Vec<Routed>,
    counts: KeyCounts,
    grow: Option<u32>,
    /// True once every key was learned and the grown layouts are built.
    learned: bool,
}

/// One key's placement under one scheme.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The owner now.
    pub shard: ShardId,
    /// What the scheme computed on the way ([`Partitioner::detail`]).
    pub detail: Option<String>,
    /// The owner after the scheme's own growth rule (with `--grow`).
    pub shard_after: Option<ShardId>,
}

impl Router {
    /// True when building `schemes` needs the routed keys first: a scheme learns from data,
    /// or `--grow` asks for a growth rule (some rules weigh data).
    pub fn needs_keys(schemes: &[SchemeSpec], cfg: &RouteConfig) -> bool {
        cfg.grow.is_some() || schemes.iter().any(SchemeSpec::needs_warmup)
    }

    /// Checks what the command line alone decides, before any key is read: no scheme
    /// changes its layout as a trace replays (a key would have no single owner), and no
    /// scheme holds more than [`schemes::MAX_SCHEME_POINTS`] points on `cfg.shards` shards or
    /// on the `--grow` target. [`Router::build`] checks it too.
    pub fn check(schemes: &[SchemeSpec], cfg: &RouteConfig<'_>) -> Result<(), AnalysisError> {
        if let Some(dynamic) = schemes.iter().find(|s| s.is_changing()) {
            return Err(AnalysisError::Config(format!(
                "scheme '{}' changes its layout while a trace replays, so a key has no single \
                 owner to print; route it with `shardlab run`",
                dynamic.label()
            )));
        }
        for spec in schemes {
            spec.check_points(cfg.shards)?;
            if let Some(m) = cfg.grow {
                spec.check_points(m)?;
            }
        }
        Ok(())
    }

    /// Builds every scheme for `cfg.shards` shards; `seen` are the routed keys (see
    /// [`Router::needs_keys`]; empty when not needed).
    pub fn build(
        schemes: &[SchemeSpec],
        cfg: &RouteConfig<'_>,
        seen: SeenKeys,
    ) -> Result<Router, AnalysisError> {
        Router::check(schemes, cfg)?;
        let warmup = seen.warmup.into_sorted();
        let ctx = BuildContext {
            shards: cfg.shards,
            warmup_keys: &warmup,
            key_type: cfg.key_type,
            weights: cfg.weights,
        };
        let schemes = schemes
            .iter()
            .map(|spec| {
                Ok(Routed {
                    now: spec.build(&ctx)?,
                    after: None,
                })
            })
            .collect::<Result<_, AnalysisError>>()?;
        Ok(Router {
            schemes,
            counts: seen.counts,
            grow: cfg.grow,
            learned: false,
        })
    }

    /// The labels of the schemes, in the order given.
    pub fn labels(&self) -> Vec<String> {
        self.schemes
            .iter()
            .map(|s| s.now.label().to_string())
            .collect()
    }

    /// True when a scheme learns the order in which keys arrive.
    pub fn learns_arrival(&self) -> bool {
        self.schemes.iter().any(|s| s.now.learns_arrival())
    }

    /// Teaches one routed key, in order, to the schemes that learn the order of arrival.
    pub fn learn(&mut self, key: &[u8]) {
        for s in self.schemes.iter_mut().filter(|s| s.now.learns_arrival()) {
            s.now.learn_arrival(&[key]);
        }
    }

    /// Ends learning: builds the layouts after growth (with `--grow`). Placements then
    /// learn nothing more. A scheme that cannot reach the target
    /// ([`Partitioner::resize_refusal`], e.g. Elasticsearch to a count that is no `_split`)
    /// keeps `shard_after` empty, and its reason is returned (one line per scheme), as `run`
    /// leaves its remap empty; it is an error only when no scheme can reach the target.
    pub fn finish_learning(&mut self) -> Result<Vec<String>, AnalysisError> {
        let mut refusals = Vec::new();
        if let Some(m) = self.grow {
            for s in &mut self.schemes {
                match s.now.resize_refusal(m) {
                    Some(why) => refusals.push(naming_scheme(s.now.label(), why)),
                    None => {
                        s.after = Some(crate::metrics::remap::resized(
                            s.now.as_ref(),
                            m,
                            &self.counts,
                        )?)
                    }
                }
            }
        }
        self.learned = true;
        Ok(refusals)
    }

    /// True when placements carry `shard_after`.
    pub fn grows(&self) -> bool {
        self.grow.is_some()
    }

    /// Appends the placement of `key` under every scheme, in the order given. Before
    /// [`Router::finish_learning`], the key is first learned (a streaming route).
    pub fn place(&mut self, key: &[u8], out: &mut Vec<Placement>) {
        if !self.learned {
            self.learn(key);
        }
        out.extend(self.schemes.iter().map(|s| Placement {
            shard: s.now.shard_of(key),
            detail: s.now.detail(key),
            shard_after: s.after.as_ref().map(|a| a.shard_of(key)),
        }));
    }
}

/// `why` naming the scheme `label` once: as it is when it starts with `scheme '<label>'`
/// (most refusals do), else with that prefix.
fn naming_scheme(label: &str, why: String) -> String {
    if why.starts_with(&format!("scheme '{label}'")) {
        why
    } else {
        format!("scheme '{label}': {why}")
    }
}

/// A key's text as given and the key it denotes (8 big-endian bytes for `u64` keys).
pub type TextAndKey<'a> = (&'a [u8], &'a [u8]);

/// Keys read one per line from a file or standard input, as `key_type` reads them. A `\r`
/// before the newline, a UTF-8 byte order mark at the start and a missing final newline are
/// accepted; an empty line is an error.
pub struct KeyLines<R> {
    reader: R,
    shown: PathBuf,
    key_type: KeyType,
    line: u64,
    text: Vec<u8>,
    key: Vec<u8>,
}

impl<R: BufRead> KeyLines<R> {
    /// Keys from `reader`; errors name `shown` (the file, or `<stdin>`) and the line.
    pub fn new(reader: R, shown: impl Into<PathBuf>, key_type: KeyType) -> Self {
        KeyLines {
            reader,
            shown: shown.into(),
            key_type,
            line: 0,
            text: Vec::new(),
            key: Vec::new(),
        }
    }

    /// The next key: its text as given and the key it denotes, or `None` at the end.
    pub fn next_key(&mut self) -> Result<Option<TextAndKey<'_>>, AnalysisError> {
        self.text.clear();
        let read = self
            .reader
            .read_until(b'\n', &mut self.text)
            .map_err(|source| WorkloadError::Io {
                path: self.shown.clone(),
                source,
            })?;
        if read == 0 {
            return Ok(None);
        }
        self.line += 1;
        let text = self.text.strip_suffix(b"\n").unwrap_or(&self.text);
        let mut text = text.strip_suffix(b"\r").unwrap_or(text);
        if self.line == 1 {
            text = workloads::trace::input::without_bom(text);
        }
        self.key.clear();
        let parsed = if text.is_empty() {
            Err("empty line; expected one key per line".to_string())
        } else {
            self.key_type.parse_written(text, &mut self.key)
        };
        parsed.map_err(|message| WorkloadError::Invalid {
            path: self.shown.clone(),
            location: format!("line {}", self.line),
            message,
        })?;
        Ok(Some((text, &self.key)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four shards, byte keys, no weights.
    fn config(grow: Option<u32>) -> RouteConfig<'static> {
        RouteConfig {
            shards: 4,
            grow,
            key_type: KeyType::Bytes,
            weights: None,
        }
    }

    fn router(schemes: &str, grow: Option<u32>, keys: &[&[u8]]) -> Router {
        let specs = SchemeSpec::parse_list(schemes).unwrap();
        let cfg = config(grow);
        let mut seen = SeenKeys::new();
        keys.iter().for_each(|k| seen.add(k));
        let mut router = Router::build(&specs, &cfg, seen).unwrap();
        keys.iter().for_each(|k| router.learn(k));
        router.finish_learning().unwrap();
        router
    }

    #[test]
    fn placements_follow_each_scheme_and_its_growth_rule() {
        let mut r = router("hash,ring:vnodes=8", Some(5), &[]);
        let mut out = Vec::new();
        r.place(b"user42", &mut out);
        let h = 0x9fdc_8e44_c5b9_267c_u64; // hash64(b"user42")
        assert_eq!(r.labels(), ["hash", "ring:vnodes=8"]);
        assert_eq!(out[0].shard, (h % 4) as ShardId);
        assert_eq!(out[0].shard_after, Some((h % 5) as ShardId));
        assert!(out[1]
            .detail
            .as_deref()
            .unwrap()
            .contains("hash=0x9fdc8e44c5b9267c"));
        assert!(r.grows());
    }

    #[test]
    fn range_learns_from_the_routed_keys_and_grows_by_them() {
        let keys: Vec<Vec<u8>> = (0..400u32)
            .map(|i| format!("k{i:04}").into_bytes())
            .collect();
        let refs: Vec<&[u8]> = keys.iter().map(|k| k.as_slice()).collect();
        let mut r = router("range:ranges_per_shard=1", Some(8), &refs);
        let mut counts = [0u32; 4];
        let mut out = Vec::new();
        for k in &refs {
            out.clear();
            r.place(k, &mut out);
            counts[out[0].shard as usize] += 1;
        }
        // Quantiles of the routed keys: 100 keys per shard.
        assert_eq!(counts, [100; 4]);
    }

    #[test]
    fn key_lines_give_text_and_key_and_name_the_bad_line() {
        let input = &b"7\r\n12\nx\n"[..];
        let mut lines = KeyLines::new(input, "keys.txt", KeyType::U64);
        let (text, key) = lines.next_key().unwrap().unwrap();
        assert_eq!((text, key), (&b"7"[..], &7u64.to_be_bytes()[..]));
        assert_eq!(lines.next_key().unwrap().unwrap().0, b"12");
        let err = lines.next_key().unwrap_err().to_string();
        assert!(
            err.starts_with("keys.txt:line 3: 'x' is not a decimal"),
            "{err}"
        );
        let mut empty = KeyLines::new(&b"a\n\nb"[..], "k", KeyType::Bytes);
        empty.next_key().unwrap();
        assert!(empty
            .next_key()
            .unwrap_err()
            .to_string()
            .contains("line 2: empty line"));
    }

    #[test]
    fn integer_keys_may_be_padded_as_in_a_trace_and_byte_keys_are_taken_as_written() {
        let mut lines = KeyLines::new(&b" 5\n7 \r\n"[..], "keys.txt", KeyType::U64);
        assert_eq!(lines.next_key().unwrap().unwrap().1, 5u64.to_be_bytes());
        assert_eq!(lines.next_key().unwrap().unwrap().1, 7u64.to_be_bytes());
        let mut bytes = KeyLines::new(&b" 5\n"[..], "k", KeyType::Bytes);
        assert_eq!(bytes.next_key().unwrap().unwrap().1, b" 5");
    }

    #[test]
    fn key_lines_drop_a_byte_order_mark_at_the_start_only() {
        let mut lines = KeyLines::new(&b"\xef\xbb\xbf7\r\n8\n"[..], "keys.txt", KeyType::U64);
        let (text, key) = lines.next_key().unwrap().unwrap();
        assert_eq!((text, key), (&b"7"[..], &7u64.to_be_bytes()[..]));
        let mut bytes = KeyLines::new(&b"\xef\xbb\xbfa\n\xef\xbb\xbfa\n"[..], "k", KeyType::Bytes);
        assert_eq!(bytes.next_key().unwrap().unwrap().1, b"a");
        assert_eq!(bytes.next_key().unwrap().unwrap().1, b"\xef\xbb\xbfa");
    }

    #[test]
    fn bounded_learns_the_routed_keys_in_order_streaming_or_before_growth() {
        let keys: Vec<Vec<u8>> = (0..1000u32).map(|i| format!("k{i}").into_bytes()).collect();
        let refs: Vec<&[u8]> = keys.iter().map(|k| k.as_slice()).collect();
        let owners = |r: &mut Router| {
            let mut counts = [0u32; 4];
            let mut out = Vec::new();
            for k in &refs {
                out.clear();
                r.place(k, &mut out);
                counts[out[0].shard as usize] += 1;
            }
            counts
        };
        // Capacity ceil(1.0 x 1000 / 4) = 250: exactly even once every key is placed.
        let mut learned = router("bounded:c=1.0", Some(5), &refs);
        assert_eq!(owners(&mut learned), [250; 4]);
        let specs = SchemeSpec::parse_list("bounded:c=1.0").unwrap();
        let cfg = config(None);
        let mut streaming = Router::build(&specs, &cfg, SeenKeys::new()).unwrap();
        assert_eq!(owners(&mut streaming), [250; 4]);
    }

    #[test]
    fn dynamic_schemes_are_refused_with_the_reason() {
        let specs = SchemeSpec::parse_list("range-dynamic").unwrap();
        let cfg = config(None);
        let err = Router::build(&specs, &cfg, SeenKeys::new()).err().unwrap();
        assert!(err.to_string().contains("shardlab run"), "{err}");
    }
}
