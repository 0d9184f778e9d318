//! Split-key finders: where to cut a range that is hot.
//!
//! Every finder sees the same input, the requests of the range in the window where the split
//! is decided (in arrival order), and either proposes a key strictly inside the range or
//! refuses with `no_split_key`. A popular key or a clear direction ([`Diagnosis`]) makes every
//! finder refuse before it searches; see [`decide`].
//!
//! - `median`: the median distinct stored key of the range (size-based; blind to load).
//! - `sampled`: the median of a reservoir sample of [`SAMPLE_SIZE`] requested keys.
//! - `reservoir`: the load-based finder of CockroachDB and TiKV. A reservoir of
//!   [`SAMPLE_SIZE`] requested keys; from the moment a key is sampled it counts the later
//!   requests left of it, right of it, and the scans that contain it. A candidate needs at
//!   least [`MIN_COUNT`] counts and is rejected when |left-right|/(left+right) >=
//!   [`BALANCE_LIMIT`] or contained/all >= [`CONTAINED_LIMIT`]; the lowest balance +
//!   contained share wins.
//! - `optimal`: the exact minimiser of the split balance over every boundary, from the full
//!   counts (the yardstick); refused, like `reservoir`, at [`BALANCE_LIMIT`] or above.
//!
//! Random choices use SplitMix64 (a pinned, published algorithm) seeded per decision, so runs
//! are reproducible.

use serde::Serialize;

pub use super::diagnose::BALANCE_LIMIT;
use super::diagnose::{Diagnosis, Refusal};
use super::requests::{inside, Request, SideCounts};
use crate::balance::imbalance;

/// Keys held by the `sampled` and `reservoir` finders.
pub const SAMPLE_SIZE: usize = 20;

/// Counts (left + right + contained) a `reservoir` candidate needs.
pub const MIN_COUNT: u64 = 100;

/// Contained share at or above which a `reservoir` candidate is refused.
pub const CONTAINED_LIMIT: f64 = 0.5;

/// A split-key finder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FinderKind {
    /// Median distinct stored key.
    Median,
    /// Median of a reservoir sample of requested keys.
    Sampled,
    /// CockroachDB/TiKV load-based finder.
    Reservoir,
    /// Exact load-halving key.
    Optimal,
}

impl FinderKind {
    /// Every finder, in report order.
    pub const ALL: [FinderKind; 4] = [
        FinderKind::Median,
        FinderKind::Sampled,
        FinderKind::Reservoir,
        FinderKind::Optimal,
    ];

    /// The name in specs and reports.
    pub fn name(self) -> &'static str {
        match self {
            FinderKind::Median => "median",
            FinderKind::Sampled => "sampled",
            FinderKind::Reservoir => "reservoir",
            FinderKind::Optimal => "optimal",
        }
    }

    /// Parses a name (exact, lowercase).
    pub fn from_name(name: &str) -> Option<FinderKind> {
        FinderKind::ALL.into_iter().find(|f| f.name() == name)
    }

    /// This finder's key, or `None` (`no_split_key`). Ignores the [`Diagnosis`]: use
    /// [`decide`] for the full decision.
    pub fn find(self, input: &FinderInput<'_>) -> Option<Vec<u8>> {
        match self {
            FinderKind::Median => input
                .stored_median
                .filter(|k| input.inside(k))
                .map(<[u8]>::to_vec),
            FinderKind::Sampled => sampled(input),
            FinderKind::Reservoir => reservoir(input),
            FinderKind::Optimal => exact_best(input)
                .filter(|(_, c)| c.balance() < BALANCE_LIMIT)
                .map(|(k, _)| k),
        }
    }
}

/// What a finder sees of one hot range.
#[derive(Clone, Copy, Debug)]
pub struct FinderInput<'a> {
    /// The range's start key.
    pub start: &'a [u8],
    /// The range's end key (`None`: unbounded).
    pub end: Option<&'a [u8]>,
    /// The range's requests in the decision window, in arrival order, clipped to the range.
    pub requests: &'a [Request<'a>],
    /// The median distinct key the range stores, if it stores any.
    pub stored_median: Option<&'a [u8]>,
    /// Seed of the random choices of this decision.
    pub seed: u64,
}

impl FinderInput<'_> {
    fn inside(&self, k: &[u8]) -> bool {
        inside(k, self.start, self.end)
    }
}

/// The full decision of one finder: the diagnosed refusal if any, else the finder's key or
/// `no_split_key`.
pub fn decide(
    kind: FinderKind,
    input: &FinderInput<'_>,
    diagnosis: &Diagnosis,
) -> Result<Vec<u8>, Refusal> {
    match diagnosis.refusal() {
        Some(refusal) => Err(refusal),
        None => kind.find(input).ok_or(Refusal::NoSplitKey),
    }
}

