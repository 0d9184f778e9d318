//! The one progress-bar factory: a bar on a terminal, hidden otherwise.

use std::io::IsTerminal;

use analysis::replay::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar for event counts; hidden when `quiet` or when stderr is not a terminal.
pub fn events_bar(quiet: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
    if quiet || !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    if let Ok(style) = ProgressStyle::with_template(
        "{prefix:.bold} [{bar:30.cyan/blue}] {human_pos}/{human_len} events {per_sec} {msg}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// The replay's progress callback, drawing on `bar`: a new workload resets it.
pub fn on_replay_progress(bar: &ProgressBar) -> impl Fn(Progress<'_>) + Sync + '_ {
    move |p| match p {
        Progress::Started { workload, events } => {
            bar.reset();
            bar.set_length(events.unwrap_or(0));
            bar.set_prefix(workload.to_string());
            bar.set_message("");
        }
        Progress::Events(n) => bar.inc(n),
        Progress::Phase(name) => bar.set_message(name),
    }
}
