//! Jump consistent hash (Lamping & Veach, "A Fast, Minimal Memory, Consistent Hash
//! Algorithm", 2014): no table at all, O(ln N) arithmetic per lookup.
//!
//! A key's bucket is found by jumping forward through the bucket counts at which it would
//! move: from `b` the next jump is to `floor((b + 1) / r)` for a pseudo-random `r` in (0, 1]
//! drawn from the key, and the last jump below `N` is the owner. Growing from N to N+1 moves
//! exactly the keys whose next jump lands on N: 1/(N+1) of them, all to the new bucket. Only
//! the last bucket can be removed (shrinking to N-1); any other removal is refused.

use workloads::{KeyType, Spec};

use super::pinned_hash::hash64;
use super::{check_shard_count, BuildContext, SchemeKind};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// Registration of `jump`.
pub const KIND: SchemeKind = SchemeKind {
    name: "jump",
    about: "jump consistent hash (Lamping & Veach); no table, a new shard takes 1/(N+1) of the \
            keys, only the last shard can be removed",
    system: |_| None,
    params: &[(
        "hash",
        "`xxh3` (default: keys hashed first) or `none` (--key-type u64 keys used as they are)",
    )],
    needs_warmup: |_| false,
    points: |_, _| crate::Points::NONE,
    build,
    changing: None,
};

/// Builds `jump` for `ctx.shards` shards.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    super::weights::refuse(ctx, &spec.to_string(), "jump buckets take equal shares")?;
    let hashed = match spec.get("hash") {
        None | Some("xxh3") => true,
        Some("none") if ctx.key_type == KeyType::U64 => false,
        Some("none") => {
            let message = "hash=none takes --key-type u64 keys as they are; with other keys \
                           leave hash out (keys are then hashed with XXH3-64)";
            return Err(spec.error(message.into()).into());
        }
        Some(other) => {
            let message = format!("hash={other} is not a hash; valid values: xxh3, none");
            return Err(spec.error(message).into());
        }
    };
    Ok(Box::new(JumpPartitioner::new(
        spec.to_string(),
        ctx.shards,
        hashed,
    )?))
}

/// The bucket of `key` among `buckets` (at least 1), exactly as Guava's
/// `Hashing.consistentHash(long, int)` computes it: the paper's linear congruential
/// generator, with `(b + 1) / r` divided in one step (the paper's C++ multiplies by a
/// rounded `2^31 / (x + 1)`, which can differ in the last bit).
///
/// Guava draws `r = ((int) (state >>> 33) + 1) / 2^31` in Java `int` arithmetic: the largest
/// draw, `2^31 - 1`, overflows to `-2^31`, so `r = -1`, the next jump is negative and the
/// walk stops at the current candidate (where the paper's C++, with `r = 1`, would jump on to
/// `candidate + 1`). About one step in 2^31 draws it; it is reproduced.
///
/// Up to [`EXACT_FLOOR_BUCKETS`] buckets the walk takes [`jump_bucket_floor`] (the same
/// buckets without a division on the chain of jumps), above it [`jump_bucket_divided`].
///
/// Hand-written: the algorithm is five lines, and a crate would fix neither the generator
/// nor the rounding that published vectors pin.
#[inline]
pub fn jump_bucket(key: u64, buckets: u32) -> u32 {
    if buckets <= EXACT_FLOOR_BUCKETS {
        jump_bucket_floor(key, buckets)
    } else {
        jump_bucket_divided(key, buckets)
    }
}

/// The largest bucket count below which Guava's rounded division `(b + 1) / r` never rounds
/// across an integer: the quotient `(b + 1) 2^31 / d` is at least `1 / d >= 2^-31` from the
/// next integer, more than half an `f64` step below `2^22`. There its truncation is the
/// integer floor, and comparing it with the bucket count is comparing the exact quotient.
const EXACT_FLOOR_BUCKETS: u32 = 1 << 22;

/// Guava's `(int) draw + 1` overflows for this draw: r = -1 ends the walk.
const OVERFLOWING_DRAW: u64 = i32::MAX as u64;

/// The walk of [`jump_bucket`]: the paper's linear congruential generator draws, `jump`
/// takes the candidate and the draw to the next candidate (`None` past the last bucket).
#[inline(always)]
fn walk(mut key: u64, jump: impl Fn(u32, u64) -> Option<u32>) -> u32 {
    let mut candidate = 0u32;
    loop {
        key = key.wrapping_mul(2_862_933_555_777_941_757).wrapping_add(1);
        let draw = key >> 33;
        if draw == OVERFLOWING_DRAW {
            return candidate;
        }
        match jump(candidate, draw) {
            Some(next) => candidate = next,
            None => return candidate,
        }
    }
}

