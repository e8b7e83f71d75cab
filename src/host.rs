//! The one door to host facts: `/proc` files and environment variables.
//!
//! Everything downstream receives these facts as values, so tests can point the tool at a fixture
//! directory with `WSL_PLACE_PROC_ROOT=DIR` (read as `DIR/version`, `DIR/self/mountinfo`,
//! `DIR/sys/fs/binfmt_misc/`) or build a [`HostEnv`] by hand.

use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Environment variables the tool reads; nothing else in the crate calls `std::env::var`.
const ENV_KEYS: &[&str] = &[
    "WSL_PLACE_PROC_ROOT",
    "WSL_DISTRO_NAME",
    "WSL_INTEROP",
    "HOME",
    "NO_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "TERM",
    "COLUMNS",
    "XDG_CACHE_HOME",
    "CI",
];

/// A snapshot of the host's environment and the location of its `/proc`.
#[derive(Debug, Clone)]
pub struct HostEnv {
    proc_root: PathBuf,
    vars: BTreeMap<String, String>,
}

impl HostEnv {
    /// Reads the real process environment once, at start-up.
    pub fn from_process() -> Self {
        let vars: BTreeMap<String, String> = ENV_KEYS
            .iter()
            .filter_map(|key| std::env::var(key).ok().map(|v| (key.to_string(), v)))
            .collect();
        Self::from_vars(vars)
    }

    /// Builds an environment from explicit values (tests, fixtures).
    pub fn from_vars(vars: BTreeMap<String, String>) -> Self {
        let proc_root = vars
            .get("WSL_PLACE_PROC_ROOT")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/proc"));
        Self { proc_root, vars }
    }

    pub fn var(&self, key: &str) -> Option<&str> {
        self.vars
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    pub fn proc_root(&self) -> &Path {
        &self.proc_root
    }

    pub fn mountinfo_path(&self) -> PathBuf {
        self.proc_root.join("self/mountinfo")
    }

    pub fn home(&self) -> Option<PathBuf> {
        self.var("HOME").map(PathBuf::from)
    }

    /// Where cached results live: `$XDG_CACHE_HOME/wsl-place` or `~/.cache/wsl-place`.
    pub fn cache_dir(&self) -> Option<PathBuf> {
        self.var("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| self.home().map(|h| h.join(".cache")))
            .map(|base| base.join("wsl-place"))
    }

    /// Reads the raw facts that WSL detection needs. Missing files are normal off WSL.
    pub fn read_facts(&self) -> HostFacts {
        let binfmt = self.proc_root.join("sys/fs/binfmt_misc");
        HostFacts {
            kernel_version: std::fs::read_to_string(self.proc_root.join("version"))
                .ok()
                .map(|s| s.trim().to_string()),
            wsl_interop: binfmt.join("WSLInterop").exists()
                || binfmt.join("WSLInterop-Late").exists(),
            distro_env: self.var("WSL_DISTRO_NAME").map(str::to_string),
            interop_env: self.var("WSL_INTEROP").is_some(),
        }
    }
}

/// Raw evidence about the host, before any decision is taken.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostFacts {
    pub kernel_version: Option<String>,
    pub wsl_interop: bool,
    pub distro_env: Option<String>,
    pub interop_env: bool,
}

/// What the tool concluded about the host.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Host {
    pub wsl: bool,
    /// 1 or 2 when `wsl` is true and the version could be told.
    pub wsl_version: Option<u8>,
    /// The WSL distribution name, as Windows knows it (`\\wsl.localhost\<distro>`).
    pub distro: Option<String>,
    pub kernel: Option<String>,
    /// Which facts led to the conclusion, most decisive first.
    pub evidence: Vec<String>,
}

/// Which WSL generation a kernel string belongs to, if any.
fn kernel_wsl_version(kernel: &str) -> Option<u8> {
    let lower = kernel.to_ascii_lowercase();
    if lower.contains("microsoft-standard") || lower.contains("-wsl2") {
        Some(2)
    } else if kernel.contains("-Microsoft") || lower.contains("microsoft") {
        Some(1)
    } else {
        None
    }
}

