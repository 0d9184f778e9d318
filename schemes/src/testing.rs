//! What the scheme tests share: keys, shares and moves measured on them.

use crate::BuildContext;
use crate::Partitioner;

/// `n` distinct 8-byte keys (the numbers 0..n, big-endian, as `--key-type u64` stores them).
pub fn keys(n: u64) -> Vec<Vec<u8>> {
    (0..n).map(|i| i.to_be_bytes().to_vec()).collect()
}

/// Each shard's share of `keys`.
pub fn shares(p: &dyn Partitioner, keys: &[Vec<u8>]) -> Vec<f64> {
    let mut counts = vec![0u64; p.shard_count() as usize];
    for k in keys {
        counts[p.shard_of(k) as usize] += 1;
    }
    counts
        .iter()
        .map(|&c| c as f64 / keys.len() as f64)
        .collect()
}

/// The share of `keys` whose owner differs between `a` and `b`, and the share of those that
/// moved to `to` (1.0 when none moved or no target is given).
pub fn moved(
    a: &dyn Partitioner,
    b: &dyn Partitioner,
    keys: &[Vec<u8>],
    to: Option<u32>,
) -> (f64, f64) {
    let (mut moved, mut to_target) = (0u64, 0u64);
    for k in keys {
        let after = b.shard_of(k);
        if a.shard_of(k) != after {
            moved += 1;
            to_target += u64::from(to.is_none_or(|t| t == after));
        }
    }
    let to_share = if moved == 0 {
        1.0
    } else {
        to_target as f64 / moved as f64
    };
    (moved as f64 / keys.len() as f64, to_share)
}

/// The share of `keys` not on shard `removed` of `a` that change owner in `b`, the layout
/// without it (survivors renumbered in order): 0 for a scheme that moves only the removed
/// shard's keys.
pub fn moved_on_removal(
    a: &dyn Partitioner,
    b: &dyn Partitioner,
    keys: &[Vec<u8>],
    removed: u32,
) -> f64 {
    let moved = keys
        .iter()
        .filter(|k| {
            let before = a.shard_of(k);
            before != removed && b.shard_of(k) != crate::placement::renumbered(before, removed)
        })
        .count();
    moved as f64 / keys.len() as f64
}

/// A build context for `shards` shards: no warm-up, byte keys, no weights.
pub fn ctx(shards: u32) -> BuildContext<'static> {
    BuildContext {
        shards,
        warmup_keys: &[],
        key_type: Default::default(),
        weights: None,
    }
}
