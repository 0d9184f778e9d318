//! The range map of a dynamic cluster: start key -> (end, owner node, generation, payload).
//!
//! Ranges are half-open `[start, end)` and always tile the key space: the first start is the
//! empty key, every end is the next range's start and the last end is +infinity, so every key
//! is in exactly one range. Only [`RangeMap::split`] and [`RangeMap::merge`] change boundaries,
//! both keep the tiling and both bump the generation of every range they touch (a router that
//! cached a descriptor can tell it is stale). [`RangeMap::check`] verifies the invariants.
//!
//! ```
//! use schemes::range_dynamic::RangeMap;
//! let mut map = RangeMap::new(0, ());
//! map.split(b"m", ()).unwrap();
//! assert_eq!(map.lookup(b"k").0, b"");
//! assert_eq!(map.lookup(b"x").0, b"m");
//! map.merge(b"").unwrap();
//! assert_eq!(map.len(), 1);
//! assert!(map.check().is_ok());
//! ```

use std::collections::BTreeMap;
use std::ops::Bound::{Included, Unbounded};

/// One range `[start, end)`; its start is the map key.
#[derive(Clone, Debug, PartialEq)]
pub struct RangeEntry<T> {
    end: Option<Vec<u8>>,
    owner: u32,
    generation: u64,
    /// Whatever the user of the map keeps per range.
    pub data: T,
}

impl<T> RangeEntry<T> {
    /// The exclusive end; `None` for the last range (+infinity).
    pub fn end(&self) -> Option<&[u8]> {
        self.end.as_deref()
    }

    /// The node that serves the range (its leaseholder).
    pub fn owner(&self) -> u32 {
        self.owner
    }

    /// Starts at 1 and grows on every split or merge that touches the range.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Hands the range to another node (a lease transfer or a move); boundaries stay.
    pub fn set_owner(&mut self, owner: u32) {
        self.owner = owner;
    }
}

/// Why a split or merge was refused (the map is left unchanged).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RangeMapError {
    /// The split key is already the start of a range (the empty key always is).
    #[error("split key {0:?} is already a range boundary")]
    Boundary(Vec<u8>),
    /// No range starts at the given key.
    #[error("no range starts at {0:?}")]
    NoSuchRange(Vec<u8>),
    /// The range is the last one, so it has no right neighbour to merge with.
    #[error("the range starting at {0:?} is the last one and has no right neighbour")]
    NoRightNeighbour(Vec<u8>),
}

/// Ranges that tile the key space, each with an owner, a generation and a payload `T`.
#[derive(Clone, Debug)]
pub struct RangeMap<T> {
    ranges: BTreeMap<Vec<u8>, RangeEntry<T>>,
}

impl<T> RangeMap<T> {
    /// One range covering every key, owned by `owner`, generation 1.
    pub fn new(owner: u32, data: T) -> Self {
        let mut ranges = BTreeMap::new();
        ranges.insert(
            Vec::new(),
            RangeEntry {
                end: None,
                owner,
                generation: 1,
                data,
            },
        );
        RangeMap { ranges }
    }

    /// Number of ranges (at least 1).
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Always false: the map holds at least one range.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The range holding `key`: the one with the greatest start `<= key`.
    pub fn lookup(&self, key: &[u8]) -> (&[u8], &RangeEntry<T>) {
        let (start, entry) = self
            .ranges
            .range::<[u8], _>((Unbounded, Included(key)))
            .next_back()
            .expect("the first range starts at the empty key, which is <= every key");
        (start, entry)
    }

    /// The range holding `key`, mutably.
    pub fn lookup_mut(&mut self, key: &[u8]) -> (&[u8], &mut RangeEntry<T>) {
        let (start, entry) = self
            .ranges
            .range_mut::<[u8], _>((Unbounded, Included(key)))
            .next_back()
            .expect("the first range starts at the empty key, which is <= every key");
        (start, entry)
    }

    /// The range starting exactly at `start`.
    pub fn get(&self, start: &[u8]) -> Option<&RangeEntry<T>> {
        self.ranges.get(start)
    }

