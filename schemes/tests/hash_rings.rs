//! Cross-check of the consistent-hashing family against the `hash-rings` crate on the same
//! keys: owners differ (the hashes differ), but balance and remap on growth must agree
//! within sampling error.

use std::collections::hash_map::DefaultHasher;
use std::hash::BuildHasherDefault;

use schemes::{BuildContext, SchemeSpec};
use schemes::{KeyCounts, Partitioner};

/// The crate's hasher, fixed (SipHash-1-3 with zero keys) so that the rings before and after
/// growth hash keys alike; its default `RandomState` would draw new keys for each ring.
type Fixed = BuildHasherDefault<DefaultHasher>;

/// Keys, shards before and after growth.
const KEYS: u64 = 200_000;
const N: u32 = 16;

fn ctx() -> BuildContext<'static> {
    BuildContext {
        shards: N,
        warmup_keys: &[],
        key_type: Default::default(),
        weights: None,
    }
}

fn ours(spec: &str) -> Box<dyn Partitioner> {
    SchemeSpec::parse_list(spec).unwrap()[0]
        .build(&ctx())
        .unwrap()
}

/// The hottest shard's share x shard count, from owners of every key.
fn hottest_ratio(owners: &[u32], shards: u32) -> f64 {
    let mut counts = vec![0u64; shards as usize];
    owners.iter().for_each(|&o| counts[o as usize] += 1);
    *counts.iter().max().unwrap() as f64 / owners.len() as f64 * f64::from(shards)
}

/// Share of keys whose owner differs, and share of movers that went to shard `N`.
fn remap(before: &[u32], after: &[u32]) -> (f64, f64) {
    let moved: Vec<u32> = before
        .iter()
        .zip(after)
        .filter(|(b, a)| b != a)
        .map(|(_, &a)| a)
        .collect();
    let to_new = moved.iter().filter(|&&a| a == N).count() as f64 / moved.len().max(1) as f64;
    (moved.len() as f64 / before.len() as f64, to_new)
}

/// Our owners of every key, before and after growing to N + 1.
fn our_owners(spec: &str) -> (Vec<u32>, Vec<u32>) {
    let p = ours(spec);
    let grown = p.resized(N + 1, &KeyCounts::new()).unwrap();
    let keys: Vec<[u8; 8]> = (0..KEYS).map(u64::to_be_bytes).collect();
    (
        keys.iter().map(|k| p.shard_of(k)).collect(),
        keys.iter().map(|k| grown.shard_of(k)).collect(),
    )
}

/// The crate's owners of every key (as node numbers), before and after growth.
fn crate_owners(owner: impl Fn(u32, u64) -> u32) -> (Vec<u32>, Vec<u32>) {
    (
        (0..KEYS).map(|k| owner(N, k)).collect(),
        (0..KEYS).map(|k| owner(N + 1, k)).collect(),
    )
}

/// Compares balance and remap; `balance` and `moved` are the tolerances.
fn agree(
    name: &str,
    ours: (Vec<u32>, Vec<u32>),
    theirs: (Vec<u32>, Vec<u32>),
    balance: f64,
    moved: f64,
) {
    let (ob, tb) = (hottest_ratio(&ours.0, N), hottest_ratio(&theirs.0, N));
    assert!(
        (ob - tb).abs() < balance,
        "{name}: hottest ratio ours {ob:.4}, crate {tb:.4}"
    );
    let (om, tm) = (remap(&ours.0, &ours.1), remap(&theirs.0, &theirs.1));
    assert!(
        (om.0 - tm.0).abs() < moved,
        "{name}: remap ours {:.4}, crate {:.4}",
        om.0,
        tm.0
    );
    eprintln!(
        "{name}: hottest {ob:.4} vs {tb:.4}; remap {:.4} vs {:.4}; to new {:.3} vs {:.3}",
        om.0, tm.0, om.1, tm.1
    );
}

#[test]
fn jump_agrees_with_the_crate() {
    let theirs =
        crate_owners(|n, k| hash_rings::jump::Ring::with_hasher(Fixed::default(), n).get_node(&k));
    // Both move exactly the keys whose next jump is N: 1/17 +- 0.0005 here.
    agree("jump", our_owners("jump"), theirs, 0.03, 0.004);
}

