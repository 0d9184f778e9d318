//! The parameters of `range-dynamic`, parsed from a spec string, and their defaults.
//!
//! ```
//! use schemes::range_dynamic::DynamicParams;
//! use workloads::Spec;
//! let p = DynamicParams::parse(&Spec::parse("range-dynamic:max_bytes=4096,hysteresis=false").unwrap()).unwrap();
//! assert_eq!(p.merge_bytes(), 4096); // equal thresholds without hysteresis
//! let p = DynamicParams::parse(&Spec::parse("range-dynamic:max_bytes=4096").unwrap()).unwrap();
//! assert_eq!(p.merge_bytes(), 1024);
//! ```

use workloads::{Spec, SpecError};

use super::finder::FinderKind;
use crate::changing::WindowTime;

/// The scheme name in `--schemes`.
pub const NAME: &str = "range-dynamic";

/// One line on the scheme, for help texts.
pub const ABOUT: &str = "key ranges that split by size and load, merge when cold and move between nodes as the trace replays";

/// Default `max_bytes`: 1 MiB, scaled down from CockroachDB's 512 MiB so that traces of a few
/// million events split.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 20;

/// Merge thresholds are this share of the split thresholds with hysteresis (CockroachDB: 128
/// MiB against 512 MiB).
pub const MERGE_SHARE: f64 = 0.25;

/// Parameter names and what they do (with defaults), in the order help texts show them.
pub static PARAMS: &[(&str, &str)] = &[
    ("presplit", "start from K ranges cut at quantiles of the first window's keys, owners contiguous (default 1)"),
    ("max_bytes", "split a range holding more bytes than this (key + value sizes) at its median key (default 1048576)"),
    (
        "max_load",
        "split a range whose EWMA requests per window exceed this for load_windows windows in a row; \
         auto (default) = half a node's fair share of the cluster's EWMA requests per window",
    ),
    ("ewma", "EWMA factor of the per-window load, in (0, 1]; 1 = no smoothing (default 0.5)"),
    ("load_windows", "windows in a row over max_load before a load split is decided (default 3)"),
    (
        "merge_bytes",
        "merge a range with its right neighbour when together they hold at most this many bytes \
         (default max_bytes/4; max_bytes with hysteresis=false)",
    ),
    (
        "merge_load",
        "... and their EWMA loads sum to at most this (default max_load/4; max_load with hysteresis=false)",
    ),
    (
        "cooldown",
        "windows after a split during which neither half is merged; a split merged back sooner counts as an \
         oscillation (default 10)",
    ),
    (
        "hysteresis",
        "false: merge thresholds default to the split thresholds and the cool-down blocks no merge (default true)",
    ),
    ("rebalance_threshold", "a node is overloaded when its EWMA load exceeds the mean by this share (default 0.1)"),
    (
        "move_bytes_per_window",
        "cap on bytes copied by data moves per window, 0 = ownership moves only (default 4 x max_bytes)",
    ),
    ("replicas", "replicas per range; ownership moves go to a node holding one (default 3, at most the node count)"),
    ("finder", "split-key finder whose keys are applied: median, sampled, reservoir, optimal (default reservoir)"),
    ("load_splits", "false: split by size only (the finders are not consulted) (default true)"),
    (
        "window_time",
        "auto (default): windows by timestamp when the events carry them, as long as `window` events on \
         average, else by event count; events: by event count; a number: that many timestamp units",
    ),
    ("seed", "seed of the finders' random sampling (default 1)"),
];

/// The load-split threshold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LoadLimit {
    /// Half a node's fair share of the cluster's EWMA requests per window.
    Auto,
    /// Requests per window.
    Fixed(f64),
}

/// Checked parameters of `range-dynamic`.
#[derive(Clone, Debug, PartialEq)]
pub struct DynamicParams {
    /// Initial ranges.
    pub presplit: u64,
    /// Size-split threshold in bytes.
    pub max_bytes: u64,
    /// Load-split threshold.
    pub max_load: LoadLimit,
    /// EWMA factor in (0, 1].
    pub ewma: f64,
    /// Windows in a row over `max_load` before a load split.
    pub load_windows: u32,
    /// Explicit merge size threshold.
    pub merge_bytes: Option<u64>,
    /// Explicit merge load threshold (requests per window).
    pub merge_load: Option<f64>,
    /// Cool-down after a split, in windows.
    pub cooldown: u64,
    /// Merge thresholds below split thresholds and merges blocked during the cool-down.
    pub hysteresis: bool,
    /// Overload threshold of a node, as a share above the mean.
    pub rebalance_threshold: f64,
    /// Cap on bytes moved by data moves per window.
    pub move_bytes_per_window: u64,
    /// Replicas per range (capped at the node count when simulating).
    pub replicas: u32,
    /// The finder whose keys are applied.
    pub finder: FinderKind,
    /// Whether ranges split by load.
    pub load_splits: bool,
    /// How events are cut into windows.
    pub window_time: WindowTime,
    /// Seed of the finders' sampling.
    pub seed: u64,
}

