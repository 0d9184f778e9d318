//! Which metrics are estimates, and how good: when a replay sees more distinct keys than the
//! limit, the distinct-key metrics are measured on a consistent hash sample of the key space
//! (see [`schemes::KeyCounts`]). [`WorkloadResult::estimate_of`] says, per metric, the sample
//! rate and the 95% confidence interval, as each registered metric defines it for its own
//! figures ([`super::metric::Metric::estimate`]):
//!
//! | metric                      | estimated as                                          | 95% interval |
//! |-----------------------------|-------------------------------------------------------|--------------|
//! | `distinct_keys`             | sampled keys / rate                                   | binomial count |
//! | `remap_fraction`            | share of sampled keys that move                       | Wilson, n = sampled keys, finite-population corrected |
//! | `remap_fraction_traffic`    | share of sampled keys' requests that move             | Wilson, n = effective keys (sum c)^2 / sum c^2 |
//! | `remap_to_new_shards`       | share of moved sampled keys going to new shards       | Wilson, n = moved sampled keys |
//! | `hottest_key_share`         | space-saving count of the hottest key / requests      | [count - error, count] / requests (exact when the key is in the sample) |
//! | `split_balance*`            | computed over the sampled keys of the hottest range   | none given |
//! | `grow_added_share`          | share of sampled keys' requests on the added shards   | Wilson, n = effective keys |
//! | `hottest_shard_share_grown` | the busiest shard's share of sampled keys' requests   | none given |
//! | `fail_remap_fraction`       | share of sampled keys that move on the failure        | Wilson, n = sampled keys |
//! | `fail_remap_fraction_traffic` | share of sampled keys' requests that move           | Wilson, n = effective keys |
//! | `fail_hottest_surviving_*`  | the busiest survivor's share of sampled keys' requests | none given |
//!
//! Everything else (requests, shard loads, windows, scans, fan-out, latency) counts every
//! event and stays exact.

pub use super::key_sample::{KeySample, MetricEstimate};
use super::registry::REGISTRY;
use super::{MetricId, SchemeResult, WorkloadResult};

impl WorkloadResult {
    /// For a metric of `s` measured on a key sample: the sample rate and 95% interval; `None`
    /// for exact values. Each registered metric says it of its own figures
    /// ([`super::metric::Metric::estimate`]).
    pub fn estimate_of(&self, s: &SchemeResult, id: MetricId) -> Option<MetricEstimate> {
        let ks = self.key_sample.as_ref()?;
        REGISTRY.iter().find_map(|m| m.estimate(id, self, s, ks))
    }

