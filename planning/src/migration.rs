//! Migration plans: for a growth or a drain, which data moves where, in steps that keep every
//! shard under a byte budget, with the bytes of each move and its time at a bandwidth.
//!
//! - **Moves** are the system's own units: a hash slot for `redis-cluster` (its keys' bytes
//!   go from the old master to the new one), a partition's replica list for `kafka` with
//!   `brokers=B` (a growth or a drain is of brokers: each replica added copies the
//!   partition's bytes from its leader), and a key for every other scheme.
//! - **Load**: what a move sends or receives on each shard (master, broker, server): a slot
//!   or key counts its bytes on its old and its new shard; a partition counts its bytes once
//!   on each broker that gains a replica and once per gained replica on its old leader.
//! - **Steps** ([`steps`]): the moves in their order (slots, partitions or keys ascending),
//!   cut into consecutive steps so that no shard's load in a step exceeds the budget; a new
//!   step starts when the next move would. One move above the budget alone is an error.
//! - **Time**: a move takes `bytes / bandwidth` seconds; a step takes its busiest shard's load
//!   `/ bandwidth` (shards move in parallel, each at the bandwidth); the plan is the sum.

use std::collections::BTreeMap;
use std::fmt::Write;

use schemes::kafka::Brokers;
use schemes::redis_cluster::{RedisClusterPartitioner, SLOTS};
use schemes::{AnalysisError, KeyCounts, Partitioner, ShardId};

/// A key and the bytes it stores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizedKey {
    /// The key's bytes.
    pub key: Vec<u8>,
    /// The bytes it stores (what a move copies).
    pub bytes: u64,
}

/// What changes: shards added up to a count, or one shard emptied and removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Grow to this many shards (masters, brokers, servers).
    Grow(u32),
    /// Empty this shard and remove it.
    Drain(ShardId),
}

/// The unit a move carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A Redis hash slot, from one master to another.
    Slot {
        /// The slot.
        slot: u16,
        /// Its master before.
        from: ShardId,
        /// Its master after.
        to: ShardId,
    },
    /// A Kafka partition's replica list (brokers, leader first).
    Partition {
        /// The partition.
        partition: u32,
        /// Its replicas before.
        from: Vec<u32>,
        /// Its replicas after.
        to: Vec<u32>,
    },
    /// One key, by its position in the keys given.
    Key {
        /// Index into the keys.
        index: usize,
        /// Its shard before.
        from: ShardId,
        /// Its shard after.
        to: ShardId,
    },
}

/// One move of a plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    /// What moves.
    pub unit: Unit,
    /// Keys in the unit.
    pub keys: u64,
    /// Bytes copied.
    pub bytes: u64,
    /// Bytes sent or received per shard, by shard (original numbering).
    pub loads: Vec<(u32, u64)>,
}

/// A step: consecutive moves that run together.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The moves of the step, as a range of the plan's moves.
    pub moves: std::ops::Range<usize>,
    /// Bytes copied in the step.
    pub bytes: u64,
    /// The largest load of one shard in the step.
    pub busiest: u64,
    /// `busiest / bandwidth`.
    pub seconds: f64,
}

/// The moves of a Redis Cluster created with `masters` masters (`redis-cli --cluster
/// create`) for `change`: growth adds masters one at a time (add-node + rebalance), a drain
/// empties one by a weight-0 rebalance. Shards are numbered as before the change (a grown
/// master is the next number). Slots ascending.
pub fn redis_moves(
    masters: u32,
    change: Change,
    keys: &[SizedKey],
) -> Result<Vec<Move>, AnalysisError> {
    let before = RedisClusterPartitioner::created("redis-cluster", masters)?;
    let after: Vec<ShardId> = match change {
        Change::Grow(m) => {
            let mut grown = before.clone();
            while grown.shard_count() < m {
                grown = grown.with_master_added()?;
            }
            grown.slot_owners().to_vec()
        }
        Change::Drain(s) => before
            .with_master_removed(s)?
            .slot_owners()
            .iter()
            .map(|&t| t + u32::from(t >= s))
            .collect(),
    };
    let mut per_slot = vec![(0u64, 0u64); SLOTS];
    for k in keys {
        let slot = &mut per_slot[before.slot_of(&k.key) as usize];
        slot.0 += 1;
        slot.1 += k.bytes;
    }
    Ok((0..SLOTS)
        .filter(|&slot| before.slot_owners()[slot] != after[slot])
        .map(|slot| {
            let (from, to) = (before.slot_owners()[slot], after[slot]);
            let (keys, bytes) = per_slot[slot];
            Move {
                unit: Unit::Slot {
                    slot: slot as u16,
                    from,
                    to,
                },
                keys,
                bytes,
                loads: vec![(from, bytes), (to, bytes)],
            }
        })
        .collect())
}

