//! twemproxy (nutcracker) `distribution: ketama`, bit-exact with nutcracker 0.5.0 (Debian
//! `nutcracker`), checked by setting keys through a running nutcracker in front of
//! `redis-server` instances and finding them on the backends.
//!
//! - **Servers** are named `shard{i}` (`host:port:w shard{i}` in the pool's `servers:`), of
//!   weight 1, or of the whole-number weights given with `--weights` (nutcracker's `w`).
//!   nutcracker sorts its servers by name (shorter first, then bytewise: the numeric order of
//!   `i`). A server of weight `w` gets `floorf(pct x 160 / 4 x N + 1e-10) x 4` points, computed
//!   in 32-bit floats with `pct = (float)w / (float)W`, `W` the sum of the weights (the sum
//!   cast back to float from the double the `1e-10` makes): at equal weights 160 for most N,
//!   156 when the float product falls just below 40 (N = 25, 47, 50, 55, ...). Points
//!   `4j..4j+3` are the little-endian words of MD5(`"shard{i}-{j}"`). The points are sorted
//!   stably (glibc's qsort merge-sorts), none is dropped, and a point shared by two servers
//!   goes to the first of them.
//! - **Key**: `hash=H` of the key's bytes (the empty key hashes to 0, as nutcracker's
//!   `server_pool_hash` does); the owner is the first point at or after it, wrapping.
//!   nutcracker's hashes are matched as compiled, not as their textbooks: `fnv1_64`,
//!   `fnv1a_64`, `fnv1_32`, `fnv1a_32`, `one_at_a_time` and the 3-byte tail of `hsieh` read
//!   key bytes as signed `char` (a byte >= 0x80 is sign-extended); `fnv1a_64` runs in 32
//!   bits (offset basis and prime cut to their low 32 bits) and `fnv1_64` returns the low 32
//!   bits; `crc32` is libmemcached's 15-bit `(crc32 >> 16) & 0x7fff`, `crc32a` the standard
//!   CRC-32; `crc16` is XMODEM's table over a 32-bit register never cut to 16 bits; `murmur`
//!   is MurmurHash2 seeded `0xdeadbeef x len`; `jenkins` is lookup3 `hashlittle` with
//!   initval 13; `md5` the first 4 digest bytes little-endian.
//! - **Growth** adds server `shard{next}` (with weights: of the mean weight rounded to a whole
//!   number, at least 1, as nutcracker's weights are); **removal** drops a server's points.
//!   Both rebuild the continuum for the new N and W, so when N crosses a value where the
//!   float count changes (156 or 160 points), or the weights' shares change, every server's
//!   count of digests is computed again.

use crc::{Crc, CRC_16_XMODEM, CRC_32_ISO_HDLC};
use workloads::{KeyType, Spec};

use super::identities::{ByIdentity, Identities};
use super::ketama::memcached_replica_refusal;
use super::weights::Weights;
use super::{BuildContext, SchemeKind};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// The standard CRC-32 (`crc32a`, and the register of `crc32`).
const CRC32: Crc<u32> = Crc::<u32>::new(&CRC_32_ISO_HDLC);

/// CRC-16/XMODEM, whose one-byte checksums are nutcracker's `crc16tab`.
const CRC16: Crc<u16> = Crc::<u16>::new(&CRC_16_XMODEM);

/// The `hash:` names nutcracker accepts, in its order.
pub const HASHES: &[&str] = &[
    "one_at_a_time",
    "md5",
    "crc16",
    "crc32",
    "crc32a",
    "fnv1_64",
    "fnv1a_64",
    "fnv1_32",
    "fnv1a_32",
    "hsieh",
    "murmur",
    "jenkins",
];

/// nutcracker's default `hash:`.
const DEFAULT_HASH: &str = "fnv1a_64";

/// Registration of `twemproxy`.
pub const KIND: SchemeKind = SchemeKind {
    name: "twemproxy",
    about: "twemproxy (nutcracker 0.5.0) distribution: ketama over servers shard0..: 160 MD5 \
            points per server, key hash=H (fnv1a_64 by default); growth adds a server",
    system: |_| Some("nutcracker 0.5.0 ketama"),
    params: &[
        (
            "hash",
            "fnv1a_64 (nutcracker's default), md5, crc16, crc32, crc32a, fnv1_64, fnv1_32, \
             fnv1a_32, one_at_a_time, hsieh, murmur or jenkins",
        ),
        (
            "hash_tag",
            "two characters, as nutcracker's hash_tag (e.g. {}): a key holding the first and, \
             after it, the second with something between hashes only what is between (default: \
             none)",
        ),
    ],
    needs_warmup: |_| false,
    points: |_, shards| crate::Points::continuum(shards),
    build,
    changing: None,
};