/// [`jump_bucket`] for at most [`EXACT_FLOOR_BUCKETS`] buckets: the next jump is the exact
/// floor of `(b + 1) 2^31 / d`, estimated with the fixed-point reciprocal `2^63 / d` (which
/// depends on the key only, so its division runs beside the chain of jumps instead of on it)
/// and made exact with an integer check (the estimate is the floor or one below it).
#[inline(always)]
fn jump_bucket_floor(key: u64, buckets: u32) -> u32 {
    walk(key, |candidate, draw| {
        let after = u64::from(candidate) + 1;
        let divisor = draw + 1;
        let scale = (1u64 << 63) / divisor;
        // (b + 1) scale / 2^32 falls short of the quotient by less than (b + 1) / 2^32 < 1.
        let mut next = ((u128::from(after) * u128::from(scale)) >> 32) as u64;
        if (next + 1) * divisor <= after << 31 {
            next += 1;
        }
        (next < u64::from(buckets)).then_some(next as u32)
    })
}

/// [`jump_bucket`] as Guava writes it, one `f64` division per jump.
#[inline]
fn jump_bucket_divided(key: u64, buckets: u32) -> u32 {
    walk(key, |candidate, draw| {
        let r = (draw + 1) as f64 / f64::from(1u32 << 31);
        let next = (f64::from(candidate) + 1.0) / r;
        (next < f64::from(buckets)).then_some(next as u32)
    })
}

/// Owner = [`jump_bucket`] of [`hash64`]`(key)`, or of the key itself with `hash=none`.
///
/// Growth and shrink rule: the same function with the new bucket count (every key that moves
/// on growth moves to a new bucket). Removal: only the last shard (the same as shrinking by
/// one); removing another shard is refused, since jump has no rule for handing a middle
/// bucket's keys to the others.
#[derive(Clone, Debug)]
pub struct JumpPartitioner {
    label: String,
    shards: u32,
    /// False for `hash=none`: 8-byte keys are read as big-endian integers.
    hashed: bool,
}

impl JumpPartitioner {
    /// Jump over `shards` buckets (at least 1); `hashed` hashes keys first.
    pub fn new(label: impl Into<String>, shards: u32, hashed: bool) -> Result<Self, AnalysisError> {
        check_shard_count(shards)?;
        Ok(JumpPartitioner {
            label: label.into(),
            shards,
            hashed,
        })
    }

    /// The 64-bit input of the jump: the hash, or (`hash=none`) the 8-byte key as a
    /// big-endian integer. A key of another length (possible only as a scan end) is hashed.
    #[inline(always)]
    fn input(&self, key: &[u8]) -> u64 {
        match key.first_chunk::<8>() {
            Some(bytes) if !self.hashed && key.len() == 8 => u64::from_be_bytes(*bytes),
            _ => hash64(key),
        }
    }
}