/// The reassignments of a Kafka topic of `partitions` partitions placed on `brokers` when
/// the brokers change: growth to `Grow(M)` brokers `0..M`, or `Drain(b)` of broker `b`, the
/// partitions placed again by the same rack-unaware assignment over the remaining broker
/// ids in order. Partitions ascending; only those whose replica list changes.
pub fn kafka_moves(
    partitions: u32,
    brokers: Brokers,
    change: Change,
    keys: &[SizedKey],
) -> Result<Vec<Move>, AnalysisError> {
    let ids: Vec<u32> = match change {
        Change::Grow(m) if m > brokers.count => (0..m).collect(),
        Change::Grow(m) => {
            return Err(AnalysisError::Config(format!(
                "kafka: growing the brokers needs more than the {} brokers (got {m})",
                brokers.count
            )))
        }
        Change::Drain(b) if b < brokers.count && brokers.count > brokers.rf => {
            (0..brokers.count).filter(|&i| i != b).collect()
        }
        Change::Drain(b) => {
            return Err(AnalysisError::Config(format!(
                "kafka: broker {b} cannot be drained from {} brokers with rf={} (brokers \
                 are 0..{} and rf replicas need rf brokers)",
                brokers.count, brokers.rf, brokers.count
            )))
        }
    };
    let after = Brokers {
        count: ids.len() as u32,
        ..brokers
    };
    let mut per_partition = vec![(0u64, 0u64); partitions as usize];
    for k in keys {
        let p = &mut per_partition[schemes::kafka::partition_for_key(&k.key, partitions) as usize];
        p.0 += 1;
        p.1 += k.bytes;
    }
    let mut moves = Vec::new();
    for p in 0..partitions {
        let from = brokers.replicas_of(p);
        let to: Vec<u32> = after
            .replicas_of(p)
            .into_iter()
            .map(|i| ids[i as usize])
            .collect();
        if from == to {
            continue;
        }
        let (keys, bytes) = per_partition[p as usize];
        let added: Vec<u32> = to.iter().copied().filter(|b| !from.contains(b)).collect();
        let mut loads: Vec<(u32, u64)> = added.iter().map(|&b| (b, bytes)).collect();
        if !added.is_empty() {
            loads.push((from[0], bytes * added.len() as u64));
        }
        moves.push(Move {
            unit: Unit::Partition {
                partition: p,
                from,
                to,
            },
            keys,
            bytes: bytes * added.len() as u64,
            loads,
        });
    }
    Ok(moves)
}

/// The keys that change shard between `before` and the scheme after `change` (its own
/// growth or removal rule), in the order given; shards numbered as before the change.
pub fn key_moves(
    before: &dyn Partitioner,
    change: Change,
    keys: &[SizedKey],
) -> Result<Vec<Move>, AnalysisError> {
    let mut counts = KeyCounts::new();
    for k in keys {
        counts.add(&k.key, 1);
    }
    let (after, drained) = match change {
        Change::Grow(m) => (before.resized(m, &counts)?, None),
        Change::Drain(s) => match before.without_shard(s, &counts)? {
            Some(after) => (after, Some(s)),
            None => {
                return Err(AnalysisError::Config(format!(
                    "scheme '{}' has no rule for removing shard {s}",
                    before.label()
                )))
            }
        },
    };
    Ok(keys
        .iter()
        .enumerate()
        .filter_map(|(index, k)| {
            let from = before.shard_of(&k.key);
            let mut to = after.shard_of(&k.key);
            if let Some(s) = drained {
                to += u32::from(to >= s);
            }
            (from != to).then(|| Move {
                unit: Unit::Key { index, from, to },
                keys: 1,
                bytes: k.bytes,
                loads: vec![(from, k.bytes), (to, k.bytes)],
            })
        })
        .collect())
}

