//! Key-range partitioning: sorted range start keys, an owner per range, predecessor lookup.
//!
//! Ranges are half-open and tile the key space: the first start is the empty key and range
//! `i` is `[starts[i], starts[i + 1])`, the last one unbounded. Boundaries come from a file
//! (`range:boundaries=splits.txt`) or are learned from the warm-up keys as quantiles
//! (`range:ranges_per_shard=8`, the default). Owners are contiguous when built: range `i` of
//! `K` belongs to shard `floor(i * N / K)`, so key order is shard order until the scheme is
//! resized. While owners are exactly that, a lookup computes the owner from the range index
//! (one multiplication) instead of reading it from the owner list.

mod placement;

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeSet, BinaryHeap};
use std::ops::RangeInclusive;
use std::path::Path;
use std::sync::Arc;

use workloads::key::display_bytes;
use workloads::{KeyType, Spec};

use super::growth::{self, GrowRule, KeysByRange, RangeLayout, GROW_PARAM};
use super::{check_shard_count, BuildContext, SchemeKind};
use crate::layout::KeyIndex;
use crate::{AnalysisError, KeyCounts, Partitioner, RemovalEffect, ShardId, ShardSet};

/// Ranges per shard when boundaries are learned and `ranges_per_shard` is not given.
pub const DEFAULT_RANGES_PER_SHARD: u64 = 8;

/// Registration of `range`.
pub const KIND: SchemeKind = SchemeKind {
    name: "range",
    about: "contiguous key ranges; boundaries from a file or learned as warm-up key quantiles",
    system: |_| None,
    params: &[
        (
            "boundaries",
            "file with one split key per line, strictly increasing; K-1 lines give K ranges",
        ),
        (
            "ranges_per_shard",
            "ranges per shard when boundaries are learned from the warm-up (default 8)",
        ),
        GROW_PARAM,
    ],
    needs_warmup: learns_boundaries,
    points: |spec, shards| match spec.get("boundaries") {
        // The file's lines are the ranges; its size bounds them.
        Some(_) => crate::Points::per_shard(shards),
        None => {
            let per_shard = crate::count_param(spec, "ranges_per_shard", DEFAULT_RANGES_PER_SHARD);
            crate::Points::times_shards(
                per_shard,
                shards,
                "ranges_per_shard x shards",
                "fewer ranges_per_shard or fewer shards",
            )
        }
    },
    build,
    changing: None,
};

/// Why `boundaries` and `ranges_per_shard` cannot be given together.
const BOUNDARIES_AND_RANGES_PER_SHARD: &str = "ranges_per_shard only applies to learned \
    boundaries; give either boundaries=FILE or ranges_per_shard=R";

/// True unless the boundaries come from a file.
fn learns_boundaries(spec: &Spec) -> bool {
    spec.get("boundaries").is_none()
}

/// Builds `range` from a boundaries file or from the warm-up keys.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let label = spec.to_string();
    let grow = GrowRule::from_spec(spec)?;
    let partitioner = match spec.get("boundaries") {
        Some(path) => {
            let why = "a boundaries file fixes the ranges (weights apply to learned boundaries)";
            super::weights::refuse(ctx, &label, why)?;
            if spec.get("ranges_per_shard").is_some() {
                return Err(spec.error(BOUNDARIES_AND_RANGES_PER_SHARD.into()).into());
            }
            let splits = read_boundaries(Path::new(path), ctx.key_type)?;
            RangePartitioner::from_splits(label, ctx.shards, splits)?
        }
        None => {
            let per_shard = spec.u64_at_least("ranges_per_shard", DEFAULT_RANGES_PER_SHARD, 1)?;
            match super::weights::Weights::for_context(ctx)?.get() {
                Some(weights) => {
                    let (starts, owners) = weighted_layout(ctx.warmup_keys, per_shard, weights);
                    RangePartitioner::with_shard_count(label, ctx.shards, starts, owners)?
                }
                None => RangePartitioner::learn(label, ctx.shards, per_shard, ctx.warmup_keys)?,
            }
        }
    };
    Ok(Box::new(partitioner.with_grow_rule(grow)))
}

