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
#[inline]
pub fn hash64(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

#[cfg(test)]
mod tests {
    use super::hash64;

    #[test]
    fn the_placement_hash_gives_the_pinned_values() {
        // Reference values of XXH3-64, seed 0. If this test fails, placements have changed:
        // restore the hash, do not update the values.
        assert_eq!(hash64(b""), 0x2d06_8005_38d3_94c2);
        assert_eq!(hash64(b"abc"), 0x78af_5f94_892f_3950);
        assert_eq!(hash64(b"user42"), 0x9fdc_8e44_c5b9_267c);
        assert_eq!(hash64(&42u64.to_be_bytes()), 0x2e4f_e982_b689_10ac);
    }
}
