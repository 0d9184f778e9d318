//! libketama's consistent hashing, the continuum memcached clients have shared for over a
//! decade (libketama, libmemcached's `MEMCACHED_BEHAVIOR_KETAMA`, twemproxy's ketama with
//! `hash: md5`, uhashring's `hash_fn="ketama"`), bit-exact with PyPI `uhashring` 2.5.
//!
//! - **Servers** are named `shard{i}` (shard i = server i); server `s` of weight `w` gets
//!   `floor(40 x N x w / W)` "virtual nodes" (40 at equal weights), `W` the sum of the
//!   weights. Virtual node `j` is the MD5 digest of `"shard{i}-{j}"`, which gives 4 points:
//!   its bytes 0-3, 4-7, 8-11 and 12-15 read as little-endian u32.
//! - **Key**: the first 4 bytes of MD5(key) as a little-endian u32; the owner is the server
//!   of the first point at or after it, wrapping to the first point (libketama's
//!   `ketama_get_server`). uhashring takes the first point strictly after it (`bisect`):
//!   the two differ only for a key whose hash equals a point exactly.
//! - Two servers with the same point: the later server keeps it (uhashring's point table is
//!   a dict written in server order).
//! - **Growth** adds server `shard{next}` (the next unused number) with the mean weight: its
//!   points join the continuum and no other point moves. **Removal** drops a server's
//!   points; the survivors keep their names.

use md5::{Digest, Md5};
use workloads::{KeyType, Spec};

use super::identities::{ByIdentity, Identities};
use super::weights::Weights;
use super::{BuildContext, SchemeKind};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// libketama's virtual nodes per server at equal weights (`40 x N x w / W`).
const VNODES: f64 = 40.0;

/// Registration of `ketama`.
pub const KIND: SchemeKind = SchemeKind {
    name: "ketama",
    about: "libketama / uhashring continuum over servers shard0..: 40 MD5 digests per server, \
            4 points each; growth adds a server's points, removal drops them",
    system: |_| Some("libketama continuum, uhashring 2.5"),
    params: &[],
    needs_warmup: |_| false,
    points: |_, shards| crate::Points::continuum(shards),
    build,
    changing: None,
};

/// Builds `ketama` for `ctx.shards` servers, weighted by `ctx.weights` when given.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let ids = Identities::first(ctx.shards, Weights::for_context(ctx)?)?;
    Ok(Box::new(KetamaPartitioner::new(
        spec.to_string(),
        ctx.key_type,
        ids,
    )))
}

/// The key's position on the continuum: the first 4 bytes of MD5(key), little-endian.
pub fn key_hash(key: &[u8]) -> u32 {
    let digest = Md5::digest(key);
    u32::from_le_bytes([digest[0], digest[1], digest[2], digest[3]])
}

/// The points of server `shard{id}` with `digests` virtual nodes: for each `j`, the four
/// little-endian words of MD5(`"shard{id}-{j}"`), in order (libketama's and nutcracker's).
pub fn digest_points(id: u32, digests: u32) -> impl Iterator<Item = u32> {
    (0..digests).flat_map(move |j| {
        let digest = Md5::digest(format!("shard{id}-{j}").as_bytes());
        let word =
            |i: usize| u32::from_le_bytes([digest[i], digest[i + 1], digest[i + 2], digest[i + 3]]);
        [word(0), word(4), word(8), word(12)]
    })
}

/// Another placement of a continuum's points, for the placement spread of the intervals:
/// each point moved to the high half of `xxh3_64` of it (seed `salt`), as other server names
/// would place them; each server keeps its number of points.
pub(crate) fn redraw_points(points: &mut Vec<(u32, ShardId)>, salt: u64) {
    for p in points.iter_mut() {
        p.0 = (xxhash_rust::xxh3::xxh3_64_with_seed(&p.0.to_be_bytes(), salt) >> 32) as u32;
    }
    points.sort_unstable();
    points.dedup_by_key(|p| p.0);
}

/// A ketama continuum over servers `shard{id}`.
#[derive(Clone, Debug)]
pub struct KetamaPartitioner {
    label: String,
    /// How keys reach the client: `u64` keys as their decimal digits.
    key_type: KeyType,
    /// Server `i` is named `shard{ids[i]}`.
    ids: Identities,
    /// Every point and its server, sorted by point, one server per point.
    points: Vec<(u32, ShardId)>,
}

impl KetamaPartitioner {
    /// The continuum of servers `shard{id}` for these identities and weights.
    pub fn new(label: impl Into<String>, key_type: KeyType, ids: Identities) -> Self {
        let n = f64::from(ids.count());
        let total = ids.weights().get().map_or(n, |w| w.iter().sum::<f64>());
        let mut points = Vec::new();
        for (shard, &id) in ids.ids().iter().enumerate() {
            let w = ids.weights().get().map_or(1.0, |w| w[shard]);
            // Exact for integer weights: the quotient of two small integers rounds to the
            // integer when it is one, as uhashring's `//` gives.
            let vnodes = (VNODES * n * w / total).floor() as u32;
            points.extend(digest_points(id, vnodes).map(|p| (p, shard as ShardId)));
        }
        // The later server keeps a shared point.
        points.sort_unstable();
        points.reverse();
        points.dedup_by_key(|p| p.0);
        points.reverse();
        KetamaPartitioner {
            label: label.into(),
            key_type,
            ids,
            points,
        }
    }

