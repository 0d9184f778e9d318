//! Acceptance tests of capacity planning (issue 7): the shard counts a plan reports against
//! hand-computed and analytic answers, hot keys, failures and peak-window rates.

use std::io::Write;
use std::sync::OnceLock;

use engine::metrics::failure::{self, FailTarget, FailureOutcome};
use engine::replay::WorkloadInput;
use planning::clock::{Clock, Windows};
use planning::search::SchemeSearch;
use planning::traffic::Traffic;
use planning::window_load::evaluate;
use planning::{
    plan_traffic, plan_workload, Binding, PlanConfig, PlanRow, ReadPolicy, ReplicaPolicy,
};
use schemes::pinned_hash::hash64;
use schemes::ring::RingPartitioner;
use schemes::SchemeSpec;
use schemes::{KeyCounts, RemovalEffect};
use workloads::trace::TraceOptions;
use workloads::{KeyType, WorkloadSpec};

const SECOND: u64 = 1_000_000_000;

/// The traffic of a synthetic workload placed `rate` events per second, 1 s windows.
fn synthetic(spec: &str, events: u64, rate: u64, warmup: u64) -> Traffic {
    let mut source = WorkloadSpec::parse(spec).unwrap().open(42, events).unwrap();
    let windows = Windows::new(
        Clock::Rate {
            events_per_sec: rate,
        },
        SECOND,
    )
    .unwrap();
    Traffic::read(source.as_mut(), &windows, warmup, &|_| {}).unwrap()
}

fn plan(traffic: &Traffic, schemes: &str, cfg: &PlanConfig) -> Vec<PlanRow> {
    let schemes = SchemeSpec::parse_list(schemes).unwrap();
    plan_traffic(traffic, "test", KeyType::U64, &schemes, cfg).unwrap()
}

fn needed(rows: &[PlanRow]) -> Vec<Option<u32>> {
    rows.iter().map(|r| r.shards_needed).collect()
}

/// 400,000 uniform requests in one second over a million keys: the busiest of N shards
/// carries 400,000 / N within about 0.8% (Poisson), so a balanced scheme needs the formula.
fn one_busy_second() -> &'static Traffic {
    static TRAFFIC: OnceLock<Traffic> = OnceLock::new();
    TRAFFIC.get_or_init(|| synthetic("uniform:keys=1000000", 400_000, 400_000, 0))
}

#[test]
fn a_balanced_scheme_needs_rate_times_growth_over_capacity_times_headroom_shards() {
    let traffic = one_busy_second();
    // capacity 62,500 at headroom 0.8: 50,000 requests/s per shard.
    let growth = vec![1.1, 1.7, 2.3, 3.1];
    let cfg = PlanConfig {
        capacity: 62_500.0,
        headroom: 0.8,
        growth: growth.clone(),
        ..PlanConfig::default()
    };
    let rows = plan(traffic, "hash", &cfg);
    for (row, g) in rows.iter().zip(growth) {
        let formula = (400_000.0 * g / (62_500.0 * 0.8)).ceil() as u32; // 9, 14, 19, 25
        let n = row.shards_needed.unwrap();
        assert!(
            n.abs_diff(formula) <= 1,
            "growth {g}: {n} shards, formula {formula}"
        );
        assert_eq!(
            row.balanced_shards, formula,
            "the search starts at the balanced count"
        );
        assert_eq!(row.binding, Binding::Rate);
        let peak = row.peak_rate_per_shard.unwrap();
        assert!(
            peak <= 50_000.0 && peak > 0.95 * 50_000.0 * (g * 400_000.0 / 50_000.0) / f64::from(n)
        );
    }
}

