//! Repositories whose package lists name code to run or places to write (issue 49): the
//! package managers' samples must install only plain registry pins, from a folder of their own,
//! with options none of which come from the repository. Each payload leaves a marker outside the
//! repository if it runs (or a connection on a local port if it is fetched); `check` is run on
//! each with the manager on PATH, and the test asserts the marker is absent.

use crate::support;

use serde_json::Value;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use support::gitrepo::{init_and_commit_all, write};
use support::sandbox::Sandbox;

/// A sandbox, a repository in it, and a marker path outside both that a payload creates.
struct Hostile {
    sandbox: Sandbox,
    elsewhere: tempfile::TempDir,
}

impl Hostile {
    fn new() -> Self {
        Self {
            sandbox: Sandbox::new(),
            elsewhere: tempfile::tempdir().unwrap(),
        }
    }

    fn repo(&self) -> PathBuf {
        self.sandbox.path("src/project")
    }

    fn marker(&self) -> PathBuf {
        self.elsewhere.path().join("payload-ran")
    }

    /// A Python package folder whose in-tree build backend creates the marker when imported:
    /// building it (pip, uv) runs it, without the network.
    fn evil_python_package(&self, dir: &Path) {
        let touch = format!("touch '{}'", self.marker().display());
        support::payloads::evil_python_package(dir, &touch);
    }

    /// `check --fresh --format json` on the repository, started inside it (as a person types
    /// `wsl-place check` in a fresh clone), with `path` first on PATH and `env` set.
    fn check(&self, path: Option<&Path>, env: &[(&str, &str)]) -> Value {
        let mut cmd = self.sandbox.cmd();
        cmd.args([
            "check",
            "--fresh",
            "--probe-budget-ms",
            "300",
            "--format",
            "json",
            ".",
        ])
        .current_dir(self.repo());
        if let Some(dir) = path {
            let rest = std::env::var_os("PATH").unwrap_or_default();
            let joined = std::env::join_paths(
                std::iter::once(dir.to_path_buf()).chain(std::env::split_paths(&rest)),
            )
            .unwrap();
            cmd.env("PATH", joined);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        support::bounded(cmd, std::time::Duration::from_secs(120)).ok_json()
    }

    fn assert_nothing_ran(&self, report: &Value) {
        assert!(
            !self.marker().exists(),
            "the repository's code ran: {}",
            report["predict"]["install_manager"]
        );
    }
}

/// A port on 127.0.0.1 that counts the connections made to it (and answers none).
fn listening_port() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&count);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            seen.fetch_add(1, Ordering::SeqCst);
            drop(stream);
        }
    });
    (port, count)
}

/// A requirements line that reads as `NAME==VERSION` to a careless parser but is a local path
/// with a pip option (pip would build the folder and run its backend), and one that is a URL
/// (pip would fetch it): neither is installed, and the report counts them as left out.
#[test]
fn a_requirements_path_or_url_line_is_never_installed() {
    if !support::have_program("pip") {
        return;
    }
    let h = Hostile::new();
    let evil = h.elsewhere.path().join("evilpkg");
    h.evil_python_package(&evil);
    let (port, connections) = listening_port();
    let requirements = format!(
        "{} --config-settings=a==1\nevilpkg @ http://127.0.0.1:{port}/evilpkg-1.0.tar.gz?x==1.0\n",
        evil.display()
    );
    write(&h.repo().join("requirements.txt"), requirements.as_bytes());
    init_and_commit_all(&h.repo(), "init");
    let report = h.check(None, &[]);
    h.assert_nothing_ran(&report);
    assert_eq!(connections.load(Ordering::SeqCst), 0, "pip fetched the URL");
    let timing = &report["predict"]["install_manager"];
    assert_eq!(timing["manager"], "pip", "{timing}");
    assert_eq!(timing["sample_left_out"], 2, "{timing}");
    assert!(!evil.join("evilpkg.egg-info").exists());
}

/// An exact pin of a package that only has a source distribution (here in the person's own
/// `PIP_FIND_LINKS` folder, as an index would offer it): pip would build it and run its
/// backend; the sample takes wheels only.
#[test]
fn an_sdist_only_pin_is_never_built() {
    if !support::have_program("pip") {
        return;
    }
    let h = Hostile::new();
    let links = h.elsewhere.path().join("links");
    let source = h.elsewhere.path().join("build/evilpkg-1.0");
    h.evil_python_package(&source);
    write(
        &source.join("PKG-INFO"),
        b"Metadata-Version: 2.1\nName: evilpkg\nVersion: 1.0\n",
    );
    std::fs::create_dir_all(&links).unwrap();
    let packed = Command::new("tar")
        .arg("-czf")
        .arg(links.join("evilpkg-1.0.tar.gz"))
        .arg("-C")
        .arg(source.parent().unwrap())
        .arg("evilpkg-1.0")
        .status()
        .unwrap();
    assert!(packed.success());
    write(&h.repo().join("requirements.txt"), b"evilpkg==1.0\n");
    init_and_commit_all(&h.repo(), "init");
    let links = links.display().to_string();
    let report = h.check(None, &[("PIP_FIND_LINKS", &links), ("PIP_NO_INDEX", "1")]);
    h.assert_nothing_ran(&report);
    let timing = &report["predict"]["install_manager"];
    assert_eq!(timing["source"], "estimated", "{timing}");
}

