//! Distinct keys with their counts: exact up to a limit, then a consistent hash sample.
//!
//! While the table holds at most `limit` distinct keys it is exact. When a key would take it
//! past the limit, it switches to sampling: a key is kept only when its sample hash has at
//! least `level` leading zero bits (hash < 2^(64 - level), a sample rate of 2^-level), and the
//! level goes up by one (the rate halves) until the table fits again. The sample is
//! *consistent*: a key is in or out by its hash alone, so every worker of a parallel replay
//! keeps the same keys, tables join by taking the higher level, and every key in the sample
//! has its exact count (it was kept from its first occurrence).
//!
//! Once sampling, the counts of keys outside the sample go to a space-saving sketch, so the
//! hottest key is still found (see [`KeyTable::hottest`]); [`KeyTable::total`] stays exact.
//!
//! A key of up to 8 bytes lives in its 16-byte index entry ([`EntryTable`]); longer keys live
//! in one byte arena. With the index's spare capacity a key costs 21 to 43 bytes (plus 4 + its
//! length when longer than 8), and adding a known key never allocates.
//!
//! The sample hash is XXH3-64 with the seed [`SAMPLE_SEED`], pinned (the sample, and so every
//! estimate, is reproducible across releases). It differs from the placement hash (XXH3-64,
//! seed 0): sampling by the placement hash would keep only the keys of some shards.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::xxh3_8::xxh3_64_of_8_bytes;

use super::entry_table::{Entry, EntryTable, COUNT_MASK, LONG};
use super::estimate::{distinct_estimate, Estimate};
use super::space_saving::{HeavyHitter, SpaceSaving, SpaceSavingState};

/// The default limit on exactly counted distinct keys.
pub const DEFAULT_DISTINCT_LIMIT: usize = 10_000_000;

/// Seed of the sample hash. PINNED: changing it changes every sampled estimate.
pub const SAMPLE_SEED: u64 = 0x7368_6172_646c_6162; // "shardlab"

/// How many keys ahead of its update a key's home slot is prefetched
/// ([`KeyTable::add_each_routed`]): enough misses in flight to cover a memory access.
const AHEAD: usize = 16;

/// Keys routed, then counted, together ([`KeyTable::add_each_routed`]).
const BLOCK: usize = 256;

/// Counters of the heavy-hitter sketch kept for keys outside the sample.
const SKETCH_COUNTERS: usize = 1024;

/// The sample hash of a key.
#[inline(always)]
pub fn sample_hash(key: &[u8]) -> u64 {
    match key.first_chunk::<8>() {
        Some(head) if key.len() == 8 => xxh3_64_of_8_bytes(head, SAMPLE_SEED),
        _ => xxh3_64_with_seed(key, SAMPLE_SEED),
    }
}

/// The first 8 bytes of `key`, zero-padded.
#[inline(always)]
fn head_of(key: &[u8]) -> [u8; 8] {
    // Keys of 8 bytes or more (every integer key): one load, no copy loop.
    if let Some(head) = key.first_chunk::<8>() {
        return *head;
    }
    let mut head = [0u8; 8];
    let n = key.len().min(8);
    head[..n].copy_from_slice(&key[..n]);
    head
}

/// The key of an entry, which needs the arena for a long key.
impl Entry {
    #[inline]
    fn key<'a>(&'a self, arena: &'a [u8]) -> &'a [u8] {
        match self.len_field() {
            LONG => long_key(arena, u64::from_le_bytes(self.word)),
            len => &self.word[..len as usize],
        }
    }

    #[inline(always)]
    fn matches(&self, arena: &[u8], key: &[u8], head: &[u8; 8]) -> bool {
        match self.len_field() {
            LONG => key.len() > 8 && long_key(arena, u64::from_le_bytes(self.word)) == key,
            len => len as usize == key.len() && self.word == *head,
        }
    }
}

/// The key stored at `offset` of the arena.
#[inline]
fn long_key(arena: &[u8], offset: u64) -> &[u8] {
    let at = offset as usize;
    let len = u32::from_le_bytes([arena[at], arena[at + 1], arena[at + 2], arena[at + 3]]) as usize;
    &arena[at + 4..at + 4 + len]
}

/// Appends a long key to `arena`; returns the entry word (its offset).
fn store_long(arena: &mut Vec<u8>, key: &[u8]) -> [u8; 8] {
    let offset = arena.len() as u64;
    // Keys are at most u32::MAX bytes: a trace's record never comes near.
    arena.extend_from_slice(&(key.len().min(u32::MAX as usize) as u32).to_le_bytes());
    arena.extend_from_slice(&key[..key.len().min(u32::MAX as usize)]);
    offset.to_le_bytes()
}

