//! Distinct keys and their request counts, mergeable across chunks.

use std::collections::HashMap;
use xxhash_rust::xxh3::Xxh3DefaultBuilder;

/// Distinct keys with the number of point requests each received.
#[derive(Clone, Debug, Default)]
pub struct KeyCounts {
    map: HashMap<Box<[u8]>, u64, Xxh3DefaultBuilder>,
}

impl KeyCounts {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts `n` more requests for `key`.
    #[inline]
    pub fn add(&mut self, key: &[u8], n: u64) {
        if let Some(c) = self.map.get_mut(key) {
            *c += n;
        } else {
            self.map.insert(key.into(), n);
        }
    }

    /// Adds every count of `other` (the larger table absorbs the smaller).
    pub fn merge(mut self, mut other: KeyCounts) -> KeyCounts {
        if other.map.len() > self.map.len() {
            std::mem::swap(&mut self, &mut other);
        }
        for (k, n) in other.map {
            *self.map.entry(k).or_insert(0) += n;
        }
        self
    }

    /// Number of distinct keys.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when no key was counted.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Sum of all counts.
    pub fn total(&self) -> u64 {
        self.map.values().sum()
    }

    /// The count of one key (0 when unseen).
    pub fn count(&self, key: &[u8]) -> u64 {
        self.map.get(key).copied().unwrap_or(0)
    }

    /// The keys and counts in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], u64)> + '_ {
        self.map.iter().map(|(k, &n)| (&**k, n))
    }

    /// The keys and counts sorted by key (deterministic order for reports and parallel work).
    pub fn sorted(&self) -> Vec<(&[u8], u64)> {
        let mut v: Vec<(&[u8], u64)> = self.iter().collect();
        v.sort_unstable_by(|a, b| a.0.cmp(b.0));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_merge_by_key() {
        let mut a = KeyCounts::new();
        a.add(b"x", 2);
        a.add(b"y", 1);
        let mut b = KeyCounts::new();
        b.add(b"x", 3);
        b.add(b"z", 4);
        let m = a.merge(b);
        assert_eq!(m.len(), 3);
        assert_eq!(m.count(b"x"), 5);
        assert_eq!(m.total(), 10);
        assert_eq!(m.sorted().iter().map(|(k, _)| k.to_vec()).collect::<Vec<_>>(), [b"x".to_vec(), b"y".to_vec(), b"z".to_vec()]);
    }
}
