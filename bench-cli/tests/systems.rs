//! The real systems' schemes through the `shardlab` binary: `run` and `plan` accept them like
//! any other scheme, Kafka's broker metrics reach `summary.csv`, and a growth the system
//! cannot make fails with the targets it can.

use std::path::Path;

mod common;

use common::{csv_rows, shardlab, stderr_of, stdout_of};

const SYSTEMS: &str = "redis-cluster,kafka:brokers=3,cassandra,elasticsearch";

/// `summary.csv` rows of `scheme` as (metric, value).
fn summary_of(dir: &Path, scheme: &str) -> Vec<(String, String)> {
    let mut r = csv::Reader::from_path(dir.join("summary.csv")).unwrap();
    r.records()
        .map(|rec| rec.unwrap())
        .filter(|rec| &rec[1] == scheme)
        .map(|rec| (rec[3].to_string(), rec[4].to_string()))
        .collect()
}

fn value(rows: &[(String, String)], metric: &str) -> f64 {
    rows.iter()
        .find(|(m, _)| m == metric)
        .unwrap_or_else(|| panic!("no {metric} in {rows:?}"))
        .1
        .parse()
        .unwrap()
}

#[test]
fn run_replays_the_four_systems_and_measures_the_hottest_kafka_broker() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    shardlab()
        .args([
            "run",
            "--workload",
            "uniform:keys=20000",
            "--events",
            "50000",
        ])
        .args([
            "--schemes",
            SYSTEMS,
            "--shards",
            "4",
            "--grow",
            "8",
            "--quiet",
        ])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let kafka = summary_of(&out, "kafka:brokers=3");
    // 4 partitions on 3 brokers: broker 0 leads partitions 0 and 3, so about half the load.
    let broker_share = value(&kafka, "broker_hottest_share");
    assert!((broker_share - 0.5).abs() < 0.03, "{broker_share}");
    assert!((value(&kafka, "broker_hottest_ratio") - 3.0 * broker_share).abs() < 1e-9);
    // Growing 4 to 8 partitions keeps a key when h mod 8 < 4: half the keys move.
    assert!((value(&kafka, "remap_fraction") - 0.5).abs() < 0.03);
    // Slots and routing shards spread evenly; 16 random tokens per node much less so.
    for (scheme, spread) in [
        ("redis-cluster", 1.1),
        ("elasticsearch", 1.1),
        ("cassandra", 2.0),
    ] {
        let rows = summary_of(&out, scheme);
        assert!(
            value(&rows, "hottest_shard_ratio") < spread,
            "{scheme}: {rows:?}"
        );
        assert!(rows.iter().all(|(m, _)| !m.starts_with("broker_")));
    }
    // Elasticsearch splits shard s into 2s and 2s+1 of a new index: a document keeps its shard
    // number only on shard 0 -> 0, 1/8 of them.
    let es = summary_of(&out, "elasticsearch");
    assert!((value(&es, "remap_fraction") - 0.875).abs() < 0.03);
    // Redis gives each new master 2048 slots taken from the old ones: half the slots move.
    let redis = summary_of(&out, "redis-cluster");
    assert!((value(&redis, "remap_fraction") - 0.5).abs() < 0.03);
}

/// `run` of range, elasticsearch and kafka from 4 shards to `grow`: (stdout, summary dir).
fn run_growing_to(grow: &str) -> (String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let assert = shardlab()
        .args([
            "run",
            "--workload",
            "uniform:keys=2000",
            "--events",
            "10000",
        ])
        .args(["--schemes", "range,elasticsearch,kafka", "--shards", "4"])
        .args(["--grow", grow, "--out"])
        .arg(dir.path().join("run"))
        .assert()
        .success();
    (stdout_of(&assert), dir)
}

/// The value cell of one metric of one scheme in `summary.csv` (empty when not applicable).
fn cell(rows: &[(String, String)], metric: &str) -> String {
    rows.iter()
        .find(|(m, _)| m == metric)
        .unwrap_or_else(|| panic!("no {metric} in {rows:?}"))
        .1
        .clone()
}

