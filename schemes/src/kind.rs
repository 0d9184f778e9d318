//! What a scheme family registers ([`SchemeKind`]) and what it is built from
//! ([`BuildContext`]): the types every scheme file uses, apart from the registry that lists
//! the schemes, so that no scheme imports the module that imports it.

use crate::changing::Changing;
use crate::{AnalysisError, Partitioner};
use workloads::{KeyType, Spec};

/// What a scheme may use when it is built.
#[derive(Clone, Copy, Debug)]
pub struct BuildContext<'a> {
    /// Number of shards `N`.
    pub shards: u32,
    /// Distinct keys of the warm-up prefix, sorted (empty when there is no warm-up).
    pub warmup_keys: &'a [Vec<u8>],
    /// How key text in files (boundaries) is read.
    pub key_type: KeyType,
    /// Relative shard weights (`--weights`), one per shard; `None` when all are equal.
    /// Schemes that cannot honour weights refuse them ([`super::weights::refuse`]).
    pub weights: Option<&'a [f64]>,
}

/// A registered scheme family: its name, what it is, its parameters and its constructor.
pub struct SchemeKind {
    /// The name used in `--schemes` (e.g. `ring`).
    pub name: &'static str,
    /// One line for `--help` and error messages.
    pub about: &'static str,
    /// The real system, with the versions, whose placement rule this spec of the scheme
    /// reproduces (`Redis 7.0 cluster slots`); reports label the scheme with it. `None` for
    /// the abstract schemes.
    pub system: fn(&Spec) -> Option<&'static str>,
    /// Parameter names with a short description each.
    pub params: &'static [(&'static str, &'static str)],
    /// True when this spec learns from a warm-up prefix of the events.
    pub needs_warmup: fn(&Spec) -> bool,
    /// The points the layout of a spec holds on a shard count (ring points, tokens, table
    /// slots, buckets), counted from the spec alone so that [`MAX_SCHEME_POINTS`] is checked
    /// before anything is built. A parameter that does not parse counts as its default (the
    /// build then refuses it).
    pub points: PointsFn,
    /// Builds the partitioner; errors name the spec and the bad value.
    pub build: BuildFn,
    /// For a scheme whose layout changes while the events replay (ranges that split, merge
    /// and move): how the replay starts it, to feed it the whole stream in order, instead of
    /// building it. `None` for fixed layouts.
    pub changing: Option<Changing>,
}

/// The most points a scheme's layout may hold on any shard count: ring points (vnodes x
/// shards), tokens (num_tokens x nodes), buckets (anchor's capacity), table slots (maglev's
/// table), ranges (ranges_per_shard x shards). Each point costs memory and time to build
/// (16 bytes and more for a ring point), so a spec past it is refused before building.
/// 4,194,304 is the default ring (256 vnodes) on 16,384 shards.
pub const MAX_SCHEME_POINTS: u64 = 4_194_304;

/// How many points a layout holds, how they are counted and how to hold fewer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Points {
    /// The number of points.
    pub count: u64,
    /// How they are counted, e.g. `vnodes x shards`.
    pub rule: &'static str,
    /// What to lower to hold fewer, e.g. `fewer vnodes or fewer shards`.
    pub fix: &'static str,
}

impl Points {
    /// A layout without a table (hashing or arithmetic only): no points.
    pub const NONE: Points = Points {
        count: 0,
        rule: "none",
        fix: "",
    };

    /// `count` points counted by `rule`; `fix` says what to lower.
    pub const fn new(count: u64, rule: &'static str, fix: &'static str) -> Points {
        Points { count, rule, fix }
    }

    /// One entry per shard (a node list).
    pub const fn per_shard(shards: u32) -> Points {
        Points::new(shards as u64, "one per shard", "fewer shards")
    }

    /// `per` points for each of `shards` shards.
    pub const fn times_shards(
        per: u64,
        shards: u32,
        rule: &'static str,
        fix: &'static str,
    ) -> Points {
        Points::new(per.saturating_mul(shards as u64), rule, fix)
    }

    /// Ring points: the spec's `vnodes` (else `default`) for each of `shards` shards.
    pub fn vnodes(spec: &Spec, shards: u32, default: u64) -> Points {
        let vnodes = crate::count_param(spec, "vnodes", default);
        Points::times_shards(
            vnodes,
            shards,
            "vnodes x shards",
            "fewer vnodes or fewer shards",
        )
    }

    /// A ketama continuum: 160 points for each of `shards` servers.
    pub const fn continuum(shards: u32) -> Points {
        Points::times_shards(
            160,
            shards,
            "160 continuum points x servers",
            "fewer shards",
        )
    }

