//! Salted placement: as range, on the salted keys (replicas by the default of
//! [`crate::Partitioner::replicas`]).

use super::SaltedRangePartitioner;
use crate::{AnalysisError, KeyCounts, ShardId};

impl SaltedRangePartitioner {
    /// The salted layout without each of `shards`, each removed alone: the same buckets; the
    /// inner ranges lose the shard by the range rule
    /// ([`crate::range::RangePartitioner::without`]), weighing each range by the
    /// distinct salted keys in it (counted once for all the removals).
    pub fn without_all(
        &self,
        shards: &[ShardId],
        keys: &KeyCounts,
    ) -> Result<Vec<SaltedRangePartitioner>, AnalysisError> {
        // `range_index_of` is the inner range of the salted key, found without salting it.
        let mut counts = vec![0u64; self.inner().range_count()];
        for (key, _) in keys.iter() {
            counts[self.range_index_of(key)] += 1;
        }
        shards
            .iter()
            .map(|&shard| Ok(self.with_inner(self.inner().without(shard, &counts)?)))
            .collect()
    }
}