/// Reads a boundaries file: one split key per line, read as `key_type`, strictly increasing.
///
/// `K - 1` lines give `K` ranges. The final newline is optional and a `\r` before a newline is
/// dropped; any other empty line is an error. Errors name the file and the 1-based line.
pub fn read_boundaries(path: &Path, key_type: KeyType) -> Result<Vec<Vec<u8>>, AnalysisError> {
    let text = std::fs::read(path).map_err(|source| AnalysisError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_boundaries(&text, key_type).map_err(|(line, message)| AnalysisError::Boundaries {
        path: path.to_path_buf(),
        line,
        message,
    })
}

/// Parses the text of a boundaries file; an error is `(1-based line, message)`.
fn parse_boundaries(text: &[u8], key_type: KeyType) -> Result<Vec<Vec<u8>>, (usize, String)> {
    // A byte order mark is not part of the first split key (an editor may add one).
    let text = workloads::trace::input::without_bom(text);
    if matches!(text, b"" | b"\n" | b"\r\n") {
        return Err((
            1,
            "the boundaries file is empty; it needs one split key per line (K - 1 lines \
             for K ranges)"
                .into(),
        ));
    }
    let body = text.strip_suffix(b"\n").unwrap_or(text);
    let mut splits: Vec<Vec<u8>> = Vec::new();
    for (i, raw) in body.split(|&b| b == b'\n').enumerate() {
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        let key = parse_split_line(line, key_type, splits.last()).map_err(|m| (i + 1, m))?;
        splits.push(key);
    }
    Ok(splits)
}

/// One split key, which must be greater than the previous one.
fn parse_split_line(
    line: &[u8],
    key_type: KeyType,
    previous: Option<&Vec<u8>>,
) -> Result<Vec<u8>, String> {
    if line.is_empty() {
        return Err(
            "empty line; expected one split key per line (only the final newline may \
                    end the file)"
                .into(),
        );
    }
    let mut key = Vec::with_capacity(line.len());
    key_type
        .parse_into(line, &mut key)
        .map_err(|e| format!("bad split key: {e}"))?;
    match previous {
        Some(prev) if key <= *prev => Err(format!(
            "split key '{}' is not greater than the previous one ('{}'); split keys must be \
             strictly increasing",
            key_type.display(&key),
            key_type.display(prev)
        )),
        _ => Ok(key),
    }
}

/// Contiguous key ranges, each owned by one shard.
///
/// ```
/// use schemes::range::RangePartitioner;
/// use schemes::Partitioner;
/// let p = RangePartitioner::new("range", vec![vec![], b"m".to_vec()], vec![0, 1]).unwrap();
/// assert_eq!((p.shard_of(b"apple"), p.shard_of(b"m"), p.shard_of(b"zebra")), (0, 1, 1));
/// ```
///
/// Growth and shrink rule: [`GrowRule`] (`grow=balanced` by default, see
/// [`crate::growth`]; `grow=cheapest` is [`RangePartitioner::resized_with`]).
#[derive(Clone, Debug)]
pub struct RangePartitioner {
    label: String,
    shards: u32,
    /// Start key of every range, strictly increasing; the first is the empty key. Shared by
    /// the layouts that differ only in owners (resizes by whole ranges, removals).
    starts: Arc<[Vec<u8>]>,
    /// Owner of every range, `< shards`.
    owners: Vec<ShardId>,
    /// How a lookup finds the owner of a range: from `owners` or by arithmetic.
    rule: OwnerRule,
    /// Search index over `starts[1..]` (the lookup layout; see [`crate::layout`]).
    index: KeyIndex,
    /// How [`Partitioner::resized`] grows and shrinks the layout.
    grow: GrowRule,
}

impl RangePartitioner {
    /// Checks and builds a layout with `N = 1 + the largest owner` shards: `starts[0]` must be
    /// the empty key, starts strictly increasing, one owner per start. Use
    /// [`RangePartitioner::with_shard_count`] when some shards own no range.
    pub fn new(
        label: impl Into<String>,
        starts: Vec<Vec<u8>>,
        owners: Vec<ShardId>,
    ) -> Result<Self, AnalysisError> {
        let largest = owners.iter().copied().max().unwrap_or(0);
        let shards = largest.checked_add(1).ok_or_else(|| {
            AnalysisError::Config(format!("owner {largest} leaves no room for a shard count"))
        })?;
        Self::with_shard_count(label, shards, starts, owners)
    }

    /// Checks and builds a layout of `shards` shards: `starts[0]` must be the empty key,
    /// starts strictly increasing, one owner per start and every owner `< shards`.
    pub fn with_shard_count(
        label: impl Into<String>,
        shards: u32,
        starts: Vec<Vec<u8>>,
        owners: Vec<ShardId>,
    ) -> Result<Self, AnalysisError> {
        check_shard_count(shards)?;
        check_layout(shards, &starts, &owners).map_err(AnalysisError::Config)?;
        let index = KeyIndex::new(&starts[1..]);
        Ok(Self::assemble(
            label.into(),
            shards,
            starts.into(),
            owners,
            index,
        ))
    }

    /// The same ranges (and label and grow rule) with other owners, on `shards` shards: one
    /// owner per range, each `< shards`. The starts are shared, not copied.
    pub fn with_owners(&self, shards: u32, owners: Vec<ShardId>) -> Result<Self, AnalysisError> {
        check_shard_count(shards)?;
        check_owners(shards, &self.starts, &owners).map_err(AnalysisError::Config)?;
        let (label, starts, index) = (self.label.clone(), self.starts.clone(), self.index.clone());
        Ok(Self::assemble(label, shards, starts, owners, index).with_grow_rule(self.grow))
    }

    /// True when `other` has the very same start keys as this layout (shared, as
    /// [`RangePartitioner::with_owners`] shares them), so that what is built from the starts
    /// alone can be shared too.
    pub fn shares_starts_with(&self, other: &RangePartitioner) -> bool {
        Arc::ptr_eq(&self.starts, &other.starts)
    }

    /// The partitioner of a checked layout and its index; picks the owner rule.
    fn assemble(
        label: String,
        shards: u32,
        starts: Arc<[Vec<u8>]>,
        owners: Vec<ShardId>,
        index: KeyIndex,
    ) -> Self {
        let rule = OwnerRule::for_owners(&owners, shards);
        RangePartitioner {
            label,
            shards,
            starts,
            owners,
            rule,
            index,
            grow: GrowRule::default(),
        }
    }

    /// The same layout, resized by `grow` ([`GrowRule::Balanced`] unless set).
    pub fn with_grow_rule(mut self, grow: GrowRule) -> Self {
        self.grow = grow;
        self
    }

    /// The rule by which [`Partitioner::resized`] grows and shrinks this layout.
    pub fn grow_rule(&self) -> GrowRule {
        self.grow
    }

    /// `splits.len() + 1` ranges starting at the empty key and then at each split key, owned
    /// contiguously: range `i` of `K` belongs to shard `floor(i * N / K)`. With fewer ranges
    /// than shards, some shards own nothing.
    pub fn from_splits(
        label: impl Into<String>,
        shards: u32,
        splits: Vec<Vec<u8>>,
    ) -> Result<Self, AnalysisError> {
        let mut starts = Vec::with_capacity(splits.len() + 1);
        starts.push(Vec::new());
        starts.extend(splits);
        let owners = contiguous_owners(starts.len(), shards);
        Self::with_shard_count(label, shards, starts, owners)
    }

    /// Learns `K = N * ranges_per_shard` ranges from the sorted distinct warm-up keys: split
    /// `j` is `keys[j * len / K]` for `j` in `1..K`, dropping repeats and the empty key.
    ///
    /// Fewer distinct keys than `K` give fewer ranges (every key starts one), owned
    /// contiguously over the ranges there are. No warm-up keys give a single range, so every
    /// key maps to shard 0: give the scheme a warm-up or a boundaries file.
    pub fn learn(
        label: impl Into<String>,
        shards: u32,
        ranges_per_shard: u64,
        sorted_keys: &[Vec<u8>],
    ) -> Result<Self, AnalysisError> {
        let ranges = u64::from(shards).saturating_mul(ranges_per_shard);
        Self::from_splits(label, shards, quantile_splits(sorted_keys, ranges))
    }

    /// Index of the range holding `key`: the greatest start `<= key` (predecessor search).
    ///
    /// Answered by a [`KeyIndex`] over the starts after the first (the empty key, which is
    /// `<=` every key): the index counts the later starts `<= key`, which is the range index.
    /// It gives exactly what `starts.partition_point(|s| s <= key) - 1` gives (property
    /// tests in `tests/layouts.rs`).
    #[inline(always)]
    pub fn range_index_of(&self, key: &[u8]) -> usize {
        match self.index.rank_le_from_prefixes(key) {
            Some(range) => range,
            None => self.range_index_by_keys(key),
        }
    }

    /// [`RangePartitioner::range_index_of`] for keys that need the start keys (shorter than 8
    /// bytes, or starts longer than 8 bytes); out of line to keep the lookup small.
    #[inline(never)]
    fn range_index_by_keys(&self, key: &[u8]) -> usize {
        self.index.rank_le(&self.starts[1..], key)
    }

    /// The owner of every key of `keys`, appended to `out` in the same order.
    ///
    /// For keys in increasing order (a scan's keys, a sorted batch) this is a merge walk:
    /// each lookup starts from the previous key's range and steps forward, so a run of keys
    /// costs about one comparison each. Any order gives exact owners; unsorted keys only lose
    /// the speed-up.
    pub fn shards_of_sorted<K: AsRef<[u8]>>(&self, keys: &[K], out: &mut Vec<ShardId>) {
        /// Keys converted to numbers at a time (on the stack).
        const BLOCK: usize = 256;
        out.reserve(keys.len());
        let mut numbers = [0u64; BLOCK];
        for block in keys.chunks(BLOCK) {
            let mut all_numbers = self.index.is_u64_exact();
            for (n, key) in numbers.iter_mut().zip(block) {
                match key.as_ref().first_chunk::<8>() {
                    Some(head) => *n = u64::from_be_bytes(*head),
                    None => all_numbers = false,
                }
            }
            if all_numbers {
                self.walk_u64(&numbers[..block.len()], out);
            } else {
                let splits = &self.starts[1..];
                out.extend(
                    block
                        .iter()
                        .map(|k| self.owner_of_range(self.index.rank_le(splits, k.as_ref()))),
                );
            }
        }
    }

    /// [`RangePartitioner::shards_of_sorted`] for 8-byte big-endian keys given as numbers.
    pub fn shards_of_sorted_u64(&self, keys: &[u64], out: &mut Vec<ShardId>) {
        if self.index.is_u64_exact() {
            out.reserve(keys.len());
            self.walk_u64(keys, out);
        } else {
            let bytes: Vec<[u8; 8]> = keys.iter().map(|k| k.to_be_bytes()).collect();
            self.shards_of_sorted(&bytes, out);
        }
    }

    /// The merge walk over numbers, when they compare exactly through the prefix index.
    fn walk_u64(&self, keys: &[u64], out: &mut Vec<ShardId>) {
        self.index.prefixes().rank_runs(keys, |range, len| {
            out.extend(std::iter::repeat_n(self.owner_of_range(range), len));
        });
    }

    /// Indices of the ranges that a scan of `[start, end)` overlaps, in key order: range `i`
    /// overlaps when `starts[i] < end` and the next start is `> start`. A scan whose end is
    /// not after its start gives only the range of `start`.
    pub fn ranges_overlapping(&self, start: &[u8], end: &[u8]) -> RangeInclusive<usize> {
        let first = self.range_index_of(start);
        if end <= start {
            return first..=first;
        }
        // starts[first] <= start < end, so at least first + 1 starts are below end: the
        // empty start and the `rank_lt` later ones.
        let last = self.index.rank_lt(&self.starts[1..], end);
        first..=last
    }

    /// The owner of range `range`: `owners()[range]`. `range` must be below
    /// [`RangePartitioner::range_count`] (past it, the answer may be any shard or a panic).
    ///
    /// Contiguous owners (`floor(i * N / K)`, as [`RangePartitioner::from_splits`] gives) are
    /// computed from the index with one multiplication, with no load after the rank; other
    /// owners are read from the owner list. The rule is chosen when the owners are set.
    #[inline(always)]
    pub fn owner_of_range(&self, range: usize) -> ShardId {
        match self.rule {
            OwnerRule::Contiguous { multiplier } => contiguous_owner(range, multiplier),
            OwnerRule::Table => self.owners[range],
        }
    }

    /// The owner of every range, in key order.
    pub fn owners(&self) -> &[ShardId] {
        &self.owners
    }

    /// The start key of every range, in key order (the first is the empty key).
    pub fn starts(&self) -> &[Vec<u8>] {
        &self.starts
    }

    /// Number of ranges `K`.
    pub fn range_count(&self) -> usize {
        self.starts.len()
    }

    /// How many of `keys` fall in each range (pass distinct keys to count distinct keys).
    pub fn distinct_keys_per_range<K: AsRef<[u8]>>(
        &self,
        keys: impl IntoIterator<Item = K>,
    ) -> Vec<u64> {
        let mut counts = vec![0u64; self.starts.len()];
        for key in keys {
            counts[self.range_index_of(key.as_ref())] += 1;
        }
        counts
    }

    /// This layout on `shards` shards by the `grow=cheapest` rule, given the distinct keys of
    /// every range (the `grow=balanced` shrink passes requests instead, and so does the
    /// removal of a failed shard's ranges by distinct keys; see [`RangePartitioner::without`]).
    ///
    /// Growth and shrink rule. The boundaries never change; whole ranges change owner.
    /// Growing from N to M shards: each new shard N..M-1 in turn takes whole ranges until it
    /// holds floor(K/M) of the K ranges. Each range is taken from the shard that currently
    /// holds the most ranges (ties: the most distinct keys, then the lowest id), and it is
    /// that shard's cheapest range (fewest distinct keys, ties: the lowest range index). No
    /// shard is ever left without a range; when floor(K/M) is 0 (fewer ranges than shards)
    /// the new shards get no range and own no keys. Shrinking from N to M shards: the ranges
    /// of shards M..N-1 are reassigned one by one, in key order, each to the remaining shard
    /// that currently holds the fewest distinct keys (ties: the lowest id). Keys that stay on
    /// a kept range never move, so only the keys of reassigned ranges move.
    pub fn resized_with(
        &self,
        shards: u32,
        keys_per_range: &[u64],
    ) -> Result<RangePartitioner, AnalysisError> {
        check_shard_count(shards)?;
        if keys_per_range.len() != self.owners.len() {
            return Err(AnalysisError::Config(format!(
                "{} key counts given for {} ranges",
                keys_per_range.len(),
                self.owners.len()
            )));
        }
        let owners = match shards.cmp(&self.shards) {
            Ordering::Greater => grow_owners(&self.owners, self.shards, shards, keys_per_range),
            Ordering::Less => shrink_owners(&self.owners, shards, keys_per_range),
            Ordering::Equal => self.owners.clone(),
        };
        self.with_owners(shards, owners)
    }

    /// This layout on `shards` shards by the `grow=balanced` rule ([`crate::growth`]),
    /// weighing the measured keys `keys` grouped by this layout's ranges; a cut at key `k`
    /// starts its range at `start_of(k)`.
    pub fn resized_balanced<K: Ord + Copy + Send + Sync>(
        &self,
        shards: u32,
        keys: KeysByRange<K>,
        start_of: impl Fn(&K) -> Vec<u8>,
    ) -> Result<RangePartitioner, AnalysisError> {
        check_shard_count(shards)?;
        let requests = keys.requests_per_range();
        if requests.len() != self.owners.len() {
            return Err(AnalysisError::Config(format!(
                "keys grouped in {} ranges given for {} ranges",
                requests.len(),
                self.owners.len()
            )));
        }
        if requests.iter().all(|&r| r == 0) {
            // Nothing to weigh: whole ranges by count, as `grow=cheapest` does.
            return self.resized_with(shards, &keys.distinct_per_range());
        }
        if shards <= self.shards {
            return self.resized_with(shards, &requests);
        }
        let layout = RangeLayout {
            starts: self.starts.to_vec(),
            owners: self.owners.clone(),
        };
        let grown = growth::grow_balanced(&layout, self.shards, shards, keys, start_of);
        let label = self.label.clone();
        Ok(
            Self::with_shard_count(label, shards, grown.starts, grown.owners)?
                .with_grow_rule(self.grow),
        )
    }
}

impl Partitioner for RangePartitioner {
    /// Growth cuts are placed by the keys' counts.
    fn resize_learns(&self) -> bool {
        true
    }

    /// The start keys, the owners and the search index.
    fn router_bytes(&self) -> Option<u64> {
        let starts: u64 = self
            .starts
            .iter()
            .map(|s| (std::mem::size_of::<Vec<u8>>() + s.len()) as u64)
            .sum();
        Some(starts + super::slice_bytes(&self.owners) + self.index.heap_bytes() as u64)
    }

    fn without_shard(
        &self,
        shard: ShardId,
        keys: &KeyCounts,
    ) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
        Ok(self.without_each(&[shard], keys)?.pop().flatten())
    }

    /// The distinct keys of every range are counted once for all the removals.
    fn without_each(
        &self,
        shards: &[ShardId],
        keys: &KeyCounts,
    ) -> Result<Vec<Option<Box<dyn Partitioner>>>, AnalysisError> {
        let counts = self.distinct_keys_per_range(keys.iter().map(|(k, _)| k));
        shards
            .iter()
            .map(|&s| {
                Ok(Some(
                    Box::new(self.without(s, &counts)?) as Box<dyn Partitioner>
                ))
            })
            .collect()
    }

    /// Only the removed shard's ranges change owner, and the replicas `(owner + i) mod N` of
    /// any other range skip the removed shard exactly when they did not include it.
    fn removal_effect(&self) -> RemovalEffect {
        RemovalEffect::Local
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.shards
    }

    #[inline(always)]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.owner_of_range(self.range_index_of(key))
    }

    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        for i in self.ranges_overlapping(start, end) {
            out.insert(self.owners[i]);
        }
    }

    /// Resizes by the layout's [`GrowRule`]: [`RangePartitioner::resized_balanced`] or
    /// [`RangePartitioner::resized_with`] (`grow=cheapest`).
    fn resized(
        &self,
        shards: u32,
        keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        let resized = match self.grow {
            GrowRule::Balanced => {
                // In key order (sorted once for every scheme and target): no range is sorted.
                let keys = KeysByRange::in_key_order(keys.sorted(), self.range_count(), |k| {
                    self.range_index_of(k)
                });
                self.resized_balanced(shards, keys, |k: &&[u8]| k.to_vec())?
            }
            GrowRule::Cheapest => {
                let counts = self.distinct_keys_per_range(keys.iter().map(|(k, _)| k));
                self.resized_with(shards, &counts)?
            }
        };
        Ok(Box::new(resized))
    }

    fn range_starts(&self) -> Option<&[Vec<u8>]> {
        Some(&self.starts)
    }
}