    /// Distinct keys of one shard: the count, scaled by the sample rate when sampled.
    pub fn shard_distinct_keys(&self, s: &SchemeResult, shard: usize) -> u64 {
        let held = s.shard_distinct_keys.get(shard).copied().unwrap_or(0);
        match &self.key_sample {
            Some(ks) => (held as f64 / ks.sample_rate).round() as u64,
            None => held,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::metrics::failure::FailTarget;
    use crate::metrics::MetricId;
    use crate::replay::{replay, ReplayConfig, WorkloadInput};
    use schemes::SchemeSpec;
    use workloads::{KeyType, WorkloadSpec};

    fn run(limit: usize) -> super::WorkloadResult {
        run_with(limit, None)
    }

    fn run_with(limit: usize, fail: Option<FailTarget>) -> super::WorkloadResult {
        let spec = WorkloadSpec::parse("uniform:keys=200000,scans=0.01").unwrap();
        let open = move || spec.open(7, 300_000);
        let input = WorkloadInput {
            label: "u".into(),
            description: String::new(),
            key_type: KeyType::U64,
            open: &open,
            watch: None,
        };
        let cfg = ReplayConfig {
            latency: None,
            distinct_key_limit: limit,
            fail,
            ..ReplayConfig::default()
        };
        replay(
            &input,
            &SchemeSpec::parse_list("hash,ring").unwrap(),
            &cfg,
            &|_| {},
        )
        .unwrap()
    }

    #[test]
    fn past_the_limit_key_metrics_are_estimates_whose_intervals_cover_the_exact_values() {
        let exact = run(10_000_000);
        assert!(exact.key_sample.is_none());
        assert_eq!(
            exact.estimate_of(&exact.schemes[0], MetricId("distinct_keys")),
            None
        );
        let sampled = run(20_000);
        let ks = sampled.key_sample.expect("sampled");
        assert!(ks.sample_rate < 0.25 && ks.sampled_keys <= 20_000, "{ks:?}");
        let d = sampled
            .estimate_of(&sampled.schemes[0], MetricId("distinct_keys"))
            .unwrap()
            .ci
            .unwrap();
        let truth = exact.distinct_keys as f64;
        assert!(d.0 <= truth && truth <= d.1, "{d:?} vs {truth}");
        assert_eq!(sampled.point_requests, exact.point_requests);
        assert_eq!(
            sampled.schemes[0].load.requests,
            exact.schemes[0].load.requests
        );
        for (s, e) in sampled.schemes.iter().zip(&exact.schemes) {
            for (name, truth) in [
                ("remap_fraction", e.remap.remap_fraction),
                ("remap_fraction_traffic", e.remap.remap_fraction_traffic),
                ("remap_to_new_shards", e.remap.moved_to_new_shards),
            ] {
                let est = sampled.estimate_of(s, MetricId(name)).unwrap();
                let (lo, hi) = est.ci.unwrap();
                // A 95% interval: allow a little slack so the test is not flaky by design.
                let slack = 0.25 * (hi - lo);
                assert!(
                    lo - slack <= truth && truth <= hi + slack,
                    "{} {name}: [{lo}, {hi}] vs {truth}",
                    s.scheme
                );
            }
            let scaled: u64 = (0..s.shards as usize)
                .map(|i| sampled.shard_distinct_keys(s, i))
                .sum();
            assert!(
                (scaled as f64 - truth).abs() < 0.05 * truth,
                "{scaled} vs {truth}"
            );
        }
        assert_eq!(
            sampled.estimate_of(&sampled.schemes[0], MetricId("requests")),
            None
        );
    }

    #[test]
    fn growth_and_failure_figures_of_a_key_sample_are_marked_as_estimates() {
        // They are computed over the sampled keys (the grown layout and the survivors are
        // replayed on the key table), so past the limit they are estimates like the remap.
        let fail = Some(FailTarget::Shard(1));
        let (exact, sampled) = (run_with(10_000_000, fail), run_with(20_000, fail));
        let rate = sampled.key_sample.as_ref().expect("sampled").sample_rate;
        for (s, e) in sampled.schemes.iter().zip(&exact.schemes) {
            assert_eq!(exact.estimate_of(e, MetricId("grow_added_share")), None);
            let truth = e.remap.growth.added_share.unwrap();
            let est = sampled
                .estimate_of(s, MetricId("grow_added_share"))
                .expect("an estimate");
            assert_eq!(est.sample_rate, rate);
            let (lo, hi) = est.ci.unwrap();
            let slack = 0.25 * (hi - lo);
            assert!(
                lo - slack <= truth && truth <= hi + slack,
                "{lo} {hi} {truth}"
            );
            for name in [
                "hottest_shard_share_grown",
                "fail_remap_fraction",
                "fail_remap_fraction_traffic",
                "fail_hottest_surviving_share",
                "fail_hottest_surviving_ratio",
            ] {
                assert_eq!(exact.estimate_of(e, MetricId(name)), None, "{name}");
                let est = sampled.estimate_of(s, MetricId(name));
                assert_eq!(
                    est.map(|m| m.sample_rate),
                    Some(rate),
                    "{} {name}",
                    s.scheme
                );
            }
            let fail_remap = s
                .extra_value(MetricId("fail_remap_fraction"))
                .flatten()
                .unwrap();
            let truth = e
                .extra_value(MetricId("fail_remap_fraction"))
                .flatten()
                .unwrap();
            let (lo, hi) = sampled
                .estimate_of(s, MetricId("fail_remap_fraction"))
                .unwrap()
                .ci
                .unwrap();
            assert!(
                lo <= fail_remap && fail_remap <= hi,
                "{lo} {fail_remap} {hi}"
            );
            let slack = 0.25 * (hi - lo);
            assert!(
                lo - slack <= truth && truth <= hi + slack,
                "{lo} {hi} {truth}"
            );
            // The shard count of the failure is not an estimate.
            assert_eq!(sampled.estimate_of(s, MetricId("fail_shard")), None);
        }
    }
}
