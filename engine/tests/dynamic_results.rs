//! The numbers a dynamic run hands to the reports (the `summary.csv` row beside the static
//! schemes), and runs on arbitrary input that must neither panic nor break the tiling.

mod common;

use common::{simulate, simulate_with, DynamicRun};
use engine::changing::LayoutOptions as DynamicOptions;
use engine::metrics::WorkloadResult;
use engine::replay::{replay, ReplayConfig, WorkloadInput};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use schemes::changing::WindowClock;
use schemes::range_dynamic::DynamicParams;
use schemes::range_dynamic::METRICS as DYNAMIC_METRICS;
use schemes::SchemeSpec;
use workloads::{Event, EventChunk, EventSource, KeyType, Op, Spec, WorkloadError, WorkloadSpec};

/// Events generated in the test, streamed like any workload.
struct TestEvents {
    chunk: EventChunk,
    next: usize,
}

impl EventSource for TestEvents {
    fn fill(&mut self, out: &mut EventChunk, max: usize) -> Result<usize, WorkloadError> {
        let n = max.min(self.chunk.len() - self.next);
        for i in self.next..self.next + n {
            out.push(self.chunk.get(i));
        }
        self.next += n;
        Ok(n)
    }
}

fn zipf_with_scans(events: u64) -> Box<dyn EventSource> {
    WorkloadSpec::parse("zipf:keys=10000,s=0.99,scans=0.05,scan_len=50")
        .unwrap()
        .open(9, events)
        .unwrap()
}

fn params(text: &str) -> DynamicParams {
    DynamicParams::parse(&Spec::parse(text).unwrap()).unwrap()
}

#[test]
fn the_windowed_share_weighs_each_window_by_its_measured_events() {
    // Windows of 5,000 events over 50,003 with 5,002 warm-up events: the measured windows hold
    // 4,998 (the rest of window 1), 5,000 (windows 2 to 9) and 3 events (window 10).
    let opts = DynamicOptions {
        nodes: 4,
        window: 5_000,
        warmup_events: 5_002,
        time_unit_ns: 1_000,
    };
    let run = simulate_with(
        &params("range-dynamic:max_bytes=50000,window_time=events"),
        &opts,
        zipf_with_scans(50_003).as_mut(),
    )
    .unwrap();
    assert_eq!(run.measured_events, 45_001);
    let mut events = vec![4_998u64];
    events.extend([5_000; 8]);
    events.push(3);
    let load = run.scheme_result(5).load;
    assert_eq!(load.window_events, events);
    let weighted: f64 = load
        .window_requests
        .iter()
        .zip(&events)
        .map(|(w, &e)| {
            let requests: u32 = w.iter().sum();
            e as f64 * f64::from(*w.iter().max().unwrap()) / f64::from(requests)
        })
        .sum();
    let expected = weighted / 45_001.0;
    let got = load.hottest_shard_share_windowed;
    assert!((got - expected).abs() < 1e-12, "{got} vs {expected}");
}

#[test]
fn a_run_gives_a_scheme_result_consistent_with_its_events() {
    let opts = DynamicOptions {
        nodes: 4,
        window: 5_000,
        warmup_events: 5_000,
        time_unit_ns: 1_000,
    };
    let run = simulate_with(
        &params("range-dynamic:max_bytes=50000"),
        &opts,
        zipf_with_scans(50_000).as_mut(),
    )
    .unwrap();
    // Synthetic events carry timestamps 1 us apart: windows of 5 000 us.
    assert_eq!(run.clock, WindowClock::Time(5_000));
    assert_eq!(
        (run.events, run.measured_events, run.timeline.len()),
        (50_000, 45_000, 10)
    );
    assert!(!run.timeline[0].measured && run.timeline[1..].iter().all(|w| w.measured));
    let result = run.scheme_result(5);
    assert_eq!(
        (result.scheme.as_str(), result.shards),
        ("range-dynamic", 4)
    );
    assert_eq!(result.load.window_requests.len(), 9);
    assert_eq!(result.load.requests, run.node_requests.iter().sum::<u64>());
    assert_eq!(
        result.load.requests,
        result
            .load
            .window_requests
            .iter()
            .flatten()
            .map(|&c| u64::from(c))
            .sum::<u64>()
    );
    let fanout = result.fanout.unwrap();
    assert!(
        fanout.scans > 2_000 && fanout.mean >= 1.0 && fanout.max <= 4,
        "{fanout:?}"
    );
    // One request per point operation, one per node a scan contacts.
    let points = run.keys.total();
    let scan_requests = (fanout.mean * fanout.scans as f64).round() as u64;
    assert_eq!(points + fanout.scans, run.measured_events);
    assert_eq!(result.load.requests, points + scan_requests);
    assert_eq!(
        result.shard_distinct_keys.iter().sum::<u64>(),
        run.keys.len() as u64
    );
    assert!(result.latency.is_none() && result.split.is_none());
    // Growth fills the new node; shrink moves exactly the removed node's ranges.
    let grow = result.remap;
    assert_eq!(grow.target_shards, 5);
    assert!(
        grow.remap_fraction > 0.0 && grow.remap_fraction < 0.5,
        "{grow:?}"
    );
    assert_eq!(grow.moved_to_new_shards, 1.0);
    let shrink = run.remap(3);
    assert!(
        shrink.remap_fraction > 0.0 && shrink.moved_to_new_shards == 0.0,
        "{shrink:?}"
    );
    assert_eq!(run.remap(4).remap_fraction, 0.0);
    let metrics = run.metric_values();
    assert_eq!(metrics.len(), DYNAMIC_METRICS.len());
    assert_eq!(
        (metrics[0].name, metrics[0].value),
        ("dynamic_windows", Some(10.0))
    );
    assert_eq!(metrics[1].value, Some(run.ranges.len() as f64));
}

