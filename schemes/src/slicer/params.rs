//! The parameters of `slicer`, parsed from a spec string.
//!
//! ```
//! use schemes::slicer::params::SlicerParams;
//! use workloads::Spec;
//! let p = SlicerParams::parse(&Spec::parse("slicer:churn_budget=0.2").unwrap()).unwrap();
//! assert_eq!((p.slices_per_task, p.churn_budget, p.max_imbalance), (4, 0.2, 1.05));
//! ```

use serde::{Deserialize, Serialize};
use workloads::{Spec, SpecError};

/// The scheme name in `--schemes`.
pub const NAME: &str = "slicer";

/// One line on the scheme, for help texts.
pub const ABOUT: &str = "hashed key space cut into slices on tasks, rebalanced at every window end by a churn-budgeted weighted-move balancer in the manner of Google's Slicer";

/// The most slices per task.
pub const MAX_SLICES_PER_TASK: u64 = 1 << 12;

/// Parameter names and what they do (with defaults), in the order help texts show them.
pub static PARAMS: &[(&str, &str)] = &[
    (
        "slices_per_task",
        "slices per task at the start (equal slices of the hash space, round-robin) and the slice count \
         per task above which cold neighbours merge (default 4)",
    ),
    (
        "max_slices_per_task",
        "no split when the slices reach this many per task (default 4 x slices_per_task)",
    ),
    (
        "churn_budget",
        "share of the hash space moved per round at most (merges and moves; default 0.09)",
    ),
    (
        "max_imbalance",
        "a round stops moving once the hottest task's load is within this factor of the mean (default 1.05)",
    ),
    (
        "split_load",
        "a slice of the hottest task may be split when its load exceeds this share of the mean task load \
         (default 0.5)",
    ),
    (
        "merge_load",
        "two adjacent slices are cold when their loads together are at most this share of the mean task \
         load (default 0.25)",
    ),
    (
        "grown_from",
        "slices start round-robin on the first M tasks, the others join empty: the moment after adding \
         tasks (default: every task)",
    ),
    (
        "move_rate",
        "bytes of slices moved per second of trace time (per event without timestamps; --time-unit), \
         unused budget carried over while moves wait; a slice's bytes are those of the keys seen in its \
         range (key length + the size of its last event that carried one); a round's next move waits \
         for the budget, and a slice not moved yet serves from its old task (default: moves are instant)",
    ),
];

/// Checked parameters of `slicer`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlicerParams {
    /// Slices per task at the start, and the target above which merges happen.
    pub slices_per_task: u32,
    /// Slices per task above which no split happens.
    pub max_slices_per_task: u32,
    /// Share of the hash space moved per round at most.
    pub churn_budget: f64,
    /// Imbalance (hottest task load / mean) at which a round stops.
    pub max_imbalance: f64,
    /// Load share of the mean task load above which a slice may split.
    pub split_load: f64,
    /// Load share of the mean task load at or below which an adjacent pair is cold.
    pub merge_load: f64,
    /// Tasks holding the slices at the start; `None` = every task.
    pub grown_from: Option<u32>,
    /// Bytes moved per second of trace time (per event without timestamps); `None` = instant
    /// moves.
    pub move_rate: Option<u64>,
}