#[test]
fn a_growth_the_system_cannot_make_leaves_its_remap_empty_with_the_reason() {
    let remap = [
        "remap_fraction",
        "remap_fraction_traffic",
        "remap_ideal",
        "remap_to_new_shards",
        "grow_added_share",
        "hottest_shard_share_grown",
    ];
    // 4 -> 5: Elasticsearch can only _split to 8, 16, ...; Kafka adds a partition.
    let (stdout, dir) = run_growing_to("5");
    let out = dir.path().join("run");
    let es = summary_of(&out, "elasticsearch");
    assert!(remap.iter().all(|m| cell(&es, m).is_empty()), "{es:?}");
    assert!(
        value(&es, "hottest_shard_ratio") > 0.9,
        "other figures stay: {es:?}"
    );
    // Kafka: a key keeps its partition when h mod 5 = h mod 4, that is h mod 20 < 4: 4/5 move.
    let kafka = summary_of(&out, "kafka");
    assert!((value(&kafka, "remap_fraction") - 0.8).abs() < 0.04);
    assert!((value(&kafka, "remap_ideal") - 0.2).abs() < 1e-9);
    assert!(value(&summary_of(&out, "range"), "remap_fraction") > 0.0);
    let why = "Elasticsearch cannot _split an index of 4 shards (routing_num_shards 1024) to 5; \
               allowed targets: 8, 16, 32, 64, 128, 256, 512, 1024";
    assert!(stdout.contains(why), "{stdout}");
    // Markdown escapes the underscores.
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.replace('\\', "").contains(why), "{report}");
    assert!(!report.contains("kafka': Kafka cannot"), "{report}");

    // 4 -> 3: Elasticsearch can only _shrink to 1 or 2; Kafka cannot remove partitions.
    let (stdout, dir) = run_growing_to("3");
    let out = dir.path().join("run");
    for scheme in ["elasticsearch", "kafka"] {
        let rows = summary_of(&out, scheme);
        assert!(remap.iter().all(|m| cell(&rows, m).is_empty()), "{rows:?}");
    }
    let range = summary_of(&out, "range");
    assert!((value(&range, "remap_ideal") - 0.25).abs() < 1e-9);
    assert!(
        stdout.contains("cannot _shrink an index of 4 shards"),
        "{stdout}"
    );
    assert!(stdout.contains("allowed targets: 1, 2"), "{stdout}");
    assert!(
        stdout.contains("Kafka cannot reduce a topic's partitions (4 to 3)"),
        "{stdout}"
    );
    // The advice does not reward a growth that was not made.
    let rec = std::fs::read_to_string(out.join("recommendation.csv")).unwrap();
    assert!(!rec.is_empty());
}

#[test]
fn route_refuses_a_growth_the_system_cannot_make_with_the_targets_it_can() {
    // Alone or beside others, a scheme that cannot reach the target keeps `shard_after`
    // empty and says why: the same rule either way.
    let assert = shardlab()
        .args(["route", "--schemes", "elasticsearch", "--shards", "6"])
        .args(["--grow", "8", "foo"])
        .assert()
        .success();
    let stderr = stderr_of(&assert);
    assert!(
        stderr.contains("shard_after left empty")
            && stderr.contains("cannot _split an index of 6 shards")
            && stderr.contains("allowed targets: 12, 24, 48, 96, 192, 384, 768"),
        "{stderr}"
    );
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert!(stdout.lines().nth(1).unwrap().ends_with(','), "{stdout}");
    let assert = shardlab()
        .args(["route", "--schemes", "kafka", "--shards", "6"])
        .args(["--grow", "4", "foo"])
        .assert()
        .success();
    assert!(stderr_of(&assert).contains("Kafka cannot reduce a topic's partitions"));
    // Beside schemes that can grow, the refusing one keeps `shard_after` empty and says why.
    let assert = shardlab()
        .args(["route", "--schemes", "hash,elasticsearch", "--shards", "6"])
        .args(["--grow", "8", "foo"])
        .assert()
        .success();
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    let rows: Vec<Vec<&str>> = stdout.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows[0], ["key", "scheme", "shard", "detail", "shard_after"]);
    assert_eq!(rows[1][1], "hash");
    assert!(rows[1][4].parse::<u32>().unwrap() < 8, "{stdout}");
    assert_eq!(rows[2][1], "elasticsearch");
    assert_eq!(rows[2][4], "", "{stdout}");
    let stderr = stderr_of(&assert);
    assert!(
        stderr.contains("shard_after left empty: scheme 'elasticsearch'")
            && stderr.contains("allowed targets: 12, 24"),
        "{stderr}"
    );
}

