//! Distinct keys and their request counts, counted in parts of the key space and joined:
//! exact up to a limit of distinct keys (default 10 million), then a consistent hash sample of
//! the key space.
//!
//! This is [`workloads::stats::KeyTable`] (see it for the sampling rule) under the name and
//! methods the schemes and metrics use. While exact, every method means what it says. Once
//! sampling ([`KeyCounts::is_exact`] is false), [`len`](KeyCounts::len),
//! [`iter`](KeyCounts::iter) and [`sorted`](KeyCounts::sorted) cover the sampled keys, each
//! with its exact count, so shares computed over them are unbiased estimates;
//! [`distinct`](KeyCounts::distinct) scales the count up with a 95% interval;
//! [`total`](KeyCounts::total) stays the exact number of requests and
//! [`hottest`](KeyCounts::hottest) still finds the hottest key.

use std::sync::OnceLock;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use workloads::stats::{sample_hash, Estimate, HeavyHitter, KeyTable, KeyTableState};

pub use workloads::stats::DEFAULT_DISTINCT_LIMIT;

/// How a parallel count splits the key space: into parts by key hash, each counted by one
/// thread in stream order and joined in part order ([`KeyCounts::join`]), so that every key
/// is held once and the result does not depend on the thread count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyParts {
    /// Number of parts, a power of two: up to [`KeyParts::MAX`], fewer for small limits (one
    /// part per 65,536 keys of the limit or more, so that each part's share of the limit is
    /// large enough to be even).
    pub count: usize,
    /// The limit of each part: its share of the whole limit plus six standard deviations of
    /// the share a hash gives it, so that a part samples only when the whole would.
    pub part_limit: usize,
    /// The limit of the joined count.
    pub limit: usize,
}

impl KeyParts {
    /// The most parts a key space is split into.
    pub const MAX: usize = 16;

    /// The parts for a count exact up to `limit` distinct keys.
    pub fn for_limit(limit: usize) -> Self {
        let count = match limit >> 16 {
            0 => 1,
            n => (1 << n.ilog2()).min(Self::MAX),
        };
        let share = limit.div_ceil(count);
        let part_limit = match count {
            1 => limit,
            _ => share + (6.0 * (share as f64).sqrt()).ceil() as usize,
        };
        KeyParts {
            count,
            part_limit,
            limit,
        }
    }

    /// The part of a key with this sample hash (from bits that neither the sample level nor
    /// a table's home slot uses).
    #[inline(always)]
    pub fn part_of(&self, hash: u64) -> usize {
        (hash >> 32) as usize & (self.count - 1)
    }

    /// The parts worker `worker` of `workers` counts: `worker`, `worker + workers`, ...
    pub fn owned_by(&self, worker: usize, workers: usize) -> impl Iterator<Item = usize> {
        (worker..self.count).step_by(workers.max(1))
    }

    /// Hashes each key once and copies it, with its hash, into the keys of the worker that
    /// counts its part ([`KeyParts::owned_by`]; `outs` holds one per worker), in order.
    pub fn sort_out<'k>(&self, keys: impl IntoIterator<Item = &'k [u8]>, outs: &mut [HashedKeys]) {
        let workers = outs.len().max(1);
        // The worker of each part, looked up rather than divided for every key.
        let owner: [usize; KeyParts::MAX] = std::array::from_fn(|part| part % workers);
        for key in keys {
            let hash = sample_hash(key);
            outs[owner[self.part_of(hash) % KeyParts::MAX]].push(hash, key);
        }
    }
}

/// Point keys with their sample hashes, sorted out of a chunk ([`KeyParts::sort_out`]) for
/// the worker that counts their parts ([`PartCounts::add_hashed`]): each key is hashed by
/// the worker that reads it, once.
#[derive(Clone, Debug, Default)]
pub struct HashedKeys {
    /// Each key's hash, its length and its bytes: in place when at most 8 bytes long (every
    /// integer key: one 24-byte push, no copy call), else its offset in `long`.
    keys: Vec<(u64, usize, [u8; 8])>,
    long: Vec<u8>,
}

impl HashedKeys {
    /// Forgets the keys (keeping the memory).
    pub fn clear(&mut self) {
        self.keys.clear();
        self.long.clear();
    }

    #[inline(always)]
    fn push(&mut self, hash: u64, key: &[u8]) {
        let word = match key.first_chunk::<8>() {
            Some(head) if key.len() == 8 => *head,
            _ if key.len() < 8 => {
                let mut word = [0u8; 8];
                word[..key.len()].copy_from_slice(key);
                word
            }
            _ => {
                let at = self.long.len() as u64;
                self.long.extend_from_slice(key);
                at.to_le_bytes()
            }
        };
        self.keys.push((hash, key.len(), word));
    }

    /// The keys with their hashes, in order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &[u8])> + '_ {
        self.keys.iter().map(|(hash, len, word)| {
            let key = match *len {
                0..=8 => &word[..*len],
                _ => {
                    let at = u64::from_le_bytes(*word) as usize;
                    &self.long[at..at + len]
                }
            };
            (*hash, key)
        })
    }
}

/// The parts of the key space that one worker counts ([`KeyParts`]): one table per part.
pub struct PartCounts {
    parts: KeyParts,
    /// The parts counted here.
    owned: Vec<usize>,
    /// For each part number, its table's position in `tables`; `u8::MAX` when not owned.
    slot_of: [u8; KeyParts::MAX],
    tables: Vec<KeyTable>,
}

