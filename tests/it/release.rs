//! What a user installs: `--version`, the pre-commit hooks (validated by pre-commit itself and
//! run through a real `git commit`), and the README's hook snippet as written.
//!
//! The pre-commit tests need `pre-commit` on PATH (`.ci/run` installs it with pip); without it
//! they skip, and under `WSL_PLACE_REQUIRE_FUSE=1` they fail instead.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::gitrepo::{git, init_and_commit_all};

const MANIFEST: &str = ".pre-commit-hooks.yaml";

fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn version_names_the_commit_when_built_from_a_git_checkout() {
    let out = support::wsl_place().arg("--version").output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let printed = String::from_utf8(out.stdout).unwrap();
    let version = format!("wsl-place {}", env!("CARGO_PKG_VERSION"));
    let head = Command::new("git")
        .arg("-C")
        .arg(repo_root())
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned());
    let expected = match head {
        Some(commit) => format!("{version} (commit {commit})\n"),
        // Not a checkout, or no git: build.rs cannot tell, and says nothing rather than guess.
        None => format!("{version}\n"),
    };
    assert_eq!(printed, expected);
}

/// pre-commit on PATH at 3.2.0 or newer (the hooks' minimum), or None after a skip.
fn pre_commit() -> Option<PathBuf> {
    let reason = match support::Sandbox::shared()
        .program("pre-commit")
        .arg("--version")
        .output()
    {
        Ok(out) if out.status.success() => {
            let printed = String::from_utf8_lossy(&out.stdout).into_owned();
            let version: Vec<u32> = printed
                .split_whitespace()
                .nth(1)
                .unwrap_or_default()
                .split('.')
                .map_while(|part| part.parse().ok())
                .collect();
            if version >= vec![3, 2, 0] {
                return Some(PathBuf::from("pre-commit"));
            }
            format!("pre-commit is older than 3.2.0 ({})", printed.trim())
        }
        Ok(out) => format!("pre-commit --version failed: {}", text(&out)),
        Err(e) => format!("pre-commit is not installed ({e}); pip install pre-commit"),
    };
    support::skip(&reason);
    None
}

/// A sandbox for pre-commit and git: its own HOME, caches and git config, and the built
/// wsl-place first on PATH, as `cargo install` would put it.
struct Tools {
    sandbox: support::Sandbox,
    path: std::ffi::OsString,
}

impl Tools {
    fn new() -> Tools {
        let sandbox = support::Sandbox::new();
        let bin_dir = support::binary_path().parent().unwrap().to_path_buf();
        let inherited = std::env::var_os("PATH").unwrap_or_default();
        let path =
            std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(&inherited)))
                .unwrap();
        Tools { sandbox, path }
    }

    /// `name` beside the sandbox's HOME.
    fn path(&self, name: &str) -> PathBuf {
        self.sandbox.home().parent().unwrap().join(name)
    }

    fn command(&self, program: &str, cwd: &Path) -> Command {
        let mut cmd = self.sandbox.program(program);
        cmd.current_dir(cwd)
            .env("PATH", &self.path)
            .env("PRE_COMMIT_HOME", self.path("pre-commit"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "T")
            .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
            .env("GIT_COMMITTER_NAME", "T")
            .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
            .env_remove("NO_COLOR");
        cmd
    }

    /// A committed repository whose own policy advises moving from any mount, so the hook has
    /// a line to print wherever the test runs.
    fn project(&self) -> PathBuf {
        let project = self.path("project");
        std::fs::create_dir(&project).unwrap();
        std::fs::write(
            project.join(".wsl-place.toml"),
            "[mounts]\nacceptable = []\nadvise = [\"local\", \"tmpfs\", \"overlay\", \"other\", \
             \"wsl-drvfs-virtiofs\", \"network\", \"fuse\"]\n",
        )
        .unwrap();
        std::fs::write(project.join("README"), "x\n").unwrap();
        init_and_commit_all(&project, "init");
        project
    }

    /// A repository holding this checkout's hook manifest as it is now (committed or not), for
    /// a `.pre-commit-config.yaml` to name as `repo:` at the returned commit.
    fn hooks_repo(&self) -> (PathBuf, String) {
        let hooks = self.path("hooks");
        std::fs::create_dir(&hooks).unwrap();
        std::fs::copy(repo_root().join(MANIFEST), hooks.join(MANIFEST)).unwrap();
        init_and_commit_all(&hooks, "hooks");
        let rev = git(&hooks, &["rev-parse", "HEAD"]).trim().to_owned();
        (hooks, rev)
    }

    /// `git commit` in `project` with the pre-commit git hook installed.
    fn commit(&self, project: &Path, message: &str) -> Output {
        std::fs::write(project.join("README"), format!("{message}\n")).unwrap();
        git(project, &["add", "README"]);
        self.command("git", project)
            .args(["commit", "-m", message])
            .output()
            .unwrap()
    }
}

