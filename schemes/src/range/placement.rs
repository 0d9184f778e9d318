//! Range placement: each range on `rf` consecutive shards (the default of
//! [`crate::Partitioner::replicas`]); a removed shard's ranges go to the lightest survivors.

use super::RangePartitioner;
use crate::placement::check_removable;
use crate::{AnalysisError, Partitioner, ShardId};

impl RangePartitioner {
    /// The layout without `shard`, given the distinct keys of every range. Boundaries stay; the
    /// removed shard's ranges are reassigned by the range shrink rule
    /// ([`RangePartitioner::resized_with`]): one by one in key order, each to the surviving shard
    /// that then holds the fewest distinct keys. To reuse that rule for a shard that is not the
    /// last, the removed shard and the last shard swap numbers first, so ties between equally
    /// light survivors go to the lowest number with the last shard counted under the removed
    /// shard's number. Survivors are then renumbered in order; no range of a survivor moves.
    pub fn without(
        &self,
        shard: ShardId,
        keys_per_range: &[u64],
    ) -> Result<RangePartitioner, AnalysisError> {
        let n = self.shard_count();
        check_removable(shard, n)?;
        let last = n - 1;
        let swap = |o: ShardId| match o {
            o if o == shard => last,
            o if o == last => shard,
            o => o,
        };
        let swapped_owners: Vec<ShardId> = self.owners().iter().map(|&o| swap(o)).collect();
        let swapped = self.with_owners(n, swapped_owners)?;
        let shrunk = swapped.resized_with(last, keys_per_range)?;
        // In `shrunk`, number `shard` is the old last shard; put every survivor back in order.
        let in_order = |o: ShardId| match o {
            o if o < shard => o,
            o if o == shard => last - 1,
            o => o - 1,
        };
        let owners = shrunk.owners().iter().map(|&o| in_order(o)).collect();
        self.with_owners(last, owners)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn four_ranges(owners: Vec<ShardId>, shards: u32) -> RangePartitioner {
        let starts = vec![vec![], b"b".to_vec(), b"c".to_vec(), b"d".to_vec()];
        RangePartitioner::with_shard_count("range", shards, starts, owners).unwrap()
    }

    #[test]
    fn a_middle_shard_hands_its_ranges_to_the_lightest_survivors() {
        // Shards 0..3 hold ranges with 5, 1, 3, 2 distinct keys; shard 0 also holds range 1.
        let p = four_ranges(vec![0, 0, 1, 2], 3);
        let smaller = p.without(1, &[5, 1, 3, 2]).unwrap();
        // Range 2 (shard 1) goes to the lighter of shard 0 (6 keys) and shard 2 (2 keys);
        // old shard 2 is renumbered 1.
        assert_eq!(smaller.owners(), [0, 0, 1, 1]);
        assert_eq!(smaller.shard_count(), 2);
    }

    #[test]
    fn removing_the_first_or_last_shard_keeps_the_other_ranges_in_place() {
        let p = four_ranges(vec![0, 1, 2, 3], 4);
        let keys = [4, 1, 2, 3];
        // Range 0 goes to the lightest survivor, old shard 1 (1 key), renumbered 0.
        assert_eq!(p.without(0, &keys).unwrap().owners(), [0, 0, 1, 2]);
        // Range 3 goes to old shard 1 (1 key).
        assert_eq!(p.without(3, &keys).unwrap().owners(), [0, 1, 2, 1]);
        assert!(p.without(4, &keys).is_err());
    }
}
