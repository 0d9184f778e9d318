//! How evenly a split divides requests: |L-R|/(L+R), the figure split quality and the
//! range finders judge a split key by.

/// |L-R|/(L+R) when the keys before position `at` go left (1.0 when a side is empty).
pub fn balance_at(counts: &[u64], at: usize) -> f64 {
    if at == 0 || at >= counts.len() {
        return 1.0;
    }
    let left: u64 = counts[..at].iter().sum();
    let total: u64 = counts.iter().sum();
    imbalance(left, total - left)
}

/// The best |L-R|/(L+R) over every split position with keys on both sides.
pub fn optimal_balance(counts: &[u64]) -> f64 {
    let total: u64 = counts.iter().sum();
    let mut left = 0u64;
    let mut best = 1.0f64;
    for &c in counts.iter().take(counts.len().saturating_sub(1)) {
        left += c;
        best = best.min(imbalance(left, total - left));
    }
    best
}

/// |l-r|/(l+r), 1.0 when both are zero.
pub fn imbalance(l: u64, r: u64) -> f64 {
    if l + r == 0 {
        1.0
    } else {
        l.abs_diff(r) as f64 / (l + r) as f64
    }
}
