//! pymemcache's `RendezvousHash` (`pymemcache.client.rendezvous`, the default of its
//! `HashClient`), bit-exact with PyPI `pymemcache` 4.0.0.
//!
//! - Nodes are named `shard{i}` (shard i = node i). A key scores `murmur3_32("{node}-{key}")`
//!   (seed 0) on every node; the highest score wins, a tie goes to the larger node name as
//!   a string (`shard9` beats `shard10`).
//! - pymemcache's murmur3 is written over a Python **string**: it reads each character's
//!   code point masked to its low byte and counts characters, not bytes. shardlab reads the
//!   key as UTF-8 (invalid bytes become U+FFFD) and hashes the low byte of each character, so
//!   `é` (U+00E9) hashes as the byte 0xe9 and `日` (U+65E5) as 0xe5.
//! - **Growth** adds node `shard{next}` (the next unused number): it wins about 1/(N+1) of
//!   the keys and no other key moves; **removal** hands a node's keys to their second-best
//!   node, the survivors keeping their names.

use smallvec::SmallVec;
use workloads::{KeyType, Spec};

use super::identities::{ByIdentity, Identities};
use super::ketama::memcached_replica_refusal;
use super::weights::{self, Weights};
use super::{BuildContext, SchemeKind};
use crate::murmur3::{murmur3_32, Murmur3};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// Registration of `pymemcache-rendezvous`.
pub const KIND: SchemeKind = SchemeKind {
    name: "pymemcache-rendezvous",
    about: "pymemcache 4.0 RendezvousHash over nodes shard0..: highest murmur3_32(\"node-key\"), \
            ties to the larger name; growth adds a node, removal moves only its keys",
    system: |_| Some("pymemcache 4.0 RendezvousHash"),
    params: &[],
    needs_warmup: |_| false,
    points: |_, shards| crate::Points::per_shard(shards),
    build,
    changing: None,
};

/// Builds `pymemcache-rendezvous` for `ctx.shards` nodes.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let why = "pymemcache's RendezvousHash has no node weights";
    weights::refuse(ctx, &spec.to_string(), why)?;
    let ids = Identities::first(ctx.shards, Weights::equal())?;
    Ok(Box::new(PymemcacheRendezvous::new(
        spec.to_string(),
        ctx.key_type,
        ids,
    )))
}

/// pymemcache's `murmur3_32` of a string: MurmurHash3 x86 32 of the low byte of each of its
/// characters (the text of `bytes`, read as UTF-8 with U+FFFD for invalid bytes).
pub fn murmur3_32_of_text(text: &[u8], seed: u32) -> u32 {
    murmur3_32(&low_bytes(text), seed)
}

/// The low byte of each character of `text` read as UTF-8 (U+FFFD for invalid bytes).
fn low_bytes(text: &[u8]) -> SmallVec<[u8; 64]> {
    String::from_utf8_lossy(text)
        .chars()
        .map(|c| c as u32 as u8)
        .collect()
}

/// pymemcache's rendezvous hashing over nodes `shard{id}`.
#[derive(Clone, Debug)]
pub struct PymemcacheRendezvous {
    label: String,
    /// How keys reach the client: `u64` keys as their decimal digits.
    key_type: KeyType,
    /// Node `i` is named `shard{ids[i]}`.
    ids: Identities,
    /// Every node's name followed by `-`, by shard.
    prefixes: Vec<String>,
    /// The hash of each prefix, to which a key's bytes are added.
    prefix_hashes: Vec<Murmur3>,
}

impl PymemcacheRendezvous {
    /// Rendezvous over nodes `shard{id}` for these identities.
    pub fn new(label: impl Into<String>, key_type: KeyType, ids: Identities) -> Self {
        let prefixes: Vec<String> = ids.ids().iter().map(|id| format!("shard{id}-")).collect();
        let prefix_hashes = prefixes
            .iter()
            .map(|p| {
                let mut h = Murmur3::new(0);
                h.bytes(p.as_bytes());
                h
            })
            .collect();
        PymemcacheRendezvous {
            label: label.into(),
            key_type,
            ids,
            prefixes,
            prefix_hashes,
        }
    }

    /// The winning node and its score.
    fn winner(&self, key: &[u8]) -> (ShardId, u32) {
        let mut digits = [0; 20];
        // The prefixes are ASCII, whole characters that are their own low bytes: the text
        // `prefix + key` reads as the prefix and then the key's characters, decoded once.
        let low = low_bytes(self.key_type.as_text(key, &mut digits));
        let mut best: Option<(u32, usize)> = None;
        for (i, prefix) in self.prefix_hashes.iter().enumerate() {
            let mut h = *prefix;
            h.bytes(&low);
            let score = h.finish();
            let name = |i: usize| &self.prefixes[i][..self.prefixes[i].len() - 1];
            best = match best {
                Some((s, w)) if s > score || (s == score && name(w) >= name(i)) => Some((s, w)),
                _ => Some((score, i)),
            };
        }
        let (score, i) = best.expect("at least one node");
        (i as ShardId, score)
    }
}

