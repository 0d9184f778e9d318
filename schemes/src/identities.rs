//! Shard identities: the stable names that rendezvous, Maglev and multi-probe hash instead of
//! shard numbers, so that a growth or a removal renames no surviving shard and moves only the
//! keys it must. The resize and removal rules of those schemes live here, once.

use super::check_shard_count;
use super::weights::Weights;
use crate::placement::check_removable;
use crate::{AnalysisError, Partitioner, ShardId};

/// Every shard's identity and weight, by shard number.
#[derive(Clone, Debug)]
pub struct Identities {
    ids: Vec<u32>,
    weights: Weights,
}

impl Identities {
    /// Identities `0..shards`, with these weights (one per shard, or none).
    pub fn first(shards: u32, weights: Weights) -> Result<Self, AnalysisError> {
        Self::new((0..shards).collect(), weights)
    }

    /// These identities (at least one) with these weights (one per identity, or none).
    pub fn new(ids: Vec<u32>, weights: Weights) -> Result<Self, AnalysisError> {
        check_shard_count(ids.len() as u32)?;
        weights.check_len(ids.len())?;
        Ok(Identities { ids, weights })
    }

    /// The identity of every shard, by shard number.
    #[inline(always)]
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// The shard weights.
    #[inline(always)]
    pub fn weights(&self) -> &Weights {
        &self.weights
    }

    /// The number of shards.
    #[inline(always)]
    pub fn count(&self) -> u32 {
        self.ids.len() as u32
    }

    /// After a resize to `shards`: the first `shards` identities are kept (shrinking drops the
    /// last shards) and new shards get unused identities above every one so far, with the
    /// mean weight.
    pub fn resized(&self, shards: u32) -> Result<Self, AnalysisError> {
        check_shard_count(shards)?;
        let next = self.ids.iter().max().map_or(0, |m| m + 1);
        let kept = self.ids.iter().copied().take(shards as usize);
        let added = (next..).take((shards as usize).saturating_sub(self.ids.len()));
        Self::new(
            kept.chain(added).collect(),
            self.weights.resized(shards as usize),
        )
    }

    /// Without shard `shard`: the later shards are renumbered and keep their identities.
    pub fn without(&self, shard: ShardId) -> Result<Self, AnalysisError> {
        check_removable(shard, self.count())?;
        let mut ids = self.ids.clone();
        ids.remove(shard as usize);
        Self::new(ids, self.weights.without(shard as usize))
    }
}

/// A scheme placed by shard identities: a resize or a removal rebuilds it from the new
/// identities, and only the keys of added or removed shards move.
pub(crate) trait ByIdentity: Partitioner + Sized + 'static {
    /// The identities it is built on.
    fn identities(&self) -> &Identities;

    /// The same scheme (label and parameters) on other identities.
    fn rebuilt(&self, ids: Identities) -> Result<Self, AnalysisError>;

    /// [`Partitioner::resized`] of such a scheme.
    fn resized_by_identity(&self, shards: u32) -> Result<Box<dyn Partitioner>, AnalysisError> {
        Ok(Box::new(self.rebuilt(self.identities().resized(shards)?)?))
    }

    /// [`Partitioner::without_shard`] of such a scheme.
    fn without_by_identity(
        &self,
        shard: ShardId,
    ) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
        Ok(Some(Box::new(
            self.rebuilt(self.identities().without(shard)?)?,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn growth_adds_fresh_identities_and_a_removal_keeps_the_others() {
        let ids = Identities::first(3, Weights::equal()).unwrap();
        let without = ids.without(1).unwrap();
        assert_eq!(without.ids(), &[0, 2]);
        assert_eq!(without.resized(4).unwrap().ids(), &[0, 2, 3, 4]);
        assert_eq!(ids.resized(2).unwrap().ids(), &[0, 1]);
        assert!(ids.resized(0).is_err());
        assert!(without.without(2).is_err());
    }

    #[test]
    fn weights_follow_their_shards() {
        let w = Weights::new(vec![1.0, 2.0, 3.0]).unwrap();
        let ids = Identities::first(3, w).unwrap();
        assert_eq!(
            ids.without(0).unwrap().weights().get(),
            Some(&[2.0, 3.0][..])
        );
        assert_eq!(
            ids.resized(4).unwrap().weights().get(),
            Some(&[1.0, 2.0, 3.0, 2.0][..])
        );
        assert!(Identities::new(vec![0, 1], Weights::new(vec![1.0]).unwrap()).is_err());
    }
}
