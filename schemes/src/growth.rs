//! How the key-range schemes (`range`, `salted`) grow and shrink: the `grow` parameter.
//!
//! - **`grow=balanced`** (the default), as range stores rebalance when a node joins: each
//!   added shard in turn is filled up to its fair share of the measured point requests, `1/M`
//!   of them, from the most loaded shards first, each giving at most what it holds above
//!   `1/M`. A donor gives its most requested ranges whole while they fit in what is still
//!   wanted, and then cuts one range at a measured key so that the piece it gives carries the
//!   rest (the upper or the lower piece, whichever comes closer without exceeding it; a
//!   load-halving key when half the range is wanted). Nothing else moves, so the moved load is
//!   about `(M-N)/M` of the requests. When one key carries more than a range can give, the
//!   added shard gets what can be cut around it (possibly less than its share). Shrinking
//!   hands each range of a removed shard, in key order, to the surviving shard that then
//!   serves the fewest requests (ties: the lowest id); no range is cut.
//! - **`grow=cheapest`**: the boundaries never change and whole ranges move by count and
//!   distinct keys ([`crate::range::RangePartitioner::resized_with`]).
//!
//! Without a measured point request (nothing to weigh), `balanced` moves whole ranges as
//! `cheapest` does. Loads are counted over the keys that [`crate::KeyCounts`] holds: all of
//! them while exact, its consistent sample of the key space beyond the distinct-key limit (so
//! a cut falls on a sampled key and the shares are estimates). Every cut is exact and
//! deterministic: integer request counts, keys in key order, ties to the lowest number.

use std::cmp::Reverse;

use workloads::Spec;

use crate::{AnalysisError, ShardId};

/// The `grow` parameter of `range` and `salted`, for their `params` list.
pub const GROW_PARAM: (&str, &str) = (
    "grow",
    "growth rule: balanced (default; each added shard gets about 1/M of the requests, from the \
     busiest shards, cutting ranges at a key where needed) or cheapest (whole ranges by count, \
     each donor's cheapest first; boundaries never change)",
);

/// The growth (and shrink) rule of a key-range scheme; see the module documentation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GrowRule {
    /// Fill every added shard with its fair share of the requests.
    #[default]
    Balanced,
    /// Move whole ranges by count, the cheapest first (the rule before `balanced`).
    Cheapest,
}

impl GrowRule {
    /// The rule a spec's `grow` parameter names (`balanced` when absent).
    pub fn from_spec(spec: &Spec) -> Result<GrowRule, AnalysisError> {
        match spec.get(GROW_PARAM.0) {
            None | Some("balanced") => Ok(GrowRule::Balanced),
            Some("cheapest") => Ok(GrowRule::Cheapest),
            Some(other) => Err(spec
                .error(format!(
                    "grow={other} is not a growth rule; use grow=balanced or grow=cheapest"
                ))
                .into()),
        }
    }
}

/// A range layout: the start of every range (the first is the empty key) and its owner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RangeLayout {
    /// Start keys, strictly increasing.
    pub starts: Vec<Vec<u8>>,
    /// Owner of every range.
    pub owners: Vec<ShardId>,
}

/// The measured keys of a layout with their requests, in key order, with where each range's
/// keys start: a cut needs the keys of a range in key order, and they are sorted once for
/// every scheme and target ([`crate::KeyCounts::sorted`]) rather than range by range.
pub struct KeysByRange<K> {
    keys: Vec<(K, u64)>,
    /// Range `r` holds `keys[bounds[r]..bounds[r + 1]]`.
    bounds: Vec<usize>,
}

impl<K: Copy + Send + Sync> KeysByRange<K> {
    /// The ranges of `keys`, given in increasing key order, over `ranges` ranges, where
    /// `range_of` (below `ranges`) never decreases along the keys: each range's keys are one
    /// run, found by binary search.
    pub fn in_key_order(
        keys: Vec<(K, u64)>,
        ranges: usize,
        range_of: impl Fn(&K) -> usize,
    ) -> Self {
        let bounds = (0..=ranges)
            .map(|r| keys.partition_point(|(k, _)| range_of(k) < r))
            .collect();
        KeysByRange { keys, bounds }
    }

    /// The distinct keys of every range.
    pub fn distinct_per_range(&self) -> Vec<u64> {
        self.bounds
            .windows(2)
            .map(|w| (w[1] - w[0]) as u64)
            .collect()
    }