/// Why `starts` and `owners` do not form a layout of `shards` shards, if they do not.
fn check_layout(shards: u32, starts: &[Vec<u8>], owners: &[ShardId]) -> Result<(), String> {
    if !starts.first().is_some_and(|s| s.is_empty()) {
        return Err("the first range must start at the empty key".into());
    }
    if let Some(i) = starts.windows(2).position(|w| w[0] >= w[1]) {
        return Err(format!(
            "range start {} ('{}') is not greater than the one before; starts must be strictly \
             increasing",
            i + 1,
            display_bytes(&starts[i + 1])
        ));
    }
    check_owners(shards, starts, owners)
}

/// Why `owners` are not one owner below `shards` for each of `starts`, if they are not.
fn check_owners(shards: u32, starts: &[Vec<u8>], owners: &[ShardId]) -> Result<(), String> {
    if starts.len() != owners.len() {
        return Err(format!(
            "{} range starts but {} owners",
            starts.len(),
            owners.len()
        ));
    }
    if let Some((i, o)) = owners.iter().enumerate().find(|(_, &o)| o >= shards) {
        return Err(format!(
            "range {i} has owner {o}, but there are only {shards} shards"
        ));
    }
    Ok(())
}

/// Owners of `ranges` ranges spread contiguously over `shards`: range `i` -> `i * N / K`.
fn contiguous_owners(ranges: usize, shards: u32) -> Vec<ShardId> {
    let (k, n) = (ranges as u128, u128::from(shards));
    (0..k).map(|i| (i * n / k) as ShardId).collect()
}

