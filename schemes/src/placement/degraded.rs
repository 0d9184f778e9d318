//! [`Degraded`]: a layout after shard removals, with the survivors under their original
//! numbers.

use crate::placement::{cannot_remove_message, check_removable};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// A scheme's layout after zero or more shards were removed by its own rule
/// ([`Partitioner::without_shard`]), answering with the original shard numbers: a removed
/// shard owns nothing and `shard_count()` stays the original `N`, so loads before and after a
/// failure compare shard by shard and remap counts only keys that really move.
pub struct Degraded {
    /// The layout over the survivors, numbered `0..live.len()` in order.
    layout: Box<dyn Partitioner>,
    /// Original number of every survivor, increasing (`live[i]` is layout shard `i`).
    live: Vec<ShardId>,
    /// Removed shards, in removal order.
    failed: Vec<ShardId>,
    /// The original shard count `N`.
    shards: u32,
}

impl std::fmt::Debug for Degraded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Degraded({}, failed {:?})",
            self.layout.label(),
            self.failed
        )
    }
}

impl Degraded {
    /// The intact layout: every shard alive.
    pub fn intact(layout: Box<dyn Partitioner>) -> Degraded {
        let shards = layout.shard_count();
        Degraded {
            layout,
            live: (0..shards).collect(),
            failed: Vec::new(),
            shards,
        }
    }

    /// `part` after `shard` is removed by its scheme's rule (one failure), or `None` when the
    /// scheme cannot remove an arbitrary shard.
    pub fn after_removal(
        part: &dyn Partitioner,
        shard: ShardId,
        keys: &KeyCounts,
    ) -> Result<Option<Degraded>, AnalysisError> {
        let shards = part.shard_count();
        check_removable(shard, shards)?;
        Ok(part.without_shard(shard, keys)?.map(|layout| Degraded {
            layout,
            live: (0..shards).filter(|&s| s != shard).collect(),
            failed: vec![shard],
            shards,
        }))
    }

    /// This layout after `shard` (an original number) is removed too, or `None` when the
    /// scheme cannot remove an arbitrary shard. Errors when `shard` is not alive or is the
    /// last survivor.
    pub fn without(
        &self,
        shard: ShardId,
        keys: &KeyCounts,
    ) -> Result<Option<Degraded>, AnalysisError> {
        Ok(self.without_each(&[shard], keys)?.pop().flatten())
    }

    /// [`Degraded::without`] of each of `shards`, each removed alone from this layout (the
    /// scheme weighs the keys once for all of them, [`Partitioner::without_each`]).
    pub fn without_each(
        &self,
        shards: &[ShardId],
        keys: &KeyCounts,
    ) -> Result<Vec<Option<Degraded>>, AnalysisError> {
        let mut positions = Vec::with_capacity(shards.len());
        for &shard in shards {
            let Ok(position) = self.live.binary_search(&shard) else {
                return Err(AnalysisError::Config(if shard < self.shards {
                    format!("shard {shard} was already removed")
                } else {
                    format!(
                        "cannot remove shard {shard}: there are only {} shards (0..={})",
                        self.shards,
                        self.shards - 1
                    )
                }));
            };
            check_removable(position as ShardId, self.live.len() as u32)?;
            positions.push(position as ShardId);
        }
        let layouts = self.layout.without_each(&positions, keys)?;
        Ok(layouts
            .into_iter()
            .zip(positions)
            .map(|(layout, position)| {
                let mut live = self.live.clone();
                let shard = live.remove(position as usize);
                let mut failed = self.failed.clone();
                failed.push(shard);
                layout.map(|layout| Degraded {
                    layout,
                    live,
                    failed,
                    shards: self.shards,
                })
            })
            .collect())
    }

    /// The surviving shards, increasing.
    pub fn live(&self) -> &[ShardId] {
        &self.live
    }

    /// The removed shards, in removal order.
    pub fn failed(&self) -> &[ShardId] {
        &self.failed
    }

    /// The layout over the survivors numbered `0..live().len()`.
    pub fn layout(&self) -> &dyn Partitioner {
        self.layout.as_ref()
    }

    /// The sentence saying that this scheme cannot remove an arbitrary shard.
    pub fn cannot_remove_message(&self) -> String {
        cannot_remove_message(self.layout.as_ref())
    }
}

impl Partitioner for Degraded {
    fn label(&self) -> &str {
        self.layout.label()
    }