impl ByIdentity for PymemcacheRendezvous {
    fn identities(&self) -> &Identities {
        &self.ids
    }

    fn rebuilt(&self, ids: Identities) -> Result<Self, AnalysisError> {
        Ok(PymemcacheRendezvous::new(
            self.label.clone(),
            self.key_type,
            ids,
        ))
    }
}

impl Partitioner for PymemcacheRendezvous {
    /// Another placement: every key's hash redrawn ([`crate::placement::SaltedKeys`]).
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        Some(Box::new(crate::placement::SaltedKeys::new(self, salt)))
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.ids.count()
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.winner(key).0
    }

    /// Every node (see [`super::scan_every_shard`]).
    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        super::scan_every_shard(self, start, end, out);
    }

    /// Adds nodes `shard{next}` (or drops the last ones): only their keys move.
    fn resized(
        &self,
        shards: u32,
        _keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        self.resized_by_identity(shards)
    }

    /// Drops the node: its keys go to their second-best node.
    fn without_shard(
        &self,
        shard: ShardId,
        _keys: &KeyCounts,
    ) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
        self.without_by_identity(shard)
    }

    /// A memcached client stores a key on one server.
    fn replicas(&self, key: &[u8], _rf: u32, out: &mut Vec<ShardId>) {
        out.push(self.shard_of(key));
    }

    /// See [`memcached_replica_refusal`].
    fn replica_refusal(&self) -> Option<String> {
        Some(memcached_replica_refusal(&self.label))
    }

    /// The winning score, murmur3_32 of `"{node}-{key}"`.
    fn detail(&self, key: &[u8]) -> Option<String> {
        Some(self.winner(key).1.to_string())
    }

    /// The node names.
    fn router_bytes(&self) -> Option<u64> {
        Some(self.prefixes.iter().map(|p| p.len() as u64).sum())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{keys, moved, moved_on_removal};

    fn nodes(n: u32) -> PymemcacheRendezvous {
        let ids = Identities::first(n, Weights::equal()).unwrap();
        PymemcacheRendezvous::new("pymemcache-rendezvous", KeyType::Bytes, ids)
    }

    #[test]
    fn characters_hash_as_their_low_byte() {
        // MurmurHash3 x86 32 reference values (seed 0): "" -> 0, "hello" -> 0x248bfa47.
        assert_eq!(murmur3_32_of_text(b"", 0), 0);
        assert_eq!(murmur3_32_of_text(b"hello", 0), 0x248b_fa47);
        assert_eq!(
            murmur3_32_of_text("é日".as_bytes(), 0),
            murmur3::murmur3_32(&mut &[0xe9u8, 0xe5][..], 0).unwrap()
        );
        assert_eq!(
            murmur3_32_of_text(&[b'a', 0xff], 0),
            murmur3::murmur3_32(&mut &[b'a', 0xfd][..], 0).unwrap()
        );
    }

    #[test]
    fn the_highest_score_wins_and_growth_moves_keys_only_to_the_new_node() {
        let p = nodes(3);
        let (shard, score) = p.winner(b"foo");
        let scores: Vec<u32> = (0..3)
            .map(|i| murmur3_32_of_text(format!("shard{i}-foo").as_bytes(), 0))
            .collect();
        assert_eq!(score, *scores.iter().max().unwrap());
        assert_eq!(scores[shard as usize], score);
        let keys = keys(20_000);
        let four = p.resized(4, &KeyCounts::new()).unwrap();
        let (share, to_new) = moved(&p, four.as_ref(), &keys, Some(3));
        assert!((share - 0.25).abs() < 0.03 && to_new == 1.0, "{share}");
        let without = p.without_shard(0, &KeyCounts::new()).unwrap().unwrap();
        assert_eq!(moved_on_removal(&p, without.as_ref(), &keys, 0), 0.0);
    }

    #[test]
    fn each_score_is_the_hash_of_the_whole_text_for_any_bytes() {
        // Invalid UTF-8, multi-byte characters cut anywhere, ASCII: decoding the key alone
        // after the ASCII prefix gives the characters of the whole text.
        let p = nodes(5);
        let mut state = 7u64;
        for n in 0..3000usize {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let mut key: Vec<u8> = state.to_le_bytes()[..n % 9].to_vec();
            if n % 3 == 0 {
                key.extend_from_slice("é日🙂".as_bytes());
                key.truncate(key.len() - n % 4);
            }
            let scores: Vec<u32> = (0..5)
                .map(|i| {
                    let text = [format!("shard{i}-").as_bytes(), &key[..]].concat();
                    murmur3_32_of_text(&text, 0)
                })
                .collect();
            let (shard, score) = p.winner(&key);
            assert_eq!(score, *scores.iter().max().unwrap(), "{key:?}");
            assert_eq!(scores[shard as usize], score, "{key:?}");
        }
    }
}