    /// The range starting exactly at `start`, mutably (owner and payload only).
    pub fn get_mut(&mut self, start: &[u8]) -> Option<&mut RangeEntry<T>> {
        self.ranges.get_mut(start)
    }

    /// Every range in key order, with its start.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &RangeEntry<T>)> + '_ {
        self.ranges.iter().map(|(s, e)| (s.as_slice(), e))
    }

    /// Every range in key order, mutably (owner and payload only).
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&[u8], &mut RangeEntry<T>)> + '_ {
        self.ranges.iter_mut().map(|(s, e)| (s.as_slice(), e))
    }

    /// The start keys in order.
    pub fn starts(&self) -> Vec<Vec<u8>> {
        self.ranges.keys().cloned().collect()
    }

    /// The ranges a scan of `[start, end)` touches, in key order (`end = None` is unbounded).
    /// A scan whose end is not after its start touches only the range holding `start`.
    pub fn overlapping<'a>(
        &'a self,
        start: &[u8],
        end: Option<&'a [u8]>,
    ) -> impl Iterator<Item = (&'a [u8], &'a RangeEntry<T>)> + 'a {
        let first = self.lookup(start).0.to_vec();
        self.ranges
            .range::<[u8], _>((Included(first.as_slice()), Unbounded))
            .enumerate()
            .take_while(move |(i, (s, _))| *i == 0 || end.is_none_or(|e| s.as_slice() < e))
            .map(|(_, (s, e))| (s.as_slice(), e))
    }

    /// Like [`RangeMap::overlapping`], mutably (owner and payload only).
    pub fn overlapping_mut<'a>(
        &'a mut self,
        start: &[u8],
        end: Option<&'a [u8]>,
    ) -> impl Iterator<Item = (&'a [u8], &'a mut RangeEntry<T>)> + 'a {
        let first = self.lookup(start).0.to_vec();
        self.ranges
            .range_mut::<[u8], _>((Included(first.as_slice()), Unbounded))
            .enumerate()
            .take_while(move |(i, (s, _))| *i == 0 || end.is_none_or(|e| s.as_slice() < e))
            .map(|(_, (s, e))| (s.as_slice(), e))
    }

    /// Cuts the range holding `at` into `[start, at)` and `[at, end)`. The right part gets the
    /// same owner and the payload `right`; both parts get the parent's generation + 1.
    pub fn split(&mut self, at: &[u8], right: T) -> Result<(), RangeMapError> {
        let (start, parent) = self.lookup_mut(at);
        if start == at {
            return Err(RangeMapError::Boundary(at.to_vec()));
        }
        parent.generation += 1;
        let right_entry = RangeEntry {
            end: parent.end.replace(at.to_vec()),
            owner: parent.owner,
            generation: parent.generation,
            data: right,
        };
        self.ranges.insert(at.to_vec(), right_entry);
        Ok(())
    }

    /// Joins the range starting at `start` with its right neighbour. The merged range keeps
    /// the left payload and owner, gets generation `max(left, right) + 1`, and the right
    /// range's payload is returned for the caller to fold in.
    pub fn merge(&mut self, start: &[u8]) -> Result<T, RangeMapError> {
        let next = match self.ranges.get(start) {
            None => return Err(RangeMapError::NoSuchRange(start.to_vec())),
            Some(left) => match &left.end {
                None => return Err(RangeMapError::NoRightNeighbour(start.to_vec())),
                Some(next) => next.clone(),
            },
        };
        let right = self
            .ranges
            .remove(&next)
            .ok_or_else(|| RangeMapError::NoSuchRange(next.clone()))?;
        let left = self
            .ranges
            .get_mut(start)
            .ok_or_else(|| RangeMapError::NoSuchRange(start.to_vec()))?;
        left.end = right.end;
        left.generation = left.generation.max(right.generation) + 1;
        Ok(right.data)
    }

    /// Verifies the tiling: the first start is the empty key, each end is the next start,
    /// every range is non-empty and the last end is +infinity.
    pub fn check(&self) -> Result<(), String> {
        let mut expected_start: Option<&[u8]> = Some(&[]);
        for (start, entry) in &self.ranges {
            match expected_start {
                Some(s) if s == start.as_slice() => {}
                Some(s) => {
                    return Err(format!(
                        "gap or overlap: a range starts at {start:?}, expected {s:?}"
                    ))
                }
                None => {
                    return Err(format!(
                        "a range starts at {start:?} after the unbounded last range"
                    ))
                }
            }
            if let Some(end) = &entry.end {
                if end <= start {
                    return Err(format!(
                        "range {start:?} ends at {end:?}, not after its start"
                    ));
                }
            }
            expected_start = entry.end.as_deref();
        }
        match expected_start {
            None => Ok(()),
            Some(end) => Err(format!(
                "the last range ends at {end:?} instead of +infinity"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds(map: &RangeMap<u8>) -> Vec<(Vec<u8>, Option<Vec<u8>>, u32)> {
        map.iter()
            .map(|(s, e)| (s.to_vec(), e.end().map(<[u8]>::to_vec), e.owner()))
            .collect()
    }

    #[test]
    fn a_split_cuts_one_range_in_two_and_bumps_both_generations() {
        let mut map = RangeMap::new(3, 0u8);
        map.split(b"m", 1).unwrap();
        assert_eq!(
            bounds(&map),
            vec![(vec![], Some(b"m".to_vec()), 3), (b"m".to_vec(), None, 3)]
        );
        assert_eq!(map.get(b"").unwrap().generation(), 2);
        assert_eq!(map.get(b"m").unwrap().generation(), 2);
        assert_eq!(map.get(b"m").unwrap().data, 1);
        assert_eq!(
            map.split(b"m", 9),
            Err(RangeMapError::Boundary(b"m".to_vec()))
        );
        assert_eq!(map.split(b"", 9), Err(RangeMapError::Boundary(vec![])));
        assert!(map.check().is_ok());
    }

    #[test]
    fn a_merge_joins_a_range_with_its_right_neighbour_and_returns_its_payload() {
        let mut map = RangeMap::new(0, 10u8);
        map.split(b"f", 20).unwrap();
        map.split(b"p", 30).unwrap();
        map.get_mut(b"p").unwrap().set_owner(5);
        assert_eq!(map.merge(b"f"), Ok(30));
        assert_eq!(
            bounds(&map),
            vec![(vec![], Some(b"f".to_vec()), 0), (b"f".to_vec(), None, 0)]
        );
        assert_eq!(map.get(b"f").unwrap().generation(), 4);
        assert_eq!(
            map.merge(b"f"),
            Err(RangeMapError::NoRightNeighbour(b"f".to_vec()))
        );
        assert_eq!(
            map.merge(b"g"),
            Err(RangeMapError::NoSuchRange(b"g".to_vec()))
        );
    }

    #[test]
    fn scans_touch_every_overlapping_range_and_at_least_one() {
        let mut map = RangeMap::new(0, ());
        for k in [b"c", b"f", b"k"] {
            map.split(k, ()).unwrap();
        }
        let touched = |a: &[u8], b: Option<&[u8]>| {
            map.overlapping(a, b)
                .map(|(s, _)| s.to_vec())
                .collect::<Vec<_>>()
        };
        assert_eq!(touched(b"d", Some(b"k")), [b"c".to_vec(), b"f".to_vec()]);
        assert_eq!(
            touched(b"d", Some(b"ka")),
            [b"c".to_vec(), b"f".to_vec(), b"k".to_vec()]
        );
        assert_eq!(touched(b"a", None).len(), 4);
        assert_eq!(touched(b"g", Some(b"a")), [b"f".to_vec()]);
        assert_eq!(touched(b"f", Some(b"f")), [b"f".to_vec()]);
    }

    #[test]
    fn check_reports_a_broken_tiling() {
        let mut map = RangeMap::new(0, ());
        map.split(b"m", ()).unwrap();
        map.ranges.get_mut(&Vec::new()).unwrap().end = Some(b"n".to_vec());
        assert!(map.check().unwrap_err().contains("gap or overlap"));
    }
}