#[test]
fn the_report_and_stdout_name_the_system_each_scheme_follows() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let assert = shardlab()
        .args(["run", "--workload", "uniform:keys=1000", "--events", "5000"])
        .args([
            "--schemes",
            "range,redis-cluster,kafka,cassandra,elasticsearch",
        ])
        .args(["--shards", "4", "--grow", "8", "--out"])
        .arg(&out)
        .assert()
        .success();
    let stdout = stdout_of(&assert);
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    for (scheme, system) in [
        ("redis-cluster", "Redis 7.0 cluster slots"),
        ("kafka", "Kafka 3.x/4.x default partitioner"),
        ("cassandra", "Cassandra 3.x-5.x Murmur3Partitioner"),
        ("elasticsearch", "Elasticsearch 7+ / OpenSearch routing"),
    ] {
        let label = format!("{scheme} ({system})");
        assert_eq!(
            schemes::display_label(scheme),
            label,
            "the label comes from the registry"
        );
        assert!(stdout.contains(&format!("{label} (4->8)")), "{stdout}");
        assert!(report.contains(&label), "{label} not in the report");
    }
    // Abstract schemes keep their plain label.
    assert!(stdout.contains("  range (4->8)"), "{stdout}");
    assert_eq!(schemes::display_label("ring:vnodes=8"), "ring:vnodes=8");
    // The approximated allocator says so in its label.
    assert_eq!(
        schemes::display_label("cassandra:allocation=rf3"),
        "cassandra:allocation=rf3 (Cassandra 3.x-5.x Murmur3Partitioner, 4.0 token allocator \
         approximated)"
    );
}

/// `plan` of 50,000 events of a uniform workload at 100,000 requests/s, 12,500 per shard.
fn plan_of_100k_requests() -> assert_cmd::Command {
    let mut cmd = shardlab();
    cmd.args([
        "plan",
        "--workload",
        "uniform:keys=100000",
        "--rate",
        "100000",
    ])
    .args(["--events", "50000", "--capacity", "12500"]);
    cmd
}

#[test]
fn plan_sizes_the_four_systems() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("plan");
    let assert = plan_of_100k_requests()
        .args(["--schemes", SYSTEMS])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let stdout = stdout_of(&assert);
    for scheme in [
        "redis-cluster",
        "kafka:brokers=3",
        "cassandra",
        "elasticsearch",
    ] {
        assert!(stdout.contains(scheme), "{scheme} missing from:\n{stdout}");
    }
    assert!(out.join("plan.csv").exists());
}

/// `plan.csv` rows as (scheme, shards_needed, note).
fn plan_rows(dir: &Path) -> Vec<(String, String, String)> {
    let mut r = csv::Reader::from_path(dir.join("plan.csv")).unwrap();
    let header = r.headers().unwrap().clone();
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (scheme, needed, note) = (at("scheme"), at("shards_needed"), at("note"));
    r.records()
        .map(|rec| rec.unwrap())
        .map(|rec| {
            let text = |i: usize| rec[i].to_string();
            (text(scheme), text(needed), text(note))
        })
        .collect()
}

#[test]
fn plan_from_a_current_layout_skips_the_counts_a_system_cannot_reach() {
    // 50,000 events in the trace's one 1 s window at 12500 x 0.8 requests/s per shard: 5 or
    // 6 shards (the hottest shard of a hashed layout takes a little more than its share).
    let plan = |current: &str| {
        let dir = tempfile::tempdir().unwrap();
        plan_of_100k_requests()
            .args([
                "--schemes",
                "hash,elasticsearch,kafka",
                "--current",
                current,
            ])
            .arg("--out")
            .arg(dir.path().join("plan"))
            .assert()
            .success();
        plan_rows(&dir.path().join("plan"))
    };
    let row = |rows: &[(String, String, String)], scheme: &str| {
        rows.iter().find(|r| r.0 == scheme).unwrap().clone()
    };
    let rows = plan("4");
    let hash: u32 = row(&rows, "hash").1.parse().unwrap();
    assert!((5..=7).contains(&hash), "{rows:?}");
    assert!(!row(&rows, "hash").2.contains("skipped"));
    // From 4 shards Elasticsearch can _split to 8, 16, ...: 8, and the note says why the
    // counts below were skipped.
    let es = row(&rows, "elasticsearch");
    assert_eq!(es.1, "8", "{rows:?}");
    assert!(
        es.2.contains("cannot _split an index of 4 shards"),
        "{es:?}"
    );
    // Kafka can add any number of partitions.
    let kafka: u32 = row(&rows, "kafka").1.parse().unwrap();
    assert!((5..=7).contains(&kafka), "{rows:?}");
    // From 32: Elasticsearch shrinks to 8 (a divisor); Kafka cannot go below 32.
    let rows = plan("32");
    let es = row(&rows, "elasticsearch");
    assert_eq!(es.1, "8", "{rows:?}");
    assert!(
        es.2.contains("cannot _shrink an index of 32 shards"),
        "{es:?}"
    );
    let kafka = row(&rows, "kafka");
    assert_eq!(kafka.1, "32", "{rows:?}");
    assert!(kafka.2.contains("Kafka cannot reduce"), "{kafka:?}");
    // At 400 requests/s per shard at least 157 shards: from 4, Elasticsearch reaches none of
    // 157..=220 (the counts checked one by one) and needs 256, the first split above.
    let dir = tempfile::tempdir().unwrap();
    shardlab()
        .args([
            "plan",
            "--workload",
            "uniform:keys=100000",
            "--rate",
            "100000",
        ])
        .args(["--events", "50000", "--capacity", "400", "--current", "4"])
        .args(["--schemes", "elasticsearch,kafka", "--out"])
        .arg(dir.path().join("plan"))
        .assert()
        .success();
    let rows = plan_rows(&dir.path().join("plan"));
    assert_eq!(row(&rows, "elasticsearch").1, "256", "{rows:?}");
    let kafka: u32 = row(&rows, "kafka").1.parse().unwrap();
    assert!((157..256).contains(&kafka), "{rows:?}");
}