impl PartCounts {
    /// Tables for the parts `owned` of `parts` (part numbers below `parts.count`).
    pub fn new(parts: KeyParts, owned: impl IntoIterator<Item = usize>) -> Self {
        let owned: Vec<usize> = owned.into_iter().filter(|&p| p < parts.count).collect();
        let mut slot_of = [u8::MAX; KeyParts::MAX];
        for (slot, &part) in owned.iter().enumerate() {
            slot_of[part] = slot as u8;
        }
        PartCounts {
            parts,
            tables: owned
                .iter()
                .map(|_| KeyTable::with_limit(parts.part_limit))
                .collect(),
            owned,
            slot_of,
        }
    }

    /// True when no part is counted here (every key would be skipped).
    pub fn is_empty(&self) -> bool {
        self.owned.is_empty()
    }

    /// Counts one request for each key that falls in a part counted here, in order; the
    /// keys of other parts are skipped.
    pub fn add_each<'k>(&mut self, keys: impl IntoIterator<Item = &'k [u8]>) {
        let route = self.route();
        KeyTable::add_each_routed(&mut self.tables, keys, route);
    }

    /// [`PartCounts::add_each`] for keys hashed beforehand: counts those that fall in a part
    /// counted here, in order.
    pub fn add_hashed(&mut self, keys: &HashedKeys) {
        let route = self.route();
        KeyTable::add_each_hashed(&mut self.tables, keys.iter(), route);
    }

    /// The table of a key with this sample hash; `None` when its part is not counted here.
    fn route(&self) -> impl Fn(u64) -> Option<usize> {
        let (parts, slot_of) = (self.parts, self.slot_of);
        move |hash| {
            let slot = slot_of[parts.part_of(hash) % KeyParts::MAX];
            (slot != u8::MAX).then_some(slot as usize)
        }
    }

    /// The limit of the joined count ([`KeyParts::limit`]).
    pub fn limit(&self) -> usize {
        self.parts.limit
    }

    /// Adds the counts of `other` (of the same [`KeyParts`]), part by part: a part counted in
    /// both is merged (the counts of a key add up; see [`KeyTable::join`]), a part only
    /// `other` counts is taken over. So the counts of any cuts of a stream, each counting
    /// any parts, merge into those of the whole, bucket by bucket.
    pub fn merge(&mut self, other: PartCounts) {
        use rayon::prelude::*;
        let mut joins = Vec::new();
        for (part, table) in other.owned.into_iter().zip(other.tables) {
            match self.slot_of[part] {
                u8::MAX => {
                    self.slot_of[part] = self.tables.len() as u8;
                    self.owned.push(part);
                    self.tables.push(table);
                }
                slot => joins.push((slot as usize, table)),
            }
        }
        // Each part's tables join on their own: in parallel, the same tables.
        let limit = self.parts.part_limit;
        let pairs: Vec<(usize, KeyTable, KeyTable)> = joins
            .into_iter()
            .map(|(slot, theirs)| (slot, std::mem::take(&mut self.tables[slot]), theirs))
            .collect();
        let joined: Vec<(usize, KeyTable)> = pairs
            .into_par_iter()
            .map(|(slot, mine, theirs)| (slot, KeyTable::join_pair(mine, theirs, limit)))
            .collect();
        for (slot, table) in joined {
            self.tables[slot] = table;
        }
    }

    /// [`PartCounts::merge`] of the counts `state` describes, without rebuilding the tables
    /// of the parts both count ([`KeyTable::join_state`]); each part on its own, in parallel.
    pub fn merge_state(&mut self, state: PartCountsState) -> Result<(), crate::AnalysisError> {
        use rayon::prelude::*;
        if state.parts != self.parts {
            return Err(crate::AnalysisError::Config(
                "a partial result splits the key space otherwise than the others".into(),
            ));
        }
        let damaged = |part: usize| {
            crate::AnalysisError::Config(format!(
                "the table of key-space part {part} in a partial result is damaged \
                 (its keys, lengths and counts do not fit together)"
            ))
        };
        let limit = self.parts.part_limit;
        let mut seen = [false; KeyParts::MAX];
        let mut work = Vec::with_capacity(state.counted.len());
        for (part, table) in state.counted {
            if part >= self.parts.count || std::mem::replace(&mut seen[part], true) {
                return Err(crate::AnalysisError::Config(format!(
                    "key-space part {part} is out of range or given twice in a partial result"
                )));
            }
            let mine = match self.slot_of[part] {
                u8::MAX => None,
                slot => Some(std::mem::take(&mut self.tables[slot as usize])),
            };
            work.push((part, mine, table));
        }
        let joined: Vec<(usize, KeyTable)> = work
            .into_par_iter()
            .map(|(part, mine, theirs)| {
                let table = match mine {
                    Some(mine) => mine.join_state(theirs, limit),
                    None => KeyTable::from_state(theirs),
                };
                table.map(|t| (part, t)).ok_or_else(|| damaged(part))
            })
            .collect::<Result<_, _>>()?;
        for (part, table) in joined {
            match self.slot_of[part] {
                u8::MAX => {
                    self.slot_of[part] = self.tables.len() as u8;
                    self.owned.push(part);
                    self.tables.push(table);
                }
                slot => self.tables[slot as usize] = table,
            }
        }
        Ok(())
    }

    /// The counts as plain data, part by part, for a partial result written on one machine
    /// and merged on another ([`PartCounts::from_state`]).
    pub fn state(&self) -> PartCountsState {
        PartCountsState {
            parts: self.parts,
            counted: self
                .owned
                .iter()
                .zip(&self.tables)
                .map(|(&part, table)| (part, table.state()))
                .collect(),
        }
    }

    /// The counts [`PartCounts::state`] described; an error when a part is out of range or
    /// given twice.
    pub fn from_state(state: PartCountsState) -> Result<PartCounts, crate::AnalysisError> {
        use rayon::prelude::*;
        let mut counts = PartCounts::new(state.parts, []);
        for &(part, _) in &state.counted {
            if part >= state.parts.count || counts.slot_of[part] != u8::MAX {
                return Err(crate::AnalysisError::Config(format!(
                    "key-space part {part} is out of range or given twice in a partial result"
                )));
            }
            counts.slot_of[part] = counts.owned.len() as u8;
            counts.owned.push(part);
        }
        // Each part's table is rebuilt on its own, in parallel.
        counts.tables = state
            .counted
            .into_par_iter()
            .map(|(part, table)| {
                KeyTable::from_state(table).ok_or_else(|| {
                    crate::AnalysisError::Config(format!(
                        "the table of key-space part {part} in a partial result is damaged \
                         (its keys, lengths and counts do not fit together)"
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(counts)
    }

    /// The counts of each part counted here, with its part number.
    pub fn into_parts(self) -> impl Iterator<Item = (usize, KeyCounts)> {
        self.owned
            .into_iter()
            .zip(self.tables.into_iter().map(KeyCounts::of_table))
    }
}

/// [`PartCounts`] as plain data: the split of the key space and each counted part's table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartCountsState {
    /// How the key space is split.
    pub parts: KeyParts,
    /// The parts counted, each with its table.
    pub counted: Vec<(usize, KeyTableState)>,
}

/// Distinct keys with the number of point requests each received.
#[derive(Clone, Debug)]
pub struct KeyCounts {
    /// Tables of disjoint parts of the key space: one table, or the parts' own tables as
    /// [`KeyCounts::join`] keeps them when every one is exact and together they fit the
    /// limit (then more than one table implies exact counts).
    tables: Vec<KeyTable>,
    /// The limit of the whole: the one table's, or the joined count's.
    limit: usize,
    /// The held keys in key order: sorted once, when first asked, for every scheme and
    /// target that asks after (cleared by [`KeyCounts::add`]).
    sorted: OnceLock<SortedKeys>,
    /// The [`learning_half`](KeyCounts::learning_half), made once, when first asked
    /// (cleared by [`KeyCounts::add`]).
    half: OnceLock<Box<KeyCounts>>,
}

impl Default for KeyCounts {
    fn default() -> Self {
        KeyCounts::with_limit(DEFAULT_DISTINCT_LIMIT)
    }
}

impl KeyCounts {
    /// An empty table, exact up to [`DEFAULT_DISTINCT_LIMIT`] distinct keys.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty table, exact up to `limit` distinct keys.
    pub fn with_limit(limit: usize) -> Self {
        KeyCounts::of_table(KeyTable::with_limit(limit))
    }

    /// The counts of one table.
    fn of_table(table: KeyTable) -> Self {
        KeyCounts {
            limit: table.limit(),
            tables: vec![table],
            sorted: OnceLock::new(),
            half: OnceLock::new(),
        }
    }

    /// Counts `n` more requests for `key`.
    #[inline]
    pub fn add(&mut self, key: &[u8], n: u64) {
        if self.tables.len() > 1 {
            // Joined parts become the one table `KeyTable::join` makes of them, which then
            // counts on as a table that had counted everything.
            let parts = std::mem::take(&mut self.tables);
            self.tables = vec![KeyTable::join(parts, self.limit)];
        }
        self.tables[0].add(key, n);
        self.sorted.take();
        self.half.take();
    }

    /// Joins the counts of the parts of a key space ([`KeyParts`]), given in part order.
    ///
    /// Parts that are all exact and together hold at most `limit` keys are kept as they are
    /// and read one after another: their keys are disjoint, so the keys and counts are those
    /// of [`KeyTable::join`], without copying every key into a new table (a serial pass over
    /// all of them at the end of every replay and merge). Otherwise they are joined into one
    /// table (which samples the union as one table would).
    pub fn join(parts: Vec<KeyCounts>, limit: usize) -> KeyCounts {
        let tables: Vec<KeyTable> = parts.into_iter().flat_map(|p| p.tables).collect();
        let held: usize = tables.iter().map(KeyTable::len).sum();
        if !tables.is_empty() && held <= limit && tables.iter().all(KeyTable::is_exact) {
            return KeyCounts {
                tables,
                limit,
                sorted: OnceLock::new(),
                half: OnceLock::new(),
            };
        }
        KeyCounts::of_table(KeyTable::join(tables, limit))
    }

    /// Number of distinct keys held: all of them while exact, the sample otherwise (see
    /// [`distinct`](KeyCounts::distinct) for the estimate).
    pub fn len(&self) -> usize {
        self.tables.iter().map(KeyTable::len).sum()
    }

    /// True when no key is held.
    pub fn is_empty(&self) -> bool {
        self.tables.iter().all(KeyTable::is_empty)
    }

    /// Sum of all counts, sampled or not (exact).
    pub fn total(&self) -> u64 {
        self.tables.iter().map(KeyTable::total).sum()
    }

    /// Sum of the counts of the keys held (equal to [`total`](KeyCounts::total) while exact):
    /// the denominator of traffic shares computed over [`iter`](KeyCounts::iter).
    pub fn held_total(&self) -> u64 {
        self.tables.iter().map(KeyTable::held_total).sum()
    }

    /// The count of one key (0 when unseen, or outside the sample).
    pub fn count(&self, key: &[u8]) -> u64 {
        // A key is held by one table at most.
        self.tables.iter().map(|t| t.count(key)).sum()
    }

    /// The keys held and their counts, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], u64)> + '_ {
        self.tables.iter().flat_map(KeyTable::iter)
    }

    /// The keys held and their counts in parallel, for work whose result does not depend on
    /// their order (sums in integers): read from the sorted copy once
    /// [`sorted`](KeyCounts::sorted) has made it, else from the tables in pieces of slots.
    /// Nothing is copied.
    pub fn par_iter(&self) -> impl ParallelIterator<Item = (&[u8], u64)> + '_ {
        use rayon::iter::Either;
        /// Slots of a table read by one task.
        const PIECE: usize = 1 << 15;
        match self.sorted.get() {
            Some(SortedKeys::Wide8(wide)) => {
                Either::Left(Either::Left(wide.par_iter().map(|(key, c)| (&key[..], *c))))
            }
            Some(sorted @ SortedKeys::Bytes { ends, .. }) => Either::Left(Either::Right(
                (0..ends.len()).into_par_iter().map(|i| sorted.pair(i)),
            )),
            None => {
                let pieces: Vec<(&KeyTable, usize)> = self
                    .tables
                    .iter()
                    .flat_map(|t| (0..t.slot_count()).step_by(PIECE).map(move |at| (t, at)))
                    .collect();
                Either::Right(
                    pieces
                        .into_par_iter()
                        .flat_map_iter(|(t, at)| t.iter_slots(at..at + PIECE)),
                )
            }
        }
    }

    /// The keys held and their counts, sorted by key (deterministic order for reports and
    /// parallel work). The keys are sorted on the first call only, into a copy that later
    /// calls (the other schemes and targets of a replay) read in order.
    pub fn sorted(&self) -> Vec<(&[u8], u64)> {
        self.sorted_copy().pairs()
    }

    /// The sorted copy, made on the first call.
    fn sorted_copy(&self) -> &SortedKeys {
        // Sorted outside the cell: a parallel sort inside its initialiser could, while
        // waiting, run a rayon task that asks for the same cell (a deadlock). Two callers at
        // once may both sort; the first copy is kept.
        match self.sorted.get() {
            Some(sorted) => sorted,
            None => {
                let sorted = SortedKeys::of(self);
                self.sorted.get_or_init(|| sorted)
            }
        }
    }

    /// The keys held that are not [`held_out`], with their counts, exactly (the half of a
    /// table is never over its limit): what a growth that learns from the measured keys
    /// learns from, so that it is scored on the other half. Made once, table by table in
    /// parallel, with its key order read off the whole's sorted copy, for every scheme and
    /// target that asks after.
    pub fn learning_half(&self) -> &KeyCounts {
        // Made outside the cell, as the sorted copy is (see `sorted`).
        if let Some(half) = self.half.get() {
            return half;
        }
        let learns = |(key, _): &(&[u8], u64)| !held_out(key);
        let tables: Vec<KeyCounts> = self
            .tables
            .par_iter()
            .map(|table| {
                let mut half = KeyTable::with_limit(table.len());
                for (key, count) in table.iter().filter(learns) {
                    half.add(key, count);
                }
                KeyCounts::of_table(half)
            })
            .collect();
        let half = KeyCounts::join(tables, self.len().max(1));
        // In key order as a filter of the whole's sorted copy, which the split metrics and
        // other schemes read too: one sort instead of two.
        let _ = half
            .sorted
            .set(self.sorted_copy().filtered(|key| !held_out(key)));
        self.half.get_or_init(|| Box::new(half))
    }

    /// True while every key is held.
    pub fn is_exact(&self) -> bool {
        self.tables.iter().all(KeyTable::is_exact)
    }

    /// Share of the key space held: 1 while exact.
    pub fn sample_rate(&self) -> f64 {
        match &self.tables[..] {
            [table] => table.sample_rate(),
            _ => 1.0,
        }
    }

    /// The number of distinct keys, exact or estimated with its 95% interval.
    pub fn distinct(&self) -> Estimate {
        match &self.tables[..] {
            [table] => table.distinct(),
            _ => Estimate::exact(self.len() as f64),
        }
    }

    /// The most requested key, its count and how much the count may overstate (0 while
    /// exact). Ties go to the smaller key.
    pub fn hottest(&self) -> Option<HeavyHitter> {
        match &self.tables[..] {
            [table] => table.hottest(),
            tables => tables
                .iter()
                .filter_map(KeyTable::hottest)
                .max_by(|a, b| a.count.cmp(&b.count).then_with(|| b.key.cmp(&a.key))),
        }
    }

    /// The effective number of keys behind a traffic-weighted share over the keys held:
    /// (sum of counts)^2 / sum of squared counts.
    pub fn effective_keys(&self) -> f64 {
        let squares: f64 = self.tables.iter().map(KeyTable::held_sum_of_squares).sum();
        if squares == 0.0 {
            0.0
        } else {
            (self.held_total() as f64).powi(2) / squares
        }
    }
}

/// Seed of the hash that splits the measured keys for out-of-sample growth.
const HELD_OUT_SEED: u64 = 0x6f75_745f_6f66_5f73;

/// True for a key of the half that scores a learned growth (bit 0 of
/// `xxh3_64(key, seed = HELD_OUT_SEED)` is 1); the other half
/// ([`KeyCounts::learning_half`]) is what the growth learns from.
#[inline]
pub fn held_out(key: &[u8]) -> bool {
    xxhash_rust::xxh3::xxh3_64_with_seed(key, HELD_OUT_SEED) & 1 == 1
}

/// A copy of the held keys and their counts in key order, read in order by every later call
/// (where the table's slots would be visited at random).
#[derive(Clone, Debug)]
enum SortedKeys {
    /// Every key has 8 bytes (u64 traces): sorted as big-endian integers, which order as
    /// their bytes do, at a fraction of the cost of comparing byte strings.
    Wide8(Vec<([u8; 8], u64)>),
    /// Keys of any length, one after another in `bytes`: key `i` ends at `ends[i]`.
    Bytes {
        bytes: Vec<u8>,
        ends: Vec<usize>,
        counts: Vec<u64>,
    },
}

impl SortedKeys {
    /// Sorts the keys of `keys`, in parallel.
    fn of(keys: &KeyCounts) -> SortedKeys {
        if keys.iter().all(|(key, _)| key.len() == 8) {
            let mut wide: Vec<([u8; 8], u64)> = Vec::with_capacity(keys.len());
            wide.extend(
                keys.iter()
                    .filter_map(|(key, count)| Some((<[u8; 8]>::try_from(key).ok()?, count))),
            );
            wide.par_sort_unstable_by_key(|(key, _)| u64::from_be_bytes(*key));
            return SortedKeys::Wide8(wide);
        }
        let mut entries: Vec<(&[u8], u64)> = Vec::with_capacity(keys.len());
        entries.extend(keys.iter());
        entries.par_sort_unstable();
        SortedKeys::of_sorted(&entries)
    }

    /// The copy of `entries`, given in key order.
    fn of_sorted(entries: &[(&[u8], u64)]) -> SortedKeys {
        let mut bytes = Vec::with_capacity(entries.iter().map(|(key, _)| key.len()).sum());
        let ends = entries
            .iter()
            .map(|(key, _)| {
                bytes.extend_from_slice(key);
                bytes.len()
            })
            .collect();
        let counts = entries.iter().map(|&(_, count)| count).collect();
        SortedKeys::Bytes {
            bytes,
            ends,
            counts,
        }
    }

    /// The keys `keep` accepts, still in key order.
    fn filtered(&self, keep: impl Fn(&[u8]) -> bool + Sync) -> SortedKeys {
        match self {
            SortedKeys::Wide8(wide) => SortedKeys::Wide8(
                wide.par_iter()
                    .filter(|(key, _)| keep(key))
                    .copied()
                    .collect(),
            ),
            SortedKeys::Bytes { ends, .. } => {
                let kept: Vec<(&[u8], u64)> = (0..ends.len())
                    .into_par_iter()
                    .map(|i| self.pair(i))
                    .filter(|(key, _)| keep(key))
                    .collect();
                SortedKeys::of_sorted(&kept)
            }
        }
    }

    /// The keys and their counts, in key order.
    fn pairs(&self) -> Vec<(&[u8], u64)> {
        match self {
            SortedKeys::Wide8(wide) => wide.par_iter().map(|(key, c)| (&key[..], *c)).collect(),
            SortedKeys::Bytes { ends, .. } => (0..ends.len())
                .into_par_iter()
                .map(|i| self.pair(i))
                .collect(),
        }
    }

    /// The `i`-th key in key order and its count.
    fn pair(&self, i: usize) -> (&[u8], u64) {
        match self {
            SortedKeys::Wide8(wide) => (&wide[i].0[..], wide[i].1),
            SortedKeys::Bytes {
                bytes,
                ends,
                counts,
            } => {
                let start = if i == 0 { 0 } else { ends[i - 1] };
                (&bytes[start..ends[i]], counts[i])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sorted_out_to_their_workers_count_as_if_counted_in_place() {
        // Keys of 8 bytes, shorter and longer, in three chunks; four parts counted by one
        // worker, by three (one counts two parts) and by five (one counts none).
        let parts = KeyParts::for_limit(1 << 18);
        assert_eq!(parts.count, 4);
        let names: Vec<Vec<u8>> = (0..3000u64)
            .map(|i| match i % 3 {
                0 => i.to_be_bytes().to_vec(),
                1 => i.to_string().into_bytes(),
                _ => format!("a-longer-key-{i}").into_bytes(),
            })
            .collect();
        let keys: Vec<&[u8]> = (0..9000).map(|i| &names[(i * i) % 3000][..]).collect();
        for workers in [1, 3, 5] {
            let mut outs = vec![HashedKeys::default(); workers];
            let counts = |w| PartCounts::new(parts, parts.owned_by(w, workers));
            let mut handed: Vec<PartCounts> = (0..workers).map(counts).collect();
            for chunk in keys.chunks(4000) {
                parts.sort_out(chunk.iter().copied(), &mut outs);
                for (counts, out) in handed.iter_mut().zip(&mut outs) {
                    counts.add_hashed(out);
                    out.clear();
                }
            }
            let mut total = 0;
            for (w, handed) in handed.iter().enumerate() {
                let mut direct = counts(w);
                direct.add_each(keys.iter().copied());
                assert_eq!(handed.state(), direct.state(), "worker {w} of {workers}");
                total += handed
                    .state()
                    .counted
                    .iter()
                    .map(|(_, t)| t.total)
                    .sum::<u64>();
            }
            assert_eq!(total, 9000);
        }
    }

    #[test]
    fn a_merged_state_counts_as_the_merged_counts() {
        // Two cuts of one stream, counting overlapping sets of parts; limits that fit every
        // key of a part or not (then rebuilt and joined).
        let names: Vec<Vec<u8>> = (0..3000u64)
            .map(|i| match i % 3 {
                0 => i.to_be_bytes().to_vec(),
                1 => i.to_string().into_bytes(),
                _ => format!("a-longer-key-{i}").into_bytes(),
            })
            .collect();
        let keys: Vec<&[u8]> = (0..9000).map(|i| &names[(i * i) % 3000][..]).collect();
        for part_limit in [2000, 300] {
            let parts = KeyParts {
                count: 4,
                part_limit,
                limit: 4 * part_limit,
            };
            let mut a = PartCounts::new(parts, [0, 1, 3]);
            let mut b = PartCounts::new(parts, [1, 2, 3]);
            a.add_each(keys[..5000].iter().copied());
            b.add_each(keys[5000..].iter().copied());
            let mut want = PartCounts::from_state(a.state()).unwrap();
            want.merge(PartCounts::from_state(b.state()).unwrap());
            let mut got = a;
            got.merge_state(b.state()).unwrap();
            // Per part: its keys with counts (sorted), total and sample level.
            type Table = (usize, Vec<(Vec<u8>, u64)>, u64, u32);
            let tables = |c: &PartCounts| -> Vec<Table> {
                let mut t: Vec<_> = c
                    .owned
                    .iter()
                    .zip(&c.tables)
                    .map(|(&p, t)| {
                        let mut keys: Vec<(Vec<u8>, u64)> =
                            t.iter().map(|(k, n)| (k.to_vec(), n)).collect();
                        keys.sort_unstable();
                        (p, keys, t.total(), t.state().level)
                    })
                    .collect();
                t.sort_unstable();
                t
            };
            assert_eq!(tables(&got), tables(&want), "part limit {part_limit}");
            assert_eq!(tables(&got).len(), 4);
            // Another split of the key space is refused.
            let other = PartCounts::new(KeyParts::for_limit(1 << 20), [0]);
            assert!(got.merge_state(other.state()).is_err());
        }
    }

    #[test]
    fn parts_count_their_own_keys_and_join_by_key() {
        // Two workers, each counting one of two parts, as the replay splits them.
        let parts = KeyParts {
            count: 2,
            part_limit: 100,
            limit: 100,
        };
        let keys = [&b"x"[..], b"y", b"x", b"z", b"x", b"w"];
        let mut workers = [PartCounts::new(parts, [0]), PartCounts::new(parts, [1])];
        workers.iter_mut().for_each(|w| w.add_each(keys));
        let mut split: Vec<(usize, KeyCounts)> = workers
            .into_iter()
            .flat_map(PartCounts::into_parts)
            .collect();
        split.sort_by_key(|(part, _)| *part);
        assert_eq!(split.iter().map(|(_, k)| k.total()).sum::<u64>(), 6);
        let m = KeyCounts::join(split.into_iter().map(|(_, k)| k).collect(), parts.limit);
        assert_eq!(m.len(), 4);
        assert_eq!(m.count(b"x"), 3);
        assert_eq!(m.total(), 6);
        assert!(m.is_exact());
        assert_eq!(
            m.sorted()
                .iter()
                .map(|(k, _)| k.to_vec())
                .collect::<Vec<_>>(),
            [b"w".to_vec(), b"x".to_vec(), b"y".to_vec(), b"z".to_vec()]
        );
        assert_eq!(m.hottest().unwrap().key, b"x");
    }

    #[test]
    fn the_learning_half_is_the_table_of_the_keys_not_held_out() {
        // One table (exact, then sampling) and four exact parts kept apart; the half made
        // before and after the keys were sorted; keys of 8 bytes and of other lengths.
        let names: Vec<Vec<u8>> = (0..3000u64)
            .map(|i| match i % 3 {
                0 => (i * 977).to_be_bytes().to_vec(),
                1 => i.to_string().into_bytes(),
                _ => format!("a-longer-key-{i}").into_bytes(),
            })
            .collect();
        let keys: Vec<&[u8]> = (0..9000).map(|i| &names[(i * i) % 3000][..]).collect();
        let parts = |limit| {
            let parts = KeyParts {
                count: 4,
                part_limit: 1000,
                limit,
            };
            let mut counts = PartCounts::new(parts, 0..4);
            counts.add_each(keys.iter().copied());
            let split = counts.into_parts().map(|(_, k)| k).collect();
            KeyCounts::join(split, limit)
        };
        let one = |limit| {
            let mut counts = KeyCounts::with_limit(limit);
            keys.iter().for_each(|k| counts.add(k, 1));
            counts
        };
        for (counts, sort_first) in [
            (one(1 << 20), false),
            (one(1 << 20), true),
            (one(500), false),
            (parts(5000), false),
            (parts(5000), true),
        ] {
            assert!(counts.tables.len() > 1 || counts.limit != 5000);
            if sort_first {
                counts.sorted();
            }
            let mut expected = KeyCounts::with_limit(counts.len().max(1));
            for (key, n) in counts.iter().filter(|(k, _)| !held_out(k)) {
                expected.add(key, n);
            }
            let half = counts.learning_half();
            assert!(std::ptr::eq(half, counts.learning_half()), "made once");
            assert!(half.is_exact());
            assert_eq!(half.sorted(), expected.sorted());
            assert_eq!(
                (half.len(), half.total(), half.held_total(), half.hottest()),
                (
                    expected.len(),
                    expected.total(),
                    expected.held_total(),
                    expected.hottest()
                )
            );
            assert!(half.len() > counts.len() / 3 && half.len() < 2 * counts.len() / 3);
        }
    }

    #[test]
    fn a_large_table_read_in_parallel_pieces_gives_every_key_once() {
        // 100,000 keys: a table of more slots than one piece holds.
        let mut counts = KeyCounts::new();
        for i in 0..100_000u64 {
            counts.add(&(i * 7).to_be_bytes(), 1 + i % 5);
        }
        assert!(counts.tables[0].slot_count() > 1 << 16);
        let mut read: Vec<(&[u8], u64)> = counts.par_iter().collect();
        read.sort_unstable();
        assert_eq!(read.len(), 100_000);
        assert_eq!(read, counts.sorted());
        let sum: u64 = counts.par_iter().map(|(_, c)| c).sum();
        assert_eq!(sum, counts.total());
    }

    #[test]
    fn exact_parts_kept_apart_answer_as_the_one_table_join() {
        // Four parts; the limit fits every key (kept apart) or not (joined into one table,
        // which samples); keys of 8 bytes, shorter and longer; ties for the hottest key.
        let names: Vec<Vec<u8>> = (0..2000u64)
            .map(|i| match i % 3 {
                0 => i.to_be_bytes().to_vec(),
                1 => i.to_string().into_bytes(),
                _ => format!("a-longer-key-{i}").into_bytes(),
            })
            .collect();
        let keys: Vec<&[u8]> = (0..7000).map(|i| &names[(i * 7) % 2000][..]).collect();
        for limit in [2000, 5000, 1999, 700] {
            let parts = KeyParts {
                count: 4,
                part_limit: 1000,
                limit,
            };
            let mut counts = PartCounts::new(parts, 0..4);
            counts.add_each(keys.iter().copied());
            let split = || -> Vec<KeyCounts> {
                counts
                    .tables
                    .iter()
                    .cloned()
                    .map(KeyCounts::of_table)
                    .collect()
            };
            let kept = KeyCounts::join(split(), limit);
            assert_eq!(kept.tables.len() > 1, limit >= 2000, "limit {limit}");
            let one = KeyCounts::of_table(KeyTable::join(
                split().into_iter().flat_map(|k| k.tables).collect(),
                limit,
            ));
            assert_eq!(one.tables.len(), 1);
            let answers = |k: &KeyCounts| {
                (
                    (
                        k.len(),
                        k.is_empty(),
                        k.total(),
                        k.held_total(),
                        k.is_exact(),
                    ),
                    (
                        k.sample_rate(),
                        k.distinct(),
                        k.hottest(),
                        k.effective_keys(),
                    ),
                    (k.count(b"7"), k.count(&names[9]), k.count(b"absent")),
                    k.sorted()
                        .iter()
                        .map(|&(key, n)| (key.to_vec(), n))
                        .collect::<Vec<_>>(),
                )
            };
            assert_eq!(answers(&kept), answers(&one), "limit {limit}");
            let mut entries: Vec<(&[u8], u64)> = kept.par_iter().collect();
            entries.sort_unstable();
            assert_eq!(entries, kept.sorted());
            // Counting on after the join counts as the one table does.
            let (mut kept, mut one) = (kept, one);
            for k in [&b"7"[..], b"new", &names[5]] {
                kept.add(k, 3);
                one.add(k, 3);
            }
            assert_eq!(kept.tables.len(), 1);
            assert_eq!(answers(&kept), answers(&one), "limit {limit}, after adding");
        }
    }

    #[test]
    fn halves_counted_bucket_by_bucket_on_different_machines_merge_into_the_whole() {
        // Past the limit (a hash sample), in two parts; each half's part 0 and part 1 are
        // counted apart, written out and read back, then merged in any order.
        let parts = KeyParts {
            count: 2,
            part_limit: 300,
            limit: 500,
        };
        let keys: Vec<[u8; 8]> = (0..6000u64)
            .map(|i| ((i * i) % 2500).to_be_bytes())
            .collect();
        let keys: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
        let mut whole = PartCounts::new(parts, [0, 1]);
        whole.add_each(keys.iter().copied());
        let join = |p: PartCounts| {
            let mut v: Vec<(usize, KeyCounts)> = p.into_parts().collect();
            v.sort_by_key(|(part, _)| *part);
            KeyCounts::join(v.into_iter().map(|(_, k)| k).collect(), parts.limit)
        };
        // Each part's table held on its own: each sample level is its part's, so a table
        // read back into the wrong part would sample differently.
        /// Each part number with its keys and counts, in order.
        type Tables = Vec<(usize, Vec<(Vec<u8>, u64)>)>;
        let tables = |p: &PartCounts| -> Tables {
            let mut v: Vec<_> = p
                .owned
                .iter()
                .zip(&p.tables)
                .map(|(&part, t)| {
                    let mut keys: Vec<_> = t.iter().map(|(k, n)| (k.to_vec(), n)).collect();
                    keys.sort();
                    (part, keys)
                })
                .collect();
            v.sort();
            v
        };
        let whole_tables = tables(&whole);
        let whole = join(whole);
        assert!(!whole.is_exact());
        // Each half counted part by part, or both parts at once.
        for owned in [vec![vec![1], vec![0]], vec![vec![0, 1]]] {
            // The first one read back is the one the others merge into (as `shardlab
            // merge` does).
            let mut merged: Option<PartCounts> = None;
            for half in keys.chunks(3500).rev() {
                for counted in &owned {
                    let mut one = PartCounts::new(parts, counted.iter().copied());
                    one.add_each(half.iter().copied());
                    let text = serde_json::to_string(&one.state()).unwrap();
                    let read = PartCounts::from_state(serde_json::from_str(&text).unwrap());
                    match merged.as_mut() {
                        None => merged = Some(read.unwrap()),
                        Some(m) => m.merge(read.unwrap()),
                    }
                }
            }
            let merged = merged.unwrap();
            assert_eq!(tables(&merged), whole_tables, "{owned:?}");
            let merged = join(merged);
            assert_eq!(merged.sorted(), whole.sorted());
            assert_eq!(
                (merged.total(), merged.held_total()),
                (6000, whole.held_total())
            );
            assert_eq!(merged.distinct(), whole.distinct());
        }
        let twice = PartCountsState {
            parts,
            counted: vec![(1, KeyTable::with_limit(9).state()); 2],
        };
        assert!(PartCounts::from_state(twice).is_err());
    }

    #[test]
    fn keys_are_sorted_by_their_bytes_once_and_again_after_an_add() {
        // Against a plain sort of the byte strings: 8-byte keys (sorted as integers, whose
        // order must be the bytes' order, high bit included) and keys of mixed lengths.
        let wide: Vec<Vec<u8>> = (0..5000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15).to_be_bytes().to_vec())
            .collect();
        let mixed: Vec<Vec<u8>> = (0..5000u64)
            .map(|i| i.to_string().into_bytes())
            .chain([vec![], vec![0xff; 9], vec![0; 8]])
            .collect();
        for keys in [wide, mixed] {
            let mut counts = KeyCounts::new();
            for (i, k) in keys.iter().enumerate() {
                counts.add(k, 1 + i as u64 % 3);
            }
            let mut want: Vec<(&[u8], u64)> = counts.iter().collect();
            // In parallel, from the table before any sort and from the sorted copy after.
            let par = |counts: &KeyCounts| -> Vec<(Vec<u8>, u64)> {
                let mut v: Vec<_> = counts.par_iter().map(|(k, c)| (k.to_vec(), c)).collect();
                v.sort();
                v
            };
            let owned = |v: &[(&[u8], u64)]| -> Vec<(Vec<u8>, u64)> {
                let mut v: Vec<_> = v.iter().map(|&(k, c)| (k.to_vec(), c)).collect();
                v.sort();
                v
            };
            assert_eq!(par(&counts), owned(&want), "before any sort");
            want.sort();
            assert_eq!(counts.sorted(), want);
            assert_eq!(counts.sorted(), want, "the second call reuses the order");
            assert_eq!(par(&counts), owned(&want), "from the sorted copy");
            counts.add(b"\x00new", 4);
            let mut want: Vec<(Vec<u8>, u64)> =
                counts.iter().map(|(k, c)| (k.to_vec(), c)).collect();
            want.sort();
            let got: Vec<(Vec<u8>, u64)> = counts
                .sorted()
                .into_iter()
                .map(|(k, c)| (k.to_vec(), c))
                .collect();
            assert_eq!(got, want, "an added key is in the order");
        }
    }

    #[test]
    fn part_counts_are_powers_of_two_up_to_sixteen() {
        let counts: Vec<usize> = [0, 65_535, 65_536, 200_000, 300_000, 10_000_000]
            .into_iter()
            .map(|limit| KeyParts::for_limit(limit).count)
            .collect();
        assert_eq!(counts, [1, 1, 1, 2, 4, 16]);
    }

    #[test]
    fn past_the_limit_counts_are_sampled_and_the_total_stays_exact() {
        let mut a = KeyCounts::with_limit(1000);
        for i in 0..10_000u64 {
            a.add(&i.to_be_bytes(), 1 + i % 2);
        }
        assert!(!a.is_exact() && a.len() <= 1000);
        assert_eq!(a.total(), 15_000);
        assert!(a.held_total() < 15_000);
        let d = a.distinct();
        assert!(d.ci_low <= 10_000.0 && d.ci_high >= 10_000.0, "{d:?}");
        // Counts 1 and 2 in about equal numbers: (1.5 n)^2 / (2.5 n) = 0.9 n.
        let ratio = a.effective_keys() / a.len() as f64;
        assert!((ratio - 0.9).abs() < 0.02, "{ratio}");
    }
}
