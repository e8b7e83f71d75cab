//! Timing the real `git status` a prediction is checked against (`check --verify`, and the
//! first status at a migration's copy). Nothing in the repository is written:
//! `--no-optional-locks` keeps git from refreshing the index.

use crate::base::process::Stop;
use crate::base::reason::Keyed;
use crate::host::git;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// How many times `check --verify` runs `git status`: the median of three is what the report
/// gives, so one run slowed by something else on the machine does not decide it.
pub const VERIFY_RUNS: usize = 3;

/// The command as the report names it.
pub const GIT_STATUS_COMMAND: &str = "git --no-optional-locks status";

/// What timing `git status` took, each run and their median.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatusTiming {
    /// The command timed, as a person would type it.
    pub command: &'static str,
    pub runs_ms: Vec<f64>,
    pub median_ms: f64,
    /// Index entries git read again on every run because they are racily clean
    /// (`gitindex::racily_clean`): right after a checkout or clone, until git next writes the
    /// index. Such a timing is not what the repository costs in use and is not recorded.
    #[serde(skip_serializing_if = "crate::base::counts::is_zero_count")]
    pub racily_clean: u64,
    /// The repository's own clean filters git ran without (`host::git`): the timing is of a
    /// status that did not run them, and files they would change may count as modified.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub filters_not_run: Vec<String>,
    /// The machine's 1-minute load average over its cores when timed (None: not read). Past
    /// `store::accuracy::LOADED_PER_CORE` the timing is kept in the record but corrects nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_per_core: Option<f64>,
}

/// The racily clean entries of the repository at `repository`'s index (0 outside one).
pub fn racily_clean_entries(repository: &Path, automount_root: &Path) -> u64 {
    match crate::measure::gitindex::discover(repository, automount_root) {
        Ok(Some(repo)) => crate::measure::gitindex::racily_clean(&repo),
        _ => 0,
    }
}

/// Why `git status` could not be timed in a repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Unmeasured {
    /// The repository's git settings could not be read to run git safely there; `said` is
    /// what `host::git::defuse` found.
    NotDefused { said: String },
    /// git did not start; `error` is the system's own words.
    NotStarted { error: String },
    /// git ran past its limit and was stopped, with what it started.
    StoppedAtLimit {
        #[serde(with = "crate::base::pathtext::json")]
        repository: PathBuf,
        limit_ms: u64,
    },
    /// Ctrl-C stopped it.
    Interrupted {
        #[serde(with = "crate::base::pathtext::json")]
        repository: PathBuf,
    },
    /// git ran and failed there; `said` is the first line it wrote.
    GitFailed { said: String },
    /// The old place of a migration: nothing is predicted there, the repository is `copy` now.
    OldPlace {
        #[serde(with = "crate::base::pathtext::json")]
        copy: PathBuf,
    },
}

impl Keyed for Unmeasured {
    const KEY: &'static str = "failed";
    const KIND_KEY: &'static str = "failed_kind";
}

impl Unmeasured {
    fn stopped(stop: Stop, repository: &Path) -> Self {
        let repository = repository.to_path_buf();
        match stop {
            Stop::Start(e) => Unmeasured::NotStarted {
                error: e.to_string(),
            },
            Stop::Limit(limit) => Unmeasured::StoppedAtLimit {
                repository,
                limit_ms: limit.as_millis() as u64,
            },
            Stop::Interrupted => Unmeasured::Interrupted { repository },
        }
    }
}

/// Times `runs` runs of `git --no-optional-locks status` in `repository`, each stopped past
/// [`git::work_limit`] of `predicted_ms`; Err says why it could not (git missing, failing there
/// with its own reason, or stopped), and no run follows one stopped.
pub fn time_git_status(
    repository: &Path,
    runs: usize,
    predicted_ms: Option<f64>,
) -> Result<StatusTiming, Unmeasured> {
    let defused = git::defuse(repository).map_err(|said| Unmeasured::NotDefused { said })?;
    let limit = git::work_limit(predicted_ms);
    let mut runs_ms = Vec::with_capacity(runs);
    for _ in 0..runs.max(1) {
        let mut cmd = git::in_repo(repository, &defused);
        cmd.args(["--no-optional-locks", "status"])
            .env("GIT_OPTIONAL_LOCKS", "0");
        let started = Instant::now();
        let output = git::run(cmd, limit).map_err(|stop| Unmeasured::stopped(stop, repository))?;
        let elapsed = started.elapsed().as_secs_f64() * 1000.0;
        if !output.status.success() {
            let said = git::first_line(&output.stderr);
            return Err(Unmeasured::GitFailed { said });
        }
        runs_ms.push(elapsed);
        if crate::base::interrupt::requested() {
            break;
        }
    }
    Ok(StatusTiming {
        racily_clean: 0,
        command: GIT_STATUS_COMMAND,
        median_ms: crate::measure::stats::median(&runs_ms).unwrap_or(0.0),
        runs_ms,
        filters_not_run: defused.filters_not_run.clone(),
        load_per_core: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_a_repository_git_says_why() {
        let tmp = tempfile::tempdir().unwrap();
        let err = time_git_status(tmp.path(), 1, None).unwrap_err();
        assert!(
            matches!(&err, Unmeasured::GitFailed { said } if !said.is_empty()),
            "{err:?}"
        );
    }
}
