//! `librdkafka:partitioner=P` against the real librdkafka (Debian `librdkafka1`): its
//! exported `rd_kafka_msg_partitioner_*` functions, called through Python's ctypes with a
//! NULL topic (the keyed path never reads it), on a few thousand keys (ASCII, `{hash
//! tags}`, non-ASCII UTF-8, binary, the empty key) and several partition counts, before and
//! after a growth. The empty key of `consistent_random` and `fnv1a_random` takes
//! librdkafka's random path (which reads the topic), so it is not asked of them.
//!
//! Without `librdkafka.so.1` or `python3` the test prints a SKIPPED line, or fails when
//! `SHARDLAB_REQUIRE_LIBRDKAFKA=1` (as `.ci/run` sets).

use std::io::Write;
use std::process::Command;

use schemes::{BuildContext, SchemeSpec};
use schemes::{KeyCounts, Partitioner};
use workloads::{KeyType, Spec};

/// Reads hex keys on stdin, one a line; prints, per key, the partition librdkafka gives
/// for each partition count in argv[2:], with the partitioner argv[1].
const CALLER: &str = r#"
import ctypes, sys
lib = ctypes.CDLL("librdkafka.so.1")
f = getattr(lib, "rd_kafka_msg_partitioner_" + sys.argv[1])
f.restype = ctypes.c_int32
f.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int32,
              ctypes.c_void_p, ctypes.c_void_p]
counts = [int(n) for n in sys.argv[2:]]
out = []
for line in sys.stdin.read().split("\n")[:-1]:
    k = bytes.fromhex(line)
    out.append(" ".join(str(f(None, k, len(k), n, None, None)) for n in counts))
print("\n".join(out))
"#;

/// True when python3 can load librdkafka; otherwise prints SKIPPED (or fails when required).
fn librdkafka_or_skip() -> bool {
    let found = Command::new("python3")
        .args(["-c", "import ctypes; ctypes.CDLL('librdkafka.so.1')"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("SHARDLAB_REQUIRE_LIBRDKAFKA").as_deref() != Ok("1"),
            "SHARDLAB_REQUIRE_LIBRDKAFKA=1 but python3 cannot load librdkafka.so.1 \
             (apt-get install librdkafka1, or run .ci/run)"
        );
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED librdkafka: python3 cannot load librdkafka.so.1 (Debian librdkafka1); \
             set SHARDLAB_REQUIRE_LIBRDKAFKA=1 to fail instead"
        );
    }
    found
}

/// Test keys: the empty key, ASCII, `{hash tags}`, non-ASCII UTF-8 and binary bytes.
fn test_keys() -> Vec<Vec<u8>> {
    let mut keys: Vec<Vec<u8>> = vec![Vec::new()];
    for i in 0u32..1500 {
        keys.push(format!("user:{i}").into_bytes());
        if i < 800 {
            keys.push(format!("{{user{}}}.field{i}", i % 37).into_bytes());
            keys.push(format!("ключ-{i}-日本語-é").into_bytes());
        }
        if i < 300 {
            keys.push(i.wrapping_mul(2_654_435_761).to_le_bytes()[..(i % 4 + 1) as usize].to_vec());
            keys.push(format!("🙂 {i}").into_bytes());
        }
    }
    keys
}

/// librdkafka's partition of each key for each count.
fn real(partitioner: &str, keys: &[Vec<u8>], counts: &[u32]) -> Vec<Vec<u32>> {
    let mut child = Command::new("python3")
        .args(["-c", CALLER, partitioner])
        .args(counts.iter().map(u32::to_string))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let input: String = keys
        .iter()
        .map(|k| k.iter().map(|b| format!("{b:02x}")).collect::<String>() + "\n")
        .collect();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the ctypes caller failed");
    let rows: Vec<Vec<u32>> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split(' ').map(|n| n.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), keys.len(), "one answer per key");
    rows
}

fn built(spec: &str, shards: u32) -> Box<dyn Partitioner> {
    let scheme = SchemeSpec::new(Spec::parse(spec).unwrap()).unwrap();
    let ctx = BuildContext {
        shards,
        warmup_keys: &[],
        key_type: KeyType::Bytes,
        weights: None,
    };
    scheme.build(&ctx).unwrap()
}

#[test]
fn every_keyed_partitioner_matches_librdkafkas_exported_functions() {
    if !librdkafka_or_skip() {
        return;
    }
    let all = test_keys();
    // Each count, then each grown by 3 partitions.
    let counts = [1u32, 3, 7, 64, 4, 6, 10, 67];
    for p in [
        "consistent",
        "consistent_random",
        "murmur2",
        "murmur2_random",
        "fnv1a",
        "fnv1a_random",
    ] {
        // The empty key of these two takes librdkafka's random path.
        let keys = if p == "consistent_random" || p == "fnv1a_random" {
            &all[1..]
        } else {
            &all[..]
        };
        let expected = real(p, keys, &counts);
        let spec = format!("librdkafka:partitioner={p}");
        for (c, &n) in counts.iter().enumerate() {
            let scheme = built(&spec, n);
            // Growth to 3 more partitions: the next count's answer is the grown scheme's.
            let grown = scheme.resized(n + 3, &KeyCounts::new()).unwrap();
            let grown_real = real(p, keys, &[n + 3]);
            for (i, key) in keys.iter().enumerate() {
                assert_eq!(
                    scheme.shard_of(key),
                    expected[i][c],
                    "{p} N={n} key {key:?}"
                );
                assert_eq!(
                    grown.shard_of(key),
                    grown_real[i][0],
                    "{p} M={} key {key:?}",
                    n + 3
                );
            }
        }
    }
    assert_eq!(all.len(), 3701);
}
