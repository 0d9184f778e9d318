//! Ring placement: replicas on the next distinct shards clockwise; a removed shard's arcs go
//! to the next point clockwise.

use super::RingPartitioner;
use crate::pinned_hash::hash64;
use crate::placement::{check_removable, renumbered};
use crate::{AnalysisError, Partitioner, ShardId};

impl RingPartitioner {
    /// Adds the replicas of `key`: walking clockwise from the first point after `hash64(key)`
    /// (wrapping around, see [`super::key_position`]), the shards of the points met, each
    /// counted once, until `rf` shards are found or every point was visited. The first is the
    /// owner.
    pub fn replicas_clockwise(&self, key: &[u8], rf: u32, out: &mut Vec<ShardId>) {
        self.replicas_at(super::key_position(hash64(key)), rf, out);
    }

    /// Adds the replicas of ring position `position`: the shards of the points met walking
    /// clockwise from the first point at or after it, each counted once, until `rf` shards are
    /// found or every point was visited (Cassandra's SimpleStrategy on a token ring).
    pub fn replicas_at(&self, position: u64, rf: u32, out: &mut Vec<ShardId>) {
        let start = self.points_before(position);
        let first = out.len();
        // The owners of the points from `start` on, then from the first point.
        let (before, after) = self.owners.split_at(start);
        for &shard in after.iter().chain(before) {
            if out.len() - first >= rf as usize {
                break;
            }
            if !out[first..].contains(&shard) {
                out.push(shard);
            }
        }
    }

    /// The ring without `shard`: its points are dropped, so every arc it owned now belongs to
    /// the next surviving point clockwise, and no other key moves. Survivors are renumbered in
    /// order.
    pub fn without(&self, shard: ShardId) -> Result<RingPartitioner, AnalysisError> {
        check_removable(shard, self.shard_count())?;
        let points: Vec<(u64, ShardId)> = self
            .points()
            .iter()
            .filter(|p| p.1 != shard)
            .map(|&(at, s)| (at, renumbered(s, shard)))
            .collect();
        RingPartitioner::from_points(self.label(), self.shard_count() - 1, points)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Points at 100 (shard 0), 200 (1), 300 (0), 400 (2), 500 (1).
    fn ring() -> RingPartitioner {
        let points = vec![(100, 0), (200, 1), (300, 0), (400, 2), (500, 1)];
        RingPartitioner::from_points("ring", 3, points).unwrap()
    }

    #[test]
    fn replicas_are_the_next_distinct_shards_clockwise() {
        let r = ring();
        let key = b"user42"; // hash 0x9fdc..., above every point: starts at 100 after wrapping
        let mut out = Vec::new();
        r.replicas_clockwise(key, 2, &mut out);
        assert_eq!(out, [0, 1]);
        out.clear();
        r.replicas_clockwise(key, 9, &mut out);
        assert_eq!(out, [0, 1, 2]);
    }

    #[test]
    fn replicas_start_at_the_first_point_at_or_after_the_position_wrapping_past_the_last() {
        let r = ring();
        let walk = |position: u64, rf: usize| {
            // By hand: from the first point at or after `position`, around the ring.
            let points = r.points();
            let start = points.partition_point(|p| p.0 < position);
            let mut shards: Vec<ShardId> = Vec::new();
            for i in 0..points.len() {
                let shard = points[(start + i) % points.len()].1;
                if shards.len() < rf && !shards.contains(&shard) {
                    shards.push(shard);
                }
            }
            shards
        };
        for position in [
            0,
            99,
            100,
            101,
            200,
            299,
            300,
            301,
            400,
            450,
            500,
            501,
            u64::MAX,
        ] {
            for rf in [1, 2, 3, 4] {
                let mut out = vec![7]; // replicas are appended
                r.replicas_at(position, rf as u32, &mut out);
                assert_eq!(out[1..], walk(position, rf), "position {position}, rf {rf}");
            }
        }
        let mut out = Vec::new();
        r.replicas_at(450, 2, &mut out);
        assert_eq!(out, [1, 0]); // 500 (1), then 100 (0) after wrapping
    }

    #[test]
    fn a_removed_shard_gives_its_arcs_to_the_next_point_clockwise() {
        let smaller = ring().without(0).unwrap();
        // Old shard 1 is now 0 and old shard 2 is now 1; (100, 0) and (300, 0) are gone.
        assert_eq!(smaller.points(), [(200, 0), (400, 1), (500, 0)]);
        assert_eq!(smaller.shard_count(), 2);
        assert_eq!(
            [50, 250, 450, 600].map(|h| smaller.owner_of_hash(h)),
            [0, 1, 0, 0]
        );
        assert!(ring().without(3).is_err());
    }
}