#[test]
fn plan_refuses_replicas_on_schemes_whose_copies_are_not_shards() {
    for (scheme, why) in [
        ("redis-cluster", "replica nodes of its master"),
        (
            "elasticsearch",
            "copy of the same shard placed on another node",
        ),
        ("kafka", "replicas are on brokers"),
    ] {
        let assert = shardlab()
            .args(["plan", "--workload", "uniform:keys=1000", "--rate", "1000"])
            .args(["--events", "5000", "--capacity", "500", "--replicas", "2"])
            .args(["--schemes", scheme, "--out"])
            .arg(tempfile::tempdir().unwrap().path().join("plan"))
            .assert()
            .failure();
        let stderr = stderr_of(&assert);
        assert!(stderr.contains(why), "{scheme}: {stderr}");
    }
    // Cassandra's replicas are other nodes of the ring: SimpleStrategy.
    shardlab()
        .args(["plan", "--workload", "uniform:keys=1000", "--rate", "1000"])
        .args(["--events", "5000", "--capacity", "500", "--replicas", "2"])
        .args(["--schemes", "cassandra", "--out"])
        .arg(tempfile::tempdir().unwrap().path().join("plan"))
        .assert()
        .success();
}

#[test]
fn route_gives_each_systems_slot_hash_or_token_and_its_owner_before_and_after_growth() {
    let a = shardlab()
        .args([
            "route",
            "--schemes",
            "redis-cluster,kafka,cassandra,elasticsearch",
        ])
        .args(["--shards", "4", "--grow", "8", "foo", "21", "hello", "abc"])
        .assert()
        .success();
    let rows = csv_rows(&stdout_of(&a));
    assert_eq!(rows[0], ["key", "scheme", "shard", "detail", "shard_after"]);
    let row = |key: &str, scheme: &str| {
        rows.iter()
            .find(|r| r[0] == key && r[1] == scheme)
            .unwrap_or_else(|| panic!("no row for {key} {scheme}"))
            .clone()
    };
    // CLUSTER KEYSLOT foo = 12182: the third of four create ranges (8192-12287). After four
    // single-master growths the old masters keep their highest 2048 slots: 10240-12287.
    assert_eq!(row("foo", "redis-cluster")[2..], ["2", "12182", "2"]);
    // Kafka's UtilsTest: murmur2("21") = -973932308; toPositive = 1173551340 = 4 mod 8.
    assert_eq!(row("21", "kafka")[2..], ["0", "-973932308", "4"]);
    // Elasticsearch's test: murmur3("hello") = 0xd7c31989; floorMod(., 1024) = 393, so shard
    // 393 / 256 = 1 of 4 and 393 / 128 = 3 of 8.
    assert_eq!(row("hello", "elasticsearch")[2..], ["1", "-675079799", "3"]);
    // The driver's token of "abc"; its owner depends on the seeded tokens.
    let cassandra = row("abc", "cassandra");
    assert_eq!(cassandra[3], "-5434086359492102041");
    let before: u32 = cassandra[2].parse().unwrap();
    let after: u32 = cassandra[4].parse().unwrap();
    assert!(
        before < 4 && (after == before || after >= 4),
        "{cassandra:?}"
    );
    // u64 keys reach Redis as their decimal text: slot of "1234567".
    let a = shardlab()
        .args(["route", "--schemes", "redis-cluster,kafka", "--shards", "3"])
        .args(["--key-type", "u64", "1234567"])
        .assert()
        .success();
    let rows = csv_rows(&stdout_of(&a));
    let slot = schemes::redis_cluster::key_hash_slot(b"1234567");
    assert_eq!(rows[1][3], slot.to_string());
    let kafka = schemes::kafka::murmur2(&1_234_567u64.to_be_bytes());
    assert_eq!(rows[2][3], kafka.to_string());
}
