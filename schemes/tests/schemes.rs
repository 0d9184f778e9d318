//! Cross-scheme tests: remap on growth, load spread, scan fan-out, the properties every scheme
//! keeps, the range growth rule and the errors users see. Every scheme is built the way the
//! CLI builds it, through `SchemeSpec::parse_list(..).build(..)`.

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use schemes::pinned_hash::hash64;
use schemes::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};
use schemes::{BuildContext, SchemeSpec};
use workloads::key::encode_u64;
use workloads::KeyType;

/// Builds the first scheme of `spec`.
fn try_build(
    spec: &str,
    shards: u32,
    warmup: &[Vec<u8>],
    key_type: KeyType,
) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let schemes = SchemeSpec::parse_list(spec)?;
    schemes[0].build(&BuildContext {
        shards,
        warmup_keys: warmup,
        key_type,
        weights: None,
    })
}

fn build(spec: &str, shards: u32, warmup: &[Vec<u8>]) -> Box<dyn Partitioner> {
    try_build(spec, shards, warmup, KeyType::U64).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// The keys `0..n` as 8-byte big-endian integers.
fn uniform_keys(n: u64) -> Vec<[u8; 8]> {
    (0..n).map(encode_u64).collect()
}

/// A fixed pseudo-random sequence (splitmix64), so that tests are deterministic.
fn splitmix(seed: u64, n: usize) -> Vec<u64> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
        .collect()
}

/// Share of `keys` whose owner differs between `before` and `after`.
fn remap_fraction(before: &dyn Partitioner, after: &dyn Partitioner, keys: &[[u8; 8]]) -> f64 {
    let moved = keys
        .iter()
        .filter(|k| before.shard_of(&k[..]) != after.shard_of(&k[..]))
        .count();
    moved as f64 / keys.len() as f64
}

/// Keys per shard.
fn loads(p: &dyn Partitioner, keys: &[[u8; 8]]) -> Vec<u64> {
    let mut loads = vec![0u64; p.shard_count() as usize];
    for k in keys {
        loads[p.shard_of(k) as usize] += 1;
    }
    loads
}

/// The hottest shard's load relative to an even split (1.0 = perfectly even).
fn hottest_over_even(loads: &[u64]) -> f64 {
    let total: u64 = loads.iter().sum();
    let hottest = loads.iter().copied().max().unwrap_or(0);
    hottest as f64 * loads.len() as f64 / total as f64
}

