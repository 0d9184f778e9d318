//! Kafka's default partitioner for keyed records, bit-exact with Apache Kafka 3.x/4.x
//! (`BuiltInPartitioner.partitionForKey`): partition = `toPositive(murmur2(key)) % partitions`,
//! with Kafka's murmur2 (seed `0x9747b28c`, `Utils.murmur2`).
//!
//! Shards are partitions. With `brokers=B`, partitions are placed on brokers `0..B` by Kafka's
//! rack-unaware assignment (`AdminUtils.assignReplicasToBrokers` with a fixed start index, as
//! `kafka-topics --create` without racks): the leader (first replica) of partition `p` is
//! broker `(p + start) % B`, and `rf - 1` followers follow with an increasing shift. The
//! hottest broker is then measured from the partitions' requests (see
//! [`KafkaPartitioner::shard_load_metrics`]). KRaft's `StripedReplicaPlacer` gives every
//! broker the same number of leaders as this round-robin (one per B partitions) but picks
//! which ones with a random offset and reshuffles after each B partitions, so it cannot be
//! reproduced; `start` stands for that random offset.
//!
//! Growth adds partitions (`kafka-topics --alter --partitions M`): no record moves, but every
//! key whose partition changes loses its ordering and its consumer state, which is what the
//! remap fraction counts. Kafka cannot reduce a topic's partition count, and a partition is
//! never removed (a failed broker hands its leaderships to followers; keys stay put).

use workloads::Spec;

use super::{check_shard_count, weights, BuildContext, SchemeKind};
use crate::value::{MetricDef, MetricValue};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// Registration of `kafka`.
pub const KIND: SchemeKind = SchemeKind {
    name: "kafka",
    about: "Kafka 3.x/4.x keyed records: toPositive(murmur2(key)) % partitions; growth adds \
            partitions (keys change partition, data stays); brokers=B measures the hottest broker",
    system: |_| Some("Kafka 3.x/4.x default partitioner"),
    params: &[
        (
            "brokers",
            "brokers B to place partitions on by Kafka's rack-unaware assignment (default: none)",
        ),
        (
            "rf",
            "replication factor, 1..=B (default 1), for the replica load per broker",
        ),
        (
            "start",
            "the assignment's start index, 0..B (default 0; Kafka draws it at random)",
        ),
    ],
    needs_warmup: |_| false,
    points: |spec, shards| {
        let brokers = spec
            .get("brokers")
            .map_or(0, |_| crate::count_param(spec, "brokers", 1));
        let rf = crate::count_param(spec, "rf", 1);
        crate::Points::new(
            u64::from(shards).saturating_mul(rf).saturating_add(brokers),
            "partitions x rf + brokers",
            "fewer partitions, a smaller rf or fewer brokers",
        )
    },
    build,
    changing: None,
};

/// The extra `summary.csv` rows of `kafka:brokers=B` (empty without `brokers`).
pub static BROKER_METRICS: &[MetricDef] = &[
    MetricDef {
        name: "broker_hottest_share",
        unit: "share",
        definition: "Kafka: requests to the partitions led by the busiest broker / all requests.",
    },
    MetricDef {
        name: "broker_hottest_ratio",
        unit: "ratio",
        definition: "broker_hottest_share x B; 1.0 is a perfect spread over the brokers.",
    },
    MetricDef {
        name: "broker_hottest_replica_share",
        unit: "share",
        definition: "Kafka: requests to the partitions with a replica on the busiest broker / \
                     (all requests x rf): the share of replicated writes it stores.",
    },
];

/// Builds `kafka` for `ctx.shards` partitions.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let why = "the default partitioner spreads keys evenly over the partitions";
    weights::refuse(ctx, &spec.to_string(), why)?;
    let brokers = brokers_of(spec)?;
    Ok(Box::new(KafkaPartitioner::new(
        spec.to_string(),
        ctx.shards,
        brokers,
    )?))
}

/// The broker placement of a `kafka` spec (`brokers`, `rf`, `start`), `None` without
/// `brokers=B`; errors name the spec and the bad value.
pub fn brokers_of(spec: &Spec) -> Result<Option<Brokers>, AnalysisError> {
    Ok(match spec.get("brokers") {
        None => {
            if spec.get("rf").is_some() || spec.get("start").is_some() {
                let message = "rf and start place partitions on brokers: give brokers=B too";
                return Err(spec.error(message.into()).into());
            }
            None
        }
        Some(_) => {
            let b = spec.u64_at_least("brokers", 1, 1)?;
            let b = u32::try_from(b).map_err(|_| spec.error(format!("brokers={b} is too many")))?;
            let rf = spec.u64_at_least("rf", 1, 1)?;
            if rf > u64::from(b) {
                let message = format!(
                    "rf={rf} is larger than the {b} available brokers (Kafka refuses it too)"
                );
                return Err(spec.error(message).into());
            }
            let start = spec.u64_at_least("start", 0, 0)?;
            if start >= u64::from(b) {
                let message = format!("start={start} must be below brokers={b}");
                return Err(spec.error(message).into());
            }
            Some(Brokers {
                count: b,
                rf: rf as u32,
                start: start as u32,
            })
        }
    })
}

