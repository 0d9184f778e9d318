//! Why no shard count up to `--max-shards` works (`search_limit`), in words that name what
//! could help: more shards only when the scheme still spreads its load as shards are added;
//! otherwise the rule of the scheme that stops it.

use super::PlanConfig;
use schemes::growth::GrowRule;
use schemes::SchemeSpec;

/// The busiest shard's peak before growth (requests/s) at half the searched maximum and at the
/// maximum, with every shard up.
#[derive(Clone, Copy, Debug)]
pub struct Spread {
    /// The smaller shard count, `max / 2`.
    pub half: u32,
    /// Its busiest shard's peak rate.
    pub peak_half: f64,
    /// The busiest shard's peak rate at `--max-shards`.
    pub peak_max: f64,
}

impl Spread {
    /// True when doubling the shards cuts the busiest shard's peak by less than 10%: more
    /// shards do not spread the load.
    pub fn is_stalled(&self) -> bool {
        self.peak_max > 0.9 * self.peak_half
    }
}

/// Scans per second per shard, as a share of the per-shard limit, from which the scans of a
/// hashed scheme are named as what stops it.
const SCANS_DOMINATE: f64 = 0.5;

/// The note of a `search_limit` row of `spec` at growth `growth`: `bound` is the count a
/// perfectly balanced scheme would need; `spread` is known when `bound <= --max-shards`;
/// `scan_rate` is the most scans per second of one window (before growth).
pub fn note(
    spec: &SchemeSpec,
    cfg: &PlanConfig,
    bound: u32,
    growth: f64,
    (spread, scan_rate): (Option<Spread>, f64),
) -> String {
    let max = cfg.max_shards;
    let at_max = format!(
        "peak_rate_per_shard and hottest_share are those of {max} shards with every shard up."
    );
    if bound > max {
        return format!(
            "A perfectly balanced scheme would need {bound} shards, more than --max-shards {max}: \
             raise --max-shards."
        );
    }
    match spread.filter(Spread::is_stalled) {
        Some(s) => format!(
            "No shard count up to --max-shards {max} works, and more shards would not help: from \
             {} to {max} shards the busiest shard's peak only goes from {:.0} to {:.0} requests/s \
             (growth x{growth}, limit {:.0}), because {}. {at_max}",
            s.half,
            growth * s.peak_half,
            growth * s.peak_max,
            cfg.limits().rate,
            stall_reason(spec, cfg, growth * scan_rate)
        ),
        None => format!(
            "No shard count up to --max-shards {max} works (a perfectly balanced scheme would \
             need {bound}) and more shards still spread the load: raise --max-shards. {at_max}"
        ),
    }
}

/// Why more shards of `spec` do not spread the load, from its rule; `scan_rate` is the most
/// scans per second of one window, grown.
fn stall_reason(spec: &SchemeSpec, cfg: &PlanConfig, scan_rate: f64) -> String {
    let current = cfg.current_shards;
    let ranges = matches!(spec.kind().name, "range" | "salted");
    let grow = GrowRule::from_spec(&spec.spec).unwrap_or_default();
    match (ranges, current, grow) {
        (true, Some(c), GrowRule::Cheapest) => format!(
            "with grow=cheapest the layout keeps the ranges of its current {c} shards and moves \
             them whole: a growth that only adds shards cannot cut the hot range \
             (grow=balanced, the default, cuts ranges at a key)"
        ),
        (true, Some(c), GrowRule::Balanced) => format!(
            "growth from the current {c} shards fills each added shard with its share of the \
             requests over the whole trace, never splitting a key, and the busiest window's \
             requests stay on the keys of one shard"
        ),
        (true, None, _) if spec.spec.get("boundaries").is_some() => {
            "its boundaries come from the file whatever the shard count: the hot range stays whole"
                .to_string()
        }
        (true, None, _) => "its ranges are learned as quantiles of the warm-up keys (--warmup), \
             and the measured requests crowd into one of them however many there are: give \
             boundaries=FILE, or compare a hashed scheme"
            .to_string(),
        // A hashed scheme sends every scan to every shard: more shards do not thin them out.
        (false, _, _) if scan_rate >= SCANS_DOMINATE * cfg.limits().rate => format!(
            "the scheme hashes keys, so every scan contacts every shard: the busiest window's \
             scans alone bring {:.0} requests/s to each shard; a key-range scheme sends a scan \
             only to the shards of its range",
            scan_rate
        ),
        (false, _, _) => "the busiest shard's requests are on a few hot keys, each of which \
             the scheme places whole on one shard"
            .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> SchemeSpec {
        SchemeSpec::parse_list(text).unwrap().remove(0)
    }

    #[test]
    fn the_note_names_the_option_or_the_rule_that_stops_the_search() {
        let cfg = PlanConfig {
            max_shards: 64,
            current_shards: Some(16),
            ..PlanConfig::default()
        };
        let stalled = Spread {
            half: 32,
            peak_half: 5_000.0,
            peak_max: 4_900.0,
        };
        let spreading = Spread {
            peak_max: 2_600.0,
            ..stalled
        };
        let cheapest = note(
            &spec("range:grow=cheapest"),
            &cfg,
            10,
            1.0,
            (Some(stalled), 0.0),
        );
        assert!(
            cheapest.contains("more shards would not help"),
            "{cheapest}"
        );
        assert!(cheapest.contains("cannot cut the hot range"), "{cheapest}");
        assert!(!cheapest.contains("raise --max-shards"), "{cheapest}");
        assert!(
            cheapest.contains("from 5000 to 4900 requests/s"),
            "{cheapest}"
        );
        let more = note(
            &spec("range:grow=cheapest"),
            &cfg,
            10,
            1.0,
            (Some(spreading), 0.0),
        );
        assert!(more.contains("raise --max-shards"), "{more}");
        let above = note(&spec("hash"), &cfg, 100, 1.0, (None, 0.0));
        assert!(above.contains("would need 100 shards") && above.contains("raise --max-shards"));
        let fresh = PlanConfig {
            current_shards: None,
            ..cfg.clone()
        };
        let learned = note(&spec("range"), &fresh, 10, 1.0, (Some(stalled), 0.0));
        assert!(learned.contains("warm-up keys"), "{learned}");
        // A hashed scheme stalled by scans says so, with their rate per shard (grown); without
        // scans, its hot keys.
        let limit = cfg.limits().rate;
        let scans = note(&spec("hash"), &cfg, 10, 2.0, (Some(stalled), 0.6 * limit));
        assert!(scans.contains("every scan contacts every shard"), "{scans}");
        assert!(
            scans.contains(&format!("{:.0} requests/s to each shard", 1.2 * limit)),
            "{scans}"
        );
        let keys = note(&spec("hash"), &cfg, 10, 2.0, (Some(stalled), 0.1 * limit));
        assert!(
            keys.contains("hot keys") && !keys.contains("scan"),
            "{keys}"
        );
    }
}
