//! `allocation=rfR`: an **approximation** of Cassandra 4.0's replication-aware token allocator
//! (`allocate_tokens_for_local_replication_factor`, `ReplicationAwareTokenAllocator`), for
//! SimpleStrategy with replication factor R. Not bit-exact: Cassandra draws the first token
//! of the cluster at random, reads Java's `Random`, splits ranges in `BigInteger` and breaks
//! ties by hash-map and priority-queue order, none of which is reproduced.
//!
//! What it keeps of Cassandra's rule:
//! - While the ring has fewer than R nodes, a new node's tokens split the largest range at a
//!   ratio drawn from `[1 - 1/sqrt(5), 1 - 1/sqrt(5) + 0.075)` (`generateSplits`), so the first
//!   nodes start with varied range sizes; here the draws come from `seed`.
//! - Afterwards each new token is the midpoint of an existing range (`createCandidates`),
//!   chosen one at a time to minimise Cassandra's objective (`evaluateImprovement`): the
//!   change of the summed squared deviation of every token's replicated ownership from the
//!   optimum `R / tokens`, divided by its node's token count squared, plus the same for every
//!   node's ownership per token, the new node's own term weighted by the share of its tokens
//!   placed so far. A token's replicated ownership is the span back to the R-th distinct node
//!   before it, or to the previous token of its own node (`populateTokenInfo`). Every
//!   candidate is evaluated again for each token (Cassandra re-evaluates lazily), so the
//!   choice can differ where Cassandra's heuristic stops early.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::ShardId;

/// The smallest split ratio of the first nodes' ranges (`MIN_INITIAL_SPLITS_RATIO`).
const MIN_SPLIT_RATIO: f64 = 0.552_786_404_500_042; // 1 - 1/sqrt(5)
/// How much above it a ratio may be (`MAX_INITIAL_SPLITS_RATIO - MIN_INITIAL_SPLITS_RATIO`).
const SPLIT_RATIO_SPREAD: f64 = 0.075;

/// The most tokens (nodes x num_tokens) the allocator places: each token evaluates every
/// range of the ring, so the work grows with the square of the ring.
pub const MAX_ALLOCATED_TOKENS: u64 = 8_192;

/// The ring size of the span from `from` to `to` (`(from, to]`), the whole ring when equal.
fn span(from: u64, to: u64) -> u128 {
    match to.wrapping_sub(from) {
        0 => 1 << 64,
        d => u128::from(d),
    }
}

/// A span as a share of the ring.
fn share(span: u128) -> f64 {
    span as f64 / 18_446_744_073_709_551_616.0
}

/// The ring with one candidate token inserted before index `at`, read without copying.
struct View<'a> {
    ring: &'a [(u64, ShardId)],
    insert: Option<(usize, (u64, ShardId))>,
}

impl View<'_> {
    fn len(&self) -> usize {
        self.ring.len() + usize::from(self.insert.is_some())
    }

    /// The token at index `k` modulo the length.
    fn get(&self, k: usize) -> (u64, ShardId) {
        let k = k % self.len();
        match self.insert {
            Some((at, token)) if k == at => token,
            Some((at, _)) if k > at => self.ring[k - 1],
            _ => self.ring[k],
        }
    }

    /// The replicated ownership (as a share of the ring) of the token at index `j` for
    /// replication factor `rf`: the span back to the token of the `rf`-th distinct node
    /// met walking back, or to the previous token of its own node.
    fn replicated(&self, j: usize, rf: usize) -> f64 {
        let len = self.len();
        let (end, node) = self.get(j);
        let mut seen: Vec<ShardId> = Vec::with_capacity(rf);
        let mut start = end;
        for back in 1..=len {
            let (at, other) = self.get(j + len - back);
            start = at;
            if seen.contains(&other) {
                continue;
            }
            seen.push(other);
            if seen.len() >= rf || other == node {
                break;
            }
        }
        share(span(start, end))
    }
}

/// Adds `num_tokens` tokens for each node of `nodes`, in node order, to the sorted ring
/// `ring`, as the module describes.
pub(super) fn allocate(
    ring: &mut Vec<(u64, ShardId)>,
    nodes: std::ops::Range<u32>,
    num_tokens: u32,
    rf: u32,
    seed: u64,
) {
    for node in nodes {
        let mut units: Vec<ShardId> = ring.iter().map(|p| p.1).collect();
        units.sort_unstable();
        units.dedup();
        if units.len() < rf as usize || num_tokens as usize > ring.len() {
            split_largest(ring, node, num_tokens, seed);
        } else {
            place_best(ring, node, num_tokens, rf as usize);
        }
    }
}

