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

/// A git release, compared field by field (`2.55.0` > `2.47.3`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct GitVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl GitVersion {
    /// The first release whose fsmonitor daemon runs on Linux (inotify).
    pub const FSMONITOR_ON_LINUX: GitVersion = GitVersion {
        major: 2,
        minor: 55,
        patch: 0,
    };

    /// From `git --version` output: `git version 2.55.0`, `git version 2.39.2.windows.1`,
    /// `git version 2.56.0-rc1`.
    pub fn parse(text: &str) -> Option<Self> {
        let number = text
            .trim_start()
            .strip_prefix("git version ")?
            .split_whitespace()
            .next()?;
        let mut parts = number.split(['.', '-']).map(|p| p.parse::<u32>().ok());
        let major = parts.next()??;
        let minor = parts.next()??;
        let patch = parts.next().flatten().unwrap_or(0);
        Some(Self {
            major,
            minor,
            patch,
        })
    }
}

impl std::fmt::Display for GitVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl Serialize for GitVersion {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// What the `git` on `PATH` is: its version and what starting it costs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct GitFacts {
    pub version: Option<GitVersion>,
    /// The faster of two `git --version` runs: process start-up, which one unlucky schedule on
    /// a busy machine would overstate.
    pub startup_ms: Option<f64>,
}

impl GitFacts {
    /// Runs `git --version` twice: the only place the tool asks git what it is. A fake `git`
    /// earlier on `PATH` is what tests use to stand in for other releases.
    pub fn read() -> Self {
        let mut facts = GitFacts::default();
        for _ in 0..2 {
            let start = std::time::Instant::now();
            let Ok(output) = std::process::Command::new("git")
                .arg("--version")
                .stdin(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .output()
            else {
                return facts;
            };
            let elapsed = start.elapsed().as_secs_f64() * 1e3;
            if !output.status.success() {
                return facts;
            }
            facts.version = facts
                .version
                .or_else(|| GitVersion::parse(&String::from_utf8_lossy(&output.stdout)));
            facts.startup_ms = Some(facts.startup_ms.map_or(elapsed, |ms: f64| ms.min(elapsed)));
        }
        facts
    }

    /// Git's own fsmonitor daemon runs here (Linux, git >= 2.55).
    pub fn has_linux_fsmonitor(&self) -> bool {
        self.version
            .is_some_and(|v| v >= GitVersion::FSMONITOR_ON_LINUX)
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

/// What the mount table says about WSL, as plain values.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MountFacts {
    /// A Windows folder is mounted through drvfs.
    pub drvfs: bool,
    /// The root file system is WSL 1's own (`lxfs`, later `wslfs`).
    pub wsl1_root: bool,
}

/// Decides whether this is WSL, and which one.
///
/// The kernel string alone is not enough: containers running inside WSL inherit it. It counts only
/// together with a drive mount that is visible from here (`mounts.drvfs`), because then the
/// slow path really is reachable. A WSL 1 root file system exists nowhere else, so it decides.
pub fn detect(facts: &HostFacts, mounts: MountFacts) -> Host {
    let has_drvfs_mount = mounts.drvfs;
    let mut evidence = Vec::new();
    if mounts.wsl1_root {
        evidence.push("the root file system is WSL 1's (lxfs/wslfs)".to_string());
    }
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
    let strong =
        facts.wsl_interop || facts.distro_env.is_some() || facts.interop_env || mounts.wsl1_root;
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
    } else if mounts.wsl1_root {
        Some(1)
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
    const WSL1_KERNEL: &str = include_str!("../tests/fixtures/mountinfo/wsl1.proc-version");
    const DRVFS: MountFacts = MountFacts {
        drvfs: true,
        wsl1_root: false,
    };

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
        let host = detect(&f, MountFacts::default());
        assert!(host.wsl);
        assert_eq!(host.wsl_version, Some(2));
        assert_eq!(host.distro.as_deref(), Some("Ubuntu"));
    }

    #[test]
    fn kernel_string_alone_is_a_container_not_wsl() {
        let host = detect(&facts(WSL2_KERNEL), MountFacts::default());
        assert!(!host.wsl);
        assert_eq!(host.distro, None);
        assert!(host.evidence.iter().any(|e| e.contains("container")));
    }

    #[test]
    fn kernel_string_with_drive_mount_is_wsl() {
        let host = detect(&facts(WSL2_KERNEL), DRVFS);
        assert!(host.wsl);
        assert_eq!(host.wsl_version, Some(2));
    }

    #[test]
    fn wsl1_kernel_string() {
        let f = HostFacts {
            wsl_interop: true,
            ..facts("Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com)")
        };
        assert_eq!(detect(&f, MountFacts::default()).wsl_version, Some(1));
    }

    #[test]
    fn wsl1_from_the_kernel_string_and_a_drive() {
        let host = detect(&facts(WSL1_KERNEL), DRVFS);
        assert!(host.wsl);
        assert_eq!(host.wsl_version, Some(1));
    }

    #[test]
    fn wsl1_from_the_root_file_system_alone() {
        // /proc/version can be masked; a wslfs root cannot be anything else.
        let mounts = MountFacts {
            drvfs: false,
            wsl1_root: true,
        };
        let host = detect(&HostFacts::default(), mounts);
        assert!(host.wsl);
        assert_eq!(host.wsl_version, Some(1));
        assert!(host.evidence[0].contains("WSL 1"), "{:?}", host.evidence);
    }

    #[test]
    fn git_versions_parse_and_compare() {
        let v = |t| GitVersion::parse(t).unwrap();
        assert_eq!(v("git version 2.55.0\n").to_string(), "2.55.0");
        assert_eq!(v("git version 2.39.2.windows.1").to_string(), "2.39.2");
        assert_eq!(v("git version 2.56.0-rc1").to_string(), "2.56.0");
        assert_eq!(v("git version 3.0").to_string(), "3.0.0");
        assert!(v("git version 2.47.3") < GitVersion::FSMONITOR_ON_LINUX);
        assert!(v("git version 2.55.0") >= GitVersion::FSMONITOR_ON_LINUX);
        assert!(v("git version 2.100.1") > GitVersion::FSMONITOR_ON_LINUX);
        assert_eq!(GitVersion::parse("hub version 2.14.2"), None);
        assert_eq!(GitVersion::parse("git version banana"), None);
    }

    #[test]
    fn plain_linux_is_not_wsl() {
        let host = detect(
            &facts("Linux version 6.1.0-18-amd64 (debian-kernel)"),
            MountFacts::default(),
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
