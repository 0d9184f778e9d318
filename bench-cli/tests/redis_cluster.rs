//! `redis-cluster` against a real Redis Cluster: starts `redis-server` nodes on loopback
//! ports, builds a cluster with `redis-cli --cluster create`, and compares `CLUSTER KEYSLOT`
//! and `CLUSTER SLOTS` with shardlab's slots and slot map; then adds a master with
//! `--cluster add-node`, rebalances with `--cluster-use-empty-masters`, and compares the new
//! slot map with shardlab's growth rule. Then `shardlab migrate` plans, for a growth (5 -> 6
//! masters) and a drain (master 2 of 6 emptied and removed), applied with the `reshard.sh`
//! they write to a cluster with keys loaded: the slot map, every key's master and every
//! slot's key count are then where `shardlab route` and the plan's moves.csv put them, and
//! no step loads a master above the byte budget.
//!
//! Needs `redis-server` and `redis-cli` (Debian package `redis-server`). Without them the test
//! prints a SKIPPED line, or fails when `SHARDLAB_REQUIRE_REDIS=1` (as `.ci/run` sets).

use std::io::Write;
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use schemes::redis_cluster::{key_hash_slot, RedisClusterPartitioner, SLOTS};
use schemes::ShardId;

/// Masters of the created cluster (one more joins later).
const MASTERS: usize = 5;

/// Redis nodes started by the test; killed and reaped when dropped, even when the test fails.
struct Nodes {
    children: Vec<Child>,
    ports: Vec<u16>,
    dir: tempfile::TempDir,
}

