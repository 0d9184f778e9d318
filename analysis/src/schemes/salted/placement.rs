//! Salted placement: as range, on the salted keys (replicas by the default of
//! [`crate::Partitioner::replicas`]).

use super::SaltedRangePartitioner;
use crate::{AnalysisError, KeyCounts, ShardId};

impl SaltedRangePartitioner {
    /// The salted layout without `shard`: the same buckets; the inner ranges lose `shard` by
    /// the range rule ([`crate::schemes::range::RangePartitioner::without`]), weighing each
    /// range by the distinct salted keys in it.
    pub fn without(
        &self,
        shard: ShardId,
        keys: &KeyCounts,
    ) -> Result<SaltedRangePartitioner, AnalysisError> {
        let counts = self
            .inner()
            .distinct_keys_per_range(keys.iter().map(|(k, _)| self.salt(k)));
        Ok(self.with_inner(self.inner().without(shard, &counts)?))
    }
}