#[test]
fn a_ring_with_16_vnodes_needs_more_shards_than_one_with_1024_because_its_hottest_shard_is_hotter()
{
    let traffic = one_busy_second();
    let cfg = PlanConfig {
        capacity: 62_500.0,
        headroom: 0.8,
        ..PlanConfig::default()
    };
    let rows = plan(traffic, "ring:vnodes=16,ring:vnodes=1024", &cfg);
    let (few, many) = (
        rows[0].shards_needed.unwrap(),
        rows[1].shards_needed.unwrap(),
    );
    assert!(
        many.abs_diff(8) <= 1,
        "1024 vnodes are nearly balanced: {many} shards for a formula of 8"
    );
    assert!(
        few >= many + 2,
        "16 vnodes: {few} shards, 1024 vnodes: {many}"
    );
    // Why: at the same shard count the 16-vnode ring's hottest shard takes a larger share.
    let schemes = SchemeSpec::parse_list("ring:vnodes=16,ring:vnodes=1024").unwrap();
    let share = |i: usize| {
        let mut search =
            SchemeSearch::new(&schemes[i], traffic, &cfg, "test", KeyType::U64).unwrap();
        search.load_at(many).unwrap().hottest_share() * f64::from(many)
    };
    let (ratio_few, ratio_many) = (share(0), share(1));
    assert!(
        ratio_few > 1.15 && ratio_many < 1.06,
        "hottest share x N: 16 vnodes {ratio_few}, 1024 vnodes {ratio_many}"
    );
    assert!(
        rows[0].hottest_share.unwrap()
            > rows[1].hottest_share.unwrap() * f64::from(many) / f64::from(few)
    );
}

/// 20,000 reads at 10,000/s; half of them on key 0.
fn one_hot_key() -> Traffic {
    synthetic(
        "hotspot:keys=1000,hot=0.001,traffic=0.5,writes=0",
        20_000,
        10_000,
        2_000,
    )
}

#[test]
fn one_key_above_capacity_makes_every_scheme_infeasible_until_three_replicas_share_its_reads() {
    let traffic = &one_hot_key();
    let schemes = "range,hash,ring,salted";
    // Key 0 takes about 5,000 of the 10,000 reads/s; a shard may serve 4,000.
    let cfg = PlanConfig {
        capacity: 5_000.0,
        headroom: 0.8,
        ..PlanConfig::default()
    };
    for row in plan(traffic, schemes, &cfg) {
        assert_eq!(
            (row.shards_needed, row.binding),
            (None, Binding::HotKey),
            "{}",
            row.scheme
        );
        assert_eq!(row.hot_key.as_deref(), Some("0"));
        let rate = row.hot_key_rate.unwrap();
        assert!((4_800.0..5_200.0).contains(&rate), "{rate}");
        assert!(
            row.note.contains("No shard count works: key '0'"),
            "{}",
            row.note
        );
        assert!(
            row.note.contains("--replicas 2 --reads any") && row.note.contains("cache"),
            "{}",
            row.note
        );
    }
    // Three replicas with reads spread: about 1,667 reads/s per replica fits under 4,000, and
    // 3 shards each holding every key serve exactly a third of 10,000/s.
    let three = |capacity: f64, reads: ReadPolicy| PlanConfig {
        capacity,
        policy: ReplicaPolicy { replicas: 3, reads },
        ..cfg.clone()
    };
    for row in plan(traffic, schemes, &three(5_000.0, ReadPolicy::Any)) {
        assert_eq!(row.shards_needed, Some(3), "{}", row.scheme);
        assert!(
            (row.peak_rate_per_shard.unwrap() - 10_000.0 / 3.0).abs() < 1e-6,
            "{row:?}"
        );
    }
    // Reads at the leaseholder do not spread, and 1,667/s does not fit under 1,600/s.
    for cfg in [
        three(5_000.0, ReadPolicy::Leader),
        three(2_000.0, ReadPolicy::Any),
    ] {
        assert!(plan(traffic, schemes, &cfg)
            .iter()
            .all(|r| r.binding == Binding::HotKey));
    }
}

/// Keys whose hashes are known, sorted by hash, with request counts 1, 2, 4, ...
fn six_keys_by_hash() -> Vec<(Vec<u8>, u64)> {
    let mut keys: Vec<Vec<u8>> = ["a", "b", "c", "d", "e", "f"]
        .iter()
        .map(|k| k.as_bytes().to_vec())
        .collect();
    keys.sort_by_key(|k| hash64(k));
    keys.into_iter().zip([1, 2, 4, 8, 16, 32]).collect()
}