#[test]
fn hook_manifest_passes_pre_commit_validation() {
    let Some(pre_commit) = pre_commit() else {
        return;
    };
    let manifest = repo_root().join(MANIFEST);
    // pre-commit keeps a cache below HOME: the shared sandbox's, not the developer's.
    let out = support::Sandbox::shared()
        .program(pre_commit)
        .arg("validate-manifest")
        .arg(&manifest)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let hooks = std::fs::read_to_string(&manifest).unwrap();
    for id in ["- id: wsl-place\n", "- id: wsl-place-system\n"] {
        assert!(hooks.contains(id), "{MANIFEST} has no `{}`", id.trim());
    }
}

/// The validation above must be able to fail: pre-commit rejects what the schema forbids.
#[test]
fn pre_commit_validation_rejects_a_broken_manifest() {
    let Some(pre_commit) = pre_commit() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join(MANIFEST);
    let hooks = std::fs::read_to_string(repo_root().join(MANIFEST)).unwrap();
    std::fs::write(
        &manifest,
        hooks.replace("language: system", "language: sistem"),
    )
    .unwrap();
    // pre-commit keeps a cache below HOME: the shared sandbox's, not the developer's.
    let out = support::Sandbox::shared()
        .program(pre_commit)
        .arg("validate-manifest")
        .arg(&manifest)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{}", text(&out));
}

#[test]
fn system_hook_runs_the_installed_binary_on_git_commit() {
    if pre_commit().is_none() {
        return;
    }
    let sandbox = Tools::new();
    let project = sandbox.project();
    let (hooks, rev) = sandbox.hooks_repo();
    let config = |args: &str| {
        format!(
            "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: wsl-place-system\n{args}",
            hooks.display()
        )
    };
    std::fs::write(project.join(".pre-commit-config.yaml"), config("")).unwrap();
    let install = sandbox
        .command("pre-commit", &project)
        .arg("install")
        .output()
        .unwrap();
    assert!(install.status.success(), "{}", text(&install));

    // The advisory line reaches the person committing, and the commit goes through.
    let out = sandbox.commit(&project, "advised");
    let shown = text(&out);
    assert!(out.status.success(), "{shown}");
    assert!(
        shown.contains("wsl-place (is this repository on a slow file system?)")
            && shown.contains("- hook id: wsl-place-system")
            && shown.contains("wsl-place: advise ("),
        "the hook did not run wsl-place or its line was not shown:\n{shown}"
    );
    let cache = sandbox.sandbox.cache().join("wsl-place/advisory");
    let cached = std::fs::read_dir(&cache).map(Iterator::count).unwrap_or(0);
    assert_eq!(cached, 1, "wsl-place left no advisory cache in {cache:?}");

    // With `--fail-on advise` the cached answer of the hook's short cold measurement is
    // provisional; its whole range is `advise` (the mount's kind alone says so), so it blocks
    // the commit, and so does the full `check`'s answer that replaces it: the exit code comes
    // through.
    let blocking = config("        args: [--fail-on, advise]\n");
    std::fs::write(project.join(".pre-commit-config.yaml"), blocking).unwrap();
    let out = sandbox.commit(&project, "provisional");
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("first look"), "{}", text(&out));
    let full = sandbox
        .command("wsl-place", &project)
        .args(["check", "."])
        .output()
        .unwrap();
    assert!(full.status.success(), "{}", text(&full));
    let out = sandbox.commit(&project, "blocked");
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("wsl-place: advise ("), "{}", text(&out));
    assert!(!text(&out).contains("first look"), "{}", text(&out));

    // Without the binary on PATH the hook cannot run: proof the hook ran the one we put there.
    let out = sandbox
        .command("pre-commit", &project)
        .args(["run", "--all-files", "wsl-place-system"])
        .env("PATH", &bare_path().path)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{}", text(&out));
}