/// Builds `twemproxy` for `ctx.shards` servers.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let label = spec.to_string();
    let weights = Weights::for_context(ctx)?;
    whole_weights(&weights, &label)?;
    let name = spec.get("hash").unwrap_or(DEFAULT_HASH);
    let Some(hash) = HASHES.iter().position(|h| *h == name) else {
        let message = format!(
            "hash={name} is not a nutcracker hash; use one of {}",
            HASHES.join(", ")
        );
        return Err(spec.error(message).into());
    };
    let tag = match spec.get("hash_tag") {
        None => None,
        Some(t) => match t.as_bytes() {
            &[open, close] => Some([open, close]),
            _ => {
                let message = format!(
                    "hash_tag={t} must be two characters, as nutcracker's hash_tag (e.g. {{}})"
                );
                return Err(spec.error(message).into());
            }
        },
    };
    let ids = Identities::first(ctx.shards, weights)?;
    Ok(Box::new(
        TwemproxyPartitioner::new(label, ctx.key_type, hash, ids).with_hash_tag(tag),
    ))
}

/// The part of `key` nutcracker hashes under `hash_tag` `tag`: what lies between the first
/// `tag[0]` and the next `tag[1]` after it, when that is not empty; else the whole key
/// (`server_pool_idx` in nc_server.c).
pub fn tagged(key: &[u8], tag: Option<[u8; 2]>) -> &[u8] {
    let Some([open, close]) = tag else {
        return key;
    };
    let Some(start) = key.iter().position(|&b| b == open) else {
        return key;
    };
    match key[start + 1..].iter().position(|&b| b == close) {
        Some(len) if len > 0 => &key[start + 1..start + 1 + len],
        _ => key,
    }
}

/// A key byte as nutcracker's `(uint32_t)key[x]` reads it: a signed `char`, sign-extended.
fn signed(b: u8) -> u32 {
    b as i8 as u32
}

/// nutcracker's hash number `hash` (an index into [`HASHES`]) of a non-empty key.
pub fn hash(hash: usize, key: &[u8]) -> u32 {
    match HASHES[hash] {
        "one_at_a_time" => one_at_a_time(key),
        "md5" => super::ketama::key_hash(key),
        "crc16" => key.iter().fold(0u32, |crc, &b| {
            let index = ((crc >> 8) ^ signed(b)) & 0xff;
            (crc << 8) ^ u32::from(CRC16.checksum(&[index as u8]))
        }),
        "crc32" => super::python_memcached::crc32_15(key),
        "crc32a" => CRC32.checksum(key),
        "fnv1_64" => key.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            h.wrapping_mul(0x0100_0000_01b3) ^ (b as i8 as u64)
        }) as u32,
        "fnv1a_64" => fnv1a_32bit(0x8422_2325, 0x1b3, key),
        "fnv1_32" => key.iter().fold(0x811c_9dc5u32, |h, &b| {
            h.wrapping_mul(0x0100_0193) ^ signed(b)
        }),
        "fnv1a_32" => fnv1a_32bit(0x811c_9dc5, 0x0100_0193, key),
        "hsieh" => hsieh(key),
        "murmur" => murmur2::murmur2(key, 0xdead_beef_u32.wrapping_mul(key.len() as u32)),
        _ => hashlittle(key, 13),
    }
}

/// FNV-1a in a 32-bit register over sign-extended bytes.
fn fnv1a_32bit(basis: u32, prime: u32, key: &[u8]) -> u32 {
    key.iter()
        .fold(basis, |h, &b| (h ^ signed(b)).wrapping_mul(prime))
}

/// Jenkins's one-at-a-time hash over sign-extended bytes.
fn one_at_a_time(key: &[u8]) -> u32 {
    let mut v = key.iter().fold(0u32, |mut v, &b| {
        v = v.wrapping_add(signed(b));
        v = v.wrapping_add(v << 10);
        v ^ (v >> 6)
    });
    v = v.wrapping_add(v << 3);
    v ^= v >> 11;
    v.wrapping_add(v << 15)
}