impl Default for DynamicParams {
    fn default() -> Self {
        DynamicParams {
            presplit: 1,
            max_bytes: DEFAULT_MAX_BYTES,
            max_load: LoadLimit::Auto,
            ewma: 0.5,
            load_windows: 3,
            merge_bytes: None,
            merge_load: None,
            cooldown: 10,
            hysteresis: true,
            rebalance_threshold: 0.1,
            move_bytes_per_window: 4 * DEFAULT_MAX_BYTES,
            replicas: 3,
            finder: FinderKind::Reservoir,
            load_splits: true,
            window_time: WindowTime::Auto,
            seed: 1,
        }
    }
}

impl DynamicParams {
    /// Parses and checks a `range-dynamic` spec; errors name the parameter and the valid form.
    pub fn parse(spec: &Spec) -> Result<DynamicParams, SpecError> {
        if spec.name != NAME {
            return Err(spec.error(format!("expected the scheme '{NAME}', not '{}'", spec.name)));
        }
        let names: Vec<&str> = PARAMS.iter().map(|(n, _)| *n).collect();
        spec.check(&names)?;
        let d = DynamicParams::default();
        let max_bytes = spec.u64_at_least("max_bytes", d.max_bytes, 1)?;
        let max_load = match spec.get("max_load") {
            None | Some("auto") => LoadLimit::Auto,
            Some(_) => LoadLimit::Fixed(positive(spec, "max_load", 1.0)?),
        };
        let ewma: f64 = spec.parse_or("ewma", d.ewma, "a number")?;
        if !(ewma > 0.0 && ewma <= 1.0) {
            return Err(spec.error(format!("ewma={ewma} must be in (0, 1]")));
        }
        let load_windows = u32::try_from(spec.u64_at_least("load_windows", 3, 1)?)
            .map_err(|_| spec.error("load_windows must be at most 4294967295".into()))?;
        let merge_bytes = spec.optional_u64_at_least("merge_bytes", 0)?;
        let merge_load = spec
            .get("merge_load")
            .map(|_| non_negative(spec, "merge_load", 0.0))
            .transpose()?;
        let hysteresis = spec.flag("hysteresis", true)?;
        let finder = match spec.get("finder") {
            None => d.finder,
            Some(name) => FinderKind::from_name(name).ok_or_else(|| {
                let all: Vec<&str> = FinderKind::ALL.iter().map(|f| f.name()).collect();
                spec.error(format!(
                    "unknown finder '{name}'; valid finders: {}",
                    all.join(", ")
                ))
            })?,
        };
        let window_time = match spec.get("window_time") {
            None | Some("auto") => WindowTime::Auto,
            Some("events") => WindowTime::Events,
            Some(_) => WindowTime::Fixed(spec.u64_at_least("window_time", 1, 1).map_err(|_| {
                spec.error("window_time must be auto, events or a whole number of timestamp units, at least 1".into())
            })?),
        };
        let rebalance_threshold = non_negative(spec, "rebalance_threshold", d.rebalance_threshold)?;
        let replicas = u32::try_from(spec.u64_at_least("replicas", u64::from(d.replicas), 1)?)
            .map_err(|_| spec.error("replicas must be at most 4294967295".into()))?;
        let params = DynamicParams {
            presplit: spec.u64_at_least("presplit", d.presplit, 1)?,
            max_bytes,
            max_load,
            ewma,
            load_windows,
            merge_bytes,
            merge_load,
            cooldown: spec.u64_at_least("cooldown", d.cooldown, 0)?,
            hysteresis,
            rebalance_threshold,
            move_bytes_per_window: spec.u64_at_least(
                "move_bytes_per_window",
                max_bytes.saturating_mul(4),
                0,
            )?,
            replicas,
            finder,
            load_splits: spec.flag("load_splits", true)?,
            window_time,
            seed: spec.u64_at_least("seed", d.seed, 0)?,
        };
        params.check_hysteresis(spec)?;
        Ok(params)
    }

    /// With hysteresis, explicit merge thresholds must lie below the split thresholds.
    fn check_hysteresis(&self, spec: &Spec) -> Result<(), SpecError> {
        if let (Some(_), LoadLimit::Auto) = (self.merge_load, self.max_load) {
            return Err(spec.error(
                "merge_load needs a fixed max_load (max_load=auto scales with the load)".into(),
            ));
        }
        if !self.hysteresis {
            return Ok(());
        }
        if let Some(m) = self.merge_bytes.filter(|&m| m >= self.max_bytes) {
            return Err(spec.error(format!(
                "merge_bytes={m} must be below max_bytes={} with hysteresis (or pass hysteresis=false)",
                self.max_bytes
            )));
        }
        if let (Some(m), LoadLimit::Fixed(max)) = (self.merge_load, self.max_load) {
            if m >= max {
                return Err(spec.error(format!(
                    "merge_load={m} must be below max_load={max} with hysteresis (or pass hysteresis=false)"
                )));
            }
        }
        Ok(())
    }

