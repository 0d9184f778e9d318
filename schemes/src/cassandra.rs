//! Cassandra's `Murmur3Partitioner` on a vnode token ring, bit-exact with Apache Cassandra
//! 3.x/4.x/5.x (`Murmur3Partitioner.getToken`, `MurmurHash.hash3_x64_128`).
//!
//! - **Token**: the first 64-bit half of Cassandra's MurmurHash3 x64 128 (seed 0) of the
//!   partition key bytes, with `i64::MIN` mapped to `i64::MAX`; the empty key has the
//!   minimum token `i64::MIN`. Cassandra's hash differs from the reference MurmurHash3 in the
//!   tail: bytes are read as Java's signed `byte` and sign-extended before they are shifted,
//!   so keys whose last `len % 16` bytes include one `>= 0x80` hash differently from other
//!   MurmurHash3 implementations. That is why the hash is written here and not taken from a
//!   crate: no crate reproduces Cassandra's variant.
//! - **Ring**: each node owns `num_tokens` tokens (default 16, the 4.0+ default); a key
//!   belongs to the node of the first token at or after its own, wrapping around
//!   (`TokenMetadata.firstToken`). Tokens are drawn at random as Cassandra does before 4.0
//!   (and in 4.0+ without `allocate_tokens_for_local_replication_factor`): a 64-bit random
//!   value each, redrawn when already taken (`BootStrapper.getRandomTokens`). Cassandra's
//!   random source is not seeded, so `seed` stands for it: the same seed gives the same
//!   tokens. `allocation=rfR` places each joining node's tokens by an **approximation** of
//!   Cassandra 4.0's `allocate_tokens_for_local_replication_factor=R` (same goal and rules,
//!   not bit-exact; see [`allocation`]).
//! - **Growth**: a node joins with its own tokens (every existing token stays); shrink
//!   decommissions the last nodes; removing any node (`nodetool removenode`) hands each of its
//!   ranges to the next token clockwise. Replicas: SimpleStrategy, the next distinct nodes
//!   clockwise.

use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use workloads::Spec;

mod allocation;

use super::pinned_hash::hash64;
use super::ring::RingPartitioner;
use super::{check_shard_count, weights, BuildContext, SchemeKind};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// Tokens per node when `num_tokens` is not given (Cassandra 4.0's default).
pub const DEFAULT_NUM_TOKENS: u64 = 16;

/// The largest `num_tokens` accepted (the ring holds `N * num_tokens` tokens).
pub const MAX_NUM_TOKENS: u64 = 65_536;

/// Registration of `cassandra`.
pub const KIND: SchemeKind = SchemeKind {
    name: "cassandra",
    about: "Cassandra 3.x-5.x Murmur3Partitioner tokens on a ring of num_tokens tokens per \
            node: random (pre-4.0), or allocation=rfR, an approximation (not bit-exact) of \
            the 4.0 allocator; a joining node keeps every other token",
    system: |spec| match spec.get("allocation") {
        Some(a) if a.starts_with("rf") => {
            Some("Cassandra 3.x-5.x Murmur3Partitioner, 4.0 token allocator approximated")
        }
        _ => Some("Cassandra 3.x-5.x Murmur3Partitioner"),
    },
    params: &[
        (
            "num_tokens",
            "tokens per node, 1..=65536 (default 16, Cassandra 4.0's default)",
        ),
        (
            "allocation",
            "random: random tokens as before Cassandra 4.0 (default); rfR, R in 2..=16 (e.g. rf3): an \
             approximation, not bit-exact, of Cassandra 4.0's \
             allocate_tokens_for_local_replication_factor=R",
        ),
        ("seed", "seed of the random tokens (default 0)"),
    ],
    needs_warmup: |_| false,
    points: |spec, shards| {
        let tokens = crate::count_param(spec, "num_tokens", DEFAULT_NUM_TOKENS);
        crate::Points::times_shards(tokens, shards, "num_tokens x nodes", "fewer num_tokens or fewer shards")
    },
    build,
    changing: None,
};

