//! Replica placement and shard removal: what every scheme shares. Each scheme's own rules
//! live beside it, in `schemes/<scheme>/placement.rs`; this module depends on no scheme.
//!
//! - **Replicas** ([`Partitioner::replicas`], leaseholder first): `ring`, the next `rf`
//!   distinct shards clockwise from the key's position; `hash` (mod-N), `(h + i) mod N`;
//!   `range` and `salted`, each range on the `rf` consecutive shards `(owner + i) mod N`, so
//!   the replicas of a shard's ranges are spread over its `rf - 1` successors.
//! - **Removing any shard**, not only the last ([`Partitioner::without_shard`]): `ring` hands
//!   the removed shard's arcs to the next point clockwise (its successors); `hash` rehashes
//!   every key onto the `N - 1` survivors; `range` and `salted` give the removed shard's ranges
//!   one by one to the surviving shard with the fewest distinct keys (the range shrink rule).
//!   A scheme without such a rule returns `None` and says so rather than faking it.
//! - [`Degraded`]: a layout after one or more removals, with the survivors under their
//!   original numbers, so loads before and after compare shard by shard.
//!
//! ```
//! use schemes::placement::Degraded;
//! use schemes::hash::ModHashPartitioner;
//! use schemes::{KeyCounts, Partitioner};
//! let intact = Degraded::intact(Box::new(ModHashPartitioner::new("hash", 4).unwrap()));
//! let failed = intact.without(1, &KeyCounts::new()).unwrap().expect("mod-N removes any shard");
//! assert_eq!(failed.live(), [0, 2, 3]);
//! assert_ne!(failed.shard_of(b"user42"), 1);
//! ```

pub mod degraded;
pub mod salted_keys;

pub use degraded::Degraded;
pub use salted_keys::SaltedKeys;

use crate::{AnalysisError, Partitioner, ShardId};

/// Fails unless `shard` is one of `shards >= 2` shards (the last shard cannot be removed).
pub fn check_removable(shard: ShardId, shards: u32) -> Result<(), AnalysisError> {
    if shard >= shards {
        let last = shards.saturating_sub(1);
        return Err(AnalysisError::Config(format!(
            "cannot remove shard {shard}: there are only {shards} shards (0..={last})"
        )));
    }
    if shards < 2 {
        return Err(AnalysisError::Config(format!(
            "cannot remove shard {shard}: it is the only shard"
        )));
    }
    Ok(())
}

/// The number that shard `old` (not `removed`) gets when `removed` leaves and the survivors
/// keep their order.
#[inline]
pub fn renumbered(old: ShardId, removed: ShardId) -> ShardId {
    if old > removed {
        old - 1
    } else {
        old
    }
}

/// The plain sentence for a scheme that cannot remove an arbitrary shard.
pub fn cannot_remove_message(part: &dyn Partitioner) -> String {
    if let Some(reason) = part.removal_refusal() {
        return reason;
    }
    format!(
        "scheme '{}' cannot remove an arbitrary shard: it has no rule for handing a removed \
         shard's keys to the survivors, so its load after a failure is not measured",
        part.label()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_existing_shard_of_several_can_be_removed() {
        assert!(check_removable(2, 3).is_ok());
        assert!(check_removable(3, 3)
            .unwrap_err()
            .to_string()
            .contains("only 3 shards (0..=2)"));
        assert!(check_removable(0, 1)
            .unwrap_err()
            .to_string()
            .contains("the only shard"));
        assert_eq!((renumbered(4, 2), renumbered(1, 2)), (3, 1));
    }
}