#[test]
fn a_hand_built_ring_that_loses_a_node_gives_its_arcs_to_the_successors() {
    // Keys k0..k5 in hash order with 1, 2, 4, 8, 16, 32 requests. Vnodes sit just after key
    // hashes (a key belongs to the first vnode after its hash): A(0) at k1, B(1) at k3, C(2) at
    // k4, B at k5.
    // Owners: k0, k1 -> A; k2, k3 -> B; k4 -> C; k5 -> B. Loads A 3, B 44, C 16.
    let keys = six_keys_by_hash();
    let at = |i: usize| hash64(&keys[i].0) + 1;
    let ring = RingPartitioner::from_points(
        "ring",
        3,
        vec![(at(1), 0), (at(3), 1), (at(4), 2), (at(5), 1)],
    )
    .unwrap();
    let mut counts = KeyCounts::new();
    keys.iter().for_each(|(k, n)| counts.add(k, *n));
    assert_eq!(failure::requests_per_shard(&ring, &counts), [3, 44, 16]);
    // B fails: its arc (k1, k3] goes to C at k4 (k2, k3: +12) and (k4, k5] wraps to A at k1
    // (k5: +32). A 35, B 0, C 28; keys k2, k3, k5 move: 3 of 6 keys, 44 of 63 requests.
    let FailureOutcome::Measured(b) =
        failure::measure(&ring, FailTarget::Shard(1), &counts).unwrap()
    else {
        panic!("a ring removes any shard")
    };
    assert_eq!(b.shard_requests_after, [35, 0, 28]);
    assert_eq!(
        (b.hottest_surviving_shard, b.remap.remap_fraction),
        (0, 0.5)
    );
    assert!((b.remap.remap_fraction_traffic - 44.0 / 63.0).abs() < 1e-12);
    assert!((b.hottest_surviving_share - 35.0 / 63.0).abs() < 1e-12);
    // Losing A puts k0, k1 on B (47); losing C puts k4 on B (60): C is the worst failure.
    let FailureOutcome::Measured(worst) =
        failure::measure(&ring, FailTarget::Worst, &counts).unwrap()
    else {
        panic!()
    };
    assert_eq!(
        (worst.failed_shard, worst.shard_requests_after.clone()),
        (2, vec![3, 60, 0])
    );
}

/// Writes a CSV trace and opens it as a workload input.
fn csv_trace(rows: &[(u64, &str, &str)]) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    writeln!(file, "timestamp,key,op").unwrap();
    for (t, key, op) in rows {
        writeln!(file, "{t},{key},{op}").unwrap();
    }
    file.flush().unwrap();
    file
}

#[test]
fn replicas_on_the_hand_built_ring_carry_the_hand_computed_loads() {
    // One second, keys as above; each key gets its count of gets, and k5 one put as well.
    let keys = six_keys_by_hash();
    let mut rows = Vec::new();
    for (k, n) in &keys {
        let key = String::from_utf8(k.clone()).unwrap();
        rows.extend((0..*n).map(|i| (i, key.clone(), "get")));
    }
    let k5 = String::from_utf8(keys[5].0.clone()).unwrap();
    rows.push((999_999, k5, "put"));
    let rows: Vec<(u64, &str, &str)> = rows
        .iter()
        .map(|(t, k, op)| (*t, k.as_str(), *op))
        .collect();
    let file = csv_trace(&rows);
    let opts = TraceOptions::new(file.path(), KeyType::Bytes);
    let mut source = workloads::trace::open(&opts).unwrap();
    let windows = Windows::new(
        Clock::Timestamps {
            nanos_per_tick: 1_000,
        },
        SECOND,
    )
    .unwrap();
    let traffic = Traffic::read(source.as_mut(), &windows, 0, &|_| {}).unwrap();
    let at = |i: usize| hash64(&keys[i].0) + 1;
    let ring = RingPartitioner::from_points(
        "ring",
        3,
        vec![(at(1), 0), (at(3), 1), (at(4), 2), (at(5), 1)],
    )
    .unwrap();
    // Two replicas: k0, k1 on A then B; k2, k3 on B then C; k4 on C then B; k5 on B then A.
    let leader = evaluate(
        &ring,
        &traffic,
        ReplicaPolicy {
            replicas: 2,
            reads: ReadPolicy::Leader,
        },
    )
    .unwrap();
    // Leaseholders: A 3, B 44 + the put, C 16; the put also lands on A.
    assert_eq!(leader.shard_requests(), [4.0, 45.0, 16.0]);
    assert_eq!(
        (leader.peak_rate(), leader.peak_shard_and_window()),
        (45.0, (1, 0))
    );
    let any = evaluate(
        &ring,
        &traffic,
        ReplicaPolicy {
            replicas: 2,
            reads: ReadPolicy::Any,
        },
    )
    .unwrap();
    // Reads split in halves: A (3 + 32)/2, B (3 + 12 + 16 + 32)/2, C (12 + 16)/2; the put on A and B.
    assert_eq!(any.shard_requests(), [18.5, 32.5, 14.0]);
}

