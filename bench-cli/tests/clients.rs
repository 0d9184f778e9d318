//! The client-side schemes against the real client libraries (PyPI, pinned in
//! `scripts/requirements-systems.txt`) through `scripts/real_clients.py`: `ketama` against
//! uhashring, `python-memcached` against python-memcached (also storing keys on real
//! `memcached` servers on loopback ports), `pymemcache-rendezvous` against pymemcache, and
//! `vitess-xxhash` against xxhash. Each compares thousands of keys (ASCII, `{hash tags}`,
//! non-ASCII UTF-8, the empty key) through the library and `shardlab route`, before and
//! after a growth.
//!
//! Python with the libraries is looked for as `$SHARDLAB_SYSTEMS_PYTHON`, then
//! `target/systems-venv/bin/python` (where `.ci/run` installs them); without it each test
//! prints a SKIPPED line, or fails when `SHARDLAB_REQUIRE_CLIENTS=1` (as `.ci/run` sets).
//! The memcached test needs `memcached` (Debian package) and `SHARDLAB_REQUIRE_MEMCACHED=1`
//! makes it fail without it.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use schemes::Partitioner;
use schemes::{BuildContext, SchemeSpec};
use workloads::{KeyType, Spec};

use common::{free_port, runs, systems_python_or_skip, Daemons};

/// The repository root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Test keys, deterministic: ASCII, `{hash tags}`, spaces, non-ASCII UTF-8 (2-, 3- and
/// 4-byte characters) and the empty key, first.
fn test_keys() -> Vec<Vec<u8>> {
    let mut keys: Vec<Vec<u8>> = vec![Vec::new()];
    for i in 0..1500 {
        keys.push(format!("user:{i}").into_bytes());
        if i < 800 {
            keys.push(format!("{{user{}}}.field{i}", i % 37).into_bytes());
            keys.push(format!("ключ-{i}-日本語-é").into_bytes());
        }
        if i < 300 {
            keys.push(format!("🙂 {i} ü").into_bytes());
            keys.push(format!("{i}").into_bytes());
        }
    }
    keys
}

/// Keys a memcached server accepts: not empty, no space or control byte.
fn memcached_keys() -> Vec<Vec<u8>> {
    test_keys()
        .into_iter()
        .filter(|k| !k.is_empty() && k.iter().all(|&b| b > b' ' && b != 0x7f))
        .collect()
}

/// The keys written to a file, hex-encoded one a line (for the Python side).
fn hex_file(dir: &Path, keys: &[Vec<u8>]) -> PathBuf {
    let path = dir.join("keys.hex");
    let text: String = keys
        .iter()
        .map(|k| k.iter().map(|b| format!("{b:02x}")).collect::<String>() + "\n")
        .collect();
    std::fs::write(&path, text).unwrap();
    path
}

/// `scripts/real_clients.py SCHEME ARG KEYS [EXTRA]`: one line per key.
fn real(python: &Path, scheme: &str, arg: &str, keys: &[Vec<u8>], extra: &[&str]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(python)
        .arg(repo().join("scripts/real_clients.py"))
        .args([scheme, arg])
        .arg(hex_file(dir.path(), keys))
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "real_clients.py {scheme} {arg} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(lines.len(), keys.len(), "one answer per key");
    lines
}

/// The scheme `spec` built for `shards` shards with these weights (empty: none).
fn built(spec: &str, shards: u32, weights: &[f64]) -> Box<dyn Partitioner> {
    let scheme = SchemeSpec::new(Spec::parse(spec).unwrap()).unwrap();
    let ctx = BuildContext {
        shards,
        warmup_keys: &[],
        key_type: KeyType::Bytes,
        weights: (!weights.is_empty()).then_some(weights),
    };
    scheme.build(&ctx).unwrap()
}

/// One row of `shardlab route`: shard, detail and shard_after.
struct Routed {
    shard: u32,
    detail: String,
    after: u32,
}

/// `shardlab route --schemes SPEC --shards N --grow M [--weights W] --keys FILE` on the
/// non-empty keys (a keys file has no empty line).
fn route(spec: &str, shards: u32, grow: u32, weights: &str, keys: &[Vec<u8>]) -> Vec<Routed> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("keys.txt");
    let mut text = Vec::new();
    for k in keys {
        assert!(!k.is_empty() && !k.contains(&b'\n'));
        text.extend_from_slice(k);
        text.push(b'\n');
    }
    std::fs::write(&file, text).unwrap();
    let mut cmd = assert_cmd::Command::cargo_bin("shardlab").unwrap();
    cmd.args(["route", "--schemes", spec]).args([
        "--shards",
        &shards.to_string(),
        "--grow",
        &grow.to_string(),
    ]);
    if !weights.is_empty() {
        cmd.args(["--weights", weights]);
    }
    let out = cmd.arg("--keys").arg(&file).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut reader = csv::Reader::from_reader(&out.stdout[..]);
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), keys.len(), "one row per key");
    rows.iter()
        .map(|r| Routed {
            shard: r[2].parse().unwrap(),
            detail: r[3].to_string(),
            after: r[4].parse().unwrap(),
        })
        .collect()
}

