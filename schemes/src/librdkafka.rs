//! librdkafka's keyed partitioners (`partitioner=` of a topic), bit-exact with librdkafka
//! 2.0.2 (Debian `librdkafka1`), checked against its exported `rd_kafka_msg_partitioner_*`
//! functions. Shards are partitions; the key's bytes are hashed as given.
//!
//! - `consistent`: standard CRC-32 (zlib's) of the key mod the partitions.
//! - `murmur2`: `(murmur2(key) & 0x7fffffff) % partitions`, Kafka's murmur2 (seed
//!   `0x9747b28c`): the same partition as the Java client.
//! - `fnv1a`: the absolute value of the FNV-1a 32-bit hash read as a signed 32-bit
//!   integer, mod the partitions (as Sarama).
//! - `consistent_random` (librdkafka's default), `murmur2_random`, `fnv1a_random`: as the
//!   above, but a key of no bytes (`consistent_random`, `fnv1a_random`) or no key at all
//!   (`murmur2_random`) goes to a random available partition. shardlab cannot place a random
//!   choice: it places the empty key as the variant without `_random` does, and its
//!   `detail` says `random`.
//!
//! Growth adds partitions (`kafka-topics --alter --partitions M`): the same formula mod M;
//! a topic's partitions are never reduced or removed (as [`super::kafka`]).

use crc::{Crc, CRC_32_ISO_HDLC};
use workloads::Spec;

use super::kafka::KafkaPartitioner;
use super::{check_shard_count, weights, BuildContext, SchemeKind};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// The standard CRC-32 (librdkafka's `rd_crc32`, zlib's).
const CRC32: Crc<u32> = Crc::<u32>::new(&CRC_32_ISO_HDLC);

/// Registration of `librdkafka`.
pub const KIND: SchemeKind = SchemeKind {
    name: "librdkafka",
    about: "librdkafka 2.0 keyed partitioners (partitioner=consistent_random by default, \
            consistent, murmur2, murmur2_random, fnv1a, fnv1a_random); growth adds partitions",
    system: |_| Some("librdkafka 2.0.2 partitioner"),
    params: &[(
        "partitioner",
        "consistent_random (librdkafka's default), consistent, murmur2, murmur2_random, fnv1a \
         or fnv1a_random",
    )],
    needs_warmup: |_| false,
    points: |_, shards| crate::Points::per_shard(shards),
    build,
    changing: None,
};

/// The hash a partitioner takes of the key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hash {
    /// CRC-32 (`consistent`).
    Crc32,
    /// Kafka's murmur2, sign bit cleared.
    Murmur2,
    /// FNV-1a 32, absolute value of the signed hash.
    Fnv1a,
}

/// One of librdkafka's keyed partitioners.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The hash of the key.
    pub hash: Hash,
    /// The `_random` variant: the empty key goes to a random partition.
    pub random: bool,
}

impl Rule {
    /// The rule of librdkafka's `partitioner=` name.
    pub fn parse(name: &str) -> Option<Rule> {
        let (base, random) = match name.strip_suffix("_random") {
            Some(base) => (base, true),
            None => (name, false),
        };
        let hash = match base {
            "consistent" => Hash::Crc32,
            "murmur2" => Hash::Murmur2,
            "fnv1a" => Hash::Fnv1a,
            _ => return None,
        };
        Some(Rule { hash, random })
    }

    /// The non-negative value the partitioner takes mod the partitions.
    pub fn value(self, key: &[u8]) -> u32 {
        match self.hash {
            Hash::Crc32 => CRC32.checksum(key),
            Hash::Murmur2 => super::kafka::murmur2(key) as u32 & 0x7fff_ffff,
            Hash::Fnv1a => (fnv1a_32(key) as i32).unsigned_abs(),
        }
    }
}

