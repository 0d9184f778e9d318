//! Clusters over time (`run --scenario`, `--throttle`, `--assert`): an added shard gives the
//! fixed runs' loads before and after it and moves the keys the remap counts; token buckets
//! equal a model written from the contract; a move cycle is redundant; bad lines name their
//! line.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::{csv_rows, shardlab, stderr_of};

/// A csv trace of `n` events over `keys` skewed keys, `per_sec` events per second with a
/// burst of 5x in every tenth second, timestamps in seconds.
fn trace(dir: &Path, n: usize, keys: u64, per_sec: usize) -> std::path::PathBuf {
    let mut text = String::from("key,op,timestamp,size\n");
    let (mut t, mut in_sec, mut x) = (0u64, 0usize, 12345u64);
    for i in 0..n {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let key = ((x >> 33) % keys).min((x >> 40) % keys); // skewed towards small keys
        let op = if i % 4 == 0 { "put" } else { "get" };
        text.push_str(&format!("k{key},{op},{t},{}\n", 10 + key % 90));
        in_sec += 1;
        let limit = if t % 10 == 9 { per_sec * 5 } else { per_sec };
        if in_sec >= limit {
            (t, in_sec) = (t + 1, 0);
        }
    }
    let path = dir.join("t.csv");
    std::fs::write(&path, text).unwrap();
    path
}

fn run(dir: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    shardlab()
        .current_dir(dir)
        .args(["run", "--quiet", "--no-latency", "--time-unit", "s"])
        .args(args)
        .assert()
}

/// The rows of `file` in run directory `out`, as maps from column to cell.
fn table(out: &Path, file: &str) -> Vec<HashMap<String, String>> {
    let rows = csv_rows(&std::fs::read_to_string(out.join(file)).unwrap());
    let header = rows[0].clone();
    rows[1..]
        .iter()
        .map(|r| header.iter().cloned().zip(r.iter().cloned()).collect())
        .collect()
}

fn summary(out: &Path, scheme: &str, metric: &str) -> f64 {
    table(out, "summary.csv")
        .iter()
        .find(|r| r["scheme"] == scheme && r["metric"] == metric)
        .unwrap_or_else(|| panic!("{scheme} {metric}"))["value"]
        .parse()
        .unwrap()
}

#[test]
fn an_added_shard_gives_the_fixed_loads_before_and_after_and_moves_the_remapped_keys() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let whole = std::fs::read_to_string(trace(d, 40_000, 3_000, 200)).unwrap();
    // The events before second 100 and from it on, as two traces.
    let mut lines = whole.lines();
    let header = lines.next().unwrap();
    let (before, after): (Vec<&str>, Vec<&str>) =
        lines.partition(|l| l.split(',').nth(2).unwrap().parse::<u64>().unwrap() < 100);
    for (name, rows) in [("before.csv", &before), ("after.csv", &after)] {
        let body: String = std::iter::once(header)
            .chain(rows.iter().copied())
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(d.join(name), body).unwrap();
    }
    std::fs::write(d.join("s.txt"), "# one more shard\n100 add 1\n").unwrap();
    let schemes = "hash,ring,jump,rendezvous";
    run(
        d,
        &[
            "--trace",
            "t.csv",
            "--schemes",
            schemes,
            "-n",
            "4",
            "--scenario",
            "s.txt",
            "--out",
            "sc",
        ],
    )
    .success();
    run(
        d,
        &[
            "--trace",
            "before.csv",
            "--schemes",
            schemes,
            "-n",
            "4",
            "--grow",
            "5",
            "--out",
            "b",
        ],
    )
    .success();
    run(
        d,
        &[
            "--trace",
            "after.csv",
            "--schemes",
            schemes,
            "-n",
            "5",
            "--out",
            "a",
        ],
    )
    .success();
    let phases = table(&d.join("sc"), "phases.csv");
    for scheme in schemes.split(',') {
        for (phase, fixed) in [("0", "b"), ("1", "a")] {
            let got: Vec<&str> = phases
                .iter()
                .filter(|r| r["scheme"] == scheme && r["phase"] == phase)
                .map(|r| r["requests"].as_str())
                .collect();
            let want: Vec<String> = table(&d.join(fixed), "shards.csv")
                .iter()
                .filter(|r| r["scheme"] == scheme)
                .map(|r| r["requests"].clone())
                .collect();
            assert_eq!(got, want, "{scheme} phase {phase}");
        }
        let remap = summary(&d.join("b"), scheme, "remap_fraction");
        let keys = summary(&d.join("b"), scheme, "distinct_keys");
        let moved = summary(&d.join("sc"), scheme, "moved_keys");
        assert_eq!(moved, (remap * keys).round(), "{scheme}");
        assert!(moved > 0.0);
    }
    // The busiest node after the add against the best possible: the mean over 5 nodes, or
    // the hottest key of the events after second 100, counted here.
    let mut per_key: HashMap<&str, u64> = HashMap::new();
    for l in &after {
        *per_key.entry(l.split(',').next().unwrap()).or_default() += 1;
    }
    let hottest_key = *per_key.values().max().unwrap() as f64;
    for scheme in schemes.split(',') {
        let requests: Vec<f64> = table(&d.join("a"), "shards.csv")
            .iter()
            .filter(|r| r["scheme"] == scheme)
            .map(|r| r["requests"].parse().unwrap())
            .collect();
        let best = (requests.iter().sum::<f64>() / 5.0).max(hottest_key);
        let busiest = requests.iter().copied().fold(0.0, f64::max);
        let got = summary(&d.join("sc"), scheme, "overcommit");
        assert!((got - busiest / best).abs() < 1e-9, "{scheme}: {got}");
        assert!(got >= 1.0, "{scheme}: {got}");
        // Keys only arrive and move out once: little against the trend.
        let thrash = summary(&d.join("sc"), scheme, "thrash");
        assert!((0.0..0.5).contains(&thrash), "{scheme}: thrash {thrash}");
    }
    // mod-N moves keys between the old shards and back; the verdict weighs it.
    let keys = summary(&d.join("sc"), "hash", "distinct_keys");
    assert!(summary(&d.join("sc"), "hash", "redundant_moves") > 0.02 * keys);
    for scheme in ["ring", "jump"] {
        assert_eq!(summary(&d.join("sc"), scheme, "redundant_moves"), 0.0);
    }
    let verdict = &table(&d.join("sc"), "recommendation.csv")[0];
    assert!(
        verdict["scheme"] != "hash" || verdict["decided_by"] == "usable_capacity",
        "{verdict:?}"
    );
    let events = table(&d.join("sc"), "events.csv");
    assert!(events
        .iter()
        .all(|r| r["action"] == "add 1" && r["outcome"] == "applied"));
    let timeline = table(&d.join("sc"), "timeline.csv");
    assert!(timeline.iter().any(|r| r["scenario_events"] == "add 1"));
    assert!(timeline.iter().any(|r| r["nodes_up"] == "5"));
}