#[test]
fn planning_for_a_failure_never_needs_fewer_shards_than_planning_for_none() {
    let zipf = synthetic("zipf:keys=5000,s=0.9,writes=0.2", 20_000, 10_000, 2_000);
    let uniform = synthetic("uniform:keys=5000,writes=0.5", 20_000, 10_000, 2_000);
    let mut compared = 0;
    for traffic in [&zipf, &uniform] {
        for (capacity, replicas, reads) in [
            (1_500.0, 1, ReadPolicy::Leader),
            (900.0, 2, ReadPolicy::Any),
            (3_000.0, 3, ReadPolicy::Leader),
        ] {
            let policy = ReplicaPolicy { replicas, reads };
            let base = PlanConfig {
                capacity,
                policy,
                growth: vec![1.0, 2.0],
                ..PlanConfig::default()
            };
            let none = plan(traffic, "range,hash,ring:vnodes=32,salted", &base);
            let one = plan(
                traffic,
                "range,hash,ring:vnodes=32,salted",
                &PlanConfig {
                    failures: 1,
                    ..base.clone()
                },
            );
            for (a, b) in none.iter().zip(&one) {
                match (a.shards_needed, b.shards_needed) {
                    (Some(x), Some(y)) => {
                        assert!(
                            y >= x,
                            "{} growth {}: {y} shards with a failure, {x} without",
                            a.scheme,
                            a.growth
                        );
                        compared += 1;
                    }
                    (None, y) => assert_eq!(y, None, "{} growth {}", a.scheme, a.growth),
                    (Some(_), None) => assert!(b.binding.is_infeasible()),
                }
                if let (Some(_), Binding::RateAfterFailure) = (b.shards_needed, b.binding) {
                    assert_eq!(b.failed_shards.len(), 1);
                }
            }
        }
    }
    assert!(
        compared >= 30,
        "only {compared} plans were feasible both ways"
    );
}

#[test]
fn a_failure_costs_the_mod_n_scheme_about_one_shard_and_names_the_reason() {
    let traffic = one_busy_second();
    let cfg = PlanConfig {
        capacity: 62_500.0,
        headroom: 0.8,
        failures: 1,
        ..PlanConfig::default()
    };
    let row = &plan(traffic, "hash", &cfg)[0];
    // 8 shards carry 400,000/s at 50,000 each only with every shard up; the survivors of one
    // failure need 8 as well, so 9 or 10 shards.
    assert_eq!(row.balanced_shards, 9);
    assert!((9..=10).contains(&row.shards_needed.unwrap()), "{row:?}");
    assert!(matches!(row.binding, Binding::RateAfterFailure), "{row:?}");
}

#[test]
fn a_burst_in_one_second_shows_as_the_peak_rate_not_the_mean() {
    // 200 seconds at 10 events/s, except second 50 with 1,000 events.
    let mut rows = Vec::new();
    for second in 0..200u64 {
        let n = if second == 50 { 1_000 } else { 10 };
        rows.extend((0..n).map(|i| (second * 1_000_000 + i * (1_000_000 / n), i)));
    }
    let keys: Vec<String> = rows.iter().map(|(_, i)| format!("k{i}")).collect();
    let rows: Vec<(u64, &str, &str)> = rows
        .iter()
        .zip(&keys)
        .map(|((t, _), k)| (*t, k.as_str(), "get"))
        .collect();
    let file = csv_trace(&rows);
    let opts = TraceOptions::new(file.path(), KeyType::Bytes);
    let open = move || workloads::trace::open(&opts);
    let input = WorkloadInput {
        label: "burst".into(),
        description: "a burst".into(),
        key_type: KeyType::Bytes,
        open: &open,
        watch: None,
    };
    let windows = Windows::new(
        Clock::Timestamps {
            nanos_per_tick: 1_000,
        },
        SECOND,
    )
    .unwrap();
    // A shard may serve 500/s at 80%: 400/s. The mean (14.95/s) fits on one shard; the burst
    // needs ceil(1000 / 400) = 3.
    let cfg = PlanConfig {
        capacity: 500.0,
        headroom: 0.8,
        ..PlanConfig::default()
    };
    let schemes = SchemeSpec::parse_list("hash").unwrap();
    let plan = plan_workload(&input, &windows, &schemes, &cfg, &|_| {}).unwrap();
    assert_eq!((plan.windows, plan.events_measured), (200, 2_990));
    assert!((plan.mean_rate - 14.95).abs() < 1e-9, "{}", plan.mean_rate);
    assert_eq!((plan.peak_rate, plan.p99_rate), (1_000.0, 10.0));
    let row = &plan.rows[0];
    assert_eq!((row.balanced_shards, row.binding), (3, Binding::Rate));
    assert!(row.shards_needed.unwrap() >= 3);
    // One shard would see the whole burst in its peak window and 10/s in its p99 window.
    let traffic = {
        let opts = TraceOptions::new(file.path(), KeyType::Bytes);
        Traffic::read(
            workloads::trace::open(&opts).unwrap().as_mut(),
            &windows,
            0,
            &|_| {},
        )
        .unwrap()
    };
    let mut search =
        SchemeSearch::new(&schemes[0], &traffic, &cfg, "burst", KeyType::Bytes).unwrap();
    let one = search.load_at(1).unwrap();
    assert_eq!(
        (one.peak_rate(), one.p99_rate(), one.peak_shard_and_window()),
        (1_000.0, 10.0, (0, 50))
    );
    // The burst is even within its second: half-second windows see 500 events each, the
    // same 1,000/s, while 10-second windows average it down to (1,000 + 90) / 10.
    for (window, peak) in [(SECOND / 2, 1_000.0), (10 * SECOND, 109.0)] {
        let windows = Windows::new(
            Clock::Timestamps {
                nanos_per_tick: 1_000,
            },
            window,
        )
        .unwrap();
        let plan = plan_workload(&input, &windows, &schemes, &cfg, &|_| {}).unwrap();
        assert_eq!(plan.peak_rate, peak);
    }
}

