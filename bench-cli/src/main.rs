//! The `shardlab` command: parse options, run, report. All logic lives in the library crates.

mod cli;
mod command;
mod completions;
mod config;
mod convert;
mod gen;
mod inputs;
mod inspect;
mod interrupt;
mod keys;
mod merge;
mod migrate;
mod plan;
mod progress;
mod route;
mod run;
mod run_part;
mod scenario;
mod sweep;
mod trace_source;
mod usage;

use clap::{CommandFactory, FromArgMatches};

fn main() {
    let (argv, config) =
        match config::expand(&command::Cli::command(), std::env::args_os().collect()) {
            Ok(expanded) => expanded,
            Err(err) => {
                eprintln!("Error: {}", error_text(&err));
                std::process::exit(usage::exit_status(&err));
            }
        };
    let matches = command::Cli::command().get_matches_from(argv);
    let given = cli::options_given(&matches);
    let cli = command::Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if let Err(err) = interrupt::install() {
        eprintln!("Error: cannot watch for interruptions: {err}");
        std::process::exit(1);
    }
    let result = match cli.command {
        command::Command::Run(args) => match args.part {
            Some(part) => run_part::run_part(&args, part),
            None => run::run(args, &given, config),
        },
        command::Command::Report(args) => report(&args),
        command::Command::Inspect(args) => inspect::run(args),
        command::Command::Gen(args) => gen::run(args),
        command::Command::Convert(args) => convert::run(args),
        command::Command::Plan(args) => plan::plan(args, &given),
        command::Command::Route(args) => route::route(args),
        command::Command::Migrate(args) => migrate::migrate(args),
        command::Command::Merge(args) => merge::merge(&args),
        command::Command::Keys(args) => keys::keys(args),
        command::Command::Completions(args) => {
            completions::completions(&args, command::Cli::command())
        }
        command::Command::Man(args) => completions::man(&args, command::Cli::command()),
    };
    interrupt::settle();
    if let Err(err) = result {
        if is_broken_pipe(&err) {
            std::process::exit(0);
        }
        eprintln!("Error: {}", error_text(&err));
        std::process::exit(usage::exit_status(&err));
    }
}

/// `shardlab report DIR`: re-render a run's charts and report from its files.
fn report(args: &cli::ReportArgs) -> anyhow::Result<()> {
    use anyhow::Context;
    let written = reports::report::render_dir(&args.dir)
        .with_context(|| format!("cannot render the report of '{}'", args.dir.display()))?;
    println!("report: {} ({} files)", args.dir.display(), written.len());
    Ok(())
}

/// The error and its causes, each said once: a cause whose text its context already quotes
/// (an I/O error inside "cannot read trace 'F': ..."), also without its `(os error N)`
/// ("cannot write 'F': No space left on device"), is not repeated.
fn error_text(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain().map(|c| c.to_string()) {
        if text.contains(&cause) || text.contains(without_os_error(&cause)) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&cause);
    }
    text
}

/// An I/O error's text without the ` (os error N)` that `std` appends.
fn without_os_error(text: &str) -> &str {
    match text.rfind(" (os error ") {
        Some(at) if at > 0 && text.ends_with(')') => &text[..at],
        _ => text,
    }
}

/// A closed stdout (`shardlab run | head`, `shardlab route ... | head -1`) is not an error
/// worth reporting: an I/O error of kind `BrokenPipe` anywhere in the chain, also inside a
/// CSV writer's error.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    use std::io::ErrorKind::BrokenPipe;
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == BrokenPipe)
            || e.downcast_ref::<csv::Error>().is_some_and(
                |e| matches!(e.kind(), csv::ErrorKind::Io(io) if io.kind() == BrokenPipe),
            )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_pipe_inside_a_csv_error_counts_as_a_closed_stdout() {
        let io = std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        assert!(is_broken_pipe(&anyhow::Error::new(csv::Error::from(io))));
        let other = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        assert!(!is_broken_pipe(&anyhow::Error::new(csv::Error::from(
            other
        ))));
    }

    #[test]
    fn an_io_error_quoted_without_its_os_error_is_said_once() {
        let io = std::io::Error::from_raw_os_error(28);
        let err =
            anyhow::Error::new(io).context("cannot write '/dev/full': No space left on device");
        assert_eq!(
            error_text(&err),
            "cannot write '/dev/full': No space left on device"
        );
    }
}