impl Drop for Nodes {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Nodes {
    fn new() -> Nodes {
        Nodes {
            children: Vec::new(),
            ports: Vec::new(),
            dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    /// Starts one cluster-enabled node on a free loopback port and waits until it answers.
    fn start(&mut self) -> u16 {
        let port = free_port_pair();
        let dir = self.dir.path().join(port.to_string());
        std::fs::create_dir(&dir).unwrap();
        let log = std::fs::File::create(dir.join("redis.log")).unwrap();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args([
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
            ])
            .args([
                "--cluster-node-timeout",
                "5000",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .args(["--daemonize", "no", "--protected-mode", "no"])
            .arg("--dir")
            .arg(&dir)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("redis-server starts");
        self.children.push(child);
        self.ports.push(port);
        wait_for(&format!("node {port} answers PING"), || {
            cli(port, &["PING"]).is_some_and(|o| o.trim() == "PONG")
        });
        port
    }

    /// The redis log of a node, for failure messages.
    fn log(&self, port: u16) -> String {
        std::fs::read_to_string(self.dir.path().join(port.to_string()).join("redis.log"))
            .unwrap_or_default()
    }
}

/// A port `p` with `p + 10000` (the cluster bus) also free, both on 127.0.0.1.
fn free_port_pair() -> u16 {
    for _ in 0..200 {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        if port < 55_000 && TcpListener::bind(("127.0.0.1", port + 10_000)).is_ok() {
            return port;
        }
    }
    panic!("no free pair of loopback ports");
}

/// `redis-cli -p PORT ARGS...`; its standard output when it exits with success.
fn cli(port: u16, args: &[&str]) -> Option<String> {
    let out = Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", &port.to_string()])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).to_string())
}

/// Runs `redis-cli --cluster ...` and fails the test with its output when it fails.
fn cluster_command(args: &[&str]) -> String {
    let out = Command::new("redis-cli")
        .arg("--cluster")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("redis-cli runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && !text.contains("[ERR]"),
        "redis-cli --cluster {args:?} failed:\n{text}"
    );
    text
}

/// Polls `ready` every 100 ms for up to 20 s.
fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "timed out: {what}"
        );
        sleep(Duration::from_millis(100));
    }
}

/// Waits until `redis-cli --cluster check` sees every node agree on the slot map.
fn wait_for_agreement(port: u16) {
    let address = format!("127.0.0.1:{port}");
    wait_for("all nodes agree about the slot map", || {
        let out = Command::new("redis-cli")
            .args(["--cluster", "check", &address])
            .stdin(Stdio::null())
            .output()
            .expect("redis-cli runs");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        out.status.success()
            && text.contains("All nodes agree about slots configuration")
            && text.contains("All 16384 slots covered")
    });
}

/// Waits until every node knows every other node as a connected master (gossip done).
fn wait_for_membership(ports: &[u16]) {
    wait_for("every node knows every node", || {
        ports.iter().all(|&port| {
            cli(port, &["CLUSTER", "NODES"]).is_some_and(|nodes| {
                let lines: Vec<&str> = nodes.lines().collect();
                lines.len() == ports.len()
                    && lines.iter().all(|l| {
                        l.contains("master") && l.contains("connected") && !l.contains("handshake")
                    })
            })
        })
    });
}

/// The slot map from `CLUSTER SLOTS` (`redis-cli --json`), as the port of each slot's master.
fn slot_map(port: u16) -> Vec<u16> {
    let text = cli(port, &["--json", "CLUSTER", "SLOTS"]).expect("CLUSTER SLOTS answers");
    let ranges: serde_json::Value = serde_json::from_str(&text).expect("JSON from redis-cli");
    let mut owners = vec![0u16; SLOTS];
    for range in ranges.as_array().expect("an array of slot ranges") {
        let start = range[0].as_u64().unwrap() as usize;
        let end = range[1].as_u64().unwrap() as usize;
        let master = range[2][1].as_u64().unwrap() as u16;
        owners[start..=end].fill(master);
    }
    assert!(owners.iter().all(|&p| p != 0), "every slot has a master");
    owners
}

/// The slot map of a shardlab layout, as ports (`ports[shard]`).
fn expected_map(layout: &RedisClusterPartitioner, ports: &[u16]) -> Vec<u16> {
    let owners: &[ShardId] = layout.slot_owners();
    owners.iter().map(|&s| ports[s as usize]).collect()
}

/// Test keys: plain text, binary bytes, and every kind of hash tag (empty, unclosed, nested,
/// several), deterministic.
fn test_keys() -> Vec<Vec<u8>> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        (state >> 33) as u8
    };
    let mut keys: Vec<Vec<u8>> = Vec::new();
    for i in 0..1500 {
        keys.push(format!("user:{i}").into_bytes());
        keys.push(format!("{{user{}}}.field{i}", i % 37).into_bytes());
        let len = 1 + (next() % 24) as usize;
        keys.push((0..len).map(|_| next()).collect());
    }
    for tagged in [
        "{}",
        "{}x",
        "x{}",
        "{",
        "}",
        "}{",
        "{a}",
        "a{b}c",
        "a{{b}}c",
        "{a}{b}",
        "{}{a}",
        "a{b",
        "a}b{c}",
        "{{}}",
        "{ }",
        "日本{語}",
    ] {
        keys.push(tagged.as_bytes().to_vec());
    }
    keys.push(vec![b'{', 0xff, 0x00, b'}', b'k']);
    keys
}

/// `CLUSTER KEYSLOT` of every key, sent through one `redis-cli` reading commands from stdin
/// (every byte written as a `\xHH` escape inside double quotes).
fn real_keyslots(port: u16, keys: &[Vec<u8>]) -> Vec<u16> {
    let mut child = Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", &port.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("redis-cli runs");
    let mut script = String::new();
    for key in keys {
        script.push_str("CLUSTER KEYSLOT \"");
        key.iter()
            .for_each(|b| script.push_str(&format!("\\x{b:02x}")));
        script.push_str("\"\n");
    }
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(script.as_bytes()));
    let out = child.wait_with_output().expect("redis-cli finishes");
    writer.join().unwrap().expect("commands written");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            l.trim()
                .parse()
                .unwrap_or_else(|_| panic!("not a slot: {l}"))
        })
        .collect()
}

