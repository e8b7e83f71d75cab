//! Why `git status` could not be timed, in words.

use crate::base::pathtext::shell_quote;
use crate::base::process::Stop;
use crate::base::reason::Worded;
use crate::measure::verify::Unmeasured;
use std::path::Path;
use std::time::Duration;

impl Worded for Unmeasured {
    fn sentence(&self) -> String {
        match self {
            Unmeasured::NotDefused { said } => said.clone(),
            // A stopped run is said as every stopped run is (`Stop::sentence`).
            Unmeasured::NotStarted { error } => Stop::Start(std::io::Error::other(error.clone()))
                .sentence("git status", Path::new("")),
            Unmeasured::StoppedAtLimit {
                repository,
                limit_ms,
            } => Stop::Limit(Duration::from_millis(*limit_ms)).sentence("git status", repository),
            Unmeasured::Interrupted { repository } => {
                Stop::Interrupted.sentence("git status", repository)
            }
            Unmeasured::GitFailed { said } => format!("git status failed there: {said}"),
            Unmeasured::OldPlace { copy } => format!(
                "this is the old place of a migration, where nothing is predicted to verify; the repository is the copy now: run `wsl-place check --verify {}`",
                shell_quote(copy)
            ),
        }
    }
}
