//! The partitioning schemes and their registry: the [`Partitioner`] trait, every scheme (one
//! file or folder each), the placement rules they share, the fast lookup layouts, key counts
//! and the figure types a scheme may report. This crate knows no metric and no replay: the
//! `engine` crate drives the schemes.
//!
//! ```
//! use schemes::{BuildContext, SchemeSpec};
//! let spec = &SchemeSpec::parse_list("hash").unwrap()[0];
//! let ctx = BuildContext { shards: 16, warmup_keys: &[], key_type: Default::default(), weights: None };
//! let hash = spec.build(&ctx).unwrap();
//! assert!(hash.shard_of(b"user42") < 16);
//! ```
//!
//! Adding a scheme: one new file implementing [`Partitioner`] with a `pub const KIND:
//! SchemeKind`, one line in [`SCHEMES`], its tests, a bench line and a row in docs/schemes.md. A scheme
//! with its own replica or removal rules may be a folder instead: `X/mod.rs` and the rules,
//! as methods of its type, in `X/placement.rs`. The types a scheme file uses live in `kind`
//! (re-exported here), so no scheme imports this registry.

pub mod balance;
pub mod changing;
pub mod error;
pub mod key_counts;
pub mod layout;
pub mod partitioner;
pub mod placement;
pub mod range_write;
pub mod shard_count;
pub mod value;

pub use error::AnalysisError;
pub use key_counts::KeyCounts;
pub use partitioner::{Partitioner, RemovalEffect, ShardId, ShardSet};
pub use shard_count::ShardCount;

pub mod anchor;
pub mod bounded;
pub mod cassandra;
pub mod citus;
pub mod couchbase;
pub mod elasticsearch;
pub mod growth;
pub mod hash;
pub mod identities;
pub mod jump;
pub mod kafka;
pub mod ketama;
mod kind;
pub mod librdkafka;
pub mod maglev;
pub mod multiprobe;
pub mod murmur3;
pub mod nginx_chash;
pub mod pd_hot;
pub mod pinned_hash;
pub mod postgres_hash;
pub mod pymemcache_rendezvous;
pub mod python_memcached;
pub mod range;
pub mod range_dynamic;
pub mod redis_cluster;
pub mod rendezvous;
pub mod ring;
pub mod salted;
pub mod scenario;
pub mod slicer;
#[cfg(test)]
pub(crate) mod testing;
pub mod twemproxy;
pub mod vitess;
pub mod weights;

pub(crate) use kind::{check_shard_count, count_param, scan_every_shard, slice_bytes};
pub use kind::{BuildContext, BuildFn, Points, PointsFn, SchemeKind, MAX_SCHEME_POINTS};

use workloads::Spec;

/// Every fixed-layout scheme, in the order reports and help list them.
/// The real systems' placements (`redis-cluster`, `kafka`, `cassandra`, `elasticsearch`)
/// come after the abstract schemes and are not in [`DEFAULT_SCHEMES`].
pub static SCHEMES: &[&SchemeKind] = &[
    &range::KIND,
    &hash::KIND,
    &ring::KIND,
    &salted::KIND,
    &jump::KIND,
    &rendezvous::KIND,
    &maglev::KIND,
    &multiprobe::KIND,
    &anchor::KIND,
    &bounded::KIND,
    &redis_cluster::KIND,
    &kafka::KIND,
    &cassandra::KIND,
    &elasticsearch::KIND,
    &ketama::KIND,
    &python_memcached::KIND,
    &pymemcache_rendezvous::KIND,
    &vitess::HASH_KIND,
    &vitess::XXHASH_KIND,
    &couchbase::KIND,
    &postgres_hash::KIND,
    &librdkafka::KIND,
    &nginx_chash::KIND,
    &twemproxy::KIND,
];

/// The schemes of the built-in suite (`run` without `--schemes`), a subset of [`SCHEMES`]:
/// registering a new scheme does not change the default suite's results.
pub static DEFAULT_SCHEMES: &[&str] = &["range", "hash", "ring", "salted"];

/// Schemes whose layout changes while the events replay ([`changing`]); the replay feeds
/// them the whole stream in order.
pub static CHANGING_SCHEMES: &[&SchemeKind] = &[
    &range_dynamic::KIND,
    &citus::KIND,
    &slicer::KIND,
    &pd_hot::KIND,
];

/// A scheme's label for people: with the real system whose rule it follows
/// ([`SchemeKind::system`]), e.g. `redis-cluster (Redis 7.0 cluster slots)`; other labels
/// are returned unchanged.
pub fn display_label(label: &str) -> String {
    let spec = Spec::parse(label)
        .ok()
        .and_then(|s| SchemeSpec::new(s).ok());
    match spec.and_then(|s| (s.kind.system)(&s.spec)) {
        Some(system) => format!("{label} ({system})"),
        None => label.to_string(),
    }
}

/// A scheme spec that names a registered scheme with known parameters.
#[derive(Clone)]
pub struct SchemeSpec {
    /// The parsed spec (its `Display` is the label in reports).
    pub spec: Spec,
    kind: &'static SchemeKind,
    /// The overlay the scheme runs under as a changing layout (`run --scenario`).
    overlay: Option<std::sync::Arc<dyn changing::Overlay>>,
}

impl std::fmt::Debug for SchemeSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SchemeSpec({})", self.spec)
    }
}

impl SchemeSpec {
    /// Checks that the spec names a registered scheme and only its parameters.
    pub fn new(spec: Spec) -> Result<SchemeSpec, AnalysisError> {
        let all = || SCHEMES.iter().chain(CHANGING_SCHEMES).copied();
        let kind = all().find(|k| k.name == spec.name).ok_or_else(|| {
            spec.error(format!(
                "unknown scheme '{}'; valid schemes: {}",
                spec.name,
                all().map(|k| k.name).collect::<Vec<_>>().join(", ")
            ))
        })?;
        SchemeSpec::of_kind(kind, spec)
    }

