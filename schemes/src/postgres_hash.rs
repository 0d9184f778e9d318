//! PostgreSQL's hash partitioning (`PARTITION BY HASH (k)`, modulus N, partition i =
//! remainder i), bit-exact with PostgreSQL 11+ (`partbounds.c`
//! `compute_partition_hash_value`, `src/common/hashfn.c`), checked against Debian's
//! PostgreSQL 15.
//!
//! - The row hash is `hash_combine64(0, h) = h + 0x49a0f4dd15e5a8e3` (wrapping), where `h`
//!   is the column type's extended hash with seed `HASH_PARTITION_SEED`
//!   (`0x7a5b22367996dcfd`); the partition is `row hash mod N` (unsigned).
//! - `text` (byte keys): `hashtextextended` under a deterministic collation, Bob Jenkins's
//!   lookup3 of the UTF-8 bytes (`hash_bytes_extended`, little-endian words, as on x86 and
//!   arm64).
//! - `int8` (`--key-type u64`): `hashint8extended`, which folds the value to 32 bits
//!   (`lo ^ hi`, or `lo ^ !hi` for a negative value) and hashes those
//!   (`hash_bytes_uint32_extended`). A u64 of 2^63 or more is the int8 of the same bits.
//! - **Growth and shrink**: a table re-partitioned with modulus M (PostgreSQL cannot change
//!   a partition's modulus in place; the rows are moved into new partitions).

use workloads::key::decode_u64;
use workloads::{KeyType, Spec};

use super::{check_shard_count, weights, BuildContext, SchemeKind};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// `HASH_PARTITION_SEED` of `partition.h`.
const HASH_PARTITION_SEED: u64 = 0x7a5b_2236_7996_dcfd;

/// The constant `hash_combine64` adds.
const COMBINE: u64 = 0x49a0_f4dd_15e5_a8e3;

/// Registration of `postgres-hash`.
pub const KIND: SchemeKind = SchemeKind {
    name: "postgres-hash",
    about: "PostgreSQL 11+ PARTITION BY HASH with modulus N: the column's extended hash \
            (text, or int8 for --key-type u64) with the partition seed, mod N",
    system: |_| Some("PostgreSQL 11+ hash partitioning"),
    params: &[],
    needs_warmup: |_| false,
    points: |_, _| crate::Points::NONE,
    build,
    changing: None,
};

/// Builds `postgres-hash` for `ctx.shards` partitions.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let why = "every hash partition has the same modulus";
    weights::refuse(ctx, &spec.to_string(), why)?;
    check_shard_count(ctx.shards)?;
    Ok(Box::new(PostgresHashPartitioner {
        label: spec.to_string(),
        key_type: ctx.key_type,
        modulus: ctx.shards,
    }))
}

/// lookup3's `mix` as `hashfn.c` writes it.
fn mix(a: &mut u32, b: &mut u32, c: &mut u32) {
    *a = a.wrapping_sub(*c);
    *a ^= c.rotate_left(4);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a);
    *b ^= a.rotate_left(6);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b);
    *c ^= b.rotate_left(8);
    *b = b.wrapping_add(*a);
    *a = a.wrapping_sub(*c);
    *a ^= c.rotate_left(16);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a);
    *b ^= a.rotate_left(19);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b);
    *c ^= b.rotate_left(4);
    *b = b.wrapping_add(*a);
}

/// lookup3's `final`.
fn final_mix(a: &mut u32, b: &mut u32, c: &mut u32) {
    *c ^= *b;
    *c = c.wrapping_sub(b.rotate_left(14));
    *a ^= *c;
    *a = a.wrapping_sub(c.rotate_left(11));
    *b ^= *a;
    *b = b.wrapping_sub(a.rotate_left(25));
    *c ^= *b;
    *c = c.wrapping_sub(b.rotate_left(16));
    *a ^= *c;
    *a = a.wrapping_sub(c.rotate_left(4));
    *b ^= *a;
    *b = b.wrapping_sub(a.rotate_left(14));
    *c ^= *b;
    *c = c.wrapping_sub(b.rotate_left(24));
}

/// The initial state of `len` bytes, perturbed by `seed` when it is not 0.
fn initial(len: u32, seed: u64) -> (u32, u32, u32) {
    let v = 0x9e37_79b9u32.wrapping_add(len).wrapping_add(3_923_095);
    let (mut a, mut b, mut c) = (v, v, v);
    if seed != 0 {
        a = a.wrapping_add((seed >> 32) as u32);
        b = b.wrapping_add(seed as u32);
        mix(&mut a, &mut b, &mut c);
    }
    (a, b, c)
}

