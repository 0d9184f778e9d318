//! How much data went back and forth: the trend-discounting total variation that
//! CockroachDB's allocator simulator (asim) uses to judge its balancers' thrashing.

/// The trend-discounting total variation of a series whose upward steps sum to `up` and whose
/// downward steps sum to `down` (both at least 0): 0 for a monotone series, `2u` when both are
/// `u`, between `min(up, down)` and `up + down` otherwise, and scale-free (`tdtv(ku, kd) = k
/// tdtv(u, d)`). With `r = min / max` and `a = r^0.8`: `a (up + down) + (1 - a) min`.
pub fn tdtv(up: f64, down: f64) -> f64 {
    let (low, high) = if up <= down { (up, down) } else { (down, up) };
    if low <= 0.0 {
        return 0.0;
    }
    let a = (low / high).powf(0.8);
    a * (up + down) + (1.0 - a) * low
}

/// The thrash of per-node series (`series[node]`, one value per window): the largest node's
/// [`tdtv`] divided by the range of every node's values (1 when they are all equal), as asim
/// normalises the series of its stores. 0 for no series.
pub fn thrash(series: &[Vec<f64>]) -> f64 {
    let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut worst: f64 = 0.0;
    for s in series {
        let (mut up, mut down) = (0.0, 0.0);
        for w in s.windows(2) {
            let d = w[1] - w[0];
            if d >= 0.0 {
                up += d;
            } else {
                down -= d;
            }
        }
        worst = worst.max(tdtv(up, down));
        for &v in s {
            low = low.min(v);
            high = high.max(v);
        }
    }
    let range = high - low;
    if range > 0.0 {
        worst / range
    } else {
        worst
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_monotone_series_does_not_thrash() {
        assert_eq!(tdtv(5.0, 0.0), 0.0);
        assert_eq!(thrash(&[vec![0.0, 1.0, 4.0], vec![9.0, 7.0, 2.0]]), 0.0);
    }

    #[test]
    fn there_and_back_sweeps_the_range_twice() {
        assert_eq!(tdtv(3.0, 3.0), 6.0);
        // Node 0 gives 50 keys to node 1 and takes them back: each sweeps 50 up and down.
        let s = [vec![100.0, 50.0, 100.0], vec![100.0, 150.0, 100.0]];
        assert!((thrash(&s) - 1.0).abs() < 1e-12, "{}", thrash(&s));
    }

    #[test]
    fn a_trend_is_discounted_and_scaling_changes_nothing() {
        let t = tdtv(10.0, 1.0);
        assert!(t > 1.0 && t < 11.0, "{t}");
        assert!((tdtv(20.0, 2.0) - 2.0 * t).abs() < 1e-9);
        assert!(tdtv(11.0, 1.0) > t);
        assert_eq!(thrash(&[]), 0.0);
    }
}
