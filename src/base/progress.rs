//! The one place progress is drawn: a spinner for work of unknown length, a bar for counted
//! work, on standard error. Layers report through the [`Progress`] trait and never see how (or
//! whether) it is drawn; the command layer decides that once (`report::Output::shows_progress`),
//! and a [`Drawn`] made with `show: false` draws nothing.

use crate::base::units;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const TICK: Duration = Duration::from_millis(100);
const SPINNER: &str = "{spinner} {msg} ({elapsed})";
const STEPS: &str = "{bar:30} {pos}/{len} {wide_msg}";
const ETA_BAR: &str = "{bar:30} {percent:>3}%  about {left} left  {msg}";

/// A phase shorter than this shows nothing: a spinner that flashes up and vanishes is noise.
pub const SHOW_AFTER: Duration = Duration::from_millis(300);

/// Runs `work` on this thread; when `show` and it lasts longer than [`SHOW_AFTER`], a spinner
/// labelled `what` turns beside it until it returns, so no phase leaves the screen blank.
pub fn while_working<T>(show: bool, what: &str, work: impl FnOnce() -> T) -> T {
    while_showing(show, || what.to_string(), work)
}

/// [`while_working`] with a label asked for again every [`TICK`], for work that counts as it
/// goes (the scan's files and directories).
pub fn while_showing<T>(
    show: bool,
    label: impl Fn() -> String + Sync,
    work: impl FnOnce() -> T,
) -> T {
    if !show {
        return work();
    }
    const POLL: Duration = Duration::from_millis(20);
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let started = Instant::now();
            while started.elapsed() < SHOW_AFTER {
                if done.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(POLL);
            }
            let spinner = Drawn::spinner(true, &label());
            let mut labelled = Instant::now();
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(POLL);
                if labelled.elapsed() >= TICK {
                    spinner.set_message(label());
                    labelled = Instant::now();
                }
            }
            spinner.finish_and_clear();
        });
        let result = work();
        done.store(true, Ordering::Relaxed);
        result
    })
}

/// How far a piece of work has got.
pub trait Progress: Sync {
    /// The work has `steps` steps in all (counted from zero again).
    fn start(&self, steps: u64);
    /// `steps` more are done; `what` is being worked on now.
    fn step(&self, steps: u64, what: &str);
    fn finish(&self);
}

/// Progress drawn on standard error with indicatif, or nothing when hidden.
#[derive(Debug, Clone)]
pub struct Drawn {
    bar: ProgressBar,
}

impl Drawn {
    pub fn hidden() -> Self {
        Self {
            bar: ProgressBar::hidden(),
        }
    }

    fn styled(show: bool, length: Option<u64>, template: &str) -> Self {
        if !show {
            return Self::hidden();
        }
        let bar = ProgressBar::with_draw_target(length, ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style);
        }
        Self { bar }
    }

    /// `what` and the time spent, ticking on its own until finished.
    pub fn spinner(show: bool, what: &str) -> Self {
        let drawn = Self::styled(show, None, SPINNER);
        drawn.bar.set_message(what.to_string());
        drawn.bar.enable_steady_tick(TICK);
        drawn
    }

    /// A bar over steps counted one by one, with what is being done beside it.
    pub fn steps(show: bool) -> Self {
        Self::styled(show, Some(0), STEPS)
    }

    /// A bar over `total` units whose time left is `left_ms(fraction done, elapsed ms)`: a
    /// model's figure, never indicatif's guess from the first few units.
    pub fn with_eta(
        show: bool,
        total: u64,
        left_ms: impl Fn(f64, f64) -> f64 + Clone + Send + Sync + 'static,
    ) -> Self {
        if !show {
            return Self::hidden();
        }
        let bar = ProgressBar::with_draw_target(Some(total.max(1)), ProgressDrawTarget::stderr());
        let eta = move |state: &ProgressState, out: &mut dyn std::fmt::Write| {
            let elapsed_ms = state.elapsed().as_secs_f64() * 1e3;
            let left = left_ms(f64::from(state.fraction()), elapsed_ms);
            let _ = out.write_str(&units::duration_ms(left));
        };
        if let Ok(style) = ProgressStyle::with_template(ETA_BAR) {
            bar.set_style(style.with_key("left", eta));
        }
        bar.enable_steady_tick(TICK);
        Self { bar }
    }

    pub fn inc(&self, units: u64) {
        self.bar.inc(units);
    }

    pub fn set_message(&self, text: String) {
        self.bar.set_message(text);
    }

    pub fn finish_and_clear(&self) {
        self.bar.finish_and_clear();
    }

    #[cfg(test)]
    fn is_hidden(&self) -> bool {
        self.bar.is_hidden()
    }
}

impl Progress for Drawn {
    fn start(&self, steps: u64) {
        self.bar.set_position(0);
        self.bar.set_length(steps);
    }

    fn step(&self, steps: u64, what: &str) {
        self.bar.set_message(what.to_string());
        self.bar.inc(steps);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_templates_parse() {
        // A template indicatif refuses would leave the default style: no ETA from the model.
        for template in [SPINNER, STEPS, ETA_BAR] {
            assert!(ProgressStyle::with_template(template).is_ok(), "{template}");
        }
    }

    #[test]
    fn work_runs_once_whether_shown_or_not() {
        assert_eq!(while_working(false, "x", || 1), 1);
        assert_eq!(while_working(true, "x", || 2), 2);
    }

    #[test]
    fn hidden_when_not_shown() {
        assert!(Drawn::spinner(false, "x").is_hidden());
        assert!(Drawn::steps(false).is_hidden());
        assert!(Drawn::with_eta(false, 10, |_, _| 1.0).is_hidden());
    }
}