    /// The requests of every range.
    pub fn requests_per_range(&self) -> Vec<u64> {
        let sum = |w: &[usize]| self.keys[w[0]..w[1]].iter().map(|(_, c)| c).sum();
        self.bounds.windows(2).map(sum).collect()
    }
}

/// `items` in order of `group_of` (below `groups`), the given order kept within a group: a
/// counting sort (linear, where a comparison sort of the items would not be).
pub fn group_stably<T: Copy>(
    items: Vec<T>,
    groups: usize,
    group_of: impl Fn(&T) -> usize,
) -> Vec<T> {
    let mut next = vec![0usize; groups + 1];
    for item in &items {
        next[group_of(item) + 1] += 1;
    }
    for g in 1..next.len() {
        next[g] += next[g - 1];
    }
    // Each item to the next free place of its group (every place is written once).
    let mut grouped = items.clone();
    for item in items {
        let g = group_of(&item);
        grouped[next[g]] = item;
        next[g] += 1;
    }
    grouped
}

/// `layout` on `from` shards grown to `to > from` shards by the `balanced` rule (see the
/// module documentation), weighing `keys`; a cut at key `k` starts its range at `start_of(k)`
/// (the key as the layout compares it).
pub fn grow_balanced<K: Ord + Copy>(
    layout: &RangeLayout,
    from: u32,
    to: u32,
    keys: KeysByRange<K>,
    start_of: impl Fn(&K) -> Vec<u8>,
) -> RangeLayout {
    let mut growth = Growth::new(layout, to, keys);
    for new in from..to {
        growth.fill(new as usize);
    }
    growth.finish(layout, start_of)
}

/// A run of a range's measured keys during growth.
#[derive(Clone, Copy, Debug)]
struct Piece {
    /// The range it was cut from.
    range: usize,
    /// Its measured keys: indices `lo..hi` of the grouped keys.
    lo: usize,
    hi: usize,
    /// Where it starts: the range's own start (`None`) or measured key `j` (a cut).
    cut_at: Option<usize>,
    owner: ShardId,
}

/// A cut of a piece at measured key `at`: the piece below `at` keeps the start; `lower` says
/// which side moves; `moved` is its load.
struct Cut {
    at: usize,
    lower: bool,
    moved: u64,
}

/// The state of a balanced growth.
struct Growth<K> {
    keys: KeysByRange<K>,
    /// `cum[i]`: requests of the first `i` grouped keys.
    cum: Vec<u64>,
    pieces: Vec<Piece>,
    /// Requests served by each shard.
    load: Vec<u64>,
    /// `M`, the shard count after growth.
    shards: u128,
}

impl<K: Ord + Copy> Growth<K> {
    fn new(layout: &RangeLayout, to: u32, keys: KeysByRange<K>) -> Growth<K> {
        let mut cum = Vec::with_capacity(keys.keys.len() + 1);
        cum.push(0u64);
        for (_, count) in &keys.keys {
            cum.push(cum[cum.len() - 1] + count);
        }
        let pieces = (layout.owners.iter().enumerate())
            .map(|(range, &owner)| Piece {
                range,
                lo: keys.bounds[range],
                hi: keys.bounds[range + 1],
                cut_at: None,
                owner,
            })
            .collect();
        let mut growth = Growth {
            keys,
            cum,
            pieces,
            load: vec![0; to as usize],
            shards: u128::from(to),
        };
        for i in 0..growth.pieces.len() {
            growth.load[growth.pieces[i].owner as usize] += growth.piece_load(i);
        }
        growth
    }

    /// Requests of piece `i`.
    fn piece_load(&self, i: usize) -> u64 {
        let p = &self.pieces[i];
        self.cum[p.hi] - self.cum[p.lo]
    }

    /// Gives the added shard `new` up to its fair share, from the most loaded shards first.
    fn fill(&mut self, new: usize) {
        // Shares are compared as loads times M against the total: exact integers.
        let total = u128::from(self.cum[self.cum.len() - 1]);
        let shards = self.shards;
        let scaled = move |load: u64| u128::from(load) * shards;
        let mut blocked = vec![false; self.load.len()];
        // Each pass moves at least one request to `new` or blocks a donor, so this ends.
        loop {
            let need = total.saturating_sub(scaled(self.load[new]));
            let donor = (0..self.load.len())
                .filter(|&s| s != new && !blocked[s] && scaled(self.load[s]) > total)
                .max_by_key(|&s| (self.load[s], Reverse(s)));
            let Some(donor) = donor else { break };
            if need == 0 {
                break;
            }
            let give = (need.min(scaled(self.load[donor]) - total) / shards) as u64;
            if give == 0 || self.take(donor, new as ShardId, give) == 0 {
                blocked[donor] = true;
            }
        }
    }

