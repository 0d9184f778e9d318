//! Why a hot range may have no useful load split, detected explicitly from the requests of
//! the window in which the split is decided.
//!
//! - **Popular key**: one key carries so much of the range's requests that every boundary
//!   leaves that key's side with at least [`POPULAR_KEY_SHARE`] of the load. Splitting cannot
//!   balance it (a key is never cut); replication or caching can.
//! - **Clear direction**: the requested keys move steadily toward one end of the range, as
//!   with monotonic inserts. A boundary chosen from this window's keys is behind the front by
//!   the time the next window arrives, so the split would go stale at once. Measured as the
//!   rank correlation (Kendall's tau-a) between arrival order and key, which is near 0 for any
//!   stationary key distribution, however skewed, and 1 for a strictly increasing front.
//!
//! Both are properties of the load, not of a finder, so every finder reports them alike;
//! `no_split_key` is each finder's own failure to find a candidate.

use serde::Serialize;

use super::requests::Request;

/// The balance limit of load splits: a candidate with |L-R|/(L+R) at or above it is refused
/// (CockroachDB's `splitKeyThreshold`).
pub const BALANCE_LIMIT: f64 = 0.25;

/// A key with at least this share of a range's requests makes any split's balance at least
/// [`BALANCE_LIMIT`]: its side holds `p`, the other at most `1 - p`, and `2p - 1 >= limit`.
pub const POPULAR_KEY_SHARE: f64 = (1.0 + BALANCE_LIMIT) / 2.0;

/// |Kendall's tau| between arrival order and key at or above which the load has a clear
/// direction.
pub const DIRECTION_LIMIT: f64 = 0.6;

/// Requests at most used to measure the direction (an evenly spaced subsample beyond it).
const DIRECTION_SAMPLE: usize = 20_000;

/// Why a load split was not made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Refusal {
    /// One key carries most of the range's load.
    PopularKey,
    /// No candidate boundary is balanced enough (the finder's own failure).
    NoSplitKey,
    /// The load moves steadily toward one end of the range.
    ClearDirection,
}

impl Refusal {
    /// Every reason, in report order.
    pub const ALL: [Refusal; 3] = [
        Refusal::PopularKey,
        Refusal::NoSplitKey,
        Refusal::ClearDirection,
    ];

    /// The name in `splits.csv`: `popular_key`, `no_split_key` or `clear_direction`.
    pub fn name(self) -> &'static str {
        match self {
            Refusal::PopularKey => "popular_key",
            Refusal::NoSplitKey => "no_split_key",
            Refusal::ClearDirection => "clear_direction",
        }
    }
}

/// What the requests of one range in one window say about splitting it by load.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Diagnosis {
    /// Point requests of the most requested key / all requests of the range.
    pub top_key_share: f64,
    /// Kendall's tau-a between arrival order and key, in `[-1, 1]` (0 without requests).
    pub direction: f64,
}