/// The throttled node requests of `scheme` on `shards` shards over the trace `text`,
/// replayed by the contract: a bucket of `rate x max(1, burst)` tokens per shard, full at
/// the first event, refilled by `rate` per whole second elapsed, one token per request.
fn model(text: &str, scheme: &str, shards: u32, rate: u64, burst: u64) -> (u64, u64) {
    let spec = &schemes::SchemeSpec::parse_list(scheme).unwrap()[0];
    let part = spec
        .build(&schemes::BuildContext {
            shards,
            warmup_keys: &[],
            key_type: workloads::KeyType::Bytes,
            weights: None,
        })
        .unwrap();
    let size = rate * burst.max(1);
    let mut tokens = vec![size; shards as usize];
    let (mut second, mut origin) = (0u64, None);
    let (mut requests, mut throttled) = (0, 0);
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let ts: u64 = f[2].parse().unwrap();
        let elapsed = ts - *origin.get_or_insert(ts);
        if elapsed > second {
            for t in &mut tokens {
                *t = (*t + rate * (elapsed - second)).min(size);
            }
            second = elapsed;
        }
        let s = part.shard_of(f[0].as_bytes()) as usize;
        requests += 1;
        if tokens[s] > 0 {
            tokens[s] -= 1;
        } else {
            throttled += 1;
        }
    }
    (throttled, requests)
}

#[test]
fn throttled_shares_equal_a_token_bucket_model_of_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = std::fs::read_to_string(trace(d, 30_000, 2_000, 300)).unwrap();
    for (throttle, rate, burst) in [("rate=90", 90, 0), ("rate=80,burst=3", 80, 3)] {
        let out = format!("out-{rate}");
        run(
            d,
            &[
                "--trace",
                "t.csv",
                "--schemes",
                "hash,ring",
                "-n",
                "4",
                "--throttle",
                throttle,
                "--out",
                &out,
            ],
        )
        .success();
        for scheme in ["hash", "ring"] {
            let (throttled, requests) = model(&text, scheme, 4, rate, burst);
            assert!(
                throttled > 100,
                "{scheme} {throttle}: {throttled} throttled"
            );
            let got = summary(&d.join(&out), scheme, "throttled_share");
            assert_eq!(
                got,
                throttled as f64 / requests as f64,
                "{scheme} {throttle}"
            );
        }
    }
}

