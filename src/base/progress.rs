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
const STEPS: &str = "{bar:30} {pos}/{len}{left}  {wide_msg}";
const ETA_BAR: &str = "{bar:30} {percent:>3}%  about {left} left  {msg}";

/// A phase shorter than this shows nothing: a spinner that flashes up and vanishes is noise.
pub const SHOW_AFTER: Duration = Duration::from_millis(300);

/// Runs `work` on this thread; when `show` and it lasts longer than [`SHOW_AFTER`], a spinner
/// labelled by `label`, asked for again every [`TICK`] (the scan counts its files and
/// directories as it goes), turns beside it until it returns, so no phase leaves the screen
/// blank.
fn while_showing<T>(show: bool, label: impl Fn() -> String + Sync, work: impl FnOnce() -> T) -> T {
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

/// The time left after `done` of `total` steps took `elapsed_ms`, at the same pace; None
/// before the first step is done (no pace yet) and after the last.
fn steps_left_ms(done: u64, total: u64, elapsed_ms: f64) -> Option<f64> {
    (done > 0 && done < total).then(|| elapsed_ms / done as f64 * (total - done) as f64)
}

/// How far a piece of work has got.
pub trait Progress: Sync {
    /// The work has `steps` steps in all (counted from zero again).
    fn start(&self, steps: u64);
    /// `steps` more are done; `what` is being worked on now.
    fn step(&self, steps: u64, what: &str);
    fn finish(&self);
    /// Runs `work`, once, whose length is not known beforehand, while `label` (asked for again
    /// as it goes) says what it does. [`working`] is the form that returns the work's result.
    fn during(&self, label: &(dyn Fn() -> String + Sync), work: &mut dyn FnMut());
}

/// Runs `work` through `progress` ([`Progress::during`]) and returns what it returned.
pub fn working<T>(
    progress: &dyn Progress,
    label: impl Fn() -> String + Sync,
    work: impl FnOnce() -> T,
) -> T {
    let mut work = Some(work);
    let mut result = None;
    progress.during(&label, &mut || {
        if let Some(work) = work.take() {
            result = Some(work());
        }
    });
    match (result, work) {
        (Some(result), _) => result,
        // A `during` that did not run its work: it runs here, unshown.
        (None, Some(work)) => work(),
        (None, None) => unreachable!("the work ran, so it returned"),
    }
}

/// Progress drawn on standard error with indicatif, or nothing when hidden.
#[derive(Debug, Clone)]
pub struct Drawn {
    bar: ProgressBar,
    /// Whether work of unknown length (`Progress::during`) gets a spinner.
    show: bool,
}

impl Drawn {
    pub fn hidden() -> Self {
        Self::phases(false)
    }

    /// No bar: a spinner for each phase of unknown length that lasts past [`SHOW_AFTER`], when
    /// `show` (`check`'s scan, probes and searches).
    pub fn phases(show: bool) -> Self {
        Self {
            bar: ProgressBar::hidden(),
            show,
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
        Self { bar, show }
    }

    /// `what` and the time spent, ticking on its own until finished.
    pub fn spinner(show: bool, what: &str) -> Self {
        let drawn = Self::styled(show, None, SPINNER);
        drawn.bar.set_message(what.to_string());
        drawn.bar.enable_steady_tick(TICK);
        drawn
    }

    /// A bar over steps counted one by one, with the time left at the pace so far (once a
    /// step is done) and what is being done beside it.
    pub fn steps(show: bool) -> Self {
        if !show {
            return Self::hidden();
        }
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        let left = |state: &ProgressState, out: &mut dyn std::fmt::Write| {
            let (done, total) = (state.pos(), state.len().unwrap_or(0));
            if let Some(ms) = steps_left_ms(done, total, state.elapsed().as_secs_f64() * 1e3) {
                let _ = write!(out, ", about {} left", units::duration_ms(ms));
            }
        };
        if let Ok(style) = ProgressStyle::with_template(STEPS) {
            bar.set_style(style.with_key("left", left));
        }
        // Ticking (and so drawing) starts with `start`: a bar of no steps yet is drawn full.
        Self { bar, show }
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
        Self { bar, show }
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
        // The length first: a position drawn against the old length (none yet) shows full.
        self.bar.set_length(steps);
        self.bar.set_position(0);
        if self.show {
            self.bar.enable_steady_tick(TICK);
        }
    }

    fn step(&self, steps: u64, what: &str) {
        self.bar.set_message(what.to_string());
        self.bar.inc(steps);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }

    fn during(&self, label: &(dyn Fn() -> String + Sync), work: &mut dyn FnMut()) {
        while_showing(self.show, label, work);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_left_is_the_pace_so_far() {
        assert_eq!(steps_left_ms(0, 4, 500.0), None);
        assert_eq!(steps_left_ms(1, 4, 500.0), Some(1500.0));
        assert_eq!(steps_left_ms(4, 4, 2000.0), None);
    }

    #[test]
    fn the_templates_parse() {
        // A template indicatif refuses would leave the default style: no ETA from the model.
        for template in [SPINNER, STEPS, ETA_BAR] {
            assert!(ProgressStyle::with_template(template).is_ok(), "{template}");
        }
    }

    #[test]
    fn work_runs_once_whether_shown_or_not() {
        let runs = std::sync::atomic::AtomicU32::new(0);
        let counted = || runs.fetch_add(1, Ordering::Relaxed) + 1;
        assert_eq!(working(&Drawn::hidden(), || "x".into(), counted), 1);
        assert_eq!(working(&Drawn::phases(true), || "x".into(), counted), 2);
        assert_eq!(working(&Drawn::steps(false), || "x".into(), counted), 3);
    }

    /// A `Progress` that forgets to run the work it is given.
    struct Forgetful;

    impl Progress for Forgetful {
        fn start(&self, _: u64) {}
        fn step(&self, _: u64, _: &str) {}
        fn finish(&self) {}
        fn during(&self, _: &(dyn Fn() -> String + Sync), _: &mut dyn FnMut()) {}
    }

    #[test]
    fn work_runs_even_where_the_progress_forgets_it() {
        assert_eq!(working(&Forgetful, || "x".into(), || 3), 3);
    }

    #[test]
    fn hidden_when_not_shown() {
        assert!(Drawn::spinner(false, "x").is_hidden());
        assert!(
            Drawn::phases(true).is_hidden(),
            "a spinner only while working"
        );
        assert!(Drawn::steps(false).is_hidden());
        assert!(Drawn::with_eta(false, 10, |_, _| 1.0).is_hidden());
    }
}
