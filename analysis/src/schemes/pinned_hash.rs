//! The one hash that places keys and virtual nodes: XXH3-64 with seed 0.
//!
//! Every hashed scheme (`hash`, `ring`, `salted`) goes through [`hash64`], so a placement
//! computed today is the placement computed by any later release on any platform.

/// Hashes `bytes` for placement: XXH3 64-bit with seed 0 (`xxhash_rust::xxh3::xxh3_64`).
///
/// Stability promise: this function never changes. Placements, remap figures and saved
/// reports depend on it being the same on every run, platform and release, so the algorithm,
/// the seed and the byte order of its input are fixed; the test below pins known values. A
/// different hash would be a new function with a new name, never an edit of this one. (This
/// is why placement never uses std's `DefaultHasher` or `RandomState`.)
#[inline(always)]
pub fn hash64(bytes: &[u8]) -> u64 {
    match bytes.first_chunk::<8>() {
        Some(key) if bytes.len() == 8 => xxh3_64_of_8_bytes(key),
        _ => xxhash_rust::xxh3::xxh3_64(bytes),
    }
}

/// `hash % n` for `n >= 1`, with a mask instead of a division when `n` is a power of two
/// (the same value; the default shard and bucket counts are powers of two, and a 64-bit
/// division is the slowest step of a mod-N lookup).
#[inline(always)]
pub fn reduce(hash: u64, n: u32) -> u64 {
    let n = u64::from(n);
    if n.is_power_of_two() {
        hash & (n - 1)
    } else {
        hash % n
    }
}

/// XXH3-64 (seed 0, default secret) of exactly 8 bytes: the specification's 4-to-8-byte
/// path, written out so that it inlines into the lookups.
///
/// Why not only the crate: `xxh3_64` dispatches on the length at run time through a call
/// that does not inline, and 8-byte keys (`u64` keys) are the common case of every hashed
/// scheme; this path is about 0.6 ns of the crate's 2.4 ns cheaper per key on the bench
/// machine (BENCHMARKS.md). The test below checks it against the crate on a million keys.
#[inline(always)]
fn xxh3_64_of_8_bytes(key: &[u8; 8]) -> u64 {
    /// Bytes 8..16 and 16..24 of the default XXH3 secret, little-endian, xor-ed.
    const BITFLIP: u64 = 0x1cad_21f7_2c81_017c ^ 0xdb97_9083_e96d_d4de;
    /// XXH3's `PRIME_MX2`.
    const MX2: u64 = 0x9fb2_1c65_1e98_df25;
    let [a0, a1, a2, a3, b0, b1, b2, b3] = *key;
    let first = u64::from(u32::from_le_bytes([a0, a1, a2, a3]));
    let last = u64::from(u32::from_le_bytes([b0, b1, b2, b3]));
    let mut h = last.wrapping_add(first << 32) ^ BITFLIP;
    // XXH3_rrmxmx with length 8.
    h ^= h.rotate_left(49) ^ h.rotate_left(24);
    h = h.wrapping_mul(MX2);
    h ^= (h >> 35).wrapping_add(8);
    h = h.wrapping_mul(MX2);
    h ^ (h >> 28)
}

#[cfg(test)]
mod tests {
    use super::{hash64, reduce};

    #[test]
    fn the_placement_hash_gives_the_pinned_values() {
        // Reference values of XXH3-64, seed 0. If this test fails, placements have changed:
        // restore the hash, do not update the values.
        assert_eq!(hash64(b""), 0x2d06_8005_38d3_94c2);
        assert_eq!(hash64(b"abc"), 0x78af_5f94_892f_3950);
        assert_eq!(hash64(b"user42"), 0x9fdc_8e44_c5b9_267c);
        assert_eq!(hash64(&42u64.to_be_bytes()), 0x2e4f_e982_b689_10ac);
    }

    #[test]
    fn reduce_is_the_remainder() {
        for n in [1u32, 2, 3, 16, 17, 1 << 16, u32::MAX] {
            for h in [0u64, 1, 15, 16, 17, 0x9fdc_8e44_c5b9_267c, u64::MAX] {
                assert_eq!(reduce(h, n), h % u64::from(n), "{h} % {n}");
            }
        }
    }

    #[test]
    fn the_eight_byte_path_is_the_crates_xxh3() {
        let mut state = 0u64;
        for i in 0..1_000_000u64 {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            for key in [i, state, u64::MAX - i] {
                let bytes = key.to_be_bytes();
                assert_eq!(hash64(&bytes), xxhash_rust::xxh3::xxh3_64(&bytes), "{key}");
            }
        }
    }
}