/// A uv project whose lock names a directory by a relative path that, from a scratch folder in
/// HOME, reaches a package beside the person's repositories, and whose `pyproject.toml` names
/// an in-tree build backend and a cache folder: uv would import the backends and write there.
#[test]
fn a_uv_lock_with_path_sources_is_never_synced() {
    if !support::have_program("uv") {
        return;
    }
    let h = Hostile::new();
    // What `../evil` reaches from a folder directly in HOME.
    h.evil_python_package(&h.sandbox.path("evil"));
    let cache = h.elsewhere.path().join("uv-cache");
    let pyproject = format!(
        "[project]\nname = \"proj\"\nversion = \"0.1.0\"\nrequires-python = \">=3.8\"\ndependencies = [\"evilpkg\"]\n\n[tool.uv]\ncache-dir = {:?}\n\n[tool.uv.sources]\nevilpkg = {{ path = \"../evil\" }}\n",
        cache.display().to_string()
    );
    write(&h.repo().join("pyproject.toml"), pyproject.as_bytes());
    write(
        &h.repo().join("uv.lock"),
        b"version = 1\nrevision = 3\nrequires-python = \">=3.8\"\n\n[[package]]\nname = \"evilpkg\"\nversion = \"1.0\"\nsource = { directory = \"../evil\" }\n\n[[package]]\nname = \"proj\"\nversion = \"0.1.0\"\nsource = { virtual = \".\" }\ndependencies = [\n    { name = \"evilpkg\" },\n]\n\n[package.metadata]\nrequires-dist = [{ name = \"evilpkg\", directory = \"../evil\" }]\n",
    );
    init_and_commit_all(&h.repo(), "init");
    let report = h.check(None, &[]);
    h.assert_nothing_ran(&report);
    assert!(
        !cache.exists(),
        "uv wrote to the cache the repository named"
    );
    let timing = &report["predict"]["install_manager"];
    assert_eq!(timing["manager"], "uv", "{timing}");
}

/// A committed `node_modules/.modules.yaml` naming a store folder: pnpm would make its store
/// there. The sample reads the store pnpm reports for the person.
#[test]
fn a_store_the_repository_names_is_never_used() {
    if !support::have_program("pnpm") {
        return;
    }
    let h = Hostile::new();
    let planted = h.elsewhere.path().join("planted-store");
    std::fs::create_dir_all(&planted).unwrap();
    write(
        &h.repo().join("package.json"),
        br#"{"name":"p","version":"1.0.0","dependencies":{"ms":"2.1.2"}}"#,
    );
    write(
        &h.repo().join("pnpm-lock.yaml"),
        b"lockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    dependencies:\n      ms:\n        specifier: 2.1.2\n        version: 2.1.2\n\npackages:\n\n  ms@2.1.2:\n    resolution: {integrity: sha512-sGkPx+VjMtmA6MX27oA4FBFELFCZZ4S4XqeGOXCv68tT+jb3vk/RyaKWP0PTKyWtmLSM0b+adUTEvbs1PEaH2w==}\n\nsnapshots:\n\n  ms@2.1.2: {}\n",
    );
    write(
        &h.repo().join("node_modules/.modules.yaml"),
        format!("storeDir: {}\nvirtualStoreDir: .pnpm\n", planted.display()).as_bytes(),
    );
    write(
        &h.repo().join("node_modules/ms/package.json"),
        br#"{"name":"ms","version":"2.1.2"}"#,
    );
    init_and_commit_all(&h.repo(), "init");
    let report = h.check(None, &[]);
    let entries: Vec<_> = std::fs::read_dir(&planted).unwrap().collect();
    assert!(
        entries.is_empty(),
        "pnpm wrote into the store the repository named: {entries:?}; {}",
        report["predict"]["install_manager"]
    );
}