/// `hash_bytes_extended(k, len, seed)` on a little-endian machine: `(b << 32) | c`.
pub fn hash_bytes_extended(key: &[u8], seed: u64) -> u64 {
    let (mut a, mut b, mut c) = initial(key.len() as u32, seed);
    let mut rest = key;
    while rest.len() >= 12 {
        let word = |i: usize| u32::from_le_bytes([rest[i], rest[i + 1], rest[i + 2], rest[i + 3]]);
        a = a.wrapping_add(word(0));
        b = b.wrapping_add(word(4));
        c = c.wrapping_add(word(8));
        mix(&mut a, &mut b, &mut c);
        rest = &rest[12..];
    }
    // The last 11 bytes: 0-3 into a, 4-7 into b, 8-10 into c above its lowest byte.
    for (i, &byte) in rest.iter().enumerate() {
        let shifted = u32::from(byte) << (8 * (i % 4));
        match i {
            0..=3 => a = a.wrapping_add(shifted),
            4..=7 => b = b.wrapping_add(shifted),
            _ => c = c.wrapping_add(u32::from(byte) << (8 * (i - 7))),
        }
    }
    final_mix(&mut a, &mut b, &mut c);
    (u64::from(b) << 32) | u64::from(c)
}

/// `hash_bytes_uint32_extended(k, seed)`.
pub fn hash_uint32_extended(k: u32, seed: u64) -> u64 {
    let (mut a, mut b, mut c) = initial(4, seed);
    a = a.wrapping_add(k);
    final_mix(&mut a, &mut b, &mut c);
    (u64::from(b) << 32) | u64::from(c)
}

/// `hashint8extended(value, seed)`: the value folded to 32 bits, then hashed.
pub fn hash_int8_extended(value: i64, seed: u64) -> u64 {
    let hi = (value >> 32) as u32;
    let lo = value as u32 ^ if value >= 0 { hi } else { !hi };
    hash_uint32_extended(lo, seed)
}

/// The row hash of a one-column partition key with extended hash `h`.
fn row_hash(h: u64) -> u64 {
    h.wrapping_add(COMBINE)
}

/// A table hash-partitioned with modulus N.
#[derive(Clone, Debug)]
pub struct PostgresHashPartitioner {
    label: String,
    /// `text` keys ([`KeyType::Bytes`]) or `int8` ([`KeyType::U64`]).
    key_type: KeyType,
    modulus: u32,
}

impl PostgresHashPartitioner {
    /// The row hash of `key` in its column type.
    pub fn row_hash_of(&self, key: &[u8]) -> u64 {
        match (self.key_type, decode_u64(key)) {
            (KeyType::U64, Some(v)) => row_hash(hash_int8_extended(v as i64, HASH_PARTITION_SEED)),
            _ => row_hash(hash_bytes_extended(key, HASH_PARTITION_SEED)),
        }
    }
}

impl Partitioner for PostgresHashPartitioner {
    /// Another placement: every key's hash redrawn ([`crate::placement::SaltedKeys`]).
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        Some(Box::new(crate::placement::SaltedKeys::new(self, salt)))
    }

    /// No structure: arithmetic on the row hash.
    fn router_bytes(&self) -> Option<u64> {
        Some(0)
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.modulus
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        (self.row_hash_of(key) % u64::from(self.modulus)) as ShardId
    }

    /// Every partition (see [`super::scan_every_shard`]).
    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        super::scan_every_shard(self, start, end, out);
    }

    /// The table re-partitioned with modulus `shards`.
    fn resized(
        &self,
        shards: u32,
        _keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        check_shard_count(shards)?;
        Ok(Box::new(PostgresHashPartitioner {
            modulus: shards,
            ..self.clone()
        }))
    }

    /// The row hash, an unsigned 64-bit decimal.
    fn detail(&self, key: &[u8]) -> Option<String> {
        Some(self.row_hash_of(key).to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(key_type: KeyType, modulus: u32) -> PostgresHashPartitioner {
        PostgresHashPartitioner {
            label: "postgres-hash".into(),
            key_type,
            modulus,
        }
    }

    #[test]
    fn hashes_and_partitions_are_those_of_postgresql_15() {
        // `SELECT hashtextextended(k, 8816678312871386365)` and `hashint8extended(-5, ...)`
        // in PostgreSQL 15.18 (Debian 12), and the partitions of a table with modulus 3.
        let seed = HASH_PARTITION_SEED;
        assert_eq!(seed, 8_816_678_312_871_386_365);
        assert_eq!(
            hash_bytes_extended(b"hello", seed) as i64,
            -2_635_279_551_741_001_039
        );
        assert_eq!(
            hash_bytes_extended(b"", seed) as i64,
            -5_700_645_584_453_517_373
        );
        assert_eq!(hash_int8_extended(-5, seed), 5_466_844_944_386_338_076);
        let three = table(KeyType::Bytes, 3);
        let keys: [(&str, u32); 6] = [
            ("", 2),
            ("a", 2),
            ("abcdefghijkl", 1),
            ("abcdefghijklmnopqrstuvw", 1),
            ("hello", 1),
            ("日本語", 0),
        ];
        for (key, partition) in keys {
            assert_eq!(three.shard_of(key.as_bytes()), partition, "{key:?}");
        }
        let ints = table(KeyType::U64, 3);
        assert_eq!(
            ints.row_hash_of(&(-5i64 as u64).to_be_bytes()),
            5_466_844_944_386_338_076u64.wrapping_add(COMBINE)
        );
    }
}