/// Builds `cassandra` for `ctx.shards` nodes.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let why = "every node owns num_tokens tokens";
    weights::refuse(ctx, &spec.to_string(), why)?;
    let num_tokens = spec.u64_at_least("num_tokens", DEFAULT_NUM_TOKENS, 1)?;
    if num_tokens > MAX_NUM_TOKENS {
        let message = format!("num_tokens={num_tokens} must be at most {MAX_NUM_TOKENS}");
        return Err(spec.error(message).into());
    }
    let allocation = match spec.get("allocation") {
        None | Some("random") => Allocation::Random,
        Some(other) => match other.strip_prefix("rf").and_then(|r| r.parse::<u32>().ok()) {
            Some(rf) if (2..=MAX_ALLOCATION_RF).contains(&rf) => Allocation::Replication(rf),
            _ => {
                let message = format!(
                    "allocation={other} is not known; use 'random' (before Cassandra 4.0) or \
                     'rfR' with R in 2..={MAX_ALLOCATION_RF}, e.g. 'rf3' (an approximation of \
                     the 4.0 replication-aware allocator for replication factor R; Cassandra \
                     uses another allocator for R = 1, which is not reproduced)"
                );
                return Err(spec.error(message).into());
            }
        },
    };
    let seed = spec.u64_at_least("seed", 0, 0)?;
    Ok(Box::new(CassandraPartitioner::allocated(
        spec.to_string(),
        ctx.shards,
        num_tokens as u32,
        allocation,
        seed,
    )?))
}

/// The largest replication factor `allocation=rfR` accepts.
const MAX_ALLOCATION_RF: u32 = 16;

/// How a joining node chooses its tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allocation {
    /// At random, as before Cassandra 4.0 (and without the allocator option).
    Random,
    /// An approximation of Cassandra 4.0's replication-aware allocator for this replication
    /// factor (see [`allocation`]).
    Replication(u32),
}

/// Cassandra's `MurmurHash.hash3_x64_128(key, 0, len, seed 0)`: both 64-bit halves.
pub fn hash3_x64_128(key: &[u8]) -> [i64; 2] {
    let (mut h1, mut h2) = (0u64, 0u64);
    let mut blocks = key.chunks_exact(16);
    for block in &mut blocks {
        let k1 = u64::from_le_bytes(block[..8].try_into().expect("8 bytes"));
        let k2 = u64::from_le_bytes(block[8..].try_into().expect("8 bytes"));
        h1 ^= mix_k1(k1);
        h1 = h1
            .rotate_left(27)
            .wrapping_add(h2)
            .wrapping_mul(5)
            .wrapping_add(0x52dc_e729);
        h2 ^= mix_k2(k2);
        h2 = h2
            .rotate_left(31)
            .wrapping_add(h1)
            .wrapping_mul(5)
            .wrapping_add(0x3849_5ab5);
    }
    // The tail: Cassandra XORs each byte as a sign-extended Java `byte` (`(long) key.get(i)`),
    // so a byte >= 0x80 also sets every bit above its own position.
    let tail = blocks.remainder();
    let signed = |i: usize| tail[i] as i8 as i64 as u64;
    let (mut k1, mut k2) = (0u64, 0u64);
    for i in (8..tail.len()).rev() {
        k2 ^= signed(i) << ((i - 8) * 8);
    }
    if tail.len() > 8 {
        h2 ^= mix_k2(k2);
    }
    for i in (0..tail.len().min(8)).rev() {
        k1 ^= signed(i) << (i * 8);
    }
    if !tail.is_empty() {
        h1 ^= mix_k1(k1);
    }
    let len = key.len() as u64;
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix(h1);
    h2 = fmix(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    [h1 as i64, h2 as i64]
}

/// MurmurHash3 x64 128's multiplier constants.
const C1: u64 = 0x87c3_7b91_1142_53d5;
const C2: u64 = 0x4cf5_ad43_2745_937f;

/// The mixing of the first 64-bit half of a block.
fn mix_k1(k: u64) -> u64 {
    k.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2)
}