/// `generateSplits`: splits the largest range at a drawn ratio, `num_tokens` times (a random
/// first token on an empty ring).
fn split_largest(ring: &mut Vec<(u64, ShardId)>, node: ShardId, num_tokens: u32, seed: u64) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ u64::from(node).rotate_left(32));
    let mut added = 0;
    if ring.is_empty() {
        ring.push((rng.random(), node));
        added = 1;
    }
    while added < num_tokens {
        let len = ring.len();
        let (i, size) = (0..len)
            .map(|i| (i, span(ring[(i + len - 1) % len].0, ring[i].0)))
            .max_by_key(|&(i, size)| (size, std::cmp::Reverse(i)))
            .expect("the ring is not empty");
        let ratio = MIN_SPLIT_RATIO + SPLIT_RATIO_SPREAD * rng.random::<f64>();
        let from = ring[(i + len - 1) % len].0;
        let at = from.wrapping_add((size as f64 * ratio) as u64);
        if ring.iter().all(|p| p.0 != at) {
            insert_sorted(ring, (at, node));
            added += 1;
        }
    }
}

fn insert_sorted(ring: &mut Vec<(u64, ShardId)>, token: (u64, ShardId)) {
    let at = ring.partition_point(|p| p.0 < token.0);
    ring.insert(at, token);
}

/// The ownership state the objective reads: per token and per node.
struct Ownership {
    tokens: Vec<f64>,
    nodes: Vec<f64>,
    counts: Vec<f64>,
}

impl Ownership {
    /// The replicated ownership of every token and node of `ring`; the new node `node`
    /// counts its `num_tokens` tokens, those not yet placed at the optimum `opt`.
    fn of(ring: &[(u64, ShardId)], rf: usize, node: ShardId, num_tokens: u32, opt: f64) -> Self {
        let view = View { ring, insert: None };
        let tokens: Vec<f64> = (0..ring.len()).map(|j| view.replicated(j, rf)).collect();
        let units = ring.iter().map(|p| p.1).max().map_or(0, |m| m.max(node)) as usize + 1;
        let (mut nodes, mut counts) = (vec![0.0; units], vec![0.0; units]);
        for (&(_, n), &own) in ring.iter().zip(&tokens) {
            nodes[n as usize] += own;
            counts[n as usize] += 1.0;
        }
        let placed = counts[node as usize];
        nodes[node as usize] += (f64::from(num_tokens) - placed) * opt;
        counts[node as usize] = f64::from(num_tokens);
        Ownership {
            tokens,
            nodes,
            counts,
        }
    }
}

