//! The advice's words: what to do and why, for each kind the rules give.

use crate::base::pathtext::display;
use crate::base::reason::Worded;
use crate::base::units::{count, counted};
use crate::decide::advice::Advised;
use crate::host::mounts::MountKind;

impl Worded for Advised {
    /// One arm per kind, so a new kind cannot go unworded.
    fn sentence(&self) -> String {
        match self {
            Advised::SurveyTheRepositories {
                repositories,
                at_least,
            } => survey(*repositories, *at_least),
            Advised::Migrate => MIGRATE.into(),
            Advised::FinishMove { to } => format!(
                "finish the move to {} that was interrupted: what was copied and verified is kept",
                display(to)
            ),
            Advised::Virtiofs => VIRTIOFS.into(),
            Advised::WindowsTools { tools } => windows_tools(tools),
            Advised::FileWatching { watchers } => file_watching(watchers),
            Advised::Virtualenv { folder, files } => virtualenv(folder, *files),
            Advised::CargoTargetDir { folder, files } => cargo_target_dir(folder, *files),
            Advised::ConvertToWsl2 => CONVERT_TO_WSL2.into(),
            Advised::MigrateOnWsl1 { speedup } => format!(
                "staying on WSL 1, the Linux disk measured {speedup:.0}x faster for `git status` here"
            ),
            Advised::FsmonitorCannotWatch { mount_kind } => fsmonitor_cannot_watch(*mount_kind),
            Advised::Fsmonitor {
                git_version,
                tracked,
            } => fsmonitor(git_version, *tracked),
            Advised::ManyFiles { tracked } => many_files(*tracked),
            Advised::UntrackedCache { dirs } => untracked_cache(*dirs),
            Advised::PreloadIndexOff => PRELOAD_INDEX_OFF.into(),
            Advised::FinishInterrupted => FINISH_INTERRUPTED.into(),
            Advised::PutTheCopyBack => {
                "Put the copy back where it was made; then sync or work there.".into()
            }
            Advised::WorkInTheCopy => "Work in the copy.".into(),
            Advised::SyncTheEdits => SYNC_THE_EDITS.into(),
            Advised::SyncAnyEdits => "Copy any edits made here since to the copy.".into(),
        }
    }
}

const MIGRATE: &str = "move the repository to the Linux disk, verified, with `wsl-place migrate`";

const VIRTIOFS: &str = "if the files must stay on Windows, set `virtiofs=true` in \
     %UserProfile%\\.wslconfig and run `wsl --shutdown`: published figures show virtiofs 2-4x \
     faster than 9p, though still far slower than ext4";

const CONVERT_TO_WSL2: &str = "on WSL 1 the Linux file system is itself stored on NTFS, so \
     moving there is not the fix it is on WSL 2: converting the distribution to WSL 2 is (run it \
     in Windows; it keeps the distribution's files)";

const PRELOAD_INDEX_OFF: &str = "`core.preloadIndex` is off: on a high-latency mount git's \
     parallel lstat calls are what keeps `git status` bearable";

const FINISH_INTERRUPTED: &str = "Finish what was interrupted here first, with the command \
     below; nothing it did is lost.";

const SYNC_THE_EDITS: &str = "Copy the edits made here since to the copy (both versions are \
     kept where the copy changed too).";

fn survey(repositories: usize, at_least: bool) -> String {
    format!(
        "this folder is not in a git repository but holds {}{repositories} of them: \
         `wsl-place survey` judges each one",
        if at_least { "at least " } else { "" }
    )
}

fn windows_tools(tools: &[String]) -> String {
    format!(
        "Windows tools use this repository ({}): after moving, Windows editors reach it over \
         \\\\wsl.localhost, where Windows-side git is slow, so run git inside WSL, e.g. in VS \
         Code's WSL mode. If those Windows tools are its main ones, keeping it on Windows is the \
         better choice (on a Dev Drive, which speeds up Windows-native tools but not work from \
         WSL): `primary = \"windows\"` in its .wsl-place.toml says so",
        tools.join(", ")
    )
}

fn file_watching(watchers: &[String]) -> String {
    format!(
        "{} in package.json watch for changes, but inotify does not see edits made from Windows \
         on a Windows drive; on the Linux disk they see every edit",
        watchers.join(", ")
    )
}

fn virtualenv(folder: &std::path::Path, files: u64) -> String {
    format!(
        "the virtualenv {} ({}) is on this slow mount too: every `import` reads it here; moving \
         the repository means recreating it there (`uv sync`, or `python3 -m venv` and `pip \
         install -r`), and where the code must stay, uv can keep it on the Linux disk",
        display(folder),
        counted(files, "file", "files")
    )
}

fn cargo_target_dir(folder: &std::path::Path, files: u64) -> String {
    format!(
        "Cargo's {} ({}) is on this slow mount too: every build writes it here; where the \
         repository must stay, build on the Linux disk with CARGO_TARGET_DIR",
        display(folder),
        counted(files, "file", "files")
    )
}

fn fsmonitor_cannot_watch(mount_kind: MountKind) -> String {
    format!(
        "`core.fsmonitor` is set, but on {}: {}; turn it off here",
        mount_kind.describe(),
        why_fsmonitor_cannot_watch(mount_kind)
    )
}

fn fsmonitor(git_version: &str, tracked: u64) -> String {
    format!(
        "git {git_version} runs its fsmonitor daemon on Linux: with {tracked} tracked files, \
         `git status` then skips an lstat per file and re-reading unchanged directories"
    )
}

fn many_files(tracked: u64) -> String {
    format!(
        "{} tracked files: `feature.manyFiles` turns on index version 4, the skip-hash index \
         and the untracked cache",
        count(tracked)
    )
}

fn untracked_cache(dirs: u64) -> String {
    format!(
        "{} directories: `core.untrackedCache` lets git skip reading directories that did not \
         change when it looks for untracked files",
        count(dirs)
    )
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