    /// Moves up to `give` requests from `donor` to `new`: its most requested pieces whole
    /// while they fit, then cuts of the others; returns the requests moved.
    fn take(&mut self, donor: usize, new: ShardId, give: u64) -> u64 {
        let mut order: Vec<(u64, usize)> = (0..self.pieces.len())
            .filter(|&i| self.pieces[i].owner as usize == donor)
            .map(|i| (self.piece_load(i), i))
            .filter(|&(load, _)| load > 0)
            .collect();
        order.sort_unstable_by_key(|&(load, i)| (Reverse(load), i));
        let mut remaining = give;
        for (load, i) in order {
            if remaining == 0 {
                break;
            }
            if load <= remaining {
                self.pieces[i].owner = new;
                remaining -= load;
            } else if let Some(cut) = self.best_cut(i, remaining) {
                let upper = Piece {
                    lo: cut.at,
                    cut_at: Some(cut.at),
                    ..self.pieces[i]
                };
                let lower = &mut self.pieces[i];
                lower.hi = cut.at;
                let upper_owner = if cut.lower {
                    lower.owner = new;
                    donor as ShardId
                } else {
                    new
                };
                self.pieces.push(Piece {
                    owner: upper_owner,
                    ..upper
                });
                remaining -= cut.moved;
            }
        }
        let moved = give - remaining;
        self.load[donor] -= moved;
        self.load[new as usize] += moved;
        moved
    }

    /// The cut of piece `i` whose upper or lower side carries the most requests up to
    /// `wanted` (ties: the upper side, at the lowest key); `None` when no side carries any.
    fn best_cut(&self, i: usize, wanted: u64) -> Option<Cut> {
        let Piece { lo, hi, .. } = self.pieces[i];
        if hi - lo < 2 {
            return None;
        }
        // Cuts at keys lo+1..hi leave keys on both sides; `inner[c]` is cum[lo + 1 + c].
        let inner = &self.cum[lo + 1..hi];
        let (base, end) = (self.cum[lo], self.cum[hi]);
        let upper_at = lo + 1 + inner.partition_point(|&c| end - c > wanted);
        let upper = if upper_at < hi {
            end - self.cum[upper_at]
        } else {
            0
        };
        let lower_at = lo + inner.partition_point(|&c| c - base <= wanted);
        let lower = self.cum[lower_at] - base;
        match (upper, lower) {
            (0, 0) => None,
            (u, l) if u >= l => Some(Cut {
                at: upper_at,
                lower: false,
                moved: u,
            }),
            (_, l) => Some(Cut {
                at: lower_at,
                lower: true,
                moved: l,
            }),
        }
    }

