//! What a reader does with a malformed record: stop with its error (the default), or skip it
//! and count it (`--skip-invalid`), failing once more than `--max-invalid N` were skipped.

use std::sync::{Arc, Mutex};

use crate::WorkloadError;

/// How malformed records are handled.
#[derive(Clone, Debug, Default)]
pub struct InvalidPolicy {
    /// Skip malformed records instead of stopping at the first.
    pub skip: bool,
    /// Fail when more than this many records were skipped (implies `skip`).
    pub max: Option<u64>,
    /// Where the readers report what they skipped (shared by every stream opened with these
    /// options, so the caller can read the count after the replay).
    pub log: InvalidLog,
}

impl InvalidPolicy {
    /// Stop at the first malformed record.
    pub fn strict() -> Self {
        Self::default()
    }

    /// Skip malformed records, failing after `max` of them when given.
    pub fn skipping(max: Option<u64>) -> Self {
        InvalidPolicy {
            skip: true,
            max,
            log: InvalidLog::default(),
        }
    }

    /// True when malformed records are skipped.
    pub fn skips(&self) -> bool {
        self.skip || self.max.is_some()
    }
}

/// The malformed records skipped while reading one trace.
///
/// A trace may be read more than once (the replay counts its events first); every pass sees
/// the same records, so the log keeps the largest count of any one pass, not the sum.
#[derive(Clone, Debug, Default)]
pub struct InvalidLog {
    inner: Arc<Mutex<LogState>>,
}

#[derive(Debug, Default)]
struct LogState {
    skipped: u64,
    first: Option<String>,
}

impl InvalidLog {
    /// Records skipped by the pass that skipped the most.
    pub fn skipped(&self) -> u64 {
        self.inner.lock().map(|s| s.skipped).unwrap_or(0)
    }

    /// The message of the first record skipped, if any.
    pub fn first(&self) -> Option<String> {
        self.inner.lock().ok().and_then(|s| s.first.clone())
    }

    fn record(&self, pass_count: u64, error: &WorkloadError) {
        if let Ok(mut state) = self.inner.lock() {
            state.skipped = state.skipped.max(pass_count);
            if state.first.is_none() {
                state.first = Some(error.to_string());
            }
        }
    }
}

/// The per-stream side of a policy: counts this pass's skipped records.
#[derive(Debug)]
pub(crate) struct InvalidCounter {
    policy: InvalidPolicy,
    skipped: u64,
}

impl InvalidCounter {
    pub(crate) fn new(policy: &InvalidPolicy) -> Self {
        InvalidCounter {
            policy: policy.clone(),
            skipped: 0,
        }
    }

    /// True when malformed records are skipped rather than stopping the stream.
    pub(crate) fn skips(&self) -> bool {
        self.policy.skips()
    }

    /// Decides about one malformed record: `Ok(())` to skip it, or the error to stop with.
    pub(crate) fn handle(&mut self, error: WorkloadError) -> Result<(), WorkloadError> {
        if !self.policy.skips() {
            return Err(error);
        }
        self.skipped += 1;
        self.policy.log.record(self.skipped, &error);
        match self.policy.max {
            Some(max) if self.skipped > max => Err(WorkloadError::Trace {
                path: error_path(&error),
                message: format!(
                    "more than {max} invalid records (the limit of --max-invalid); the last: {error}"
                ),
            }),
            _ => Ok(()),
        }
    }
}

fn error_path(error: &WorkloadError) -> std::path::PathBuf {
    match error {
        WorkloadError::Io { path, .. }
        | WorkloadError::Open { path, .. }
        | WorkloadError::Write { path, .. }
        | WorkloadError::Invalid { path, .. }
        | WorkloadError::Trace { path, .. } => path.clone(),
        WorkloadError::Spec(_) => Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bad(line: u64) -> WorkloadError {
        WorkloadError::Invalid {
            path: "t.csv".into(),
            location: format!("line {line}"),
            message: "bad".into(),
        }
    }

    #[test]
    fn strict_policies_stop_at_the_first_bad_record() {
        let mut c = InvalidCounter::new(&InvalidPolicy::strict());
        assert!(c.handle(bad(2)).is_err());
    }

    #[test]
    fn skipping_counts_and_fails_after_the_maximum() {
        let policy = InvalidPolicy::skipping(Some(2));
        let mut c = InvalidCounter::new(&policy);
        assert!(c.handle(bad(2)).is_ok());
        assert!(c.handle(bad(3)).is_ok());
        let e = c.handle(bad(4)).unwrap_err().to_string();
        assert!(
            e.contains("more than 2 invalid records") && e.contains("line 4"),
            "{e}"
        );
        assert_eq!(policy.log.skipped(), 3);
        assert!(policy.log.first().unwrap().contains("line 2"));
    }

    #[test]
    fn a_second_pass_does_not_double_the_count() {
        let policy = InvalidPolicy::skipping(None);
        for _ in 0..2 {
            let mut c = InvalidCounter::new(&policy);
            c.handle(bad(2)).unwrap();
            c.handle(bad(9)).unwrap();
        }
        assert_eq!(policy.log.skipped(), 2);
    }
}
