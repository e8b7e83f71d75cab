//! Why `git status` could not be timed, in words.

use crate::base::pathtext::{display, shell_quote};
use crate::base::reason::Worded;
use crate::base::units;
use crate::measure::verify::Unmeasured;

impl Worded for Unmeasured {
    fn sentence(&self) -> String {
        match self {
            Unmeasured::NotDefused { said } => said.clone(),
            Unmeasured::NotStarted { error } => format!("cannot run git status ({error})"),
            Unmeasured::StoppedAtLimit {
                repository,
                limit_ms,
            } => format!(
                "git status in {} did not finish within {}; it was stopped",
                display(repository),
                units::duration_ms(*limit_ms as f64)
            ),
            Unmeasured::Interrupted { repository } => {
                format!("git status in {} was interrupted", display(repository))
            }
            Unmeasured::GitFailed { said } => format!("git status failed there: {said}"),
            Unmeasured::OldPlace { copy } => format!(
                "this is the old place of a migration, where nothing is predicted to verify; the repository is the copy now: run `wsl-place check --verify {}`",
                shell_quote(copy)
            ),
        }
    }
}