/// The mixing of the second 64-bit half of a block.
fn mix_k2(k: u64) -> u64 {
    k.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1)
}

/// MurmurHash3's 64-bit finaliser.
fn fmix(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// The `Murmur3Partitioner` token of `key`: the first half of [`hash3_x64_128`], with the
/// minimum value reserved (`i64::MIN` becomes `i64::MAX`); the empty key has the minimum.
pub fn token(key: &[u8]) -> i64 {
    if key.is_empty() {
        return i64::MIN;
    }
    match hash3_x64_128(key)[0] {
        i64::MIN => i64::MAX,
        t => t,
    }
}

/// A token's place on the ring as an unsigned position, in the same order (the sign bit
/// flipped), so the ring search works on `u64`.
fn ring_position(token: i64) -> u64 {
    (token as u64) ^ (1 << 63)
}

/// The token at a ring position (inverse of [`ring_position`]).
fn token_at(position: u64) -> i64 {
    (position ^ (1 << 63)) as i64
}

/// A Cassandra token ring: `num_tokens` tokens per node, drawn from `seed`.
#[derive(Clone, Debug)]
pub struct CassandraPartitioner {
    rule: TokenRule,
    /// The tokens as ring positions ([`ring_position`]) with their nodes.
    ring: RingPartitioner,
}

impl CassandraPartitioner {
    /// `nodes` nodes (at least 1) with `num_tokens` random tokens each (at least 1).
    pub fn random(
        label: impl Into<String>,
        nodes: u32,
        num_tokens: u32,
        seed: u64,
    ) -> Result<Self, AnalysisError> {
        Self::allocated(label, nodes, num_tokens, Allocation::Random, seed)
    }

    /// `nodes` nodes (at least 1) joining one by one with `num_tokens` tokens each (at least
    /// 1), chosen by `allocation`.
    pub fn allocated(
        label: impl Into<String>,
        nodes: u32,
        num_tokens: u32,
        allocation: Allocation,
        seed: u64,
    ) -> Result<Self, AnalysisError> {
        check_shard_count(nodes)?;
        if num_tokens == 0 {
            let message = "a Cassandra node needs at least 1 token (num_tokens >= 1)";
            return Err(AnalysisError::Config(message.into()));
        }
        let rule = TokenRule {
            num_tokens,
            allocation,
            seed,
        };
        Ok(CassandraPartitioner {
            rule,
            ring: rule.join(&label.into(), Vec::new(), 0..nodes)?,
        })
    }

    /// The tokens in ring order with their nodes.
    pub fn tokens(&self) -> impl Iterator<Item = (i64, ShardId)> + '_ {
        self.ring.points().iter().map(|&(at, s)| (token_at(at), s))
    }
}

/// How nodes choose their tokens.
#[derive(Clone, Copy, Debug)]
struct TokenRule {
    num_tokens: u32,
    allocation: Allocation,
    seed: u64,
}

impl TokenRule {
    /// The ring of the tokens `points` (of nodes below `nodes.start`) and those the joining
    /// `nodes` choose, in node order.
    fn join(
        &self,
        label: &str,
        mut points: Vec<(u64, ShardId)>,
        nodes: std::ops::Range<u32>,
    ) -> Result<RingPartitioner, AnalysisError> {
        let shards = nodes.end;
        match self.allocation {
            Allocation::Random => join_nodes(&mut points, nodes, self.num_tokens, self.seed),
            Allocation::Replication(rf) => {
                let total = u64::from(shards) * u64::from(self.num_tokens);
                if total > allocation::MAX_ALLOCATED_TOKENS {
                    return Err(AnalysisError::Config(format!(
                        "scheme '{label}': allocation=rf{rf} places at most {} tokens \
                         (nodes x num_tokens), not {total}; use fewer nodes or num_tokens, or \
                         allocation=random",
                        allocation::MAX_ALLOCATED_TOKENS
                    )));
                }
                points.sort_unstable();
                allocation::allocate(&mut points, nodes, self.num_tokens, rf, self.seed);
            }
        }
        RingPartitioner::from_points(label, shards, points)
    }
}

