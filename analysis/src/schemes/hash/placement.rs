//! Mod-N placement: replicas `(h + i) mod N` (the default of [`crate::Partitioner::replicas`]);
//! removing any shard rehashes every key onto the `N - 1` survivors.

use crate::placement::check_removable;
use crate::schemes::hash::ModHashPartitioner;
use crate::{AnalysisError, Partitioner, ShardId};

/// Mod-N without `shard`: `hash64(key) mod (N - 1)` over the survivors in order. Almost every
/// key moves (a key stays only when its new survivor is its old shard), which is why mod-N
/// is a poor choice for clusters that lose nodes.
pub fn without_shard(
    hash: &ModHashPartitioner,
    shard: ShardId,
) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
    check_removable(shard, hash.shard_count())?;
    let smaller = ModHashPartitioner::new(hash.label(), hash.shard_count() - 1)?;
    Ok(Some(Box::new(smaller)))
}
