//! The real systems' schemes (`redis-cluster`, `kafka`, `cassandra`, `elasticsearch`) against
//! values the systems themselves publish or compute, built the way the CLI builds them.
//! (The live Redis Cluster test is `bench-cli/tests/redis_cluster.rs`.)

use schemes::cassandra::token;
use schemes::elasticsearch::routing_hash;
use schemes::kafka::{murmur2, partition_for_key};
use schemes::redis_cluster::key_hash_slot;
use schemes::{AnalysisError, KeyCounts, Partitioner};
use schemes::{BuildContext, SchemeSpec};
use workloads::KeyType;

fn try_build(spec: &str, shards: u32) -> Result<Box<dyn Partitioner>, AnalysisError> {
    build_for(spec, shards, KeyType::Bytes)
}

fn build_for(
    spec: &str,
    shards: u32,
    key_type: KeyType,
) -> Result<Box<dyn Partitioner>, AnalysisError> {
    SchemeSpec::parse_list(spec)?[0].build(&BuildContext {
        shards,
        warmup_keys: &[],
        key_type,
        weights: None,
    })
}

fn build(spec: &str, shards: u32) -> Box<dyn Partitioner> {
    try_build(spec, shards).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn cassandra_tokens_match_the_official_python_driver() {
    // Made by scripts/cassandra_tokens.py with cassandra-driver's Murmur3Token.from_key.
    let fixture = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/cassandra_tokens.csv"
    ))
    .unwrap();
    let cassandra = build("cassandra", 6);
    let mut checked = 0;
    let mut high_tail = 0;
    for line in fixture.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let (key_hex, expected) = line.split_once(',').unwrap();
        let key = unhex(key_hex);
        let expected: i64 = expected.parse().unwrap();
        assert_eq!(token(&key), expected, "key {key_hex}");
        assert_eq!(cassandra.detail(&key), Some(expected.to_string()));
        checked += 1;
        high_tail += key[key.len() / 16 * 16..].iter().any(|&b| b >= 0x80) as usize;
    }
    assert!(checked >= 4000, "only {checked} tokens in the fixture");
    assert!(
        high_tail >= 1000,
        "only {high_tail} keys with a tail byte >= 0x80"
    );
}

#[test]
fn the_systems_are_registered_but_not_in_the_default_suite() {
    let defaults: Vec<String> = SchemeSpec::all_defaults()
        .iter()
        .map(SchemeSpec::label)
        .collect();
    assert_eq!(defaults, ["range", "hash", "ring", "salted"]);
    for name in ["redis-cluster", "kafka", "cassandra", "elasticsearch"] {
        let p = build(name, 6);
        assert_eq!(p.shard_count(), 6);
        assert!(
            p.detail(b"user42").is_some(),
            "{name} explains its placement"
        );
    }
}

#[test]
fn bad_parameters_are_refused_with_the_reason() {
    let err = |spec: &str, shards| try_build(spec, shards).err().expect("refused").to_string();
    assert!(err("kafka:rf=2", 4).contains("give brokers=B"));
    assert!(err("kafka:brokers=2,rf=3", 4).contains("larger than the 2 available brokers"));
    assert!(err("kafka:brokers=3,start=3", 4).contains("below brokers=3"));
    assert!(err("cassandra:allocation=balanced", 4).contains("use 'random'"));
    assert!(err("cassandra:num_tokens=0", 4).contains("at least 1"));
    assert!(err("elasticsearch:routing_shards=30", 4).contains("multiple of the 4 shards"));
    assert!(err("redis-cluster", 16_385).contains("at most 16384 masters"));
    assert!(err("redis-cluster:x=1", 3).contains("unknown parameter"));
    for spec in ["redis-cluster", "kafka", "cassandra", "elasticsearch"] {
        let weighted = SchemeSpec::parse_list(spec).unwrap()[0].build(&BuildContext {
            shards: 2,
            warmup_keys: &[],
            key_type: KeyType::Bytes,
            weights: Some(&[1.0, 2.0]),
        });
        let why = weighted.err().expect("weights refused").to_string();
        assert!(why.contains("cannot honour --weights"), "{spec}: {why}");
    }
}