/// How [`RangePartitioner::owner_of_range`] finds an owner; chosen once per owner list.
#[derive(Clone, Copy, Debug)]
enum OwnerRule {
    /// Any owners: `owners[i]`, a load that depends on the rank.
    Table,
    /// Owners that [`contiguous_owner`] with this multiplier reproduces for every range.
    Contiguous {
        /// `ceil(N * 2^64 / K)`, below `2^64` because `N < K`.
        multiplier: u64,
    },
}

impl OwnerRule {
    /// [`OwnerRule::Contiguous`] when the owners are `floor(i * N / K)` for `shards = N` and
    /// `K = owners.len()` ranges with `N < K`, else [`OwnerRule::Table`]. Contiguous only
    /// when [`contiguous_owner`] gives every one of `owners` (checked here, so exact by
    /// construction).
    fn for_owners(owners: &[ShardId], shards: u32) -> Self {
        let Some(multiplier) = contiguous_multiplier(owners.len(), shards) else {
            return OwnerRule::Table;
        };
        let exact = owners
            .iter()
            .enumerate()
            .all(|(i, &o)| contiguous_owner(i, multiplier) == o);
        if exact {
            OwnerRule::Contiguous { multiplier }
        } else {
            OwnerRule::Table
        }
    }
}

/// The multiplier of [`contiguous_owner`] for `ranges = K` ranges on `shards = N` shards,
/// `ceil(N * 2^64 / K)`; `None` when `N >= K` (it would not fit in 64 bits) or `K = 0`.
fn contiguous_multiplier(ranges: usize, shards: u32) -> Option<u64> {
    let ranges = ranges as u128;
    if ranges == 0 {
        return None;
    }
    u64::try_from((u128::from(shards) << 64).div_ceil(ranges)).ok()
}

