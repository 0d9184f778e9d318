//! The parameters of `pd-hot`, parsed from a spec string, with PD's defaults where PD has
//! one.
//!
//! ```
//! use schemes::pd_hot::params::PdHotParams;
//! use workloads::Spec;
//! let p = PdHotParams::parse(&Spec::parse("pd-hot:regions=16").unwrap()).unwrap();
//! assert_eq!((p.regions, p.hot_degree, p.rule.tolerance, p.rule.dec_ratio), (16, 3, 1.05, 0.95));
//! ```

use serde::{Deserialize, Serialize};
use workloads::{Spec, SpecError};

use super::scheduler::Rule;
use crate::citus::params::start_nodes;

/// The scheme name in `--schemes`.
pub const NAME: &str = "pd-hot";

/// One line on the scheme, for help texts.
pub const ABOUT: &str = "key ranges (regions) on stores, hot regions moved off the hottest store by a scheduler in the manner of PD's hot-region scheduler at every window end";

/// The most regions.
pub const MAX_REGIONS: u64 = 1 << 20;

/// Parameter names and what they do (with defaults), in the order help texts show them.
pub static PARAMS: &[(&str, &str)] = &[
    (
        "regions",
        "key ranges cut at the quantiles of the first window's distinct keys (default 64)",
    ),
    (
        "hot_degree",
        "windows in a row a region's requests must reach min_hot_rate before it is hot \
         (PD's hot-region-cache-hits-threshold, default 3)",
    ),
    (
        "min_hot_rate",
        "requests per window a region must reach to count a hot window (default 10)",
    ),
    (
        "tolerance",
        "a source store's load must exceed tolerance x the mean store load, a destination's \
         load x tolerance must stay below it (PD's src- and dst-tolerance-ratio, default 1.05)",
    ),
    (
        "dec_ratio",
        "a move needs (destination + region) <= dec_ratio x (source - region) \
         (PD's great-dec-ratio, default 0.95), in (0, 1]",
    ),
    (
        "max_moves",
        "most moves per window end (default 4)",
    ),
    (
        "grown_from",
        "regions start round-robin on the first M stores, the others join empty (default: every store)",
    ),
    (
        "move_rate",
        "bytes of regions moved per second of trace time (per event without timestamps; \
         --time-unit), unused budget carried over while moves wait (default: moves are instant)",
    ),
];

/// Checked parameters of `pd-hot`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PdHotParams {
    /// Regions cut from the first window's keys.
    pub regions: u32,
    /// Hot windows in a row before a region is hot.
    pub hot_degree: u32,
    /// The scheduler's rule.
    pub rule: Rule,
    /// Stores holding the regions at the start; `None` = every store.
    pub grown_from: Option<u32>,
    /// Bytes moved per second of trace time (per event without timestamps); `None` = instant
    /// moves.
    pub move_rate: Option<u64>,
}

impl PdHotParams {
    /// Parses and checks a `pd-hot` spec; errors name the parameter and the valid form.
    pub fn parse(spec: &Spec) -> Result<PdHotParams, SpecError> {
        let names: Vec<&str> = PARAMS.iter().map(|(n, _)| *n).collect();
        spec.check(&names)?;
        let regions = spec.u64_at_least("regions", 64, 1)?;
        if regions > MAX_REGIONS {
            return Err(spec.error(format!("regions={regions} must be at most {MAX_REGIONS}")));
        }
        let hot_degree = spec.u64_at_least("hot_degree", 3, 1)?;
        let hot_degree = u32::try_from(hot_degree)
            .map_err(|_| spec.error(format!("hot_degree={hot_degree} is too large")))?;
        let tolerance: f64 = spec.parse_or("tolerance", 1.05, "a number")?;
        if !(tolerance.is_finite() && tolerance >= 1.0) {
            return Err(spec.error(format!(
                "tolerance={tolerance} must be a number, at least 1"
            )));
        }
        let dec_ratio: f64 = spec.parse_or("dec_ratio", 0.95, "a number")?;
        if !(dec_ratio > 0.0 && dec_ratio <= 1.0) {
            return Err(spec.error(format!("dec_ratio={dec_ratio} must be in (0, 1]")));
        }
        let grown_from = spec
            .optional_u64_at_least("grown_from", 1)?
            .map(|m| u32::try_from(m).unwrap_or(u32::MAX));
        let move_rate = spec.optional_u64_at_least("move_rate", 1)?;
        Ok(PdHotParams {
            regions: regions as u32,
            hot_degree,
            rule: Rule {
                min_hot_rate: spec.u64_at_least("min_hot_rate", 10, 1)?,
                tolerance,
                dec_ratio,
                max_moves: spec.u64_at_least("max_moves", 4, 0)?,
            },
            grown_from,
            move_rate,
        })
    }

    /// The stores holding the regions at the start on `stores` stores; a spec error when
    /// `grown_from` is above `stores`.
    pub fn start_stores(&self, spec: &Spec, stores: u32) -> Result<u32, SpecError> {
        start_nodes(spec, self.grown_from, stores)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<PdHotParams, SpecError> {
        PdHotParams::parse(&Spec::parse(text).unwrap())
    }

    #[test]
    fn defaults_and_values() {
        let p = parse("pd-hot").unwrap();
        assert_eq!((p.regions, p.hot_degree, p.rule.min_hot_rate), (64, 3, 10));
        assert_eq!(
            (p.rule.max_moves, p.grown_from, p.move_rate),
            (4, None, None)
        );
        let p = parse("pd-hot:regions=8,hot_degree=1,min_hot_rate=5,tolerance=1.2,dec_ratio=0.9,max_moves=0,grown_from=2,move_rate=100").unwrap();
        assert_eq!((p.regions, p.hot_degree, p.rule.min_hot_rate), (8, 1, 5));
        assert_eq!((p.rule.tolerance, p.rule.dec_ratio), (1.2, 0.9));
        assert_eq!(
            (p.rule.max_moves, p.grown_from, p.move_rate),
            (0, Some(2), Some(100))
        );
    }

    #[test]
    fn bad_values_name_the_parameter() {
        for (text, needle) in [
            ("pd-hot:regions=0", "regions=0 must be at least 1"),
            ("pd-hot:hot_degree=0", "hot_degree=0 must be at least 1"),
            (
                "pd-hot:min_hot_rate=x",
                "min_hot_rate=x is not a whole number",
            ),
            (
                "pd-hot:tolerance=0.5",
                "tolerance=0.5 must be a number, at least 1",
            ),
            ("pd-hot:dec_ratio=0", "dec_ratio=0 must be in (0, 1]"),
            ("pd-hot:grown_from=0", "grown_from=0 must be at least 1"),
            ("pd-hot:move_rate=0", "move_rate=0 must be at least 1"),
            ("pd-hot:shards=3", "unknown parameter 'shards'"),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
        let spec = Spec::parse("pd-hot:grown_from=5").unwrap();
        let p = PdHotParams::parse(&spec).unwrap();
        assert!(p
            .start_stores(&spec, 4)
            .unwrap_err()
            .to_string()
            .contains("grown_from=5"));
        assert_eq!(p.start_stores(&spec, 5).unwrap(), 5);
    }
}
