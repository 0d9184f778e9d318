//! Exit statuses. A usage error (the command line alone is wrong: a bad option value or spec,
//! options that conflict, an existing output without `--force`) exits with 2, as clap's own
//! errors do; every other error (a trace, boundaries file or output that cannot be read or
//! written, data that does not fit the options) exits with 1; failed `run --assert`
//! conditions exit with 3.

use std::fmt;

/// An error the user fixes by changing the command line; `main` exits with 2 for it.
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// `run --assert` conditions that failed (their count); `main` exits with 3 for it, after
/// the run's outputs were written.
#[derive(Debug)]
pub struct AssertionsFailed(pub usize);

impl fmt::Display for AssertionsFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} --assert condition(s) failed (the run's outputs are written)",
            self.0
        )
    }
}

impl std::error::Error for AssertionsFailed {}

/// A usage error with this message.
pub fn usage(message: impl fmt::Display) -> anyhow::Error {
    UsageError(message.to_string()).into()
}

/// The exit status for `err`: 2 when a [`UsageError`] or a usage-kind library error is in its
/// chain, else 1.
pub fn exit_status(err: &anyhow::Error) -> i32 {
    if err.chain().any(|e| e.is::<AssertionsFailed>()) {
        3
    } else if err.chain().any(is_usage) {
        2
    } else {
        1
    }
}

/// True for the errors that come from the command line rather than the data: a
/// [`UsageError`], a malformed or unknown workload or scheme spec, an existing output
/// directory. (`AnalysisError::Config` is not among them: it also says that data cannot be
/// measured; [`config_is_usage`] marks it where only the command line is being checked.)
fn is_usage(e: &(dyn std::error::Error + 'static)) -> bool {
    use schemes::AnalysisError;
    use workloads::WorkloadError;
    e.is::<UsageError>()
        || e.is::<workloads::SpecError>()
        || matches!(
            e.downcast_ref::<AnalysisError>(),
            Some(AnalysisError::Spec(_) | AnalysisError::Workload(WorkloadError::Spec(_)))
        )
        || matches!(
            e.downcast_ref::<WorkloadError>(),
            Some(WorkloadError::Spec(_))
        )
        || matches!(
            e.downcast_ref::<reports::ReportError>(),
            Some(reports::ReportError::Exists(_) | reports::ReportError::NotARun(_))
        )
}

/// `err` from checking options before any data is read: a configuration error is then a
/// usage error; the rest (a boundaries file that cannot be read, say) keep their kind.
pub fn config_is_usage(err: schemes::AnalysisError) -> anyhow::Error {
    match err {
        schemes::AnalysisError::Config(message) => usage(message),
        other => other.into(),
    }
}

/// Refuses `-` as the output directory of `option`: elsewhere `-` is standard input or
/// output, and a directory of files cannot be written there (what a command prints goes to
/// standard output anyway). A directory named `-` is still `./-`.
pub fn not_dash_dir(dir: &std::path::Path, option: &str) -> anyhow::Result<()> {
    if dir.as_os_str() == "-" {
        return Err(usage(format!(
            "{option} - would be a directory named '-': {option} names a directory of files, \
             which cannot go to standard output (what the command prints goes there already); give a \
             directory (./- for one named '-') or leave {option} out"
        )));
    }
    Ok(())
}
