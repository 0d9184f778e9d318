//! XXH3-64 of exactly 8 bytes, written out so that it inlines: the hash of every `u64` key,
//! for placement (seed 0) and for the key sample (its own seed).
//!
//! Why not only the crate: `xxhash_rust::xxh3` dispatches on the length at run time through a
//! call that does not inline, and 8-byte keys are the common case of every hashed scheme and
//! of the distinct-key table, hashed once per event or more. The tests check this path
//! against the crate on a million keys for both seeds in use and for random seeds.

/// XXH3-64 of `key` with `seed`: the specification's 4-to-8-byte path. Equal to
/// `xxhash_rust::xxh3::xxh3_64_with_seed(key, seed)`.
#[inline(always)]
pub fn xxh3_64_of_8_bytes(key: &[u8; 8], seed: u64) -> u64 {
    finish(key_part(key) ^ seed_part(seed))
}

/// The key's share of the hash before its first nonlinear step. The path starts
/// `x = key ^ f(seed)`, then `x ^= rotl(x, 49) ^ rotl(x, 24)`: that step is linear (over
/// bits), so it can be taken of the key and of the seed apart, and one key hashed under many
/// seeds (AnchorHash's rehash in each removed bucket) pays for it once, its seeds' shares
/// kept in a table.
#[inline(always)]
pub fn key_part(key: &[u8; 8]) -> u64 {
    let [a0, a1, a2, a3, b0, b1, b2, b3] = *key;
    let first = u64::from(u32::from_le_bytes([a0, a1, a2, a3]));
    let last = u64::from(u32::from_le_bytes([b0, b1, b2, b3]));
    mix_bits(last.wrapping_add(first << 32))
}

/// The seed's share of the hash before its first nonlinear step (see [`key_part`]).
#[inline(always)]
pub fn seed_part(seed: u64) -> u64 {
    /// Bytes 8..16 and 16..24 of the default XXH3 secret, little-endian, xor-ed.
    const BITFLIP: u64 = 0x1cad_21f7_2c81_017c ^ 0xdb97_9083_e96d_d4de;
    let seed = seed ^ (u64::from((seed as u32).swap_bytes()) << 32);
    mix_bits(BITFLIP.wrapping_sub(seed))
}

/// The rest of XXH3_rrmxmx with length 8, from `key_part(key) ^ seed_part(seed)`.
#[inline(always)]
pub fn finish(mixed: u64) -> u64 {
    /// XXH3's `PRIME_MX2`.
    const MX2: u64 = 0x9fb2_1c65_1e98_df25;
    let mut h = mixed.wrapping_mul(MX2);
    h ^= (h >> 35).wrapping_add(8);
    h = h.wrapping_mul(MX2);
    h ^ (h >> 28)
}

/// XXH3_rrmxmx's first step, `x ^ rotl(x, 49) ^ rotl(x, 24)`: linear over the bits.
#[inline(always)]
fn mix_bits(x: u64) -> u64 {
    x ^ x.rotate_left(49) ^ x.rotate_left(24)
}

#[cfg(test)]
mod tests {
    use super::xxh3_64_of_8_bytes;
    use crate::stats::key_table::SAMPLE_SEED;
    use xxhash_rust::xxh3::xxh3_64_with_seed;

    #[test]
    fn the_eight_byte_path_is_the_crates_xxh3() {
        let mut state = 0u64;
        for i in 0..1_000_000u64 {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            for seed in [0, SAMPLE_SEED, state.rotate_left(17)] {
                for key in [i, state, u64::MAX - i] {
                    let bytes = key.to_be_bytes();
                    assert_eq!(
                        xxh3_64_of_8_bytes(&bytes, seed),
                        xxh3_64_with_seed(&bytes, seed),
                        "{key} seed {seed}"
                    );
                }
            }
        }
    }
}