/// Kafka's murmur2 (`org.apache.kafka.common.utils.Utils.murmur2`), as the signed 32-bit value
/// Kafka computes: MurmurHash2 of the bytes, little-endian blocks, seed `0x9747b28c`.
pub fn murmur2(key: &[u8]) -> i32 {
    murmur2::murmur2(key, murmur2::KAFKA_SEED) as i32
}

/// The partition of `key` among `partitions`: `toPositive(murmur2(key)) % partitions`.
pub fn partition_for_key(key: &[u8], partitions: u32) -> u32 {
    (murmur2(key) & 0x7fff_ffff) as u32 % partitions
}

/// How partitions are placed on brokers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Brokers {
    /// Number of brokers B.
    pub count: u32,
    /// Replicas per partition, at most B.
    pub rf: u32,
    /// The fixed start index of the assignment (Kafka's `fixedStartIndex`).
    pub start: u32,
}

impl Brokers {
    /// The brokers holding partition `p`, leader first, as Kafka's rack-unaware assignment
    /// (`assignReplicasToBrokersRackUnaware` with `fixedStartIndex = start` and
    /// `startPartitionId = 0`) places it: the leader is `(p + start) % B` and replica `j`
    /// is shifted by `1 + (shift + j) % (B - 1)`, where the shift starts at `start` and
    /// grows by one each time `p` passes a multiple of B.
    pub fn replicas_of(&self, partition: u32) -> Vec<u32> {
        let b = u64::from(self.count);
        let p = u64::from(partition);
        let first = (p + u64::from(self.start)) % b;
        let shift = u64::from(self.start) + p / b;
        let mut out = vec![first as u32];
        out.extend((0..u64::from(self.rf) - 1).map(|j| {
            let step = 1 + (shift + j) % (b - 1);
            ((first + step) % b) as u32
        }));
        out
    }
}

/// Kafka's keyed partitioner over `partitions` partitions, optionally placed on brokers.
#[derive(Clone, Debug)]
pub struct KafkaPartitioner {
    label: String,
    partitions: u32,
    brokers: Option<Brokers>,
}

impl KafkaPartitioner {
    /// A topic of `partitions` partitions (at least 1), placed on `brokers` when given.
    pub fn new(
        label: impl Into<String>,
        partitions: u32,
        brokers: Option<Brokers>,
    ) -> Result<Self, AnalysisError> {
        check_shard_count(partitions)?;
        Ok(KafkaPartitioner {
            label: label.into(),
            partitions,
            brokers,
        })
    }

    /// The broker placement, if `brokers=B` was given.
    pub fn brokers(&self) -> Option<&Brokers> {
        self.brokers.as_ref()
    }
}

