//! Sweep lists: `--shards 4,8,16` and `--grow 17,20` or relative steps `+1,x2,-1`.

use anyhow::{bail, Context, Result};
use schemes::ShardCount;
use serde::Serialize;

/// The most shards a run measures, for `--shards` and every `--grow` target: each shard costs
/// a counter per window, scheme and worker, and the ring and salted tables grow with it.
pub const MAX_SHARDS: u32 = 65_536;

/// The shard counts of `--shards`, in the order given, without repeats.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShardCounts(pub Vec<ShardCount>);

/// The steps of `--grow`, in the order given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GrowSteps(pub Vec<GrowStep>);

/// One step of `--grow`: an absolute shard count or a change relative to N.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum GrowStep {
    /// Exactly this many shards.
    Absolute(u32),
    /// N plus this many.
    Plus(u32),
    /// N minus this many.
    Minus(u32),
    /// N times this factor.
    Times(u32),
}

impl GrowStep {
    /// The target shard count for `n` shards; errors when it would be 0 or overflow.
    pub fn target(self, n: ShardCount) -> Result<ShardCount> {
        let n = n.get();
        let m = match self {
            GrowStep::Absolute(m) => Some(m),
            GrowStep::Plus(k) => n.checked_add(k),
            GrowStep::Minus(k) => n.checked_sub(k),
            GrowStep::Times(k) => n.checked_mul(k),
        };
        match m {
            Some(m) if m > MAX_SHARDS => Err(crate::usage::usage(format!(
                "--grow {self} from {n} shards gives more than {MAX_SHARDS} shards, the most a run \
                 measures (each shard costs counters per window, scheme and thread)"
            ))),
            _ => m.and_then(|m| ShardCount::new(m).ok()).ok_or_else(|| {
                crate::usage::usage(format!(
                    "--grow {self} from {n} shards gives no valid shard count (it must be at least 1)"
                ))
            }),
        }
    }
}

/// Parses `--shards` (a clap value parser): comma-separated counts, each from 1 to
/// [`MAX_SHARDS`].
pub fn parse_shards(text: &str) -> Result<ShardCounts, String> {
    let mut out = Vec::new();
    for t in text.split(',') {
        let t = t.trim();
        let too_many = || {
            format!(
                "{t} shards is too many: a run measures at most {MAX_SHARDS} shards (each shard \
                 costs counters per window, scheme and thread)"
            )
        };
        if parse_count(t).is_some_and(|n| n > u64::from(MAX_SHARDS)) {
            return Err(too_many());
        }
        let n: ShardCount = t
            .parse()
            .map_err(|e| format!("{e} (e.g. --shards 16 or --shards 4,8,16)"))?;
        // A count written with a sign (`+65600`) passes the digits-only check above.
        if n.get() > MAX_SHARDS {
            return Err(too_many());
        }
        if !out.contains(&n) {
            out.push(n);
        }
    }
    Ok(ShardCounts(out))
}

/// Parses `--grow` (a clap value parser): comma-separated `M`, `+K`, `-K` or `xK`.
pub fn parse_grow(text: &str) -> Result<GrowSteps, String> {
    parse_steps(text)
        .map(GrowSteps)
        .map_err(|e| format!("{e:#}"))
}

fn parse_steps(text: &str) -> Result<Vec<GrowStep>> {
    text.split(',')
        .map(str::trim)
        .map(|t| {
            let (ctor, digits): (fn(u32) -> GrowStep, &str) = match t.chars().next() {
                Some('+') => (GrowStep::Plus, &t[1..]),
                Some('-') => (GrowStep::Minus, &t[1..]),
                Some('x') | Some('*') => (GrowStep::Times, &t[1..]),
                _ => (GrowStep::Absolute, t),
            };
            let k = parse_count(digits).filter(|&k| k > 0).with_context(|| {
                format!("'{t}' is not a shard count (M), a step (+K, -K) or a factor (xK), K >= 1")
            })?;
            if k > u64::from(MAX_SHARDS) {
                bail!(
                    "'{t}' is too large: shard counts, steps and factors are at most {MAX_SHARDS}"
                );
            }
            Ok(ctor(k as u32))
        })
        .collect()
}

