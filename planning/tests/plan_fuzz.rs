//! Property tests of `plan`'s time handling (issue 17): any timestamps, window lengths, time
//! units, rates and capacities give a plan or a clear error, never a panic, an overflow or an
//! allocation that follows the time span. A short run is part of the test suite; a longer one
//! is run by hand:
//!
//! ```sh
//! PROPTEST_CASES=100000 cargo test -p planning --test plan_fuzz -- --ignored
//! ```

use engine::replay::WorkloadInput;
use planning::clock::{Clock, Windows};
use planning::{plan_workload, PlanConfig};
use proptest::prelude::*;
use schemes::SchemeSpec;
use workloads::{Event, EventChunk, EventSource, KeyType, Op, WorkloadError};

/// (key, op, timestamp) of each event, handed out a few at a time.
#[derive(Clone)]
struct Fixed(Vec<(u64, Op, Option<u64>)>, usize);

impl EventSource for Fixed {
    fn fill(&mut self, chunk: &mut EventChunk, max: usize) -> Result<usize, WorkloadError> {
        let n = max.min(self.0.len() - self.1).min(7);
        for &(key, op, timestamp) in &self.0[self.1..self.1 + n] {
            let key = key.to_be_bytes();
            let end = (key[0] ^ 0xff).to_be_bytes();
            // Every third put writes a range of one to seven keys.
            let range = (u64::from_be_bytes(key) + 1 + u64::from(key[7] % 7)).to_be_bytes();
            let end = match op {
                Op::Scan => Some(&end[..]),
                Op::Put if key[7] % 3 == 0 => Some(&range[..]),
                _ => None,
            };
            chunk.push(Event {
                op,
                key: &key,
                end,
                timestamp,
                size: Some(key[7].into()),
            });
        }
        self.1 += n;
        Ok(n)
    }
}

/// Timestamps that are often extreme: 0, u64::MAX, powers of two, or anything.
fn timestamp() -> impl Strategy<Value = Option<u64>> {
    prop_oneof![
        3 => any::<u64>().prop_map(Some),
        2 => (0u32..64).prop_map(|b| Some(1u64 << b)),
        1 => Just(Some(0)),
        1 => Just(Some(u64::MAX)),
        1 => Just(Some(0xFF00_0000)),
        1 => Just(None),
    ]
}

fn event() -> impl Strategy<Value = (u64, Op, Option<u64>)> {
    let op = prop_oneof![
        Just(Op::Get),
        Just(Op::Put),
        Just(Op::Delete),
        Just(Op::Scan)
    ];
    (0u64..50, op, timestamp())
}

fn clock() -> impl Strategy<Value = Clock> {
    prop_oneof![
        prop_oneof![
            Just(1u64),
            Just(1_000),
            Just(1_000_000),
            Just(1_000_000_000),
            any::<u64>()
        ]
        .prop_map(|nanos_per_tick| Clock::Timestamps { nanos_per_tick }),
        prop_oneof![Just(1u64), Just(u64::MAX), any::<u64>()]
            .prop_map(|events_per_sec| Clock::Rate { events_per_sec }),
    ]
}

fn window_ns() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(1u64),
        Just(1_000),
        Just(1_000_000_000),
        Just(60_000_000_000),
        Just(u64::MAX),
        any::<u64>(),
    ]
}

fn capacity() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(1e-300),
        Just(1e300),
        Just(f64::MIN_POSITIVE),
        1e-3f64..1e9
    ]
}

/// Plans `events` on `clock` windows; the result must be a plan or an error, and a plan's
/// figures must be consistent.
fn plan_any(
    events: Vec<(u64, Op, Option<u64>)>,
    clock: Clock,
    window_ns: u64,
    capacity: f64,
    warmup: f64,
) {
    let Ok(windows) = Windows::new(clock, window_ns) else {
        return;
    };
    let n = events.len() as u64;
    let open = move || Ok(Box::new(Fixed(events.clone(), 0)) as Box<dyn EventSource>);
    let input = WorkloadInput {
        label: "fuzz".into(),
        description: "fuzz".into(),
        key_type: KeyType::U64,
        open: &open,
        watch: None,
    };
    let schemes = SchemeSpec::parse_list("range,hash").unwrap();
    let cfg = PlanConfig {
        capacity,
        max_shards: 64,
        warmup_fraction: warmup,
        ..PlanConfig::default()
    };
    if let Ok(plan) = plan_workload(&input, &windows, &schemes, &cfg, &|_| {}) {
        assert_eq!(plan.events_measured, n);
        assert!(plan.warmup_events < n.max(1));
        assert!(plan.windows >= 1 && plan.windows <= u64::from(u32::MAX));
        assert!(plan.peak_rate >= plan.p99_rate && plan.p99_rate >= 0.0);
        assert!(plan.mean_rate.is_finite() && plan.mean_rate <= plan.peak_rate * (1.0 + 1e-9));
        assert_eq!(plan.rows.len(), 2);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn any_times_windows_and_capacities_give_a_plan_or_an_error(
        events in proptest::collection::vec(event(), 0..40),
        clock in clock(),
        window_ns in window_ns(),
        capacity in capacity(),
        warmup in prop_oneof![Just(0.0), Just(0.1), 0.0f64..0.99],
    ) {
        plan_any(events, clock, window_ns, capacity, warmup);
    }
}

proptest! {
    // The long run: as many cases as PROPTEST_CASES says (256 without it).
    #![proptest_config(ProptestConfig::default())]

    #[test]
    #[ignore = "long fuzzing run, by hand: PROPTEST_CASES=100000 ... -- --ignored"]
    fn any_times_windows_and_capacities_give_a_plan_or_an_error_long(
        events in proptest::collection::vec(event(), 0..200),
        clock in clock(),
        window_ns in window_ns(),
        capacity in capacity(),
        warmup in 0.0f64..0.99,
    ) {
        plan_any(events, clock, window_ns, capacity, warmup);
    }
}

/// The reproducers of the issue, exactly.
#[test]
fn timestamps_zero_and_max_are_an_error_and_a_span_of_four_billion_seconds_is_planned() {
    let seconds = Windows::new(
        Clock::Timestamps {
            nanos_per_tick: 1_000_000_000,
        },
        1_000_000_000,
    )
    .unwrap();
    let plan = |times: [u64; 2]| {
        let events: Vec<_> = times
            .iter()
            .enumerate()
            .map(|(k, &t)| (k as u64, Op::Get, Some(t)))
            .collect();
        let open = move || Ok(Box::new(Fixed(events.clone(), 0)) as Box<dyn EventSource>);
        let input = WorkloadInput {
            label: "t".into(),
            description: "t".into(),
            key_type: KeyType::U64,
            open: &open,
            watch: None,
        };
        let schemes = SchemeSpec::parse_list("hash").unwrap();
        plan_workload(&input, &seconds, &schemes, &PlanConfig::default(), &|_| {})
    };
    let err = plan([0, u64::MAX]).unwrap_err().to_string();
    assert!(
        err.contains("spans 18446744073709551616 rate windows") && err.contains("--rate-window"),
        "{err}"
    );
    let p = plan([0, 0xFF00_0000]).unwrap();
    assert_eq!(p.windows, 0xFF00_0001);
    // Two events one in each of two windows among 4,278,190,081: the peak is 1/s, the 99th
    // percentile window is empty, the mean is 2 / windows.
    assert_eq!((p.peak_rate, p.p99_rate), (1.0, 0.0));
    assert!((p.mean_rate - 2.0 / 4_278_190_081.0).abs() < 1e-18);
}
