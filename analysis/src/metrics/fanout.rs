//! Scan fan-out: how many shards each range scan contacts.

use hdrhistogram::Histogram;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Mergeable histogram of shards contacted per scan.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FanoutAccumulator {
    #[serde(serialize_with = "save_hist", deserialize_with = "load_hist")]
    hist: Histogram<u64>,
}

/// A histogram as its recorded buckets, `(value, count)` pairs: recording each count again
/// at its bucket's value rebuilds the same buckets, so the round trip is exact. (The
/// crate's own serializer is a feature this workspace leaves off, and its output would not
/// be readable text.)
fn save_hist<S: Serializer>(hist: &Histogram<u64>, s: S) -> Result<S::Ok, S::Error> {
    let buckets: Vec<(u64, u64)> = hist
        .iter_recorded()
        .map(|v| (v.value_iterated_to(), v.count_at_value()))
        .collect();
    buckets.serialize(s)
}

fn load_hist<'de, D: Deserializer<'de>>(d: D) -> Result<Histogram<u64>, D::Error> {
    let buckets = Vec::<(u64, u64)>::deserialize(d)?;
    let mut hist = FanoutAccumulator::default().hist;
    for (value, count) in buckets {
        hist.saturating_record_n(value, count);
    }
    Ok(hist)
}

impl Default for FanoutAccumulator {
    fn default() -> Self {
        // Fan-outs are small integers; 3 significant digits records them exactly up to 2048.
        FanoutAccumulator {
            hist: Histogram::new(3).expect("3 significant digits is a valid precision"),
        }
    }
}

impl FanoutAccumulator {
    /// Records one scan that contacted `shards` shards.
    #[inline]
    pub fn record(&mut self, shards: u32) {
        self.hist.saturating_record(shards as u64);
    }

    /// Adds another accumulator's scans.
    pub fn merge(&mut self, other: &FanoutAccumulator) {
        // Both histograms auto-resize, so adding cannot fail on range.
        let _ = self.hist.add(&other.hist);
    }

    /// The summary, or `None` when there were no scans.
    pub fn finish(&self) -> Option<ScanFanout> {
        let h = &self.hist;
        (!h.is_empty()).then(|| ScanFanout {
            scans: h.len(),
            mean: h.mean(),
            p99: h.value_at_quantile(0.99),
            max: h.max(),
        })
    }
}

/// Shards contacted per scan.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ScanFanout {
    /// Number of scans.
    pub scans: u64,
    /// Mean shards per scan.
    pub mean: f64,
    /// 99th percentile of shards per scan.
    pub p99: u64,
    /// Largest number of shards one scan contacted.
    pub max: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fanout_statistics_are_exact_for_small_counts() {
        let mut a = FanoutAccumulator::default();
        let mut b = FanoutAccumulator::default();
        for f in [1, 1, 2] {
            a.record(f);
        }
        b.record(16);
        a.merge(&b);
        let s = a.finish().unwrap();
        assert_eq!(s.scans, 4);
        assert!((s.mean - 5.0).abs() < 1e-9);
        assert_eq!(s.max, 16);
        assert_eq!(s.p99, 16);
        assert!(FanoutAccumulator::default().finish().is_none());
    }

    #[test]
    fn a_histogram_survives_its_encoding_bucket_for_bucket() {
        let mut a = FanoutAccumulator::default();
        for f in [1, 1, 2, 7, 300, 5000, 123_456] {
            a.record(f);
        }
        let text = serde_json::to_string(&a).unwrap();
        let b: FanoutAccumulator = serde_json::from_str(&text).unwrap();
        assert_eq!(a.hist, b.hist);
        assert_eq!(a.finish(), b.finish());
    }
}
