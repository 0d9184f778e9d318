//! Redundant moves, as TiKV's pd-simulator counts them: the moves of a run form a graph over
//! the shards (an edge `a -> b` weighted by the keys moved from `a` to `b`); every cycle is
//! cancelled by its smallest edge, and the moves cancelled were redundant (data that came back
//! where it was, or went round), the rest are the moves a perfect planner would have made.

use std::collections::BTreeMap;

/// The moves of a run, by (from, to) shard.
#[derive(Clone, Debug, Default)]
pub struct MoveGraph {
    edges: BTreeMap<(u32, u32), u64>,
}

impl MoveGraph {
    /// Records `keys` moves from `from` to `to`.
    pub fn add(&mut self, from: u32, to: u32, keys: u64) {
        if from != to && keys > 0 {
            *self.edges.entry((from, to)).or_default() += keys;
        }
    }

    /// Moves in cycles: each cycle found (depth first, in shard order) is cancelled by its
    /// smallest edge, which removes that weight from each of its edges, until none is left.
    pub fn redundant(&self) -> u64 {
        let mut edges = self.edges.clone();
        let mut cancelled = 0;
        while let Some(cycle) = find_cycle(&edges) {
            let least = cycle.iter().map(|e| edges[e]).min().unwrap_or(0);
            for e in &cycle {
                let w = edges.get_mut(e).expect("edge of the cycle");
                *w -= least;
                if *w == 0 {
                    edges.remove(e);
                }
            }
            cancelled += least * cycle.len() as u64;
        }
        cancelled
    }
}

/// The edges of one cycle of `edges`, or `None`.
fn find_cycle(edges: &BTreeMap<(u32, u32), u64>) -> Option<Vec<(u32, u32)>> {
    let mut out: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for &(a, b) in edges.keys() {
        out.entry(a).or_default().push(b);
    }
    // Colours: absent = unvisited, false = on the current path, true = done.
    let mut colour: BTreeMap<u32, bool> = BTreeMap::new();
    for &start in out.keys() {
        if colour.contains_key(&start) {
            continue;
        }
        let mut path: Vec<(u32, usize)> = vec![(start, 0)];
        colour.insert(start, false);
        while let Some(&mut (node, ref mut next)) = path.last_mut() {
            let succ = out.get(&node).and_then(|v| v.get(*next)).copied();
            *next += 1;
            match succ {
                None => {
                    colour.insert(node, true);
                    path.pop();
                }
                Some(s) => match colour.get(&s) {
                    Some(false) => {
                        let from = path.iter().position(|&(n, _)| n == s)?;
                        let nodes: Vec<u32> = path[from..].iter().map(|&(n, _)| n).collect();
                        let mut cycle: Vec<(u32, u32)> =
                            nodes.windows(2).map(|w| (w[0], w[1])).collect();
                        cycle.push((node, s));
                        return Some(cycle);
                    }
                    Some(true) => {}
                    None => {
                        colour.insert(s, false);
                        path.push((s, 0));
                    }
                },
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_that_come_back_or_go_round_are_redundant() {
        let mut g = MoveGraph::default();
        g.add(0, 1, 10);
        g.add(1, 0, 4); // 4 came back: 8 moves cancelled
        g.add(2, 3, 5); // a chain, no cycle
        assert_eq!(g.redundant(), 8);
        g.add(3, 4, 2);
        g.add(4, 2, 3); // 2 -> 3 -> 4 -> 2 with least 2: 6 more
        assert_eq!(g.redundant(), 14);
        assert_eq!(MoveGraph::default().redundant(), 0);
    }
}