impl Diagnosis {
    /// Measures the requests of one range (in arrival order).
    pub fn of(requests: &[Request<'_>]) -> Diagnosis {
        Diagnosis {
            top_key_share: top_key_share(requests),
            direction: direction(requests),
        }
    }

    /// The refusal every finder must make, if any: a popular key first, then a clear direction.
    pub fn refusal(&self) -> Option<Refusal> {
        if self.top_key_share >= POPULAR_KEY_SHARE {
            Some(Refusal::PopularKey)
        } else if self.direction.abs() >= DIRECTION_LIMIT {
            Some(Refusal::ClearDirection)
        } else {
            None
        }
    }
}

/// Point requests of the most requested key / all requests (0 without requests).
fn top_key_share(requests: &[Request<'_>]) -> f64 {
    let mut keys: Vec<&[u8]> = requests.iter().filter(|r| !r.scan).map(|r| r.key).collect();
    keys.sort_unstable();
    let top = keys
        .chunk_by(|a, b| a == b)
        .map(<[&[u8]]>::len)
        .max()
        .unwrap_or(0);
    if requests.is_empty() {
        0.0
    } else {
        top as f64 / requests.len() as f64
    }
}

/// Kendall's tau-a between arrival order and key: (concordant - discordant) pairs / all pairs.
fn direction(requests: &[Request<'_>]) -> f64 {
    let stride = requests.len().div_ceil(DIRECTION_SAMPLE).max(1);
    let keys: Vec<&[u8]> = requests.iter().step_by(stride).map(|r| r.key).collect();
    let n = keys.len() as u64;
    if n < 2 {
        return 0.0;
    }
    // Replace keys by their ranks so that the inversion count compares integers.
    let mut distinct = keys.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let mut ranks: Vec<u32> = keys
        .iter()
        .map(|k| distinct.partition_point(|d| d < k) as u32)
        .collect();
    let mut sorted = ranks.clone();
    sorted.sort_unstable();
    let ties: u64 = sorted
        .chunk_by(|a, b| a == b)
        .map(|g| g.len() as u64 * (g.len() as u64 - 1) / 2)
        .sum();
    let pairs = n * (n - 1) / 2;
    let discordant = strict_inversions(&mut ranks);
    let concordant = pairs - discordant - ties;
    (concordant as f64 - discordant as f64) / pairs as f64
}

/// Pairs `i < j` with `v[i] > v[j]`, by a bottom-up merge sort (sorts `v`).
fn strict_inversions(v: &mut Vec<u32>) -> u64 {
    let n = v.len();
    let mut buf = vec![0u32; n];
    let mut inversions = 0u64;
    let mut width = 1;
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut a, mut b, mut k) = (lo, mid, lo);
            while a < mid && b < hi {
                if v[b] < v[a] {
                    buf[k] = v[b];
                    b += 1;
                    inversions += (mid - a) as u64;
                } else {
                    buf[k] = v[a];
                    a += 1;
                }
                k += 1;
            }
            buf[k..k + (mid - a)].copy_from_slice(&v[a..mid]);
            k += mid - a;
            buf[k..k + (hi - b)].copy_from_slice(&v[b..hi]);
            lo = hi;
        }
        std::mem::swap(v, &mut buf);
        width *= 2;
    }
    inversions
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(keys: &[Vec<u8>]) -> Vec<Request<'_>> {
        keys.iter()
            .map(|k| Request {
                key: k,
                end: None,
                scan: false,
            })
            .collect()
    }

    fn brute_force_tau(v: &[u32]) -> f64 {
        let (mut c, mut d, mut pairs) = (0i64, 0i64, 0i64);
        for i in 0..v.len() {
            for j in i + 1..v.len() {
                pairs += 1;
                match v[i].cmp(&v[j]) {
                    std::cmp::Ordering::Less => c += 1,
                    std::cmp::Ordering::Greater => d += 1,
                    std::cmp::Ordering::Equal => {}
                }
            }
        }
        (c - d) as f64 / pairs as f64
    }

    #[test]
    fn increasing_keys_have_a_clear_direction_and_shuffled_ones_do_not() {
        let up: Vec<Vec<u8>> = (0u32..500).map(|i| i.to_be_bytes().to_vec()).collect();
        let d = Diagnosis::of(&points(&up));
        assert_eq!(d.direction, 1.0);
        assert_eq!(d.refusal(), Some(Refusal::ClearDirection));
        let down: Vec<Vec<u8>> = up.iter().rev().cloned().collect();
        assert_eq!(Diagnosis::of(&points(&down)).direction, -1.0);
        let mixed: Vec<Vec<u8>> = (0u32..500)
            .map(|i| {
                (i.wrapping_mul(2_654_435_761) % 1000)
                    .to_be_bytes()
                    .to_vec()
            })
            .collect();
        let d = Diagnosis::of(&points(&mixed));
        assert!(d.direction.abs() < 0.1, "{d:?}");
        assert_eq!(d.refusal(), None);
    }

    #[test]
    fn the_inversion_count_matches_brute_force_with_ties() {
        let v: Vec<u32> = (0u32..200).map(|i| (i * 7919 + i / 3) % 37).collect();
        let keys: Vec<Vec<u8>> = v.iter().map(|x| x.to_be_bytes().to_vec()).collect();
        let tau = direction(&points(&keys));
        assert!((tau - brute_force_tau(&v)).abs() < 1e-12);
    }

    #[test]
    fn a_key_with_most_of_the_load_is_popular() {
        let mut keys: Vec<Vec<u8>> = vec![b"hot".to_vec(); 70];
        keys.extend((0u8..30).map(|i| vec![b'a', i]));
        let d = Diagnosis::of(&points(&keys));
        assert!((d.top_key_share - 0.7).abs() < 1e-12);
        assert_eq!(d.refusal(), Some(Refusal::PopularKey));
        assert_eq!(Diagnosis::of(&[]).refusal(), None);
    }
}