/// Adds `num_tokens` random tokens for each node of `nodes`, in node order, drawing again
/// when a token is already on the ring (as `BootStrapper.getRandomTokens` does). Node `n`
/// draws from its own generator, seeded from `seed` and `n`, so a node's tokens do not
/// depend on how many nodes joined before it.
fn join_nodes(
    points: &mut Vec<(u64, ShardId)>,
    nodes: std::ops::Range<u32>,
    num_tokens: u32,
    seed: u64,
) {
    let mut taken: std::collections::HashSet<u64> = points.iter().map(|p| p.0).collect();
    for node in nodes {
        let mut seed_bytes = [0u8; 12];
        seed_bytes[..8].copy_from_slice(&seed.to_be_bytes());
        seed_bytes[8..].copy_from_slice(&node.to_be_bytes());
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(hash64(&seed_bytes));
        let mut added = 0;
        while added < num_tokens {
            // Murmur3Partitioner.getRandomToken: a random long, the minimum reserved.
            let token = match rng.next_u64() as i64 {
                i64::MIN => i64::MAX,
                t => t,
            };
            if taken.insert(ring_position(token)) {
                points.push((ring_position(token), node));
                added += 1;
            }
        }
    }
}

impl Partitioner for CassandraPartitioner {
    /// Another placement: every key's hash redrawn ([`crate::placement::SaltedKeys`]).
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        Some(Box::new(crate::placement::SaltedKeys::new(self, salt)))
    }

    /// The token ring: every node's tokens and the search index over them.
    fn router_bytes(&self) -> Option<u64> {
        self.ring.router_bytes()
    }

    fn label(&self) -> &str {
        self.ring.label()
    }

    fn shard_count(&self) -> u32 {
        self.ring.shard_count()
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.ring.owner_of_hash(ring_position(token(key)))
    }

    /// Every node: tokens are hashed, so a key range has no token order. An empty scan
    /// (`end <= start`) contacts only the owner of `start`, as the trait asks of every scheme.
    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        super::scan_every_shard(self, start, end, out);
    }

    /// Growth: new nodes join with their own random tokens; shrink: the last nodes are
    /// decommissioned and their ranges go to the next token clockwise.
    fn resized(
        &self,
        shards: u32,
        _keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        check_shard_count(shards)?;
        let points: Vec<(u64, ShardId)> = self
            .ring
            .points()
            .iter()
            .copied()
            .filter(|p| p.1 < shards)
            .collect();
        let joining = self.shard_count().min(shards)..shards;
        Ok(Box::new(CassandraPartitioner {
            rule: self.rule,
            ring: self.rule.join(self.label(), points, joining)?,
        }))
    }

    /// The token.
    fn detail(&self, key: &[u8]) -> Option<String> {
        Some(token(key).to_string())
    }

    /// SimpleStrategy: the next distinct nodes clockwise from the key's token.
    fn replicas(&self, key: &[u8], rf: u32, out: &mut Vec<ShardId>) {
        self.ring.replicas_at(ring_position(token(key)), rf, out);
    }

    /// `nodetool removenode`: the node's tokens leave the ring, so each of its ranges goes to
    /// the next token clockwise; the survivors keep their tokens.
    fn without_shard(
        &self,
        shard: ShardId,
        _keys: &KeyCounts,
    ) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
        Ok(Some(Box::new(CassandraPartitioner {
            rule: self.rule,
            ring: self.ring.without(shard)?,
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cassandra_sign_extends_tail_bytes_unlike_the_reference_murmur3() {
        // The reference MurmurHash3 x64 128 of "abc" (seed 0) and the token Cassandra's
        // driver gives it (Murmur3Token.from_key(b"abc")): no tail byte >= 0x80, so they agree.
        assert_eq!(token(b"abc"), -5_434_086_359_492_102_041);
        assert_eq!(hash3_x64_128(b"abc")[0] as u64, 0xb4963f3f3fad7867);
        // With tail bytes >= 0x80 the driver (and Cassandra) give 38824423781480973, where
        // the reference MurmurHash3 (e.g. Python's mmh3.hash64) gives -333274554923106765.
        assert_eq!(token(&[0xff, 0x80, 0x7f]), 38_824_423_781_480_973);
        assert_eq!(token(b""), i64::MIN);
    }

    #[test]
    fn a_key_belongs_to_the_node_of_the_first_token_at_or_after_it() {
        let c = CassandraPartitioner::random("cassandra", 5, 16, 7).unwrap();
        let tokens: Vec<(i64, ShardId)> = c.tokens().collect();
        assert_eq!(tokens.len(), 80);
        assert!(tokens.windows(2).all(|w| w[0].0 < w[1].0));
        for i in 0..2000u32 {
            let key = format!("key{i}");
            let t = token(key.as_bytes());
            let owner = tokens.iter().find(|p| p.0 >= t).unwrap_or(&tokens[0]).1;
            assert_eq!(c.shard_of(key.as_bytes()), owner, "{key}");
        }
    }

    #[test]
    fn a_joining_node_keeps_every_token_and_takes_ranges_only_for_itself() {
        let c = CassandraPartitioner::random("cassandra", 4, 16, 1).unwrap();
        let grown = c.resized(5, &KeyCounts::new()).unwrap();
        let direct = CassandraPartitioner::random("cassandra", 5, 16, 1).unwrap();
        for i in 0..5000u32 {
            let key = i.to_be_bytes();
            let (before, after) = (c.shard_of(&key), grown.shard_of(&key));
            assert!(after == before || after == 4);
            assert_eq!(after, direct.shard_of(&key));
        }
        let mut out = Vec::new();
        direct.replicas(b"user42", 3, &mut out);
        assert_eq!(out.len(), 3);
        assert_eq!(out[0], direct.shard_of(b"user42"));
        let removed = c.without_shard(1, &KeyCounts::new()).unwrap().unwrap();
        assert_eq!(removed.shard_count(), 3);
        assert!(CassandraPartitioner::random("c", 2, 0, 0).is_err());
    }

    #[test]
    fn the_rf_allocation_builds_from_its_spec_and_keeps_every_token_on_growth() {
        let spec = |text: &str| crate::SchemeSpec::parse_list(text).unwrap().remove(0);
        let ctx = BuildContext {
            shards: 6,
            warmup_keys: &[],
            key_type: workloads::KeyType::Bytes,
            weights: None,
        };
        let c = spec("cassandra:allocation=rf3,num_tokens=4")
            .build(&ctx)
            .unwrap();
        let grown = c.resized(7, &KeyCounts::new()).unwrap();
        let direct = spec("cassandra:allocation=rf3,num_tokens=4")
            .build(&BuildContext { shards: 7, ..ctx })
            .unwrap();
        for i in 0..3000u32 {
            let key = i.to_be_bytes();
            let (before, after) = (c.shard_of(&key), grown.shard_of(&key));
            assert!(
                after == before || after == 6,
                "a joining node only takes ranges"
            );
            assert_eq!(
                after,
                direct.shard_of(&key),
                "nodes join one by one either way"
            );
        }
        for bad in ["rf0", "rf1", "rf", "rfx", "balanced", "rf17"] {
            let err = spec(&format!("cassandra:allocation={bad}"))
                .build(&ctx)
                .err()
                .expect("refused")
                .to_string();
            assert!(err.contains("'rfR'"), "{err}");
        }
        let err = spec("cassandra:allocation=rf3,num_tokens=256")
            .build(&BuildContext { shards: 64, ..ctx })
            .err()
            .expect("too many tokens")
            .to_string();
        assert!(err.contains("at most 8192 tokens"), "{err}");
    }
}