/// A new entry for `key` with count `n`.
fn new_entry(arena: &mut Vec<u8>, key: &[u8], head: [u8; 8], n: u64) -> Entry {
    if key.len() <= 8 {
        Entry {
            word: head,
            meta: ((key.len() as u64) << 56) | n.min(COUNT_MASK),
        }
    } else {
        Entry {
            word: store_long(arena, key),
            meta: (LONG << 56) | n.min(COUNT_MASK),
        }
    }
}

/// A [`KeyTable`] as plain data ([`KeyTable::state`]).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KeyTableState {
    /// The limit on exactly counted distinct keys.
    pub limit: usize,
    /// The sample level (keys kept: sample hash with at least this many leading zeros).
    pub level: u32,
    /// The sum of every count added, sampled or not.
    pub total: u64,
    /// The keys held, one after another (key `i` is `key_lens[i]` bytes long): one buffer
    /// rather than one per key, read back without an allocation per key.
    pub key_bytes: Vec<u8>,
    /// The length of each key held, in order.
    pub key_lens: Vec<u32>,
    /// The count of each key held, in order.
    pub counts: Vec<u64>,
    /// The sketch of the keys outside the sample, once sampling.
    pub outside: Option<SpaceSavingState>,
}

impl KeyTableState {
    /// Its keys with their counts, in order; `None` when the keys, lengths and counts do not
    /// fit together (a damaged state).
    fn entries(&self) -> Option<impl Iterator<Item = (&[u8], u64)>> {
        let bytes: usize = self.key_lens.iter().map(|&l| l as usize).sum();
        if self.key_lens.len() != self.counts.len() || bytes != self.key_bytes.len() {
            return None;
        }
        let mut rest = &self.key_bytes[..];
        Some(
            self.key_lens
                .iter()
                .zip(&self.counts)
                .map(move |(&len, &count)| {
                    let (key, after) = rest.split_at(len as usize);
                    rest = after;
                    (key, count)
                }),
        )
    }
}

/// Distinct keys with counts, exact up to a limit and a consistent hash sample beyond it.
#[derive(Clone, Debug)]
pub struct KeyTable {
    index: EntryTable,
    arena: Vec<u8>,
    limit: usize,
    /// Keys are kept when their sample hash has at least this many leading zeros.
    level: u32,
    total: u64,
    /// Counts of keys outside the sample (present once `level > 0`).
    outside: Option<Box<SpaceSaving>>,
}

impl Default for KeyTable {
    fn default() -> Self {
        KeyTable::with_limit(DEFAULT_DISTINCT_LIMIT)
    }
}

impl KeyTable {
    /// An empty table that counts up to `limit` distinct keys exactly (at least 1).
    pub fn with_limit(limit: usize) -> Self {
        KeyTable {
            index: EntryTable::new(),
            arena: Vec::new(),
            limit: limit.max(1),
            level: 0,
            total: 0,
            outside: None,
        }
    }

    /// The limit on exactly counted distinct keys.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Counts `n` more occurrences of `key`.
    #[inline]
    pub fn add(&mut self, key: &[u8], n: u64) {
        self.add_hashed(key, sample_hash(key), n);
    }