    /// The original `N`: removed shards keep their numbers and own nothing.
    fn shard_count(&self) -> u32 {
        self.shards
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.live[self.layout.shard_of(key) as usize]
    }

    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        let mut survivors = ShardSet::new(self.live.len() as u32);
        self.layout.scan_shards(start, end, &mut survivors);
        for s in survivors.iter() {
            out.insert(self.live[s as usize]);
        }
    }

    /// The intact layout resizes by its scheme's rule; a layout with removed shards refuses,
    /// because the growth rules number new shards after the last one.
    fn resized(
        &self,
        shards: u32,
        keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        if self.failed.is_empty() {
            return self.layout.resized(shards, keys);
        }
        Err(AnalysisError::Config(format!(
            "'{}' has lost shards {:?}; a layout with removed shards cannot be resized",
            self.label(),
            self.failed
        )))
    }

    fn range_starts(&self) -> Option<&[Vec<u8>]> {
        self.layout.range_starts()
    }

    fn replicas(&self, key: &[u8], rf: u32, out: &mut Vec<ShardId>) {
        let first = out.len();
        self.layout.replicas(key, rf, out);
        for s in &mut out[first..] {
            *s = self.live[*s as usize];
        }
    }

    fn replica_refusal(&self) -> Option<String> {
        self.layout.replica_refusal()
    }

    /// The intact layout removes by its scheme's rule; once shards are removed, numbers are no
    /// longer `0..N`, so further removals go through [`Degraded::without`].
    fn without_shard(
        &self,
        shard: ShardId,
        keys: &KeyCounts,
    ) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
        if self.failed.is_empty() {
            return self.layout.without_shard(shard, keys);
        }
        Err(AnalysisError::Config(format!(
            "'{}' has lost shards {:?}; remove further shards with Degraded::without",
            self.label(),
            self.failed
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ring::RingPartitioner;

    #[test]
    fn survivors_keep_their_numbers_across_two_removals() {
        let points = vec![(100, 0), (200, 1), (300, 2), (400, 3)];
        let ring = RingPartitioner::from_points("ring", 4, points).unwrap();
        let keys = KeyCounts::new();
        let once = Degraded::intact(Box::new(ring))
            .without(1, &keys)
            .unwrap()
            .unwrap();
        let twice = once.without(2, &keys).unwrap().unwrap();
        assert_eq!(
            (twice.live(), twice.failed(), twice.shard_count()),
            ([0, 3].as_slice(), [1, 2].as_slice(), 4)
        );
        let mut replicas = Vec::new();
        twice.replicas(b"user42", 2, &mut replicas); // hash above 400: wraps to the point at 100
        assert_eq!(replicas, [0, 3]);
        assert!(once
            .without(1, &keys)
            .unwrap_err()
            .to_string()
            .contains("already removed"));
        assert!(once
            .without(7, &keys)
            .unwrap_err()
            .to_string()
            .contains("only 4 shards"));
        assert!(twice
            .without(0, &keys)
            .unwrap()
            .unwrap()
            .without(3, &keys)
            .unwrap_err()
            .to_string()
            .contains("only shard"));
        assert!(twice.resized(5, &keys).is_err());
    }

    #[test]
    fn removals_in_a_batch_are_the_removals_one_by_one() {
        let keys: Vec<Vec<u8>> = (0..3_000u64)
            .map(|i| (i * i).to_be_bytes().to_vec())
            .collect();
        let mut counts = KeyCounts::new();
        for (i, k) in keys.iter().enumerate() {
            counts.add(k, 1 + i as u64 % 7);
        }
        let mut sorted = keys.clone();
        sorted.sort();
        for spec in crate::SchemeSpec::parse_list("range,salted,ring,hash").unwrap() {
            let ctx = crate::BuildContext {
                shards: 6,
                warmup_keys: &sorted,
                key_type: workloads::KeyType::U64,
                weights: None,
            };
            let intact = Degraded::intact(spec.build(&ctx).unwrap());
            let once = intact.without(2, &counts).unwrap().unwrap();
            for d in [intact, once] {
                let live = d.live().to_vec();
                let batch = d.without_each(&live[..live.len() - 1], &counts).unwrap();
                assert_eq!(batch.len(), live.len() - 1);
                for (&shard, got) in live.iter().zip(batch) {
                    let (got, want) = (got.unwrap(), d.without(shard, &counts).unwrap().unwrap());
                    assert_eq!(got.failed(), want.failed(), "{}", spec.label());
                    assert_eq!(got.live(), want.live());
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    for k in &keys {
                        got.replicas(k, 2, &mut a);
                        want.replicas(k, 2, &mut b);
                    }
                    assert_eq!(a, b, "{} without {shard}", spec.label());
                }
            }
        }
    }

    #[test]
    fn a_scheme_without_a_removal_rule_says_so() {
        struct Fixed;
        impl Partitioner for Fixed {
            fn label(&self) -> &str {
                "fixed"
            }
            fn shard_count(&self) -> u32 {
                2
            }
            fn shard_of(&self, _: &[u8]) -> ShardId {
                0
            }
            fn scan_shards(&self, _: &[u8], _: &[u8], out: &mut ShardSet) {
                out.insert(0);
            }
            fn resized(
                &self,
                _: u32,
                _: &KeyCounts,
            ) -> Result<Box<dyn Partitioner>, AnalysisError> {
                Ok(Box::new(Fixed))
            }
        }
        let d = Degraded::intact(Box::new(Fixed));
        assert!(d.without(1, &KeyCounts::new()).unwrap().is_none());
        assert!(d
            .cannot_remove_message()
            .contains("'fixed' cannot remove an arbitrary shard"));
    }
}
