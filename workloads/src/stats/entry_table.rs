//! The open-addressing table behind [`super::KeyTable`]: 16-byte entries, linear probing.
//!
//! Why not `hashbrown` (used before): its control bytes live apart from its entries, so a
//! lookup in a table larger than the caches pays two memory misses (control group, then
//! entry), and the profile of a replay showed the key table at 60% of the time, stalled on
//! exactly those two loads. Here a key's home slot holds its entry, four to a cache line, so
//! a lookup usually costs one miss; and the slots of the next keys can be prefetched ahead of
//! their updates ([`EntryTable::prefetch_home`]), which lets the processor overlap the misses.
//! The load factor stays at most 3/4, as dense as `hashbrown`'s 7/8 in bytes per key.

/// One key and its count, in 16 bytes. A key of up to 8 bytes (every integer key) is stored
/// in the entry; a longer key is stored in the caller's arena (a 4-byte length, then its
/// bytes) and the entry holds its offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    /// The key's bytes, zero-padded, or the little-endian arena offset of a longer key.
    pub(super) word: [u8; 8],
    /// The count in the low 56 bits; the key length (0..=8, or [`LONG`]) in the high 8, or
    /// [`VACANT`] for an empty slot.
    pub(super) meta: u64,
}

/// The length field of a key longer than 8 bytes.
pub(super) const LONG: u64 = 0xff;
/// Bits of `meta` holding the count.
pub(super) const COUNT_MASK: u64 = (1 << 56) - 1;
/// `meta` of an empty slot (a length field no key has).
const VACANT: u64 = 0xfe << 56;

impl Entry {
    /// The entry of an empty slot.
    const EMPTY: Entry = Entry {
        word: [0; 8],
        meta: VACANT,
    };

    /// The key length field: 0..=8, or [`LONG`].
    #[inline]
    pub(super) fn len_field(&self) -> u64 {
        self.meta >> 56
    }

    /// The count.
    #[inline]
    pub(super) fn count(&self) -> u64 {
        self.meta & COUNT_MASK
    }

    /// Adds `n` to the count, saturating at 2^56 - 1.
    #[inline]
    pub(super) fn add(&mut self, n: u64) {
        let count = self.count().saturating_add(n).min(COUNT_MASK);
        self.meta = (self.meta & !COUNT_MASK) | count;
    }

    /// True for an empty slot.
    #[inline]
    fn is_vacant(&self) -> bool {
        self.meta == VACANT
    }
}

/// Slots of [`Entry`], a power of two of them, found by linear probing from a key's hash.
#[derive(Clone, Debug)]
pub(super) struct EntryTable {
    slots: Vec<Entry>,
    len: usize,
}

/// The fewest slots of a table that holds anything.
const MIN_SLOTS: usize = 16;

impl EntryTable {
    /// An empty table (allocates on the first insert).
    pub(super) fn new() -> Self {
        EntryTable {
            slots: Vec::new(),
            len: 0,
        }
    }

    /// An empty table with room for `n` entries before it grows.
    pub(super) fn with_capacity(n: usize) -> Self {
        let mut size = MIN_SLOTS;
        while n * 4 > size * 3 {
            size *= 2;
        }
        EntryTable {
            slots: vec![Entry::EMPTY; size],
            len: 0,
        }
    }

    /// Number of entries.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// True when there is no entry.
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The slot a key of this hash is looked for first.
    #[inline]
    fn home(&self, hash: u64) -> usize {
        hash as usize & (self.slots.len().wrapping_sub(1))
    }

    /// Starts loading the home slot of `hash` into the cache: a hint issued some keys ahead
    /// of the key's update, so that the cache misses of several keys overlap.
    #[inline(always)]
    pub(super) fn prefetch_home(&self, hash: u64) {
        if let Some(slot) = self.slots.get(self.home(hash)) {
            crate::prefetch::prefetch(slot);
        }
    }

    /// The slot holding the entry that `eq` accepts, or `Err` with the empty slot where it
    /// would go (`Err(None)` when the table has no slots yet).
    #[inline(always)]
    pub(super) fn find(
        &self,
        hash: u64,
        mut eq: impl FnMut(&Entry) -> bool,
    ) -> Result<usize, Option<usize>> {
        if self.slots.is_empty() {
            return Err(None);
        }
        let mask = self.slots.len() - 1;
        let mut at = self.home(hash);
        loop {
            let e = &self.slots[at];
            if e.is_vacant() {
                return Err(Some(at));
            }
            if eq(e) {
                return Ok(at);
            }
            at = (at + 1) & mask;
        }
    }

    /// The entry in slot `at`.
    #[inline]
    pub(super) fn slot(&self, at: usize) -> &Entry {
        &self.slots[at]
    }

    /// The entry in slot `at`, to change its count.
    #[inline]
    pub(super) fn slot_mut(&mut self, at: usize) -> &mut Entry {
        &mut self.slots[at]
    }

