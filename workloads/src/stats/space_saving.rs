//! The space-saving sketch (Metwally, Agrawal and El Abbadi, 2005): the most frequent keys of
//! a stream in bounded memory.
//!
//! It keeps `capacity` counters. A counted key adds to its counter; a new key, when every
//! counter is taken, replaces the key with the smallest count and inherits that count as its
//! possible error. For every key kept, `count - error <= true count <= count`; every key whose
//! true count exceeds (total / capacity) is kept. Updates are O(log capacity) (a min-heap of
//! counters plus a hash index) and allocate only when a longer key arrives.

use hashbrown::HashTable;
use xxhash_rust::xxh3::xxh3_64;

/// One kept key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeavyHitter {
    /// The key.
    pub key: Vec<u8>,
    /// Its estimated count, an upper bound.
    pub count: u64,
    /// How much of `count` may belong to keys it replaced: `count - error` is a lower bound.
    pub error: u64,
}

#[derive(Clone, Debug)]
struct Slot {
    key: Vec<u8>,
    count: u64,
    error: u64,
    /// Position in the heap.
    pos: usize,
}

/// A sketch as plain data ([`SpaceSaving::state`]), for partial results.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SpaceSavingState {
    /// The number of counters.
    pub capacity: usize,
    /// The sum of every count added.
    pub total: u64,
    /// `(key, count, error)` per counter.
    pub counters: Vec<(Vec<u8>, u64, u64)>,
}

/// A space-saving sketch with a fixed number of counters.
#[derive(Clone, Debug)]
pub struct SpaceSaving {
    capacity: usize,
    slots: Vec<Slot>,
    /// Slot ids, a min-heap by count.
    heap: Vec<usize>,
    /// Slot ids, by the hash of their key.
    index: HashTable<usize>,
    total: u64,
}