/// `shardlab route --schemes redis-cluster --shards N [--grow M]` on `keys` (none holding a
/// line end) written to a keys file: one CSV row per key, in order.
fn route_rows(keys: &[&[u8]], shards: u32, grow: Option<u32>) -> Vec<csv::ByteRecord> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("keys.txt");
    let mut text = Vec::new();
    for k in keys {
        text.extend_from_slice(k);
        text.push(b'\n');
    }
    std::fs::write(&file, text).unwrap();
    let grow: Vec<String> = grow.map(|m| format!("--grow={m}")).into_iter().collect();
    let out = assert_cmd::Command::cargo_bin("shardlab")
        .unwrap()
        .args(["route", "--schemes", "redis-cluster"])
        .args(["--shards", &shards.to_string()])
        .args(&grow)
        .arg("--keys")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut reader = csv::Reader::from_reader(&out.stdout[..]);
    let rows: Vec<csv::ByteRecord> = reader.byte_records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), keys.len(), "one row per key");
    rows
}

/// A whole-number field of a `route` row.
fn number(field: &[u8]) -> u32 {
    std::str::from_utf8(field).unwrap().parse().unwrap()
}

/// `shardlab route --schemes redis-cluster --shards N --grow M` on every key that fits on a
/// line of a keys file: (key, slot, shard, shard_after) per key, in order.
fn route(keys: &[Vec<u8>], shards: u32, grow: u32) -> Vec<(Vec<u8>, u16, u32, u32)> {
    let lines: Vec<&[u8]> = keys
        .iter()
        .map(Vec::as_slice)
        .filter(|k| !k.contains(&b'\n') && !k.ends_with(b"\r"))
        .collect();
    let rows = route_rows(&lines, shards, Some(grow));
    lines
        .into_iter()
        .zip(rows)
        .map(|(key, row)| {
            (
                key.to_vec(),
                number(&row[3]) as u16,
                number(&row[2]),
                number(&row[4]),
            )
        })
        .collect()
}

