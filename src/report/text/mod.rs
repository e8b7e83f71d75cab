//! Wording shared by the formats: the cells, lines and phrases that the human, markdown and
//! GitHub renderings of one report lay out differently.

pub mod advice;
pub mod doctor;
pub mod fixups;
pub mod git_problems;
pub mod migrate;
pub mod old_place;
pub mod policy;
pub mod probe;
pub mod probe_reasons;
pub mod removal;
pub mod sample_reasons;
pub mod skipped;
pub mod survey;
pub mod verdict;
pub mod verify;
pub mod windows;

use crate::assess::pipeline::CheckReport;

/// `check`'s first line for a folder outside any git repository, pointing to `survey` when it
/// holds some ("at least" when the search for them stopped at its budget); None in a repository.
pub fn not_a_repository(report: &CheckReport) -> Option<String> {
    if report.scan.git.is_some() || !report.scan.error.is_none() {
        return None;
    }
    let path = report.location.paths.linux.display();
    Some(match report.repositories_below {
        Some(n) => {
            let at_least = if report.repositories_below_complete == Some(false) {
                "at least "
            } else {
                ""
            };
            let noun = if n == 1 { "repository" } else { "repositories" };
            format!(
                "{path} is not a git repository but holds {at_least}{n} {noun}: `wsl-place survey` judges each one"
            )
        }
        None => format!("{path} is not in a git repository"),
    })
}

/// `text` with its first letter in upper case, to begin a sentence.
/// No `git` on `PATH` answered `git --version`: the figures stand, but nothing of git's own ran.
pub const NO_GIT: &str = "no git on PATH answered (or only Windows' git.exe): git status is predicted from the model and the index alone, and git's own start-up was not measured; install git inside WSL (sudo apt install git) to have it timed";

pub fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// "; the median of the last 3 checks here" after a figure that is one (`checks` >=
/// `MEDIAN_FROM_CHECKS`), else nothing: the same words as the verdict's reasons, so a reader
/// sees which figures are medians.
pub fn median_note(checks: usize) -> String {
    if checks >= crate::decide::policy::MEDIAN_FROM_CHECKS {
        format!("; the median of the last {checks} checks here")
    } else {
        String::new()
    }
}
