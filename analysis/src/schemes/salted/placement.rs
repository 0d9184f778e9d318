//! Salted placement: as range, on the salted keys (replicas by the default of
//! [`crate::Partitioner::replicas`]).

use super::SaltedRangePartitioner;
use crate::{AnalysisError, KeyCounts, ShardId};

impl SaltedRangePartitioner {
    /// The salted layout without each of `shards`, each removed alone: the same buckets; the
    /// inner ranges lose the shard by the range rule
    /// ([`crate::schemes::range::RangePartitioner::without`]), weighing each range by the
    /// distinct salted keys in it (counted once for all the removals).
    pub fn without_all(
        &self,
        shards: &[ShardId],
        keys: &KeyCounts,
    ) -> Result<Vec<SaltedRangePartitioner>, AnalysisError> {
        let counts = self
            .inner()
            .distinct_keys_per_range(keys.iter().map(|(k, _)| self.salt(k)));
        shards
            .iter()
            .map(|&shard| Ok(self.with_inner(self.inner().without(shard, &counts)?)))
            .collect()
    }
}