/// A whole number of any size (so that a huge one is told apart from one that is not a
/// number); `u64::MAX` stands for anything larger.
fn parse_count(digits: &str) -> Option<u64> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(digits.parse().unwrap_or(u64::MAX))
}

impl std::fmt::Display for GrowStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GrowStep::Absolute(m) => write!(f, "{m}"),
            GrowStep::Plus(k) => write!(f, "+{k}"),
            GrowStep::Minus(k) => write!(f, "-{k}"),
            GrowStep::Times(k) => write!(f, "x{k}"),
        }
    }
}

/// The distinct target shard counts for `n` shards, in the order given; `+1` when no step is
/// given.
pub fn targets(n: ShardCount, steps: Option<&GrowSteps>) -> Result<Vec<ShardCount>> {
    let steps = steps.map_or(&[GrowStep::Plus(1)][..], |s| &s.0[..]);
    let mut out = Vec::new();
    for step in steps {
        let m = step.target(n)?;
        if !out.contains(&m) {
            out.push(m);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(n: u32, steps: Option<&GrowSteps>) -> Result<Vec<u32>> {
        let n = ShardCount::new(n).unwrap();
        Ok(targets(n, steps)?.into_iter().map(u32::from).collect())
    }

    #[test]
    fn grow_steps_are_relative_or_absolute() {
        let steps = parse_grow("17,+1,x2,-1").unwrap();
        assert_eq!(counts(16, Some(&steps)).unwrap(), [17, 32, 15]);
        assert_eq!(counts(4, Some(&steps)).unwrap(), [17, 5, 8, 3]);
        assert_eq!(counts(4, None).unwrap(), [5]);
        assert!(counts(1, Some(&parse_grow("-1").unwrap())).is_err());
        for bad in ["", "+", "x0", "abc", "0", "1.5"] {
            assert!(parse_grow(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn shard_lists_are_counts_of_at_least_one() {
        let parsed: Vec<u32> = parse_shards("4, 8,16,8")
            .unwrap()
            .0
            .into_iter()
            .map(u32::from)
            .collect();
        assert_eq!(parsed, [4, 8, 16]);
        assert!(parse_shards("0").is_err());
        assert!(parse_shards("4,x").unwrap_err().contains("'x'"));
        assert_eq!(parse_shards("65536").unwrap().0[0].get(), MAX_SHARDS);
        for huge in ["65537", "99999999999", "99999999999999999999999"] {
            let e = parse_shards(huge).unwrap_err();
            assert!(e.contains("too many") && e.contains("65536"), "{e}");
        }
    }

    #[test]
    fn a_signed_shard_count_above_the_limit_is_too_many() {
        let e = parse_shards("+65600").unwrap_err();
        assert!(e.contains("too many") && e.contains("65536"), "{e}");
        assert_eq!(parse_shards("+16").unwrap().0[0].get(), 16);
    }

    #[test]
    fn grow_targets_stay_within_the_shard_limit() {
        let e = parse_grow("x1000000").unwrap_err();
        assert!(e.contains("too large") && e.contains("65536"), "{e}");
        let steps = parse_grow("x8192").unwrap();
        assert_eq!(counts(8, Some(&steps)).unwrap(), [MAX_SHARDS]);
        let e = counts(16, Some(&steps)).unwrap_err().to_string();
        assert!(
            e.contains("--grow x8192 from 16 shards gives more than 65536"),
            "{e}"
        );
    }

    proptest::proptest! {
        /// Any text given to --shards and --grow, from any shard count, is parsed or refused
        /// with a message; every target is within 1..=MAX_SHARDS.
        #[test]
        fn any_shard_or_grow_text_is_parsed_or_refused(
            shards in "[0-9x+*, -]{0,24}|[0-9]{1,30}",
            grow in "[0-9x+*, -]{0,24}|[+x-]?[0-9]{1,30}",
            n in 1u32..=MAX_SHARDS,
        ) {
            if let Ok(parsed) = parse_shards(&shards) {
                proptest::prop_assert!(parsed.0.iter().all(|c| (1..=MAX_SHARDS).contains(&c.get())));
            }
            if let Ok(steps) = parse_grow(&grow) {
                if let Ok(targets) = counts(n, Some(&steps)) {
                    proptest::prop_assert!(targets.iter().all(|m| (1..=MAX_SHARDS).contains(m)));
                }
            }
        }
    }
}
