//! The placement spread of the intervals against an independent model: the same keys placed
//! on shards at random, 200 times, every window counted exactly.

use std::collections::HashMap;

use engine::replay::{replay, ReplayConfig, WorkloadInput};
use rand::{Rng, SeedableRng};
use schemes::SchemeSpec;
use workloads::{KeyType, WorkloadSpec};

const SHARDS: usize = 8;
const EVENTS: u64 = 200_000;
const WINDOW: u64 = 10_000;

/// Usable capacity of 200 random placements of the keys of `spec`: each key on a shard drawn
/// uniformly, the windowed hottest share counted window by window (no scans).
fn random_placements(spec: &WorkloadSpec) -> Vec<f64> {
    let mut source = spec.open(7, EVENTS).unwrap();
    let chunk = workloads::collect(source.as_mut()).unwrap();
    let mut ids: HashMap<Vec<u8>, usize> = HashMap::new();
    let keys: Vec<usize> = chunk
        .iter()
        .map(|e| {
            let next = ids.len();
            *ids.entry(e.key.to_vec()).or_insert(next)
        })
        .collect();
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
    let mut values: Vec<f64> = (0..200)
        .map(|_| {
            let owner: Vec<usize> = (0..ids.len())
                .map(|_| rng.random_range(0..SHARDS))
                .collect();
            let mut hottest = 0.0;
            for window in keys.chunks(WINDOW as usize) {
                let mut counts = [0u64; SHARDS];
                window.iter().for_each(|&k| counts[owner[k]] += 1);
                hottest += *counts.iter().max().unwrap() as f64;
            }
            (EVENTS as f64 / (SHARDS as f64 * hottest)).min(1.0)
        })
        .collect();
    values.sort_by(f64::total_cmp);
    values
}

#[test]
fn a_hashed_schemes_usable_capacity_interval_covers_where_another_placement_falls() {
    let spec = WorkloadSpec::parse("zipf:keys=2000,s=1.1").unwrap();
    let open = || spec.open(7, EVENTS);
    let input = WorkloadInput {
        label: "zipf".into(),
        description: String::new(),
        key_type: KeyType::U64,
        open: &open,
        watch: None,
    };
    let cfg = ReplayConfig {
        shards: SHARDS as u32,
        window: WINDOW,
        latency: None,
        ..ReplayConfig::default()
    };
    let r = replay(
        &input,
        &SchemeSpec::parse_list("hash").unwrap(),
        &cfg,
        &|_| {},
    )
    .unwrap();
    let hash = &r.schemes[0];
    let (lo, hi) = hash.interval("usable_capacity").unwrap();
    let mc = random_placements(&spec);
    let (q025, q50, q975) = (mc[5], mc[100], mc[194]);
    eprintln!("hash interval [{lo:.4}, {hi:.4}]; random placements 2.5% {q025:.4}, median {q50:.4}, 97.5% {q975:.4}");
    // The bootstrap over windows alone is a fraction of a point wide here; another
    // placement moves usable capacity by several.
    assert!(lo < q50 && q50 < hi, "median {q50} outside [{lo}, {hi}]");
    let (width, spread) = (hi - lo, q975 - q025);
    assert!(
        width > 0.6 * spread && width < 1.8 * spread,
        "interval width {width} against the placements' 95% range {spread}"
    );
}
