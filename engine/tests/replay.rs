//! The replay engine: windows, warm-up and the latency sample on synthetic workloads.

use engine::metrics::{LatencyConfig, METRICS};
use engine::replay::{replay, ReplayConfig, WorkloadInput};
use schemes::SchemeSpec;
use workloads::{KeyType, WorkloadSpec};

fn run(
    spec: &str,
    events: u64,
    schemes: &str,
    cfg: &ReplayConfig,
) -> engine::metrics::WorkloadResult {
    let w = WorkloadSpec::parse(spec).unwrap();
    let open = move || w.open(7, events);
    let input = WorkloadInput {
        label: spec.into(),
        description: String::new(),
        key_type: KeyType::U64,
        open: &open,
        watch: None,
    };
    replay(
        &input,
        &SchemeSpec::parse_list(schemes).unwrap(),
        cfg,
        &|_| {},
    )
    .unwrap()
}

#[test]
fn windows_count_measured_events_even_when_the_warmup_is_not_a_whole_number_of_windows() {
    let cfg = ReplayConfig {
        window: 7,
        chunk_events: 50,
        latency: None,
        ..ReplayConfig::default()
    };
    // 1005 events, warm-up floor(100.5) = 100, measured 905 = 129 windows of 7 and one of 2.
    let r = run("uniform:keys=500", 1005, "range,hash", &cfg);
    assert_eq!((r.warmup_events, r.events_measured), (100, 905));
    for s in &r.schemes {
        let sizes: Vec<u64> = s
            .load
            .window_requests
            .iter()
            .map(|w| w.iter().map(|&c| c as u64).sum())
            .collect();
        assert_eq!(sizes.len(), 130, "{}", s.scheme);
        assert!(
            sizes[..129].iter().all(|&n| n == 7) && sizes[129] == 2,
            "{sizes:?}"
        );
    }
}

#[test]
fn the_windowed_share_weighs_each_window_by_its_measured_events() {
    let cfg = ReplayConfig {
        window: 7,
        chunk_events: 50,
        latency: None,
        ..ReplayConfig::default()
    };
    // 905 measured events: 129 windows of 7 and a last one of 2, with scans (a scan's
    // requests count in its window's shares, but the window weighs by its events).
    let r = run("uniform:keys=500,scans=0.2", 1005, "range,hash", &cfg);
    assert_eq!(r.events_measured, 905);
    for s in &r.schemes {
        let mut weighted = 0.0;
        for (i, w) in s.load.window_requests.iter().enumerate() {
            let requests: u32 = w.iter().sum();
            let events = if i == 129 { 2.0 } else { 7.0 };
            weighted += events * f64::from(*w.iter().max().unwrap()) / f64::from(requests);
        }
        let expected = weighted / 905.0;
        let got = s.load.hottest_shard_share_windowed;
        assert!(
            (got - expected).abs() < 1e-12,
            "{}: {got} vs {expected}",
            s.scheme
        );
    }
}

/// The usable capacity of `hash` on 16 shards for `events` uniform events, in windows of
/// `window`, with its bootstrap interval when there is one.
fn uniform_usable(events: u64, window: u64) -> (f64, Option<(f64, f64)>) {
    let cfg = ReplayConfig {
        window,
        latency: None,
        ..ReplayConfig::default()
    };
    let r = run("uniform:keys=1000000", events, "hash", &cfg);
    assert_eq!(r.events_measured, events);
    let s = &r.schemes[0];
    let value = r
        .metric_values(s)
        .into_iter()
        .find(|m| m.name == "usable_capacity")
        .and_then(|m| m.value)
        .unwrap();
    let ci = s
        .intervals
        .iter()
        .find(|(name, _)| *name == "usable_capacity")
        .map(|(_, ci)| *ci);
    (value, ci)
}

