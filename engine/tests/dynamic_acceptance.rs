//! Issue 4, acceptance 2 to 7: range dynamics on workloads with a known answer.

mod common;

use common::{simulate, DynamicRun};
use schemes::range_dynamic::rebalance::{self, MoveKind, RangeLoad, RebalanceLimits};
use schemes::range_dynamic::{FinderKind, FinderSummary, Refusal};
use schemes::{BuildContext, SchemeSpec};
use workloads::{collect, Event, EventChunk, EventSource, Op, Spec, WorkloadError, WorkloadSpec};

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

/// xorshift64*: a fixed generator for test workloads.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) % n
    }

    fn chance(&mut self, p: f64) -> bool {
        (self.below(1 << 40) as f64) < p * (1u64 << 40) as f64
    }
}

/// `events` reads whose key number comes from `pick(event index, rng)`.
fn reads(events: u64, seed: u64, mut pick: impl FnMut(u64, &mut Rng) -> u64) -> TestEvents {
    let mut rng = Rng(seed | 1);
    let mut chunk = EventChunk::default();
    for i in 0..events {
        let key = pick(i, &mut rng).to_be_bytes();
        chunk.push(Event {
            op: Op::Get,
            key: &key,
            end: None,
            timestamp: None,
            size: Some(100),
        });
    }
    TestEvents { chunk, next: 0 }
}

fn run(spec: &str, nodes: u32, window: u64, source: &mut dyn EventSource) -> DynamicRun {
    simulate(&Spec::parse(spec).unwrap(), nodes, source, window).unwrap()
}

fn summary(run: &DynamicRun, finder: FinderKind) -> FinderSummary {
    run.finder_summaries()
        .into_iter()
        .find(|s| s.finder == finder)
        .unwrap()
}

fn key_number(key: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = key.len().min(8);
    b[8 - n..].copy_from_slice(&key[..n]);
    u64::from_be_bytes(b)
}

#[test]
fn a_single_hot_key_is_reported_as_popular_and_never_split_for() {
    // 90% of the reads on key 500 000, the rest uniform over a million keys.
    let mut source = reads(100_000, 7, |_, rng| {
        if rng.chance(0.9) {
            500_000
        } else {
            rng.below(1_000_000)
        }
    });
    let run = run(
        "range-dynamic:max_load=1000,load_windows=2,presplit=4",
        4,
        5_000,
        &mut source,
    );
    assert_eq!(run.totals.load_splits, 0, "a load split was made");
    assert!(run.totals.refusals >= 5, "{:?}", run.totals);
    assert!(!run.splits.is_empty());
    for row in &run.splits {
        assert_eq!(row.reason, Some(Refusal::PopularKey), "{row:?}");
        assert!(key_number(&row.range_start) <= 500_000);
        assert!(row
            .range_end
            .as_deref()
            .is_none_or(|e| key_number(e) > 500_000));
    }
    for f in FinderKind::ALL {
        let s = summary(&run, f);
        assert_eq!(
            (s.splits, s.popular_key, s.no_split_key, s.clear_direction),
            (0, run.totals.refusals, 0, 0)
        );
    }
    // The yardstick shows why: even the exact key leaves the hot key's side with ~90%.
    let yardstick: Vec<f64> = run
        .splits
        .iter()
        .filter_map(|r| r.optimal_balance)
        .collect();
    assert!(
        !yardstick.is_empty() && yardstick.iter().all(|&b| b > 0.75),
        "{yardstick:?}"
    );
}