    /// The index in `points` of the first point at or after `key`'s hash, wrapping.
    fn point_of(&self, key: &[u8]) -> (u32, usize) {
        let hash = key_hash(self.key_type.as_text(key, &mut [0; 20]));
        let i = self.points.partition_point(|p| p.0 < hash);
        (hash, if i == self.points.len() { 0 } else { i })
    }

    /// Every point of the continuum with its server, sorted by point.
    pub fn points(&self) -> &[(u32, ShardId)] {
        &self.points
    }
}

impl ByIdentity for KetamaPartitioner {
    fn identities(&self) -> &Identities {
        &self.ids
    }

    fn rebuilt(&self, ids: Identities) -> Result<Self, AnalysisError> {
        Ok(KetamaPartitioner::new(
            self.label.clone(),
            self.key_type,
            ids,
        ))
    }
}

impl Partitioner for KetamaPartitioner {
    /// The continuum with every point redrawn (the high half of `xxh3_64` of the point,
    /// seed `salt`), as other server names would place them: each server keeps its number
    /// of points, and every key's owner is a fresh draw of the arcs.
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        let mut redrawn = self.clone();
        redraw_points(&mut redrawn.points, salt);
        Some(Box::new(redrawn))
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.ids.count()
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        // A server of a tiny weight may get no point; with no point at all, server 0.
        let (_, i) = self.point_of(key);
        self.points.get(i).map_or(0, |p| p.1)
    }

    /// Every server (see [`super::scan_every_shard`]).
    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        super::scan_every_shard(self, start, end, out);
    }

    /// Adds servers `shard{next}` (or drops the last ones): only their keys move.
    fn resized(
        &self,
        shards: u32,
        _keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        self.resized_by_identity(shards)
    }

    /// Drops the server's points: its keys go to the next point's server.
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

    /// The key's hash and the point that owns it, as u32 decimals.
    fn detail(&self, key: &[u8]) -> Option<String> {
        let (hash, i) = self.point_of(key);
        let point = self.points.get(i).map_or(0, |p| p.0);
        Some(format!("hash={hash} point={point}"))
    }

    /// The points and the server identities.
    fn router_bytes(&self) -> Option<u64> {
        Some(super::slice_bytes(&self.points) + super::slice_bytes(self.ids.ids()))
    }
}

/// Why memcached clients (`ketama`, `python-memcached`, `pymemcache-rendezvous`) have no
/// replicas on other shards: the client stores each key on the one server it picks.
pub fn memcached_replica_refusal(label: &str) -> String {
    format!(
        "scheme '{label}': a memcached client stores each key on the one server it picks, \
         with no copy on another server; plan with --replicas 1"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{keys, moved, moved_on_removal, shares};

    fn ketama(shards: u32, weights: &[f64]) -> KetamaPartitioner {
        let w = Weights::new(weights.to_vec()).unwrap();
        let ids = Identities::first(shards, w).unwrap();
        KetamaPartitioner::new("ketama", KeyType::Bytes, ids)
    }

    #[test]
    fn points_are_the_little_endian_words_of_the_md5_of_server_dash_j() {
        // The first point of server shard0: MD5("shard0-0"), bytes 0-3 little-endian.
        let digest = Md5::digest(b"shard0-0");
        let first = u32::from_le_bytes([digest[0], digest[1], digest[2], digest[3]]);
        let k = ketama(1, &[]);
        assert_eq!(k.points().len(), 160);
        assert!(k.points().iter().any(|p| p.0 == first));
        // MD5("") = d41d8cd98f00b204e9800998ecf8427e: its first 4 bytes little-endian.
        assert_eq!(key_hash(b""), 0xd98c_1dd4);
        let three = ketama(3, &[]);
        assert_eq!(three.points().len(), 480);
        assert!(three.points().windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn the_owner_is_the_first_point_at_or_after_the_hash_wrapping() {
        let k = ketama(4, &[]);
        for key in keys(2000) {
            let h = key_hash(&key);
            let owner = k
                .points()
                .iter()
                .find(|p| p.0 >= h)
                .unwrap_or(&k.points()[0]);
            assert_eq!(k.shard_of(&key), owner.1);
        }
        let detail = k.detail(b"foo").unwrap();
        assert!(detail.starts_with(&format!("hash={} point=", key_hash(b"foo"))));
    }

    #[test]
    fn weights_give_vnodes_in_proportion_and_growth_moves_keys_only_to_the_new_server() {
        let k = ketama(2, &[1.0, 3.0]);
        // floor(40 x 2 x 1 / 4) = 20 and 60 digests, 4 points each.
        let counts = |k: &KetamaPartitioner, s: u32| k.points().iter().filter(|p| p.1 == s).count();
        assert_eq!((counts(&k, 0), counts(&k, 1)), (80, 240));
        let keys = keys(40_000);
        let s = shares(&k, &keys);
        assert!((s[0] - 0.25).abs() < 0.05, "{s:?}");

        let four = ketama(4, &[]);
        let five = four.resized(5, &KeyCounts::new()).unwrap();
        let (share, to_new) = moved(&four, five.as_ref(), &keys, Some(4));
        assert!(
            (share - 0.2).abs() < 0.05 && to_new == 1.0,
            "{share} {to_new}"
        );
        let without = four.without_shard(1, &KeyCounts::new()).unwrap().unwrap();
        assert_eq!(moved_on_removal(&four, without.as_ref(), &keys, 1), 0.0);
        assert!(four.replica_refusal().unwrap().contains("one server"));
    }
}