/// Standard deviation of the loads over their mean.
fn coefficient_of_variation(loads: &[u64]) -> f64 {
    let n = loads.len() as f64;
    let mean = loads.iter().sum::<u64>() as f64 / n;
    let var = loads
        .iter()
        .map(|&l| (l as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    var.sqrt() / mean
}

fn fan_out(p: &dyn Partitioner, start: &[u8], end: &[u8]) -> ShardSet {
    let mut out = ShardSet::new(p.shard_count());
    p.scan_shards(start, end, &mut out);
    out
}

/// The owner of every range of a range-partitioned scheme, read through the trait.
fn range_owners(p: &dyn Partitioner) -> Vec<ShardId> {
    let starts = p.range_starts().expect("a key-range scheme");
    starts.iter().map(|s| p.shard_of(s)).collect()
}

/// Index of the range of `key` among `starts` (greatest start <= key).
fn range_index(starts: &[Vec<u8>], key: &[u8]) -> usize {
    starts.partition_point(|s| s.as_slice() <= key) - 1
}

// ---- remap on growth -------------------------------------------------------------------

#[test]
fn mod_hash_moves_n_over_n_plus_one_of_the_keys_when_a_shard_is_added() {
    let keys = uniform_keys(1_000_000);
    for (from, expected) in [(16, 16.0 / 17.0), (4, 0.80)] {
        let before = build("hash", from, &[]);
        let after = before.resized(from + 1, &KeyCounts::new()).unwrap();
        let moved = remap_fraction(&*before, &*after, &keys);
        eprintln!("hash {from} -> {}: remap fraction {moved:.4}", from + 1);
        assert!(
            (moved - expected).abs() <= 0.01,
            "{from} -> {}: {moved}",
            from + 1
        );
    }
}

#[test]
fn ring_moves_about_one_over_n_plus_one_of_the_keys_all_to_the_new_shard() {
    let keys = uniform_keys(1_000_000);
    let before = build("ring", 16, &[]);
    let after = before.resized(17, &KeyCounts::new()).unwrap();
    let mut moved = 0usize;
    for k in &keys {
        let (old, new) = (before.shard_of(k), after.shard_of(k));
        if old != new {
            assert_eq!(
                new, 16,
                "a key moved from {old} to {new}, not to the new shard"
            );
            moved += 1;
        }
    }
    let share = moved as f64 / keys.len() as f64;
    eprintln!("ring:vnodes=256 16 -> 17: remap fraction {share:.4} (1/17 = 0.0588)");
    assert!((share - 1.0 / 17.0).abs() <= 0.02, "{share}");
}

#[test]
fn ring_with_256_vnodes_keeps_the_hottest_shard_within_1_3_of_even() {
    let ring = build("ring", 16, &[]);
    let hottest = hottest_over_even(&loads(&*ring, &uniform_keys(1_000_000)));
    eprintln!("ring:vnodes=256, 16 shards: hottest / even = {hottest:.3}");
    assert!(hottest <= 1.3, "{hottest}");
}

#[test]
fn ring_spread_shrinks_like_one_over_the_square_root_of_the_vnodes() {
    let keys = uniform_keys(1_000_000);
    let cv = |v: u32| {
        let ring = build(&format!("ring:vnodes={v}"), 16, &[]);
        coefficient_of_variation(&loads(&*ring, &keys))
    };
    let (few, many) = (cv(16), cv(1024));
    eprintln!("ring spread (cv of shard loads): 16 vnodes {few:.4}, 1024 vnodes {many:.4}");
    // Theory: cv ~ 1/sqrt(V), 0.25 and 0.031; allow a factor 2 either way (16 shards give a
    // rough estimate of the cv), and require a clear gap (theory: 8x).
    assert!((0.125..=0.5).contains(&few), "16 vnodes: {few}");
    assert!((0.0156..=0.0625).contains(&many), "1024 vnodes: {many}");
    assert!(few > 3.0 * many, "16 vnodes {few} vs 1024 vnodes {many}");
}

// ---- scan fan-out ----------------------------------------------------------------------

/// Random scans `[a, b)` with `a < b` over u64 keys below `limit`.
fn random_scans(limit: u64, n: usize) -> Vec<([u8; 8], [u8; 8])> {
    let r = splitmix(7, 2 * n);
    r.chunks(2)
        .map(|p| {
            let (a, b) = (p[0] % limit, p[1] % limit);
            let (a, b) = (a.min(b), a.max(b) + 1);
            (encode_u64(a), encode_u64(b))
        })
        .collect()
}

#[test]
fn hashed_schemes_contact_every_shard_for_every_scan() {
    for spec in ["hash", "ring", "ring:vnodes=4"] {
        let p = build(spec, 12, &[]);
        for (a, b) in random_scans(1 << 40, 200) {
            assert_eq!(fan_out(&*p, &a, &b).len(), 12, "{spec}");
        }
    }
}

#[test]
fn range_fan_out_is_the_number_of_overlapping_ranges_or_their_owners() {
    let warmup: Vec<Vec<u8>> = (0..10_000u64)
        .map(|i| encode_u64(i * 100).to_vec())
        .collect();
    for (spec, per_shard) in [("range:ranges_per_shard=1", 1), ("range", 8)] {
        let p = build(spec, 8, &warmup);
        let starts = p.range_starts().unwrap().to_vec();
        assert_eq!(starts.len(), 8 * per_shard);
        let owners = range_owners(&*p);
        for (a, b) in random_scans(1_000_000, 300) {
            let overlapping: Vec<usize> = (0..starts.len())
                .filter(|&i| starts[i].as_slice() < &b[..])
                .filter(|&i| i + 1 == starts.len() || starts[i + 1].as_slice() > &a[..])
                .collect();
            let mut want: Vec<ShardId> = overlapping.iter().map(|&i| owners[i]).collect();
            want.dedup(); // contiguous owners: equal owners are neighbours
            let got: Vec<ShardId> = fan_out(&*p, &a, &b).iter().collect();
            assert_eq!(got, want, "{spec} [{a:?}, {b:?})");
            if per_shard == 1 {
                assert_eq!(got.len(), overlapping.len());
            }
        }
    }
}

#[test]
fn a_salted_one_key_scan_contacts_at_most_one_shard_per_bucket() {
    let warmup: Vec<Vec<u8>> = splitmix(3, 20_000)
        .iter()
        .map(|&x| encode_u64(x).to_vec())
        .collect();
    let mut warmup = warmup;
    warmup.sort();
    for (spec, buckets) in [("salted:buckets=4", 4), ("salted", 16)] {
        let p = build(spec, 16, &warmup);
        for x in splitmix(11, 300) {
            // [x, x + 1) holds one 8-byte key, and no salted boundary falls inside a sub-scan.
            let out = fan_out(&*p, &encode_u64(x), &encode_u64(x.saturating_add(1)));
            assert!((1..=buckets).contains(&out.len()), "{spec}: {}", out.len());
            assert!(out.contains(p.shard_of(&encode_u64(x))));
        }
        let everything = fan_out(&*p, &encode_u64(0), &encode_u64(u64::MAX));
        assert_eq!(
            everything.len(),
            16,
            "{spec}: a full scan reaches every shard"
        );
    }
}

// ---- properties of every scheme --------------------------------------------------------

/// Every scheme spelled out with non-default parameters too.
const EVERY_SCHEME: &str = "range,range:ranges_per_shard=3,grow=cheapest,hash,ring,ring:vnodes=3,\
                            salted,salted:buckets=3,ranges_per_shard=2,grow=cheapest";

fn small_key() -> impl Strategy<Value = Vec<u8>> {
    // A tiny alphabet so that keys repeat, prefix each other and hit boundaries.
    prop::collection::vec(0u8..4, 0..5)
}

fn fail(e: impl std::fmt::Display) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

/// Owners are in range and the same on every call and every build.
fn check_placement(
    p: &dyn Partitioner,
    again: &dyn Partitioner,
    probes: &[Vec<u8>],
) -> Result<(), TestCaseError> {
    for k in probes {
        let s = p.shard_of(k);
        prop_assert!(
            s < p.shard_count(),
            "{}: shard {s} of {}",
            p.label(),
            p.shard_count()
        );
        prop_assert_eq!(s, p.shard_of(k));
        prop_assert_eq!(s, again.shard_of(k));
    }
    let [one_by_one, batch, hashed] = batch_placements(p, probes);
    prop_assert_eq!(&batch, &one_by_one, "{}: shards_of", p.label());
    prop_assert_eq!(&hashed, &one_by_one, "{}: shards_of_hashed", p.label());
    Ok(())
}

/// The owners of `keys` one by one, by `shards_of` and by `shards_of_hashed` (given their
/// placement hashes, as a replay gives them).
fn batch_placements(p: &dyn Partitioner, keys: &[Vec<u8>]) -> [Vec<ShardId>; 3] {
    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let hashes: Vec<u64> = refs.iter().map(|k| hash64(k)).collect();
    let (mut batch, mut hashed) = (Vec::new(), Vec::new());
    p.shards_of(&refs, &mut batch);
    p.shards_of_hashed(&refs, &hashes, &mut hashed);
    let one_by_one = refs.iter().map(|k| p.shard_of(k)).collect();
    [one_by_one, batch, hashed]
}

#[test]
fn integer_keys_are_placed_alike_one_by_one_in_batches_and_given_their_hashes() {
    let warmup: Vec<Vec<u8>> = splitmix(3, 2000)
        .iter()
        .map(|&x| encode_u64(x).to_vec())
        .collect();
    let probes: Vec<Vec<u8>> = splitmix(4, 5000)
        .iter()
        .map(|&x| encode_u64(x % 100_000).to_vec())
        .chain(uniform_keys(300).iter().map(|k| k.to_vec()))
        .collect();
    for spec in SchemeSpec::parse_list(EVERY_SCHEME).unwrap() {
        let p = spec
            .build(&BuildContext {
                shards: 7,
                warmup_keys: &warmup,
                key_type: KeyType::U64,
                weights: None,
            })
            .unwrap();
        let [one_by_one, batch, hashed] = batch_placements(&*p, &probes);
        assert_eq!(batch, one_by_one, "{}", p.label());
        assert_eq!(hashed, one_by_one, "{}", p.label());
    }
}

/// Every scan contacts 1..=N shards, among them the owner of every key it covers.
fn check_scans(p: &dyn Partitioner, probes: &[Vec<u8>]) -> Result<(), TestCaseError> {
    for a in probes {
        for b in probes {
            let out = fan_out(p, a, b);
            prop_assert!((1..=p.shard_count()).contains(&out.len()), "{}", p.label());
            prop_assert!(out.iter().all(|s| s < p.shard_count()));
            prop_assert!(out.contains(p.shard_of(a)), "{}: owner of start", p.label());
            for k in probes.iter().filter(|k| a <= *k && *k < b) {
                prop_assert!(
                    out.contains(p.shard_of(k)),
                    "{}: scan misses a key",
                    p.label()
                );
            }
        }
    }
    Ok(())
}

/// For key-range schemes as built (contiguous owners): key order is range and shard order.
fn check_order(p: &dyn Partitioner, probes: &[Vec<u8>]) -> Result<(), TestCaseError> {
    let Some(starts) = p.range_starts() else {
        return Ok(());
    };
    let mut sorted = probes.to_vec();
    sorted.sort();
    for pair in sorted.windows(2) {
        let (i, j) = (range_index(starts, &pair[0]), range_index(starts, &pair[1]));
        prop_assert!(i <= j, "{}: range index goes down", p.label());
        prop_assert!(
            p.shard_of(&pair[0]) <= p.shard_of(&pair[1]),
            "{}",
            p.label()
        );
        prop_assert_eq!(p.shard_of(&pair[1]), p.shard_of(&starts[j]));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_scheme_places_scans_and_resizes_within_its_shards(
        shards in 1u32..=24,
        resize_to in 1u32..=32,
        warmup in prop::collection::vec(small_key(), 0..120),
        probes in prop::collection::vec(small_key(), 1..24),
    ) {
        let mut warm = warmup.clone();
        warm.sort();
        warm.dedup();
        let mut counts = KeyCounts::new();
        warmup.iter().chain(&probes).for_each(|k| counts.add(k, 1));
        let ctx = BuildContext { shards, warmup_keys: &warm, key_type: KeyType::Bytes, weights: None };
        for spec in SchemeSpec::parse_list(EVERY_SCHEME).map_err(fail)? {
            let p = spec.build(&ctx).map_err(fail)?;
            prop_assert_eq!(p.shard_count(), shards);
            prop_assert_eq!(p.label(), spec.label());
            check_placement(&*p, &*spec.build(&ctx).map_err(fail)?, &probes)?;
            check_scans(&*p, &probes)?;
            check_order(&*p, &probes)?;
            let resized = p.resized(resize_to, &counts).map_err(fail)?;
            prop_assert_eq!(resized.shard_count(), resize_to);
            check_placement(&*resized, &*p.resized(resize_to, &counts).map_err(fail)?, &probes)?;
            check_scans(&*resized, &probes)?;
        }
    }
}

// ---- the range growth rule -------------------------------------------------------------

/// 16 shards x 8 learned ranges of `spec` (a `range` spec) over a warm-up of 5,000 keys, and
/// 50,000 distinct keys seen.
fn sixteen_by_eight(spec: &str) -> (Box<dyn Partitioner>, Vec<Vec<u8>>, KeyCounts) {
    let seen: Vec<Vec<u8>> = splitmix(1, 50_000)
        .iter()
        .map(|&x| encode_u64(x).to_vec())
        .collect();
    let mut warmup = seen[..5_000].to_vec();
    warmup.sort();
    let mut counts = KeyCounts::new();
    seen.iter().for_each(|k| counts.add(k, 3));
    let p = build(spec, 16, &warmup);
    assert_eq!(p.range_starts().unwrap().len(), 128);
    (p, seen, counts)
}

#[test]
fn range_grow_cheapest_gives_the_new_shard_the_cheapest_ranges_and_moves_only_their_keys() {
    let (before, seen, counts) = sixteen_by_eight("range:grow=cheapest");
    let after = before.resized(17, &counts).unwrap();
    let starts = after.range_starts().unwrap().to_vec();
    assert_eq!(
        starts,
        before.range_starts().unwrap(),
        "boundaries never change"
    );
    let (old, new) = (range_owners(&*before), range_owners(&*after));
    let mut keys_in = vec![0u64; starts.len()];
    seen.iter()
        .for_each(|k| keys_in[range_index(&starts, k)] += 1);

    let taken: Vec<usize> = (0..starts.len()).filter(|&i| new[i] == 16).collect();
    assert_eq!(taken.len(), 128 / 17, "floor(128 / 17) = 7 ranges");
    assert!((0..starts.len()).all(|i| new[i] == 16 || new[i] == old[i]));
    for &i in &taken {
        // Each donor started with 8 ranges, so 7 different shards each gave one: the cheapest.
        let donor = old[i];
        assert_eq!(taken.iter().filter(|&&t| old[t] == donor).count(), 1);
        let cheapest = (0..starts.len())
            .filter(|&j| old[j] == donor)
            .min_by_key(|&j| (keys_in[j], j))
            .unwrap();
        assert_eq!(
            i, cheapest,
            "shard {donor} gave range {i}, not its cheapest {cheapest}"
        );
    }
    let moved: Vec<&Vec<u8>> = seen
        .iter()
        .filter(|k| before.shard_of(k) != after.shard_of(k))
        .collect();
    assert!(moved
        .iter()
        .all(|k| taken.contains(&range_index(&starts, k))));
    assert_eq!(
        moved.len() as u64,
        taken.iter().map(|&i| keys_in[i]).sum::<u64>()
    );
    eprintln!(
        "range 16x8 -> 17: {} of {} keys moved",
        moved.len(),
        seen.len()
    );
}

#[test]
fn range_shrink_moves_only_the_ranges_of_removed_shards() {
    let (before, _, counts) = sixteen_by_eight("range");
    let after = before.resized(12, &counts).unwrap();
    let (old, new) = (range_owners(&*before), range_owners(&*after));
    assert!(new.iter().all(|&s| s < 12));
    assert!((0..old.len()).all(|i| old[i] >= 12 || new[i] == old[i]));
    let per_shard = |s: ShardId| new.iter().filter(|&&o| o == s).count();
    assert!(
        (0..12).all(|s| per_shard(s) >= 8),
        "a kept shard lost a range"
    );
}

// ---- errors ----------------------------------------------------------------------------

fn error_of(spec: &str) -> String {
    match try_build(spec, 4, &[], KeyType::U64) {
        Ok(_) => panic!("{spec} was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn out_of_range_parameters_are_refused_with_the_bad_value() {
    let cases = [
        ("ring:vnodes=0", "vnodes=0 must be at least 1"),
        ("ring:vnodes=70000", "vnodes=70000 must be at most 65536"),
        ("salted:buckets=0", "buckets=0 must be at least 1"),
        (
            "salted:buckets=65537",
            "buckets=65537 must be at most 65536",
        ),
        (
            "range:ranges_per_shard=0",
            "ranges_per_shard=0 must be at least 1",
        ),
        ("ring:vnodes=many", "vnodes=many is not a whole number"),
    ];
    for (spec, expected) in cases {
        let message = error_of(spec);
        assert!(
            message.contains(expected) && message.contains(spec),
            "{spec}: {message}"
        );
    }
}

#[test]
fn unknown_parameters_and_schemes_list_the_valid_ones() {
    let cases = [
        ("ring:vnode=3", "valid parameters: vnodes"),
        (
            "range:buckets=3",
            "valid parameters: boundaries, ranges_per_shard",
        ),
        (
            "salted:vnodes=3",
            "valid parameters: buckets, ranges_per_shard",
        ),
        ("hash:vnodes=3", "valid parameters: none"),
        ("btree", "valid schemes: range, hash, ring, salted"),
    ];
    for (spec, expected) in cases {
        let message = SchemeSpec::parse_list(spec).unwrap_err().to_string();
        assert!(message.contains(expected), "{spec}: {message}");
    }
}

#[test]
fn zero_shards_are_refused_when_building_and_resizing() {
    for spec in SchemeSpec::all_defaults() {
        let ctx = BuildContext {
            shards: 0,
            warmup_keys: &[],
            key_type: KeyType::U64,
            weights: None,
        };
        let err = spec.build(&ctx).err().expect("0 shards accepted");
        assert!(err.to_string().contains("at least 1 (got 0)"), "{err}");
        let p = build(&spec.label(), 3, &[]);
        let err = p
            .resized(0, &KeyCounts::new())
            .err()
            .expect("resize to 0 accepted");
        assert!(
            matches!(err, AnalysisError::Config(_)),
            "{}: {err}",
            spec.label()
        );
    }
}

fn boundaries_file(text: &str) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    std::io::Write::write_all(&mut file, text.as_bytes()).unwrap();
    file
}

#[test]
fn an_unsorted_boundaries_file_is_refused_naming_the_file_and_the_line() {
    let file = boundaries_file("10\n30\n20\n");
    let spec = format!("range:boundaries={}", file.path().display());
    let err = try_build(&spec, 4, &[], KeyType::U64).err().unwrap();
    let AnalysisError::Boundaries { path, line, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!((path.as_path(), *line), (file.path(), 3));
    let message = err.to_string();
    let expected = format!(
        "{}:3: split key '20' is not greater than",
        file.path().display()
    );
    assert!(message.starts_with(&expected), "{message}");
}

#[test]
fn boundaries_files_that_are_missing_or_mixed_with_learning_are_refused() {
    let err = error_of("range:boundaries=/nonexistent/splits.txt");
    assert!(
        err.starts_with("cannot read boundaries file '/nonexistent/splits.txt'"),
        "{err}"
    );
    let file = boundaries_file("10\n");
    let err = error_of(&format!(
        "range:boundaries={},ranges_per_shard=2",
        file.path().display()
    ));
    assert!(
        err.contains("ranges_per_shard only applies to learned boundaries"),
        "{err}"
    );
    let ok = build(
        &format!("range:boundaries={}", file.path().display()),
        4,
        &[],
    );
    assert_eq!(
        range_owners(&*ok),
        [0, 2],
        "2 ranges on 4 shards: floor(i * 4 / 2)"
    );
}

/// Every scheme whose placement is a hash (not learned from the data or from the order of
/// arrival) can redraw it for the placement spread of the intervals: another placement with
/// the same shards that places some keys elsewhere.
#[test]
fn every_hashed_scheme_offers_other_placements() {
    let learned = ["range", "salted", "bounded"];
    let keys = uniform_keys(4_000);
    let warmup: Vec<Vec<u8>> = keys.iter().map(|k| k.to_vec()).collect();
    let dir = tempfile::tempdir().unwrap();
    let servers = dir.path().join("servers");
    let lines: Vec<String> = (0..8).map(|i| format!("10.0.0.{i}:11211\n")).collect();
    std::fs::write(&servers, lines.concat()).unwrap();
    for kind in schemes::SCHEMES {
        let spec = match kind.name {
            "nginx-chash" => format!("nginx-chash:servers={}", servers.display()),
            name => name.to_string(),
        };
        let p =
            try_build(&spec, 8, &warmup, KeyType::U64).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let salted = p.with_salt(1);
        if learned.contains(&kind.name) {
            assert!(
                salted.is_none(),
                "{}: a learned layout has no placement luck",
                kind.name
            );
            continue;
        }
        let salted = salted.unwrap_or_else(|| panic!("{} offers no other placement", kind.name));
        assert_eq!(salted.shard_count(), 8, "{}", kind.name);
        let moved = keys
            .iter()
            .filter(|k| salted.shard_of(&k[..]) != p.shard_of(&k[..]))
            .count();
        assert!(
            moved > 1_000,
            "{}: only {moved} of 4000 keys placed elsewhere",
            kind.name
        );
    }
}
