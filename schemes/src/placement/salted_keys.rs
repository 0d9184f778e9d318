//! [`SaltedKeys`]: a scheme that places every key as if its identity were redrawn, for the
//! placement spread of the intervals (the engine's `metrics::placement`).

use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// `inner` routing each key by the 8 bytes `xxh3_64(key, seed = salt)` (big-endian) instead
/// of the key: the same layout (shard count, points, tables), every key placed by a fresh
/// independent draw of its hash. Only owners are asked of it: a scan contacts what `inner`'s
/// would, and it neither grows nor loses shards.
pub struct SaltedKeys<'a> {
    inner: &'a dyn Partitioner,
    salt: u64,
}

impl<'a> SaltedKeys<'a> {
    /// `inner` with its keys' identities redrawn by `salt`.
    pub fn new(inner: &'a dyn Partitioner, salt: u64) -> Self {
        SaltedKeys { inner, salt }
    }

    /// The key `inner` sees for `key`.
    #[inline]
    pub fn salted(&self, key: &[u8]) -> [u8; 8] {
        xxhash_rust::xxh3::xxh3_64_with_seed(key, self.salt).to_be_bytes()
    }
}

impl Partitioner for SaltedKeys<'_> {
    fn label(&self) -> &str {
        self.inner.label()
    }

    fn shard_count(&self) -> u32 {
        self.inner.shard_count()
    }

    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.inner.shard_of(&self.salted(key))
    }

    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        self.inner.scan_shards(start, end, out)
    }

    fn resized(
        &self,
        _shards: u32,
        _keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        Err(AnalysisError::Config(
            "a placement drawn for the spread of the intervals is not resized".into(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::ModHashPartitioner;

    #[test]
    fn each_salt_is_another_placement_of_the_same_keys() {
        let hash = ModHashPartitioner::new("hash", 8).unwrap();
        let keys: Vec<Vec<u8>> = (0u64..4000).map(|k| k.to_be_bytes().to_vec()).collect();
        let owners = |p: &dyn Partitioner| keys.iter().map(|k| p.shard_of(k)).collect::<Vec<_>>();
        let (a, b) = (SaltedKeys::new(&hash, 1), SaltedKeys::new(&hash, 2));
        let (plain, one, two) = (owners(&hash), owners(&a), owners(&b));
        assert_eq!(one, owners(&SaltedKeys::new(&hash, 1)));
        // Independent draws agree on about 1 key in 8.
        for other in [&one, &two] {
            let same = plain.iter().zip(other).filter(|(x, y)| x == y).count();
            assert!((400..600).contains(&same), "{same}");
        }
        let same = one.iter().zip(&two).filter(|(x, y)| x == y).count();
        assert!((400..600).contains(&same), "{same}");
    }
}