/// This process's PATH with no `wsl-place` on it, every other program still found.
fn bare_path() -> BarePath {
    bare_path_of(&std::env::var_os("PATH").unwrap_or_default())
}

/// A PATH that hides `wsl-place`, and the stand-in folders it names.
struct BarePath {
    path: std::ffi::OsString,
    _stand_ins: tempfile::TempDir,
}

/// `inherited` with each folder holding a `wsl-place` replaced by a folder of links to its other
/// entries: dropping the folder instead would drop `/usr/bin` (and bash with it) once the `.deb`
/// has put wsl-place there.
fn bare_path_of(inherited: &std::ffi::OsStr) -> BarePath {
    let stand_ins = tempfile::tempdir().expect("a temporary folder for PATH stand-ins");
    let dirs: Vec<PathBuf> = std::env::split_paths(inherited)
        .enumerate()
        .map(|(index, dir)| {
            if !dir.join("wsl-place").exists() {
                return dir;
            }
            let stand_in = stand_ins.path().join(index.to_string());
            std::fs::create_dir(&stand_in).unwrap();
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                if entry.file_name() != "wsl-place" {
                    std::os::unix::fs::symlink(entry.path(), stand_in.join(entry.file_name()))
                        .unwrap();
                }
            }
            stand_in
        })
        .collect();
    BarePath {
        path: std::env::join_paths(dirs).unwrap(),
        _stand_ins: stand_ins,
    }
}

/// The README's `repo: local` snippet, pasted as is, runs the installed wsl-place.
#[test]
fn readme_local_hook_snippet_works_as_written() {
    if pre_commit().is_none() {
        return;
    }
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let snippet = readme
        .split("```yaml\n")
        .skip(1)
        .filter_map(|block| block.split("```").next())
        .find(|block| block.contains("repo: local"))
        .expect("README.md has a ```yaml block with `repo: local`");
    let sandbox = Tools::new();
    let project = sandbox.project();
    std::fs::write(project.join(".pre-commit-config.yaml"), snippet).unwrap();
    let out = sandbox
        .command("pre-commit", &project)
        .args(["run", "--all-files"])
        .output()
        .unwrap();
    let shown = text(&out);
    assert!(out.status.success(), "{shown}");
    assert!(
        shown.contains("wsl-place: advise ("),
        "no advisory line:\n{shown}"
    );
}

/// Issue 26: no command a user copies from the README or docs/ holds a placeholder to replace.
#[test]
fn copied_commands_hold_no_placeholder() {
    let mut documents = vec![repo_root().join("README.md")];
    for entry in std::fs::read_dir(repo_root().join("docs")).unwrap() {
        documents.push(entry.unwrap().path());
    }
    for document in documents {
        let text = std::fs::read_to_string(&document).unwrap();
        for block in text.split("```").skip(1).step_by(2) {
            assert!(
                !block.contains("OWNER"),
                "{} has a code block with an OWNER placeholder:\n{block}",
                document.display()
            );
        }
    }
}

/// The ```sh blocks of the README's "## Install" section.
fn readme_install_blocks(readme: &str) -> Vec<&str> {
    let section = readme
        .split("\n## Install\n")
        .nth(1)
        .and_then(|section| section.split("\n## ").next())
        .expect("README.md has an \"## Install\" section");
    section
        .split("```sh\n")
        .skip(1)
        .filter_map(|block| block.split("```").next())
        .collect()
}