/// Places `num_tokens` tokens of `node`, each at the range midpoint that improves the
/// objective most.
fn place_best(ring: &mut Vec<(u64, ShardId)>, node: ShardId, num_tokens: u32, rf: usize) {
    let opt = rf as f64 / (ring.len() + num_tokens as usize) as f64;
    for placed in 0..num_tokens {
        let own = Ownership::of(ring, rf, node, num_tokens, opt);
        let weight = f64::from(placed + 1) / f64::from(num_tokens);
        let len = ring.len();
        let best = (0..len)
            .filter_map(|i| {
                let from = ring[(i + len - 1) % len].0;
                let at = from.wrapping_add((span(from, ring[i].0) / 2) as u64);
                let fresh = ring.iter().all(|p| p.0 != at);
                fresh.then(|| (change(ring, &own, (i, (at, node)), rf, opt, weight), i, at))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let Some((_, _, at)) = best else {
            return; // every range is one token wide: nothing left to split
        };
        // The same cyclic place as index i; sorted, a midpoint past the top wraps to the front.
        insert_sorted(ring, (at, node));
    }
}

/// The change of the objective when `candidate` (index, token) is inserted; lower is better.
fn change(
    ring: &[(u64, ShardId)],
    own: &Ownership,
    candidate: (usize, (u64, ShardId)),
    rf: usize,
    opt: f64,
    weight: f64,
) -> f64 {
    let view = View {
        ring,
        insert: Some(candidate),
    };
    let sq = |x: f64| x * x;
    let (at, (_, node)) = candidate;
    // (node, ownership change), the new node first.
    let mut moved: Vec<(ShardId, f64)> = Vec::with_capacity(rf + 2);
    let new = view.replicated(at, rf);
    let count = own.counts[node as usize];
    let mut tokens = (sq(new - opt) - sq(0.0)) / sq(count);
    moved.push((node, new - opt));
    // The first token of each of the next `rf` distinct nodes: their span may now end at
    // the candidate; later tokens of a node already met cannot be affected.
    let mut seen: Vec<ShardId> = Vec::with_capacity(rf);
    for step in 1..view.len() {
        if seen.len() >= rf {
            break;
        }
        let (_, other) = view.get(at + step);
        if seen.contains(&other) {
            continue;
        }
        seen.push(other);
        let index = (at + step) % view.len();
        let old = own.tokens[if index > at { index - 1 } else { index }];
        let now = view.replicated(index, rf);
        tokens += (sq(now - opt) - sq(old - opt)) / sq(own.counts[other as usize]);
        match moved.iter_mut().find(|m| m.0 == other) {
            Some(m) => m.1 += now - old,
            None => moved.push((other, now - old)),
        }
    }
    let units: f64 = moved
        .iter()
        .map(|&(n, diff)| {
            let (o, c) = (own.nodes[n as usize], own.counts[n as usize]);
            let d = sq((o + diff) / c - opt) - sq(o / c - opt);
            if n == node {
                d * weight
            } else {
                d
            }
        })
        .sum();
    tokens + units
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every node's replicated ownership (share of the ring), by brute force over the
    /// ranges: a range belongs to the first `rf` distinct nodes met clockwise from its end.
    fn ownership(ring: &[(u64, ShardId)], rf: usize, nodes: usize) -> Vec<f64> {
        let mut out = vec![0.0; nodes];
        let len = ring.len();
        for i in 0..len {
            let size = share(span(ring[(i + len - 1) % len].0, ring[i].0));
            let mut replicas: Vec<ShardId> = Vec::new();
            for k in 0..len {
                let n = ring[(i + k) % len].1;
                if !replicas.contains(&n) {
                    replicas.push(n);
                }
                if replicas.len() == rf {
                    break;
                }
            }
            replicas.iter().for_each(|&n| out[n as usize] += size);
        }
        out
    }

    /// max / mean of the nodes' replicated ownership.
    fn spread(own: &[f64]) -> f64 {
        let mean = own.iter().sum::<f64>() / own.len() as f64;
        own.iter().copied().fold(0.0, f64::max) / mean
    }

    #[test]
    fn a_tokens_replicated_ownership_sums_to_its_nodes_share_of_the_ranges() {
        let mut ring = Vec::new();
        allocate(&mut ring, 0..7, 4, 3, 11);
        let view = View {
            ring: &ring,
            insert: None,
        };
        let mut by_token = vec![0.0; 7];
        for (j, p) in ring.iter().enumerate() {
            by_token[p.1 as usize] += view.replicated(j, 3);
        }
        let brute = ownership(&ring, 3, 7);
        for (a, b) in by_token.iter().zip(&brute) {
            assert!((a - b).abs() < 1e-12, "{by_token:?} vs {brute:?}");
        }
        assert!((brute.iter().sum::<f64>() - 3.0).abs() < 1e-9);
    }

    #[test]
    fn the_allocator_balances_replicated_ownership_far_better_than_random_tokens() {
        let cases = [
            (12u32, 8u32, 3usize, 5u64),
            (9, 4, 3, 1),
            (10, 8, 2, 2),
            (30, 16, 3, 7),
        ];
        for (nodes, tokens, rf, seed) in cases {
            let mut allocated = Vec::new();
            allocate(&mut allocated, 0..nodes, tokens, rf as u32, seed);
            assert_eq!(allocated.len(), (nodes * tokens) as usize);
            assert!(allocated.windows(2).all(|w| w[0].0 < w[1].0));
            let mut random = Vec::new();
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            for n in 0..nodes {
                (0..tokens).for_each(|_| insert_sorted(&mut random, (rng.random(), n)));
            }
            let a = spread(&ownership(&allocated, rf, nodes as usize));
            let r = spread(&ownership(&random, rf, nodes as usize));
            // The allocator keeps every node within a few percent of the mean; random
            // tokens leave tens of percent.
            assert!(a < 1.10, "{nodes}x{tokens} rf{rf}: allocated max/mean {a}");
            assert!(
                r > a + 0.1,
                "{nodes}x{tokens} rf{rf}: random {r} vs allocated {a}"
            );
        }
    }
}
