//! Why a plan needs the shard count it reports: the limit that one shard fewer would break,
//! or why no shard count works.

use serde::Serialize;

/// The reason that binds a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Binding {
    /// One shard is enough; nothing binds.
    None,
    /// One shard fewer: the busiest shard's peak-window request rate exceeds the limit.
    Rate,
    /// One shard fewer: the fullest shard stores more than the byte limit.
    Bytes,
    /// One shard fewer: the limits hold with every shard up, but the request rate breaks them
    /// after the worst `--failures` shards fail.
    RateAfterFailure,
    /// The same for stored bytes.
    BytesAfterFailure,
    /// One shard fewer cannot keep `--replicas` distinct copies after `--failures` failures.
    Replicas,
    /// No shard count works: one key's requests alone exceed the limit on its busiest replica.
    HotKey,
    /// No shard count works: one key's bytes alone exceed the byte limit.
    KeyBytes,
    /// No shard count up to `--max-shards` works.
    SearchLimit,
    /// The scheme cannot remove an arbitrary shard, so a plan with failures cannot be checked.
    NoRemoval,
}

impl Binding {
    /// Every reason, in the order docs/plan.md lists them.
    pub const ALL: [Binding; 10] = [
        Binding::None,
        Binding::Rate,
        Binding::Bytes,
        Binding::RateAfterFailure,
        Binding::BytesAfterFailure,
        Binding::Replicas,
        Binding::HotKey,
        Binding::KeyBytes,
        Binding::SearchLimit,
        Binding::NoRemoval,
    ];

    /// The name in `plan.csv`.
    pub fn name(self) -> &'static str {
        match self {
            Binding::None => "none",
            Binding::Rate => "rate",
            Binding::Bytes => "bytes",
            Binding::RateAfterFailure => "rate_after_failure",
            Binding::BytesAfterFailure => "bytes_after_failure",
            Binding::Replicas => "replicas",
            Binding::HotKey => "hot_key",
            Binding::KeyBytes => "key_bytes",
            Binding::SearchLimit => "search_limit",
            Binding::NoRemoval => "no_removal",
        }
    }

    /// What it means, for docs/plan.md and the report.
    pub fn definition(self) -> &'static str {
        match self {
            Binding::None => "One shard is enough; nothing binds.",
            Binding::Rate => "With one shard fewer, the busiest shard's request rate in its busiest window would exceed capacity x headroom.",
            Binding::Bytes => "With one shard fewer, the fullest shard would store more than capacity-bytes x headroom.",
            Binding::RateAfterFailure => "With one shard fewer, the limits hold with every shard up, but the busiest surviving shard's rate exceeds capacity x headroom after the worst --failures shards fail.",
            Binding::BytesAfterFailure => "As rate_after_failure, for stored bytes.",
            Binding::Replicas => "One shard fewer could not keep --replicas distinct copies of every key after --failures failures (N >= replicas + failures).",
            Binding::HotKey => "No shard count works: one key's requests alone, on its busiest replica in its busiest window, exceed capacity x headroom.",
            Binding::KeyBytes => "No shard count works: one key's bytes alone exceed capacity-bytes x headroom.",
            Binding::SearchLimit => "No shard count up to --max-shards works.",
            Binding::NoRemoval => "The scheme cannot remove an arbitrary shard, so its load after failures cannot be checked.",
        }
    }

    /// True for the reasons that hold with every shard up and break after the failures.
    pub fn after_failure(self) -> bool {
        matches!(self, Binding::RateAfterFailure | Binding::BytesAfterFailure)
    }

    /// True for the reasons that mean no shard count works (or none could be checked).
    pub fn is_infeasible(self) -> bool {
        matches!(
            self,
            Binding::HotKey | Binding::KeyBytes | Binding::SearchLimit | Binding::NoRemoval
        )
    }
}

impl std::fmt::Display for Binding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