/// `floor(i * N / K)` as the high 64 bits of `i * m` with `m = ceil(N * 2^64 / K)`: one
/// multiplication. Exact for `i < K <= 2^32` (the index holds fewer than `2^32` ranges):
/// `i * m / 2^64` exceeds `i * N / K` by less than `K / 2^64 <= 1 / K`, and the fraction of
/// `i * N / K` is at most `1 - 1 / K`, so the floor is the same.
#[inline(always)]
fn contiguous_owner(i: usize, multiplier: u64) -> ShardId {
    ((i as u128 * u128::from(multiplier)) >> 64) as ShardId
}

/// The split keys of `ranges` quantile ranges over `keys`: `keys[j * len / K]` for `j` in
/// `1..K`, each kept only when greater than the previous split (drops repeats and the empty
/// key). With more ranges than keys every key becomes a split.
fn quantile_splits(keys: &[Vec<u8>], ranges: u64) -> Vec<Vec<u8>> {
    let len = keys.len() as u64;
    let picks: Box<dyn Iterator<Item = usize>> = if ranges > len {
        Box::new(0..keys.len())
    } else {
        let at = move |j: u64| (u128::from(j) * u128::from(len) / u128::from(ranges)) as usize;
        Box::new((1..ranges).map(at))
    };
    distinct_splits(keys, picks)
}

/// Starts and owners of `per_shard` ranges per shard (weights are given per shard) such that
/// each shard's ranges together hold its weight's share of the distinct `keys`: range `r` of
/// shard `s` starts at the quantile `(w_0 + ... + w_(s-1) + w_s r / R) / W` and belongs to
/// `s`. Where several starts fall on the same key, the ranges before the last are empty and
/// the key's range belongs to the last one's shard, so a shard of a tiny weight may own no
/// key at all (and never takes another shard's). Weights whose sum would overflow are
/// divided by the largest first.
fn weighted_layout(
    keys: &[Vec<u8>],
    per_shard: u64,
    weights: &[f64],
) -> (Vec<Vec<u8>>, Vec<ShardId>) {
    let (mut starts, mut owners) = (vec![Vec::new()], vec![0]);
    let largest = weights.iter().copied().fold(0.0, f64::max);
    if keys.is_empty() || largest <= 0.0 {
        return (starts, owners);
    }
    let scale = match weights.iter().sum::<f64>().is_finite() {
        true => 1.0,
        false => largest,
    };
    let weights: Vec<f64> = weights.iter().map(|w| w / scale).collect();
    let (len, total) = (keys.len(), weights.iter().sum::<f64>());
    let mut before = 0.0;
    for (shard, w) in weights.iter().enumerate() {
        for r in 0..per_shard {
            let quantile = (before + w * r as f64 / per_shard as f64) / total;
            let key = &keys[((quantile * len as f64) as usize).min(len - 1)];
            // Quantiles go up, so keys do: a key no greater than the last start is that start.
            if starts.last().is_some_and(|last| key <= last) {
                if let Some(owner) = owners.last_mut() {
                    *owner = shard as ShardId;
                }
            } else {
                starts.push(key.clone());
                owners.push(shard as ShardId);
            }
        }
        before += w;
    }
    (starts, owners)
}

/// The keys at `picks`, in order, leaving out repeats and the empty key (ranges stay
/// non-empty and starts strictly increasing).
fn distinct_splits(keys: &[Vec<u8>], picks: impl Iterator<Item = usize>) -> Vec<Vec<u8>> {
    let mut splits: Vec<Vec<u8>> = Vec::new();
    for key in picks.map(|i| &keys[i]) {
        let fresh = match splits.last() {
            Some(prev) => key > prev,
            None => !key.is_empty(),
        };
        if fresh {
            splits.push(key.clone());
        }
    }
    splits
}

/// Owners after growing from `from` to `to` shards (see [`RangePartitioner::resized_with`]).
fn grow_owners(owners: &[ShardId], from: u32, to: u32, keys: &[u64]) -> Vec<ShardId> {
    let mut owners = owners.to_vec();
    let target = owners.len() / to as usize;
    // Per shard: its ranges ordered cheapest first, and its distinct keys.
    let mut held: Vec<BTreeSet<(u64, usize)>> = vec![BTreeSet::new(); to as usize];
    let mut shard_keys = vec![0u64; to as usize];
    for (i, &s) in owners.iter().enumerate() {
        held[s as usize].insert((keys[i], i));
        shard_keys[s as usize] += keys[i];
    }
    for new in from as usize..to as usize {
        while held[new].len() < target {
            let Some(donor) = busiest_shard(&held, &shard_keys, new) else {
                break;
            };
            let Some((k, i)) = held[donor].pop_first() else {
                break;
            };
            held[new].insert((k, i));
            shard_keys[donor] -= k;
            shard_keys[new] += k;
            owners[i] = new as ShardId;
        }
    }
    owners
}

/// The shard other than `except` with the most ranges (ties: most keys, then lowest id), if
/// it can give one away and keep at least one.
fn busiest_shard(held: &[BTreeSet<(u64, usize)>], keys: &[u64], except: usize) -> Option<usize> {
    let rank = |s: usize| (held[s].len(), keys[s], Reverse(s));
    (0..held.len())
        .filter(|&s| s != except)
        .max_by_key(|&s| rank(s))
        .filter(|&s| held[s].len() >= 2)
}

