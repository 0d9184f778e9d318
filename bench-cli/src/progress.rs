//! The one progress-bar factory (a bar on a terminal, hidden otherwise), and the clock of
//! the replay's phases.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use engine::replay::Progress;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// Whether progress is drawn: not when `quiet`, nor when stderr is not a terminal.
fn draws(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

/// A bar for the events of `label`: with a length when `events` is known, else a spinner
/// with the count; hidden when `quiet` or when stderr is not a terminal.
pub fn events_bar(quiet: bool, label: String, events: Option<u64>) -> ProgressBar {
    let bar = match events {
        Some(n) => ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr())
            .with_style(bar_style()),
        None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
            .with_style(spinner_style()),
    };
    if !draws(quiet) {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.with_prefix(label)
}

/// The bar: label, bar, counts, a rate people can read, the phase and the elapsed time.
fn bar_style() -> ProgressStyle {
    ProgressStyle::with_template(
        "{spinner} {prefix:.bold} [{bar:30.cyan/blue}] {human_pos}/{human_len} events  {rate}  {msg} {elapsed}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .with_key("rate", rate_key)
    .progress_chars("=> ")
}

/// The bar once the events are all read and a phase without event counts runs (remap,
/// latency, plan): the rate would only decay, so the phase's name and time replace it.
fn phase_style(length_known: bool) -> ProgressStyle {
    let template = if length_known {
        "{spinner} {prefix:.bold} [{bar:30.cyan/blue}] {human_pos}/{human_len} events  {msg} {elapsed}"
    } else {
        "{spinner} {prefix:.bold} {human_pos} events  {msg} {elapsed}"
    };
    ProgressStyle::with_template(template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ")
}

/// A bar whose length is unknown: the count and rate, with a spinner.
fn spinner_style() -> ProgressStyle {
    ProgressStyle::with_template(
        "{spinner} {prefix:.bold} {human_pos} events  {rate}  {msg} {elapsed}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_spinner())
    .with_key("rate", rate_key)
}

/// The `{rate}` of the templates: events per second, scaled (`2.5 M events/s`).
fn rate_key(state: &ProgressState, w: &mut dyn std::fmt::Write) {
    let _ = w.write_str(&events_per_sec(state.per_sec()));
}

/// Events per second as people read them: `950 events/s`, `12.3 k events/s`, `2.5 M events/s`.
pub fn events_per_sec(rate: f64) -> String {
    match rate {
        r if !r.is_finite() || r <= 0.0 => String::new(),
        r if r >= 1e6 => format!("{:.1} M events/s", r / 1e6),
        r if r >= 1e3 => format!("{:.1} k events/s", r / 1e3),
        r => format!("{r:.0} events/s"),
    }
}

/// The progress of `run` and `plan`: one bar per replayed configuration, each under its own
/// label and left on screen when done, a spinner with the phase's name while a phase runs
/// without event counts (remap, latency, plan), and the clock of the phases.
pub struct ReplayProgress {
    bars: MultiProgress,
    draws: bool,
    clock: PhaseClock,
}

impl ReplayProgress {
    /// Progress drawn on stderr unless `quiet` or stderr is not a terminal.
    pub fn new(quiet: bool) -> ReplayProgress {
        let draws = draws(quiet);
        let target = if draws {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        ReplayProgress {
            bars: MultiProgress::with_draw_target(target),
            draws,
            clock: PhaseClock::default(),
        }
    }

    /// The clock of the phases.
    pub fn clock(&self) -> &PhaseClock {
        &self.clock
    }

    /// The replay's progress callback for one configuration shown as `label`: its bar is
    /// made when the replay starts (so no empty bar is ever shown).
    pub fn callback<'a>(&'a self, label: &'a str) -> impl Fn(Progress<'_>) + Sync + 'a {
        // The bar and the name of the phase it shows.
        let state: Mutex<(Option<ProgressBar>, &'static str)> = Mutex::new((None, ""));
        move |p| {
            let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
            let (bar, phase) = &mut *state;
            match p {
                Progress::Started { events, .. } => {
                    self.clock.enter("warm-up");
                    let new = match events {
                        Some(n) => ProgressBar::new(n).with_style(bar_style()),
                        None => ProgressBar::new_spinner().with_style(spinner_style()),
                    };
                    let new = self.bars.add(new.with_prefix(label.to_string()));
                    if self.draws {
                        new.enable_steady_tick(Duration::from_millis(200));
                    }
                    if let Some(old) = bar.replace(new) {
                        old.finish();
                    }
                }
                Progress::Events(n) => {
                    self.clock.count(n);
                    if let Some(bar) = bar.as_ref() {
                        bar.inc(n);
                    }
                }
                Progress::Phase(name) => {
                    self.clock.enter(name);
                    *phase = name;
                    if let Some(bar) = bar.as_ref() {
                        if !matches!(name, "warm-up" | "replay") {
                            bar.set_style(phase_style(bar.length().is_some()));
                        }
                        bar.set_message(name);
                    }
                }
                Progress::Step(what) => {
                    if let Some(bar) = bar.as_ref() {
                        bar.set_message(format!("{phase}: {what}"));
                    }
                }
            }
        }
    }

    /// A spinner showing `name` for a phase outside the replay (e.g. writing the report);
    /// finish it when the phase ends.
    pub fn phase(&self, name: &'static str) -> ProgressBar {
        self.clock.enter(name);
        let spinner = self.bars.add(
            ProgressBar::new_spinner()
                .with_style(
                    ProgressStyle::with_template("{spinner} {msg} {elapsed}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                )
                .with_message(name),
        );
        if self.draws {
            spinner.enable_steady_tick(Duration::from_millis(200));
        }
        spinner
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

    #[test]
    fn rates_are_scaled_for_people() {
        assert_eq!(events_per_sec(2_520_939.887_4), "2.5 M events/s");
        assert_eq!(events_per_sec(12_345.0), "12.3 k events/s");
        assert_eq!(events_per_sec(950.4), "950 events/s");
        assert_eq!(events_per_sec(0.0), "");
    }
}