#[test]
fn sequential_inserts_have_a_clear_direction_and_leave_the_newest_range_hot() {
    let inserts = WorkloadSpec::parse("sequential").unwrap();
    let mut source = inserts.open(1, 100_000).unwrap();
    // 108-byte records: a range splits past ~925 keys, about 7 size splits per window.
    let run = run(
        "range-dynamic:max_bytes=100000,max_load=1000,load_windows=2",
        4,
        5_000,
        source.as_mut(),
    );
    assert_eq!(run.timeline.len(), 20);
    assert!(run.totals.size_splits >= 100, "{:?}", run.totals);
    assert_eq!(run.totals.load_splits, 0);
    assert!(run.totals.refusals >= 5, "{:?}", run.totals);
    for row in &run.splits {
        assert_eq!(row.reason, Some(Refusal::ClearDirection), "{row:?}");
        // Every decision is about the last range, where the newest keys land.
        assert_eq!(row.range_end, None, "{row:?}");
    }
    for f in FinderKind::ALL {
        assert_eq!(summary(&run, f).clear_direction, run.totals.refusals);
    }
    // The exact key of a decision window is stale one window later: all load is past it.
    assert!(run
        .splits
        .iter()
        .filter_map(|r| r.optimal_balance)
        .all(|b| b == 1.0));
    // Size splits leave every insert on the newest range, so one node takes (nearly) all.
    for w in &run.timeline {
        assert!(
            w.hottest_range_share >= 0.95 && w.hottest_node_share >= 0.95,
            "{w:?}"
        );
    }
    assert!(
        run.load().hottest_shard_share_windowed >= 0.95,
        "{:?}",
        run.load()
    );
    // A hashed scheme spreads the same inserts.
    let hash = SchemeSpec::parse_list("hash").unwrap()[0]
        .build(&BuildContext {
            shards: 4,
            warmup_keys: &[],
            key_type: Default::default(),
            weights: None,
        })
        .unwrap();
    let mut per_shard = [0u64; 4];
    for e in collect(inserts.open(1, 100_000).unwrap().as_mut())
        .unwrap()
        .iter()
    {
        per_shard[hash.shard_of(e.key) as usize] += 1;
    }
    assert!(per_shard.iter().all(|&n| n < 30_000), "{per_shard:?}");
}

#[test]
fn load_splits_bring_scrambled_zipf_within_one_and_a_half_fair_shares_and_the_reservoir_near_optimal(
) {
    const NODES: u32 = 8;
    const WITHIN_WINDOWS: usize = 10;
    let mut source = WorkloadSpec::parse("zipf:keys=100000,s=0.99")
        .unwrap()
        .open(3, 400_000)
        .unwrap();
    let run = run(
        "range-dynamic:load_windows=2",
        NODES,
        10_000,
        source.as_mut(),
    );
    assert_eq!(run.timeline.len(), 40);
    // One range on one node at first.
    assert_eq!(run.timeline[0].hottest_node_share, 1.0);
    let fair = 1.0 / f64::from(NODES);
    for w in &run.timeline[WITHIN_WINDOWS..] {
        assert!(
            w.hottest_node_share <= 1.5 * fair,
            "window {}: {}",
            w.window,
            w.hottest_node_share
        );
    }
    assert!(run.totals.load_splits >= 10, "{:?}", run.totals);
    let (reservoir, optimal) = (
        summary(&run, FinderKind::Reservoir),
        summary(&run, FinderKind::Optimal),
    );
    assert_eq!(reservoir.applied, run.totals.load_splits);
    assert!(reservoir.evaluated >= 10, "{reservoir:?}");
    let (r, o) = (
        reservoir.balance_mean.unwrap(),
        optimal.balance_mean.unwrap(),
    );
    assert!(r - o <= 0.1, "reservoir {r} vs optimal {o}");
    assert!(
        reservoir.excess_over_optimal_mean.unwrap() <= 0.1,
        "{reservoir:?}"
    );
    // The load-blind median does worse than the load-aware finders.
    assert!(summary(&run, FinderKind::Median).balance_mean.unwrap() > r);
}

#[test]
fn load_splits_isolate_two_hot_spans_on_a_uniform_background() {
    const NODES: u32 = 4;
    const WITHIN_WINDOWS: usize = 10;
    // 20% uniform over [0, 100 000), 40% on each span of 100 keys.
    let spans = [20_000..20_100u64, 70_000..70_100u64];
    let mut source = reads(300_000, 11, |_, rng| match rng.below(10) {
        0..=1 => rng.below(100_000),
        2..=5 => spans[0].start + rng.below(100),
        _ => spans[1].start + rng.below(100),
    });
    let run = run("range-dynamic:load_windows=2", NODES, 10_000, &mut source);
    let bounds: Vec<(u64, u64)> = run
        .ranges
        .iter()
        .map(|r| {
            (
                key_number(&r.start),
                r.end.as_deref().map_or(u64::MAX, key_number),
            )
        })
        .collect();
    let overlaps = |(s, e): (u64, u64), span: &std::ops::Range<u64>| s < span.end && span.start < e;
    // No range holds keys of both spans.
    assert!(
        bounds
            .iter()
            .all(|&b| !(overlaps(b, &spans[0]) && overlaps(b, &spans[1]))),
        "{bounds:?}"
    );
    for span in &spans {
        // Most of the span's keys (and so its load) are in ranges holding nothing else.
        let inner: u64 = bounds
            .iter()
            .filter(|(s, e)| *s >= span.start && *e <= span.end)
            .map(|(s, e)| e - s)
            .sum();
        assert!(
            inner * 2 >= span.end - span.start,
            "span {span:?}: {inner} keys in inner ranges; {bounds:?}"
        );
    }
    // The splits went where the load is: most boundaries lie inside the spans (0.2% of the keys).
    let inside = bounds
        .iter()
        .skip(1)
        .filter(|(s, _)| spans.iter().any(|span| span.contains(s)))
        .count();
    assert!(
        inside * 2 >= bounds.len() - 1,
        "{inside} of {} boundaries in the spans: {bounds:?}",
        bounds.len() - 1
    );
    let fair = 1.0 / f64::from(NODES);
    for w in &run.timeline[WITHIN_WINDOWS..] {
        assert!(
            w.hottest_node_share <= 1.5 * fair,
            "window {}: {}",
            w.window,
            w.hottest_node_share
        );
    }
}