/// True when `program --version` runs.
fn installed(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn slots_slot_maps_and_growth_match_a_real_redis_cluster() {
    if redis_missing("slots_slot_maps_and_growth_match_a_real_redis_cluster") {
        return;
    }
    let mut nodes = Nodes::new();
    let ports: Vec<u16> = (0..MASTERS).map(|_| nodes.start()).collect();
    let addresses: Vec<String> = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect();
    let mut create: Vec<&str> = vec!["create"];
    create.extend(addresses.iter().map(String::as_str));
    create.extend(["--cluster-replicas", "0", "--cluster-yes"]);
    cluster_command(&create);
    wait_for_agreement(ports[0]);

    // Slots of thousands of keys, hash tags included.
    let keys = test_keys();
    let real = real_keyslots(ports[0], &keys);
    assert_eq!(real.len(), keys.len(), "one CLUSTER KEYSLOT answer per key");
    for (key, &slot) in keys.iter().zip(&real) {
        assert_eq!(
            key_hash_slot(key),
            slot,
            "key {:?}",
            String::from_utf8_lossy(key)
        );
    }

    // The slot map of `--cluster create`: master i is the i-th address given.
    let created = RedisClusterPartitioner::created("redis-cluster", MASTERS as u32).unwrap();
    let created_map = slot_map(ports[0]);
    assert_eq!(
        created_map,
        expected_map(&created, &ports),
        "slot map after create; log of the first node:\n{}",
        nodes.log(ports[0])
    );
    // `shardlab route` on the same keys, now and after the two growths below.
    let routed = route(&keys, MASTERS as u32, MASTERS as u32 + 2);
    let real_slot: std::collections::HashMap<&[u8], u16> = keys
        .iter()
        .map(Vec::as_slice)
        .zip(real.iter().copied())
        .collect();
    assert!(routed.len() > 4000, "{} keys routed", routed.len());
    for (key, slot, shard, _) in &routed {
        let name = String::from_utf8_lossy(key);
        assert_eq!(*slot, real_slot[key.as_slice()], "route's slot of {name:?}");
        assert_eq!(
            ports[*shard as usize], created_map[*slot as usize],
            "route's master"
        );
    }

    // Two more masters, one at a time: add-node, then rebalance onto it.
    let mut all_ports = ports.clone();
    let mut layout = created;
    for _ in 0..2 {
        let new_port = nodes.start();
        cluster_command(&["add-node", &format!("127.0.0.1:{new_port}"), &addresses[0]]);
        all_ports.push(new_port);
        wait_for_membership(&all_ports);
        wait_for_agreement(ports[0]);
        cluster_command(&["rebalance", &addresses[0], "--cluster-use-empty-masters"]);
        wait_for_agreement(ports[0]);
        layout = layout.with_master_added().unwrap();
        let (real_map, expected) = (slot_map(ports[0]), expected_map(&layout, &all_ports));
        assert!(
            real_map == expected,
            "slot map after growth to {} masters:\nredis:    {}\nshardlab: {}",
            all_ports.len(),
            ranges_by_port(&real_map),
            ranges_by_port(&expected)
        );
    }

    let grown_map = slot_map(ports[0]);
    for (key, slot, _, after) in &routed {
        let real_master = grown_map[*slot as usize];
        assert_eq!(
            all_ports[*after as usize], real_master,
            "shard_after of {key:?}"
        );
    }

    // Shrink: a rebalance with weight 0 empties master 1. Redis pairs the receivers in its
    // node-id order where shardlab uses shard order, so the test compares what does not
    // depend on that order: which slots move, and how many each survivor ends with.
    let before = slot_map(ports[0]);
    let id = cli(ports[1], &["CLUSTER", "MYID"]).unwrap();
    let weight = format!("{}=0", id.trim());
    cluster_command(&["rebalance", &addresses[0], "--cluster-weight", &weight]);
    wait_for_agreement(ports[0]);
    let after = slot_map(ports[0]);
    let shrunk = layout.with_master_removed(1).unwrap();
    let survivors: Vec<u16> = all_ports
        .iter()
        .copied()
        .filter(|&p| p != ports[1])
        .collect();
    let expected = expected_map(&shrunk, &survivors);
    for slot in 0..SLOTS {
        let moved = after[slot] != before[slot];
        assert_eq!(
            moved,
            before[slot] == ports[1],
            "slot {slot} moved: {moved}"
        );
    }
    let counts = |map: &[u16]| {
        let mut c: Vec<usize> = survivors
            .iter()
            .map(|p| map.iter().filter(|&&o| o == *p).count())
            .collect();
        c.sort_unstable();
        c
    };
    assert_eq!(
        counts(&after),
        counts(&expected),
        "slots per surviving master"
    );
}

/// "port: first-last first-last; ..." for a slot map, for failure messages.
fn ranges_by_port(map: &[u16]) -> String {
    let mut ports: Vec<u16> = map.to_vec();
    ports.sort_unstable();
    ports.dedup();
    let mut out = String::new();
    for port in ports {
        out.push_str(&format!("{port}:"));
        let mut slot = 0;
        while slot < map.len() {
            if map[slot] == port {
                let first = slot;
                while slot + 1 < map.len() && map[slot + 1] == port {
                    slot += 1;
                }
                out.push_str(&format!(" {first}-{slot}"));
            }
            slot += 1;
        }
        out.push_str("; ");
    }
    out
}

/// Sends `lines` (commands with every key byte as a `\xHH` escape) to one `redis-cli` on
/// `port` (`-c`: following redirections when `follow`) and returns its output lines.
fn cli_lines(port: u16, follow: bool, lines: &[String]) -> Vec<String> {
    let mut cmd = Command::new("redis-cli");
    cmd.args(["-h", "127.0.0.1", "-p", &port.to_string()]);
    if follow {
        cmd.arg("-c");
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("redis-cli runs");
    let script: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(script.as_bytes()));
    let out = child.wait_with_output().expect("redis-cli finishes");
    writer.join().unwrap().expect("commands written");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// A key as a double-quoted `redis-cli` argument of `\xHH` escapes.
fn quoted(key: &[u8]) -> String {
    let escaped: String = key.iter().map(|b| format!("\\x{b:02x}")).collect();
    format!("\"{escaped}\"")
}

/// True, after a SKIPPED line for `test`, when redis-server or redis-cli is missing; fails
/// instead when `SHARDLAB_REQUIRE_REDIS=1`.
fn redis_missing(test: &str) -> bool {
    if installed("redis-server") && installed("redis-cli") {
        return false;
    }
    assert!(
        std::env::var("SHARDLAB_REQUIRE_REDIS").as_deref() != Ok("1"),
        "SHARDLAB_REQUIRE_REDIS=1 but redis-server/redis-cli are not installed"
    );
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: redis-server is not installed (apt-get install redis-server); set \
         SHARDLAB_REQUIRE_REDIS=1 to fail instead"
    );
    true
}

/// `shardlab route --schemes redis-cluster --shards N` on keys without a tab or line end:
/// (slot, shard) of each, in order.
fn routed_slots(keys: &[(Vec<u8>, u64)], shards: usize) -> Vec<(u16, u32)> {
    let keys: Vec<&[u8]> = keys.iter().map(|(k, _)| k.as_slice()).collect();
    route_rows(&keys, shards as u32, None)
        .iter()
        .map(|row| (number(&row[3]) as u16, number(&row[2])))
        .collect()
}

/// A migrate plan applied to a real cluster: `drain` None grows a `MASTERS`-master cluster
/// by one master; `Some(s)` empties master `s` of a `MASTERS + 1`-master cluster and removes
/// it. Keys are loaded, `shardlab migrate` writes the plan at a byte budget, the test checks
/// moves.csv (each slot's bytes, where it goes, the budget per step), runs reshard.sh, and
/// then the slot map and every key must be where `shardlab route` and moves.csv put them.
fn migrate_plan_case(drain: Option<usize>) {
    let mut nodes = Nodes::new();
    let ports: Vec<u16> = (0..=MASTERS).map(|_| nodes.start()).collect();
    let addresses: Vec<String> = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect();
    let created = if drain.is_some() {
        MASTERS + 1
    } else {
        MASTERS
    };
    let mut create: Vec<&str> = vec!["create"];
    create.extend(addresses[..created].iter().map(String::as_str));
    create.extend(["--cluster-replicas", "0", "--cluster-yes"]);
    cluster_command(&create);
    wait_for_membership(&ports[..created]);
    wait_for_agreement(ports[0]);
    wait_for("every master sees the cluster up", || {
        ports[..created]
            .iter()
            .all(|&p| cli(p, &["CLUSTER", "INFO"]).is_some_and(|i| i.contains("cluster_state:ok")))
    });

    // Distinct keys that fit on a line of a keys file, each with a value of its own size.
    let mut seen = std::collections::HashSet::new();
    let keys: Vec<(Vec<u8>, u64)> = test_keys()
        .into_iter()
        .filter(|k| !k.iter().any(|b| matches!(b, b'\t' | b'\n' | b'\r')))
        .filter(|k| seen.insert(k.clone()))
        .enumerate()
        .map(|(i, k)| (k, 10 + (i as u64 * 37) % 900))
        .collect();
    let sets: Vec<String> = keys
        .iter()
        .map(|(k, n)| format!("SET {} {}", quoted(k), "v".repeat(*n as usize)))
        .collect();
    let replies = cli_lines(ports[0], true, &sets);
    // redis-cli -c prints a line for each redirection it follows.
    let answers: Vec<&String> = replies
        .iter()
        .filter(|r| !r.starts_with("-> Redirected"))
        .collect();
    let failed: Vec<&&String> = answers.iter().filter(|r| r.as_str() != "OK").collect();
    assert!(
        failed.is_empty() && answers.len() == keys.len(),
        "every SET: {} answers, {failed:?}",
        answers.len()
    );

    let dir = tempfile::tempdir().unwrap();
    let mut text = Vec::new();
    for (k, n) in &keys {
        text.extend_from_slice(k);
        text.extend_from_slice(format!("\t{n}\n").as_bytes());
    }
    std::fs::write(dir.path().join("keys.tsv"), text).unwrap();
    std::fs::write(dir.path().join("nodes.txt"), addresses.join("\n") + "\n").unwrap();
    let budget: u64 = 60_000;
    let out = dir.path().join("plan");
    let change = match drain {
        None => ["--grow".to_string(), (MASTERS + 1).to_string()],
        Some(s) => ["--drain".to_string(), s.to_string()],
    };
    let run = assert_cmd::Command::cargo_bin("shardlab")
        .unwrap()
        .args(["migrate", "--scheme", "redis-cluster", "--shards"])
        .arg(created.to_string())
        .args(&change)
        .arg("--keys")
        .arg(dir.path().join("keys.tsv"))
        .args(["--step-bytes", &budget.to_string(), "--bandwidth", "1MB"])
        .arg("--nodes")
        .arg(dir.path().join("nodes.txt"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );

    // The slot map before (as `create` made it) and after (by shardlab's rule), as ports.
    let before = RedisClusterPartitioner::created("redis-cluster", created as u32).unwrap();
    let (after, masters_after): (Vec<u16>, Vec<u16>) = match drain {
        None => (
            expected_map(&before.with_master_added().unwrap(), &ports),
            ports.clone(),
        ),
        Some(s) => {
            let survivors: Vec<u16> = ports.iter().copied().filter(|&p| p != ports[s]).collect();
            let shrunk = before.with_master_removed(s as u32).unwrap();
            (expected_map(&shrunk, &survivors), survivors)
        }
    };
    let before_map = expected_map(&before, &ports[..created]);
    assert_eq!(slot_map(ports[0]), before_map, "slot map of create");

    // moves.csv: one slot a row, from its master to the one shardlab's rule gives; its bytes
    // are the sizes of its keys, and no master sends plus receives more than the budget in
    // one step.
    let mut slot_bytes = vec![0u64; SLOTS];
    for (k, n) in &keys {
        slot_bytes[key_hash_slot(k) as usize] += n;
    }
    let mut reader = csv::Reader::from_path(out.join("moves.csv")).unwrap();
    let mut per_step: std::collections::BTreeMap<(u32, u32), u64> = Default::default();
    let mut planned = before_map.clone();
    let mut moved = 0;
    for row in reader.records().map(Result::unwrap) {
        let step: u32 = row[0].parse().unwrap();
        let slot: usize = row[2].parse().unwrap();
        let (from, to): (u32, u32) = (row[3].parse().unwrap(), row[4].parse().unwrap());
        let bytes: u64 = row[6].parse().unwrap();
        assert_eq!(&row[1], "slot");
        assert_eq!(bytes, slot_bytes[slot], "bytes of slot {slot}");
        assert_eq!(
            ports[from as usize], before_map[slot],
            "slot {slot} leaves its master"
        );
        assert_eq!(
            ports[to as usize], after[slot],
            "slot {slot} goes where the rule puts it"
        );
        planned[slot] = ports[to as usize];
        *per_step.entry((step, from)).or_default() += bytes;
        *per_step.entry((step, to)).or_default() += bytes;
        moved += 1;
    }
    let changed = (0..SLOTS).filter(|&s| before_map[s] != after[s]).count();
    assert_eq!(moved, changed, "slots that change master");
    assert_eq!(planned, after, "the moves give the new slot map");
    assert!(per_step.values().all(|&b| b <= budget), "{per_step:?}");
    let steps = per_step.keys().map(|k| k.0).max().unwrap();
    assert!(steps >= 3, "{steps} steps");

    // Where shardlab says each key is after the plan: `route`'s slot and master, moved as
    // moves.csv moves its slot.
    let routed = routed_slots(&keys, created);
    for ((k, _), &(slot, shard)) in keys.iter().zip(&routed) {
        assert_eq!(slot, key_hash_slot(k), "route's slot of {k:?}");
        assert_eq!(
            ports[shard as usize], before_map[slot as usize],
            "route's master of {k:?}"
        );
    }

    // Apply the plan, then the slot map and every key are where shardlab said.
    let script = Command::new("sh")
        .arg(out.join("reshard.sh"))
        .stdin(Stdio::null())
        .output()
        .expect("sh runs");
    assert!(
        script.status.success(),
        "reshard.sh failed:\n{}{}",
        String::from_utf8_lossy(&script.stdout),
        String::from_utf8_lossy(&script.stderr)
    );
    let first = masters_after[0];
    wait_for_membership(&masters_after);
    wait_for_agreement(first);
    assert_eq!(slot_map(first), after, "slot map after the plan");
    let masters = cli(first, &["CLUSTER", "NODES"]).unwrap().lines().count();
    assert_eq!(masters, masters_after.len(), "masters after the plan");
    for &port in &masters_after {
        let mine: Vec<&(Vec<u8>, u64)> = keys
            .iter()
            .zip(&routed)
            .filter(|(_, (slot, _))| planned[*slot as usize] == port)
            .map(|(k, _)| k)
            .collect();
        let lens: Vec<String> = mine
            .iter()
            .map(|(k, _)| format!("STRLEN {}", quoted(k)))
            .collect();
        let answers = cli_lines(port, false, &lens);
        assert_eq!(
            answers.len(),
            mine.len(),
            "one STRLEN answer per key on {port}"
        );
        for ((k, n), answer) in mine.iter().zip(&answers) {
            let key = String::from_utf8_lossy(k);
            assert_eq!(*answer, n.to_string(), "{key:?} on master {port}");
        }
        let size = cli(port, &["DBSIZE"]).unwrap();
        assert_eq!(size.trim(), mine.len().to_string(), "keys on master {port}");
    }
    // Every slot's key count is the keys shardlab puts in it.
    let mut per_slot = vec![0usize; SLOTS];
    routed
        .iter()
        .for_each(|(slot, _)| per_slot[*slot as usize] += 1);
    let counts: Vec<String> = (0..SLOTS)
        .filter(|&s| per_slot[s] > 0)
        .map(|s| format!("CLUSTER COUNTKEYSINSLOT {s}"))
        .collect();
    let slots: Vec<usize> = (0..SLOTS).filter(|&s| per_slot[s] > 0).collect();
    for &port in &masters_after {
        let answers = cli_lines(port, false, &counts);
        for (&slot, answer) in slots.iter().zip(&answers) {
            let want = if after[slot] == port {
                per_slot[slot]
            } else {
                0
            };
            assert_eq!(*answer, want.to_string(), "keys in slot {slot} on {port}");
        }
    }
}

#[test]
fn a_growth_plan_applied_to_a_real_cluster_leaves_every_slot_and_key_where_shardlab_said() {
    if redis_missing("a_growth_plan_applied_to_a_real_cluster") {
        return;
    }
    migrate_plan_case(None);
}

#[test]
fn a_drain_plan_applied_to_a_real_cluster_leaves_every_slot_and_key_where_shardlab_said() {
    if redis_missing("a_drain_plan_applied_to_a_real_cluster") {
        return;
    }
    migrate_plan_case(Some(2));
}