/// Compares `spec` for `shards` (and grown to `grow`) with the library's server index
/// (`real_clients.py LIBRARY`) on every test key: the empty key through the built scheme,
/// the others through `shardlab route` as well. Returns the routed rows.
fn compare(
    python: &Path,
    library: &str,
    spec: &str,
    (shards, grow): (u32, u32),
    weights: &[f64],
) -> Vec<Routed> {
    let keys = test_keys();
    let text = weights
        .iter()
        .map(f64::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let extra: Vec<&str> = [text.as_str()]
        .into_iter()
        .filter(|t| !t.is_empty())
        .collect();
    let now = real(python, library, &shards.to_string(), &keys, &extra);
    let part = built(spec, shards, weights);
    for (key, real) in keys.iter().zip(&now) {
        let name = String::from_utf8_lossy(key);
        assert_eq!(part.shard_of(key).to_string(), *real, "{spec} of {name:?}");
    }
    let routed = route(spec, shards, grow, &text, &keys[1..]);
    let after = if weights.is_empty() {
        real(python, library, &grow.to_string(), &keys, &[])
    } else {
        // A grown server takes the mean weight: give uhashring the same integers.
        let mean = weights.iter().sum::<f64>() / weights.len() as f64;
        let mut grown = weights.to_vec();
        grown.resize(grow as usize, mean);
        let w: Vec<String> = grown.iter().map(|w| w.to_string()).collect();
        real(python, library, &grow.to_string(), &keys, &[&w.join(",")])
    };
    for ((key, row), (now, after)) in keys[1..]
        .iter()
        .zip(&routed)
        .zip(now[1..].iter().zip(&after[1..]))
    {
        let name = String::from_utf8_lossy(key);
        assert_eq!(row.shard.to_string(), *now, "route's {spec} of {name:?}");
        assert_eq!(
            row.after.to_string(),
            *after,
            "route's {spec} after growth, {name:?}"
        );
    }
    routed
}

#[test]
fn ketama_matches_uhashring_before_and_after_adding_a_server() {
    let Some(python) = systems_python_or_skip("ketama_matches_uhashring") else {
        return;
    };
    for (shards, grow) in [(1, 2), (4, 5), (7, 9)] {
        compare(&python, "ketama", "ketama", (shards, grow), &[]);
    }
    let routed = compare(&python, "ketama", "ketama", (4, 5), &[1.0, 2.0, 3.0, 6.0]);
    assert!(routed[0].detail.starts_with("hash=") && routed[0].detail.contains(" point="));
}

#[test]
fn python_memcached_matches_the_client_before_and_after_adding_a_server() {
    let Some(python) = systems_python_or_skip("python_memcached_matches_the_client") else {
        return;
    };
    for (shards, grow) in [(1, 2), (5, 6), (12, 16)] {
        let routed = compare(
            &python,
            "python-memcached",
            "python-memcached",
            (shards, grow),
            &[],
        );
        assert!(routed
            .iter()
            .all(|r| r.detail.parse::<u32>().unwrap() < 0x8000));
    }
}

#[test]
fn pymemcache_rendezvous_matches_pymemcache_before_and_after_adding_a_node() {
    let Some(python) = systems_python_or_skip("pymemcache_rendezvous_matches_pymemcache") else {
        return;
    };
    for (shards, grow) in [(1, 2), (3, 4), (10, 12)] {
        compare(
            &python,
            "pymemcache-rendezvous",
            "pymemcache-rendezvous",
            (shards, grow),
            &[],
        );
    }
}

#[test]
fn python_memcached_stores_each_key_on_the_server_shardlab_names() {
    let Some(python) = systems_python_or_skip("python_memcached_stores_each_key_on_the_server")
    else {
        return;
    };
    if !runs("memcached", "--version") {
        assert!(
            std::env::var("SHARDLAB_REQUIRE_MEMCACHED").as_deref() != Ok("1"),
            "SHARDLAB_REQUIRE_MEMCACHED=1 but memcached is not installed \
             (Debian: apt-get install memcached)"
        );
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED python_memcached_stores_each_key_on_the_server: memcached is not installed \
             (apt-get install memcached); set SHARDLAB_REQUIRE_MEMCACHED=1 to fail instead"
        );
        return;
    }
    let mut servers = Daemons(Vec::new());
    let mut ports = Vec::new();
    for _ in 0..3 {
        let port = free_port();
        let child = Command::new("memcached")
            .args([
                "-l",
                "127.0.0.1",
                "-p",
                &port.to_string(),
                "-U",
                "0",
                "-m",
                "16",
            ])
            .args(["-u", "nobody"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("memcached starts");
        servers.0.push(child);
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "memcached on {port} answers"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        ports.push(port.to_string());
    }
    let keys = memcached_keys();
    let holders = real(&python, "memcached", &ports.join(","), &keys, &[]);
    let routed = route("python-memcached", 3, 4, "", &keys);
    for ((key, holder), row) in keys.iter().zip(&holders).zip(&routed) {
        let name = String::from_utf8_lossy(key);
        assert_eq!(row.shard.to_string(), *holder, "server of {name:?}");
    }
    drop(servers);
}

#[test]
fn vitess_xxhash_keyspace_ids_match_the_xxhash_library() {
    let Some(python) =
        systems_python_or_skip("vitess_xxhash_keyspace_ids_match_the_xxhash_library")
    else {
        return;
    };
    let keys = test_keys();
    let ids = real(&python, "vitess-xxhash", "-", &keys, &[]);
    let part = built("vitess-xxhash", 3, &[]);
    assert_eq!(part.detail(&keys[0]).as_deref(), Some(ids[0].as_str()));
    let routed = route("vitess-xxhash", 3, 4, "", &keys[1..]);
    for ((key, id), row) in keys[1..].iter().zip(&ids[1..]).zip(&routed) {
        let name = String::from_utf8_lossy(key);
        assert_eq!(row.detail, *id, "keyspace id of {name:?}");
        // Three shards -55, 55-aa, aa-; four: -40, 40-80, 80-c0, c0-.
        let first = u32::from_str_radix(&id[..2], 16).unwrap();
        assert_eq!(
            row.shard,
            u32::from(first >= 0x55) + u32::from(first >= 0xaa)
        );
        assert_eq!(row.after, first / 0x40, "shard after growth of {name:?}");
    }
}