#[test]
fn the_same_events_give_the_same_run() {
    let spec = Spec::parse("range-dynamic:max_bytes=20000,finder=sampled").unwrap();
    let a = simulate(&spec, 3, zipf_with_scans(20_000).as_mut(), 2_000).unwrap();
    let b = simulate(&spec, 3, zipf_with_scans(20_000).as_mut(), 2_000).unwrap();
    assert_eq!(a.timeline, b.timeline);
    assert_eq!(a.splits, b.splits);
    assert_eq!(a.ranges, b.ranges);
}

#[test]
fn bad_configurations_are_errors_not_panics() {
    let spec = Spec::parse("range-dynamic").unwrap();
    let e = simulate(&spec, 0, zipf_with_scans(10).as_mut(), 10)
        .unwrap_err()
        .to_string();
    assert!(e.contains("at least 1 node"), "{e}");
    let e = simulate(&spec, 2, zipf_with_scans(10).as_mut(), 0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("at least 1 event"), "{e}");
    let e = simulate(
        &Spec::parse("range-dynamic:ewma=2").unwrap(),
        2,
        zipf_with_scans(10).as_mut(),
        5,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("ewma=2 must be in (0, 1]"), "{e}");
    let empty = simulate(&spec, 2, zipf_with_scans(0).as_mut(), 5).unwrap();
    assert!(empty.timeline.is_empty() && empty.ranges.len() == 1);
    assert_eq!(empty.scheme_result(3).load.requests, 0);
}

/// Replays uniform keys through `range` and `range-dynamic` keeping at most `limit` distinct
/// keys exactly.
fn replay_beside_range(limit: usize) -> WorkloadResult {
    let spec = WorkloadSpec::parse("uniform:keys=50000").unwrap();
    let open = move || spec.open(3, 100_000);
    let input = WorkloadInput {
        label: "u".into(),
        description: String::new(),
        key_type: KeyType::U64,
        open: &open,
        watch: None,
    };
    let cfg = ReplayConfig {
        latency: None,
        distinct_key_limit: limit,
        ..ReplayConfig::default()
    };
    let schemes = SchemeSpec::parse_list("range,range-dynamic:max_bytes=200000").unwrap();
    replay(&input, &schemes, &cfg, &|_| {}).unwrap()
}

#[test]
fn past_the_distinct_limit_the_key_figures_are_measured_on_the_workloads_key_sample() {
    // Past --distinct-limit the workload's key figures are estimates from a consistent key
    // sample: per-shard distinct keys are scaled by 1 / sample rate and the remap carries the
    // sample's interval. The dynamic row must be measured on that same sample (it once counted
    // every key, so its per-node keys came out about 1 / rate too high).
    let (exact, sampled) = (replay_beside_range(10_000_000), replay_beside_range(2_000));
    let ks = sampled.key_sample.expect("sampled");
    let held = |w: &WorkloadResult, i: usize| w.schemes[i].shard_distinct_keys.iter().sum::<u64>();
    assert_eq!(held(&sampled, 1), ks.sampled_keys);
    assert_eq!(held(&sampled, 1), held(&sampled, 0));
    assert_eq!(held(&exact, 1), exact.distinct_keys);
    let dynamic = &sampled.schemes[1];
    let scaled: u64 = (0..dynamic.shards as usize)
        .map(|i| sampled.shard_distinct_keys(dynamic, i))
        .sum();
    let truth = exact.distinct_keys as f64;
    assert!(
        (scaled as f64 - truth).abs() < 0.1 * truth,
        "{scaled} vs {truth}"
    );
    // Traffic shares are over the sampled keys' requests: on growth every moved key goes to the
    // added node and every key there moved, so the moved traffic is the added node's share.
    let remap = &dynamic.remap;
    assert!(remap.remap_fraction_traffic > 0.01, "{remap:?}");
    assert_eq!(Some(remap.remap_fraction_traffic), remap.growth.added_share);
}

