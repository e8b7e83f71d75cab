//! The git settings that change what `git status` costs, as git itself resolves them
//! (repository, global and system configuration together).

use serde::Serialize;
use std::path::Path;
use std::process::Command;

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

/// `None` when `root` is not a git worktree or git cannot be run.
pub fn read(root: &Path) -> Option<GitSettings> {
    if !root.join(".git").exists() {
        return None;
    }
    let output = Command::new("git")
        .arg("-C")
        .arg(root)
        .args([
            "config",
            "--get-regexp",
            r"^(core\.untrackedcache|feature\.manyfiles|core\.preloadindex|index\.version|core\.fsmonitor|core\.filemode|core\.autocrlf)$",
        ])
        .output()
        .ok()?;
    // Exit code 1 means "none of them is set", which is an answer, not a failure.
    if !output.status.success() && output.status.code() != Some(1) {
        return None;
    }
    Some(parse(&String::from_utf8_lossy(&output.stdout)))
}

/// Parses `git config --get-regexp` output; the last value of a key wins, as in git.
pub fn parse(text: &str) -> GitSettings {
    let mut settings = GitSettings::default();
    for line in text.lines() {
        let (key, value) = line.split_once(' ').unwrap_or((line, "true"));
        let value = Some(value.trim().to_string());
        match key.to_ascii_lowercase().as_str() {
            "core.untrackedcache" => settings.untracked_cache = value,
            "feature.manyfiles" => settings.many_files = value,
            "core.preloadindex" => settings.preload_index = value,
            "index.version" => settings.index_version = value,
            "core.fsmonitor" => settings.fsmonitor = value,
            "core.filemode" => settings.file_mode = value,
            "core.autocrlf" => settings.autocrlf = value,
            _ => {}
        }
    }
    settings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_get_regexp_output() {
        let settings =
            parse("core.untrackedcache false\nfeature.manyfiles true\ncore.untrackedcache true\n");
        assert_eq!(settings.untracked_cache.as_deref(), Some("true"));
        assert_eq!(settings.many_files.as_deref(), Some("true"));
        assert_eq!(settings.preload_index, None);
    }

    #[test]
    fn a_key_without_value_is_true() {
        assert_eq!(
            parse("core.preloadindex\n").preload_index.as_deref(),
            Some("true")
        );
    }
}
