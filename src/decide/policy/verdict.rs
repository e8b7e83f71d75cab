//! The verdict as a value: its level, the reasons and advice behind it, how firm it is, and the
//! predictions it weighed. How it is reached is in `rules` and `steady`.

use crate::base::reason::{Keyed, Said};
use crate::decide::advice::Advice;
use crate::host::mounts::MountKind;
use serde::{Deserialize, Serialize};

/// The levels of a verdict, in order. `Moved` (the old place of a finished migration) ranks
/// above `Advise` and below `Move`: `--fail-on advise` blocks a commit there, `--fail-on move`
/// does not (moving is done; the edits made here since are what is at stake).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    Ok,
    Advise,
    Moved,
    Move,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Ok => "ok",
            Level::Advise => "advise",
            Level::Moved => "moved",
            Level::Move => "move",
        }
    }
}

/// Which rule gave a reason: a stable identifier for scripts, in JSON the kebab-case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    MountKind,
    GitStatus,
    Install,
    Wsl1,
    Ignored,
    /// Kept on Windows by choice (`primary = "windows"`, `paths.windows_primary`).
    WindowsPrimary,
    /// The last verdict, kept because this run's ranges still support it.
    Kept,
    /// The old place of a finished migration.
    Moved,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reason {
    pub level: Level,
    pub rule: Rule,
    /// In JSON its sentence under `message` and the kind with its data under `message_kind`
    /// (worded in `report/text/verdict.rs`).
    #[serde(flatten)]
    pub message: Said<Why>,
}

/// Why a rule gave its level, with the figures it weighed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Why {
    /// The policy keeps the repository on Windows.
    KeptOnWindows { by: WindowsChoice },
    /// A `paths.ignore` pattern of the policy names the path.
    Ignored {
        #[serde(with = "crate::base::pathtext::json")]
        path: std::path::PathBuf,
    },
    /// A prediction past a threshold: here, its range, on the Linux disk, the speed-up, and
    /// the checks whose median it is (None: this run's alone).
    Predicted {
        of: Predicts,
        current_ms: f64,
        low_ms: Option<f64>,
        high_ms: f64,
        baseline_ms: f64,
        speedup: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        median_of_checks: Option<usize>,
    },
    /// The mount's kind alone.
    OnMount { mount_kind: MountKind },
    /// WSL 1, where the Linux disk is NTFS too.
    Wsl1 { git_status_ms: f64 },
    /// The last check's level, kept because this run's ranges still reach it.
    KeptPrevious {
        kept: Level,
        low: Level,
        high: Level,
    },
    /// The old place of a finished migration, as it says itself.
    Moved {
        #[serde(with = "crate::base::pathtext::json")]
        destination: std::path::PathBuf,
        #[serde(skip)]
        old: Box<crate::measure::changes::OldPlace>,
    },
}

impl Keyed for Why {
    const KEY: &'static str = "message";
    const KIND_KEY: &'static str = "message_kind";
}

/// Which of the policy's settings keeps a repository on Windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowsChoice {
    /// `primary = "windows"`.
    Primary,
    /// A `paths.windows_primary` pattern.
    PathPattern,
}

/// What a prediction is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Predicts {
    GitStatus,
    Install,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub level: Level,
    pub reasons: Vec<Reason>,
    pub advice: Vec<Advice>,
    /// `firm` when every figure's whole range gives the same level; `near-threshold` when the
    /// ranges straddle a threshold (then `levels` holds more than one level).
    pub confidence: Confidence,
    /// The lowest and highest level the ranges of the predictions support.
    pub levels: [Level; 2],
    /// The level is the previous check's, kept because this run's ranges still support it:
    /// noise does not flip a verdict.
    pub kept_previous: bool,
    /// From the hook's short cold measurement: replaced by the next full `check`, and never
    /// fails a run under `--fail-on`.
    pub provisional: bool,
    /// The predictions of the last checks here, this one last (at most `RECENT_CHECKS`): the
    /// verdict weighs their medians, so one run caught in a stall does not decide it.
    pub recent: Vec<Recent>,
    /// The git status and install figures the verdict weighed: what every report shows, so the
    /// headline, the table and the reasons agree.
    pub weighed: Vec<Weighed>,
}

/// A figure as the verdict weighed it: `[here, on the baseline]` in milliseconds, the medians
/// over `checks` checks here (1: this run's prediction alone).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Weighed {
    pub rule: Rule,
    pub here_ms: f64,
    pub baseline_ms: f64,
    pub checks: usize,
}

/// One check's predictions as a verdict weighs them: `[here, on the baseline]`, milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Recent {
    pub git_status_ms: Option<[f64; 2]>,
    pub install_ms: Option<[f64; 2]>,
    /// From the hook's short cold measurement: kept so the hook's own verdict is weighed, but
    /// never part of the median of full checks (a 41 s first look beside a measured 119 s
    /// would show 80 s, a figure nothing measured).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub first_look: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Confidence {
    Firm,
    NearThreshold,
}

impl Confidence {
    /// Firm when the lowest and highest supported levels are the same.
    pub(super) fn of([low, high]: [Level; 2]) -> Self {
        if low == high {
            Confidence::Firm
        } else {
            Confidence::NearThreshold
        }
    }
}

impl Verdict {
    pub(crate) fn plain(level: Level, reasons: Vec<Reason>, advice: Vec<Advice>) -> Self {
        Self {
            level,
            reasons,
            advice,
            confidence: Confidence::Firm,
            levels: [level, level],
            kept_previous: false,
            provisional: false,
            recent: Vec::new(),
            weighed: Vec::new(),
        }
    }
}
