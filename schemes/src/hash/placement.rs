//! Mod-N placement: replicas `(h + i) mod N` (the default of [`crate::Partitioner::replicas`]);
//! removing any shard rehashes every key onto the `N - 1` survivors.

use super::ModHashPartitioner;
use crate::placement::check_removable;
use crate::{AnalysisError, Partitioner, ShardId};

impl ModHashPartitioner {
    /// Mod-N without `shard`: `hash64(key) mod (N - 1)` over the survivors in order. Almost
    /// every key moves (a key stays only when its new survivor is its old shard), which is why
    /// mod-N is a poor choice for clusters that lose nodes.
    pub fn without(&self, shard: ShardId) -> Result<ModHashPartitioner, AnalysisError> {
        check_removable(shard, self.shard_count())?;
        ModHashPartitioner::new(self.label(), self.shard_count() - 1)
    }
}
