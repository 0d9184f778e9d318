//! The shards a range write contacts: a put or delete of every key in `[start, end)`, as a
//! block trace's multi-block write writes every block of its range.
//!
//! A scan asks every shard that may hold a key of its range, which for a hashed scheme is
//! every shard (hashing keeps no key order). A range write names its keys, so it contacts
//! exactly the shards holding a replica of one of them:
//! - a key-range layout ([`Partitioner::range_starts`]): the replicas of `start` and of every
//!   range start inside the range (each range's keys share their replicas), whatever the
//!   range's length;
//! - otherwise, a range of 8-byte integer keys no longer than [`ENUMERATED_KEYS`]: the
//!   replicas of each of its keys, one by one (stopping once every shard is contacted);
//! - otherwise (longer ranges, or keys of other lengths, which cannot be enumerated) the
//!   shards its scan contacts ([`Partitioner::scan_shards`], every shard of a hashed layout)
//!   and, with `rf` replicas, the `rf - 1` shards after each in number order (the default
//!   replica rule). A range of more than 65,536 keys misses a shard of a hashed layout of N
//!   shards with probability below N e^(-65,536/N): under 10^-20 at N = 1,000.

use crate::partitioner::replicas_in_shard_order;
use crate::{Partitioner, ShardSet};
use workloads::key::decode_u64;

/// The longest range whose keys are enumerated one by one.
pub const ENUMERATED_KEYS: u64 = 1 << 16;

/// Adds to `out` every shard that a write of every key in `[start, end)` contacts (at least
/// the owner of `start`).
pub fn range_write_shards(part: &dyn Partitioner, start: &[u8], end: &[u8], out: &mut ShardSet) {
    range_write_replicas(part, start, end, 1, out);
}

/// Adds to `out` every shard that holds one of `rf` replicas of a key in `[start, end)`: the
/// shards a replicated range write contacts (at least the owner of `start`).
pub fn range_write_replicas(
    part: &dyn Partitioner,
    start: &[u8],
    end: &[u8],
    rf: u32,
    out: &mut ShardSet,
) {
    let (shards, rf) = (part.shard_count(), rf.max(1));
    let mut replicas = Vec::new();
    let mut add = |key: &[u8], out: &mut ShardSet| {
        replicas.clear();
        part.replicas(key, rf, &mut replicas);
        replicas.iter().for_each(|&s| {
            out.insert(s);
        });
    };
    add(start, out);
    if end <= start {
        return;
    }
    if let Some(starts) = part.range_starts() {
        let first = starts.partition_point(|s| s.as_slice() <= start);
        for range_start in starts[first..].iter().take_while(|s| s.as_slice() < end) {
            add(range_start, out);
        }
        return;
    }
    let keys = decode_u64(start).zip(decode_u64(end));
    if let Some((a, b)) = keys.filter(|(a, b)| b - a <= ENUMERATED_KEYS) {
        for key in a + 1..b {
            if out.len() == shards {
                break;
            }
            add(&key.to_be_bytes(), out);
        }
        return;
    }
    let mut touched = ShardSet::new(shards);
    part.scan_shards(start, end, &mut touched);
    for owner in touched.iter() {
        replicas.clear();
        replicas_in_shard_order(owner, shards, rf, &mut replicas);
        replicas.iter().for_each(|&s| {
            out.insert(s);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{hash::ModHashPartitioner, range::RangePartitioner};

    fn shards_of(part: &dyn Partitioner, a: u64, b: u64, rf: u32) -> Vec<u32> {
        let mut set = ShardSet::new(part.shard_count());
        range_write_replicas(part, &a.to_be_bytes(), &b.to_be_bytes(), rf, &mut set);
        set.iter().collect()
    }

    #[test]
    fn a_hashed_range_write_contacts_the_owners_of_its_keys_only() {
        let part = ModHashPartitioner::new("hash", 64).unwrap();
        for (a, b) in [(10, 12), (1_000, 1_005), (7, 8)] {
            let mut owners: Vec<u32> = (a..b)
                .map(|k: u64| part.shard_of(&k.to_be_bytes()))
                .collect();
            owners.sort_unstable();
            owners.dedup();
            assert_eq!(shards_of(&part, a, b, 1), owners, "[{a}, {b})");
        }
        // Far past the enumeration limit: every shard, as a scan.
        assert_eq!(shards_of(&part, 0, 1 << 40, 1).len(), 64);
    }

    #[test]
    fn replicas_of_every_key_are_contacted() {
        let part = ModHashPartitioner::new("hash", 16).unwrap();
        let mut want = std::collections::BTreeSet::new();
        for k in 100u64..103 {
            let mut r = Vec::new();
            part.replicas(&k.to_be_bytes(), 3, &mut r);
            want.extend(r);
        }
        assert_eq!(
            shards_of(&part, 100, 103, 3),
            want.into_iter().collect::<Vec<_>>()
        );
    }

    #[test]
    fn an_ordered_layout_contacts_the_ranges_it_overlaps_and_their_successors() {
        let cuts: Vec<Vec<u8>> = [100u64, 200, 300]
            .iter()
            .map(|k| k.to_be_bytes().to_vec())
            .collect();
        let part = RangePartitioner::from_splits("range", 4, cuts).unwrap();
        assert_eq!(shards_of(&part, 150, 250, 1), vec![1, 2]);
        assert_eq!(shards_of(&part, 150, 250, 2), vec![1, 2, 3]);
        assert_eq!(
            shards_of(&part, 350, 360, 2),
            vec![0, 3],
            "the last shard's next is the first"
        );
    }
}
