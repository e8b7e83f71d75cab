//! The one door to host facts: `/proc` files and environment variables.
//!
//! Everything downstream receives these facts as values, so tests can point the tool at a fixture
//! directory with `WSL_PLACE_PROC_ROOT=DIR` (read as `DIR/version`, `DIR/self/mountinfo`,
//! `DIR/sys/fs/binfmt_misc/`; a `DIR` named `proc` also brings the `run` folder beside it, for
//! WSL's records under `/run/wsl/`), and at a fixture `/etc` with `WSL_PLACE_ETC_ROOT=DIR` (read as
//! `DIR/wsl.conf`), or build a [`HostEnv`] by hand. The Windows side is asked through
//! WSL's interop, by programs found on `PATH` (`net.exe`), so a test puts a fake one there.

//!
//! Beside it, what is derived from those facts alone: the mount table (`mounts`), where a path
//! sits (`location`) and what the terminal can show (`terminal`).

pub mod git;
pub mod location;
pub mod mounts;
pub mod programs;
pub(crate) mod terminal;
pub mod virtiofs;
pub mod windows;
pub mod windows_env;
pub mod windows_git;

use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// Environment variables the tool reads; nothing else in the crate calls `std::env::var`.
const ENV_KEYS: &[&str] = &[
    "WSL_PLACE_PROC_ROOT",
    "WSL_PLACE_ETC_ROOT",
    "WSL_DISTRO_NAME",
    "WSL_INTEROP",
    "HOME",
    "NO_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "TERM",
    "COLUMNS",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "WSL_PLACE_POLICY",
    "CI",
    "PATH",
    "USER",
    "WSL_PLACE_WINDOWS_PROFILE",
    // Where uv's cache is and how it places files from it (`deps::uv_cache`).
    "UV_CACHE_DIR",
    "UV_LINK_MODE",
    "UV_NO_CACHE",
    // Where npm's cache is (`deps::samplers::npm_cache`); npm takes either spelling.
    "npm_config_cache",
    "NPM_CONFIG_CACHE",
];