#[test]
fn growing_from_the_current_cluster_reports_the_share_of_keys_that_move() {
    let traffic = one_busy_second();
    let cfg = PlanConfig {
        capacity: 62_500.0,
        headroom: 0.8,
        current_shards: Some(4),
        ..PlanConfig::default()
    };
    let rows = plan(traffic, "hash,ring:vnodes=256", &cfg);
    let (hash, ring) = (&rows[0], &rows[1]);
    let (n_hash, n_ring) = (hash.shards_needed.unwrap(), ring.shards_needed.unwrap());
    // Mod-N keeps a key only when h mod 4 = h mod N; the ring moves only keys to new shards.
    let ring_moved = ring.moved_fraction_from_current.unwrap();
    let ideal = f64::from(n_ring - 4) / f64::from(n_ring);
    assert!(
        (ring_moved - ideal).abs() < 0.05,
        "ring moved {ring_moved}, ideal {ideal}"
    );
    assert!(hash.moved_fraction_from_current.unwrap() > 0.7, "{hash:?}");
    assert_eq!(
        (hash.current_shards, n_hash.abs_diff(8) <= 1),
        (Some(4), true)
    );
    assert_eq!(
        plan(
            traffic,
            "hash",
            &PlanConfig {
                current_shards: None,
                ..cfg
            }
        )[0]
        .moved_fraction_from_current,
        None
    );
}

#[test]
fn bad_plan_options_are_refused_with_the_option_named() {
    let traffic = &one_hot_key();
    let schemes = SchemeSpec::parse_list("hash").unwrap();
    for (cfg, needle) in [
        (
            PlanConfig {
                capacity: 0.0,
                ..PlanConfig::default()
            },
            "--capacity",
        ),
        (
            PlanConfig {
                headroom: 1.5,
                ..PlanConfig::default()
            },
            "--headroom",
        ),
        (
            PlanConfig {
                growth: vec![],
                ..PlanConfig::default()
            },
            "--growth",
        ),
        (
            PlanConfig {
                growth: vec![-1.0],
                ..PlanConfig::default()
            },
            "--growth",
        ),
        (
            PlanConfig {
                capacity_bytes: Some(0.0),
                ..PlanConfig::default()
            },
            "--capacity-bytes",
        ),
        (
            PlanConfig {
                max_shards: 2,
                failures: 2,
                ..PlanConfig::default()
            },
            "--max-shards",
        ),
    ] {
        let err = plan_traffic(traffic, "t", KeyType::U64, &schemes, &cfg)
            .unwrap_err()
            .to_string();
        assert!(err.contains(needle), "{err}");
    }
    let _ = needed(&[]);
}