#[test]
fn a_weight_changed_and_changed_back_moves_keys_round_a_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    trace(d, 20_000, 2_000, 200);
    std::fs::write(d.join("s.txt"), "20 weight 0 3\n60 weight 0 1\n").unwrap();
    run(
        d,
        &[
            "--trace",
            "t.csv",
            "--schemes",
            "rendezvous",
            "-n",
            "4",
            "--window",
            "1000",
            "--scenario",
            "s.txt",
            "--out",
            "o",
        ],
    )
    .success();
    let moved = summary(&d.join("o"), "rendezvous", "moved_keys");
    let redundant = summary(&d.join("o"), "rendezvous", "redundant_moves");
    // Every key that moved to shard 0 came back: those moves went round a cycle (keys first
    // seen while shard 0 weighed 3 move once, out of it: not redundant).
    let first: f64 = table(&d.join("o"), "events.csv")[0]["moved_keys"]
        .parse()
        .unwrap();
    assert!(first > 100.0 && moved > 2.0 * first, "{first} {moved}");
    assert_eq!(redundant, 2.0 * first);
    // Shard 0 took keys and gave them back: its holdings swept their range and came back.
    let thrash = summary(&d.join("o"), "rendezvous", "thrash");
    assert!(thrash > 1.0, "thrash {thrash}");
    // A scheme without weights is refused, naming the line.
    let a = run(
        d,
        &[
            "--trace",
            "t.csv",
            "--schemes",
            "hash",
            "-n",
            "4",
            "--scenario",
            "s.txt",
            "--out",
            "h",
        ],
    );
    let err = stderr_of(&a.code(2));
    assert!(
        err.contains("s.txt:1: 'weight 0 3': 'hash' cannot take weights"),
        "{err}"
    );
}

#[test]
fn a_failed_shard_is_served_by_replicas_or_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    trace(d, 20_000, 2_000, 200);
    std::fs::write(d.join("s.txt"), "20 fail 1\n40 recover 1\n").unwrap();
    for (r, out) in [("1", "r1"), ("2", "r2")] {
        run(
            d,
            &[
                "--trace",
                "t.csv",
                "--schemes",
                "ring",
                "-n",
                "4",
                "--scenario",
                "s.txt",
                "--replicas",
                r,
                "--out",
                out,
            ],
        )
        .success();
    }
    let unavailable = summary(&d.join("r1"), "ring", "unavailable_share");
    assert!(unavailable > 0.02 && unavailable < 0.2, "{unavailable}");
    assert_eq!(summary(&d.join("r2"), "ring", "unavailable_share"), 0.0);
    assert!(summary(&d.join("r2"), "ring", "under_replicated_key_secs") > 0.0);
    assert_eq!(summary(&d.join("r1"), "ring", "moved_keys"), 0.0);
}

#[test]
fn bad_scenarios_are_usage_errors_naming_the_line_and_assertions_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    trace(d, 5_000, 500, 200);
    for (text, message) in [
        ("10 add 1\n5 add 1\n", "s.txt:2: time 5 is before"),
        ("10 explode 1\n", "s.txt:1: unknown action 'explode'"),
        ("10 drain 4\n", "s.txt:1: 'drain 4': there is no shard 4"),
        (
            "10 recover 2\n",
            "s.txt:1: 'recover 2': shard 2 has not failed",
        ),
    ] {
        std::fs::write(d.join("s.txt"), text).unwrap();
        let a = run(
            d,
            &[
                "--trace",
                "t.csv",
                "--schemes",
                "hash",
                "-n",
                "4",
                "--scenario",
                "s.txt",
                "--out",
                "x",
            ],
        );
        let err = stderr_of(&a.code(2));
        assert!(err.contains(message), "{err}");
        assert!(!d.join("x").exists());
    }
    std::fs::write(d.join("s.txt"), "10 add 1\n").unwrap();
    let a = run(
        d,
        &[
            "--trace",
            "t.csv",
            "--schemes",
            "hash,ring",
            "-n",
            "4",
            "--scenario",
            "s.txt",
            "--assert",
            "moved_keys<100",
            "--out",
            "y",
        ],
    );
    let err = stderr_of(&a.code(3));
    assert!(err.contains("assertion failed: hash on 5 shards"), "{err}");
    assert!(
        d.join("y/summary.csv").exists(),
        "the outputs are written first"
    );
    run(
        d,
        &[
            "--trace",
            "t.csv",
            "--schemes",
            "ring",
            "-n",
            "4",
            "--scenario",
            "s.txt",
            "--assert",
            "moved_keys<=1000",
            "--out",
            "z",
        ],
    )
    .success();
}