/// The boundary inside the range with the lowest split balance on `input.requests` (ties:
/// fewer cut scans, then the smaller key), with its counts; `None` when no request key lies
/// strictly inside the range. Candidates are every point key and scan start or end, since
/// the counts only change there.
pub fn exact_best(input: &FinderInput<'_>) -> Option<(Vec<u8>, SideCounts)> {
    let mut points: Vec<&[u8]> = Vec::new();
    let (mut starts, mut ends): (Vec<&[u8]>, Vec<&[u8]>) = (Vec::new(), Vec::new());
    for r in input.requests {
        if r.scan {
            starts.push(r.key);
            ends.extend(r.end);
        } else {
            points.push(r.key);
        }
    }
    let scans = starts.len() as u64;
    let mut candidates: Vec<&[u8]> = points
        .iter()
        .chain(&starts)
        .chain(&ends)
        .copied()
        .filter(|k| input.inside(k))
        .collect();
    for v in [&mut points, &mut starts, &mut ends, &mut candidates] {
        v.sort_unstable();
    }
    candidates.dedup();
    let counts_at = |k: &[u8]| {
        let points_left = points.partition_point(|p| *p < k) as u64;
        let scans_left = starts.partition_point(|s| *s < k) as u64;
        let scans_ended = ends.partition_point(|e| *e <= k) as u64;
        SideCounts {
            left: points_left + scans_ended,
            right: (points.len() as u64 - points_left) + (scans - scans_left),
            contained: scans_left - scans_ended,
        }
    };
    candidates
        .into_iter()
        .map(|k| (k, counts_at(k)))
        .min_by(|a, b| {
            a.1.balance()
                .total_cmp(&b.1.balance())
                .then(a.1.contained.cmp(&b.1.contained))
        })
        .map(|(k, c)| (k.to_vec(), c))
}

/// The median of a reservoir sample of the requested keys strictly inside the range.
fn sampled(input: &FinderInput<'_>) -> Option<Vec<u8>> {
    let mut rng = SplitMix64::new(input.seed ^ 0x5A3D_1E5E_0000_0001);
    let mut sample: Vec<&[u8]> = Vec::with_capacity(SAMPLE_SIZE);
    for (seen, r) in input
        .requests
        .iter()
        .filter(|r| input.inside(r.key))
        .enumerate()
    {
        if sample.len() < SAMPLE_SIZE {
            sample.push(r.key);
        } else if let Some(slot) = sample.get_mut(rng.below(seen as u64 + 1) as usize) {
            *slot = r.key;
        }
    }
    sample.sort_unstable();
    sample.get(sample.len() / 2).map(|k| k.to_vec())
}