    /// Counts one more occurrence of each key, in order: the same as [`KeyTable::add`] on
    /// each, faster on a large table (see [`KeyTable::add_each_routed`]).
    pub fn add_each<'k>(&mut self, keys: impl IntoIterator<Item = &'k [u8]>) {
        KeyTable::add_each_routed(std::slice::from_mut(self), keys, |_| Some(0));
    }

    /// Counts one more occurrence of each key in the table `route` gives for its sample hash
    /// (`None`: not counted here), in order: each table sees its keys as [`KeyTable::add`]
    /// would, one by one.
    ///
    /// Keys go in blocks of [`BLOCK`]: first each key is hashed and routed, and the keys
    /// counted here are packed without a branch (with two workers a key's part is a coin
    /// toss, which a branch would mispredict half the time); then the block is counted, each
    /// key's home slot prefetched [`AHEAD`] keys before its update, so that on a table
    /// larger than the caches the misses of consecutive keys overlap.
    pub fn add_each_routed<'k>(
        tables: &mut [KeyTable],
        keys: impl IntoIterator<Item = &'k [u8]>,
        route: impl Fn(u64) -> Option<usize>,
    ) {
        let hashed = keys.into_iter().map(|key| (sample_hash(key), key));
        KeyTable::add_each_hashed(tables, hashed, route);
    }

    /// [`KeyTable::add_each_routed`] with each key's [`sample_hash`] computed beforehand
    /// (given first): keys hashed on one thread and counted on another are hashed once.
    pub fn add_each_hashed<'k>(
        tables: &mut [KeyTable],
        keys: impl IntoIterator<Item = (u64, &'k [u8])>,
        route: impl Fn(u64) -> Option<usize>,
    ) {
        let mut keys = keys.into_iter();
        let mut block = [(0usize, 0u64, &[][..]); BLOCK];
        loop {
            let mut n = 0;
            for (hash, key) in keys.by_ref() {
                let table = route(hash).unwrap_or(usize::MAX);
                block[n] = (table, hash, key);
                n += usize::from(table != usize::MAX);
                if n == BLOCK {
                    break;
                }
            }
            let block = &block[..n];
            let prefetch = |tables: &[KeyTable], (t, h, _): (usize, u64, &[u8])| {
                tables[t].index.prefetch_home(h)
            };
            block.iter().take(AHEAD).for_each(|&k| prefetch(tables, k));
            for (i, &(t, h, key)) in block.iter().enumerate() {
                if let Some(&ahead) = block.get(i + AHEAD) {
                    prefetch(tables, ahead);
                }
                tables[t].add_hashed(key, h, 1);
            }
            if n < BLOCK {
                return;
            }
        }
    }

    /// Joins tables into one table exact up to `limit` keys: every part is brought to the
    /// highest sample level among them, then the parts are put together in the order given
    /// (which, with the parts' own contents, decides the result, whatever thread counted each
    /// part). The parts may be of one key space split by hash (disjoint keys), or of cuts of
    /// one stream (a key's counts add up): either way the keys held and their counts are
    /// those of one table that counted everything, since the sample level is the lowest at
    /// which the union fits. (Only the space-saving sketch of the keys outside the sample,
    /// behind [`KeyTable::hottest`] once sampling, may differ: sketches merge approximately.)
    pub fn join(mut parts: Vec<KeyTable>, limit: usize) -> KeyTable {
        let level = parts.iter().map(|p| p.level).max().unwrap_or(0);
        parts.iter_mut().for_each(|p| p.raise_to(level));
        let mut joined = KeyTable::with_limit(limit);
        joined.level = level;
        let held: usize = parts.iter().map(KeyTable::len).sum();
        joined.index = EntryTable::with_capacity(held.min(joined.limit + 1));
        for part in parts {
            for e in part.index.iter() {
                joined.add(e.key(&part.arena), e.count());
            }
            joined.total += part.total - part.held_total();
            if let Some(theirs) = &part.outside {
                joined
                    .outside
                    .get_or_insert_with(|| Box::new(SpaceSaving::new(SKETCH_COUNTERS)))
                    .merge(theirs);
            }
        }
        joined
    }

    /// [`KeyTable::join`] of two tables. When neither samples and together they hold at
    /// most `limit` keys (so that no key can be dropped), the smaller one is added into the
    /// larger in place: the keys, counts and total are those of the join (only the order of
    /// iteration may differ), for about half its work and no second table in memory.
    pub fn join_pair(a: KeyTable, b: KeyTable, limit: usize) -> KeyTable {
        let limit = limit.max(1);
        if a.len() + b.len() > limit || !a.is_exact() || !b.is_exact() {
            return KeyTable::join(vec![a, b], limit);
        }
        let (mut big, small) = if a.len() >= b.len() { (a, b) } else { (b, a) };
        big.limit = limit;
        for e in small.index.iter() {
            big.add(e.key(&small.arena), e.count());
        }
        big
    }

    /// [`KeyTable::join_pair`] of this table and the one `state` describes, without
    /// building that one when both are exact and hold at most `limit` keys together: its keys
    /// are added into this table (a merge of partial results then adds every key once,
    /// rather than rebuilding each part's table and adding one into the other). `None` for a
    /// damaged state, as [`KeyTable::from_state`].
    pub fn join_state(self, state: KeyTableState, limit: usize) -> Option<KeyTable> {
        let limit = limit.max(1);
        let exact = state.level == 0 && self.is_exact();
        if !exact || self.len() + state.counts.len() > limit {
            return Some(KeyTable::join_pair(
                self,
                KeyTable::from_state(state)?,
                limit,
            ));
        }
        // As `from_state` checks: an exact table holds every count it was given.
        let counted = state.counts.iter().try_fold(0u64, |a, &c| a.checked_add(c));
        if counted != Some(state.total) {
            return None;
        }
        let mut table = self;
        table.limit = limit;
        for (key, count) in state.entries()? {
            table.add(key, count);
        }
        Some(table)
    }

    /// [`KeyTable::add`] with the key's sample hash already computed.
    #[inline(always)]
    fn add_hashed(&mut self, key: &[u8], sample: u64, n: u64) {
        self.total += n;
        if sample.leading_zeros() < self.level {
            if let Some(outside) = &mut self.outside {
                outside.add(key, n);
            }
            return;
        }
        let arena = &self.arena;
        let head = head_of(key);
        match self.index.find(sample, |e| e.matches(arena, key, &head)) {
            Ok(at) => self.index.slot_mut(at).add(n),
            Err(vacant) => {
                let entry = new_entry(&mut self.arena, key, head, n);
                let arena = &self.arena;
                self.index
                    .insert(sample, vacant, entry, |e| sample_hash(e.key(arena)));
                if self.index.len() > self.limit {
                    self.shrink();
                }
            }
        }
    }

    /// Raises the level until the table fits its limit.
    fn shrink(&mut self) {
        while self.index.len() > self.limit {
            self.raise_to(self.level + 1);
        }
    }

    /// Drops the keys outside the sample of `level` (their counts go to the sketch) and
    /// compacts the arena.
    fn raise_to(&mut self, level: u32) {
        if level <= self.level {
            return;
        }
        self.level = level.min(64);
        let outside = self
            .outside
            .get_or_insert_with(|| Box::new(SpaceSaving::new(SKETCH_COUNTERS)));
        let old_arena = std::mem::take(&mut self.arena);
        let mut arena = Vec::with_capacity(old_arena.len() / 2);
        let level = self.level;
        self.index.retain(
            |e| {
                let key = e.key(&old_arena);
                let keep = sample_hash(key).leading_zeros() >= level;
                if !keep {
                    outside.add(key, e.count());
                }
                keep
            },
            |e| sample_hash(e.key(&old_arena)),
        );
        for e in self.index.iter_mut().filter(|e| e.len_field() == LONG) {
            e.word = store_long(&mut arena, e.key(&old_arena));
        }
        // The index keeps its capacity: it fills up to the limit again, and shrinking it would
        // briefly hold two copies.
        self.arena = arena;
    }

    /// The table as plain data: the keys held with their counts, the sample level, the
    /// total and the sketch of the keys outside the sample. [`KeyTable::from_state`] gives
    /// back a table with the same keys, counts and estimates (for partial results merged on
    /// another machine).
    pub fn state(&self) -> KeyTableState {
        let n = self.len();
        let (mut key_bytes, mut key_lens, mut counts) = (
            Vec::with_capacity(n * 8),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        for (key, count) in self.iter() {
            key_bytes.extend_from_slice(key);
            // Keys are stored at most u32::MAX bytes long (`store_long`).
            key_lens.push(key.len() as u32);
            counts.push(count);
        }
        KeyTableState {
            limit: self.limit,
            level: self.level,
            total: self.total,
            key_bytes,
            key_lens,
            counts,
            outside: self.outside.as_ref().map(|o| o.state()),
        }
    }

    /// The table [`KeyTable::state`] described; `None` when its keys, lengths and counts do
    /// not fit together (a damaged state).
    pub fn from_state(state: KeyTableState) -> Option<KeyTable> {
        let mut table = KeyTable::with_limit(state.limit);
        table.level = state.level.min(64);
        table.index = EntryTable::with_capacity(state.counts.len().min(table.limit + 1));
        for (key, count) in state.entries()? {
            table.add(key, count);
        }
        // An exact table holds every count it was given.
        if table.level == 0 && table.total != state.total {
            return None;
        }
        table.total = state.total;
        table.outside = state.outside.map(|o| Box::new(SpaceSaving::from_state(o)));
        Some(table)
    }

    /// Distinct keys held (all of them while exact; the sample otherwise).
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// True when no key is held.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The sum of every count added, held or not (always exact).
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The sum of the counts of the keys held: the total while exact (every key is held),
    /// without a pass over the table.
    pub fn held_total(&self) -> u64 {
        if self.is_exact() {
            return self.total;
        }
        self.index.iter().map(|e| e.count()).sum()
    }

    /// True while every key is held.
    pub fn is_exact(&self) -> bool {
        self.level == 0
    }

    /// The share of the key space held: 1 while exact, 2^-level once sampling.
    pub fn sample_rate(&self) -> f64 {
        0.5f64.powi(self.level as i32)
    }

    /// The count of `key`: exact for a held key, 0 for a key never seen or outside the sample.
    pub fn count(&self, key: &[u8]) -> u64 {
        let sample = sample_hash(key);
        if sample.leading_zeros() < self.level {
            return 0;
        }
        let head = head_of(key);
        match self
            .index
            .find(sample, |e| e.matches(&self.arena, key, &head))
        {
            Ok(at) => self.index.slot(at).count(),
            Err(_) => 0,
        }
    }

    /// The keys held and their counts, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], u64)> + '_ {
        self.index.iter().map(|e| (e.key(&self.arena), e.count()))
    }

    /// The number of slots [`KeyTable::iter_slots`] cuts [`KeyTable::iter`] by.
    pub fn slot_count(&self) -> usize {
        self.index.slot_count()
    }

    /// The keys held in slots `range` and their counts: [`KeyTable::iter`] is the pieces of
    /// any cut of `0..slot_count()` one after another, so that pieces can be read in parallel.
    pub fn iter_slots(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = (&[u8], u64)> {
        self.index
            .iter_slots(range)
            .map(|e| (e.key(&self.arena), e.count()))
    }

    /// The number of distinct keys: exact, or estimated from the sample with its 95% interval.
    pub fn distinct(&self) -> Estimate {
        distinct_estimate(self.index.len() as u64, self.sample_rate())
    }

    /// The most counted key with its count and the count's possible overestimate (0 while
    /// exact, or when the hottest key is in the sample). Ties go to the smaller key.
    pub fn hottest(&self) -> Option<HeavyHitter> {
        let held = self
            .iter()
            .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)))
            .map(|(k, n)| HeavyHitter {
                key: k.to_vec(),
                count: n,
                error: 0,
            });
        let sketched = self
            .outside
            .as_ref()
            .and_then(|s| s.top(1).into_iter().next());
        match (held, sketched) {
            (Some(h), Some(s)) if s.count > h.count => Some(s),
            (None, s) => s,
            (h, _) => h,
        }
    }

    /// The `n` most counted keys, most counted first (ties by key): exact while the table is
    /// exact; once sampling, the held keys (exact counts) merged with the sketch of the keys
    /// outside the sample (upper bounds, `error` > 0). Ranks are complete down to
    /// [`KeyTable::rank_floor`].
    pub fn top(&self, n: usize) -> Vec<HeavyHitter> {
        // The n largest held counts through a bounded min-heap (memory O(n)): the root is the
        // smallest count, and of equal counts the largest key, which goes first.
        type Ranked<'a> = Reverse<(u64, Reverse<&'a [u8]>)>;
        let mut heap: BinaryHeap<Ranked<'_>> = BinaryHeap::with_capacity(n + 1);
        for (key, count) in self.iter() {
            heap.push(Reverse((count, Reverse(key))));
            if heap.len() > n {
                heap.pop();
            }
        }
        let mut top: Vec<HeavyHitter> = heap
            .into_iter()
            .map(|Reverse((count, Reverse(key)))| HeavyHitter {
                key: key.to_vec(),
                count,
                error: 0,
            })
            .collect();
        if let Some(outside) = &self.outside {
            top.extend(outside.top(n));
        }
        top.sort_unstable_by(|a, b| b.count.cmp(&a.count).then_with(|| a.key.cmp(&b.key)));
        top.truncate(n);
        top
    }

    /// The count above which [`KeyTable::top`] misses no key: 0 while exact; once sampling,
    /// the largest count a key outside the sample can have without being in the sketch.
    pub fn rank_floor(&self) -> u64 {
        self.outside.as_ref().map_or(0, |s| s.max_error())
    }

    /// Sum of squared counts of the keys held (for the effective sample size of traffic
    /// shares: `held_total^2 / this`).
    pub fn held_sum_of_squares(&self) -> f64 {
        self.index
            .iter()
            .map(|e| (e.count() as f64) * (e.count() as f64))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    fn key(i: u64) -> [u8; 8] {
        i.to_be_bytes()
    }

    #[test]
    fn below_the_limit_every_count_is_exact() {
        let mut t = KeyTable::with_limit(100);
        for i in 0..1000u64 {
            t.add(&key(i % 50), 1 + i % 3);
        }
        assert!(t.is_exact());
        assert_eq!(t.len(), 50);
        assert_eq!(t.total(), t.held_total());
        let truth: u64 = (0..1000u64)
            .filter(|i| i % 50 == 7)
            .map(|i| 1 + i % 3)
            .sum();
        assert_eq!(t.count(&key(7)), truth);
        let d = t.distinct();
        assert_eq!(
            (d.value, d.sample_rate, d.ci_low, d.ci_high),
            (50.0, 1.0, 50.0, 50.0)
        );
    }

    #[test]
    fn past_the_limit_the_distinct_count_is_estimated_within_its_interval() {
        let n = 200_000u64;
        let mut t = KeyTable::with_limit(20_000);
        for i in 0..n {
            t.add(&key(i), 1);
        }
        assert!(!t.is_exact());
        assert!(t.len() <= 20_000 && t.len() > 5_000, "{}", t.len());
        assert_eq!(t.total(), n);
        let d = t.distinct();
        assert!(d.ci_low <= n as f64 && n as f64 <= d.ci_high, "{d:?}");
        assert!((d.value - n as f64).abs() < 0.05 * n as f64, "{d:?}");
        assert_eq!(d.sample_rate, t.sample_rate());
    }

    #[test]
    fn the_hottest_key_is_found_even_outside_the_sample() {
        let mut t = KeyTable::with_limit(1000);
        // Find a key that the first halving drops.
        let hot = (0..)
            .map(key)
            .find(|k| sample_hash(k).leading_zeros() == 0)
            .unwrap();
        for i in 0..50_000u64 {
            t.add(&key(1_000_000 + i), 1);
            if i % 10 == 0 {
                t.add(&hot, 1);
            }
        }
        assert!(!t.is_exact());
        assert_eq!(t.count(&hot), 0, "the hot key is outside the sample");
        let h = t.hottest().unwrap();
        assert_eq!(h.key, hot);
        assert!(h.count >= 5000 && h.count - h.error <= 5000, "{h:?}");
    }

    #[test]
    fn the_top_keys_are_exact_while_exact_and_still_found_when_sampling() {
        let mut t = KeyTable::with_limit(100);
        for i in 0..50u64 {
            t.add(&key(i), i + 1);
        }
        let top = t.top(3);
        assert_eq!(
            top.iter()
                .map(|h| (h.key.clone(), h.count, h.error))
                .collect::<Vec<_>>(),
            [
                (key(49).to_vec(), 50, 0),
                (key(48).to_vec(), 49, 0),
                (key(47).to_vec(), 48, 0)
            ]
        );
        assert_eq!(t.rank_floor(), 0);
        let mut t = KeyTable::with_limit(500);
        for _ in 0..20 {
            for i in 0..2000u64 {
                t.add(&key(i), if i < 5 { 101 } else { 1 });
            }
        }
        assert!(!t.is_exact());
        let top: Vec<Vec<u8>> = t.top(5).into_iter().map(|h| h.key).collect();
        let mut expected: Vec<Vec<u8>> = (0..5).map(|i| key(i).to_vec()).collect();
        expected.sort();
        let mut got = top.clone();
        got.sort();
        assert_eq!(got, expected);
    }

    #[test]
    #[allow(clippy::manual_is_multiple_of)] // `is_multiple_of` is newer than rust-version 1.80
    fn long_and_short_keys_keep_exact_counts_through_sampling_and_joining() {
        let name = |i: u64| -> Vec<u8> {
            if i % 3 == 0 {
                i.to_be_bytes()[..(i % 8) as usize].to_vec()
            } else {
                format!("a-longer-key-{i}").into_bytes()
            }
        };
        let (mut a, mut b) = (KeyTable::with_limit(300), KeyTable::with_limit(300));
        let mut truth: HashMap<Vec<u8>, u64> = HashMap::new();
        for i in 0..5000u64 {
            let k = name(i % 1500);
            // Two parts of the key space, as the replay splits it.
            if (sample_hash(&k) >> 32) % 2 == 0 {
                a.add(&k, 1)
            } else {
                b.add(&k, 1)
            }
            *truth.entry(k).or_default() += 1;
        }
        let m = KeyTable::join(vec![a, b], 300);
        assert!(!m.is_exact() && m.len() <= 300);
        for (k, n) in m.iter() {
            assert_eq!(n, truth[k], "{k:?}");
            assert_eq!(m.count(k), n);
        }
        let held: std::collections::HashSet<&[u8]> = m.iter().map(|(k, _)| k).collect();
        for k in truth.keys() {
            assert_eq!(
                held.contains(k.as_slice()),
                sample_hash(k).leading_zeros() >= m.level,
                "{k:?}"
            );
        }
    }

    #[test]
    fn a_table_read_back_from_its_state_is_the_same_and_a_damaged_state_is_refused() {
        for limit in [10_000, 300] {
            // Exact, then sampling; keys of 8 bytes, shorter and longer.
            let mut t = KeyTable::with_limit(limit);
            for i in 0..5000u64 {
                let k = match i % 3 {
                    0 => key(i % 1700).to_vec(),
                    1 => (i % 900).to_string().into_bytes(),
                    _ => format!("a-longer-key-{}", i % 1100).into_bytes(),
                };
                t.add(&k, 1 + i % 4);
            }
            let state = t.state();
            assert_eq!(state.key_lens.len(), t.len());
            let back = KeyTable::from_state(state.clone()).expect("a whole state");
            let sorted = |t: &KeyTable| {
                let mut v: Vec<(Vec<u8>, u64)> = t.iter().map(|(k, n)| (k.to_vec(), n)).collect();
                v.sort_unstable();
                v
            };
            assert_eq!(sorted(&back), sorted(&t), "limit {limit}");
            assert_eq!(back.state().outside, state.outside);
            assert_eq!(
                (back.total(), back.len(), back.level, back.limit),
                (t.total(), t.len(), t.level, t.limit)
            );
            assert_eq!(back.top(5), t.top(5));
            let mut short = state.clone();
            short.key_bytes.pop();
            let mut long = state.clone();
            long.key_bytes.push(0);
            let mut uncounted = state.clone();
            uncounted.counts.pop();
            let mut miscounted = state.clone();
            miscounted.total += 1;
            for damaged in [short, long, uncounted] {
                assert!(KeyTable::from_state(damaged).is_none(), "limit {limit}");
            }
            // An exact table's total is the sum of its counts.
            assert_eq!(
                KeyTable::from_state(miscounted.clone()).is_none(),
                t.is_exact()
            );
            let empty = KeyTable::with_limit(1 << 20);
            assert_eq!(
                empty.join_state(miscounted, 1 << 20).is_none(),
                t.is_exact()
            );
            assert_eq!(back.held_total(), t.iter().map(|(_, n)| n).sum::<u64>());
        }
    }

    proptest! {
        #[test]
        fn adding_in_blocks_equals_adding_one_by_one(
            keys in proptest::collection::vec(0u64..3000, 0..3000),
            limit in 50usize..4000,
            long in any::<bool>(),
        ) {
            let name = |k: u64| -> Vec<u8> {
                if long && k % 2 == 1 { format!("key-number-{k}").into_bytes() } else { key(k).to_vec() }
            };
            let names: Vec<Vec<u8>> = keys.iter().map(|&k| name(k)).collect();
            let refs: Vec<&[u8]> = names.iter().map(Vec::as_slice).collect();
            let mut one = KeyTable::with_limit(limit);
            refs.iter().for_each(|k| one.add(k, 1));
            let mut each = KeyTable::with_limit(limit);
            each.add_each(refs.iter().copied());
            prop_assert_eq!((one.total(), one.len(), one.level), (each.total(), each.len(), each.level));
            let mut a: Vec<(&[u8], u64)> = one.iter().collect();
            let mut b: Vec<(&[u8], u64)> = each.iter().collect();
            a.sort_unstable();
            b.sort_unstable();
            prop_assert_eq!(a, b);
            prop_assert_eq!(one.top(5), each.top(5));
        }

        #[test]
        fn routed_adds_equal_adds_to_each_table(
            keys in proptest::collection::vec(0u64..3000, 0..3000),
            tables in 1usize..4,
            limit in 50usize..2000,
        ) {
            // Keys go to `hash % (tables + 1)`; the last value is skipped.
            let route = |h: u64| Some((h % (tables as u64 + 1)) as usize).filter(|&t| t < tables);
            let mut routed: Vec<KeyTable> = (0..tables).map(|_| KeyTable::with_limit(limit)).collect();
            let names: Vec<[u8; 8]> = keys.iter().map(|&k| key(k)).collect();
            KeyTable::add_each_routed(&mut routed, names.iter().map(|k| &k[..]), route);
            let mut one: Vec<KeyTable> = (0..tables).map(|_| KeyTable::with_limit(limit)).collect();
            for k in &names {
                if let Some(t) = route(sample_hash(k)) {
                    one[t].add(k, 1);
                }
            }
            for (a, b) in one.iter().zip(&routed) {
                prop_assert_eq!((a.total(), a.len(), a.level), (b.total(), b.len(), b.level));
                let mut x: Vec<(&[u8], u64)> = a.iter().collect();
                let mut y: Vec<(&[u8], u64)> = b.iter().collect();
                x.sort_unstable();
                y.sort_unstable();
                prop_assert_eq!(x, y);
                prop_assert_eq!(a.top(5), b.top(5));
            }
        }

        #[test]
        fn a_state_joined_in_place_equals_the_join_of_its_table(
            keys in proptest::collection::vec(0u64..400, 0..1500),
            cut in 0usize..1500,
            limit in 20usize..600,
            long in any::<bool>(),
        ) {
            // As below, the second cut given as a state (exact and fitting: added in place;
            // otherwise rebuilt and joined).
            let name = |k: u64| -> Vec<u8> {
                if long && k.is_multiple_of(3) { format!("a-longer-key-{k}").into_bytes() } else { key(k).to_vec() }
            };
            let (mut a, mut b) = (KeyTable::with_limit(limit), KeyTable::with_limit(limit));
            for (i, &k) in keys.iter().enumerate() {
                if i < cut { a.add(&name(k), 1) } else { b.add(&name(k), 1) }
            }
            let want = KeyTable::join(vec![a.clone(), b.clone()], limit);
            let state = b.state();
            let got = a.clone().join_state(state.clone(), limit).expect("a whole state");
            prop_assert_eq!(
                (got.total(), got.len(), got.level, got.limit),
                (want.total(), want.len(), want.level, want.limit)
            );
            let mut x: Vec<(&[u8], u64)> = got.iter().collect();
            let mut y: Vec<(&[u8], u64)> = want.iter().collect();
            x.sort_unstable();
            y.sort_unstable();
            prop_assert_eq!(x, y);
            prop_assert_eq!(got.top(5), want.top(5));
            prop_assert_eq!(got.hottest(), want.hottest());
            // A damaged state is refused whichever way it would be joined.
            if !state.counts.is_empty() {
                let mut short = state.clone();
                short.key_bytes.pop();
                let mut uncounted = state;
                uncounted.counts.pop();
                for damaged in [short, uncounted] {
                    prop_assert!(a.clone().join_state(damaged, limit).is_none());
                }
            }
        }

        #[test]
        fn a_pair_joined_in_place_equals_the_join(
            keys in proptest::collection::vec(0u64..400, 0..1500),
            cut in 0usize..1500,
            limit in 20usize..600,
            long in any::<bool>(),
        ) {
            // Two cuts of one stream (a key may be in both), exact or sampling, short or long keys.
            let name = |k: u64| -> Vec<u8> {
                if long && k.is_multiple_of(3) { format!("a-longer-key-{k}").into_bytes() } else { key(k).to_vec() }
            };
            let (mut a, mut b) = (KeyTable::with_limit(limit), KeyTable::with_limit(limit));
            for (i, &k) in keys.iter().enumerate() {
                if i < cut { a.add(&name(k), 1) } else { b.add(&name(k), 1) }
            }
            let want = KeyTable::join(vec![a.clone(), b.clone()], limit);
            let got = KeyTable::join_pair(a, b, limit);
            prop_assert_eq!(
                (got.total(), got.len(), got.level, got.limit),
                (want.total(), want.len(), want.level, want.limit)
            );
            let mut x: Vec<(&[u8], u64)> = got.iter().collect();
            let mut y: Vec<(&[u8], u64)> = want.iter().collect();
            x.sort_unstable();
            y.sort_unstable();
            prop_assert_eq!(x, y);
            prop_assert_eq!(got.top(5), want.top(5));
            prop_assert_eq!(got.hottest(), want.hottest());
        }

        #[test]
        fn joined_parts_equal_one_table_over_the_whole_stream(
            keys in proptest::collection::vec(0u64..3000, 0..3000),
            parts in 1usize..5,
            limit in 50usize..4000,
        ) {
            let part_limit = limit / parts + 1;
            let mut split: Vec<KeyTable> = (0..parts).map(|_| KeyTable::with_limit(part_limit)).collect();
            let mut truth: HashMap<u64, u64> = HashMap::new();
            for k in &keys {
                split[(sample_hash(&key(*k)) >> 32) as usize % parts].add(&key(*k), 1);
                *truth.entry(*k).or_default() += 1;
            }
            let joined = KeyTable::join(split, limit);
            prop_assert_eq!(joined.total(), keys.len() as u64);
            prop_assert!(joined.len() <= limit);
            for (k, n) in joined.iter() {
                prop_assert_eq!(n, truth[&u64::from_be_bytes(k.try_into().unwrap())]);
            }
            let level = joined.level;
            let expected_held = truth.keys().filter(|k| sample_hash(&key(**k)).leading_zeros() >= level).count();
            prop_assert_eq!(joined.len(), expected_held);
            if truth.len() <= part_limit.min(limit) {
                prop_assert!(joined.is_exact());
            }
            if let Some(h) = joined.hottest() {
                prop_assert!(h.count >= truth[&u64::from_be_bytes(h.key[..].try_into().unwrap())]);
            }
        }
    }
}
