//! The git settings that change what `git status` costs, as git itself resolves them
//! (repository, global and system configuration together).

use serde::Serialize;
use std::path::Path;

/// Git settings that change what `git status` costs; `None` where unset.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GitSettings {
    pub untracked_cache: Option<String>,
    pub many_files: Option<String>,
    pub preload_index: Option<String>,
    pub index_version: Option<String>,
    /// `core.fsmonitor`: `true`, `false`, or a hook's path.
    pub fsmonitor: Option<String>,
    pub file_mode: Option<String>,
    pub autocrlf: Option<String>,
}

/// A git boolean that is true: `true`, `yes`, `on`, `1`, in any case, as git reads them.
pub fn is_true(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "true" | "yes" | "on" | "1"
    )
}

/// A git boolean that is false: `false`, `no`, `off`, `0`, in any case.
pub fn is_false(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "false" | "no" | "off" | "0"
    )
}

/// The keys, as `git config` names them; each is read as git resolves it (system, global,
/// repository and worktree configuration, includes followed, the last value winning).
const KEYS: [&str; 7] = [
    "core.untrackedCache",
    "feature.manyFiles",
    "core.preloadIndex",
    "index.version",
    "core.fsmonitor",
    "core.fileMode",
    "core.autocrlf",
];

/// `None` when `root` is not a git worktree or its configuration cannot be read. Read in
/// process (gix) rather than by starting `git config`: on the Linux disk that start is a
/// third of a small repository's whole `git status`.
pub fn read(root: &Path) -> Option<GitSettings> {
    if !root.join(".git").exists() {
        return None;
    }
    let repo = super::gitopen::open(root)?;
    let config = repo.config_snapshot();
    let file = config.plumbing();
    let mut values = KEYS.iter().map(|key| {
        file.string(*key)
            .map(|value| value.to_string())
            .or_else(|| {
                // A key without `=` has no string: git's implicit true.
                file.boolean(*key)
                    .ok()
                    .flatten()
                    .map(|value| value.to_string())
            })
    });
    let mut next = || values.next().flatten();
    Some(GitSettings {
        untracked_cache: next(),
        many_files: next(),
        preload_index: next(),
        index_version: next(),
        fsmonitor: next(),
        file_mode: next(),
        autocrlf: next(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_git_config_resolves_in_a_real_repository() {
        let dir = tempfile::tempdir().expect("temp dir");
        let git = |args: &[&str]| {
            let ok = crate::base::process::command("git")
                .arg("-C")
                .arg(dir.path())
                .args(args)
                .output()
                .is_ok_and(|o| o.status.success());
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q"]);
        git(&["config", "core.untrackedCache", "false"]);
        git(&["config", "feature.manyFiles", "yes"]);
        git(&["config", "core.fsmonitor", "/usr/bin/hook"]);
        let config = dir.path().join(".git/config");
        let text = std::fs::read_to_string(&config).expect("config");
        // A key without a value, which `git config` cannot write: git's implicit true.
        std::fs::write(&config, text + "[core]\n\tpreloadIndex\n").expect("write config");
        let settings = read(dir.path()).expect("settings");
        assert_eq!(settings.untracked_cache.as_deref(), Some("false"));
        assert_eq!(settings.many_files.as_deref(), Some("yes"));
        assert_eq!(settings.fsmonitor.as_deref(), Some("/usr/bin/hook"));
        assert_eq!(settings.preload_index.as_deref(), Some("true"));
        assert_eq!(settings.index_version, None);
        assert_eq!(read(&dir.path().join("missing")), None);
    }
}