#[test]
fn hysteresis_stops_oscillation_when_the_load_flips_between_two_spans() {
    // 80% of the reads on one of two spans, flipping every 6 windows of 2 000 events.
    let flipping = || {
        reads(120_000, 5, |i, rng| {
            match (rng.chance(0.2), (i / 12_000) % 2) {
                (true, _) => rng.below(100_000),
                (false, 0) => 10_000 + rng.below(200),
                (false, _) => 60_000 + rng.below(200),
            }
        })
    };
    let spec = |hysteresis: bool| {
        format!(
            "range-dynamic:max_load=400,load_windows=2,cooldown=20,move_bytes_per_window=0,max_bytes=1000000000,\
             hysteresis={hysteresis}"
        )
    };
    let with = run(&spec(true), 3, 2_000, &mut flipping());
    let without = run(&spec(false), 3, 2_000, &mut flipping());
    assert_eq!(with.totals.oscillations, 0, "{:?}", with.totals);
    assert!(
        with.totals.merges > 0,
        "merges still happen after the cool-down: {:?}",
        with.totals
    );
    assert!(without.totals.oscillations >= 10, "{:?}", without.totals);
    // Without hysteresis the cluster keeps re-splitting what it merged.
    assert!(
        without.totals.load_splits > 2 * with.totals.load_splits,
        "{:?} vs {:?}",
        without.totals,
        with.totals
    );
}

#[test]
fn rebalancing_moves_ownership_before_data_and_never_exceeds_the_byte_cap() {
    // The plan: node 0 owns six ranges of load 10; replicas on {0, 1}. Node 1 takes what it
    // can by ownership, nodes 2 and 3 only by data moves of 300 bytes, capped at 700 bytes.
    let ranges: Vec<RangeLoad> = (0..6)
        .map(|_| RangeLoad {
            load: 10.0,
            bytes: 300,
            owner: 0,
            replicas: [0, 1].into_iter().collect(),
        })
        .collect();
    let moves = rebalance::plan(
        &ranges,
        4,
        &RebalanceLimits {
            threshold: 0.0,
            byte_cap: 700,
        },
        &|_| true,
    );
    let first_data = moves.iter().position(|m| m.kind == MoveKind::Data).unwrap();
    assert!(first_data > 0);
    assert!(
        moves[first_data..].iter().all(|m| m.kind == MoveKind::Data),
        "{moves:?}"
    );
    assert_eq!(moves.iter().map(|m| m.bytes).sum::<u64>(), 600);

    // The simulation: every window stays within the cap.
    let cap = 150_000;
    let zipf = || {
        WorkloadSpec::parse("zipf:keys=100000,s=0.99")
            .unwrap()
            .open(4, 200_000)
            .unwrap()
    };
    let spec = format!("range-dynamic:max_bytes=100000,move_bytes_per_window={cap},load_windows=2");
    let capped = run(&spec, 8, 10_000, zipf().as_mut());
    assert!(
        capped.totals.ownership_moves > 0 && capped.totals.data_moves > 0,
        "{:?}",
        capped.totals
    );
    for w in &capped.timeline {
        assert!(
            w.bytes_moved <= cap,
            "window {}: {} bytes",
            w.window,
            w.bytes_moved
        );
    }
    // With a replica on every node, ownership moves always suffice: no byte moves.
    let everywhere = run(&format!("{spec},replicas=8"), 8, 10_000, zipf().as_mut());
    assert!(everywhere.totals.ownership_moves > 0);
    assert_eq!(
        (everywhere.totals.data_moves, everywhere.totals.bytes_moved),
        (0, 0)
    );
}