#[test]
fn the_shortcuts_for_trial_removals_give_exactly_the_full_evaluation() {
    use planning::point_loads::PointLoads;
    use planning::removal_index::RemovalIndex;
    use planning::removal_loads::after_each;
    use planning::window_load::{evaluate_with, ReplicaTable};
    use schemes::placement::Degraded;
    let traffic = synthetic(
        "zipf:keys=3000,s=0.9,writes=0.3,scans=0.05,value_size=10",
        6_000,
        2_000,
        600,
    );
    let schemes = SchemeSpec::parse_list("range,ring:vnodes=8,salted").unwrap();
    for spec in &schemes {
        for (rf, reads) in [
            (1, ReadPolicy::Leader),
            (2, ReadPolicy::Any),
            (3, ReadPolicy::Leader),
        ] {
            let policy = ReplicaPolicy {
                replicas: rf,
                reads,
            };
            let ctx = schemes::BuildContext {
                shards: 7,
                warmup_keys: traffic.warmup_keys(),
                key_type: KeyType::U64,
                weights: None,
            };
            let intact = Degraded::intact(spec.build(&ctx).unwrap());
            let successor = intact.layout().removal_effect() == RemovalEffect::Successor;
            // Every removal from the intact layout and from the layout that lost shard 2.
            let once = intact.without(2, traffic.counts()).unwrap().unwrap();
            for state in [&intact, &once] {
                let table = ReplicaTable::new(state, &traffic, rf).unwrap();
                let points = PointLoads::new(&table, &traffic, reads, 7).unwrap();
                let index = RemovalIndex::new(state, &table, &traffic, successor).unwrap();
                // Every removal moved in one pass over the keys, in batches of four; the
                // ring's without their layouts when every key's replicas are predicted.
                let nexts = state.without_each(state.live(), traffic.counts()).unwrap();
                let predicted = index.predicts_every_key();
                assert_eq!(predicted, successor, "{} rf {rf}", spec.label());
                let removals: Vec<(u32, Option<&dyn schemes::Partitioner>)> = state
                    .live()
                    .iter()
                    .zip(&nexts)
                    .map(|(&s, next)| {
                        let next = next.as_ref().unwrap() as &dyn schemes::Partitioner;
                        (s, Some(next).filter(|_| !predicted))
                    })
                    .collect();
                let passes: Vec<PointLoads> = removals
                    .chunks(4)
                    .flat_map(|batch| {
                        after_each(&points, &table, &index, batch, &traffic, reads).unwrap()
                    })
                    .collect();
                for ((shard, next), pass) in state.live().iter().zip(&nexts).zip(&passes) {
                    let next = next.as_ref().unwrap();
                    let full = evaluate(next, &traffic, policy).unwrap();
                    let load = pass.load(next, next.failed(), &traffic, rf);
                    let what = format!("{} rf {rf} {:?} pass without {shard}", spec.label(), state);
                    assert_eq!(load, full, "{what}");
                }
                for &shard in state.live() {
                    let what = format!("{} rf {rf} {:?} without {shard}", spec.label(), state);
                    let next = state.without(shard, traffic.counts()).unwrap().unwrap();
                    let full = evaluate(&next, &traffic, policy).unwrap();
                    let change = index.local_removal(&table, &next, shard, &traffic).unwrap();
                    assert_eq!(
                        table.changed(&change),
                        ReplicaTable::new(&next, &traffic, rf).unwrap(),
                        "{what}"
                    );
                    let delta = points.moved(&table, &change, &traffic, reads).load(
                        &next,
                        next.failed(),
                        &traffic,
                        rf,
                    );
                    assert_eq!(delta, full, "{what}");
                    assert_eq!(
                        evaluate_with(
                            &next,
                            next.failed(),
                            &traffic,
                            policy,
                            &table.changed(&change)
                        ),
                        full
                    );
                }
            }
        }
    }
    // Mod-N: losing any one shard gives the same figures, so trying one stands for all.
    let hash = Degraded::intact(
        SchemeSpec::parse_list("hash").unwrap()[0]
            .build(&schemes::BuildContext {
                shards: 7,
                warmup_keys: &[],
                key_type: KeyType::U64,
                weights: None,
            })
            .unwrap(),
    );
    let policy = ReplicaPolicy {
        replicas: 2,
        reads: ReadPolicy::Any,
    };
    let figures = |shard| {
        let load = evaluate(
            &hash.without(shard, traffic.counts()).unwrap().unwrap(),
            &traffic,
            policy,
        )
        .unwrap();
        (
            load.peak_rate(),
            load.p99_rate(),
            load.hottest_share(),
            load.max_bytes(),
        )
    };
    assert!((0..7).all(|s| figures(s) == figures(6)));
}