/// Decides whether this is WSL.
///
/// The kernel string alone is not enough: containers running inside WSL inherit it. It counts only
/// together with a drive mount that is visible from here (`has_drvfs_mount`), because then the
/// slow path really is reachable.
pub fn detect(facts: &HostFacts, has_drvfs_mount: bool) -> Host {
    let mut evidence = Vec::new();
    if facts.wsl_interop {
        evidence.push("binfmt_misc WSLInterop is registered".to_string());
    }
    if let Some(name) = &facts.distro_env {
        evidence.push(format!("WSL_DISTRO_NAME={name}"));
    }
    if facts.interop_env {
        evidence.push("WSL_INTEROP is set".to_string());
    }
    let kernel_version = facts.kernel_version.as_deref().and_then(kernel_wsl_version);
    if kernel_version.is_some() {
        evidence.push("kernel string names Microsoft".to_string());
    }
    let strong = facts.wsl_interop || facts.distro_env.is_some() || facts.interop_env;
    let wsl = strong || (kernel_version.is_some() && has_drvfs_mount);
    if !wsl && kernel_version.is_some() {
        evidence.push(
            "no WSLInterop, no WSL variables, no drive mount: probably a container inside WSL"
                .to_string(),
        );
    }
    let wsl_version = if !wsl {
        None
    } else if facts.interop_env {
        // WSL_INTEROP exists only on WSL 2.
        Some(2)
    } else {
        kernel_version
    };
    Host {
        wsl,
        wsl_version,
        distro: if wsl { facts.distro_env.clone() } else { None },
        kernel: facts.kernel_version.clone(),
        evidence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WSL2_KERNEL: &str = include_str!("../tests/fixtures/mountinfo/wsl2.proc-version");

    fn facts(kernel: &str) -> HostFacts {
        HostFacts {
            kernel_version: Some(kernel.trim().to_string()),
            ..HostFacts::default()
        }
    }

    #[test]
    fn interop_and_distro_make_wsl2() {
        let f = HostFacts {
            wsl_interop: true,
            distro_env: Some("Ubuntu".into()),
            interop_env: true,
            ..facts(WSL2_KERNEL)
        };
        let host = detect(&f, false);
        assert!(host.wsl);
        assert_eq!(host.wsl_version, Some(2));
        assert_eq!(host.distro.as_deref(), Some("Ubuntu"));
    }

    #[test]
    fn kernel_string_alone_is_a_container_not_wsl() {
        let host = detect(&facts(WSL2_KERNEL), false);
        assert!(!host.wsl);
        assert_eq!(host.distro, None);
        assert!(host.evidence.iter().any(|e| e.contains("container")));
    }

    #[test]
    fn kernel_string_with_drive_mount_is_wsl() {
        let host = detect(&facts(WSL2_KERNEL), true);
        assert!(host.wsl);
        assert_eq!(host.wsl_version, Some(2));
    }

    #[test]
    fn wsl1_kernel_string() {
        let f = HostFacts {
            wsl_interop: true,
            ..facts("Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com)")
        };
        assert_eq!(detect(&f, false).wsl_version, Some(1));
    }

    #[test]
    fn plain_linux_is_not_wsl() {
        let host = detect(
            &facts("Linux version 6.1.0-18-amd64 (debian-kernel)"),
            false,
        );
        assert!(!host.wsl);
        assert_eq!(host.wsl_version, None);
    }

    #[test]
    fn proc_root_comes_from_the_environment() {
        let mut vars = BTreeMap::new();
        vars.insert("WSL_PLACE_PROC_ROOT".to_string(), "/fixture".to_string());
        let env = HostEnv::from_vars(vars);
        assert_eq!(
            env.mountinfo_path(),
            PathBuf::from("/fixture/self/mountinfo")
        );
    }
}
