//! Observations the unit tests of the verdict start from.

use crate::decide::observations::{Context, Observations};
use crate::host::mounts::MountKind;
use crate::measure::gitsettings::GitSettings;
use crate::model::Compared;
use std::path::PathBuf;

pub(crate) fn observations(kind: MountKind) -> Observations {
    Observations {
        path: PathBuf::from("/mnt/c/src/app"),
        home: Some(PathBuf::from("/home/me")),
        mount_kind: kind,
        wsl: true,
        git_status_ms: None,
        install_ms: None,
        tracked: Some(1000),
        dirs: 100,
        git: Some(GitSettings::default()),
        baseline_problem: None,
        context: Context::default(),
    }
}

pub(crate) fn with_git_status(kind: MountKind, current: f64, baseline: f64) -> Observations {
    Observations {
        git_status_ms: Some(Compared::exact(current, baseline)),
        ..observations(kind)
    }
}
