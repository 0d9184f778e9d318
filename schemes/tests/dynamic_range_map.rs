//! Issue 4, acceptance 1: ranges always tile the key space, and split then merge returns the
//! same boundaries.

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use schemes::range_dynamic::RangeMap;

/// Start, end and owner of every range.
fn bounds(map: &RangeMap<u32>) -> Vec<(Vec<u8>, Option<Vec<u8>>, u32)> {
    map.iter()
        .map(|(s, e)| (s.to_vec(), e.end().map(<[u8]>::to_vec), e.owner()))
        .collect()
}

/// The range holding `key`, by brute force over the list of ranges.
fn brute_force_owner(map: &RangeMap<u32>, key: &[u8]) -> Vec<u8> {
    let holding: Vec<Vec<u8>> = map
        .iter()
        .filter(|(s, e)| *s <= key && e.end().is_none_or(|end| key < end))
        .map(|(s, _)| s.to_vec())
        .collect();
    assert_eq!(
        holding.len(),
        1,
        "key {key:?} is in {} ranges",
        holding.len()
    );
    holding[0].clone()
}

#[derive(Clone, Debug)]
enum Op {
    Split(Vec<u8>),
    /// Merge the range whose index is this modulo the range count.
    Merge(usize),
    Move(usize, u32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => proptest::collection::vec(any::<u8>(), 0..4).prop_map(Op::Split),
        2 => any::<usize>().prop_map(Op::Merge),
        1 => (any::<usize>(), 0u32..8).prop_map(|(i, n)| Op::Move(i, n)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn ranges_tile_the_key_space_after_any_sequence_of_splits_and_merges(
        ops in proptest::collection::vec(op(), 0..200),
        probes in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..5), 1..40),
    ) {
        let mut map = RangeMap::new(0, 0u32);
        for op in ops {
            let generations: Vec<u64> = map.iter().map(|(_, e)| e.generation()).collect();
            match op {
                Op::Split(at) => {
                    let (start, parent) = map.lookup(&at);
                    let (start, gen) = (start.to_vec(), parent.generation());
                    if map.split(&at, 1).is_ok() {
                        prop_assert!(map.get(&start).unwrap().generation() > gen);
                        prop_assert!(map.get(&at).unwrap().generation() > gen);
                    } else {
                        prop_assert_eq!(start, at);
                    }
                }
                Op::Merge(i) => {
                    let start = map.starts()[i % map.len()].clone();
                    let before = map.len();
                    let last = map.get(&start).unwrap().end().is_none();
                    prop_assert_eq!(map.merge(&start).is_ok(), !last);
                    prop_assert_eq!(map.len(), before - usize::from(!last));
                    if !last {
                        prop_assert!(map.get(&start).unwrap().generation() > generations[i % before]);
                    }
                }
                Op::Move(i, node) => {
                    let start = map.starts()[i % map.len()].clone();
                    map.get_mut(&start).unwrap().set_owner(node);
                }
            }
            prop_assert!(map.check().is_ok(), "{:?}", map.check());
        }
        for key in &probes {
            prop_assert_eq!(map.lookup(key).0.to_vec(), brute_force_owner(&map, key));
        }
        let first = map.iter().next().unwrap();
        prop_assert!(first.0.is_empty());
        prop_assert!(map.iter().last().unwrap().1.end().is_none());
    }

    #[test]
    fn a_split_then_a_merge_of_its_left_half_returns_the_same_boundaries(
        splits in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 1..4), 0..40),
        owners in proptest::collection::vec(0u32..8, 40),
        at in proptest::collection::vec(any::<u8>(), 1..5),
    ) {
        let mut map = RangeMap::new(0, 0u32);
        for (key, owner) in splits.iter().zip(owners) {
            if map.split(key, 0).is_ok() {
                map.get_mut(key).unwrap().set_owner(owner);
            }
        }
        let before = bounds(&map);
        let start = map.lookup(&at).0.to_vec();
        let generation = map.get(&start).unwrap().generation();
        if map.split(&at, 7).is_ok() {
            prop_assert_ne!(bounds(&map), before.clone());
            prop_assert_eq!(map.merge(&start), Ok(7));
            prop_assert_eq!(bounds(&map), before);
            prop_assert!(map.get(&start).unwrap().generation() >= generation + 2);
        } else {
            prop_assert_eq!(start, at);
        }
    }
}
