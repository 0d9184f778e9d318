//! The one hash that places keys and virtual nodes: XXH3-64 with seed 0.
//!
//! Every hashed scheme (`hash`, `ring`, `salted`) goes through [`hash64`], so a placement
//! computed today is the placement computed by any later release on any platform.

use workloads::xxh3_8::xxh3_64_of_8_bytes;

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
        // Inlined for 8-byte keys (the crate's length dispatch does not inline).
        Some(key) if bytes.len() == 8 => xxh3_64_of_8_bytes(key, 0),
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
}