#[test]
fn kafka_growth_moves_exactly_the_keys_whose_partition_formula_changes() {
    let mut keys = KeyCounts::new();
    let names: Vec<String> = (0..20_000).map(|i| format!("order-{i}")).collect();
    names.iter().for_each(|k| keys.add(k.as_bytes(), 1));
    let twelve = build("kafka", 12);
    let sixteen = twelve.resized(16, &keys).unwrap();
    let moved = names
        .iter()
        .filter(|k| twelve.shard_of(k.as_bytes()) != sixteen.shard_of(k.as_bytes()))
        .count();
    let by_formula = names
        .iter()
        .filter(|k| partition_for_key(k.as_bytes(), 12) != partition_for_key(k.as_bytes(), 16))
        .count();
    assert_eq!(moved, by_formula);
    // A key keeps its partition when h mod 48 < 12 (both remainders agree): 1/4 stay.
    let stay = 1.0 - moved as f64 / names.len() as f64;
    assert!((stay - 0.25).abs() < 0.02, "{stay}");
    assert!(twelve.without_shard(3, &keys).unwrap().is_none());
    let why = schemes::placement::cannot_remove_message(twelve.as_ref());
    assert!(why.contains("never removes a partition"), "{why}");
}

#[test]
fn elasticsearch_refuses_targets_that_split_and_shrink_cannot_reach() {
    let keys = KeyCounts::new();
    let six = build("elasticsearch", 6);
    let err = six.resized(8, &keys).err().expect("refused").to_string();
    assert!(
        err.contains("allowed targets: 12, 24, 48, 96, 192, 384, 768"),
        "{err}"
    );
    assert_eq!(six.resized(3, &keys).unwrap().shard_count(), 3);
    assert!(six.resized(4, &keys).is_err());
    assert!(six.without_shard(0, &keys).unwrap().is_none());
    let why = schemes::placement::cannot_remove_message(six.as_ref());
    assert!(
        why.contains("a lost primary is replaced by a replica"),
        "{why}"
    );
}

#[test]
fn redis_and_cassandra_remove_any_shard_by_their_own_rule() {
    let keys = KeyCounts::new();
    for spec in ["redis-cluster", "cassandra"] {
        let p = build(spec, 5);
        let after = p.without_shard(2, &keys).unwrap().expect(spec);
        assert_eq!(after.shard_count(), 4);
        // Keys of surviving shards stay (renumbered) unless their master gave slots away.
        let stayed = (0..5000u32)
            .map(|i| format!("k{i}"))
            .filter(|k| {
                let before = p.shard_of(k.as_bytes());
                before != 2 && {
                    let expected = if before > 2 { before - 1 } else { before };
                    after.shard_of(k.as_bytes()) == expected
                }
            })
            .count();
        let on_survivors = (0..5000u32)
            .filter(|i| p.shard_of(format!("k{i}").as_bytes()) != 2)
            .count();
        assert_eq!(
            stayed, on_survivors,
            "{spec}: only the removed shard's keys move"
        );
    }
}

#[test]
fn integer_keys_reach_each_system_as_its_clients_send_them() {
    // Redis clients and Elasticsearch ids send an integer as decimal text; Kafka's
    // LongSerializer and Cassandra's bigint send 8 big-endian bytes.
    let key = workloads::key::encode_u64(1_234_567);
    let expected = [
        ("redis-cluster", key_hash_slot(b"1234567").to_string()),
        ("elasticsearch", routing_hash(b"1234567").to_string()),
        ("kafka", murmur2(&key).to_string()),
        ("cassandra", token(&key).to_string()),
    ];
    for (spec, detail) in expected {
        let p = build_for(spec, 4, KeyType::U64).unwrap();
        assert_eq!(p.detail(&key), Some(detail), "{spec}");
        let grown = p.resized(8, &KeyCounts::new()).unwrap();
        assert_eq!(
            grown.detail(&key),
            p.detail(&key),
            "{spec} keeps reading keys as text"
        );
    }
}

#[test]
fn non_ascii_keys_hash_as_the_systems_java_code_does() {
    // Expected values from Elasticsearch's Murmur3HashFunction.hash(String) (UTF-16 code
    // units, a supplementary character as its surrogate pair) and Kafka's Utils.murmur2 (tail
    // bytes >= 0x80, every tail length, the empty key), run on the JVM.
    let es: [(&str, i32); 7] = [
        ("héllo", 493_253_914),
        ("日本語のキー", -1_492_305_242),
        ("🔑key", 1_747_588_539),
        ("𝄞", 1_697_988_357),
        ("user-😀-42", -1_705_103_978),
        ("ключ", -497_090_284),
        ("", 0),
    ];
    for (text, expected) in es {
        assert_eq!(routing_hash(text.as_bytes()), expected, "{text}");
    }
    let kafka: [(&[u8], i32); 5] = [
        (&[0xff], -311_467_685),
        (&[0xff, 0x80], -442_788_720),
        (&[0xff, 0x80, 0x7f], 968_261_134),
        (&[0x80, 0x81, 0x82, 0x83, 0x84], -1_665_622_439),
        (b"", 275_646_681),
    ];
    for (key, expected) in kafka {
        assert_eq!(murmur2(key), expected, "{key:x?}");
    }
}