    /// The refusal of `spec` on `shards` shards when these points pass
    /// [`MAX_SCHEME_POINTS`]: a spec error (a usage error to the command line) naming the
    /// scheme, the points it would need, the limit and the fix.
    pub fn check(&self, spec: &Spec, shards: u32) -> Result<(), AnalysisError> {
        if self.count <= MAX_SCHEME_POINTS {
            return Ok(());
        }
        Err(spec
            .error(format!(
                "on {shards} shards it would hold {} points ({}), more than the {MAX_SCHEME_POINTS} \
                 a scheme may hold (each point costs memory and build time); give {}",
                self.count, self.rule, self.fix
            ))
            .into())
    }
}

/// A parameter that counts points, as `u64_at_least` reads it, or `default` when it does not
/// parse (the build refuses it then, with its own message).
pub(crate) fn count_param(spec: &Spec, key: &str, default: u64) -> u64 {
    spec.u64_at_least(key, default, 1).unwrap_or(default)
}

/// Counts the points of a spec on a shard count ([`SchemeKind::points`]).
pub type PointsFn = fn(&Spec, u32) -> Points;

/// The constructor of a scheme family: the spec and the build context to a partitioner.
pub type BuildFn = fn(&Spec, &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError>;

/// Fails with [`AnalysisError::Config`] when `shards` is 0. Every scheme constructor and every
/// `resized` calls it, so no partitioner with zero shards can exist.
pub(crate) fn check_shard_count(shards: u32) -> Result<(), AnalysisError> {
    crate::ShardCount::new(shards).map(drop)
}

/// The scan rule of hashed schemes: every shard, since hashing keeps no key order; an empty
/// scan (`end <= start`) contacts only the owner of `start`, as the trait asks.
pub(crate) fn scan_every_shard<P: crate::Partitioner + ?Sized>(
    part: &P,
    start: &[u8],
    end: &[u8],
    out: &mut crate::ShardSet,
) {
    if end <= start {
        out.insert(part.shard_of(start));
    } else {
        out.insert_all(part.shard_count());
    }
}

/// Bytes of the elements of `items` (for [`crate::Partitioner::router_bytes`]).
pub(crate) fn slice_bytes<T>(items: &[T]) -> u64 {
    std::mem::size_of_val(items) as u64
}

#[cfg(test)]
mod tests {
    use crate::SCHEMES;
    use crate::{AnalysisError, BuildContext, SchemeSpec, CHANGING_SCHEMES, MAX_SCHEME_POINTS};

    fn ctx(shards: u32) -> BuildContext<'static> {
        BuildContext {
            shards,
            warmup_keys: &[],
            key_type: Default::default(),
            weights: None,
        }
    }

    fn spec(text: &str) -> SchemeSpec {
        SchemeSpec::parse_list(text).unwrap().remove(0)
    }

    #[test]
    fn points_past_the_bound_are_a_spec_error_before_building() {
        for (text, shards, points) in [
            ("ring:vnodes=65536", 65_536, 1u64 << 32),
            ("ring", 65_536, 1 << 24),
            ("cassandra:num_tokens=65536", 1024, 1 << 26),
            ("anchor:capacity=67108864", 4, 1 << 26),
            ("bounded:vnodes=65536", 1024, 1 << 26),
            ("maglev:table=5000011", 4, 5_000_011),
            ("range:ranges_per_shard=1000000000000", 4, 4_000_000_000_000),
            ("salted:ranges_per_shard=1000000", 16, 16_000_016),
            ("ketama", 65_536, 160 << 16),
            ("kafka:brokers=4000000000", 4, 4_000_000_004),
        ] {
            let s = spec(text);
            assert_eq!(s.points(shards).count, points, "{text}");
            // Building would take gigabytes; the refusal comes first.
            match s.build(&ctx(shards)).map(drop) {
                Err(AnalysisError::Spec(e)) => {
                    assert!(e.message.contains(&points.to_string()), "{e}");
                    assert!(e.message.contains(&MAX_SCHEME_POINTS.to_string()), "{e}");
                    assert!(e.message.contains("give "), "{e}");
                }
                other => panic!("{text} on {shards} shards: {other:?}"),
            }
        }
    }

    #[test]
    fn every_scheme_counts_its_points_and_the_defaults_fit_on_sixteen_shards() {
        for kind in SCHEMES.iter().chain(CHANGING_SCHEMES) {
            let s = SchemeSpec::of_kind(kind, workloads::Spec::parse(kind.name).unwrap()).unwrap();
            assert!(s.points(16).count <= MAX_SCHEME_POINTS, "{}", kind.name);
        }
        assert_eq!(spec("ring").points(16_384).count, MAX_SCHEME_POINTS);
        assert!(spec("ring").check_points(16_384).is_ok());
        assert!(spec("ring").check_points(16_385).is_err());
        assert_eq!(spec("hash").points(65_536).count, 0);
        // A value that does not parse counts as the default; the build then refuses it.
        assert_eq!(spec("ring:vnodes=x").points(2).count, 512);
    }

    #[test]
    fn a_changing_layout_checks_its_points_too() {
        let s = spec("range-dynamic:presplit=5000000");
        assert!(matches!(s.validate(&ctx(4)), Err(AnalysisError::Spec(_))));
    }
}