/// Paul Hsieh's SuperFastHash as nutcracker compiles it on x86-64 (16-bit reads little-endian,
/// the third byte of a 3-byte tail sign-extended).
fn hsieh(key: &[u8]) -> u32 {
    let get16 = |d: &[u8]| u32::from(d[0]) | (u32::from(d[1]) << 8);
    let mut hash = 0u32;
    let mut chunks = key.chunks_exact(4);
    for c in &mut chunks {
        hash = hash.wrapping_add(get16(c));
        let tmp = (get16(&c[2..]) << 11) ^ hash;
        hash = (hash << 16) ^ tmp;
        hash = hash.wrapping_add(hash >> 11);
    }
    let rest = chunks.remainder();
    match rest.len() {
        3 => {
            hash = hash.wrapping_add(get16(rest));
            hash ^= hash << 16;
            hash ^= signed(rest[2]) << 18;
            hash = hash.wrapping_add(hash >> 11);
        }
        2 => {
            hash = hash.wrapping_add(get16(rest));
            hash ^= hash << 11;
            hash = hash.wrapping_add(hash >> 17);
        }
        1 => {
            hash = hash.wrapping_add(u32::from(rest[0]));
            hash ^= hash << 10;
            hash = hash.wrapping_add(hash >> 1);
        }
        _ => {}
    }
    hash ^= hash << 3;
    hash = hash.wrapping_add(hash >> 5);
    hash ^= hash << 4;
    hash = hash.wrapping_add(hash >> 17);
    hash ^= hash << 25;
    hash.wrapping_add(hash >> 6)
}

/// Bob Jenkins's lookup3 `hashlittle` (nutcracker's `hash_jenkins` is initval 13).
fn hashlittle(key: &[u8], initval: u32) -> u32 {
    let init = 0xdead_beef_u32
        .wrapping_add(key.len() as u32)
        .wrapping_add(initval);
    let (mut a, mut b, mut c) = (init, init, init);
    let word = |k: &[u8]| {
        let mut w = [0u8; 4];
        w[..k.len()].copy_from_slice(k);
        u32::from_le_bytes(w)
    };
    let mut k = key;
    while k.len() > 12 {
        a = a.wrapping_add(word(&k[0..4]));
        b = b.wrapping_add(word(&k[4..8]));
        c = c.wrapping_add(word(&k[8..12]));
        // mix(a, b, c)
        a = a.wrapping_sub(c) ^ c.rotate_left(4);
        c = c.wrapping_add(b);
        b = b.wrapping_sub(a) ^ a.rotate_left(6);
        a = a.wrapping_add(c);
        c = c.wrapping_sub(b) ^ b.rotate_left(8);
        b = b.wrapping_add(a);
        a = a.wrapping_sub(c) ^ c.rotate_left(16);
        c = c.wrapping_add(b);
        b = b.wrapping_sub(a) ^ a.rotate_left(19);
        a = a.wrapping_add(c);
        c = c.wrapping_sub(b) ^ b.rotate_left(4);
        b = b.wrapping_add(a);
        k = &k[12..];
    }
    if k.is_empty() {
        return c;
    }
    a = a.wrapping_add(word(&k[..k.len().min(4)]));
    if k.len() > 4 {
        b = b.wrapping_add(word(&k[4..k.len().min(8)]));
    }
    if k.len() > 8 {
        c = c.wrapping_add(word(&k[8..]));
    }
    // final(a, b, c)
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(14));
    a ^= c;
    a = a.wrapping_sub(c.rotate_left(11));
    b ^= a;
    b = b.wrapping_sub(a.rotate_left(25));
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(16));
    a ^= c;
    a = a.wrapping_sub(c.rotate_left(4));
    b ^= a;
    b = b.wrapping_sub(a.rotate_left(14));
    c ^= b;
    c.wrapping_sub(b.rotate_left(24))
}

/// Fails unless every weight is what nutcracker's `host:port:w` takes: a whole number from 1,
/// their sum within its 32-bit `total_weight`.
fn whole_weights(weights: &Weights, label: &str) -> Result<(), AnalysisError> {
    let Some(w) = weights.get() else {
        return Ok(());
    };
    if let Some((i, w)) = w
        .iter()
        .enumerate()
        .find(|(_, w)| w.fract() != 0.0 || **w < 1.0)
    {
        return Err(AnalysisError::Config(format!(
            "scheme '{label}': weight {w} of shard {i} is not a nutcracker weight; nutcracker \
             reads `host:port:w` with w a whole number from 1"
        )));
    }
    let total: f64 = w.iter().sum();
    if total > f64::from(u32::MAX) {
        return Err(AnalysisError::Config(format!(
            "scheme '{label}': the weights sum to {total}, above the {} nutcracker's 32-bit \
             total weight holds",
            u32::MAX
        )));
    }
    Ok(())
}