/// Cuts `moves` into consecutive steps, no shard loaded above `budget` bytes in a step (see
/// the module doc); errors name a move that alone is above it.
pub fn steps(moves: &[Move], budget: u64, bandwidth: f64) -> Result<Vec<Step>, AnalysisError> {
    let mut steps = Vec::new();
    let mut start = 0;
    let mut loads: BTreeMap<u32, u64> = BTreeMap::new();
    let mut bytes = 0;
    let close = |steps: &mut Vec<Step>, range, loads: &BTreeMap<u32, u64>, bytes| {
        let busiest = loads.values().copied().max().unwrap_or(0);
        steps.push(Step {
            moves: range,
            bytes,
            busiest,
            seconds: busiest as f64 / bandwidth,
        });
    };
    for (i, m) in moves.iter().enumerate() {
        if let Some((shard, load)) = m.loads.iter().find(|(_, l)| *l > budget) {
            return Err(AnalysisError::Config(format!(
                "{} alone puts {load} bytes on shard {shard}, above the step budget of \
                 {budget} bytes; raise --step-bytes to at least {load}",
                describe(&m.unit)
            )));
        }
        let fits = m
            .loads
            .iter()
            .all(|(s, l)| loads.get(s).copied().unwrap_or(0) + l <= budget);
        if !fits {
            close(&mut steps, start..i, &loads, bytes);
            start = i;
            loads.clear();
            bytes = 0;
        }
        for (s, l) in &m.loads {
            *loads.entry(*s).or_default() += l;
        }
        bytes += m.bytes;
    }
    if start < moves.len() {
        close(&mut steps, start..moves.len(), &loads, bytes);
    }
    Ok(steps)
}

/// A unit for people: `slot 5461`, `partition 3`, `key 17`.
fn describe(unit: &Unit) -> String {
    match unit {
        Unit::Slot { slot, .. } => format!("slot {slot}"),
        Unit::Partition { partition, .. } => format!("partition {partition}"),
        Unit::Key { index, .. } => format!("the key on line {}", index + 1),
    }
}

/// Brokers or shards as `a b c` for the CSV.
fn list(ids: &[u32]) -> String {
    ids.iter().map(u32::to_string).collect::<Vec<_>>().join(" ")
}

/// `moves.csv`: `step,unit,id,from,to,keys,bytes,seconds`, one row per move (`id` is the
/// slot, the partition or the key's text; `from`/`to` a shard, or a partition's brokers
/// space-separated).
pub fn moves_csv(
    moves: &[Move],
    steps: &[Step],
    (keys, key_type): (&[SizedKey], workloads::KeyType),
    bandwidth: f64,
) -> Result<Vec<u8>, csv::Error> {
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record([
        "step", "unit", "id", "from", "to", "keys", "bytes", "seconds",
    ])?;
    for (n, step) in steps.iter().enumerate() {
        for m in &moves[step.moves.clone()] {
            let (unit, id, from, to) = match &m.unit {
                Unit::Slot { slot, from, to } => (
                    "slot",
                    slot.to_string().into_bytes(),
                    from.to_string(),
                    to.to_string(),
                ),
                Unit::Partition {
                    partition,
                    from,
                    to,
                } => (
                    "partition",
                    partition.to_string().into_bytes(),
                    list(from),
                    list(to),
                ),
                Unit::Key { index, from, to } => (
                    "key",
                    key_type.display(&keys[*index].key).into_bytes(),
                    from.to_string(),
                    to.to_string(),
                ),
            };
            out.write_record([
                (n + 1).to_string().as_bytes(),
                unit.as_bytes(),
                &id,
                from.as_bytes(),
                to.as_bytes(),
                m.keys.to_string().as_bytes(),
                m.bytes.to_string().as_bytes(),
                format!("{:.6}", m.bytes as f64 / bandwidth).as_bytes(),
            ])?;
        }
    }
    out.into_inner().map_err(|e| e.into_error().into())
}