#[test]
fn the_failure_chain_is_the_greedy_chain_of_full_evaluations() {
    use planning::failures::{worst_failures, Chain};
    use schemes::placement::Degraded;
    // With and without scans: without, the ring's trial removals build no layout.
    for spec_text in [
        "zipf:keys=3000,s=0.9,writes=0.3,value_size=10",
        "zipf:keys=3000,s=0.9,writes=0.3,scans=0.05,value_size=10",
    ] {
        let traffic = synthetic(spec_text, 6_000, 2_000, 600);
        // (Mod-N tries one removal for all: `the_shortcuts_...` checks that.)
        let schemes = SchemeSpec::parse_list("range,ring:vnodes=8,salted").unwrap();
        for spec in &schemes {
            for (rf, reads) in [(1, ReadPolicy::Leader), (3, ReadPolicy::Any)] {
                let policy = ReplicaPolicy {
                    replicas: rf,
                    reads,
                };
                let cfg = PlanConfig {
                    capacity: 100.0,
                    capacity_bytes: Some(5_000.0),
                    policy,
                    ..PlanConfig::default()
                };
                let limits = cfg.limits();
                let ctx = schemes::BuildContext {
                    shards: 9,
                    warmup_keys: traffic.warmup_keys(),
                    key_type: KeyType::U64,
                    weights: None,
                };
                let layout = spec.build(&ctx).unwrap();
                // By hand: every survivor removed in turn and evaluated in full; the worst
                // (highest utilisation, the lowest shard on ties) is removed, three times.
                let mut expected = Vec::new();
                let mut state = Degraded::intact(spec.build(&ctx).unwrap());
                for _ in 0..3 {
                    let mut worst: Option<(f64, Degraded, planning::LayoutLoad)> = None;
                    for &shard in state.live() {
                        let next = state.without(shard, traffic.counts()).unwrap().unwrap();
                        let load = evaluate(&next, &traffic, policy).unwrap();
                        let u = limits.utilisation(&load);
                        if worst.as_ref().is_none_or(|w| u > w.0) {
                            worst = Some((u, next, load));
                        }
                    }
                    let (_, next, load) = worst.unwrap();
                    expected.push((next.failed().to_vec(), load));
                    state = next;
                }
                let chain = worst_failures(
                    layout,
                    None,
                    3,
                    &traffic,
                    policy,
                    &limits,
                    f64::INFINITY,
                    &|_, _| {},
                )
                .unwrap();
                let Chain::States(states) = chain else {
                    panic!("{} rf {rf}: no chain", spec.label())
                };
                let got: Vec<_> = states.into_iter().map(|s| (s.failed, s.load)).collect();
                assert_eq!(got, expected, "{} rf {rf} {spec_text}", spec.label());
            }
        }
    }
}

/// The smallest count from `from` to `from + 63` whose layout, with every shard up and without any one
/// shard, fits at growth `growth`: every layout evaluated in full, no floor, no shortcut.
fn exhaustive_count(
    traffic: &Traffic,
    spec: &SchemeSpec,
    cfg: &PlanConfig,
    growth: f64,
    from: u32,
) -> Option<u32> {
    use schemes::placement::Degraded;
    let limits = cfg.limits();
    let fits = |load: &planning::LayoutLoad| limits.fits(growth, limits.utilisation(load));
    (from..=from + 63).find(|&n| {
        let ctx = schemes::BuildContext {
            shards: n,
            warmup_keys: traffic.warmup_keys(),
            key_type: KeyType::U64,
            weights: None,
        };
        let layout = spec.build(&ctx).unwrap();
        n >= cfg.policy.replicas + cfg.failures
            && fits(&evaluate(layout.as_ref(), traffic, cfg.policy).unwrap())
            && (0..n).all(|s| {
                let without = Degraded::after_removal(layout.as_ref(), s, traffic.counts())
                    .unwrap()
                    .unwrap();
                fits(&evaluate(&without, traffic, cfg.policy).unwrap())
            })
    })
}

