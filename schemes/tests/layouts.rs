//! The fast lookup layouts give exactly the owners of the plain ones: `partition_point` over
//! the sorted starts (range), over the sorted points (ring), and the inner range lookup of the
//! salted key (salted). Random boundaries and keys, with keys equal to boundaries, below the
//! first and above the last, mixed key lengths and the empty key. Range owners of every kind
//! (listed, contiguous and computed, more shards than ranges, after growing and shrinking) are
//! checked against the owner list, one key at a time and through the batch API.

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use schemes::layout::{KeyIndex, RadixIndex, SegmentedIndex};
use schemes::range::RangePartitioner;
use schemes::ring::RingPartitioner;
use schemes::salted::SaltedRangePartitioner;
use schemes::{Partitioner, ShardId, ShardSet};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 1024,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::default()
    }
}

/// Byte strings over a small alphabet (so that prefixes, trailing zeros and ties are common),
/// 0 to 12 bytes long: shorter than, as long as and longer than the 8-byte prefix.
fn byte_key() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop::sample::select(vec![0x00u8, 0x01, b'a', b'b', 0xff]),
        0..=12,
    )
}

/// `u64` values from a narrow or a wide range, so that both ties and spread occur, and values
/// that differ only in their top and bottom bits: over a wide span they share the 32-bit
/// fingerprints of `RadixIndex` buckets and crowd a few buckets past one line.
fn number() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..64,
        any::<u64>(),
        Just(u64::MAX),
        Just(0),
        (0u64..4, 0u64..8).prop_map(|(top, bottom)| top << 62 | bottom),
    ]
}

/// Keys to probe with: each boundary, each boundary with a byte added or removed, the empty
/// key, the extremes and the random keys.
fn probes(boundaries: &[Vec<u8>], random: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut out = vec![vec![], vec![0], vec![0xff; 9], vec![0xff; 8]];
    for b in boundaries {
        out.push(b.clone());
        out.push(b[..b.len().saturating_sub(1)].to_vec());
        for extra in [0x00, 0xff] {
            let mut longer = b.clone();
            longer.push(extra);
            out.push(longer);
        }
    }
    out.extend(random.iter().cloned());
    out
}

/// The plain range lookup: the greatest start `<= key`.
fn plain_range_index(starts: &[Vec<u8>], key: &[u8]) -> usize {
    starts.partition_point(|s| s.as_slice() <= key) - 1
}

/// A range layout over `splits` (sorted, deduplicated, empty key dropped), owners cycling
/// over `shards`.
fn range_layout(mut splits: Vec<Vec<u8>>, shards: u32) -> RangePartitioner {
    splits.sort();
    splits.dedup();
    splits.retain(|s| !s.is_empty());
    let mut starts = vec![vec![]];
    starts.extend(splits);
    let owners = (0..starts.len() as u32).map(|i| i % shards).collect();
    RangePartitioner::with_shard_count("range", shards, starts, owners).unwrap()
}

/// The layouts over the starts of `cycling` (from [`range_layout`]) with each kind of owners:
/// cycling (read from the owner list), contiguous on `shards` and on `16 * shards` shards
/// (computed when shards are fewer than ranges, listed otherwise; the owners are checked
/// against `floor(i * N / K)` here), and the contiguous ones grown and shrunk (listed).
fn owner_variants(cycling: RangePartitioner, shards: u32) -> Vec<RangePartitioner> {
    let splits = cycling.starts()[1..].to_vec();
    let ranges = cycling.range_count() as u128;
    let mut out = vec![cycling];
    for n in [shards, 16 * shards] {
        let p = RangePartitioner::from_splits("range", n, splits.clone()).unwrap();
        let plain: Vec<ShardId> = (0..ranges)
            .map(|i| (i * u128::from(n) / ranges) as ShardId)
            .collect();
        assert_eq!(p.owners(), plain);
        out.push(p);
    }
    let weights: Vec<u64> = (0..ranges as u64).map(|i| i * 7 % 5).collect();
    let contiguous = out[1].clone();
    out.push(contiguous.resized_with(shards + 2, &weights).unwrap());
    out.push(
        contiguous
            .resized_with(shards.div_ceil(2), &weights)
            .unwrap(),
    );
    out
}

