//! One question put to the person (or answered by `--yes`), and what Ctrl-C at it leaves.

use super::engine::plan::Question;
use super::engine::staging::{command, how_to_continue};
use super::options::{Consent, Ui};
use super::run::Run;
use crate::base::error::{ExitCode, Failure, Result};
use std::path::Path;

/// The answer to `question`: `--yes`'s, or the person's; Ctrl-C says how to go on.
pub fn answer(run: &Run, question: &Question) -> Result<bool> {
    if run.args.consent == Consent::Yes {
        return Ok(question.with_yes);
    }
    let interrupted = || interrupted(run.source(), &run.destination, run.staging.path());
    crate::base::interrupt::check("").map_err(|_| interrupted())?;
    run.ui
        .confirm(&question.text, question.default)
        .map_err(|failure| match failure.code {
            ExitCode::Interrupted => interrupted(),
            _ => failure,
        })
}

/// Ctrl-C at a question: nothing was copied by this run; what an earlier one kept stays.
fn interrupted(source: &Path, destination: &Path, staging: &Path) -> Failure {
    Failure::interrupted(&format!(
        "the question was not answered; {}",
        after_interrupt(source, destination, staging)
    ))
}

/// What is left after Ctrl-C, and the exact commands to go on from there.
pub fn after_interrupt(source: &Path, destination: &Path, staging: &Path) -> String {
    if staging.exists() {
        how_to_continue(source, destination, staging)
    } else if destination.exists() {
        format!(
            "the verified copy is in place at {}.",
            destination.display()
        )
    } else {
        format!(
            "nothing was copied; run `{}` to start again.",
            command(source, destination, "")
        )
    }
}

/// A run that must ask and has nobody to ask refuses before any work: a walk of a slow mount
/// can take long. `command` is what the person typed (`migrate`, `migrate --sync`).
pub fn refuse_without_terminal(ui: &dyn Ui, consent: Consent, command: &str) -> Result<()> {
    if consent == Consent::Ask && !ui.interactive() {
        return Err(Failure::input(format!(
            "{command} asks before copying, and this is not a terminal; pass --yes to accept the plan (or --dry-run to see it)."
        )));
    }
    Ok(())
}
