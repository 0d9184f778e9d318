//! The load no shard count can split: one key's requests, and one key's bytes.
//!
//! A key lives on its replicas and nowhere else. In its busiest window its busiest replica
//! serves all its reads and writes with reads at the leaseholder, or `reads / rf + writes`
//! with reads spread over `rf` replicas (writes reach every replica). When that rate, grown,
//! is above what a shard may serve, adding shards cannot help; [`HotKey::advice`] says what
//! would.

use serde::Serialize;
use workloads::KeyType;

use super::figures::rate;
use super::traffic::Traffic;
use super::window_load::{ReadPolicy, ReplicaPolicy};
use super::FIT_TOLERANCE;

/// Characters of a key quoted in a note (its `hot_key` column keeps the whole key).
pub(super) const NOTE_KEY_CHARS: usize = 64;

/// The key whose busiest replica is busiest, in its busiest window.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HotKey {
    /// The key.
    pub key: Vec<u8>,
    /// Its busiest window (counted from the first window).
    pub window: u32,
    /// Its gets in that window.
    pub reads: u64,
    /// Its puts and deletes in that window.
    pub writes: u64,
    /// Requests per second on its busiest replica in that window (before growth).
    pub rate_per_replica: f64,
    /// Its point requests / all point requests, over the whole trace.
    pub share: f64,
}

/// The busiest key under `policy`: the most requests on one replica in one window (ties: the
/// smallest key, then the earliest window). `None` without point requests.
pub fn hottest_key(traffic: &Traffic, policy: ReplicaPolicy) -> Option<HotKey> {
    let rf = u64::from(policy.replicas.max(1));
    // In units of 1/rf request, like the window loads.
    let units = |reads: u64, writes: u64| match policy.reads {
        ReadPolicy::Leader => (reads + writes) * rf,
        ReadPolicy::Any => reads + writes * rf,
    };
    let keys = traffic.keys();
    let best = traffic.entries().iter().max_by(|a, b| {
        units(a.reads, a.writes)
            .cmp(&units(b.reads, b.writes))
            .then_with(|| keys[b.key as usize].cmp(&keys[a.key as usize]))
            .then_with(|| b.window.cmp(&a.window))
    })?;
    let key = keys[best.key as usize].to_vec();
    // From the entries, which hold every key (the key counts may be a sample).
    let (mine, total) = traffic.entries().iter().fold((0u64, 0u64), |(m, t), e| {
        (
            m + if e.key == best.key {
                e.reads + e.writes
            } else {
                0
            },
            t + e.reads + e.writes,
        )
    });
    Some(HotKey {
        share: mine as f64 / total.max(1) as f64,
        rate_per_replica: units(best.reads, best.writes) as f64 / rf as f64 / traffic.window_secs(),
        key,
        window: best.window,
        reads: best.reads,
        writes: best.writes,
    })
}

/// The key that stores the most bytes (ties: the smallest key), with its bytes.
pub fn largest_key(traffic: &Traffic) -> Option<(Vec<u8>, u64)> {
    let keys = traffic.keys();
    traffic
        .key_bytes()
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.cmp(b.1).then_with(|| keys[b.0].cmp(&keys[a.0])))
        .map(|(i, &bytes)| (keys[i].to_vec(), bytes))
}

impl HotKey {
    /// Reads per second in the key's busiest window, grown by `growth`.
    pub fn read_rate(&self, window_secs: f64, growth: f64) -> f64 {
        growth * self.reads as f64 / window_secs
    }

    /// Writes per second in the key's busiest window, grown by `growth`.
    pub fn write_rate(&self, window_secs: f64, growth: f64) -> f64 {
        growth * self.writes as f64 / window_secs
    }