impl Partitioner for KafkaPartitioner {
    /// Another placement: every key's hash redrawn ([`crate::placement::SaltedKeys`]).
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        Some(Box::new(crate::placement::SaltedKeys::new(self, salt)))
    }

    /// No structure: the partition is arithmetic on the key's hash (the broker assignment
    /// is arithmetic too).
    fn router_bytes(&self) -> Option<u64> {
        Some(0)
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.partitions
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        partition_for_key(key, self.partitions)
    }

    /// Every partition: keys are hashed. An empty scan (`end <= start`) contacts only the
    /// owner of `start`, as the trait asks of every scheme.
    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        super::scan_every_shard(self, start, end, out);
    }

    /// Adding partitions keeps the formula (and, for new partitions, Kafka's assignment
    /// continues the same round-robin); fewer partitions are refused as Kafka refuses them.
    fn resized(
        &self,
        shards: u32,
        _keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        if let Some(why) = self.resize_refusal(shards) {
            return Err(AnalysisError::Config(why));
        }
        Ok(Box::new(KafkaPartitioner::new(
            self.label.clone(),
            shards,
            self.brokers,
        )?))
    }

    /// Kafka cannot reduce a topic's partition count.
    fn resize_refusal(&self, shards: u32) -> Option<String> {
        (shards < self.partitions).then(|| {
            format!(
                "scheme '{}': Kafka cannot reduce a topic's partitions ({} to {shards}); \
                 only growth (more partitions) is possible",
                self.label, self.partitions
            )
        })
    }

    /// Only the partition: its replicas are on brokers, outside the layout
    /// ([`Partitioner::replica_refusal`]).
    fn replicas(&self, key: &[u8], _rf: u32, out: &mut Vec<ShardId>) {
        out.push(self.shard_of(key));
    }

    /// Shards are partitions; a partition's replicas are on brokers.
    fn replica_refusal(&self) -> Option<String> {
        Some(format!(
            "scheme '{}' (Kafka): a partition's replicas are on brokers, never on other \
             partitions, and shardlab's shards are the partitions; plan with --replicas 1, and \
             measure the load per broker with `run --schemes kafka:brokers=B,rf=R` \
             (broker_hottest_replica_share)",
            self.label
        ))
    }

    /// Kafka never removes a partition (see the module).
    fn removal_refusal(&self) -> Option<String> {
        Some(format!(
            "scheme '{}' (Kafka) never removes a partition: a failed broker hands its \
             leaderships to in-sync followers and every key keeps its partition",
            self.label
        ))
    }

    /// The signed murmur2 value Kafka computes.
    fn detail(&self, key: &[u8]) -> Option<String> {
        Some(murmur2(key).to_string())
    }

    /// [`BROKER_METRICS`] from the requests of each partition: a broker serves the requests
    /// of the partitions it leads and stores the writes of those it holds a replica of.
    fn shard_load_metrics(&self, shard_requests: &[u64]) -> Vec<MetricValue> {
        let Some(brokers) = self.brokers else {
            return Vec::new();
        };
        let mut led = vec![0u64; brokers.count as usize];
        let mut held = vec![0u64; brokers.count as usize];
        for (p, &requests) in shard_requests.iter().enumerate() {
            let replicas = brokers.replicas_of(p as u32);
            led[replicas[0] as usize] += requests;
            replicas.iter().for_each(|&b| held[b as usize] += requests);
        }
        let total: u64 = shard_requests.iter().sum();
        let share = |max: u64, of: u64| (of > 0).then(|| max as f64 / of as f64);
        let max = |v: &[u64]| v.iter().copied().max().unwrap_or(0);
        let leader_share = share(max(&led), total);
        let values = [
            leader_share,
            leader_share.map(|s| s * f64::from(brokers.count)),
            share(max(&held), total * u64::from(brokers.rf)),
        ];
        MetricDef::values(BROKER_METRICS, values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur2_gives_the_values_of_kafkas_utils_test() {
        // UtilsTest.testMurmur2 in Apache Kafka.
        let cases: [(&[u8], i32); 6] = [
            (b"21", -973_932_308),
            (b"foobar", -790_332_482),
            (b"a-little-bit-long-string", -985_981_536),
            (b"a-little-bit-longer-string", -1_486_304_829),
            (
                b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8",
                -58_897_971,
            ),
            (b"abc", 479_470_107),
        ];
        for (key, expected) in cases {
            assert_eq!(murmur2(key), expected, "{}", String::from_utf8_lossy(key));
        }
    }

    #[test]
    fn the_partition_is_the_positive_hash_mod_partitions() {
        // toPositive(-973932308) = 1173551340; 1173551340 % 12 = 0, % 7 = 2.
        assert_eq!(partition_for_key(b"21", 12), 1_173_551_340 % 12);
        assert_eq!(partition_for_key(b"21", 7), 1_173_551_340 % 7);
        assert_eq!(partition_for_key(b"abc", 10), 479_470_107 % 10);
        let p = KafkaPartitioner::new("kafka", 12, None).unwrap();
        assert_eq!(p.detail(b"foobar").as_deref(), Some("-790332482"));
        assert!(p.resized(11, &KeyCounts::new()).is_err());
        assert!(p.resize_refusal(11).unwrap().contains("(12 to 11)"));
        assert!(p.resize_refusal(12).is_none() && p.resize_refusal(13).is_none());
        assert_eq!(p.resized(16, &KeyCounts::new()).unwrap().shard_count(), 16);
        assert!(p.shard_load_metrics(&[1; 12]).is_empty());
    }

    #[test]
    fn replicas_follow_the_table_in_kafkas_admin_utils_javadoc() {
        // AdminUtils' Javadoc: 5 brokers, 10 partitions, 3 replicas, start index 0.
        let b = Brokers {
            count: 5,
            rf: 3,
            start: 0,
        };
        let expected: [[u32; 3]; 10] = [
            [0, 1, 2],
            [1, 2, 3],
            [2, 3, 4],
            [3, 4, 0],
            [4, 0, 1],
            [0, 2, 3],
            [1, 3, 4],
            [2, 4, 0],
            [3, 0, 1],
            [4, 1, 2],
        ];
        for (p, replicas) in expected.iter().enumerate() {
            assert_eq!(b.replicas_of(p as u32), replicas, "partition {p}");
        }
    }

    #[test]
    fn the_hottest_broker_sums_the_partitions_it_leads() {
        let brokers = Brokers {
            count: 2,
            rf: 2,
            start: 1,
        };
        let p = KafkaPartitioner::new("kafka", 4, Some(brokers)).unwrap();
        // Leaders with start 1: partitions 0, 2 on broker 1; 1, 3 on broker 0.
        let m = p.shard_load_metrics(&[10, 1, 30, 1]);
        let values: Vec<Option<f64>> = m.iter().map(|v| v.value).collect();
        assert_eq!(values, [Some(40.0 / 42.0), Some(80.0 / 42.0), Some(0.5)]);
    }
}