#[test]
fn the_search_with_floors_and_predicted_removals_finds_the_count_of_the_exhaustive_one() {
    let traffic = synthetic(
        "zipf:keys=20000,s=0.8,writes=0.2,scans=0.01,value_size=10",
        12_000,
        3_000,
        1_200,
    );
    let mut checked = 0;
    for (capacity, replicas, reads) in [
        (400.0, 1, ReadPolicy::Leader),
        (300.0, 2, ReadPolicy::Any),
        (600.0, 3, ReadPolicy::Leader),
    ] {
        let cfg = PlanConfig {
            capacity,
            policy: ReplicaPolicy { replicas, reads },
            failures: 1,
            growth: vec![1.0, 1.5],
            ..PlanConfig::default()
        };
        let specs = SchemeSpec::parse_list("range,hash,ring:vnodes=8,salted").unwrap();
        let rows = plan_traffic(&traffic, "test", KeyType::U64, &specs, &cfg).unwrap();
        for row in rows.iter().filter(|r| r.shards_needed.is_some()) {
            let spec = specs.iter().find(|s| s.label() == row.scheme).unwrap();
            let expected = exhaustive_count(&traffic, spec, &cfg, row.growth, row.balanced_shards);
            // Past the counts checked one by one the search gallops (see `search`): then no
            // count of the linear part works.
            let linear = row.shards_needed <= Some(row.balanced_shards + 63);
            assert_eq!(
                row.shards_needed.filter(|_| linear),
                expected,
                "{} x{} rf {replicas}",
                row.scheme,
                row.growth
            );
            checked += usize::from(linear);
        }
    }
    assert!(checked >= 20, "only {checked} plans were checked");
}

#[test]
fn the_docs_binding_table_matches_the_binding_reasons() {
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/plan.md")).unwrap();
    let table = page
        .split("<!-- binding-table")
        .nth(1)
        .and_then(|s| s.split("<!-- end binding-table -->").next())
        .expect("docs/plan.md has a binding table");
    let rows: Vec<&str> = table.lines().filter(|l| l.starts_with("| `")).collect();
    assert_eq!(rows.len(), Binding::ALL.len());
    for (row, b) in rows.iter().zip(Binding::ALL) {
        let expected = format!(
            "| `{}` | {} |",
            b.name(),
            b.definition().replace('|', "\\|")
        );
        assert_eq!(*row, expected);
    }
}

#[test]
fn a_count_at_the_bound_with_failures_names_the_limit_one_shard_fewer_breaks_with_every_shard_up() {
    // Keys 1..=4, one get each in one second; ranges [.., 2), [2, 3), [3, 4), [4, 5), [5, ..).
    // A shard serves 1/s and one may fail: the bound is 4 + 1 = 5 shards, and 5 work (each
    // key alone; a failed shard's range goes to the shard of the empty range). With 4 shards
    // the layout puts ranges 0 and 1 (keys 1 and 2) on shard 0, 2/s with every shard up: the
    // binding is `rate`, not `rate_after_failure`.
    let file = csv_trace(&[
        (0, "1", "get"),
        (1, "2", "get"),
        (2, "3", "get"),
        (3, "4", "get"),
    ]);
    let mut bounds = tempfile::NamedTempFile::new().unwrap();
    writeln!(bounds, "2\n3\n4\n5").unwrap();
    bounds.flush().unwrap();
    let opts = TraceOptions::new(file.path(), KeyType::U64);
    let mut source = workloads::trace::open(&opts).unwrap();
    let windows = Windows::new(
        Clock::Timestamps {
            nanos_per_tick: 1_000,
        },
        SECOND,
    )
    .unwrap();
    let traffic = Traffic::read(source.as_mut(), &windows, 0, &|_| {}).unwrap();
    let cfg = PlanConfig {
        capacity: 1.0,
        headroom: 1.0,
        failures: 1,
        ..PlanConfig::default()
    };
    let scheme = format!("range:boundaries={}", bounds.path().display());
    let rows = plan(&traffic, &scheme, &cfg);
    assert_eq!(
        (rows[0].shards_needed, rows[0].balanced_shards),
        (Some(5), 5)
    );
    assert_eq!(rows[0].binding, Binding::Rate);
    // One failure and one shard in all: no copy survives, whatever the rate.
    let one = synthetic("uniform:keys=10", 10, 100, 0);
    let cfg = PlanConfig {
        capacity: 1_000.0,
        failures: 1,
        ..PlanConfig::default()
    };
    let rows = plan(&one, "hash", &cfg);
    assert_eq!(rows[0].shards_needed, Some(2));
    assert_eq!(rows[0].binding, Binding::Replicas);
}