    /// One paragraph: no shard count works, which key, its rate, and what would work, for a
    /// shard that may serve `limit` requests per second.
    pub fn advice(
        &self,
        key_type: KeyType,
        window_secs: f64,
        growth: f64,
        limit: f64,
        policy: ReplicaPolicy,
    ) -> String {
        let (reads, writes) = (
            self.read_rate(window_secs, growth),
            self.write_rate(window_secs, growth),
        );
        let mut text = format!(
            "No shard count works: key '{}' alone needs {} requests/s on one shard in its busiest \
             {} s window ({} reads/s, {} writes/s, growth x{}), above the {} requests/s one shard \
             may serve (capacity x headroom). Adding shards never splits a key.",
            key_type.display_short(&self.key, NOTE_KEY_CHARS),
            rate(growth * self.rate_per_replica),
            window_secs,
            rate(reads),
            rate(writes),
            growth,
            rate(limit),
        );
        if writes >= limit && writes <= limit * (1.0 + FIT_TOLERANCE) {
            text.push_str(&format!(
                " Its writes alone ({} /s) take all of the limit and every replica applies every \
                 write, so no number of replicas helps; a cache in front of it would have to absorb \
                 all of its reads (100%).",
                rate(writes)
            ));
            return text;
        }
        if writes >= limit {
            text.push_str(&format!(
                " Its writes alone ({} /s) exceed the limit and every replica applies every write, \
                 so neither replicas nor a cache help: split the key into sub-keys or batch its writes.",
                rate(writes)
            ));
            return text;
        }
        let room = limit - writes; // reads/s one replica can take next to the writes
        let replicas = ((reads / room).ceil() as u32).max(2);
        // With the replicas as they are, the reads that reach one replica: all of them at the
        // leaseholder, 1/rf of them when spread.
        let readers = match policy.reads {
            ReadPolicy::Leader => 1.0,
            ReadPolicy::Any => f64::from(policy.replicas.max(1)),
        };
        let cache_hit = 1.0 - readers * room / reads;
        let reads_flag = if policy.reads == ReadPolicy::Leader {
            " --reads any"
        } else {
            ""
        };
        text.push_str(&format!(
            " What would work: --replicas {replicas}{reads_flag} (reads spread over {replicas} \
             replicas: {} requests/s each), or a cache in front of it that absorbs at least {:.1}% \
             of its reads.",
            rate(reads / f64::from(replicas) + writes),
            100.0 * cache_hit,
        ));
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hot(reads: u64, writes: u64) -> HotKey {
        HotKey {
            key: b"celebrity".to_vec(),
            window: 0,
            reads,
            writes,
            rate_per_replica: (reads + writes) as f64,
            share: 0.5,
        }
    }

    #[test]
    fn read_heavy_keys_are_told_how_many_replicas_or_what_cache_hit_ratio_would_fit() {
        let leader = ReplicaPolicy {
            replicas: 1,
            reads: ReadPolicy::Leader,
        };
        let text = hot(5000, 0).advice(KeyType::Bytes, 1.0, 1.0, 4000.0, leader);
        assert!(
            text.contains("key 'celebrity' alone needs 5,000 requests/s"),
            "{text}"
        );
        // 5000 reads over 2 replicas is 2500 each; a cache must absorb 1 - 4000/5000 = 20%.
        assert!(
            text.contains("--replicas 2 --reads any") && text.contains("2,500 requests/s each"),
            "{text}"
        );
        assert!(text.contains("at least 20.0%"), "{text}");
        // With 1000 writes/s, each replica has room for 3000 reads/s: 2 replicas.
        let text = hot(9000, 1000).advice(KeyType::Bytes, 1.0, 1.0, 4000.0, leader);
        assert!(text.contains("--replicas 3 --reads any"), "{text}");
    }

    #[test]
    fn the_cache_share_counts_the_replicas_that_already_spread_the_reads() {
        let any = ReplicaPolicy {
            replicas: 2,
            reads: ReadPolicy::Any,
        };
        // 3 reads/s and 1 write/s over 2 replicas: 1.5 + 1 = 2.5 on each, limit 2. A cache
        // that absorbs a third of the reads leaves 2 reads/s: 1 + 1 on each replica.
        let text = hot(3, 1).advice(KeyType::Bytes, 1.0, 1.0, 2.0, any);
        assert!(text.contains("at least 33.3% of its reads"), "{text}");
        assert!(text.contains("--replicas 3 (reads spread"), "{text}");
    }

    #[test]
    fn write_heavy_keys_are_told_that_replicas_and_caches_do_not_help() {
        let any = ReplicaPolicy {
            replicas: 3,
            reads: ReadPolicy::Any,
        };
        let text = hot(0, 5000).advice(KeyType::Bytes, 1.0, 2.0, 4000.0, any);
        assert!(
            text.contains("10,000 requests/s") && text.contains("growth x2"),
            "{text}"
        );
        assert!(text.contains("neither replicas nor a cache help"), "{text}");
        // Writes exactly at the limit (an exact fit holds): replicas cannot help, a cache that
        // absorbs every read can; they do not exceed the limit.
        let text = hot(1000, 2000).advice(KeyType::Bytes, 1.0, 2.0, 4000.0, any);
        assert!(!text.contains("exceed the limit"), "{text}");
        assert!(text.contains("absorb all of its reads (100%)"), "{text}");
    }
}