impl SpaceSaving {
    /// A sketch of `capacity` counters (at least 1).
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        SpaceSaving {
            capacity,
            slots: Vec::new(),
            heap: Vec::new(),
            index: HashTable::new(),
            total: 0,
        }
    }

    /// The number of counters.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The sum of every count added.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Counts `n` more occurrences of `key`.
    pub fn add(&mut self, key: &[u8], n: u64) {
        self.total += n;
        let hash = xxh3_64(key);
        let slots = &self.slots;
        if let Some(&id) = self.index.find(hash, |&id| slots[id].key == key) {
            self.slots[id].count += n;
            self.sift_down(self.slots[id].pos);
            return;
        }
        if self.slots.len() < self.capacity {
            let id = self.slots.len();
            self.slots.push(Slot {
                key: key.to_vec(),
                count: n,
                error: 0,
                pos: self.heap.len(),
            });
            self.heap.push(id);
            let slots = &self.slots;
            self.index
                .insert_unique(hash, id, |&i| xxh3_64(&slots[i].key));
            self.sift_up(self.slots[id].pos);
            return;
        }
        let id = self.heap[0];
        let old_hash = xxh3_64(&self.slots[id].key);
        if let Ok(entry) = self.index.find_entry(old_hash, |&i| i == id) {
            entry.remove();
        }
        let floor = self.slots[id].count;
        let slot = &mut self.slots[id];
        slot.key.clear();
        slot.key.extend_from_slice(key);
        slot.count = floor + n;
        slot.error = floor;
        let slots = &self.slots;
        self.index
            .insert_unique(hash, id, |&i| xxh3_64(&slots[i].key));
        self.sift_down(0);
    }

    /// Adds `other` to this sketch (Agarwal et al.'s merge of mergeable summaries): a key
    /// missing from a full sketch may have had up to that sketch's smallest count, so it is
    /// credited with it (as count and as error); the `capacity` largest counters are kept.
    /// The bounds of [`HeavyHitter`] stay valid for the merged stream.
    pub fn merge(&mut self, other: &SpaceSaving) {
        let (floor_self, floor_other) = (self.max_error(), other.max_error());
        let mut merged: Vec<Slot> = Vec::with_capacity(self.slots.len() + other.slots.len());
        for slot in &self.slots {
            let (count, error) = match other.find(&slot.key) {
                Some(o) => (o.count, o.error),
                None => (floor_other, floor_other),
            };
            merged.push(Slot {
                key: slot.key.clone(),
                count: slot.count + count,
                error: slot.error + error,
                pos: 0,
            });
        }
        for slot in &other.slots {
            if self.find(&slot.key).is_none() {
                merged.push(Slot {
                    key: slot.key.clone(),
                    count: slot.count + floor_self,
                    error: slot.error + floor_self,
                    pos: 0,
                });
            }
        }
        merged.sort_unstable_by(|a, b| b.count.cmp(&a.count).then_with(|| a.key.cmp(&b.key)));
        merged.truncate(self.capacity);
        *self = SpaceSaving::of_slots(self.capacity, self.total + other.total, merged);
    }

    /// A sketch of `capacity` counters holding `slots` (at most `capacity`) and `total`.
    fn of_slots(capacity: usize, total: u64, slots: Vec<Slot>) -> SpaceSaving {
        let mut sketch = SpaceSaving::new(capacity);
        for (id, mut slot) in slots.into_iter().enumerate() {
            slot.pos = id;
            let hash = xxh3_64(&slot.key);
            sketch.slots.push(slot);
            sketch.heap.push(id);
            let slots = &sketch.slots;
            sketch
                .index
                .insert_unique(hash, id, |&i| xxh3_64(&slots[i].key));
        }
        for pos in (0..sketch.heap.len() / 2).rev() {
            sketch.sift_down(pos);
        }
        sketch.total = total;
        sketch
    }

    /// The counters as plain data, `(key, count, error)` in slot order, with the capacity and
    /// the total: [`SpaceSaving::from_state`] rebuilds the same counters.
    pub fn state(&self) -> SpaceSavingState {
        SpaceSavingState {
            capacity: self.capacity,
            total: self.total,
            counters: self
                .slots
                .iter()
                .map(|s| (s.key.clone(), s.count, s.error))
                .collect(),
        }
    }

    /// The sketch [`SpaceSaving::state`] described.
    pub fn from_state(state: SpaceSavingState) -> SpaceSaving {
        let slots = state
            .counters
            .into_iter()
            .take(state.capacity.max(1))
            .map(|(key, count, error)| Slot {
                key,
                count,
                error,
                pos: 0,
            })
            .collect();
        SpaceSaving::of_slots(state.capacity, state.total, slots)
    }

    fn find(&self, key: &[u8]) -> Option<&Slot> {
        self.index
            .find(xxh3_64(key), |&id| self.slots[id].key == key)
            .map(|&id| &self.slots[id])
    }

    /// The `n` keys with the largest counts, largest first (ties by key).
    pub fn top(&self, n: usize) -> Vec<HeavyHitter> {
        let mut all: Vec<&Slot> = self.slots.iter().collect();
        all.sort_unstable_by(|a, b| b.count.cmp(&a.count).then_with(|| a.key.cmp(&b.key)));
        all.into_iter()
            .take(n)
            .map(|s| HeavyHitter {
                key: s.key.clone(),
                count: s.count,
                error: s.error,
            })
            .collect()
    }

    /// The largest possible error of any count: the smallest counter when the sketch is full,
    /// 0 while every key seen still has its own counter.
    pub fn max_error(&self) -> u64 {
        if self.slots.len() < self.capacity {
            0
        } else {
            self.heap.first().map_or(0, |&id| self.slots[id].count)
        }
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.slots[self.heap[a]].pos = a;
        self.slots[self.heap[b]].pos = b;
    }

    fn count_at(&self, pos: usize) -> u64 {
        self.slots[self.heap[pos]].count
    }

    fn sift_up(&mut self, mut pos: usize) {
        while pos > 0 {
            let parent = (pos - 1) / 2;
            if self.count_at(parent) <= self.count_at(pos) {
                break;
            }
            self.swap(parent, pos);
            pos = parent;
        }
    }

    fn sift_down(&mut self, mut pos: usize) {
        loop {
            let (l, r) = (2 * pos + 1, 2 * pos + 2);
            let mut least = pos;
            if l < self.heap.len() && self.count_at(l) < self.count_at(least) {
                least = l;
            }
            if r < self.heap.len() && self.count_at(r) < self.count_at(least) {
                least = r;
            }
            if least == pos {
                return;
            }
            self.swap(pos, least);
            pos = least;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    #[test]
    fn with_room_for_every_key_the_counts_are_exact() {
        let mut s = SpaceSaving::new(10);
        for (k, n) in [(b"a", 3), (b"b", 1), (b"a", 2), (b"c", 7)] {
            s.add(k, n);
        }
        let top = s.top(2);
        assert_eq!(
            top[0],
            HeavyHitter {
                key: b"c".to_vec(),
                count: 7,
                error: 0
            }
        );
        assert_eq!(
            top[1],
            HeavyHitter {
                key: b"a".to_vec(),
                count: 5,
                error: 0
            }
        );
        assert_eq!(s.max_error(), 0);
        assert_eq!(s.total(), 13);
    }

    #[test]
    fn the_heavy_keys_of_a_skewed_stream_are_found() {
        let mut s = SpaceSaving::new(50);
        let mut sevens = 0;
        for i in 0..100_000u64 {
            let key = if i % 3 == 0 {
                7
            } else if i % 5 == 0 {
                8
            } else {
                i + 1000
            };
            sevens += u64::from(key == 7);
            s.add(&key.to_be_bytes(), 1);
        }
        assert_eq!(sevens, 33_334);
        let top = s.top(2);
        assert_eq!(top[0].key, 7u64.to_be_bytes());
        assert_eq!(top[1].key, 8u64.to_be_bytes());
        assert!(top[0].count - top[0].error <= 33_334 && top[0].count >= 33_334);
    }

    proptest! {
        #[test]
        fn kept_counts_bound_the_true_counts(keys in proptest::collection::vec(0u8..40, 1..400), cap in 1usize..20, split in 0usize..400) {
            let mut whole = SpaceSaving::new(cap);
            let (mut a, mut b) = (SpaceSaving::new(cap), SpaceSaving::new(cap));
            let mut truth: HashMap<u8, u64> = HashMap::new();
            for (i, k) in keys.iter().enumerate() {
                whole.add(&[*k], 1);
                if i < split { a.add(&[*k], 1) } else { b.add(&[*k], 1) }
                *truth.entry(*k).or_default() += 1;
            }
            a.merge(&b);
            for sketch in [&whole, &a] {
                prop_assert_eq!(sketch.total(), keys.len() as u64);
                for h in sketch.top(cap) {
                    let t = truth[&h.key[0]];
                    prop_assert!(h.count >= t && h.count - h.error <= t, "{:?} true {}", h, t);
                }
                // Every key above total/capacity is kept.
                for (k, t) in &truth {
                    if *t > keys.len() as u64 / cap as u64 {
                        prop_assert!(sketch.top(cap).iter().any(|h| h.key == [*k]));
                    }
                }
            }
        }
    }
}