/// nutcracker's weight of each server: the weights as given (whole numbers, see
/// [`whole_weights`]), a grown server's mean weight rounded to a whole number of at least 1,
/// or 1 each without weights.
fn server_weights(ids: &Identities) -> Vec<u32> {
    match ids.weights().get() {
        None => vec![1; ids.count() as usize],
        Some(w) => w.iter().map(|w| w.round().max(1.0) as u32).collect(),
    }
}

/// MD5 digests (4 points each) of a server of weight `weight` among `servers` whose weights
/// sum to `total`, as nutcracker's float arithmetic gives (`ketama_update`).
pub fn digests(weight: u32, total: u64, servers: u32) -> u32 {
    let pct = weight as f32 / total as f32;
    let product = pct * 160.0 / 4.0 * servers as f32;
    // `+ 0.0000000001` is a double; the sum is cast back to float before `floorf`.
    ((f64::from(product) + 0.000_000_000_1) as f32).floor() as u32
}

/// A nutcracker pool with `distribution: ketama` over servers `shard{id}`.
#[derive(Clone, Debug)]
pub struct TwemproxyPartitioner {
    label: String,
    /// How keys reach the proxy: `u64` keys as their decimal digits.
    key_type: KeyType,
    /// The index of the key hash in [`HASHES`].
    hash: usize,
    /// nutcracker's `hash_tag`, if any ([`tagged`]).
    tag: Option<[u8; 2]>,
    /// Server `i` is named `shard{ids[i]}`.
    ids: Identities,
    /// Every point and its server, sorted by point, first server first among equal points.
    points: Vec<(u32, ShardId)>,
}

impl TwemproxyPartitioner {
    /// The continuum of servers `shard{id}`, weighted by the identities' weights, with key hash
    /// `hash` (an index into [`HASHES`]).
    pub fn new(label: impl Into<String>, key_type: KeyType, hash: usize, ids: Identities) -> Self {
        let weights = server_weights(&ids);
        let total = weights.iter().map(|&w| u64::from(w)).sum::<u64>();
        // nutcracker's server order: by name, which for `shard{id}` is by id.
        let mut order: Vec<(u32, ShardId)> = ids
            .ids()
            .iter()
            .enumerate()
            .map(|(shard, &id)| (id, shard as ShardId))
            .collect();
        order.sort_unstable();
        let mut points = Vec::new();
        for (id, shard) in order {
            let count = digests(weights[shard as usize], total, ids.count());
            points.extend(super::ketama::digest_points(id, count).map(|p| (p, shard)));
        }
        points.sort_by_key(|p| p.0);
        TwemproxyPartitioner {
            label: label.into(),
            key_type,
            hash,
            tag: None,
            ids,
            points,
        }
    }

    /// The same pool with nutcracker's `hash_tag` `tag`.
    pub fn with_hash_tag(mut self, tag: Option<[u8; 2]>) -> Self {
        self.tag = tag;
        self
    }

    /// The key's hash and the index of its point (first at or after it, wrapping).
    fn point_of(&self, key: &[u8]) -> (u32, usize) {
        let mut digits = [0; 20];
        let key = tagged(self.key_type.as_text(key, &mut digits), self.tag);
        let h = if key.is_empty() {
            0
        } else {
            hash(self.hash, key)
        };
        let i = self.points.partition_point(|p| p.0 < h);
        (h, i % self.points.len())
    }

    /// Every point with its server, sorted by point.
    pub fn points(&self) -> &[(u32, ShardId)] {
        &self.points
    }
}

impl ByIdentity for TwemproxyPartitioner {
    fn identities(&self) -> &Identities {
        &self.ids
    }

    fn rebuilt(&self, ids: Identities) -> Result<Self, AnalysisError> {
        Ok(Self::new(self.label.clone(), self.key_type, self.hash, ids).with_hash_tag(self.tag))
    }
}

