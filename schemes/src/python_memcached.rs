//! python-memcached's server choice (`memcache.Client._get_server`), bit-exact with PyPI
//! `python-memcached` 1.62: the key's 15-bit hash `((crc32(key) >> 16) & 0x7fff)`
//! (`cmemcache_hash`, standard CRC-32 of the key's UTF-8 bytes) mod the number of servers,
//! the servers in the order given (shard i = the i-th server).
//!
//! Growth appends servers (`hash mod M`: most keys move); removing a server from the list
//! renumbers the later ones and rehashes every key over the survivors. (A server that is
//! down but still listed is another rule: the client rehashes the key's hash text with a
//! retry counter until a live server answers; shardlab does not model it.)

use crc::{Crc, CRC_32_ISO_HDLC};
use workloads::{KeyType, Spec};

use super::ketama::memcached_replica_refusal;
use super::{check_shard_count, weights, BuildContext, SchemeKind};
use crate::placement::check_removable;
use crate::{AnalysisError, KeyCounts, Partitioner, RemovalEffect, ShardId, ShardSet};

/// The standard CRC-32 (zlib's, Python's `binascii.crc32`).
const CRC32: Crc<u32> = Crc::<u32>::new(&CRC_32_ISO_HDLC);

/// Registration of `python-memcached`.
pub const KIND: SchemeKind = SchemeKind {
    name: "python-memcached",
    about: "python-memcached 1.62 client: ((crc32(key) >> 16) & 0x7fff) % N over the servers \
            in order; growth appends servers (hash mod M)",
    system: |_| Some("python-memcached 1.62 client"),
    params: &[],
    needs_warmup: |_| false,
    points: |_, shards| crate::Points::per_shard(shards),
    build,
    changing: None,
};

/// Builds `python-memcached` for `ctx.shards` servers.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let why = "shardlab models python-memcached's servers of weight 1";
    weights::refuse(ctx, &spec.to_string(), why)?;
    Ok(Box::new(PythonMemcachedPartitioner::new(
        spec.to_string(),
        ctx.key_type,
        ctx.shards,
    )?))
}

/// The 15-bit hash memcached clients descended from cmemcache use (python-memcached's
/// `cmemcache_hash`, Couchbase's vBucket hash before its modulus):
/// `(crc32(key) >> 16) & 0x7fff`.
pub fn crc32_15(key: &[u8]) -> u32 {
    (CRC32.checksum(key) >> 16) & 0x7fff
}

/// python-memcached's choice among `servers` servers, all alive.
#[derive(Clone, Debug)]
pub struct PythonMemcachedPartitioner {
    label: String,
    /// How keys reach the client: `u64` keys as their decimal digits.
    key_type: KeyType,
    servers: u32,
}

impl PythonMemcachedPartitioner {
    /// The client over `servers` servers (at least 1).
    pub fn new(
        label: impl Into<String>,
        key_type: KeyType,
        servers: u32,
    ) -> Result<Self, AnalysisError> {
        check_shard_count(servers)?;
        Ok(PythonMemcachedPartitioner {
            label: label.into(),
            key_type,
            servers,
        })
    }

    fn hash_of(&self, key: &[u8]) -> u32 {
        crc32_15(self.key_type.as_text(key, &mut [0; 20]))
    }
}

impl Partitioner for PythonMemcachedPartitioner {
    /// Another placement: every key's hash redrawn ([`crate::placement::SaltedKeys`]).
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        Some(Box::new(crate::placement::SaltedKeys::new(self, salt)))
    }

    /// No structure: arithmetic on the key's hash.
    fn router_bytes(&self) -> Option<u64> {
        Some(0)
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.servers
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.hash_of(key) % self.servers
    }

    /// Every server (see [`super::scan_every_shard`]).
    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        super::scan_every_shard(self, start, end, out);
    }

    /// The same client over `shards` servers: `hash mod M`.
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

    /// The server taken out of the list: every key is rehashed over the N - 1 survivors.
    fn without_shard(
        &self,
        shard: ShardId,
        _keys: &KeyCounts,
    ) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
        check_removable(shard, self.servers)?;
        let fewer = Self::new(self.label.clone(), self.key_type, self.servers - 1)?;
        Ok(Some(Box::new(fewer)))
    }

    /// Every removal gives `hash mod (N - 1)` over the survivors.
    fn removal_effect(&self) -> RemovalEffect {
        RemovalEffect::Symmetric
    }

    /// A memcached client stores a key on one server.
    fn replicas(&self, key: &[u8], _rf: u32, out: &mut Vec<ShardId>) {
        out.push(self.shard_of(key));
    }

    /// See [`memcached_replica_refusal`].
    fn replica_refusal(&self) -> Option<String> {
        Some(memcached_replica_refusal(&self.label))
    }

    /// The 15-bit hash ([`crc32_15`]).
    fn detail(&self, key: &[u8]) -> Option<String> {
        Some(self.hash_of(key).to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_is_the_high_crc32_bits_mod_n() {
        // crc32("123456789") = 0xcbf43926 (the CRC-32 check value): (0xcbf4 & 0x7fff) = 19444.
        assert_eq!(crc32_15(b"123456789"), 19_444);
        let p = PythonMemcachedPartitioner::new("python-memcached", KeyType::Bytes, 5).unwrap();
        assert_eq!(p.shard_of(b"123456789"), 19_444 % 5);
        assert_eq!(p.detail(b"123456789").as_deref(), Some("19444"));
        assert_eq!(crc32_15(b""), 0);
        let u64_keys = PythonMemcachedPartitioner::new("p", KeyType::U64, 5).unwrap();
        assert_eq!(u64_keys.shard_of(&123_456_789u64.to_be_bytes()), 19_444 % 5);
        let grown = p.resized(7, &KeyCounts::new()).unwrap();
        assert_eq!(grown.shard_of(b"123456789"), 19_444 % 7);
        let fewer = p.without_shard(4, &KeyCounts::new()).unwrap().unwrap();
        assert_eq!(fewer.shard_of(b"123456789"), 19_444 % 4);
    }
}