/// Owners after shrinking to `to` shards (see [`RangePartitioner::resized_with`]).
fn shrink_owners(owners: &[ShardId], to: u32, keys: &[u64]) -> Vec<ShardId> {
    let mut load = vec![0u64; to as usize];
    for (i, &s) in owners.iter().enumerate().filter(|(_, &s)| s < to) {
        load[s as usize] += keys[i];
    }
    let mut lightest: BinaryHeap<Reverse<(u64, ShardId)>> =
        (0..to).map(|s| Reverse((load[s as usize], s))).collect();
    let mut owners = owners.to_vec();
    for (i, owner) in owners.iter_mut().enumerate().filter(|(_, s)| **s >= to) {
        // The heap holds every remaining shard, and to >= 1.
        if let Some(Reverse((k, s))) = lightest.pop() {
            *owner = s;
            lightest.push(Reverse((k + keys[i], s)));
        }
    }
    owners
}

#[cfg(test)]
mod tests {
    use super::*;
    use workloads::key::encode_u64;

    fn u(n: u64) -> Vec<u8> {
        encode_u64(n).to_vec()
    }

    fn fan_out(p: &RangePartitioner, a: u64, b: u64) -> Vec<ShardId> {
        let mut out = ShardSet::new(p.shard_count());
        p.scan_shards(&u(a), &u(b), &mut out);
        out.iter().collect()
    }

    /// The share of `keys` each of the shards of `weights` gets under learned `range`.
    fn weighted_shares(weights: &[f64], keys: &[Vec<u8>]) -> Vec<f64> {
        let ctx = BuildContext {
            shards: weights.len() as u32,
            warmup_keys: keys,
            key_type: KeyType::U64,
            weights: Some(weights),
        };
        let p = super::super::SchemeSpec::parse_list("range").unwrap()[0]
            .build(&ctx)
            .unwrap();
        let mut counts = vec![0usize; weights.len()];
        keys.iter()
            .for_each(|k| counts[p.shard_of(k) as usize] += 1);
        counts
            .iter()
            .map(|&c| c as f64 / keys.len() as f64)
            .collect()
    }

    #[test]
    fn weights_of_any_ratio_give_each_shard_its_share_and_a_tiny_weight_nothing() {
        let keys: Vec<Vec<u8>> = (0..20_000).map(u).collect();
        let shares = weighted_shares(&[1.0, 1.0, 1.0, 3.0], &keys);
        for (s, want) in shares.iter().zip([1.0 / 6.0, 1.0 / 6.0, 1.0 / 6.0, 0.5]) {
            assert!((s - want).abs() < 0.01, "{shares:?}");
        }
        // Past the key granularity a shard of a tiny weight owns nothing; it never takes
        // another shard's keys (the ranges used to shift to the wrong owners: 25/25/25/25).
        let shares = weighted_shares(&[1.0, 1.0, 1.0, 1e6], &keys);
        assert!(shares[3] > 0.999, "{shares:?}");
        let shares = weighted_shares(&[1e-300, 1.0], &keys);
        assert_eq!(shares, [0.0, 1.0]);
    }

