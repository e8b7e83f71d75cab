//! The advice's words: what to do and why, for each kind the rules give.

use crate::base::pathtext::display;
use crate::base::reason::Worded;
use crate::base::units::{count, counted};
use crate::decide::advice::Advised;
use crate::host::mounts::MountKind;

impl Worded for Advised {
    fn sentence(&self) -> String {
        moving(self)
            .or_else(|| git_tuning(self))
            .or_else(|| at_old_place(self))
            .unwrap_or_default()
    }
}

/// Moving, and what moving changes or keeps.
fn moving(advised: &Advised) -> Option<String> {
    let said = match advised {
        Advised::SurveyTheRepositories {
            repositories,
            at_least,
        } => format!(
            "this folder is not in a git repository but holds {}{repositories} of them: \
             `wsl-place survey` judges each one",
            if *at_least { "at least " } else { "" }
        ),
        Advised::Migrate => {
            "move the repository to the Linux disk, verified, with `wsl-place migrate`".into()
        }
        Advised::FinishMove { to } => format!(
            "finish the move to {} that was interrupted: what was copied and verified is kept",
            display(to)
        ),
        Advised::Virtiofs => "if the files must stay on Windows, set `virtiofs=true` in \
             %UserProfile%\\.wslconfig and run `wsl --shutdown`: published figures show \
             virtiofs 2-4x faster than 9p, though still far slower than ext4"
            .into(),
        Advised::WindowsTools { tools } => format!(
            "Windows tools use this repository ({}): after moving, Windows editors reach it over \
             \\\\wsl.localhost, where Windows-side git is slow, so run git inside WSL, e.g. in \
             VS Code's WSL mode. If those Windows tools are its main ones, keeping it on \
             Windows is the better choice (on a Dev Drive, which speeds up Windows-native \
             tools but not work from WSL): `primary = \"windows\"` in its .wsl-place.toml \
             says so",
            tools.join(", ")
        ),
        Advised::FileWatching { watchers } => format!(
            "{} in package.json watch for changes, but inotify does not see edits made from \
             Windows on a Windows drive; on the Linux disk they see every edit",
            watchers.join(", ")
        ),
        Advised::Virtualenv { folder, files } => format!(
            "the virtualenv {} ({}) is on this slow mount too: every `import` reads it here; \
             moving the repository means recreating it there (`uv sync`, or `python3 -m venv` \
             and `pip install -r`), and where the code must stay, uv can keep it on the Linux \
             disk",
            display(folder),
            counted(*files, "file", "files")
        ),
        Advised::CargoTargetDir { folder, files } => format!(
            "Cargo's {} ({}) is on this slow mount too: every build writes it here; where the \
             repository must stay, build on the Linux disk with CARGO_TARGET_DIR",
            display(folder),
            counted(*files, "file", "files")
        ),
        Advised::ConvertToWsl2 => "on WSL 1 the Linux file system is itself stored on NTFS, \
             so moving there is not the fix it is on WSL 2: converting the distribution to WSL \
             2 is (run it in Windows; it keeps the distribution's files)"
            .into(),
        Advised::MigrateOnWsl1 { speedup } => format!(
            "staying on WSL 1, the Linux disk measured {speedup:.0}x faster for `git status` here"
        ),
        _ => return None,
    };
    Some(said)
}

/// git's own settings that make `git status` cheaper.
fn git_tuning(advised: &Advised) -> Option<String> {
    let said = match advised {
        Advised::FsmonitorCannotWatch { mount_kind } => format!(
            "`core.fsmonitor` is set, but on {}: {}; turn it off here",
            mount_kind.describe(),
            why_fsmonitor_cannot_watch(*mount_kind)
        ),
        Advised::Fsmonitor {
            git_version,
            tracked,
        } => format!(
            "git {git_version} runs its fsmonitor daemon on Linux: with {tracked} tracked \
             files, `git status` then skips an lstat per file and re-reading unchanged \
             directories"
        ),
        Advised::ManyFiles { tracked } => format!(
            "{} tracked files: `feature.manyFiles` turns on index version 4, the skip-hash \
             index and the untracked cache",
            count(*tracked)
        ),
        Advised::UntrackedCache { dirs } => format!(
            "{} directories: `core.untrackedCache` lets git skip reading directories that did \
             not change when it looks for untracked files",
            count(*dirs)
        ),
        Advised::PreloadIndexOff => "`core.preloadIndex` is off: on a high-latency mount \
             git's parallel lstat calls are what keeps `git status` bearable"
            .into(),
        _ => return None,
    };
    Some(said)
}

/// What follows at the old place of a finished migration.
fn at_old_place(advised: &Advised) -> Option<String> {
    let said = match advised {
        Advised::FinishInterrupted => "Finish what was interrupted here first, with the \
             command below; nothing it did is lost."
            .into(),
        Advised::PutTheCopyBack => {
            "Put the copy back where it was made; then sync or work there.".into()
        }
        Advised::WorkInTheCopy => "Work in the copy.".into(),
        Advised::SyncTheEdits => "Copy the edits made here since to the copy (both versions \
             are kept where the copy changed too)."
            .into(),
        Advised::SyncAnyEdits => "Copy any edits made here since to the copy.".into(),
        _ => return None,
    };
    Some(said)
}

fn why_fsmonitor_cannot_watch(kind: MountKind) -> &'static str {
    match kind {
        MountKind::Network | MountKind::Fuse => {
            "git treats network and FUSE file systems as remote and will not watch them unless \
             `fsmonitor.allowRemote` is set, and their changes made elsewhere raise no events here"
        }
        _ => {
            "inotify inside WSL does not see edits made from Windows on a Windows drive, so git \
             could miss changes"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_advice_says_what_its_data_holds() {
        let venv = Advised::Virtualenv {
            folder: ".venv".into(),
            files: 4_915,
        };
        assert!(venv.sentence().contains(".venv (4,915 files)"));
        let target = Advised::CargoTargetDir {
            folder: "target".into(),
            files: 1,
        };
        assert!(target.sentence().contains("target (1 file)"));
        let watchers = Advised::FileWatching {
            watchers: vec!["vite".into(), "nodemon".into()],
        };
        assert!(watchers.sentence().starts_with("vite, nodemon"));
        let tools = Advised::WindowsTools {
            tools: vec!["a Visual Studio solution (.sln)".into()],
        };
        assert!(tools.sentence().contains("wsl.localhost"));
        assert!(Advised::ConvertToWsl2.sentence().contains("not the fix"));
    }

    #[test]
    fn fsmonitor_where_it_cannot_watch_says_why_for_that_mount() {
        let on = |mount_kind| Advised::FsmonitorCannotWatch { mount_kind }.sentence();
        assert!(on(MountKind::WslDrvfs9p).contains("edits made from Windows"));
        assert!(on(MountKind::Network).contains("fsmonitor.allowRemote"));
        assert!(on(MountKind::Fuse).contains("a FUSE file system"));
    }
}