#[test]
fn one_event_past_a_whole_window_barely_moves_the_usable_capacity() {
    // Before, the last window of 1 event (hottest share 1) counted as much as the full one:
    // 0.95 of the cluster usable with 10,000 events, 0.12 with 10,001.
    let (whole, _) = uniform_usable(10_000, 10_000);
    let (one_more, _) = uniform_usable(10_001, 10_000);
    assert!(whole > 0.85, "{whole}");
    assert!(
        (one_more / whole - 1.0).abs() < 0.03,
        "{whole} vs {one_more}"
    );
    // With 10 whole windows and the short one, the bootstrap interval holds the value and
    // stays near it.
    let (value, ci) = uniform_usable(10_001, 1_000);
    let (lo, hi) = ci.expect("11 windows are bootstrapped");
    assert!(lo <= value && value <= hi, "[{lo}, {hi}] around {value}");
    assert!(lo > 0.9 * value, "[{lo}, {hi}] around {value}");
}

#[test]
fn the_latency_sample_comes_from_measured_events_after_a_warmup() {
    let cfg = ReplayConfig {
        latency: Some(LatencyConfig {
            batch: 64,
            max_lookups: 20_000,
            budget: std::time::Duration::from_secs(2),
        }),
        ..ReplayConfig::default()
    };
    let r = run("zipf:keys=10000", 200_000, "range,hash,ring,salted", &cfg);
    assert_eq!(r.warmup_events, 20_000);
    for s in &r.schemes {
        let lat = s.latency.expect("every scheme is timed");
        assert!(
            lat.lookups >= 20_000 && lat.p50_ns > 0.0,
            "{}: {lat:?}",
            s.scheme
        );
    }
}

#[test]
fn every_metric_has_a_value_for_range_with_scans_and_timing() {
    let cfg = ReplayConfig {
        latency: Some(LatencyConfig {
            batch: 16,
            max_lookups: 1000,
            budget: std::time::Duration::from_secs(1),
        }),
        ..ReplayConfig::default()
    };
    let r = run("uniform:keys=1000,scans=0.1", 20_000, "range", &cfg);
    let names: Vec<&str> = r
        .metric_values(&r.schemes[0])
        .iter()
        .filter(|v| v.value.is_some())
        .map(|v| v.name)
        .collect();
    assert_eq!(names, METRICS.iter().map(|m| m.name).collect::<Vec<_>>());
}

#[test]
fn sequential_keys_put_every_window_on_one_range_but_not_on_one_hashed_shard() {
    let cfg = ReplayConfig {
        latency: None,
        ..ReplayConfig::default()
    };
    let r = run("sequential", 200_000, "range,hash,ring,salted", &cfg);
    let windowed = |name: &str| {
        r.schemes
            .iter()
            .find(|s| s.scheme == name)
            .unwrap()
            .load
            .hottest_shard_share_windowed
    };
    assert!(windowed("range") >= 0.9, "range {}", windowed("range"));
    assert!(windowed("hash") <= 0.15, "hash {}", windowed("hash"));
    assert!(windowed("ring") <= 0.15, "ring {}", windowed("ring"));
    assert!(windowed("salted") <= 0.15, "salted {}", windowed("salted"));
}

#[test]
fn hash_remap_on_uniform_keys_matches_n_over_n_plus_one_through_the_replay() {
    let cfg = ReplayConfig {
        latency: None,
        ..ReplayConfig::default()
    };
    let r = run("uniform:keys=1000000", 1_000_000, "hash", &cfg);
    let remap = r.schemes[0].remap.remap_fraction;
    assert!((remap - 16.0 / 17.0).abs() < 0.01, "{remap}");
}

#[test]
fn one_replay_measures_remap_for_every_target() {
    let cfg = ReplayConfig {
        latency: None,
        ..ReplayConfig::default()
    };
    let w = WorkloadSpec::parse("uniform:keys=200000").unwrap();
    let open = move || w.open(7, 200_000);
    let input = WorkloadInput {
        label: "u".into(),
        description: String::new(),
        key_type: KeyType::U64,
        open: &open,
        watch: None,
    };
    let schemes = SchemeSpec::parse_list("hash").unwrap();
    let rs =
        engine::replay::replay_targets(&input, &schemes, &cfg, &[17, 32, 16], &|_| {}).unwrap();
    let remap: Vec<f64> = rs
        .iter()
        .map(|r| r.schemes[0].remap.remap_fraction)
        .collect();
    assert_eq!(
        rs.iter()
            .map(|r| r.schemes[0].remap.target_shards)
            .collect::<Vec<_>>(),
        [17, 32, 16]
    );
    assert!((remap[0] - 16.0 / 17.0).abs() < 0.01, "{remap:?}");
    assert!((remap[1] - 0.5).abs() < 0.01, "{remap:?}");
    assert_eq!(remap[2], 0.0);
    assert_eq!(
        rs[0].schemes[0].load.shard_requests,
        rs[1].schemes[0].load.shard_requests
    );
}

