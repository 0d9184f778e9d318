//! MurmurHash3 x86 32-bit, fed in pieces: the hash of Elasticsearch's routing (over UTF-16
//! code units) and of pymemcache's rendezvous (over the low bytes of a string's characters).
//!
//! Written here rather than taken from the `murmur3` crate (which the tests compare it with):
//! the crate reads through `std::io::Read`, one call per block, so every key had to be
//! re-encoded into a buffer first and then read back; this state takes the code units or
//! bytes as they are produced, with no buffer and no call per block.

const C1: u32 = 0xcc9e_2d51;
const C2: u32 = 0x1b87_3593;

/// A MurmurHash3 x86 32 in progress.
#[derive(Clone, Copy, Debug)]
pub struct Murmur3 {
    h: u32,
    /// Bytes of the block being filled, little-endian.
    block: u32,
    /// How many bytes `block` holds (0 to 3).
    filled: u32,
    len: u32,
}

impl Murmur3 {
    /// A hash with `seed`.
    pub fn new(seed: u32) -> Murmur3 {
        Murmur3 {
            h: seed,
            block: 0,
            filled: 0,
            len: 0,
        }
    }

    /// Mixes one byte in.
    #[inline]
    pub fn byte(&mut self, b: u8) {
        self.block |= u32::from(b) << (8 * self.filled);
        self.filled += 1;
        self.len = self.len.wrapping_add(1);
        if self.filled == 4 {
            self.mix_block(self.block);
            (self.block, self.filled) = (0, 0);
        }
    }

    /// Mixes one whole 4-byte block in.
    #[inline(always)]
    fn mix_block(&mut self, block: u32) {
        self.h = (self.h ^ mix(block))
            .rotate_left(13)
            .wrapping_mul(5)
            .wrapping_add(0xe654_6b64);
    }

    /// Mixes `bytes` in.
    pub fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.byte(b);
        }
    }

    /// Mixes a UTF-16 code unit in, little-endian.
    #[inline]
    pub fn unit(&mut self, u: u16) {
        let [lo, hi] = u.to_le_bytes();
        self.byte(lo);
        self.byte(hi);
    }

    /// Mixes UTF-16 code units in, little-endian: two to a block while the blocks are
    /// aligned on units.
    pub fn units(&mut self, units: &[u16]) {
        let mut units = units;
        if self.filled == 2 {
            if let Some((&first, rest)) = units.split_first() {
                self.unit(first);
                units = rest;
            }
        }
        if self.filled != 0 {
            units.iter().for_each(|&u| self.unit(u));
            return;
        }
        let pairs = units.chunks_exact(2);
        let last = pairs.remainder().first().copied();
        for pair in pairs {
            self.mix_block(u32::from(pair[0]) | u32::from(pair[1]) << 16);
            self.len = self.len.wrapping_add(4);
        }
        if let Some(u) = last {
            self.unit(u);
        }
    }

    /// The hash of everything mixed in.
    pub fn finish(self) -> u32 {
        let mut h = self.h;
        if self.filled > 0 {
            h ^= mix(self.block);
        }
        h ^= self.len;
        h ^= h >> 16;
        h = h.wrapping_mul(0x85eb_ca6b);
        h ^= h >> 13;
        h = h.wrapping_mul(0xc2b2_ae35);
        h ^ (h >> 16)
    }
}

#[inline(always)]
fn mix(k: u32) -> u32 {
    k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2)
}

/// MurmurHash3 x86 32, with `seed`, of the UTF-16 code units (little-endian) of `ascii`, an
/// ASCII text: two characters make one block, `c0 | c1 << 16`, with no decoding.
pub fn murmur3_32_of_ascii_as_utf16(ascii: &[u8], seed: u32) -> u32 {
    let mut h = Murmur3::new(seed);
    let pairs = ascii.chunks_exact(2);
    let tail = pairs.remainder();
    for pair in pairs {
        let block = u32::from(pair[0]) | u32::from(pair[1]) << 16;
        h.h = (h.h ^ mix(block))
            .rotate_left(13)
            .wrapping_mul(5)
            .wrapping_add(0xe654_6b64);
    }
    h.len = (2 * ascii.len()) as u32;
    if let [c] = tail {
        (h.block, h.filled) = (u32::from(*c), 2);
    }
    h.finish()
}

/// MurmurHash3 x86 32 of `bytes` with `seed`.
pub fn murmur3_32(bytes: &[u8], seed: u32) -> u32 {
    let mut h = Murmur3::new(seed);
    h.bytes(bytes);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn reference(bytes: &[u8], seed: u32) -> u32 {
        murmur3::murmur3_32(&mut &bytes[..], seed).unwrap()
    }

    #[test]
    fn known_values() {
        assert_eq!(murmur3_32(b"", 0), 0);
        assert_eq!(murmur3_32(b"", 1), 0x514e_28b7);
        assert_eq!(murmur3_32(b"hello", 0), 0x248b_fa47);
        assert_eq!(murmur3_32(b"Hello, world!", 1234), 0xfaf6_cdb3);
    }

    proptest! {
        #[test]
        fn equals_the_murmur3_crate(bytes in proptest::collection::vec(any::<u8>(), 0..80), seed in any::<u32>()) {
            prop_assert_eq!(murmur3_32(&bytes, seed), reference(&bytes, seed));
        }

        #[test]
        fn ascii_pairs_are_their_utf16_code_units(text in "[ -~]{0,40}", seed in any::<u32>()) {
            let bytes: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
            prop_assert_eq!(murmur3_32_of_ascii_as_utf16(text.as_bytes(), seed), reference(&bytes, seed));
        }

        #[test]
        fn code_units_are_their_little_endian_bytes(units in proptest::collection::vec(any::<u16>(), 0..40)) {
            let mut h = Murmur3::new(0);
            units.iter().for_each(|&u| h.unit(u));
            let bytes: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
            prop_assert_eq!(h.finish(), reference(&bytes, 0));
        }
    }
}
