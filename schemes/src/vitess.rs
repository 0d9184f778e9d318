//! Vitess's primary vindexes `hash` and `xxhash` over the shard ranges Vitess generates,
//! bit-exact with Vitess (`go/vt/vtgate/vindexes/hash.go`, `xxhash.go`, `go/vt/key`).
//!
//! - **`vitess-hash`**: the 8-byte keyspace id is the big-endian u64 of the key encrypted by
//!   DES-ECB with the all-zero key (Vitess's triple DES with a zero 24-byte key is single
//!   DES). It maps integers only, so it needs `--key-type u64`; a key of another length is
//!   read as its bytes big-endian (shorter ones zero-padded on the left).
//! - **`vitess-xxhash`**: the keyspace id is xxh64 (seed 0) of the key's bytes written
//!   little-endian; a `--key-type u64` key is hashed as its decimal text, as Vitess hashes an
//!   integer's SQL text.
//! - **Shards** are keyspace-id ranges as `key.GenerateShardRanges(N)` cuts them: the first
//!   byte of the keyspace id (first two bytes above 256 shards, up to 65536) against the ends
//!   `floor(i x 256 / N)`, so 2 shards are `-80` and `80-` and N not a power of two gets
//!   ranges differing by one unit.
//! - **Growth and shrink** are a reshard to the ranges of M shards; keys move when their
//!   range's owner changes. A shard is never removed alone (a merge is a reshard), and its
//!   replicas are tablets of the same shard.

use des::cipher::generic_array::GenericArray;
use des::cipher::{BlockEncrypt, KeyInit};
use des::Des;
use workloads::{KeyType, Spec};

use super::{check_shard_count, weights, BuildContext, SchemeKind};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// The most shards `GenerateShardRanges` cuts (two-byte prefixes).
const MAX_SHARDS: u32 = 65_536;

/// Registration of `vitess-hash`.
pub const HASH_KIND: SchemeKind = SchemeKind {
    name: "vitess-hash",
    about: "Vitess hash vindex (--key-type u64): keyspace id = DES(zero key) of the big-endian \
            u64, shards as key.GenerateShardRanges cuts them; growth = reshard to M ranges",
    system: |_| Some("Vitess hash vindex"),
    params: &[],
    needs_warmup: |_| false,
    points: |_, shards| crate::Points::per_shard(shards),
    build: |spec, ctx| build(spec, ctx, Vindex::Hash),
    changing: None,
};

/// Registration of `vitess-xxhash`.
pub const XXHASH_KIND: SchemeKind = SchemeKind {
    name: "vitess-xxhash",
    about: "Vitess xxhash vindex: keyspace id = xxh64(key) little-endian, shards as \
            key.GenerateShardRanges cuts them; growth = reshard to M ranges",
    system: |_| Some("Vitess xxhash vindex"),
    params: &[],
    needs_warmup: |_| false,
    points: |_, shards| crate::Points::per_shard(shards),
    build: |spec, ctx| build(spec, ctx, Vindex::XxHash),
    changing: None,
};

/// Builds a Vitess keyspace of `ctx.shards` shards with `vindex`.
fn build(
    spec: &Spec,
    ctx: &BuildContext<'_>,
    vindex: Vindex,
) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let why = "Vitess cuts the keyspace-id space into equal ranges";
    weights::refuse(ctx, &spec.to_string(), why)?;
    if vindex == Vindex::Hash && ctx.key_type != KeyType::U64 {
        let message = "Vitess's hash vindex maps integers: give --key-type u64 (or use \
                       vitess-xxhash for other keys)";
        return Err(spec.error(message.into()).into());
    }
    let keyspace = VitessPartitioner::new(spec.to_string(), vindex, ctx.key_type, ctx.shards)?;
    Ok(Box::new(keyspace))
}

/// The primary vindex that makes a keyspace id of a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vindex {
    /// `hash`: DES with the zero key of the big-endian u64.
    Hash,
    /// `xxhash`: xxh64 of the bytes, little-endian.
    XxHash,
}

/// The keyspace id of the `hash` vindex for `id`.
pub fn hash_keyspace_id(id: u64) -> [u8; 8] {
    let cipher = Des::new(&GenericArray::from([0u8; 8]));
    let mut block = GenericArray::from(id.to_be_bytes());
    cipher.encrypt_block(&mut block);
    block.into()
}

/// The keyspace id of the `xxhash` vindex for `bytes`.
pub fn xxhash_keyspace_id(bytes: &[u8]) -> [u8; 8] {
    xxhash_rust::xxh64::xxh64(bytes, 0).to_le_bytes()
}

