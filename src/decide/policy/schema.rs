//! The policy file's schema and its defaults: what each key means and the value it takes
//! when a file leaves it out; also where a policy came from and what its paths expand to.

use crate::host::mounts::MountKind;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The policy shipped as `policies/default.toml`: the tests hold it equal to the built-in one.
#[cfg(test)]
pub const DEFAULT_POLICY: &str = include_str!("../../../policies/default.toml");
/// The name of a repository's own policy file, at its root.
pub const REPOSITORY_POLICY: &str = ".wsl-place.toml";

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Thresholds {
    pub advise_git_status_ms: f64,
    pub advise_speedup: f64,
    pub move_git_status_ms: f64,
    pub move_speedup: f64,
    pub advise_install_ms: f64,
    pub move_install_ms: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self {
            advise_git_status_ms: 150.0,
            advise_speedup: 4.0,
            move_git_status_ms: 800.0,
            move_speedup: 20.0,
            advise_install_ms: 30_000.0,
            move_install_ms: 120_000.0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Mounts {
    pub acceptable: Vec<MountKind>,
    pub advise: Vec<MountKind>,
    #[serde(rename = "move")]
    pub move_: Vec<MountKind>,
}

impl Default for Mounts {
    fn default() -> Self {
        use MountKind::*;
        Self {
            acceptable: vec![Local, Tmpfs, Overlay, Wsl1Lxfs, Other],
            advise: vec![WslDrvfsVirtiofs, Network, Fuse],
            move_: vec![WslDrvfs9p, Wsl1Drvfs],
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Paths {
    pub ignore: Vec<String>,
    /// Glob patterns of repositories kept on Windows by choice: Windows-native tools are their
    /// main ones (as `primary = "windows"` says for one repository).
    pub windows_primary: Vec<String>,
}

/// Which side's tools a repository mainly serves: on `windows`, a repository on a Windows drive
/// stays there by choice and the verdict is `ok`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Primary {
    #[default]
    Linux,
    Windows,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Advisory {
    pub max_age_hours: f64,
}

impl Default for Advisory {
    fn default() -> Self {
        Self {
            max_age_hours: 168.0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Migrate {
    pub destination: String,
}

impl Default for Migrate {
    fn default() -> Self {
        Self {
            destination: "~/src".to_string(),
        }
    }
}

/// Git settings the advice depends on.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Git {
    /// Tracked files from which git's fsmonitor daemon is advised on the Linux disk (git >= 2.55).
    pub fsmonitor_min_tracked: u64,
}

impl Default for Git {
    fn default() -> Self {
        Self {
            fsmonitor_min_tracked: 10_000,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Policy {
    /// `windows`: Windows-native tools are this repository's main ones, so it stays on Windows.
    pub primary: Primary,
    pub thresholds: Thresholds,
    pub mounts: Mounts,
    pub git: Git,
    pub paths: Paths,
    pub advisory: Advisory,
    pub migrate: Migrate,
}

/// Where a policy came from, for the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "path", rename_all = "kebab-case")]
pub enum PolicySource {
    BuiltIn,
    File(#[serde(with = "crate::base::pathtext::json")] PathBuf),
    Repository(#[serde(with = "crate::base::pathtext::json")] PathBuf),
}

impl Policy {
    pub fn built_in() -> Self {
        // The embedded file is checked by a unit test to parse to exactly `Policy::default()`.
        Self::default()
    }

    /// This policy as a repository's own `.wsl-place.toml` may have it (`source`): a repository
    /// is untrusted input, so it may tune thresholds, mounts, paths and the advisory, never name
    /// a place outside itself to write to. A repository's `[migrate]` is put back to the
    /// built-in one, with the sentence that says so; other sources are taken whole.
    pub fn as_trusted(self, source: &PolicySource) -> (Self, Option<String>) {
        let PolicySource::Repository(file) = source else {
            return (self, None);
        };
        if self.migrate == Migrate::default() {
            return (self, None);
        }
        let note = format!(
            "{} sets [migrate] destination = {:?}; ignored: a repository may not choose where wsl-place writes outside it (set `destination` in ~/.config/wsl-place/config.toml, or pass --to).",
            crate::base::pathtext::display(file),
            self.migrate.destination
        );
        (
            Self {
                migrate: Migrate::default(),
                ..self
            },
            Some(note),
        )
    }

    /// The folder `migrate` puts repositories in (`<root>/<name>`): `~` is the home directory and
    /// a relative destination is relative to it too, never to wherever the command was started.
    pub fn migrate_root(&self, home: Option<&Path>) -> Option<PathBuf> {
        let destination = &self.migrate.destination;
        if Path::new(destination).is_absolute() {
            return Some(PathBuf::from(destination));
        }
        let rest = destination
            .strip_prefix('~')
            .unwrap_or(destination)
            .trim_start_matches('/');
        Some(home?.join(rest))
    }

    pub(super) fn is_ignored(&self, path: &Path, home: Option<&Path>) -> bool {
        matches_any(&self.paths.ignore, path, home)
    }

    /// Kept on Windows by choice: `primary = "windows"`, or a `paths.windows_primary` pattern.
    pub(super) fn windows_primary(
        &self,
        path: &Path,
        home: Option<&Path>,
    ) -> Option<super::WindowsChoice> {
        if self.primary == Primary::Windows {
            return Some(super::WindowsChoice::Primary);
        }
        matches_any(&self.paths.windows_primary, path, home)
            .then_some(super::WindowsChoice::PathPattern)
    }
}

/// Whether `path` matches one of the glob `patterns` (`~` is the home folder).
fn matches_any(patterns: &[String], path: &Path, home: Option<&Path>) -> bool {
    let mut builder = globset::GlobSetBuilder::new();
    for pattern in patterns {
        let Some(expanded) = crate::base::pathtext::expand_home(pattern, home) else {
            continue;
        };
        if let Ok(glob) = globset::GlobBuilder::new(&expanded.to_string_lossy())
            .literal_separator(true)
            .build()
        {
            builder.add(glob);
        }
    }
    builder.build().is_ok_and(|set| set.is_match(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_default_policy_is_the_default() {
        let parsed = Policy::parse(DEFAULT_POLICY, "policies/default.toml").unwrap();
        assert_eq!(parsed, Policy::default());
    }

    #[test]
    fn example_policies_parse() {
        for (name, text) in [
            ("strict", include_str!("../../../policies/strict.toml")),
            ("ci", include_str!("../../../policies/ci.toml")),
        ] {
            Policy::parse(text, name).unwrap();
        }
    }

    #[test]
    fn migrate_root_expands_home() {
        let policy = Policy::default();
        assert_eq!(
            policy.migrate_root(Some(Path::new("/home/me"))),
            Some(PathBuf::from("/home/me/src"))
        );
    }
}