/// A snapshot of the host's environment and the location of its `/proc`.
#[derive(Debug, Clone)]
pub struct HostEnv {
    proc_root: PathBuf,
    /// `/run` beside the `/proc` root, when that root is a folder named `proc` (see
    /// [`run_root_beside`]).
    run_root: Option<PathBuf>,
    etc_root: PathBuf,
    vars: BTreeMap<String, String>,
    /// Windows' mapped drive letters, asked once, when first needed, and shared by clones.
    mapped_drives: Arc<OnceLock<MappedDrives>>,
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
    /// Facts from `(name, value)` pairs alone, for unit tests.
    #[cfg(test)]
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Self {
        Self::from_vars(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    pub fn from_vars(vars: BTreeMap<String, String>) -> Self {
        let proc_root = vars
            .get("WSL_PLACE_PROC_ROOT")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/proc"));
        let etc_root = vars
            .get("WSL_PLACE_ETC_ROOT")
            .filter(|v| !v.is_empty())
            .map_or_else(|| PathBuf::from("/etc"), PathBuf::from);
        Self {
            run_root: run_root_beside(&proc_root),
            proc_root,
            etc_root,
            vars,
            mapped_drives: Arc::default(),
        }
    }

    pub fn var(&self, key: &str) -> Option<&str> {
        // A key missing there reads as unset on every real run, whatever the person set, while
        // tests that build the environment from pairs still see it.
        debug_assert!(
            ENV_KEYS.contains(&key),
            "{key} is read but HostEnv::from_process does not take it (ENV_KEYS)"
        );
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

    /// WSL's record of its virtiofs tags (`/run/wsl/virtiofs/<tag>`, a link to the Windows
    /// folder the tag stands for, `C:\`): tag -> Windows path, tags in lower case. Empty where
    /// there is no such folder (9p, off WSL, a fixture `/proc` with no `run` beside it).
    pub fn virtiofs_tags(&self) -> BTreeMap<String, String> {
        let Some(dir) = self.run_root.as_ref().map(|run| run.join(VIRTIOFS_TAG_DIR)) else {
            return BTreeMap::new();
        };
        let Ok(entries) = std::fs::read_dir(dir) else {
            return BTreeMap::new();
        };
        entries
            .filter_map(|entry| {
                let entry = entry.ok()?;
                let target = std::fs::read_link(entry.path()).ok()?;
                let tag = entry.file_name().to_str()?.to_ascii_lowercase();
                Some((tag, target.to_str()?.to_string()))
            })
            .collect()
    }

    /// Windows programs can be started from here: `WSL_INTEROP` names this shell's interop
    /// socket. The `WSLInterop` binfmt entry is the VM's and stays registered where interop is
    /// off for this distribution or this process (`[interop] enabled=false`, `su`, `sudo -i`).
    pub fn interop(&self) -> bool {
        self.var("WSL_INTEROP").is_some()
    }

    /// Where WSL mounts the Windows drives (`C:` at `<root>c`): `[automount] root` in
    /// `/etc/wsl.conf`, or WSL's default `/mnt/` when the file or the setting is missing or
    /// unreadable (off WSL, the default names no mount and harms nothing).
    pub fn automount_root(&self) -> PathBuf {
        let conf = self.etc_root.join("wsl.conf");
        crate::base::input::read_regular(&conf, WSL_CONF_LIMIT, "wsl.conf")
            .ok()
            .and_then(|text| automount_root_in(&String::from_utf8_lossy(&text)))
            .unwrap_or_else(|| PathBuf::from(DEFAULT_AUTOMOUNT_ROOT))
    }

    pub fn home(&self) -> Option<PathBuf> {
        self.var("HOME").map(PathBuf::from)
    }

    /// The user's settings: `$XDG_CONFIG_HOME/wsl-place/config.toml` or
    /// `~/.config/wsl-place/config.toml`.
    pub fn config_file(&self) -> Option<PathBuf> {
        self.var("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| self.home().map(|h| h.join(".config")))
            .map(|base| base.join("wsl-place").join("config.toml"))
    }

    /// The drive letters Windows maps to network shares, from `net.exe use` through WSL's
    /// interop: asked at most once per run, only when a caller needs it (a drvfs mount of a
    /// drive letter is being judged) and only when interop is on (`WSL_INTEROP`); empty when `net.exe`
    /// is missing, fails, or takes longer than two seconds.
    pub fn mapped_drives(&self) -> &MappedDrives {
        self.mapped_drives.get_or_init(|| {
            if !self.interop() {
                return MappedDrives::default();
            }
            output_within("net.exe", &["use"], NET_USE_LIMIT)
                .map(|out| MappedDrives::parse_net_use(&String::from_utf8_lossy(&out)))
                .unwrap_or_default()
        })
    }

    /// What WSL's own Linux-side tool `program` (`wslpath`, a link to `/init`) prints when it
    /// succeeds within two seconds; it needs no interop. Found on `PATH`, so a test puts a fake
    /// one there.
    pub fn ask_wsl(&self, program: &str, args: &[&str]) -> Option<String> {
        output_within(program, args, WINDOWS_ANSWER_LIMIT)
            .map(|out| String::from_utf8_lossy(&out).into_owned())
    }

    /// The raw standard output of the Windows program `program` (a full path: Windows' folders
    /// are not on `PATH` with `appendWindowsPath=false`) started in `cwd` (a drive mount: from a
    /// Linux folder Windows programs are reported to take seconds to start), when it succeeds
    /// within `limit`. None off WSL's interop, or when it fails or takes longer.
    pub fn ask_windows_in(
        &self,
        program: &Path,
        cwd: &Path,
        args: &[&str],
        limit: Duration,
    ) -> Option<Vec<u8>> {
        if !self.interop() {
            return None;
        }
        output_in(program.as_os_str(), args, limit, Some(cwd))
    }

    /// The same environment with Windows never asked about mapped drives (every letter counts as
    /// unmapped): for the hook's cached answer, whose key (mount point, type, source) does not
    /// depend on them, so a commit does not wait for `net.exe`.
    pub fn without_mapped_drives(&self) -> Self {
        Self {
            mapped_drives: Arc::new(OnceLock::from(MappedDrives::default())),
            ..self.clone()
        }
    }

    /// Every executable `name` on `PATH`, in the order a shell tries them.
    pub fn executables_on_path(&self, name: &str) -> impl Iterator<Item = PathBuf> + '_ {
        use std::os::unix::fs::PermissionsExt;
        let name = name.to_string();
        self.var("PATH")
            .map(std::env::split_paths)
            .into_iter()
            .flatten()
            .filter(|dir| dir.is_absolute())
            .map(move |dir| dir.join(&name))
            .filter(|file| {
                std::fs::metadata(file)
                    .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
            })
    }

    /// The program `name` a command would start (the first executable `name` on `PATH`) and
    /// what identifies that build: path, size, modification and change times, one per line. A
    /// cache of what the program said of itself, keyed on it, is asked again when it is
    /// upgraded or another one comes first on `PATH` (the change time too: npm installs its
    /// files with a fixed modification time).
    pub fn executable_identity(&self, name: &str) -> Option<String> {
        identity_of(&self.executables_on_path(name).next()?)
    }

    /// This boot's identity (`sys/kernel/random/boot_id` under the `/proc` root): a mount's
    /// measured speed is cached per boot, as a reboot may bring another server behind it.
    pub fn boot_id(&self) -> Option<String> {
        std::fs::read_to_string(self.proc_root.join("sys/kernel/random/boot_id"))
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    }

    /// The machine's load per core: the 1-minute load average (`loadavg` under the `/proc`
    /// root) over the cores this process may run on. None where it cannot be read.
    pub fn load_per_core(&self) -> Option<f64> {
        let text = std::fs::read_to_string(self.proc_root.join("loadavg")).ok()?;
        let one_minute: f64 = text.split_whitespace().next()?.parse().ok()?;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        (one_minute.is_finite() && one_minute >= 0.0).then(|| one_minute / cores as f64)
    }

    /// The host name (`sys/kernel/hostname` under the `/proc` root), for cache keys.
    pub fn hostname(&self) -> String {
        std::fs::read_to_string(self.proc_root.join("sys/kernel/hostname"))
            .map(|s| s.trim().to_string())
            .unwrap_or_default()
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

/// What identifies the program at `file`: path, size, modification and change times, one per
/// line (see [`HostEnv::executable_identity`]).
pub fn identity_of(file: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(file).ok()?;
    Some(format!(
        "{}\n{}\n{}.{}\n{}.{}",
        file.display(),
        meta.len(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec()
    ))
}

/// The `run` folder that goes with a `/proc` root: `/run` for `/proc`, `DIR/run` for a fixture
/// `DIR/proc`. A fixture root named otherwise has none: its parent is some shared folder
/// (`/tmp`), whose `run` belongs to no fixture.
fn run_root_beside(proc_root: &Path) -> Option<PathBuf> {
    (proc_root.file_name()? == "proc").then(|| proc_root.parent().map(|p| p.join("run")))?
}

/// Where WSL links each virtiofs tag to its Windows folder, under `/run`
/// (microsoft/WSL `src/linux/init/drvfs.cpp`, `SaveVirtiofsTagMapping`, since WSL 2.7.1).
const VIRTIOFS_TAG_DIR: &str = "wsl/virtiofs";

/// WSL mounts drive `C:` at `/mnt/c` unless wsl.conf says otherwise.
pub const DEFAULT_AUTOMOUNT_ROOT: &str = "/mnt/";

/// wsl.conf is a few lines; anything larger is not one.
const WSL_CONF_LIMIT: u64 = 1024 * 1024;

/// `root` in the `[automount]` section of a wsl.conf (INI: `key = value`, optionally quoted,
/// `#` and `;` comments, section and key names in any case). None when absent or not absolute.
pub fn automount_root_in(conf: &str) -> Option<PathBuf> {
    let mut in_automount = false;
    let mut root = None;
    for line in conf.lines() {
        let line = line.trim();
        if line.starts_with(['#', ';']) || line.is_empty() {
            continue;
        }
        if let Some(section) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            in_automount = section.trim().eq_ignore_ascii_case("automount");
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if in_automount && key.trim().eq_ignore_ascii_case("root") {
            let value = value.split(['#', ';']).next().unwrap_or_default().trim();
            let value = value.trim_matches('"').trim();
            // WSL reads the last setting of a key, as INI readers do.
            root = Some(PathBuf::from(value)).filter(|p| p.is_absolute());
        }
    }
    root
}

/// How long Windows may take to list its mapped drives: `net.exe` waits on a disconnected
/// server, and a check must not.
const NET_USE_LIMIT: Duration = Duration::from_secs(2);

/// How long `cmd.exe` or `wslpath` may take to answer one question about the Windows side.
const WINDOWS_ANSWER_LIMIT: Duration = Duration::from_secs(2);

/// Drive letters Windows has mapped to network shares (`Z:` -> `\\server\share`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MappedDrives {
    shares: BTreeMap<char, String>,
}

impl MappedDrives {
    /// The share behind a drive letter, if Windows maps it to one.
    pub fn share_of(&self, letter: char) -> Option<&str> {
        self.shares
            .get(&letter.to_ascii_uppercase())
            .map(String::as_str)
    }

    /// Reads `net.exe use` output in any display language: a line holding a drive-letter token
    /// (`Z:`) and a token starting with `\\` maps that letter to the share, which runs to the
    /// end of the line or to the next run of two spaces (the column gap before the provider's
    /// name). Headers, status words and the closing sentence are ignored.
    pub fn parse_net_use(text: &str) -> Self {
        let mut shares = BTreeMap::new();
        for line in text.lines() {
            let letter = line.split_whitespace().find_map(|token| {
                let b = token.as_bytes();
                (b.len() == 2 && b[0].is_ascii_alphabetic() && b[1] == b':')
                    .then(|| char::from(b[0].to_ascii_uppercase()))
            });
            let share = line.find("\\\\").map(|at| {
                let rest = &line[at..];
                rest[..rest.find("  ").unwrap_or(rest.len())].trim_end()
            });
            if let (Some(letter), Some(share)) = (letter, share.filter(|s| s.len() > 2)) {
                shares.entry(letter).or_insert_with(|| share.to_string());
            }
        }
        Self { shares }
    }
}

/// The standard output of `program args` when it succeeds within `limit`; the program is killed
/// when it takes longer, and a descendant that keeps its output open is not waited for.
fn output_within(program: &str, args: &[&str], limit: Duration) -> Option<Vec<u8>> {
    output_in(program.as_ref(), args, limit, None)
}

/// [`output_within`], started in `cwd` when given.
fn output_in(
    program: &std::ffi::OsStr,
    args: &[&str],
    limit: Duration,
    cwd: Option<&Path>,
) -> Option<Vec<u8>> {
    let mut command = crate::base::process::command(program);
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    command.args(args);
    let out = crate::base::process::run(command, limit).ok()?;
    out.status.success().then_some(out.stdout)
}

/// Raw evidence about the host, before any decision is taken.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostFacts {
    pub kernel_version: Option<String>,
    pub wsl_interop: bool,
    pub distro_env: Option<String>,
    pub interop_env: bool,
}

impl HostFacts {
    /// WSL beyond doubt: its binfmt entry or its variables. The kernel string alone is not
    /// enough, as containers running inside WSL inherit it.
    pub fn name_wsl(&self) -> bool {
        self.wsl_interop || self.distro_env.is_some() || self.interop_env
    }
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
    let strong = facts.name_wsl() || mounts.wsl1_root;
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

    #[test]
    fn automount_root_is_read_from_the_automount_section_only() {
        let root = |conf: &str| automount_root_in(conf);
        assert_eq!(root(""), None);
        assert_eq!(
            root("[automount]\nenabled = true\nroot = /\noptions = \"metadata\"\n"),
            Some(PathBuf::from("/"))
        );
        assert_eq!(
            root("# drives\n[Automount]\n  Root=\"/win/\"  # quoted\n"),
            Some(PathBuf::from("/win/"))
        );
        assert_eq!(root("[network]\nroot = /elsewhere/\n"), None);
        assert_eq!(
            root("[automount]\nroot = /a/\n[network]\nroot = /b/\n"),
            Some(PathBuf::from("/a/"))
        );
        assert_eq!(root("[automount]\n;root = /c/\nroot = relative\n"), None);
    }

    #[test]
    fn automount_root_comes_from_the_fixture_etc_or_defaults_to_mnt() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let etc = dir.path().display().to_string();
        let env = |vars: &[(&str, &str)]| {
            HostEnv::from_vars(
                vars.iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            )
        };
        let fixture = env(&[("WSL_PLACE_ETC_ROOT", &etc)]);
        assert_eq!(
            fixture.automount_root(),
            PathBuf::from(DEFAULT_AUTOMOUNT_ROOT)
        );
        std::fs::write(
            dir.path().join("wsl.conf"),
            "[automount]\nroot = /drives/\n",
        )
        .expect("write wsl.conf");
        assert_eq!(fixture.automount_root(), PathBuf::from("/drives/"));
    }

    const WSL2_KERNEL: &str = include_str!("../../tests/fixtures/mountinfo/wsl2.proc-version");
    const WSL1_KERNEL: &str = include_str!("../../tests/fixtures/mountinfo/wsl1.proc-version");
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
    fn net_use_listings_in_any_language_give_the_mapped_letters() {
        let english = "New connections will be remembered.\r\n\r\n\
            Status       Local     Remote                    Network\r\n\
            -------------------------------------------------------------------------------\r\n\
            OK           Z:        \\\\fileserver\\Projects    Microsoft Windows Network\r\n\
            Unavailable  Y:        \\\\nas\\media library\r\n\
            \x20                                                Microsoft Windows Network\r\n\
            \x20                      \\\\printer\\queue           Microsoft Windows Network\r\n\
            The command completed successfully.\r\n";
        let drives = MappedDrives::parse_net_use(english);
        assert_eq!(drives.share_of('z'), Some(r"\\fileserver\Projects"));
        assert_eq!(drives.share_of('Y'), Some(r"\\nas\media library"));
        assert_eq!(drives.share_of('C'), None);
        let german = "Neue Verbindungen werden gespeichert.\n\n\
            Status       Lokal     Remote                    Netzwerk\n\
            OK           X:        \\\\srv\\daten              Microsoft Windows-Netzwerk\n\
            Der Befehl wurde erfolgreich ausgef\u{fc}hrt.\n";
        let drives = MappedDrives::parse_net_use(german);
        assert_eq!(drives.share_of('X'), Some(r"\\srv\daten"));
        assert_eq!(
            MappedDrives::parse_net_use("There are no entries in the list.\n"),
            MappedDrives::default()
        );
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
    fn plain_linux_is_not_wsl() {
        let host = detect(
            &facts("Linux version 6.1.0-18-amd64 (debian-kernel)"),
            MountFacts::default(),
        );
        assert!(!host.wsl);
        assert_eq!(host.wsl_version, None);
    }

    #[test]
    fn virtiofs_tags_are_read_beside_a_proc_root_named_proc_only() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let links = dir.path().join("run/wsl/virtiofs");
        std::fs::create_dir_all(&links).expect("make the links' folder");
        std::fs::create_dir_all(dir.path().join("proc")).expect("make proc");
        let tag = "3F2504E0-4F89-41D3-9A0C-0305E82C3301";
        std::os::unix::fs::symlink("C:\\", links.join(tag)).expect("link the tag");
        let env = |root: &Path| {
            let vars = [("WSL_PLACE_PROC_ROOT", root.to_str().expect("UTF-8"))];
            HostEnv::from_pairs(&vars)
        };
        let tags = env(&dir.path().join("proc")).virtiofs_tags();
        assert_eq!(
            tags.get(&tag.to_ascii_lowercase()).map(String::as_str),
            Some("C:\\")
        );
        assert!(env(dir.path()).virtiofs_tags().is_empty());
        assert_eq!(
            run_root_beside(Path::new("/proc")),
            Some(PathBuf::from("/run"))
        );
    }

    #[test]
    fn interop_is_this_shells_wsl_interop_not_the_vms_binfmt_entry() {
        assert!(HostEnv::from_pairs(&[("WSL_INTEROP", "/run/WSL/8_interop")]).interop());
        assert!(!HostEnv::from_pairs(&[("WSL_INTEROP", "")]).interop());
        assert!(!HostEnv::from_pairs(&[("WSL_DISTRO_NAME", "Ubuntu")]).interop());
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