impl SlicerParams {
    /// Parses and checks a `slicer` spec; errors name the parameter and the valid form.
    pub fn parse(spec: &Spec) -> Result<SlicerParams, SpecError> {
        let names: Vec<&str> = PARAMS.iter().map(|(n, _)| *n).collect();
        spec.check(&names)?;
        let per = spec.u64_at_least("slices_per_task", 4, 1)?;
        if per > MAX_SLICES_PER_TASK {
            return Err(spec.error(format!(
                "slices_per_task={per} must be at most {MAX_SLICES_PER_TASK}"
            )));
        }
        let max = spec.u64_at_least("max_slices_per_task", 4 * per, per)?;
        if max > MAX_SLICES_PER_TASK {
            return Err(spec.error(format!(
                "max_slices_per_task={max} must be at most {MAX_SLICES_PER_TASK}"
            )));
        }
        let max_imbalance: f64 = spec.parse_or("max_imbalance", 1.05, "a number")?;
        if !(max_imbalance.is_finite() && max_imbalance >= 1.0) {
            return Err(spec.error(format!(
                "max_imbalance={max_imbalance} must be a number, at least 1"
            )));
        }
        let split_load = positive(spec, "split_load", 0.5)?;
        let merge_load = positive(spec, "merge_load", 0.25)?;
        if merge_load * 2.0 > split_load {
            return Err(spec.error(format!(
                "merge_load={merge_load} must be at most half of split_load={split_load} (else halves of a split merge back)"
            )));
        }
        let grown_from = spec
            .optional_u64_at_least("grown_from", 1)?
            .map(|m| u32::try_from(m).unwrap_or(u32::MAX));
        Ok(SlicerParams {
            slices_per_task: per as u32,
            max_slices_per_task: max as u32,
            churn_budget: spec.fraction("churn_budget", 0.09)?,
            max_imbalance,
            split_load,
            merge_load,
            grown_from,
            move_rate: spec.optional_u64_at_least("move_rate", 1)?,
        })
    }

    /// The tasks holding the slices at the start on `tasks` tasks; a spec error when
    /// `grown_from` is above `tasks`.
    pub fn start_tasks(&self, spec: &Spec, tasks: u32) -> Result<u32, SpecError> {
        match self.grown_from {
            None => Ok(tasks),
            Some(m) if m <= tasks => Ok(m),
            Some(m) => Err(spec.error(format!(
                "grown_from={m} must be at most the task count {tasks} (--shards)"
            ))),
        }
    }
}

/// A finite number parameter above 0.
fn positive(spec: &Spec, key: &str, default: f64) -> Result<f64, SpecError> {
    let v: f64 = spec.parse_or(key, default, "a number")?;
    if !(v.is_finite() && v > 0.0) {
        return Err(spec.error(format!("{key}={v} must be a number above 0")));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<SlicerParams, SpecError> {
        SlicerParams::parse(&Spec::parse(text).unwrap())
    }

    #[test]
    fn defaults_and_values() {
        let p = parse("slicer").unwrap();
        assert_eq!((p.slices_per_task, p.max_slices_per_task), (4, 16));
        assert_eq!((p.churn_budget, p.max_imbalance), (0.09, 1.05));
        assert_eq!(
            (p.split_load, p.merge_load, p.grown_from),
            (0.5, 0.25, None)
        );
        let p = parse("slicer:slices_per_task=2,max_slices_per_task=3,churn_budget=0.5,max_imbalance=1.2,split_load=1,merge_load=0.1,grown_from=2").unwrap();
        assert_eq!((p.slices_per_task, p.max_slices_per_task), (2, 3));
        assert_eq!((p.churn_budget, p.max_imbalance), (0.5, 1.2));
        assert_eq!(
            (p.split_load, p.merge_load, p.grown_from),
            (1.0, 0.1, Some(2))
        );
    }

    #[test]
    fn bad_values_name_the_parameter() {
        for (text, needle) in [
            (
                "slicer:slices_per_task=0",
                "slices_per_task=0 must be at least 1",
            ),
            (
                "slicer:slices_per_task=5000",
                "slices_per_task=5000 must be at most",
            ),
            (
                "slicer:max_slices_per_task=2",
                "max_slices_per_task=2 must be at least 4",
            ),
            (
                "slicer:churn_budget=1.5",
                "churn_budget=1.5 must be a fraction",
            ),
            (
                "slicer:max_imbalance=0.9",
                "max_imbalance=0.9 must be a number, at least 1",
            ),
            (
                "slicer:split_load=0",
                "split_load=0 must be a number above 0",
            ),
            (
                "slicer:merge_load=0.4",
                "merge_load=0.4 must be at most half",
            ),
            ("slicer:grown_from=0", "grown_from=0 must be at least 1"),
            ("slicer:vnodes=3", "unknown parameter 'vnodes'"),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
        let spec = Spec::parse("slicer:grown_from=5").unwrap();
        let p = SlicerParams::parse(&spec).unwrap();
        assert!(p
            .start_tasks(&spec, 4)
            .unwrap_err()
            .to_string()
            .contains("grown_from=5"));
        assert_eq!(p.start_tasks(&spec, 5).unwrap(), 5);
    }
}
