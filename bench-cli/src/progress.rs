//! The one progress-bar factory (a bar on a terminal, hidden otherwise), and the clock of
//! the replay's phases.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

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

/// The replay's progress callback, drawing on `bar` and timing the phases on `clock`: a new
/// workload resets the bar.
pub fn on_replay_progress<'a>(
    bar: &'a ProgressBar,
    clock: &'a PhaseClock,
) -> impl Fn(Progress<'_>) + Sync + 'a {
    move |p| match p {
        Progress::Started { workload, events } => {
            clock.enter("warm-up");
            bar.reset();
            bar.set_length(events.unwrap_or(0));
            bar.set_prefix(workload.to_string());
            bar.set_message("");
        }
        Progress::Events(n) => {
            clock.count(n);
            bar.inc(n)
        }
        Progress::Phase(name) => {
            clock.enter(name);
            bar.set_message(name)
        }
    }
}

/// Wall time spent in each phase of the replays (summed over workloads and sweep points),
/// and the events replayed in the `replay` phase, from the progress events.
#[derive(Default)]
pub struct PhaseClock {
    state: Mutex<ClockState>,
}

#[derive(Default)]
struct ClockState {
    current: Option<(&'static str, Instant)>,
    totals: Vec<(&'static str, Duration)>,
    replayed: u64,
}

impl ClockState {
    /// Ends the current phase, adding its time to its total.
    fn close(&mut self) {
        if let Some((name, since)) = self.current.take() {
            let spent = since.elapsed();
            match self.totals.iter_mut().find(|(n, _)| *n == name) {
                Some((_, total)) => *total += spent,
                None => self.totals.push((name, spent)),
            }
        }
    }
}

impl PhaseClock {
    /// Starts phase `name`, ending the current one.
    pub fn enter(&self, name: &'static str) {
        let mut state = self.lock();
        state.close();
        state.current = Some((name, Instant::now()));
    }

    /// Counts `n` events processed in the current phase (kept for the `replay` phase).
    fn count(&self, n: u64) {
        let mut state = self.lock();
        if state.current.is_some_and(|(name, _)| name == "replay") {
            state.replayed += n;
        }
    }

    /// The phases ended so far with their seconds, in the order first entered, and the
    /// events replayed in the `replay` phase.
    pub fn ended(&self) -> (Vec<(&'static str, f64)>, u64) {
        let state = self.lock();
        let totals = state
            .totals
            .iter()
            .map(|(name, d)| (*name, d.as_secs_f64()))
            .collect();
        (totals, state.replayed)
    }

    /// Ends the current phase; then as [`PhaseClock::ended`].
    pub fn finish(&self) -> (Vec<(&'static str, f64)>, u64) {
        self.lock().close();
        self.ended()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ClockState> {
        // A panic elsewhere cannot leave the totals half-updated: take them as they are.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One line for people: each phase's time, and the replay's events per second.
pub fn phase_line(phases: &[(&str, f64)], replayed: u64) -> String {
    let parts: Vec<String> = phases
        .iter()
        .map(|&(name, secs)| match name {
            "replay" if secs > 0.0 => format!(
                "replay {secs:.2} s ({:.1} M events/s)",
                replayed as f64 / secs / 1e6
            ),
            _ => format!("{name} {secs:.2} s"),
        })
        .collect();
    format!("time: {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_sums_each_phase_and_counts_replayed_events_only() {
        let clock = PhaseClock::default();
        clock.enter("warm-up");
        clock.count(5);
        clock.enter("replay");
        clock.count(7);
        clock.enter("remap");
        clock.enter("replay");
        clock.count(3);
        let (phases, replayed) = clock.finish();
        let names: Vec<&str> = phases.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["warm-up", "replay", "remap"]);
        assert_eq!(replayed, 10);
        let line = phase_line(&[("warm-up", 0.5), ("replay", 2.0)], 10_000_000);
        assert_eq!(line, "time: warm-up 0.50 s, replay 2.00 s (5.0 M events/s)");
    }
}