/// Op, key, scan end (`Some(None)`: unbounded), timestamp and value size of one event.
type EventParts = (
    Op,
    Vec<u8>,
    Option<Option<Vec<u8>>>,
    Option<u64>,
    Option<u32>,
);

/// One arbitrary event: any op, short keys (the empty key included), scans that may run
/// backwards or to +infinity, timestamps that may be missing, repeat, go back or jump.
fn event() -> impl Strategy<Value = EventParts> {
    (
        prop_oneof![
            Just(Op::Get),
            Just(Op::Put),
            Just(Op::Delete),
            Just(Op::Scan)
        ],
        proptest::collection::vec(any::<u8>(), 0..3),
        proptest::option::of(proptest::option::of(proptest::collection::vec(
            any::<u8>(),
            0..3,
        ))),
        proptest::option::weighted(0.8, prop_oneof![8 => 0u64..5_000, 1 => any::<u64>()]),
        proptest::option::of(0u32..500),
    )
}

fn spec_text() -> impl Strategy<Value = String> {
    (
        1u64..5,
        1u64..400,
        prop_oneof![Just("auto".to_string()), (1u32..40).prop_map(|v| v.to_string())],
        (1u32..=10, 1u64..4, 0u64..4, any::<bool>()),
        (0u64..600, 1u32..5, 0usize..4, prop_oneof![Just("auto"), Just("events"), Just("7"), Just("300")]),
    )
        .prop_map(|(presplit, max_bytes, max_load, (ewma, lw, cooldown, h), (cap, replicas, finder, wt))| {
            let finder = ["median", "sampled", "reservoir", "optimal"][finder];
            format!(
                "range-dynamic:presplit={presplit},max_bytes={max_bytes},max_load={max_load},ewma={},\
                 load_windows={lw},cooldown={cooldown},hysteresis={h},move_bytes_per_window={cap},\
                 replicas={replicas},finder={finder},window_time={wt},rebalance_threshold=0",
                f64::from(ewma) / 10.0
            )
        })
}

fn check(run: &DynamicRun, events: u64, cap: u64) -> Result<(), TestCaseError> {
    prop_assert_eq!(run.timeline.iter().map(|w| w.events).sum::<u64>(), events);
    prop_assert!(run.ranges[0].start.is_empty());
    for pair in run.ranges.windows(2) {
        prop_assert_eq!(pair[0].end.as_ref(), Some(&pair[1].start));
    }
    prop_assert!(run.ranges.last().unwrap().end.is_none());
    for w in &run.timeline {
        prop_assert!(w.bytes_moved <= cap);
        prop_assert!(
            (0.0..=1.0).contains(&w.hottest_node_share)
                && (0.0..=1.0).contains(&w.hottest_range_share)
        );
    }
    for row in &run.splits {
        for v in [row.balance_after, row.optimal_balance, row.contained]
            .into_iter()
            .flatten()
        {
            prop_assert!((0.0..=1.0).contains(&v), "{:?}", row);
        }
        prop_assert_eq!(row.split_key.is_some(), row.reason.is_none());
    }
    for target in [1, run.nodes, run.nodes + 2] {
        let r = run.remap(target);
        prop_assert!(
            (0.0..=1.0).contains(&r.remap_fraction)
                && (0.0..=1.0).contains(&r.remap_fraction_traffic)
        );
    }
    let result = run.scheme_result(run.nodes + 1);
    prop_assert_eq!(
        result.shard_distinct_keys.iter().sum::<u64>(),
        run.keys.len() as u64
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 96,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_events_and_parameters_keep_the_ranges_tiled_without_panicking(
        events in proptest::collection::vec(event(), 0..400),
        spec in spec_text(),
        nodes in 1u32..6,
        window in 1u64..40,
        warmup in 0u64..100,
    ) {
        let mut chunk = EventChunk::default();
        for (op, key, end, timestamp, size) in &events {
            let end = if *op == Op::Scan { end.as_ref().map(|e| e.as_deref()).unwrap_or(Some(&[0xff, 0xff][..])) } else { None };
            chunk.push(Event { op: *op, key, end, timestamp: *timestamp, size: *size });
        }
        let mut source = TestEvents { chunk, next: 0 };
        let p = params(&spec);
        let run = simulate_with(&p, &DynamicOptions { nodes, window, warmup_events: warmup, time_unit_ns: 1_000 }, &mut source).unwrap();
        check(&run, events.len() as u64, p.move_bytes_per_window)?;
    }
}