/// The ends of the ranges `key.GenerateShardRanges(shards)` cuts, in prefix units (256, or
/// 65536 above 256 shards): `floor(i x units / shards)` for i in 1..=shards, computed in
/// `float64` as Vitess does.
pub fn shard_range_ends(shards: u32) -> Vec<u32> {
    let units = if shards <= 256 { 256 } else { MAX_SHARDS };
    let size = f64::from(units) / f64::from(shards);
    (1..=shards).map(|i| (f64::from(i) * size) as u32).collect()
}

/// A keyspace of N shards placed by one vindex.
#[derive(Clone, Debug)]
pub struct VitessPartitioner {
    label: String,
    vindex: Vindex,
    key_type: KeyType,
    /// The end of each shard's range in prefix units.
    ends: Vec<u32>,
}

impl VitessPartitioner {
    /// A keyspace of `shards` shards (1..=65536) cut by `GenerateShardRanges`.
    pub fn new(
        label: impl Into<String>,
        vindex: Vindex,
        key_type: KeyType,
        shards: u32,
    ) -> Result<Self, AnalysisError> {
        check_shard_count(shards)?;
        if shards > MAX_SHARDS {
            let message = format!("Vitess generates at most {MAX_SHARDS} shard ranges");
            return Err(AnalysisError::Config(message));
        }
        Ok(VitessPartitioner {
            label: label.into(),
            vindex,
            key_type,
            ends: shard_range_ends(shards),
        })
    }

    /// The keyspace id of `key`.
    pub fn keyspace_id(&self, key: &[u8]) -> [u8; 8] {
        match self.vindex {
            Vindex::Hash => {
                let id = key.iter().fold(0u64, |a, &b| a << 8 | u64::from(b));
                hash_keyspace_id(id)
            }
            Vindex::XxHash => xxhash_keyspace_id(self.key_type.as_text(key, &mut [0; 20])),
        }
    }

    /// The shard names as Vitess writes them (`-80`, `80-`).
    pub fn shard_names(&self) -> Vec<String> {
        let units = if self.ends.len() <= 256 {
            256
        } else {
            MAX_SHARDS
        };
        let hex = |v: u32| match (v, units) {
            (0, _) => String::new(),
            (v, u) if v == u => String::new(),
            (v, 256) => format!("{v:02x}"),
            (v, _) => format!("{v:04x}"),
        };
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(&self.ends)
            .map(|(s, &e)| format!("{}-{}", hex(s), hex(e)))
            .collect()
    }
}