impl Partitioner for JumpPartitioner {
    /// Another placement: every key's hash redrawn ([`crate::placement::SaltedKeys`]).
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        Some(Box::new(crate::placement::SaltedKeys::new(self, salt)))
    }

    /// No structure: the owner is arithmetic.
    fn router_bytes(&self) -> Option<u64> {
        Some(0)
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.shards
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        jump_bucket(self.input(key), self.shards)
    }

    /// Every shard (see [`super::scan_every_shard`]).
    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        super::scan_every_shard(self, start, end, out);
    }

    fn resized(
        &self,
        shards: u32,
        _keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        Ok(Box::new(JumpPartitioner::new(
            self.label.clone(),
            shards,
            self.hashed,
        )?))
    }

    /// The last shard only (its keys spread over the others as on a shrink); `None` for any
    /// other shard.
    fn without_shard(
        &self,
        shard: ShardId,
        keys: &KeyCounts,
    ) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
        crate::placement::check_removable(shard, self.shards)?;
        if shard + 1 == self.shards {
            self.resized(self.shards - 1, keys).map(Some)
        } else {
            Ok(None)
        }
    }

    fn removal_refusal(&self) -> Option<String> {
        Some(format!(
            "scheme '{}' can only remove its last shard ({}): jump consistent hash numbers \
             buckets 0..N and has no rule for a missing bucket in the middle",
            self.label,
            self.shards - 1
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_buckets_are_guavas_golden_values() {
        // Guava's HashingTest.testConsistentHash_linearCongruentialGeneratorCompatibility.
        let golden100 = [
            0, 55, 62, 8, 45, 59, 86, 97, 82, 59, 73, 37, 17, 56, 86, 21, 90, 37, 38, 83,
        ];
        for (key, want) in golden100.into_iter().enumerate() {
            assert_eq!(jump_bucket(key as u64, 100), want, "key {key}");
        }
        assert_eq!(jump_bucket(10_863_919_174_838_991, 11), 6);
        assert_eq!(jump_bucket(2_016_238_256_797_177_309, 11), 3);
        assert_eq!(jump_bucket(1_673_758_223_894_951_030, 11), 5);
        assert_eq!(jump_bucket(2, 100_001), 80_343);
        assert_eq!(jump_bucket(2201, 100_001), 22_152);
        assert_eq!(jump_bucket(2202, 100_001), 15_018);
        assert_eq!(jump_bucket(123_456, 1000), 984);
    }

    #[test]
    fn the_multiplied_walk_takes_the_divided_walks_buckets() {
        let mut state = 0u64;
        for i in 0..300_000u64 {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let key = state ^ (state >> 29);
            let buckets = [
                1,
                2,
                16,
                100,
                1000,
                65_600,
                (i % 5000) as u32 + 1,
                EXACT_FLOOR_BUCKETS - (i % 3) as u32,
            ];
            for n in buckets {
                assert_eq!(
                    jump_bucket_floor(key, n),
                    jump_bucket_divided(key, n),
                    "key {key}, {n} buckets"
                );
            }
        }
        // The draw that overflows Guava's int, through both walks.
        for n in [2, 10, 100, 1000] {
            let key = 10_709_183_846_368_960_022;
            assert_eq!(jump_bucket_floor(key, n), jump_bucket_divided(key, n));
        }
    }

    #[test]
    fn a_draw_that_overflows_guavas_int_ends_the_walk_as_in_guava() {
        // Keys whose generator draws state >>> 33 = 2^31 - 1 (Guava's `(int) x + 1` wraps to
        // -2^31): at the first step for the first two keys, at the second for the last. The
        // expected values are Guava's `Hashing.consistentHash`; without the overflow these
        // keys went to 3, 76, 1, 668 and 2.
        assert_eq!(jump_bucket(17_068_571_456_203_592_619, 100), 0);
        assert_eq!(jump_bucket(6_001_928_096_618_582_955, 100), 0);
        assert_eq!(jump_bucket(6_001_928_096_618_582_955, 2), 0);
        assert_eq!(jump_bucket(10_709_183_846_368_960_022, 1000), 1);
        assert_eq!(jump_bucket(10_709_183_846_368_960_022, 10), 1);
    }

    #[test]
    fn hash_none_reads_u64_keys_as_they_are() {
        let ctx = BuildContext {
            shards: 100,
            warmup_keys: &[],
            key_type: KeyType::U64,
            weights: None,
        };
        let spec = Spec::parse("jump:hash=none").unwrap();
        let jump = build(&spec, &ctx).unwrap();
        let owners: Vec<ShardId> = (1..=5u64)
            .map(|k| jump.shard_of(&k.to_be_bytes()))
            .collect();
        assert_eq!(owners, [55, 62, 8, 45, 59]);
        let hashed = build(&Spec::parse("jump").unwrap(), &ctx).unwrap();
        assert_eq!(
            hashed.shard_of(b"user42"),
            jump_bucket(0x9fdc_8e44_c5b9_267c, 100)
        );
        let bytes = BuildContext {
            key_type: KeyType::Bytes,
            ..ctx
        };
        let err = build(&spec, &bytes).err().unwrap().to_string();
        assert!(err.contains("--key-type u64"), "{err}");
        let bad = build(&Spec::parse("jump:hash=md5").unwrap(), &ctx).err();
        assert!(bad
            .unwrap()
            .to_string()
            .contains("valid values: xxh3, none"));
    }

    #[test]
    fn only_the_last_shard_can_be_removed() {
        let jump = JumpPartitioner::new("jump", 4, true).unwrap();
        let keys = KeyCounts::new();
        assert!(jump.without_shard(1, &keys).unwrap().is_none());
        let smaller = jump.without_shard(3, &keys).unwrap().unwrap();
        assert_eq!(smaller.shard_count(), 3);
        assert!(jump.removal_refusal().unwrap().contains("last shard (3)"));
    }
}
