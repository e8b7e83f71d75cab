//! Where each run of the binary lives, in the manner of ripgrep's `TestCommand` and fd's
//! `TestEnv`: a `HOME` of its own, with the cache, config and state folders below it where XDG
//! puts them by default, so no setting, cache or record of the developer's reaches a test and
//! no test writes one.
//!
//! ```ignore
//! let sandbox = Sandbox::new();
//! let said = sandbox.migrate(&source, &dest).arg("--yes").run().ok().stderr();
//! let manifest = sandbox.manifest_of(&dest); // the same state folder, run after run
//! let report = sandbox.check_json(&source, &[]);
//! ```
//!
//! Runs that must share their state (migrate, then sync, then check) use one sandbox for all of
//! them; [`super::wsl_place`] runs in one shared by the whole test binary.

use super::binary_path;
use super::run::{CHECK_JSON, Outcome, Run};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use tempfile::TempDir;

pub struct Sandbox {
    home: PathBuf,
    // Removed when the sandbox is dropped; None when the test owns the folder.
    _dir: Option<TempDir>,
}

impl Default for Sandbox {
    fn default() -> Self {
        Self::new()
    }
}

impl Sandbox {
    /// A fresh, empty `HOME` (canonical) in a temporary folder removed on drop.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder for the sandbox");
        let home = dir
            .path()
            .canonicalize()
            .expect("canonical temporary folder")
            .join("home");
        std::fs::create_dir(&home).expect("the sandbox's HOME");
        Self {
            home,
            _dir: Some(dir),
        }
    }

    /// `HOME` at `home`, a folder the test owns (its trees may live there, or it may be
    /// missing on purpose): nothing is created, and nothing removed on drop.
    pub fn at(home: impl AsRef<Path>) -> Self {
        Self {
            home: home.as_ref().to_path_buf(),
            _dir: None,
        }
    }

    /// The sandbox every [`super::wsl_place`] runs in: one per test process, under cargo's
    /// scratch folder, emptied when the process first uses it.
    pub fn shared() -> &'static Sandbox {
        static SHARED: OnceLock<Sandbox> = OnceLock::new();
        SHARED.get_or_init(|| {
            let home = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("it-home");
            // What an earlier run left: a cache or record from it would change what tests see.
            match std::fs::remove_dir_all(&home) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => panic!("emptying {}: {e}", home.display()),
            }
            std::fs::create_dir_all(&home)
                .unwrap_or_else(|e| panic!("creating {}: {e}", home.display()));
            Sandbox::at(home)
        })
    }

    pub fn home(&self) -> &Path {
        &self.home
    }

    /// `HOME/rel`.
    pub fn path(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.home.join(rel)
    }

    /// `$XDG_CACHE_HOME` of its runs.
    pub fn cache(&self) -> PathBuf {
        self.home.join(".cache")
    }

    /// `$XDG_CONFIG_HOME` of its runs (`wsl-place/config.toml` below it).
    pub fn config(&self) -> PathBuf {
        self.home.join(".config")
    }

    /// `$XDG_STATE_HOME` of its runs (manifests and migration records below it).
    pub fn state(&self) -> PathBuf {
        self.home.join(".local/state")
    }

    /// `program` (a shell, `script`, `setpriv`, git) in this sandbox: its `HOME` and XDG
    /// folders, no `WSL_PLACE_*` setting inherited (a fixture `/proc` root, a policy), and no
    /// terminal on stdin. A test asks otherwise by setting or removing them after this.
    pub fn program(&self, program: impl AsRef<OsStr>) -> Command {
        let mut cmd = Command::new(program);
        self.apply(&mut cmd);
        cmd
    }

    /// Puts `cmd` in this sandbox (see [`Sandbox::program`]): for a command whose environment
    /// the test cleared first.
    pub fn apply<'c>(&self, cmd: &'c mut Command) -> &'c mut Command {
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("WSL_PLACE_") {
                cmd.env_remove(name);
            }
        }
        // The state folder by HOME, not XDG_STATE_HOME: the tool makes it only below a folder
        // that exists, HOME for the default and `HOME/.local` for the variable, which a fresh
        // HOME lacks.
        cmd.env("HOME", &self.home)
            .env("XDG_CACHE_HOME", self.cache())
            .env("XDG_CONFIG_HOME", self.config())
            .env_remove("XDG_STATE_HOME")
            // Programs the tests run (uv, pip, bash-completion) keep data there: HOME's own.
            .env_remove("XDG_DATA_HOME")
            .stdin(Stdio::null())
    }

    /// The built binary in this sandbox (see [`Sandbox::program`]).
    pub fn cmd(&self) -> Command {
        self.program(binary_path())
    }

    /// The binary with `args`, run to the end.
    #[track_caller]
    pub fn run<S: AsRef<OsStr>>(&self, args: impl IntoIterator<Item = S>) -> Outcome {
        self.cmd().args(args).run()
    }

    /// `wsl-place migrate SOURCE --to DEST`, for the caller to add flags to.
    pub fn migrate(&self, source: &Path, dest: &Path) -> Command {
        let mut cmd = self.cmd();
        cmd.arg("migrate").arg(source).arg("--to").arg(dest);
        cmd
    }

    /// `check --no-probe --format json EXTRA PATH`, for the test to judge.
    pub fn check(&self, path: &Path, extra: &[&str]) -> Outcome {
        self.cmd().args(CHECK_JSON).args(extra).arg(path).run()
    }

    /// `check --no-probe --format json EXTRA PATH`, which must succeed: its report.
    #[track_caller]
    pub fn check_json(&self, path: &Path, extra: &[&str]) -> serde_json::Value {
        self.check(path, extra).ok_json()
    }

    /// The manifest of the finished migration to `destination` run in this sandbox.
    pub fn manifest_of(&self, destination: &Path) -> PathBuf {
        super::manifest_in(&self.state(), destination).unwrap_or_else(|| {
            panic!(
                "no manifest for {} in {}",
                destination.display(),
                self.state().display()
            )
        })
    }
}