fn check_range(p: &RangePartitioner, probes: &[Vec<u8>]) -> Result<(), TestCaseError> {
    let starts = p.starts();
    for key in probes {
        let want = plain_range_index(starts, key);
        prop_assert_eq!(p.range_index_of(key), want, "key {:?}", key);
        prop_assert_eq!(p.shard_of(key), p.owners()[want]);
    }
    for pair in probes.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let first = plain_range_index(starts, a);
        let last = if b <= a {
            first
        } else {
            starts.partition_point(|s| s < b) - 1
        };
        prop_assert_eq!(
            p.ranges_overlapping(a, b),
            first..=last,
            "scan {:?}..{:?}",
            a,
            b
        );
    }
    for (i, &owner) in p.owners().iter().enumerate() {
        prop_assert_eq!(p.owner_of_range(i), owner, "range {}", i);
    }
    // The batch API (what the replay calls), through the trait object.
    let refs: Vec<&[u8]> = probes.iter().map(Vec::as_slice).collect();
    let mut batch = Vec::new();
    let dynamic: &dyn Partitioner = p;
    dynamic.shards_of(&refs, &mut batch);
    let direct: Vec<ShardId> = probes.iter().map(|k| p.shard_of(k)).collect();
    prop_assert_eq!(&batch, &direct);
    let mut sorted = probes.to_vec();
    sorted.sort();
    let mut walked = Vec::new();
    p.shards_of_sorted(&sorted, &mut walked);
    let direct: Vec<ShardId> = sorted.iter().map(|k| p.shard_of(k)).collect();
    prop_assert_eq!(&walked, &direct);
    // Unsorted input gives exact owners too.
    walked.clear();
    p.shards_of_sorted(probes, &mut walked);
    let direct: Vec<ShardId> = probes.iter().map(|k| p.shard_of(k)).collect();
    prop_assert_eq!(walked, direct);
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn radix_ranks_are_partition_point(
        mut keys in prop::collection::vec(number(), 0..300),
        extra in prop::collection::vec(number(), 0..50),
    ) {
        keys.sort_unstable();
        let index = RadixIndex::new(&keys);
        let probes = keys.iter().flat_map(|&k| [k, k.wrapping_add(1), k.wrapping_sub(1)]).chain(extra);
        let mut xs: Vec<u64> = probes.chain([0, 1, u64::MAX]).collect();
        for &x in &xs {
            prop_assert_eq!(index.rank_le(x), keys.partition_point(|&k| k <= x), "x {}", x);
            prop_assert_eq!(index.rank_lt(x), keys.partition_point(|&k| k < x), "x {}", x);
        }
        // The merge walk, on queries out of order and then sorted.
        for _ in 0..2 {
            let mut walked = Vec::new();
            index.rank_runs(&xs, |rank, len| walked.extend(std::iter::repeat_n(rank, len)));
            let direct: Vec<usize> = xs.iter().map(|&x| index.rank_le(x)).collect();
            prop_assert_eq!(walked, direct);
            xs.sort_unstable();
        }
    }

    #[test]
    fn segmented_ranks_are_partition_point_per_segment(
        segments in prop::collection::vec(prop::collection::vec(number(), 0..40), 1..12),
        extra in prop::collection::vec(number(), 0..30),
    ) {
        let mut segments = segments;
        segments.iter_mut().for_each(|s| s.sort_unstable());
        let refs: Vec<&[u64]> = segments.iter().map(|s| s.as_slice()).collect();
        let index = SegmentedIndex::new(&refs);
        let probes: Vec<u64> = segments.iter().flatten().flat_map(|&k| [k, k.wrapping_add(1), k.wrapping_sub(1)]).chain(extra).chain([0, u64::MAX]).collect();
        let mut before = 0;
        for (s, segment) in segments.iter().enumerate() {
            for &x in &probes {
                prop_assert_eq!(index.rank_le(s, x), before + segment.partition_point(|&k| k <= x), "segment {} x {}", s, x);
            }
            before += segment.len();
        }
    }

    #[test]
    fn key_index_ranks_are_partition_point(
        splits in prop::collection::vec(byte_key(), 0..60),
        random in prop::collection::vec(byte_key(), 0..40),
    ) {
        let mut splits = splits;
        splits.sort();
        splits.dedup();
        let index = KeyIndex::new(&splits);
        for key in probes(&splits, &random) {
            prop_assert_eq!(index.rank_le(&splits, &key), splits.partition_point(|s| *s <= key));
            prop_assert_eq!(index.rank_lt(&splits, &key), splits.partition_point(|s| *s < key));
        }
    }

    #[test]
    fn range_owners_match_partition_point_for_byte_keys(
        splits in prop::collection::vec(byte_key(), 0..60),
        random in prop::collection::vec(byte_key(), 0..40),
        shards in 1u32..6,
    ) {
        for p in owner_variants(range_layout(splits, shards), shards) {
            check_range(&p, &probes(&p.starts()[1..], &random))?;
        }
    }

    #[test]
    fn range_owners_match_partition_point_for_u64_keys(
        splits in prop::collection::vec(number(), 0..200),
        random in prop::collection::vec(number(), 0..60),
        shards in 1u32..9,
    ) {
        let bytes = |v: &[u64]| v.iter().map(|k| k.to_be_bytes().to_vec()).collect::<Vec<_>>();
        for p in owner_variants(range_layout(bytes(&splits), shards), shards) {
            let keys: Vec<Vec<u8>> = probes(&p.starts()[1..], &bytes(&random));
            check_range(&p, &keys)?;
            let mut numbers: Vec<u64> = keys.iter().filter_map(|k| k.as_slice().try_into().ok()).map(u64::from_be_bytes).collect();
            numbers.sort_unstable();
            let mut walked = Vec::new();
            p.shards_of_sorted_u64(&numbers, &mut walked);
            let direct: Vec<ShardId> = numbers.iter().map(|k| p.shard_of(&k.to_be_bytes())).collect();
            prop_assert_eq!(walked, direct);
        }
    }

    #[test]
    fn long_byte_keys_with_a_common_prefix_match_partition_point(
        tails in prop::collection::vec(byte_key(), 0..60),
        random in prop::collection::vec(byte_key(), 0..40),
    ) {
        let with_prefix = |t: &Vec<u8>| [b"user:00".as_slice(), t].concat();
        let mut splits: Vec<Vec<u8>> = tails.iter().map(with_prefix).collect();
        splits.push(b"user:00zzzzzzzzz".to_vec());
        for p in owner_variants(range_layout(splits, 4), 4) {
            let mut keys = probes(&p.starts()[1..], &random);
            keys.extend(random.iter().map(with_prefix));
            keys.extend([b"user:".to_vec(), b"user:0".to_vec(), b"user;".to_vec(), b"usea".to_vec()]);
            check_range(&p, &keys)?;
        }
    }

    #[test]
    fn ring_owners_match_partition_point(
        positions in prop::collection::vec((number(), 0u32..5), 1..300),
        hashes in prop::collection::vec(number(), 0..100),
    ) {
        let ring = RingPartitioner::from_points("ring", 5, positions).unwrap();
        let points = ring.points();
        let probes = points.iter().flat_map(|p| [p.0, p.0.wrapping_add(1), p.0.wrapping_sub(1)]);
        for h in probes.chain(hashes).chain([0, u64::MAX]) {
            let i = points.partition_point(|p| p.0 < h);
            let want = points.get(i).unwrap_or(&points[0]).1;
            prop_assert_eq!(ring.owner_of_hash(h), want, "hash {}", h);
        }
    }

    #[test]
    fn salted_owners_and_scans_match_the_salted_inner_lookup(
        warmup in prop::collection::vec(prop_oneof![byte_key(), number().prop_map(|n| n.to_be_bytes().to_vec())], 0..200),
        random in prop::collection::vec(byte_key(), 0..40),
        buckets in 1u32..12,
        shards in 1u32..6,
        per_shard in 1u64..4,
    ) {
        let mut warmup = warmup;
        warmup.sort();
        warmup.dedup();
        let p = SaltedRangePartitioner::learn("salted", shards, buckets, per_shard, &warmup).unwrap();
        let keys = probes(&warmup, &random);
        let inner = p.inner();
        for key in &keys {
            let salted = p.salt(key);
            prop_assert_eq!(p.shard_of(key), inner.shard_of(&salted), "key {:?}", key);
            let plain = inner.owners()[plain_range_index(inner.starts(), &salted)];
            prop_assert_eq!(p.shard_of(key), plain, "key {:?}", key);
        }
        for pair in keys.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            let mut fast = ShardSet::new(shards);
            p.scan_shards(a, b, &mut fast);
            // The plain way: one inner scan per bucket over salted bounds.
            let mut plain = ShardSet::new(shards);
            if b <= a {
                plain.insert(p.inner().shard_of(&p.salt(a)));
            } else {
                for bucket in 0..buckets as u16 {
                    let salted = |k: &[u8]| [bucket.to_be_bytes().as_slice(), k].concat();
                    p.inner().scan_shards(&salted(a), &salted(b), &mut plain);
                }
            }
            prop_assert_eq!(fast.iter().collect::<Vec<_>>(), plain.iter().collect::<Vec<_>>());
        }
    }
}