    /// Splits 10, 20, ..., 70 (u64 keys) give 8 ranges; on 4 shards that is 2 per shard.
    fn eight_ranges_on_four_shards() -> RangePartitioner {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut file, b"10\n20\n30\n40\n50\n60\n70\n").unwrap();
        let spec = format!("range:boundaries={}", file.path().display());
        let schemes = super::super::SchemeSpec::parse_list(&spec).unwrap();
        let ctx = BuildContext {
            shards: 4,
            warmup_keys: &[],
            key_type: KeyType::U64,
            weights: None,
        };
        assert!(!schemes[0].needs_warmup());
        let built = schemes[0].build(&ctx).unwrap();
        assert_eq!(built.label(), spec);
        let starts = built.range_starts().unwrap().to_vec();
        let owners: Vec<ShardId> = starts.iter().map(|s| built.shard_of(s)).collect();
        RangePartitioner::with_shard_count(spec, 4, starts, owners).unwrap()
    }

    #[test]
    fn a_boundaries_file_gives_hand_computed_owners_and_scan_fan_outs() {
        let p = eight_ranges_on_four_shards();
        assert_eq!(p.range_count(), 8);
        assert_eq!(p.owners(), [0, 0, 1, 1, 2, 2, 3, 3]);
        // Below the first split, on a split (a split starts its range), between, above last.
        let cases = [
            (0, 0, 0),
            (9, 0, 0),
            (10, 1, 0),
            (19, 1, 0),
            (20, 2, 1),
            (35, 3, 1),
        ];
        let more = [
            (40, 4, 2),
            (59, 5, 2),
            (60, 6, 3),
            (70, 7, 3),
            (u64::MAX, 7, 3),
        ];
        for (key, range, shard) in cases.into_iter().chain(more) {
            assert_eq!(p.range_index_of(&u(key)), range, "key {key}");
            assert_eq!(p.shard_of(&u(key)), shard, "key {key}");
        }
        assert_eq!(p.shard_of(b""), 0);
        assert_eq!(p.shard_of(b"\xff\xff\xff\xff\xff\xff\xff\xff\x00"), 3);
        assert_eq!(p.ranges_overlapping(&u(5), &u(25)), 0..=2);
        assert_eq!(fan_out(&p, 5, 25), [0, 1]);
        assert_eq!(fan_out(&p, 10, 20), [0]); // exactly range 1: 20 is excluded
        assert_eq!(fan_out(&p, 10, 21), [0, 1]);
        assert_eq!(fan_out(&p, 15, 65), [0, 1, 2, 3]);
        assert_eq!(p.ranges_overlapping(&u(15), &u(65)), 1..=6);
        assert_eq!(fan_out(&p, 41, 59), [2]);
        assert_eq!(fan_out(&p, 30, 30), [1]); // empty scan: the owner of its start
        assert_eq!(fan_out(&p, 40, 20), [2]);
    }

    #[test]
    fn learned_boundaries_are_the_quantiles_of_the_warm_up_keys() {
        let keys: Vec<Vec<u8>> = (0..100).map(u).collect();
        let p = RangePartitioner::learn("range", 2, 2, &keys).unwrap();
        assert_eq!(p.starts(), [vec![], u(25), u(50), u(75)]);
        assert_eq!(p.owners(), [0, 0, 1, 1]);
    }

    #[test]
    fn few_warm_up_keys_give_fewer_ranges_and_none_gives_one_range_on_shard_zero() {
        let keys: Vec<Vec<u8>> = vec![vec![], b"b".to_vec(), b"d".to_vec()];
        let p = RangePartitioner::learn("range", 4, 8, &keys).unwrap();
        assert_eq!(p.starts(), [vec![], b"b".to_vec(), b"d".to_vec()]);
        assert_eq!(p.owners(), [0, 1, 2]); // floor(i * 4 / 3); shard 3 owns nothing
        let empty = RangePartitioner::learn("range", 4, 8, &[]).unwrap();
        assert_eq!((empty.range_count(), empty.shard_of(b"anything")), (1, 0));
    }

    #[test]
    fn growth_takes_the_cheapest_range_of_the_shard_with_the_most_ranges() {
        let starts = vec![vec![], b"b".to_vec(), b"c".to_vec(), b"d".to_vec()];
        let p = RangePartitioner::new("range", starts, vec![0, 0, 1, 1]).unwrap();
        // Both shards hold 2 ranges; shard 0 has more keys (6 vs 5), its cheapest is range 1.
        let grown = p.resized_with(3, &[5, 1, 3, 2]).unwrap();
        assert_eq!(
            (grown.owners(), grown.shard_count()),
            ([0, 2, 1, 1].as_slice(), 3)
        );
    }

    #[test]
    fn growth_never_empties_a_shard_and_gives_nothing_when_ranges_are_fewer_than_shards() {
        let starts = vec![vec![], b"b".to_vec(), b"c".to_vec(), b"d".to_vec()];
        let p = RangePartitioner::new("range", starts, vec![0, 0, 0, 1]).unwrap();
        let grown = p.resized_with(4, &[1, 2, 3, 4]).unwrap();
        assert_eq!(grown.owners(), [2, 3, 0, 1]);
        let two = RangePartitioner::new("range", vec![vec![], b"m".to_vec()], vec![0, 1]).unwrap();
        assert_eq!(two.resized_with(3, &[7, 7]).unwrap().owners(), [0, 1]);
    }

    #[test]
    fn shrinking_gives_each_orphan_range_to_the_lightest_remaining_shard() {
        let starts = vec![vec![], b"b".to_vec(), b"c".to_vec(), b"d".to_vec()];
        let p = RangePartitioner::new("range", starts, vec![0, 1, 2, 3]).unwrap();
        // Range 2 (3 keys) -> shard 1 (1 key); range 3 (2 keys) -> shard 1 (4 keys < 5).
        assert_eq!(
            p.resized_with(2, &[5, 1, 3, 2]).unwrap().owners(),
            [0, 1, 1, 1]
        );
        assert!(p.resized_with(0, &[0; 4]).is_err());
        assert!(p.resized_with(2, &[0; 3]).is_err());
    }

    #[test]
    fn a_layout_is_refused_unless_it_tiles_the_key_space_with_valid_owners() {
        let bad = |starts: Vec<&[u8]>, owners: Vec<ShardId>, shards: u32| {
            let starts = starts.into_iter().map(<[u8]>::to_vec).collect();
            RangePartitioner::with_shard_count("range", shards, starts, owners).unwrap_err()
        };
        assert!(bad(vec![b"a"], vec![0], 1)
            .to_string()
            .contains("empty key"));
        assert!(bad(vec![b"", b"b", b"b"], vec![0, 0, 0], 1)
            .to_string()
            .contains("strictly"));
        assert!(bad(vec![b"", b"b"], vec![0, 2], 2)
            .to_string()
            .contains("only 2 shards"));
        assert!(bad(vec![b"", b"b"], vec![0], 2)
            .to_string()
            .contains("owners"));
        assert!(bad(vec![], vec![], 1).to_string().contains("empty key"));
        assert!(bad(vec![b""], vec![0], 0)
            .to_string()
            .contains("at least 1"));
    }

    #[test]
    fn boundary_text_allows_only_the_final_newline_to_be_empty() {
        let parse = |t: &[u8]| parse_boundaries(t, KeyType::Bytes);
        for empty in [&b""[..], b"\n", b"\r\n"] {
            let (line, message) = parse(empty).unwrap_err();
            assert_eq!(line, 1);
            assert!(
                message.contains("the boundaries file is empty"),
                "{message}"
            );
        }
        assert_eq!(parse(b"a\nb").unwrap(), [b"a".to_vec(), b"b".to_vec()]);
        assert_eq!(
            parse(b"a\r\nb\r\n").unwrap(),
            [b"a".to_vec(), b"b".to_vec()]
        );
        assert_eq!(parse(b"a\n\nb\n").unwrap_err().0, 2);
        assert_eq!(parse(b"a\nb\n\n").unwrap_err().0, 3);
        let (line, message) = parse(b"a\nc\nb\n").unwrap_err();
        assert_eq!(line, 3);
        assert!(
            message.contains("'b' is not greater than the previous one ('c')"),
            "{message}"
        );
        let (line, message) = parse_boundaries(b"1\nx\n", KeyType::U64).unwrap_err();
        assert_eq!(line, 2);
        assert!(message.contains("not a decimal integer"), "{message}");
        assert_eq!(parse_boundaries(b"7\n7\n", KeyType::U64).unwrap_err().0, 2);
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_first_split_key() {
        // With bytes it made the first split "\u{feff}b", after every ASCII key; with u64 an
        // error about '100' that showed nothing wrong.
        let bom = |t: &[u8]| [&b"\xef\xbb\xbf"[..], t].concat();
        let bytes = parse_boundaries(&bom(b"b\r\nc\r\n"), KeyType::Bytes).unwrap();
        assert_eq!(bytes, [b"b".to_vec(), b"c".to_vec()]);
        let ints = parse_boundaries(&bom(b"100\n200\n"), KeyType::U64).unwrap();
        assert_eq!(
            ints,
            [100u64.to_be_bytes().to_vec(), 200u64.to_be_bytes().to_vec()]
        );
        assert_eq!(
            parse_boundaries(&bom(b"\n"), KeyType::Bytes).unwrap_err().0,
            1
        );
    }

    /// The plain contiguous owner `floor(i * N / K)`.
    fn floor_owner(i: u64, shards: u32, ranges: u64) -> u64 {
        (u128::from(i) * u128::from(shards) / u128::from(ranges)) as u64
    }

    fn is_contiguous(p: &RangePartitioner) -> bool {
        matches!(p.rule, OwnerRule::Contiguous { .. })
    }

    /// Every range's owner through [`RangePartitioner::owner_of_range`] and through
    /// `shard_of` of its start key is the listed owner.
    fn assert_owner_lookups_match_the_list(p: &RangePartitioner) {
        for (i, &owner) in p.owners().iter().enumerate() {
            assert_eq!(p.owner_of_range(i), owner, "range {i}");
            assert_eq!(p.shard_of(&p.starts()[i]), owner, "start of range {i}");
        }
    }

    #[test]
    fn contiguous_owners_are_computed_and_any_others_are_read_from_the_list() {
        let splits = |n: u64| (1..n).map(|i| u(i * 10)).collect::<Vec<_>>();
        // 8 ranges on 4 shards, 1,000 on 16, 1,000 on 1, 7 on 3 (uneven blocks).
        for (ranges, shards) in [(8, 4), (1_000, 16), (1_000, 1), (7, 3), (2, 1)] {
            let p = RangePartitioner::from_splits("range", shards, splits(ranges)).unwrap();
            let plain: Vec<u64> = (0..ranges)
                .map(|i| floor_owner(i, shards, ranges))
                .collect();
            let listed: Vec<u64> = p.owners().iter().map(|&o| u64::from(o)).collect();
            assert_eq!(listed, plain);
            assert!(is_contiguous(&p), "{ranges} ranges on {shards} shards");
            assert_owner_lookups_match_the_list(&p);
        }
        // One range, and more shards than ranges: the list.
        for (ranges, shards) in [(1, 1), (1, 4), (3, 4), (4, 4), (5, 64)] {
            let p = RangePartitioner::from_splits("range", shards, splits(ranges)).unwrap();
            assert!(!is_contiguous(&p), "{ranges} ranges on {shards} shards");
            assert_owner_lookups_match_the_list(&p);
        }
        // After growing and shrinking, owners are no longer the formula: the list.
        let p = RangePartitioner::from_splits("range", 4, splits(8)).unwrap();
        let grown = p.resized_with(5, &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        let shrunk = p.resized_with(3, &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        for q in [&grown, &shrunk] {
            assert!(!is_contiguous(q), "{:?}", q.owners());
            assert_owner_lookups_match_the_list(q);
        }
        // The same shard count keeps contiguous owners, and so the computed rule.
        let same = p.resized_with(4, &[0; 8]).unwrap();
        assert!(is_contiguous(&same));
        // Owners that differ from the formula in one range only use the list.
        let mut owners = p.owners().to_vec();
        owners[7] = 2;
        let one_off = RangePartitioner::with_shard_count("r", 4, p.starts().to_vec(), owners);
        let one_off = one_off.unwrap();
        assert!(!is_contiguous(&one_off));
        assert_eq!(one_off.shard_of(&u(75)), 2);
        assert_owner_lookups_match_the_list(&one_off);
    }

    #[test]
    fn the_contiguous_multiplier_exists_only_when_shards_are_fewer_than_ranges() {
        assert_eq!(contiguous_multiplier(0, 1), None);
        assert_eq!(contiguous_multiplier(4, 4), None);
        assert_eq!(contiguous_multiplier(4, 5), None);
        assert_eq!(contiguous_multiplier(2, 1), Some(1 << 63));
        assert_eq!(contiguous_multiplier(3, 1), Some(u64::MAX / 3 + 1));
        // The largest layout: K = 2^32 - 1 ranges on K - 1 shards; the last range's owner
        // is floor((K - 1)^2 / K) = K - 2.
        let most = u32::MAX as usize;
        let m = contiguous_multiplier(most, u32::MAX - 1).unwrap();
        assert_eq!(contiguous_owner(most - 1, m), u32::MAX - 2);
        assert_eq!(contiguous_owner(most - 2, m), u32::MAX - 3);
    }

    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }

    /// `(K, N)` with `0 < N < K < 2^32`: any, or with a common factor `g` (then `i * N / K`
    /// is a whole number at every multiple of `K / g`, where a rounding error would show).
    fn layout_sizes() -> impl proptest::strategy::Strategy<Value = (u64, u32)> {
        use proptest::prelude::*;
        let most = u64::from(u32::MAX);
        prop_oneof![
            (2..=most, any::<u64>()).prop_map(|(k, seed)| (k, (1 + seed % (k - 1)) as u32)),
            (1..=0xffffu64, 2..=0xffffu64, any::<u64>())
                .prop_map(|(g, k, seed)| (g * k, (g * (1 + seed % (k - 1))) as u32)),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]

        /// The multiply-high is the floor for every range index up to the largest index a
        /// layout can hold (`u32::MAX` ranges): at both ends, at a random index, at the first
        /// range of its shard and of the next, and where `i * N / K` is a whole number.
        #[test]
        fn the_computed_owner_is_the_floor_up_to_the_largest_index(
            (ranges, shards) in layout_sizes(),
            index_seed: u64,
        ) {
            let m = contiguous_multiplier(ranges as usize, shards).unwrap();
            let i = index_seed % ranges;
            let first = |s: u64| {
                (u128::from(s) * u128::from(ranges)).div_ceil(u128::from(shards)) as u64
            };
            let owner = floor_owner(i, shards, ranges);
            let whole = ranges / gcd(ranges, u64::from(shards));
            let mut indices = vec![0, 1, ranges - 2, ranges - 1, i, first(owner)];
            indices.extend([first(owner + 1), first(owner + 1).saturating_sub(1)]);
            indices.extend([whole, i / whole * whole, ranges - whole]);
            for j in indices.into_iter().filter(|&j| j < ranges) {
                proptest::prop_assert_eq!(
                    u64::from(contiguous_owner(j as usize, m)),
                    floor_owner(j, shards, ranges),
                    "index {} of {} ranges on {} shards", j, ranges, shards
                );
            }
        }
    }

    #[test]
    fn an_unreadable_boundaries_file_is_an_io_error_naming_it() {
        let err = read_boundaries(Path::new("/nonexistent/splits.txt"), KeyType::Bytes);
        let err = err.unwrap_err();
        assert!(matches!(err, AnalysisError::Io { .. }), "{err:?}");
        assert!(err.to_string().contains("/nonexistent/splits.txt"), "{err}");
    }
}
