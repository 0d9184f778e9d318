//! Estimates from a consistent hash sample, with 95% confidence intervals.
//!
//! A key is in the sample with probability `rate`, independently of every other key (its
//! hash decides). So the number of sampled keys is Binomial(D, rate) for D distinct keys, and
//! a share measured over the sampled keys is a proportion from a sample drawn without
//! replacement from a finite population (hence the finite-population factor `1 - rate`).

use serde::Serialize;

/// The z value of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// A value with the sample rate it was measured at and its 95% confidence interval; an exact
/// value has rate 1 and an interval of zero width.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// The value (an estimate when `sample_rate < 1`).
    pub value: f64,
    /// Share of the key space measured, in (0, 1].
    pub sample_rate: f64,
    /// Lower end of the 95% confidence interval.
    pub ci_low: f64,
    /// Upper end of the 95% confidence interval.
    pub ci_high: f64,
}

impl Estimate {
    /// An exact value.
    pub fn exact(value: f64) -> Estimate {
        Estimate {
            value,
            sample_rate: 1.0,
            ci_low: value,
            ci_high: value,
        }
    }

    /// True when measured on every key.
    pub fn is_exact(&self) -> bool {
        self.sample_rate >= 1.0
    }
}

/// The number of distinct keys from `sampled` keys held at `rate`: `sampled / rate`, with the
/// normal interval of a binomial count (never below what was seen).
pub fn distinct_estimate(sampled: u64, rate: f64) -> Estimate {
    if rate >= 1.0 {
        return Estimate::exact(sampled as f64);
    }
    let n = sampled as f64;
    let value = n / rate;
    let half = Z95 * (n.max(1.0) * (1.0 - rate)).sqrt() / rate;
    Estimate {
        value,
        sample_rate: rate,
        ci_low: (value - half).max(n),
        ci_high: value + half,
    }
}

/// A share `p` measured over a sample of effective size `n` (keys, or for traffic-weighted
/// shares `(sum of counts)^2 / sum of squared counts`) drawn at `rate`: the Wilson score
/// interval with the finite-population correction. The interval always holds `p` (Wilson's
/// does; the bounds are kept there when rounding would put `p` = 0 or 1 just outside).
pub fn share_estimate(p: f64, n: f64, rate: f64) -> Estimate {
    if rate >= 1.0 {
        return Estimate::exact(p);
    }
    let fpc = (1.0 - rate).max(0.0);
    if n <= 0.0 || fpc == 0.0 {
        return Estimate {
            value: p,
            sample_rate: rate,
            ci_low: p,
            ci_high: p,
        };
    }
    let n = n / fpc;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    Estimate {
        value: p,
        sample_rate: rate,
        ci_low: (centre - half).max(0.0).min(p),
        ci_high: (centre + half).min(1.0).max(p),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_values_have_no_width() {
        let e = distinct_estimate(42, 1.0);
        assert!(e.is_exact() && e.ci_low == 42.0 && e.ci_high == 42.0);
        assert_eq!(share_estimate(0.3, 10.0, 1.0), Estimate::exact(0.3));
    }

    #[test]
    fn a_share_of_0_or_1_lies_inside_its_interval() {
        // Rounding gave [5.6e-17, 0.78] around 0 and [0.45, 0.9999999999999999] around 1.
        for n in 1..400 {
            for rate in [0.5, 0.25, 0.125, 0.0625] {
                for p in [0.0, 1.0, 0.5, 1.0 / 3.0] {
                    let e = share_estimate(p, f64::from(n), rate);
                    assert!(e.ci_low <= p && p <= e.ci_high, "{n} {rate} {p}: {e:?}");
                    assert!(0.0 <= e.ci_low && e.ci_high <= 1.0, "{e:?}");
                }
            }
        }
        let e = share_estimate(1.0, 3.0, 0.0625);
        assert_eq!(e.ci_high, 1.0);
        assert!((e.ci_low - 0.4544512836737).abs() < 1e-9, "{e:?}");
    }

    #[test]
    fn a_sampled_count_is_scaled_and_its_interval_covers_it() {
        let e = distinct_estimate(10_000, 0.25);
        assert_eq!(e.value, 40_000.0);
        // sd of the count = sqrt(10000 * 0.75) = 86.6 keys, scaled by 4: +-679.
        assert!((e.ci_high - 40_000.0 - 679.0).abs() < 1.0, "{e:?}");
        assert!(e.ci_low >= 10_000.0);
    }

    #[test]
    fn the_share_interval_narrows_with_the_sample() {
        let small = share_estimate(0.5, 100.0, 0.5);
        let large = share_estimate(0.5, 100_000.0, 0.5);
        assert!(small.ci_high - small.ci_low > large.ci_high - large.ci_low);
        assert!(small.ci_low < 0.5 && small.ci_high > 0.5);
        // n = 100 at rate 0.5: effective 200, half-width about 1.96 * sqrt(0.25 / 200) = 0.069.
        assert!(
            (small.ci_high - small.ci_low - 2.0 * 0.069).abs() < 0.003,
            "{small:?}"
        );
    }
}
