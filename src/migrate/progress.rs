//! What a migration shows on standard error while it works: a spinner for a phase whose
//! length nobody measured, a bar with the model's ETA where the model priced the work. Hidden
//! (drawing nothing) when the command layer says no: not a terminal, `-q`, JSON.

use crate::base::units;
use crate::model::migration;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::time::Duration;

const TICK: Duration = Duration::from_millis(100);
const SPINNER: &str = "{spinner} {msg} ({elapsed})";
const BAR: &str = "{bar:30} {percent:>3}%  about {left} left  {msg}";

/// A spinner with `what` and the time spent, ticking on its own until finished.
pub fn spinner(show: bool, what: &str) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(SPINNER) {
        bar.set_style(style);
    }
    bar.set_message(what.to_string());
    bar.enable_steady_tick(TICK);
    bar
}

/// A bar over `total` units of the model's weight for a phase the model put at `predicted_ms`:
/// the ETA is the model's, corrected by the pace only as the work done grows
/// (`migration::eta_ms`), never indicatif's guess from the first few files.
pub fn bar(show: bool, total: u64, predicted_ms: f64) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total.max(1)), ProgressDrawTarget::stderr());
    let eta = move |state: &ProgressState, out: &mut dyn std::fmt::Write| {
        let elapsed_ms = state.elapsed().as_secs_f64() * 1e3;
        let left = migration::eta_ms(predicted_ms, f64::from(state.fraction()), elapsed_ms);
        let _ = out.write_str(&units::duration_ms(left));
    };
    if let Ok(style) = ProgressStyle::with_template(BAR) {
        bar.set_style(style.with_key("left", eta));
    }
    bar.enable_steady_tick(TICK);
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_templates_parse() {
        // A template indicatif refuses would leave the default style: no ETA from the model.
        assert!(ProgressStyle::with_template(SPINNER).is_ok());
        assert!(ProgressStyle::with_template(BAR).is_ok());
    }

    #[test]
    fn hidden_when_not_shown() {
        assert!(spinner(false, "x").is_hidden());
        assert!(bar(false, 10, 1000.0).is_hidden());
    }
}