/// CockroachDB's unweighted load-split finder over the requests in arrival order.
fn reservoir(input: &FinderInput<'_>) -> Option<Vec<u8>> {
    let mut rng = SplitMix64::new(input.seed ^ 0x7E5E_7F01_0000_0002);
    let mut samples: Vec<(&[u8], SideCounts)> = Vec::with_capacity(SAMPLE_SIZE);
    for (i, r) in input.requests.iter().enumerate() {
        for (key, counts) in &mut samples {
            counts.add(r.side(key));
        }
        if samples.len() < SAMPLE_SIZE {
            samples.push((r.key, SideCounts::default()));
        } else if let Some(slot) = samples.get_mut(rng.below(i as u64 + 1) as usize) {
            *slot = (r.key, SideCounts::default());
        }
    }
    samples
        .into_iter()
        .filter(|(key, c)| input.inside(key) && c.total() >= MIN_COUNT)
        .filter_map(|(key, c)| {
            let balance = imbalance(c.left, c.right);
            let contained = c.contained_share();
            (balance < BALANCE_LIMIT && contained < CONTAINED_LIMIT)
                .then_some((key, balance + contained))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(key, _)| key.to_vec())
}

/// SplitMix64 (Steele, Lea and Flood, 2014): a pinned generator whose output is fixed by its
/// published algorithm.
struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`), by multiply-shift.
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::balance::optimal_balance;

    fn key(i: u32) -> Vec<u8> {
        i.to_be_bytes().to_vec()
    }

    fn input<'a>(requests: &'a [Request<'a>], stored_median: Option<&'a [u8]>) -> FinderInput<'a> {
        FinderInput {
            start: &[],
            end: None,
            requests,
            stored_median,
            seed: 7,
        }
    }

    #[test]
    fn splitmix_is_pinned_to_its_published_output() {
        // First output of SplitMix64 seeded with 1234567 (reference implementation).
        assert_eq!(
            SplitMix64::new(1_234_567).next_u64(),
            6_457_827_717_110_365_317
        );
    }

    #[test]
    fn the_exact_finder_agrees_with_the_static_optimum_on_point_loads() {
        // Keys 1..=40, key i requested (i % 7 + 1) times, interleaved.
        let keys: Vec<Vec<u8>> = (1..=40u32).map(key).collect();
        let mut requests = Vec::new();
        for round in 0..7 {
            for (i, k) in keys.iter().enumerate() {
                if i % 7 >= round {
                    requests.push(Request {
                        key: k,
                        end: None,
                        scan: false,
                    });
                }
            }
        }
        let counts: Vec<u64> = (0..40).map(|i| (i % 7 + 1) as u64).collect();
        let (k, c) = exact_best(&input(&requests, None)).unwrap();
        assert!((c.balance() - optimal_balance(&counts)).abs() < 1e-12);
        assert_eq!(SideCounts::at(&requests, &k), c);
    }

    #[test]
    fn scans_count_on_both_sides_and_the_optimum_avoids_cutting_them() {
        let (a, b, c, d) = (key(10), key(20), key(30), key(40));
        let requests = vec![
            Request {
                key: &a,
                end: None,
                scan: false,
            },
            Request {
                key: &a,
                end: Some(&c),
                scan: true,
            },
            Request {
                key: &c,
                end: None,
                scan: false,
            },
            Request {
                key: &d,
                end: None,
                scan: false,
            },
        ];
        // Cut at 20: left {a, scan}, right {scan, c, d}: loads 2 and 3, one cut.
        assert_eq!(
            SideCounts::at(&requests, &b),
            SideCounts {
                left: 1,
                right: 2,
                contained: 1
            }
        );
        // Cut at 30: left {a, scan} = 2, right {c, d} = 2, nothing cut: the best.
        let (best, counts) = exact_best(&input(&requests, None)).unwrap();
        assert_eq!(best, c);
        assert_eq!(
            counts,
            SideCounts {
                left: 2,
                right: 2,
                contained: 0
            }
        );
    }

    #[test]
    fn the_reservoir_finds_a_balanced_key_in_uniform_load() {
        let keys: Vec<Vec<u8>> = (0..1000u32)
            .map(|i| key(i.wrapping_mul(2_654_435_761) % 1000))
            .collect();
        let requests: Vec<Request<'_>> = keys
            .iter()
            .map(|k| Request {
                key: k,
                end: None,
                scan: false,
            })
            .collect();
        let k = FinderKind::Reservoir.find(&input(&requests, None)).unwrap();
        assert!(SideCounts::at(&requests, &k).balance() < BALANCE_LIMIT);
        let s = FinderKind::Sampled.find(&input(&requests, None)).unwrap();
        assert!(SideCounts::at(&requests, &s).balance() < 0.5);
    }

    #[test]
    fn the_reservoir_refuses_when_no_candidate_has_enough_counts_or_balance() {
        let keys: Vec<Vec<u8>> = (1..=50u32).map(key).collect();
        let few: Vec<Request<'_>> = keys
            .iter()
            .map(|k| Request {
                key: k,
                end: None,
                scan: false,
            })
            .collect();
        assert_eq!(FinderKind::Reservoir.find(&input(&few, None)), None);
        // Every request is a scan over the whole range: every boundary cuts all of them.
        let (lo, hi) = (key(1), key(1000));
        let spans: Vec<Request<'_>> = (0..500)
            .map(|_| Request {
                key: &lo,
                end: Some(&hi),
                scan: true,
            })
            .collect();
        assert_eq!(FinderKind::Reservoir.find(&input(&spans, None)), None);
    }

    #[test]
    fn the_median_finder_uses_the_stored_median_and_refuses_the_range_start() {
        let m = key(5);
        assert_eq!(
            FinderKind::Median.find(&input(&[], Some(&m))),
            Some(m.clone())
        );
        let range = FinderInput {
            start: &m,
            end: None,
            requests: &[],
            stored_median: Some(&m),
            seed: 0,
        };
        assert_eq!(FinderKind::Median.find(&range), None);
        assert_eq!(FinderKind::Optimal.find(&input(&[], None)), None);
    }

    #[test]
    fn finder_names_round_trip() {
        for f in FinderKind::ALL {
            assert_eq!(FinderKind::from_name(f.name()), Some(f));
        }
        assert_eq!(FinderKind::from_name("best"), None);
    }
}
