//! A finding: one sentence about the run, on one topic, and how shares read in sentences.

/// What a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topic {
    /// Keys moved when the shard count changes.
    Growth,
    /// A shard taking far more than its share.
    HotSpot,
    /// One key too hot for any scheme.
    HotKey,
    /// Shards contacted per scan.
    ScanFanout,
    /// Lookup cost.
    Latency,
    /// What one shard failure moves (`--fail`).
    Failure,
    /// How results change along a sweep.
    Sweep,
    /// Splits, merges and moves of the range-dynamic scheme.
    RangeDynamics,
    /// What a scenario's events did (`run --scenario`).
    Scenario,
}

/// One sentence computed from the numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// What it is about.
    pub topic: Topic,
    /// The sentence.
    pub text: String,
}

/// Formats a share for sentences: `94%`, `6.2%`, `0.35%`.
pub fn pct(v: f64) -> String {
    let p = v * 100.0;
    if p.abs() >= 9.95 {
        format!("{p:.0}%")
    } else if p.abs() >= 0.995 {
        format!("{p:.1}%")
    } else if p.abs() >= 0.00995 {
        format!("{p:.2}%")
    } else if p == 0.0 {
        "0%".into()
    } else {
        "under 0.01%".into()
    }
}