    /// The merge size threshold in effect.
    pub fn merge_bytes(&self) -> u64 {
        self.merge_bytes.unwrap_or(if self.hysteresis {
            (self.max_bytes as f64 * MERGE_SHARE) as u64
        } else {
            self.max_bytes
        })
    }

    /// The split and merge load thresholds (requests per window) in effect for a cluster of
    /// `nodes` nodes whose EWMA load is `cluster_load` requests per window.
    pub fn load_limits(&self, cluster_load: f64, nodes: u32) -> (f64, f64) {
        let split = match self.max_load {
            LoadLimit::Fixed(v) => v,
            LoadLimit::Auto => cluster_load / (2.0 * f64::from(nodes.max(1))),
        };
        let merge = self.merge_load.unwrap_or(if self.hysteresis {
            split * MERGE_SHARE
        } else {
            split
        });
        (split, merge)
    }

    /// True when a range split in window `split_at` may be merged in window `now`.
    pub fn cooled_down(&self, split_at: Option<u64>, now: u64) -> bool {
        !self.hysteresis || split_at.is_none_or(|w| now.saturating_sub(w) >= self.cooldown)
    }
}

/// A finite number above 0.
fn positive(spec: &Spec, key: &str, default: f64) -> Result<f64, SpecError> {
    let v: f64 = spec.parse_or(key, default, "a number")?;
    if !(v.is_finite() && v > 0.0) {
        return Err(spec.error(format!("{key}={v} must be a number above 0")));
    }
    Ok(v)
}

/// A finite number at least 0.
fn non_negative(spec: &Spec, key: &str, default: f64) -> Result<f64, SpecError> {
    let v: f64 = spec.parse_or(key, default, "a number")?;
    if !(v.is_finite() && v >= 0.0) {
        return Err(spec.error(format!("{key}={v} must be a number, at least 0")));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<DynamicParams, SpecError> {
        DynamicParams::parse(&Spec::parse(text).unwrap())
    }

    #[test]
    fn defaults_keep_merges_well_below_splits() {
        let p = parse("range-dynamic").unwrap();
        assert_eq!(p, DynamicParams::default());
        assert_eq!(p.merge_bytes(), DEFAULT_MAX_BYTES / 4);
        assert_eq!(p.load_limits(1600.0, 8), (100.0, 25.0));
        assert!(
            !p.cooled_down(Some(5), 14) && p.cooled_down(Some(5), 15) && p.cooled_down(None, 0)
        );
    }

    #[test]
    fn without_hysteresis_thresholds_are_equal_and_the_cooldown_blocks_nothing() {
        let p = parse("range-dynamic:max_load=300,hysteresis=false").unwrap();
        assert_eq!(p.load_limits(0.0, 4), (300.0, 300.0));
        assert!(p.cooled_down(Some(9), 9));
    }

    #[test]
    fn every_parameter_parses() {
        let p = parse(
            "range-dynamic:presplit=4,max_bytes=1000,max_load=50,ewma=1,load_windows=2,merge_bytes=100,\
             merge_load=5,cooldown=3,rebalance_threshold=0.2,move_bytes_per_window=0,replicas=1,finder=optimal,\
             load_splits=false,window_time=250,seed=9",
        )
        .unwrap();
        assert_eq!(
            (p.presplit, p.max_bytes, p.max_load, p.load_windows),
            (4, 1000, LoadLimit::Fixed(50.0), 2)
        );
        assert_eq!(
            (p.merge_bytes(), p.load_limits(0.0, 1), p.cooldown),
            (100, (50.0, 5.0), 3)
        );
        assert_eq!(
            (p.move_bytes_per_window, p.replicas, p.finder, p.load_splits),
            (0, 1, FinderKind::Optimal, false)
        );
        assert_eq!(
            (p.window_time, p.seed, p.rebalance_threshold, p.ewma),
            (WindowTime::Fixed(250), 9, 0.2, 1.0)
        );
        assert_eq!(
            parse("range-dynamic:window_time=events")
                .unwrap()
                .window_time,
            WindowTime::Events
        );
    }

    #[test]
    fn bad_values_are_refused_with_the_valid_form() {
        for (text, needle) in [
            ("range-dynamic:ewma=0", "(0, 1]"),
            ("range-dynamic:max_load=-3", "above 0"),
            (
                "range-dynamic:finder=best",
                "valid finders: median, sampled, reservoir, optimal",
            ),
            (
                "range-dynamic:max_bytes=100,merge_bytes=100",
                "below max_bytes",
            ),
            ("range-dynamic:max_load=10,merge_load=10", "below max_load"),
            ("range-dynamic:merge_load=1", "fixed max_load"),
            (
                "range-dynamic:window_time=soon",
                "auto, events or a whole number",
            ),
            ("range-dynamic:presplit=0", "at least 1"),
            ("range-dynamic:rebalance_threshold=-1", "at least 0"),
            ("range-dynamic:splits=3", "unknown parameter 'splits'"),
            ("range:max_bytes=3", "expected the scheme 'range-dynamic'"),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
        assert!(parse("range-dynamic:max_bytes=100,merge_bytes=100,hysteresis=false").is_ok());
    }
}
