//! One question put to the person (or answered by `--yes`), and what Ctrl-C at it leaves.

use super::options::{Options, Ui};
use super::plan::Question;
use super::staging::{command, how_to_continue};
use crate::base::error::{ExitCode, Failure, Result};
use std::path::Path;

/// The answer to `question`: `--yes`'s, or the person's; Ctrl-C says how to go on.
pub fn answer(
    ui: &dyn Ui,
    args: &Options,
    question: &Question,
    source: &Path,
    destination: &Path,
    staging: &Path,
) -> Result<bool> {
    if args.yes {
        return Ok(question.with_yes);
    }
    crate::base::interrupt::check("").map_err(|_| interrupted(source, destination, staging))?;
    ui.confirm(&question.text, question.default)
        .map_err(|failure| match failure.code {
            ExitCode::Interrupted => interrupted(source, destination, staging),
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