    /// The grown layout: pieces in key order with their starts.
    fn finish(mut self, layout: &RangeLayout, start_of: impl Fn(&K) -> Vec<u8>) -> RangeLayout {
        self.pieces.sort_unstable_by_key(|p| (p.range, p.lo));
        let starts = self
            .pieces
            .iter()
            .map(|p| match p.cut_at {
                None => layout.starts[p.range].clone(),
                Some(j) => start_of(&self.keys.keys[j].0),
            })
            .collect();
        let owners = self.pieces.iter().map(|p| p.owner).collect();
        RangeLayout { starts, owners }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys `0..n` as one byte each, with the given request counts, over ranges starting at
    /// the empty key and at each of `splits`.
    fn grow(splits: &[u8], owners: &[ShardId], counts: &[u64], from: u32, to: u32) -> RangeLayout {
        let mut starts = vec![vec![]];
        starts.extend(splits.iter().map(|&s| vec![s]));
        let keys: Vec<(u8, u64)> = (0..counts.len() as u8)
            .zip(counts.iter().copied())
            .collect();
        let range_of = |k: &u8| splits.partition_point(|&s| s <= *k);
        let layout = RangeLayout {
            starts,
            owners: owners.to_vec(),
        };
        let keys = KeysByRange::in_key_order(keys, layout.owners.len(), range_of);
        grow_balanced(&layout, from, to, keys, |k: &u8| vec![*k])
    }

    /// Requests on each shard of a grown layout of one-byte keys.
    fn loads(layout: &RangeLayout, counts: &[u64], shards: usize) -> Vec<u64> {
        let mut load = vec![0; shards];
        for (k, &c) in counts.iter().enumerate() {
            let range = layout
                .starts
                .partition_point(|s| s.as_slice() <= [k as u8].as_slice())
                - 1;
            load[layout.owners[range] as usize] += c;
        }
        load
    }

    #[test]
    fn a_single_hot_range_is_cut_so_the_new_shard_gets_a_third() {
        // Two ranges: [0, 6) on shard 0 with all 6 requests, [6, ..) on shard 1 with none.
        let counts = [1, 1, 1, 1, 1, 1];
        let grown = grow(&[6], &[0, 1], &counts, 2, 3);
        // Fair share 2: shard 0 gives its upper two keys (4, 5), cut at key 4.
        assert_eq!(grown.starts, [vec![], vec![4], vec![6]]);
        assert_eq!(grown.owners, [0, 2, 1]);
        assert_eq!(loads(&grown, &counts, 3), [4, 0, 2]);
    }

    #[test]
    fn whole_ranges_move_when_they_fit_and_the_busiest_shard_gives_first() {
        // Shard 0: ranges [0,2) 4 requests and [2,4) 4; shard 1: [4,6) 2 and [6,..) 2.
        let counts = [2, 2, 2, 2, 1, 1, 1, 1];
        let grown = grow(&[2, 4, 6], &[0, 0, 1, 1], &counts, 2, 3);
        // Fair share 12/3 = 4; shard 0 (8) gives 4 = its range [0, 2) (ties: lowest range).
        assert_eq!(grown.starts.len(), 4, "no cut");
        assert_eq!(grown.owners, [2, 0, 1, 1]);
        assert_eq!(loads(&grown, &counts, 3), [4, 4, 4]);
    }

    #[test]
    fn every_shard_above_the_fair_share_gives_its_excess_and_nothing_more() {
        // Four shards of 17 requests each (one range, 17 keys of 1): 68 over 5 shards is
        // 13.6; each gives floor(excess) = 3, the last the rest that the new shard lacks.
        let counts = [1u64; 68];
        let splits: Vec<u8> = vec![17, 34, 51];
        let grown = grow(&splits, &[0, 1, 2, 3], &counts, 4, 5);
        let load = loads(&grown, &counts, 5);
        assert_eq!(load.iter().sum::<u64>(), 68);
        assert_eq!(
            load,
            [14, 14, 14, 14, 12],
            "13.6 each; cuts in whole requests"
        );
        // Moved keys: only those now on shard 4, each cut from the top of a range.
        assert_eq!(grown.owners, [0, 4, 1, 4, 2, 4, 3, 4]);
    }

    #[test]
    fn a_hot_key_is_cut_around_and_never_overshoots() {
        // One range, keys 0..5: key 2 carries 90 of 100 requests; 2 shards -> 3 (fair 33).
        let counts = [2, 3, 90, 3, 2];
        let grown = grow(&[], &[0], &counts, 1, 3);
        let load = loads(&grown, &counts, 3);
        // The new shards get what lies around the hot key, never the hot key itself.
        assert_eq!(load.iter().sum::<u64>(), 100);
        assert_eq!(load[0], 90, "{grown:?}");
        assert!(load[1] + load[2] == 10 && load[1] > 0, "{load:?}");
    }

    #[test]
    fn no_requests_leave_the_layout_unchanged() {
        let grown = grow(&[3], &[0, 1], &[0, 0, 0, 0, 0], 2, 4);
        assert_eq!(grown.owners, [0, 1]);
    }

    #[test]
    fn the_rule_is_read_from_the_spec() {
        let rule = |t: &str| GrowRule::from_spec(&Spec::parse(t).unwrap());
        assert_eq!(rule("range").unwrap(), GrowRule::Balanced);
        assert_eq!(rule("range:grow=balanced").unwrap(), GrowRule::Balanced);
        assert_eq!(rule("salted:grow=cheapest").unwrap(), GrowRule::Cheapest);
        let err = rule("range:grow=fast").unwrap_err().to_string();
        assert!(err.contains("grow=balanced or grow=cheapest"), "{err}");
    }
}