#[test]
fn rendezvous_agrees_with_the_crate() {
    let nodes: Vec<u32> = (0..=N).collect();
    let ring = |n: u32| {
        let mut r = hash_rings::rendezvous::Ring::with_hasher(Fixed::default());
        nodes[..n as usize]
            .iter()
            .for_each(|id| r.insert_node(id, 1));
        r
    };
    let (small, large) = (ring(N), ring(N + 1));
    let theirs = (
        (0..KEYS).map(|k| *small.get_node(&k)).collect(),
        (0..KEYS).map(|k| *large.get_node(&k)).collect(),
    );
    agree("rendezvous", our_owners("rendezvous"), theirs, 0.03, 0.004);
}

#[test]
fn maglev_agrees_with_the_crate_on_the_same_table_size() {
    // The crate picks the next prime at or above 100 N; ours takes it as table=M.
    let nodes: Vec<u32> = (0..=N).collect();
    let m = hash_rings::maglev::Ring::new(nodes[..N as usize].iter().collect()).capacity();
    let ring = |n: u32| {
        hash_rings::maglev::Ring::with_capacity_hint(nodes[..n as usize].iter().collect(), m)
    };
    let (small, large) = (ring(N), ring(N + 1));
    let theirs = (
        (0..KEYS).map(|k| *small.get_node(&k)).collect(),
        (0..KEYS).map(|k| *large.get_node(&k)).collect(),
    );
    agree(
        "maglev",
        our_owners(&format!("maglev:table={m}")),
        theirs,
        0.04,
        0.02,
    );
}

#[test]
fn multiprobe_agrees_with_the_crate() {
    let nodes: Vec<u32> = (0..=N).collect();
    let ring = |n: u32| {
        let mut r = hash_rings::mpc::Ring::with_hasher(Fixed::default(), 21);
        nodes[..n as usize].iter().for_each(|id| r.insert_node(id));
        r
    };
    let (small, large) = (ring(N), ring(N + 1));
    let theirs = (
        (0..KEYS).map(|k| *small.get_node(&k)).collect(),
        (0..KEYS).map(|k| *large.get_node(&k)).collect(),
    );
    agree("multiprobe", our_owners("multiprobe"), theirs, 0.15, 0.02);
    // One point per shard: where the 16 points fall decides the balance of one layout, so
    // the hottest ratios are compared as means over 8 layouts (other shard identities).
    let keys: Vec<u64> = (0..50_000).collect();
    let layouts = 8u32;
    let (mut our_mean, mut their_mean) = (0.0, 0.0);
    for layout in 0..layouts {
        let ids: Vec<u32> = (layout * 100..layout * 100 + N).collect();
        let p = schemes::multiprobe::MultiProbePartitioner::new("mp", ids.clone(), 21).unwrap();
        let owners: Vec<u32> = keys.iter().map(|k| p.shard_of(&k.to_be_bytes())).collect();
        our_mean += hottest_ratio(&owners, N) / f64::from(layouts);
        let mut r = hash_rings::mpc::Ring::with_hasher(Fixed::default(), 21);
        ids.iter().for_each(|id| r.insert_node(id));
        let owners: Vec<u32> = keys.iter().map(|k| *r.get_node(k) - layout * 100).collect();
        their_mean += hottest_ratio(&owners, N) / f64::from(layouts);
    }
    eprintln!("multiprobe over {layouts} layouts: hottest {our_mean:.4} vs {their_mean:.4}");
    assert!(
        (our_mean - their_mean).abs() < 0.04,
        "{our_mean} vs {their_mean}"
    );
}

#[test]
fn ring_agrees_with_the_crate() {
    let nodes: Vec<u32> = (0..=N).collect();
    let ring = |n: u32| {
        let mut r = hash_rings::consistent::Ring::with_hasher(Fixed::default());
        nodes[..n as usize]
            .iter()
            .for_each(|id| r.insert_node(id, 256));
        r
    };
    let (small, large) = (ring(N), ring(N + 1));
    let theirs = (
        (0..KEYS).map(|k| *small.get_node(&k)).collect(),
        (0..KEYS).map(|k| *large.get_node(&k)).collect(),
    );
    // 256 vnodes per shard: arcs spread about 6% per shard; the hottest ratio of either
    // ring lies near 1.1.
    agree("ring", our_owners("ring:vnodes=256"), theirs, 0.08, 0.015);
}