impl Partitioner for TwemproxyPartitioner {
    /// The continuum with every point redrawn ([`crate::ketama`]'s placement spread).
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        let mut redrawn = self.clone();
        crate::ketama::redraw_points(&mut redrawn.points, salt);
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
        // One server: nutcracker skips the hash.
        self.points[self.point_of(key).1].1
    }

    /// Every server (see [`super::scan_every_shard`]).
    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        super::scan_every_shard(self, start, end, out);
    }

    /// Adds servers `shard{next}` (or drops the last ones).
    fn resized(
        &self,
        shards: u32,
        _keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        self.resized_by_identity(shards)
    }

    /// Drops the server from the pool: the continuum is rebuilt without it.
    fn without_shard(
        &self,
        shard: ShardId,
        _keys: &KeyCounts,
    ) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
        self.without_by_identity(shard)
    }

    /// nutcracker stores a key on one server.
    fn replicas(&self, key: &[u8], _rf: u32, out: &mut Vec<ShardId>) {
        out.push(self.shard_of(key));
    }

    /// See [`memcached_replica_refusal`].
    fn replica_refusal(&self) -> Option<String> {
        Some(memcached_replica_refusal(&self.label))
    }

    /// The key's hash and the point that owns it, as u32 decimals.
    fn detail(&self, key: &[u8]) -> Option<String> {
        let (h, i) = self.point_of(key);
        Some(format!("hash={h} point={}", self.points[i].0))
    }

    /// The points and the server identities.
    fn router_bytes(&self) -> Option<u64> {
        Some(super::slice_bytes(&self.points) + super::slice_bytes(self.ids.ids()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_tag_keeps_what_lies_between_its_characters_when_not_empty() {
        let tag = Some(*b"{}");
        assert_eq!(tagged(b"a{user1}b", tag), b"user1");
        assert_eq!(tagged(b"{}x", tag), b"{}x");
        assert_eq!(tagged(b"{open", tag), b"{open");
        assert_eq!(tagged(b"x}{y}", tag), b"y");
        assert_eq!(tagged(b"a{user1}b", None), b"a{user1}b");
    }
    use crate::testing::{keys, moved};

    fn by_name(name: &str, key: &[u8]) -> u32 {
        hash(HASHES.iter().position(|h| *h == name).unwrap(), key)
    }

    fn pool(name: &str, shards: u32) -> TwemproxyPartitioner {
        let h = HASHES.iter().position(|h| *h == name).unwrap();
        let ids = Identities::first(shards, Weights::equal()).unwrap();
        TwemproxyPartitioner::new("twemproxy", KeyType::Bytes, h, ids)
    }

    #[test]
    fn hashes_match_their_published_values_on_ascii_keys() {
        // FNV-1a 32 and FNV-1 32 of "a" (the FNV test vectors).
        assert_eq!(by_name("fnv1a_32", b"a"), 0xe40c_292c);
        assert_eq!(by_name("fnv1_32", b"a"), 0x050c_5d7e);
        // The low 32 bits of FNV-1 64 of "a" (0xaf63bd4c8601b7be).
        assert_eq!(by_name("fnv1_64", b"a"), 0x8601_b7be);
        // CRC-32 and CRC-16/XMODEM check values of "123456789".
        assert_eq!(by_name("crc32a", b"123456789"), 0xcbf4_3926);
        assert_eq!(by_name("crc16", b"123456789") & 0xffff, 0x31c3);
        assert_eq!(by_name("crc32", b"123456789"), 0x4bf4);
        // lookup3's published vectors: hashlittle("", 0) = 0xdeadbeef and "Four score and
        // seven years ago" = 0x17770551 (initval 0), 0xcd628161 (initval 1).
        assert_eq!(hashlittle(b"", 0), 0xdead_beef);
        assert_eq!(
            hashlittle(b"Four score and seven years ago", 0),
            0x1777_0551
        );
        assert_eq!(
            hashlittle(b"Four score and seven years ago", 1),
            0xcd62_8161
        );
        assert_eq!(by_name("jenkins", b""), 0xdead_beef + 13);
        // Jenkins one-at-a-time of "a" (Wikipedia: 0xca2e9442).
        assert_eq!(by_name("one_at_a_time", b"a"), 0xca2e_9442);
        // MurmurHash2 seeded 0xdeadbeef x len.
        assert_eq!(
            by_name("murmur", b"abcd"),
            murmur2::murmur2(b"abcd", 0xdead_beef_u32.wrapping_mul(4))
        );
    }

    #[test]
    fn bytes_above_0x7f_are_sign_extended_where_nutcracker_reads_a_char() {
        // FNV-1a 32 of 0xff: textbook (0x811c9dc5 ^ 0xff) x prime; nutcracker xors 0xffffffff.
        let textbook = (0x811c_9dc5u32 ^ 0xff).wrapping_mul(0x0100_0193);
        let signed = (0x811c_9dc5u32 ^ 0xffff_ffff).wrapping_mul(0x0100_0193);
        assert_eq!(by_name("fnv1a_32", b"\xff"), signed);
        assert_ne!(signed, textbook);
        // fnv1a_64 in 32 bits: basis 0x84222325, prime 0x1b3.
        assert_eq!(
            by_name("fnv1a_64", b"a"),
            (0x8422_2325u32 ^ 0x61).wrapping_mul(0x1b3)
        );
        // hsieh: only the third byte of a 3-byte tail is signed.
        assert_ne!(by_name("hsieh", b"ab\xff"), by_name("hsieh", b"ab\x7f"));
        assert_eq!(
            by_name("crc32a", "é".as_bytes()),
            CRC32.checksum("é".as_bytes())
        );
    }

    #[test]
    fn points_follow_nutcrackers_float_count_and_ties_go_to_the_first_server() {
        assert_eq!(digests(1, 4, 4), 40);
        assert_eq!(digests(1, 24, 24), 40);
        assert_eq!(digests(1, 25, 25), 39);
        assert_eq!(digests(1, 47, 47), 39);
        assert_eq!(pool("md5", 25).points().len(), 25 * 156);
        let p = pool("md5", 4);
        assert_eq!(p.points().len(), 640);
        assert!(p.points().windows(2).all(|w| w[0].0 <= w[1].0));
        // The empty key hashes to 0: the first point's server.
        assert_eq!(p.shard_of(b""), p.points()[0].1);
        assert!(p.detail(b"").unwrap().starts_with("hash=0 point="));
        for key in keys(2000) {
            let h = super::super::ketama::key_hash(&key);
            let owner = p.points().iter().find(|q| q.0 >= h);
            assert_eq!(p.shard_of(&key), owner.unwrap_or(&p.points()[0]).1);
        }
        let five = p.resized(5, &KeyCounts::new()).unwrap();
        let (share, to_new) = moved(&p, five.as_ref(), &keys(20_000), Some(4));
        assert!((share - 0.2).abs() < 0.05 && to_new == 1.0, "{share}");
    }

    #[test]
    fn weights_give_nutcrackers_float_counts_and_must_be_whole() {
        // 1,2,3,1 over 4 servers: 40 x 4 x w / 7 digests, floored.
        let w = Weights::new(vec![1.0, 2.0, 3.0, 1.0]).unwrap();
        let ids = Identities::first(4, w).unwrap();
        let p = TwemproxyPartitioner::new("twemproxy", KeyType::Bytes, 1, ids.clone());
        assert_eq!(
            [digests(1, 7, 4), digests(2, 7, 4), digests(3, 7, 4)],
            [22, 45, 68]
        );
        assert_eq!(p.points().len(), 4 * (22 + 45 + 68 + 22));
        // Growth adds a server of the mean weight (1.75) rounded: 2.
        assert_eq!(server_weights(&ids.resized(5).unwrap()), [1, 2, 3, 1, 2]);
        let half = Weights::new(vec![1.0, 1.5]).unwrap();
        let err = whole_weights(&half, "twemproxy").unwrap_err().to_string();
        assert!(err.contains("weight 1.5 of shard 1"), "{err}");
        let huge = Weights::new(vec![4e9, 4e9]).unwrap();
        assert!(whole_weights(&huge, "twemproxy").is_err());
    }

    #[test]
    fn md5_pools_place_every_non_empty_key_as_libketama_does() {
        // Same names, digests and key hash: nutcracker with `hash: md5` is libketama's
        // continuum (the claim), weighted or not, but for the empty key (hash 0) and
        // a point two servers share (none here).
        for weights in [vec![], vec![1.0, 2.0, 3.0, 1.0]] {
            let ids = Identities::first(4, Weights::new(weights).unwrap()).unwrap();
            let md5 = HASHES.iter().position(|h| *h == "md5").unwrap();
            let nutcracker =
                TwemproxyPartitioner::new("twemproxy", KeyType::Bytes, md5, ids.clone());
            let ketama = crate::ketama::KetamaPartitioner::new("ketama", KeyType::Bytes, ids);
            assert_eq!(nutcracker.points(), ketama.points());
            for key in keys(5000) {
                assert_eq!(nutcracker.shard_of(&key), ketama.shard_of(&key));
            }
        }
    }
}
