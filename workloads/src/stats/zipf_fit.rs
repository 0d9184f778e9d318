//! Fitting a Zipf exponent to key popularity.
//!
//! Given the counts of the most requested keys in decreasing order, the exponent `s` is the
//! maximum-likelihood fit of a Zipf law truncated to those ranks: P(rank r) = r^-s / H(K, s)
//! for r in 1..=K. The ranks used are those with at least [`MIN_COUNT`] requests (at most
//! [`MAX_RANKS`]): below that, sampling noise rather than popularity orders the keys. How
//! well it fits is the Kolmogorov-Smirnov distance between the observed and fitted
//! cumulative shares over those ranks (0 is perfect; above 0.1 the law does not describe the
//! trace).

use serde::Serialize;

/// Ranks with fewer requests than this are left out of the fit.
pub const MIN_COUNT: u64 = 10;
/// At most this many ranks are fitted.
pub const MAX_RANKS: usize = 100_000;

/// A fitted Zipf law.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ZipfFit {
    /// The exponent.
    pub s: f64,
    /// Kolmogorov-Smirnov distance between observed and fitted cumulative shares.
    pub ks: f64,
    /// Ranks fitted.
    pub ranks: usize,
}

/// Fewer ranks than this are too few to fit.
pub const MIN_RANKS: usize = 10;

/// Fits a Zipf exponent to `counts` (sorted in decreasing order); `None` with fewer than
/// [`MIN_RANKS`] ranks of at least [`MIN_COUNT`] requests.
pub fn fit(counts: &[u64]) -> Option<ZipfFit> {
    let k = counts
        .iter()
        .take(MAX_RANKS)
        .take_while(|&&c| c >= MIN_COUNT)
        .count();
    if k < MIN_RANKS {
        return None;
    }
    let counts = &counts[..k];
    let ln: Vec<f64> = (1..=k).map(|r| (r as f64).ln()).collect();
    let total: f64 = counts.iter().map(|&c| c as f64).sum();
    let observed_mean_ln = counts
        .iter()
        .zip(&ln)
        .map(|(&c, l)| c as f64 * l)
        .sum::<f64>()
        / total;
    // E_s[ln r] decreases in s; the MLE sets it to the observed mean.
    let mean_ln = |s: f64| {
        let (mut num, mut den) = (0.0, 0.0);
        for l in &ln {
            let w = (-s * l).exp();
            num += w * l;
            den += w;
        }
        num / den
    };
    let (mut lo, mut hi) = (0.0f64, 20.0f64);
    let s = if mean_ln(lo) <= observed_mean_ln {
        0.0
    } else if mean_ln(hi) >= observed_mean_ln {
        hi
    } else {
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if mean_ln(mid) > observed_mean_ln {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    };
    let weights: Vec<f64> = ln.iter().map(|l| (-s * l).exp()).collect();
    let norm: f64 = weights.iter().sum();
    let (mut seen, mut fitted, mut ks) = (0.0, 0.0, 0.0f64);
    for (c, w) in counts.iter().zip(&weights) {
        seen += *c as f64 / total;
        fitted += w / norm;
        ks = ks.max((seen - fitted).abs());
    }
    Some(ZipfFit { s, ks, ranks: k })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ideal(s: f64, n: usize, total: f64) -> Vec<u64> {
        let h: f64 = (1..=n).map(|r| (r as f64).powf(-s)).sum();
        (1..=n)
            .map(|r| (total * (r as f64).powf(-s) / h).round() as u64)
            .collect()
    }

    #[test]
    fn ideal_zipf_counts_give_back_their_exponent() {
        for s in [0.5, 0.99, 1.0, 1.5] {
            let f = fit(&ideal(s, 1000, 1e7)).unwrap();
            assert!((f.s - s).abs() < 0.01, "s {s}: {f:?}");
            assert!(f.ks < 0.01, "{f:?}");
        }
    }

    #[test]
    fn flat_counts_fit_zero_and_steps_fit_badly() {
        let f = fit(&[100; 50]).unwrap();
        assert!(f.s < 1e-6 && f.ks < 1e-9, "{f:?}");
        let mut step = vec![1000; 10];
        step.extend([10; 90]);
        assert!(fit(&step).unwrap().ks > 0.1);
        assert_eq!(fit(&[100; 9]), None);
        assert_eq!(fit(&[100, 50, 40, 30, 20, 20, 20, 20, 20, 9]), None);
    }
}