/// A repository's `.yarnrc` names the program yarn classic runs (`yarn-path`), and its
/// `.npmrc` a script shell: started in the repository, yarn would run the planted script even
/// to say its version. The tool starts every manager elsewhere.
#[test]
fn a_yarn_path_in_the_repository_never_runs() {
    if !support::have_program("yarn") {
        return;
    }
    let h = Hostile::new();
    let planted = format!(
        "#!/usr/bin/env node\nrequire('fs').writeFileSync({:?}, '');\nconsole.log('1.22.22');\n",
        h.marker().display().to_string()
    );
    write(&h.repo().join("evil.js"), planted.as_bytes());
    write(&h.repo().join(".yarnrc"), b"yarn-path \"./evil.js\"\n");
    write(
        &h.repo().join("package.json"),
        br#"{"name":"p","version":"1.0.0","dependencies":{"ms":"2.1.2"}}"#,
    );
    write(
        &h.repo().join("yarn.lock"),
        b"# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.\n# yarn lockfile v1\n\n\nms@2.1.2:\n  version \"2.1.2\"\n  resolved \"https://registry.yarnpkg.com/ms/-/ms-2.1.2.tgz#4e0d6\"\n  integrity sha512-sGkPx+VjMtmA6MX27oA4FBFELFCZZ4S4XqeGOXCv68tT+jb3vk/RyaKWP0PTKyWtmLSM0b+adUTEvbs1PEaH2w==\n",
    );
    init_and_commit_all(&h.repo(), "init");
    let report = h.check(None, &[]);
    h.assert_nothing_ran(&report);
    assert_eq!(report["predict"]["install_manager"]["manager"], "yarn");
}

/// The folder of the person's own pip (`pip --version` names it), each file with its bytes.
fn persons_pip() -> Option<std::collections::BTreeMap<PathBuf, Vec<u8>>> {
    let out = Command::new("pip").arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let (_, rest) = text.split_once(" from ")?;
    let (folder, _) = rest.rsplit_once(" (python ")?;
    Some(crate::nothing_lost::files(Path::new(folder)))
}

/// A repository pinning `name==1.0`, offered as a wheel in the person's own `PIP_FIND_LINKS`
/// folder (as an index would offer it): `check`'s report.
fn pinned_wheel(h: &Hostile, name: &str, files: &[(&str, &str)]) -> Value {
    let links = h.elsewhere.path().join("links");
    support::payloads::wheel(&links, name, "1.0", files);
    write(
        &h.repo().join("requirements.txt"),
        format!("{name}==1.0\n").as_bytes(),
    );
    init_and_commit_all(&h.repo(), "init");
    let links = links.display().to_string();
    h.check(None, &[("PIP_FIND_LINKS", &links), ("PIP_NO_INDEX", "1")])
}

/// Issue 64: a registry wheel that ships a top-level `pip/` was written through the scratch
/// virtualenv's link into the person's own pip, which then ran it on every later pip run. The
/// sample now links nothing of the person's, and a package named as the installer is refused.
#[test]
fn a_wheel_that_ships_pip_never_reaches_the_persons_pip() {
    if !support::have_program("pip") {
        return;
    }
    let h = Hostile::new();
    let before = persons_pip();
    let touch = format!(
        "import os\nos.system(\"touch '{}'\")\n",
        h.marker().display()
    );
    let report = pinned_wheel(
        &h,
        "pipjack",
        &[("pipjack/__init__.py", ""), ("pip/__init__.py", &touch)],
    );
    h.assert_nothing_ran(&report);
    assert_eq!(persons_pip(), before, "the person's pip changed");
    let timing = &report["predict"]["install_manager"];
    assert_eq!(timing["source"], "estimated", "{timing}");
    assert!(
        timing["sample_failed"]
            .as_str()
            .is_some_and(|why| why.contains("`pip`")),
        "{timing}"
    );
}

/// Issue 64: a wheel whose scripts include one named `python` replaced the scratch
/// virtualenv's interpreter, which the next turn started. Every turn starts the base
/// interpreter by its own path, and such a package is refused.
#[test]
fn a_wheel_that_ships_a_python_script_is_never_started() {
    if !support::have_program("pip") {
        return;
    }
    let h = Hostile::new();
    let script = format!("#!/bin/sh\ntouch '{}'\n", h.marker().display());
    let report = pinned_wheel(
        &h,
        "pyscript",
        &[
            ("pyscript/__init__.py", ""),
            ("pyscript-1.0.data/scripts/python", &script),
            ("pyscript-1.0.data/scripts/python3", &script),
        ],
    );
    h.assert_nothing_ran(&report);
    let timing = &report["predict"]["install_manager"];
    assert_eq!(timing["source"], "estimated", "{timing}");
    assert!(
        timing["sample_failed"]
            .as_str()
            .is_some_and(|why| why.contains("`python")),
        "{timing}"
    );
}

/// The defence is not "never sample": a harmless pinned wheel offered the same way is timed.
#[test]
fn a_harmless_pinned_wheel_is_still_sampled() {
    if !support::have_program("pip") {
        return;
    }
    let h = Hostile::new();
    let report = pinned_wheel(
        &h,
        "harmless",
        &[
            ("harmless/__init__.py", "VALUE = 1\n"),
            ("harmless/data.txt", "x\n"),
        ],
    );
    let timing = &report["predict"]["install_manager"];
    assert_eq!(timing["manager"], "pip", "{timing}");
    assert_eq!(timing["source"], "measured", "{timing}");
}