    /// Inserts an entry for a key not in the table. `vacant` is the slot [`EntryTable::find`]
    /// returned for its `hash`; `rehash` gives the hash of any entry, for growing.
    pub(super) fn insert(
        &mut self,
        hash: u64,
        vacant: Option<usize>,
        entry: Entry,
        rehash: impl Fn(&Entry) -> u64,
    ) {
        // At most 3/4 full, so that a probe meets an empty slot within a few entries.
        let at = match vacant {
            Some(at) if (self.len + 1) * 4 <= self.slots.len() * 3 => at,
            _ => {
                self.grow(&rehash);
                self.vacant_slot(hash)
            }
        };
        self.slots[at] = entry;
        self.len += 1;
    }

    /// The first empty slot from the home slot of `hash` on.
    fn vacant_slot(&self, hash: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut at = self.home(hash);
        while !self.slots[at].is_vacant() {
            at = (at + 1) & mask;
        }
        at
    }

    /// Doubles the slots (or makes the first ones) and puts every entry back.
    fn grow(&mut self, rehash: &impl Fn(&Entry) -> u64) {
        let size = (self.slots.len() * 2).max(MIN_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![Entry::EMPTY; size]);
        for e in old.into_iter().filter(|e| !e.is_vacant()) {
            let at = self.vacant_slot(rehash(&e));
            self.slots[at] = e;
        }
    }

    /// Keeps the entries `keep` accepts, in place.
    ///
    /// Removing entries leaves holes inside probe runs, so the survivors are then put back
    /// one run at a time: scanning from a slot that was empty before (no run crosses it),
    /// each entry is lifted and put in the first empty slot from its home, which is at or
    /// before where it was.
    pub(super) fn retain(
        &mut self,
        mut keep: impl FnMut(&Entry) -> bool,
        rehash: impl Fn(&Entry) -> u64,
    ) {
        let Some(start) = self.slots.iter().position(Entry::is_vacant) else {
            return;
        };
        for e in self.slots.iter_mut().filter(|e| !e.is_vacant()) {
            if !keep(&*e) {
                *e = Entry::EMPTY;
                self.len -= 1;
            }
        }
        let mask = self.slots.len() - 1;
        for step in 1..self.slots.len() {
            let at = (start + step) & mask;
            let e = std::mem::replace(&mut self.slots[at], Entry::EMPTY);
            if !e.is_vacant() {
                let to = self.vacant_slot(rehash(&e));
                self.slots[to] = e;
            }
        }
    }

    /// Every entry, in slot order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Entry> + '_ {
        self.slots.iter().filter(|e| !e.is_vacant())
    }

    /// The number of slots (held entries and vacant ones).
    pub(super) fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// The entries of slots `range` (clamped to the slots), in slot order.
    pub(super) fn iter_slots(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = &Entry> {
        let end = range.end.min(self.slots.len());
        self.slots[range.start.min(end)..end]
            .iter()
            .filter(|e| !e.is_vacant())
    }

    /// Every entry, in slot order, to change where a long key's bytes are (not its hash).
    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = &mut Entry> + '_ {
        self.slots.iter_mut().filter(|e| !e.is_vacant())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// A deliberately poor hash (many collisions, long runs that wrap around).
    fn hash_of(e: &Entry) -> u64 {
        u64::from_le_bytes(e.word) % 7 + 13
    }

    fn entry(k: u64, n: u64) -> Entry {
        Entry {
            word: k.to_le_bytes(),
            meta: (8 << 56) | n,
        }
    }

    fn check(t: &EntryTable, model: &HashMap<u64, u64>) -> Result<(), TestCaseError> {
        prop_assert_eq!(t.len(), model.len());
        prop_assert_eq!(t.iter().count(), model.len());
        for (&k, &n) in model {
            let probe = entry(k, 0);
            let at = t.find(hash_of(&probe), |e| e.word == probe.word);
            prop_assert!(at.is_ok(), "key {} lost", k);
            prop_assert_eq!(t.slots[at.unwrap()].count(), n);
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn inserts_updates_and_removals_match_a_map(
            ops in proptest::collection::vec((0u64..200, 1u64..5), 0..600),
            drop_every in 2u64..5,
        ) {
            let mut t = EntryTable::new();
            let mut model: HashMap<u64, u64> = HashMap::new();
            for (i, &(k, n)) in ops.iter().enumerate() {
                let probe = entry(k, n);
                match t.find(hash_of(&probe), |e| e.word == probe.word) {
                    Ok(at) => t.slot_mut(at).add(n),
                    Err(vacant) => t.insert(hash_of(&probe), vacant, probe, hash_of),
                }
                *model.entry(k).or_default() += n;
                if i % 97 == 96 {
                    t.retain(|e| u64::from_le_bytes(e.word) % drop_every != 0, hash_of);
                    model.retain(|k, _| k % drop_every != 0);
                }
                check(&t, &model)?;
            }
            prop_assert!(t.len() * 4 <= t.slots.len() * 3 || t.slots.is_empty());
        }
    }
}