/// FNV-1a, 32 bits (librdkafka's `rd_fnv1a`).
pub fn fnv1a_32(key: &[u8]) -> u32 {
    key.iter().fold(0x811c_9dc5, |h: u32, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// Builds `librdkafka` for `ctx.shards` partitions.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let why = "librdkafka's partitioners spread keys evenly over the partitions";
    weights::refuse(ctx, &spec.to_string(), why)?;
    let name = spec.get("partitioner").unwrap_or("consistent_random");
    let Some(rule) = Rule::parse(name) else {
        let message = format!(
            "partitioner={name} is not a keyed librdkafka partitioner; use consistent_random, \
             consistent, murmur2, murmur2_random, fnv1a or fnv1a_random"
        );
        return Err(spec.error(message).into());
    };
    Ok(Box::new(LibrdkafkaPartitioner::new(
        spec.to_string(),
        rule,
        ctx.shards,
    )?))
}

/// A topic of `partitions` partitions produced to by librdkafka with one partitioner.
#[derive(Clone, Debug)]
pub struct LibrdkafkaPartitioner {
    label: String,
    rule: Rule,
    partitions: u32,
    /// Kafka's rules for growth and removal (same topic, same partition count).
    kafka: KafkaPartitioner,
}

impl LibrdkafkaPartitioner {
    /// The partitioner `rule` over `partitions` partitions (at least 1).
    pub fn new(
        label: impl Into<String>,
        rule: Rule,
        partitions: u32,
    ) -> Result<Self, AnalysisError> {
        check_shard_count(partitions)?;
        let label = label.into();
        Ok(LibrdkafkaPartitioner {
            kafka: KafkaPartitioner::new(label.clone(), partitions, None)?,
            label,
            rule,
            partitions,
        })
    }
}

impl Partitioner for LibrdkafkaPartitioner {
    /// Another placement: every key's hash redrawn ([`crate::placement::SaltedKeys`]).
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        Some(Box::new(crate::placement::SaltedKeys::new(self, salt)))
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.partitions
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.rule.value(key) % self.partitions
    }

    /// Every partition: keys are hashed.
    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        super::scan_every_shard(self, start, end, out);
    }

    /// More partitions, the same partitioner; fewer are refused as Kafka refuses them.
    fn resized(
        &self,
        shards: u32,
        _keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        if let Some(why) = self.resize_refusal(shards) {
            return Err(AnalysisError::Config(why));
        }
        Ok(Box::new(LibrdkafkaPartitioner::new(
            self.label.clone(),
            self.rule,
            shards,
        )?))
    }

    /// Kafka cannot reduce a topic's partition count.
    fn resize_refusal(&self, shards: u32) -> Option<String> {
        self.kafka.resize_refusal(shards)
    }

    /// Only the partition (see [`Partitioner::replica_refusal`]).
    fn replicas(&self, key: &[u8], _rf: u32, out: &mut Vec<ShardId>) {
        out.push(self.shard_of(key));
    }

    /// Shards are partitions; a partition's replicas are on brokers.
    fn replica_refusal(&self) -> Option<String> {
        Some(format!(
            "scheme '{}' (librdkafka): a partition's replicas are on brokers, never on other \
             partitions, and shardlab's shards are the partitions; plan with --replicas 1",
            self.label
        ))
    }

    /// Kafka never removes a partition.
    fn removal_refusal(&self) -> Option<String> {
        self.kafka.removal_refusal()
    }

    /// The value taken mod the partitions, as a decimal; `random` for the empty key of a
    /// `_random` partitioner.
    fn detail(&self, key: &[u8]) -> Option<String> {
        if self.rule.random && key.is_empty() {
            return Some("random".to_string());
        }
        Some(self.rule.value(key).to_string())
    }

    /// No table: a hash and a modulus.
    fn router_bytes(&self) -> Option<u64> {
        Some(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::keys;

    fn rule(name: &str) -> Rule {
        Rule::parse(name).unwrap()
    }

    #[test]
    fn the_hashes_are_crc32_kafkas_murmur2_and_the_absolute_fnv1a() {
        // CRC-32("123456789") = 0xcbf43926, the check value of CRC-32/ISO-HDLC.
        assert_eq!(rule("consistent").value(b"123456789"), 0xcbf4_3926);
        // FNV-1a 32 of "" is the offset basis; of "a" 0xe40c292c (the FNV test vectors):
        // negative as i32, so its absolute value.
        assert_eq!(fnv1a_32(b""), 0x811c_9dc5);
        assert_eq!(fnv1a_32(b"a"), 0xe40c_292c);
        assert_eq!(rule("fnv1a").value(b"a"), 0xe40c_292cu32.wrapping_neg());
        let m = rule("murmur2");
        for key in keys(500) {
            assert_eq!(
                m.value(&key) % 7,
                super::super::kafka::partition_for_key(&key, 7)
            );
        }
        assert!(Rule::parse("random").is_none() && Rule::parse("murmur3").is_none());
    }

    #[test]
    fn random_variants_differ_only_in_the_empty_keys_detail_and_growth_is_kafkas() {
        let plain = LibrdkafkaPartitioner::new("l", rule("fnv1a"), 5).unwrap();
        let random = LibrdkafkaPartitioner::new("l", rule("fnv1a_random"), 5).unwrap();
        for key in keys(500) {
            assert_eq!(plain.shard_of(&key), random.shard_of(&key));
            assert_eq!(plain.detail(&key), random.detail(&key));
        }
        assert_eq!(random.detail(b"").as_deref(), Some("random"));
        assert_eq!(
            plain.detail(b""),
            Some((0x811c_9dc5u32.wrapping_neg()).to_string())
        );
        assert!(plain.resize_refusal(4).is_some() && plain.resize_refusal(8).is_none());
        let grown = plain.resized(8, &KeyCounts::new()).unwrap();
        assert_eq!(grown.shard_of(b"a"), rule("fnv1a").value(b"a") % 8);
        assert!(plain.removal_refusal().is_some() && plain.replica_refusal().is_some());
    }
}