/// The whole result of a replay on `threads` threads, build times aside (the one timing).
fn on_threads(threads: usize, spec: &str, events: u64, cfg: &ReplayConfig) -> String {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut r = pool.install(|| run(spec, events, "range,hash,ring", cfg));
    r.schemes.iter_mut().for_each(|s| s.router.build_ns = None);
    format!("{r:?}")
}

#[test]
fn key_parts_handed_between_workers_give_the_same_counts_on_any_thread_count() {
    // Limits split into 2 and 4 key-space parts (`KeyParts::for_limit`): each worker hashes
    // the keys of its chunks and hands them to the worker counting their part. Past the
    // limit (a hash sample, the hottest key from the sketch) and below it (exact).
    for (limit, spec, events, exact) in [
        (200_000, "uniform:keys=400000", 600_000, false),
        (300_000, "zipf:keys=50000,s=0.9,scans=0.05", 300_000, true),
    ] {
        let cfg = ReplayConfig {
            latency: None,
            distinct_key_limit: limit,
            chunk_events: 1000,
            window: 500,
            ..ReplayConfig::default()
        };
        let one = on_threads(1, spec, events, &cfg);
        let sample = if exact {
            "key_sample: None"
        } else {
            "key_sample: Some"
        };
        assert!(one.contains(sample), "{one}");
        for threads in [2, 3, 5] {
            assert_eq!(
                one,
                on_threads(threads, spec, events, &cfg),
                "{threads} threads, {spec}"
            );
        }
    }
}

#[test]
fn sampled_key_metrics_do_not_depend_on_the_thread_count() {
    // 100,000 distinct keys against a limit of 5,000: the key metrics are sampled estimates,
    // and the hottest key of a uniform trace comes from the sketch of keys outside the sample.
    let cfg = ReplayConfig {
        latency: None,
        distinct_key_limit: 5_000,
        chunk_events: 1000,
        window: 500,
        ..ReplayConfig::default()
    };
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut r = pool.install(|| run("uniform:keys=100000", 200_000, "range,hash,ring", &cfg));
        // Build times are timings, the one thing that differs between identical runs.
        r.schemes.iter_mut().for_each(|s| s.router.build_ns = None);
        let sample = r
            .key_sample
            .as_ref()
            .expect("past the limit the keys are sampled");
        assert!(
            sample.sample_rate < 1.0 && sample.hottest_key_error > 0,
            "{sample:?}"
        );
        format!("{r:?}")
    };
    let one = on(1);
    assert_eq!(one, on(2));
    assert_eq!(on(2), on(3));
}

#[test]
fn scans_over_more_than_2048_shards_report_every_shard_they_contact() {
    // A hashed scan contacts all N shards. The fan-out histogram (3 significant digits)
    // clamped any fan-out above 2,047 to 2: hash on 4,096 shards showed 2 shards per scan.
    let cfg = ReplayConfig {
        shards: 4096,
        latency: None,
        ..ReplayConfig::default()
    };
    let r = run("uniform:keys=1000,scans=0.5", 200, "hash", &cfg);
    let s = &r.schemes[0];
    let fanout = s.fanout.expect("the workload has scans");
    assert!(fanout.scans > 50, "{fanout:?}");
    assert_eq!((fanout.p99, fanout.max), (4096, 4096));
    assert_eq!(fanout.mean, 4096.0);
    let points = r.events_measured - r.scans;
    assert_eq!(s.load.requests, points + 4096 * r.scans);
}
