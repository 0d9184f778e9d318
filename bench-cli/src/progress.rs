//! The one progress-bar factory: a bar on a terminal, hidden otherwise.

use std::io::IsTerminal;

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
