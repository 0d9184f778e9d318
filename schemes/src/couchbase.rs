//! Couchbase's vBucket of a key, bit-exact with libcouchbase (`vbucket.c`,
//! `lcbvb_k2vb`): `((crc32(key) >> 16) & 0x7fff) % 1024`, standard CRC-32 with no extra
//! inversion ([`crc32_15`], the same 15-bit hash python-memcached uses), so `"hello"` is
//! vBucket 528 (the libcouchbase example issue 32 cites).
//!
//! The vBucket map is shardlab's documented one, not ns_server's: vBucket `v` is on node
//! `floor(v x N / 1024)` (contiguous runs of vBuckets, as balanced as 1024 allows).
//! Growth and shrink rebuild that map for M nodes; ns_server's rebalance picks which
//! vBuckets move by its own optimiser, which shardlab does not reproduce.

use workloads::{KeyType, Spec};

use super::python_memcached::crc32_15;
use super::{check_shard_count, weights, BuildContext, SchemeKind};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// vBuckets of a Couchbase bucket (1024 on Linux).
pub const VBUCKETS: u32 = 1024;

/// Registration of `couchbase`.
pub const KIND: SchemeKind = SchemeKind {
    name: "couchbase",
    about: "Couchbase vBucket ((crc32(key) >> 16) & 0x7fff) % 1024 (libcouchbase); vBucket v on \
            node floor(v x N / 1024), a documented map (not ns_server's rebalance)",
    system: |_| Some("Couchbase vBuckets, libcouchbase hashing"),
    params: &[],
    needs_warmup: |_| false,
    points: |_, shards| {
        crate::Points::new(1024u64.max(u64::from(shards)), "vBuckets", "fewer shards")
    },
    build,
    changing: None,
};

/// Builds `couchbase` for `ctx.shards` nodes.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let why = "the vBucket map spreads vBuckets evenly over the nodes";
    weights::refuse(ctx, &spec.to_string(), why)?;
    let cluster = CouchbasePartitioner::new(spec.to_string(), ctx.key_type, ctx.shards)?;
    Ok(Box::new(cluster))
}

/// The vBucket of `key`, as libcouchbase computes it.
pub fn vbucket_of(key: &[u8]) -> u32 {
    crc32_15(key) % VBUCKETS
}

/// A Couchbase bucket's vBuckets on N nodes.
#[derive(Clone, Debug)]
pub struct CouchbasePartitioner {
    label: String,
    /// How keys reach the client: `u64` keys as their decimal digits.
    key_type: KeyType,
    nodes: u32,
}

impl CouchbasePartitioner {
    /// A bucket on `nodes` nodes (1..=1024).
    pub fn new(
        label: impl Into<String>,
        key_type: KeyType,
        nodes: u32,
    ) -> Result<Self, AnalysisError> {
        check_shard_count(nodes)?;
        if nodes > VBUCKETS {
            let message = format!(
                "a Couchbase bucket has {VBUCKETS} vBuckets: at most that many nodes hold one"
            );
            return Err(AnalysisError::Config(message));
        }
        Ok(CouchbasePartitioner {
            label: label.into(),
            key_type,
            nodes,
        })
    }

    fn vbucket(&self, key: &[u8]) -> u32 {
        vbucket_of(self.key_type.as_text(key, &mut [0; 20]))
    }
}

impl Partitioner for CouchbasePartitioner {
    /// Another placement: every key's hash redrawn ([`crate::placement::SaltedKeys`]).
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        Some(Box::new(crate::placement::SaltedKeys::new(self, salt)))
    }

    /// No structure: the map is arithmetic.
    fn router_bytes(&self) -> Option<u64> {
        Some(0)
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.nodes
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.vbucket(key) * self.nodes / VBUCKETS
    }

    /// Every node: vBuckets are hashes.
    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        super::scan_every_shard(self, start, end, out);
    }

    /// The map rebuilt for `shards` nodes.
    fn resized(
        &self,
        shards: u32,
        _keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        Ok(Box::new(Self::new(
            self.label.clone(),
            self.key_type,
            shards,
        )?))
    }

    /// Only the active vBucket's node: replica vBuckets follow ns_server's map.
    fn replicas(&self, key: &[u8], _rf: u32, out: &mut Vec<ShardId>) {
        out.push(self.shard_of(key));
    }

    /// Replica vBuckets are placed by ns_server, which shardlab does not model.
    fn replica_refusal(&self) -> Option<String> {
        Some(format!(
            "scheme '{}' (Couchbase): replica vBuckets are placed by ns_server's map, which \
             shardlab does not model; plan with --replicas 1",
            self.label
        ))
    }

    /// The vBucket.
    fn detail(&self, key: &[u8]) -> Option<String> {
        Some(self.vbucket(key).to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hello_is_vbucket_528_as_in_libcouchbase() {
        assert_eq!(vbucket_of(b"hello"), 528);
        // crc32("123456789") = 0xcbf43926: 0x4bf4 = 19444, mod 1024 = 1012.
        assert_eq!(vbucket_of(b"123456789"), 1012);
        let four = CouchbasePartitioner::new("couchbase", KeyType::Bytes, 4).unwrap();
        assert_eq!(four.shard_of(b"hello"), 2);
        assert_eq!(four.detail(b"hello").as_deref(), Some("528"));
        assert_eq!(four.shard_of(b"123456789"), 3);
        let three = four.resized(3, &KeyCounts::new()).unwrap();
        // 528 x 3 / 1024 = 1.55: node 1.
        assert_eq!(three.shard_of(b"hello"), 1);
        assert!(CouchbasePartitioner::new("c", KeyType::Bytes, 1025).is_err());
    }
}
