//! What the `git` on `PATH` is: its release and what starting it costs, asked once and kept
//! (`assess::pipeline::git_cache`).

use serde::Serialize;

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

/// `git --version` runs timed for git's start-up (about 1.5 ms each on the Linux disk, once a
/// day per machine and boot).
pub const STARTUP_RUNS: usize = 3;

/// What the `git` on `PATH` is: its version and what starting it costs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct GitFacts {
    pub version: Option<GitVersion>,
    /// The fastest of `STARTUP_RUNS` `git --version` runs: process start-up, a fixed cost
    /// that only ever grows with the machine's other work (a check's own package sample and
    /// probes among it: the middle of three, timed inside checks on a quiet machine, ranged
    /// 1.3-6.6 ms where git alone takes 1.6-1.7), which one or two unlucky schedules would
    /// overstate.
    pub startup_ms: Option<f64>,
}

impl GitFacts {
    /// Runs `git --version` `STARTUP_RUNS` times: the only place the tool asks git what it is.
    /// A fake `git` earlier on `PATH` is what tests use to stand in for other releases.
    pub fn read() -> Self {
        let mut facts = GitFacts::default();
        for _ in 0..STARTUP_RUNS {
            let start = std::time::Instant::now();
            let Ok(output) = super::run(super::version_query(), super::QUICK_LIMIT) else {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