/// Issue 55: `cargo install` builds from Cargo.lock (`--locked`), as ripgrep and uv document, and
/// no install line runs pip outside a virtualenv, which Debian and Ubuntu refuse (PEP 668,
/// "externally-managed-environment"): maturin comes through `uvx`.
#[test]
fn readme_install_lines_are_locked_and_pep_668_proof() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let blocks = readme_install_blocks(&readme);
    let commands: Vec<&str> = blocks
        .iter()
        .flat_map(|block| block.lines())
        .map(|line| line.split(" #").next().unwrap_or_default())
        .collect();
    for command in &commands {
        for step in command.split("&&").map(str::trim) {
            assert!(
                !step.starts_with("pip install") && !step.starts_with("pip3 install"),
                "a pip install outside a virtualenv fails under PEP 668: {command}"
            );
            if step.starts_with("cargo install") && step.contains("--path") {
                assert!(step.contains("--locked"), "not --locked: {command}");
            }
        }
    }
    // maturin pinned, so the line builds today what CI built (.ci/run runs it as written).
    let ci = std::fs::read_to_string(repo_root().join(".ci/run")).unwrap();
    let maturin = commands
        .iter()
        .flat_map(|command| command.split("&&").map(str::trim))
        .find(|step| step.starts_with("uvx maturin@") && step.ends_with(" build --release"))
        .unwrap_or_else(|| {
            panic!(
                "no `uvx maturin@VERSION build --release` line in:\n{}",
                commands.join("\n")
            )
        });
    assert!(ci.contains(maturin), ".ci/run does not run `{maturin}`");
    // uv the way the README says (pipx, from PyPI: the registry CI reaches), pinned, and
    // .ci/run gets it by that very line.
    let uv = commands
        .iter()
        .flat_map(|command| command.split("&&").map(str::trim))
        .find(|step| step.starts_with("pipx install uv=="))
        .expect("the README's Install section gets uv with a pinned `pipx install uv==VERSION`");
    assert!(ci.contains(uv), ".ci/run does not get uv by `{uv}`");
}

/// The Rust the README asks for is the one Cargo.toml declares (gix sets it: see Cargo.toml).
#[test]
fn readme_names_the_minimum_rust_cargo_declares() {
    let manifest = std::fs::read_to_string(repo_root().join("Cargo.toml")).unwrap();
    let minimum = manifest
        .lines()
        .find_map(|line| line.strip_prefix("rust-version = "))
        .expect("Cargo.toml declares rust-version")
        .trim_matches('"');
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let wanted = format!("With Rust {minimum} or newer: ");
    assert!(readme.contains(&wanted), "README.md lacks {wanted:?}");
}

/// The README's install lines, run as written in a fresh, empty home, `cargo install --locked
/// --path .` too (offline, from this checkout's lock, into the home's `~/.cargo`; the release build
/// `.ci/run` made before, `cargo deb`'s, is the same build, so it is reused); afterwards `man`
/// finds the page and bash has a completion script to load.
#[test]
fn readme_install_lines_work_in_a_fresh_home() {
    run_readme_install_lines(&std::env::var_os("PATH").unwrap_or_default());
}

/// Issue 55: with the `.deb` installed, `/usr/bin` holds wsl-place beside bash, cp and man. Here
/// one folder plays `/usr/bin`: links to every program on PATH and a wsl-place that must not run.
#[test]
fn readme_install_lines_work_beside_an_installed_wsl_place() {
    let usr_bin = tempfile::tempdir().unwrap();
    let inherited = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&inherited) {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let link = usr_bin.path().join(entry.file_name());
            if !link.exists() && entry.file_name() != "wsl-place" {
                std::os::unix::fs::symlink(entry.path(), link).unwrap();
            }
        }
    }
    support::write_executable(
        &usr_bin.path().join("wsl-place"),
        "#!/bin/sh\necho 'the .deb wsl-place ran, not the one installed by the README' >&2\nexit 1\n",
    );
    run_readme_install_lines(usr_bin.path().as_os_str());
}

