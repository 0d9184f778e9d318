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

use crate::key_counts::DEFAULT_DISTINCT_LIMIT;
use crate::schemes::{BuildContext, SchemeSpec};
use crate::warmup::WarmupKeys;
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId};

/// What to route to.
#[derive(Clone, Copy, Debug)]
pub struct RouteConfig {
    /// Shard count `N`.
    pub shards: u32,
    /// Shard count `M` after growth (or shrink), for the `shard_after` column.
    pub grow: Option<u32>,
    /// How key text is read.
    pub key_type: KeyType,
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
pub struct Router {
    schemes: Vec<Routed>,
}

/// One key's placement under one scheme.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement<'a> {
    /// The scheme's label.
    pub scheme: &'a str,
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

    /// Builds every scheme for `cfg.shards` shards and, with `--grow`, its grown layout;
    /// `seen` are the routed keys (see [`Router::needs_keys`]; empty when not needed).
    pub fn build(
        schemes: &[SchemeSpec],
        cfg: &RouteConfig,
        seen: SeenKeys,
    ) -> Result<Router, AnalysisError> {
        if let Some(dynamic) = schemes.iter().find(|s| s.is_dynamic()) {
            return Err(AnalysisError::Config(format!(
                "scheme '{}' changes its layout while a trace replays, so a key has no single \
                 owner to print; route it with `shardlab run`",
                dynamic.label()
            )));
        }
        let warmup = seen.warmup.into_sorted();
        let ctx = BuildContext {
            shards: cfg.shards,
            warmup_keys: &warmup,
            key_type: cfg.key_type,
            weights: None,
        };
        let schemes = schemes
            .iter()
            .map(|spec| {
                let now = spec.build(&ctx)?;
                let after = cfg.grow.map(|m| now.resized(m, &seen.counts)).transpose()?;
                Ok(Routed { now, after })
            })
            .collect::<Result<_, AnalysisError>>()?;
        Ok(Router { schemes })
    }

    /// True when placements carry `shard_after`.
    pub fn grows(&self) -> bool {
        self.schemes.iter().any(|s| s.after.is_some())
    }

    /// Appends the placement of `key` under every scheme, in the order given.
    pub fn place<'a>(&'a self, key: &[u8], out: &mut Vec<Placement<'a>>) {
        out.extend(self.schemes.iter().map(|s| Placement {
            scheme: s.now.label(),
            shard: s.now.shard_of(key),
            detail: s.now.detail(key),
            shard_after: s.after.as_ref().map(|a| a.shard_of(key)),
        }));
    }
}

/// Keys read one per line from a file or standard input, as `key_type` reads them. A `\r`
/// before the newline and a missing final newline are accepted; an empty line is an error.
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
    pub fn next_key(&mut self) -> Result<Option<(&[u8], &[u8])>, AnalysisError> {
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
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        self.key.clear();
        let parsed = if text.is_empty() {
            Err("empty line; expected one key per line".to_string())
        } else {
            self.key_type.parse_into(text, &mut self.key)
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

    fn router(schemes: &str, grow: Option<u32>, keys: &[&[u8]]) -> Router {
        let specs = SchemeSpec::parse_list(schemes).unwrap();
        let cfg = RouteConfig {
            shards: 4,
            grow,
            key_type: KeyType::Bytes,
        };
        let mut seen = SeenKeys::new();
        keys.iter().for_each(|k| seen.add(k));
        Router::build(&specs, &cfg, seen).unwrap()
    }

    #[test]
    fn placements_follow_each_scheme_and_its_growth_rule() {
        let r = router("hash,ring:vnodes=8", Some(5), &[]);
        let mut out = Vec::new();
        r.place(b"user42", &mut out);
        let h = 0x9fdc_8e44_c5b9_267c_u64; // hash64(b"user42")
        assert_eq!(out[0].scheme, "hash");
        assert_eq!(out[0].shard, (h % 4) as ShardId);
        assert_eq!(out[0].shard_after, Some((h % 5) as ShardId));
        assert_eq!(out[1].scheme, "ring:vnodes=8");
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
        let r = router("range:ranges_per_shard=1", Some(8), &refs);
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
    fn dynamic_schemes_are_refused_with_the_reason() {
        let specs = SchemeSpec::parse_list("range-dynamic").unwrap();
        let cfg = RouteConfig {
            shards: 4,
            grow: None,
            key_type: KeyType::Bytes,
        };
        let err = Router::build(&specs, &cfg, SeenKeys::new()).err().unwrap();
        assert!(err.to_string().contains("shardlab run"), "{err}");
    }
}
