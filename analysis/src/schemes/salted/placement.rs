//! Salted placement: as range, on the salted keys (replicas by the default of
//! [`crate::Partitioner::replicas`]).

use crate::placement::range::range_without;
use crate::schemes::salted::SaltedRangePartitioner;
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId};

/// The salted layout without `shard`: the same buckets; the inner ranges lose `shard` by the
/// range rule ([`range_without`]), weighing each range by the distinct salted keys in it.
pub fn without_shard(
    salted: &SaltedRangePartitioner,
    shard: ShardId,
    keys: &KeyCounts,
) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
    let counts = salted
        .inner()
        .distinct_keys_per_range(keys.iter().map(|(k, _)| salted.salt(k)));
    let inner = range_without(salted.inner(), shard, &counts)?;
    Ok(Some(Box::new(salted.with_inner(inner))))
}