fn run_readme_install_lines(inherited_path: &std::ffi::OsStr) {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    // The block for people with Rust; the .deb and wheel blocks are tests/it/packaging.rs's.
    let install = readme_install_blocks(&readme)
        .into_iter()
        .find(|block| block.contains("cargo install --locked --path ."))
        .expect("README.md has a ```sh block with `cargo install --locked --path .` under \"## Install\"");
    let sandbox = Tools::new();
    let home = sandbox.sandbox.home();
    let cargo_bin = home.join(".cargo/bin");
    // Only the installed wsl-place may answer, not the one in target/; `cargo` is this
    // toolchain's own (rustup's proxy would look for its toolchains in the fresh home).
    let bare = bare_path_of(inherited_path);
    let toolchain = Path::new(env!("CARGO")).parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        [cargo_bin, toolchain]
            .into_iter()
            .chain(std::env::split_paths(&bare.path)),
    )
    .unwrap();
    let script = format!("set -euo pipefail\n{install}\n");
    let out = sandbox
        .command("bash", repo_root())
        .args(["-c", &script])
        .env("PATH", &path)
        // The crates come from this machine's cargo cache, offline; what is built lands in
        // this checkout's target/ (the same release build, reused) and is installed into
        // the fresh home's ~/.cargo, as `cargo install` does there.
        .env("CARGO_HOME", real_cargo_home())
        .env("CARGO_NET_OFFLINE", "true")
        .env("CARGO_TARGET_DIR", repo_root().join("target"))
        .env("CARGO_INSTALL_ROOT", home.join(".cargo"))
        .env_remove("MANPATH")
        .env_remove("XDG_DATA_HOME")
        .output()
        .unwrap();
    assert!(out.status.success(), "{script}\n{}", text(&out));

    let completion = home.join(".local/share/bash-completion/completions/wsl-place");
    let script = std::fs::read_to_string(&completion).unwrap_or_default();
    assert!(script.contains("complete"), "{completion:?}: {script:?}");
    match sandbox
        .command("man", repo_root())
        .args(["-w", "wsl-place"])
        .env("PATH", &path)
        .env_remove("MANPATH")
        .output()
    {
        Ok(found) => {
            let shown = text(&found);
            assert!(
                found.status.success() && shown.contains(&*home.to_string_lossy()),
                "man -w wsl-place did not find the installed page: {shown}"
            );
        }
        Err(e) => support::skip(&format!("man cannot run ({e}); install man-db")),
    }
}

/// The cargo home of the user running the tests: its registry cache has the locked crates.
fn real_cargo_home() -> std::path::PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")))
        .expect("HOME or CARGO_HOME is set")
}

/// Issue 55: the README's sample screens are the binary's, rendered by `bench/readme-screens.sh`
/// into the blocks it marks. Their figures are measured, so what is checked here is what does
/// not move: every screen the script renders has its marked block, each block is as wide as
/// the binary prints at 110 columns, and it begins with what the binary begins with.
#[test]
fn readme_sample_screens_are_the_ones_the_script_renders() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let script = std::fs::read_to_string(repo_root().join("bench/readme-screens.sh")).unwrap();
    let rendered: Vec<&str> = script
        .lines()
        .filter_map(|line| line.split(">\"$WORK/screens/").nth(1))
        .map(|name| name.trim_end_matches('"'))
        .collect();
    assert_eq!(
        rendered,
        ["check", "advisory"],
        "the script renders {rendered:?}"
    );
    for name in rendered {
        let marker = format!("<!-- readme-screen: {name} -->\n```\n");
        let block = readme
            .split(&marker)
            .nth(1)
            .and_then(|rest| rest.split("```").next())
            .unwrap_or_else(|| panic!("README.md has no block marked {marker:?}"));
        for line in block.lines() {
            assert!(
                line.chars().count() <= 110,
                "README's {name} screen has a line wider than 110 columns: {line:?}"
            );
        }
        let first = block.lines().next().unwrap_or_default();
        let answer = match name {
            "check" => ["ok: ", "advise: ", "move: "]
                .iter()
                .any(|verdict| first.starts_with(verdict)),
            _ => first.starts_with("wsl-place: ") && first.contains("wsl-place migrate "),
        };
        assert!(
            answer,
            "README's {name} screen does not begin as the binary's: {first:?}"
        );
    }
}
