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
    /// Builds the partitioner; errors name the spec and the bad value.
    pub build: BuildFn,
    /// For a scheme whose layout changes while the events replay (ranges that split, merge
    /// and move): how the replay starts it, to feed it the whole stream in order, instead of
    /// building it. `None` for fixed layouts.
    pub changing: Option<Changing>,
}

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