/// `steps.csv`: `step,moves,keys,bytes,busiest_shard_bytes,seconds`.
pub fn steps_csv(moves: &[Move], steps: &[Step]) -> String {
    let mut out = String::from("step,moves,keys,bytes,busiest_shard_bytes,seconds\n");
    for (n, s) in steps.iter().enumerate() {
        let keys: u64 = moves[s.moves.clone()].iter().map(|m| m.keys).sum();
        let _ = writeln!(
            out,
            "{},{},{keys},{},{},{:.6}",
            n + 1,
            s.moves.len(),
            s.bytes,
            s.busiest,
            s.seconds
        );
    }
    out
}

/// A shell script of `redis-cli` commands that carries out the Redis plan on the masters at
/// `nodes` (`host:port`, shard i = line i; a growth lists the new masters too): the new
/// masters join with `--cluster add-node`, then one `--cluster reshard` per run of slots
/// between the same two masters in each step, and a drained master leaves with
/// `--cluster del-node`. `reshard` moves the lowest slots its source holds: every command is
/// checked to move exactly the planned slots, or this fails.
pub fn redis_script(
    masters: u32,
    change: Change,
    moves: &[Move],
    steps: &[Step],
    nodes: &[String],
    bandwidth: f64,
) -> Result<String, AnalysisError> {
    let total = match change {
        Change::Grow(m) => m,
        Change::Drain(_) => masters,
    };
    if nodes.len() != total as usize {
        return Err(AnalysisError::Config(format!(
            "--nodes lists {} masters; this plan needs {total} (shard i = line i{})",
            nodes.len(),
            if matches!(change, Change::Grow(_)) {
                ", the new masters included"
            } else {
                ""
            }
        )));
    }
    // Every master's slots, to check that each reshard takes the planned ones.
    let before = RedisClusterPartitioner::created("redis-cluster", masters)?;
    let mut held: Vec<std::collections::BTreeSet<u16>> = vec![Default::default(); total as usize];
    for (slot, &s) in before.slot_owners().iter().enumerate() {
        held[s as usize].insert(slot as u16);
    }
    let bytes: u64 = moves.iter().map(|m| m.bytes).sum();
    let seconds: f64 = steps.iter().map(|s| s.seconds).sum();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "#!/bin/sh\n# shardlab migrate: redis-cluster, {masters} masters {}; {} slots, {bytes} \
         bytes in {} steps, {seconds:.3} s at {bandwidth} bytes/s.\nset -eu",
        match change {
            Change::Grow(m) => format!("grown to {m}"),
            Change::Drain(s) => format!("with master {s} drained"),
        },
        moves.len(),
        steps.len()
    );
    for (i, n) in nodes.iter().enumerate() {
        let _ = writeln!(out, "node{i}={n}");
    }
    out.push_str(
        "id() { redis-cli -h \"${1%:*}\" -p \"${1##*:}\" CLUSTER MYID; }\n\
         masters() { redis-cli -h \"${1%:*}\" -p \"${1##*:}\" CLUSTER NODES | grep -c master; }\n\
         ok() { redis-cli -h \"${1%:*}\" -p \"${1##*:}\" CLUSTER INFO | grep -q cluster_state:ok; }\n",
    );
    for new in masters..total {
        let _ = writeln!(
            out,
            "redis-cli --cluster add-node \"$node{new}\" \"$node0\"\n\
             until [ \"$(masters \"$node{new}\")\" -eq {} ]; do sleep 0.2; done",
            new + 1
        );
    }
    if total > masters {
        let _ = writeln!(
            out,
            "for n in {}; do\n  until [ \"$(masters \"$n\")\" -eq {total} ] && ok \"$n\"; do sleep 0.2; done\ndone",
            (0..total)
                .map(|i| format!("\"$node{i}\""))
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    for i in 0..total {
        let _ = writeln!(out, "id{i}=$(id \"$node{i}\")");
    }
    for (n, step) in steps.iter().enumerate() {
        let _ = writeln!(
            out,
            "# step {}: {} slots, {} bytes, busiest master {} bytes ({:.3} s)",
            n + 1,
            step.moves.len(),
            step.bytes,
            step.busiest,
            step.seconds
        );
        let step_moves = &moves[step.moves.clone()];
        let mut i = 0;
        while i < step_moves.len() {
            let pair = |m: &Move| match m.unit {
                Unit::Slot { from, to, .. } => (from, to),
                _ => unreachable!("a Redis plan moves slots"),
            };
            let (from, to) = pair(&step_moves[i]);
            let run = step_moves[i..]
                .iter()
                .take_while(|m| pair(m) == (from, to))
                .count();
            let planned: Vec<u16> = step_moves[i..i + run]
                .iter()
                .map(|m| match m.unit {
                    Unit::Slot { slot, .. } => slot,
                    _ => unreachable!("a Redis plan moves slots"),
                })
                .collect();
            let lowest: Vec<u16> = held[from as usize].iter().copied().take(run).collect();
            if lowest != planned {
                return Err(AnalysisError::Config(format!(
                    "step {}: redis-cli --cluster reshard from master {from} would move its \
                     lowest slots, not the planned ones (slot {} first); leave out --nodes \
                     for moves.csv and steps.csv alone",
                    n + 1,
                    planned[0]
                )));
            }
            for s in &planned {
                held[from as usize].remove(s);
                held[to as usize].insert(*s);
            }
            let _ = writeln!(
                out,
                "redis-cli --cluster reshard \"$node{from}\" --cluster-from \"$id{from}\" \
                 --cluster-to \"$id{to}\" --cluster-slots {run} --cluster-yes"
            );
            i += run;
        }
    }
    if let Change::Drain(s) = change {
        let _ = writeln!(
            out,
            "redis-cli --cluster del-node \"$node{}\" \"$id{s}\"",
            if s == 0 { 1 } else { 0 }
        );
    }
    Ok(out)
}

/// A shell script that applies the Kafka plan step by step with
/// `kafka-reassign-partitions.sh` on topic `topic` (`$BOOTSTRAP` names the brokers), each
/// step's JSON in a here-document, waiting for `--verify` between steps.
pub fn kafka_script(topic: &str, moves: &[Move], steps: &[Step]) -> String {
    let mut out = String::from(
        "#!/bin/sh\n# shardlab migrate: kafka partition reassignments, one JSON per step.\n\
         set -eu\n: \"${BOOTSTRAP:?set BOOTSTRAP to host:port of a broker}\"\n",
    );
    for (n, step) in steps.iter().enumerate() {
        let partitions: Vec<serde_json::Value> = moves[step.moves.clone()]
            .iter()
            .filter_map(|m| match &m.unit {
                Unit::Partition { partition, to, .. } => Some(serde_json::json!({
                    "topic": topic, "partition": partition, "replicas": to
                })),
                _ => None,
            })
            .collect();
        let json = serde_json::json!({"version": 1, "partitions": partitions});
        let file = format!("reassign-step-{}.json", n + 1);
        let _ = writeln!(
            out,
            "# step {}: {} partitions, {} bytes, busiest broker {} bytes ({:.3} s)\n\
             cat > {file} <<'EOF'\n{json}\nEOF\n\
             kafka-reassign-partitions.sh --bootstrap-server \"$BOOTSTRAP\" \
             --reassignment-json-file {file} --execute\n\
             while kafka-reassign-partitions.sh --bootstrap-server \"$BOOTSTRAP\" \
             --reassignment-json-file {file} --verify | grep -q 'in progress'; do \
             sleep 5; done",
            n + 1,
            step.moves.len(),
            step.bytes,
            step.busiest,
            step.seconds
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sized(n: usize, bytes: u64) -> Vec<SizedKey> {
        (0..n)
            .map(|i| SizedKey {
                key: format!("key:{i}").into_bytes(),
                bytes,
            })
            .collect()
    }

    #[test]
    fn redis_growth_moves_the_slots_of_the_rebalance_and_counts_their_bytes() {
        let keys = sized(5000, 100);
        let moves = redis_moves(3, Change::Grow(4), &keys).unwrap();
        // 16384 / 4 = 4096 to the new master; the old three give the rest of their excess.
        assert_eq!(moves.len(), 4096);
        assert!(moves
            .iter()
            .all(|m| matches!(m.unit, Unit::Slot { to: 3, .. })));
        let total: u64 = moves.iter().map(|m| m.bytes).sum();
        let on_moved = keys
            .iter()
            .filter(|k| {
                let slot = schemes::redis_cluster::key_hash_slot(&k.key);
                moves
                    .iter()
                    .any(|m| matches!(m.unit, Unit::Slot { slot: s, .. } if s == slot))
            })
            .count() as u64;
        assert_eq!(total, on_moved * 100);
        let drain = redis_moves(3, Change::Drain(1), &keys).unwrap();
        assert_eq!(drain.len(), 5462); // master 1 holds 5461-10922
        assert!(drain
            .iter()
            .all(|m| matches!(m.unit, Unit::Slot { from: 1, to, .. } if to != 1)));
    }

    #[test]
    fn steps_keep_every_shard_under_the_budget_and_time_the_busiest() {
        let m = |from, to, bytes| Move {
            unit: Unit::Key { index: 0, from, to },
            keys: 1,
            bytes,
            loads: vec![(from, bytes), (to, bytes)],
        };
        let moves = vec![m(0, 1, 60), m(2, 3, 60), m(0, 3, 50), m(1, 2, 40)];
        let s = steps(&moves, 100, 10.0).unwrap();
        // Step 1: 0->1 and 2->3 (60 each on four shards); 0->3 would put 110 on 0: step 2.
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].moves, 0..2);
        assert_eq!((s[0].bytes, s[0].busiest, s[0].seconds), (120, 60, 6.0));
        assert_eq!(s[1].moves, 2..4);
        assert_eq!((s[1].busiest, s[1].seconds), (50, 5.0));
        let err = steps(&[m(0, 1, 101)], 100, 1.0).unwrap_err().to_string();
        assert!(err.contains("above the step budget"), "{err}");
        let csv = steps_csv(&moves, &s);
        assert!(csv.starts_with("step,moves,keys,bytes,busiest_shard_bytes,seconds\n1,2,2,120,60,"));
    }

    #[test]
    fn kafka_broker_growth_reassigns_partitions_and_copies_each_added_replica() {
        let brokers = Brokers {
            count: 3,
            rf: 2,
            start: 0,
        };
        let keys = sized(1000, 10);
        let moves = kafka_moves(6, brokers, Change::Grow(4), &keys).unwrap();
        for m in &moves {
            let Unit::Partition {
                partition,
                from,
                to,
            } = &m.unit
            else {
                panic!()
            };
            let four = Brokers {
                count: 4,
                ..brokers
            };
            assert_eq!(*to, four.replicas_of(*partition));
            assert_eq!(*from, brokers.replicas_of(*partition));
            let added = to.iter().filter(|b| !from.contains(b)).count() as u64;
            let part_bytes = 10
                * keys
                    .iter()
                    .filter(|k| schemes::kafka::partition_for_key(&k.key, 6) == *partition)
                    .count() as u64;
            assert_eq!(m.bytes, added * part_bytes);
        }
        assert!(!moves.is_empty());
        let drained = kafka_moves(6, brokers, Change::Drain(0), &keys).unwrap();
        assert!(drained.iter().all(|m| match &m.unit {
            Unit::Partition { to, .. } => !to.contains(&0),
            _ => false,
        }));
        assert!(kafka_moves(6, brokers, Change::Drain(3), &keys).is_err());
        let script = kafka_script("events", &moves, &steps(&moves, u64::MAX, 1.0).unwrap());
        assert!(script.contains("\"topic\":\"events\"") && script.contains("--execute"));
    }
}