impl Partitioner for VitessPartitioner {
    /// Another placement: every key's hash redrawn ([`crate::placement::SaltedKeys`]).
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        Some(Box::new(crate::placement::SaltedKeys::new(self, salt)))
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.ends.len() as u32
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        let id = self.keyspace_id(key);
        let prefix = if self.ends.len() <= 256 {
            u32::from(id[0])
        } else {
            u32::from(u16::from_be_bytes([id[0], id[1]]))
        };
        self.ends.partition_point(|&end| end <= prefix) as ShardId
    }

    /// Every shard: keyspace ids are hashes of the keys.
    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        super::scan_every_shard(self, start, end, out);
    }

    /// A reshard to the ranges of `shards` shards.
    fn resized(
        &self,
        shards: u32,
        _keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        let label = self.label.clone();
        let grown = Self::new(label, self.vindex, self.key_type, shards)?;
        Ok(Box::new(grown))
    }

    /// Only the shard: its replicas are tablets of the same shard.
    fn replicas(&self, key: &[u8], _rf: u32, out: &mut Vec<ShardId>) {
        out.push(self.shard_of(key));
    }

    /// A shard's replicas are replica tablets of that shard, not other shards.
    fn replica_refusal(&self) -> Option<String> {
        Some(format!(
            "scheme '{}' (Vitess): a shard's replicas are replica tablets of the same shard, \
             never other shards; plan with --replicas 1",
            self.label
        ))
    }

    /// Vitess removes no shard alone: merging shards is a reshard.
    fn removal_refusal(&self) -> Option<String> {
        Some(format!(
            "scheme '{}' (Vitess) never removes a shard alone: a failed primary is replaced by a \
             replica tablet of the same shard, and merging shards is a reshard",
            self.label
        ))
    }

    /// The keyspace id, 16 lowercase hex digits.
    fn detail(&self, key: &[u8]) -> Option<String> {
        let id = self.keyspace_id(key);
        Some(id.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// The range ends.
    fn router_bytes(&self) -> Option<u64> {
        Some(super::slice_bytes(&self.ends))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_gives_the_keyspace_ids_of_vitess_hash_test() {
        // TestHashMap in vitessio/vitess go/vt/vtgate/vindexes/hash_test.go, ids 1 to 6.
        let cases: [(u64, [u8; 8]); 6] = [
            (1, [0x16, 0x6b, 0x40, 0xb4, 0x4a, 0xba, 0x4b, 0xd6]),
            (2, [0x06, 0xe7, 0xea, 0x22, 0xce, 0x92, 0x70, 0x8f]),
            (3, [0x4e, 0xb1, 0x90, 0xc9, 0xa2, 0xfa, 0x16, 0x9c]),
            (4, [0xd2, 0xfd, 0x88, 0x67, 0xd5, 0x0d, 0x2d, 0xfe]),
            (5, [0x70, 0xbb, 0x02, 0x3c, 0x81, 0x0c, 0xa8, 0x7a]),
            (6, [0xf0, 0x98, 0x48, 0x0a, 0xc4, 0xc4, 0xbe, 0x71]),
        ];
        let two = VitessPartitioner::new("v", Vindex::Hash, KeyType::U64, 2).unwrap();
        for (id, ksid) in cases {
            assert_eq!(hash_keyspace_id(id), ksid, "id {id}");
            let key = id.to_be_bytes();
            assert_eq!(two.shard_of(&key), u32::from(ksid[0] >= 0x80), "id {id}");
        }
        assert_eq!(
            two.detail(&1u64.to_be_bytes()).as_deref(),
            Some("166b40b44aba4bd6")
        );
    }

    #[test]
    fn xxhash_gives_the_keyspace_ids_of_vitess_xxhash_test() {
        // TestXXHashMap in go/vt/vtgate/vindexes/xxhash_test.go: strings, integers as their
        // text, NULL as no bytes.
        let cases: [(&[u8], [u8; 8]); 7] = [
            (b"test1", [0xd0, 0x1a, 0xb7, 0xe4, 0xd6, 0x97, 0x8f, 0x0b]),
            (b"test2", [0x87, 0xeb, 0x11, 0x71, 0x4c, 0x0a, 0x0e, 0x89]),
            (
                b"testaverylongvaluetomakesurethisworks",
                [0x81, 0xd8, 0xc3, 0x8e, 0x0d, 0x85, 0x0e, 0x6a],
            ),
            (b"1", [0xd4, 0x64, 0x05, 0x36, 0x76, 0x12, 0xb4, 0xb7]),
            (b"", [0x99, 0xe9, 0xd8, 0x51, 0x37, 0xdb, 0x46, 0xef]),
            (b"-1", [0xd8, 0xe2, 0xa6, 0xa7, 0xc8, 0xc7, 0x62, 0x3d]),
            (
                b"18446744073709551615",
                [0x47, 0x7c, 0xfa, 0x8d, 0x6d, 0x8f, 0x1f, 0x8d],
            ),
        ];
        for (key, ksid) in cases {
            assert_eq!(xxhash_keyspace_id(key), ksid, "{key:?}");
        }
        let u64_keys = VitessPartitioner::new("v", Vindex::XxHash, KeyType::U64, 4).unwrap();
        let max = u64::MAX.to_be_bytes();
        assert_eq!(u64_keys.keyspace_id(&max), cases[6].1);
        // 0x47 is in the second of four ranges, 40-80.
        assert_eq!(u64_keys.shard_of(&max), 1);
    }

    #[test]
    fn ranges_are_cut_as_generate_shard_ranges_cuts_them() {
        let names = |n: u32| {
            VitessPartitioner::new("v", Vindex::XxHash, KeyType::Bytes, n)
                .unwrap()
                .shard_names()
        };
        assert_eq!(names(1), ["-"]);
        assert_eq!(names(2), ["-80", "80-"]);
        assert_eq!(names(3), ["-55", "55-aa", "aa-"]);
        assert_eq!(names(5), ["-33", "33-66", "66-99", "99-cc", "cc-"]);
        assert_eq!(names(512)[..2], ["-0080", "0080-0100"]);
        assert_eq!(names(512)[511], "ff80-");
        assert!(VitessPartitioner::new("v", Vindex::Hash, KeyType::U64, 65_537).is_err());
        let p = VitessPartitioner::new("v", Vindex::XxHash, KeyType::Bytes, 3).unwrap();
        // A keyspace id starting 0x55 is the first of 55-aa.
        let mut key = 0u64;
        while xxhash_keyspace_id(&key.to_be_bytes())[0] != 0x55 {
            key += 1;
        }
        assert_eq!(p.shard_of(&key.to_be_bytes()), 1);
        assert_eq!(p.resized(6, &KeyCounts::new()).unwrap().shard_count(), 6);
    }
}