    /// `spec` of `kind`, which may be outside the registry (a scheme under test); its
    /// parameters are checked against the kind's.
    pub fn of_kind(kind: &'static SchemeKind, spec: Spec) -> Result<SchemeSpec, AnalysisError> {
        let names: Vec<&str> = kind.params.iter().map(|(n, _)| *n).collect();
        spec.check(&names)?;
        Ok(SchemeSpec {
            spec,
            kind,
            overlay: None,
        })
    }

    /// Parses a comma-separated list such as `range,ring:vnodes=64,hash`.
    pub fn parse_list(text: &str) -> Result<Vec<SchemeSpec>, AnalysisError> {
        let schemes: Vec<SchemeSpec> = Spec::parse_list(text)?
            .into_iter()
            .map(SchemeSpec::new)
            .collect::<Result<_, _>>()?;
        for (i, s) in schemes.iter().enumerate() {
            if schemes[..i].iter().any(|t| t.label() == s.label()) {
                return Err(s.spec.error(
                    "the scheme is given twice in --schemes; each scheme is measured once (give \
                     different parameters to compare variants)"
                        .into(),
                )
                .into());
            }
        }
        Ok(schemes)
    }

    /// The default set: the [`DEFAULT_SCHEMES`] with default parameters.
    pub fn all_defaults() -> Vec<SchemeSpec> {
        SCHEMES
            .iter()
            .filter(|k| DEFAULT_SCHEMES.contains(&k.name))
            .map(|k| SchemeSpec {
                spec: Spec {
                    name: k.name.to_string(),
                    params: Vec::new(),
                },
                kind: k,
                overlay: None,
            })
            .collect()
    }

    /// The registered family.
    pub fn kind(&self) -> &'static SchemeKind {
        self.kind
    }

    /// True for schemes whose layout changes during the replay (fed the stream, not built:
    /// [`SchemeKind::changing`], or a fixed scheme under an overlay).
    pub fn is_changing(&self) -> bool {
        self.layout_end().is_some()
    }

    /// What the scheme leaves at the end as a changing layout (its overlay's, else its
    /// kind's); `None` for a fixed scheme.
    pub fn layout_end(&self) -> Option<&'static changing::LayoutEnd> {
        match &self.overlay {
            Some(overlay) => Some(overlay.end()),
            None => self.kind.changing.as_ref().map(|c| &c.end),
        }
    }

    /// Starts the scheme as a changing layout on `setup.nodes` nodes, with what it leaves at
    /// the end; an error for a fixed scheme.
    pub fn start_layout(
        &self,
        setup: &changing::LayoutSetup,
    ) -> Result<
        (
            Box<dyn changing::ChangingLayout>,
            &'static changing::LayoutEnd,
        ),
        AnalysisError,
    > {
        match (&self.overlay, &self.kind.changing) {
            (Some(overlay), _) => Ok((overlay.start(setup)?, overlay.end())),
            (None, Some(changing)) => Ok(((changing.start)(&self.spec, setup)?, &changing.end)),
            (None, None) => Err(AnalysisError::Config(format!(
                "'{}' is a fixed layout, not a changing one",
                self.label()
            ))),
        }
    }

    /// This scheme run as a changing layout by `overlay` (`run --scenario`).
    pub fn under(&self, overlay: std::sync::Arc<dyn changing::Overlay>) -> SchemeSpec {
        SchemeSpec {
            overlay: Some(overlay),
            ..self.clone()
        }
    }

    /// Checks every parameter without data: builds fixed schemes for `ctx.shards` shards and
    /// checks the parameters of simulated ones, which refuse `--weights` (a simulation is given
    /// no weights: its nodes are equal, so its balance could not be measured per weight).
    pub fn validate(&self, ctx: &BuildContext<'_>) -> Result<(), AnalysisError> {
        if let Some(overlay) = &self.overlay {
            return overlay.check(ctx.shards);
        }
        match &self.kind.changing {
            Some(sim) => {
                self.check_points(ctx.shards)?;
                weights::refuse(
                    ctx,
                    &self.label(),
                    "its simulated nodes are equal (each is rebalanced to the mean load)",
                )?;
                (sim.check)(&self.spec)
            }
            None => self.build(ctx).map(drop),
        }
    }

    /// The label used in reports (the spec as written, normalised).
    pub fn label(&self) -> String {
        self.spec.to_string()
    }

    /// True when the scheme learns boundaries from a warm-up prefix.
    pub fn needs_warmup(&self) -> bool {
        (self.kind.needs_warmup)(&self.spec)
    }

    /// The points the scheme's layout holds on `shards` shards ([`SchemeKind::points`]).
    pub fn points(&self, shards: u32) -> Points {
        (self.kind.points)(&self.spec, shards)
    }

    /// Fails with a spec error when the layout on `shards` shards would hold more than
    /// [`MAX_SCHEME_POINTS`] points. [`SchemeSpec::build`] checks it; callers check it too for
    /// the shard counts a layout grows to, before growing it.
    pub fn check_points(&self, shards: u32) -> Result<(), AnalysisError> {
        self.points(shards).check(&self.spec, shards)
    }

    /// Builds the partitioner for `ctx.shards` shards, after checking its points.
    pub fn build(&self, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
        check_shard_count(ctx.shards)?;
        self.check_points(ctx.shards)?;
        (self.kind.build)(&self.spec, ctx)
    }
}
