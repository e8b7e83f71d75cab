//! pnpm's, yarn's and bun's samples on a cache filled by installing the project from its lock, as
//! a clone is installed: the sample is a lock of a few of the project's leaf packages, installed
//! offline and frozen, so the manager's own work is `measured`. The packages come from a
//! registry on 127.0.0.1 (`support::registry`), stopped before the check.

use crate::support;
use crate::support::Run;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::gitrepo::{init_and_commit_all, write};
use support::registry::Registry;
use support::sandbox::Sandbox;
use support::text;

const LEAVES: usize = 3;

/// Folders of pinned manager builds, one per supported major, that `.ci/run` installs and
/// lists here (colon-separated `bin` folders); each test runs once per build of its manager.
const BUILDS_ENV: &str = "WSL_PLACE_TEST_JS_BINS";

/// One build of a manager: the PATH it is first on, and what it says its version is.
struct Build {
    path: std::ffi::OsString,
    label: String,
}

impl Build {
    fn major(&self) -> u32 {
        self.label
            .split_whitespace()
            .nth(1)
            .and_then(|v| v.split('.').next())
            .and_then(|m| m.parse().ok())
            .unwrap_or(0)
    }
}

/// The builds of `program` to test: each folder of `BUILDS_ENV` that holds it, else the one on
/// PATH; none (a skip, a failure in CI) when there is none or npm, which packs the registry's
/// packages, is missing.
fn builds(program: &str) -> Vec<Build> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let listed: Vec<PathBuf> = std::env::var_os(BUILDS_ENV)
        .map(|dirs| std::env::split_paths(&dirs).collect())
        .unwrap_or_default();
    let mut paths: Vec<std::ffi::OsString> = listed
        .iter()
        .filter(|dir| dir.join(program).is_file())
        .filter_map(|dir| {
            let rest = std::env::split_paths(&path);
            std::env::join_paths(std::iter::once(dir.clone()).chain(rest)).ok()
        })
        .collect();
    if paths.is_empty() {
        paths.push(path);
    }
    let version = |path: &std::ffi::OsStr, p: &str| {
        Command::new(p)
            .arg("--version")
            .env("PATH", path)
            .current_dir("/")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let found: Vec<Build> = paths
        .into_iter()
        .filter_map(|path| {
            version(&path, "npm")?;
            let label = format!("{program} {}", version(&path, program)?);
            Some(Build { path, label })
        })
        .collect();
    if found.is_empty() {
        support::skip(&format!(
            "{program} or npm is not installed (.ci/run installs them)"
        ));
    }
    found
}

/// `program` in `sandbox` and `dir`, its registry `registry`: named in the sandbox's
/// `~/.npmrc`, the one setting every supported version of npm, pnpm, yarn classic and bun reads
/// (pnpm 11 and later ignore `npm_config_registry` in the environment, which older tests used).
fn in_sandbox(
    sandbox: &Sandbox,
    build: &Build,
    program: &str,
    dir: &Path,
    registry: &str,
) -> Command {
    point_at_registry(sandbox, registry);
    let mut cmd = sandbox.program(program);
    cmd.current_dir(dir)
        .env("PATH", &build.path)
        .env_remove("npm_config_registry")
        .env_remove("NPM_CONFIG_REGISTRY")
        .env_remove("npm_config_cache")
        .env_remove("YARN_CACHE_FOLDER");
    cmd
}

/// The sandbox's `~/.npmrc` names `registry` and nothing else: the person's own npm config,
/// which the managers read wherever they start (wsl-place starts them in a folder of its own).
fn point_at_registry(sandbox: &Sandbox, registry: &str) {
    write(
        &sandbox.path(".npmrc"),
        format!("registry={registry}\n").as_bytes(),
    );
}

fn run_ok(build: &Build, cmd: &mut Command) {
    let out = cmd.run();
    assert!(
        out.status.success(),
        "{}: {cmd:?}: {}",
        build.label,
        text(&out)
    );
}

/// Every cache a manager keeps in the sandbox (pnpm's store and metadata, yarn's and bun's
/// caches, wsl-place's own): what a first install on this machine starts from.
fn clear_caches(sandbox: &Sandbox) {
    for dir in [sandbox.cache(), sandbox.path(".local/share/pnpm")] {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// A committed project depending on the registry's leaves, its lock written by a first
/// install; then every cache emptied and the project installed again from its lock alone
/// (frozen), as a clone is: the caches hold what the lock names and no registry metadata.
fn project_from_lock(
    sandbox: &Sandbox,
    build: &Build,
    manager: &str,
    registry: &Registry,
) -> PathBuf {
    let project = sandbox.path("project");
    let deps: serde_json::Map<String, Value> = (0..LEAVES)
        .map(|i| (format!("wsl-place-test-leaf-{i}"), "1.0.0".into()))
        .collect();
    let manifest = serde_json::json!({"name": "project", "version": "1.0.0", "license": "MIT", "dependencies": deps});
    write(
        &project.join("package.json"),
        manifest.to_string().as_bytes(),
    );
    write(&project.join(".gitignore"), b"node_modules/\n");
    let url = registry.url();
    let install = |args: &[&str]| {
        run_ok(
            build,
            in_sandbox(sandbox, build, manager, &project, url).args(args),
        )
    };
    install(&["install"]);
    let lock = [
        "package-lock.json",
        "pnpm-lock.yaml",
        "yarn.lock",
        "bun.lock",
    ]
    .into_iter()
    .find(|f| project.join(f).is_file())
    .unwrap_or_else(|| panic!("{} wrote no text lock", build.label));
    assert!(
        std::fs::read_to_string(project.join(lock))
            .unwrap()
            .contains("wsl-place-test-leaf-0"),
        "{}: {lock}",
        build.label
    );
    std::fs::remove_dir_all(project.join("node_modules")).unwrap();
    clear_caches(sandbox);
    if manager == "npm" {
        install(&["ci"]);
    } else {
        install(&["install", "--frozen-lockfile"]);
    }
    assert!(
        project
            .join("node_modules/wsl-place-test-leaf-0/index.js")
            .is_file(),
        "{}",
        build.label
    );
    init_and_commit_all(&project, "init");
    project
}

/// What the sample did before it read the lock: the project's package.json alone, offline,
/// in a folder of its own. Its output when it failed; None when it installed.
fn bare_install_fails(
    sandbox: &Sandbox,
    build: &Build,
    manager: &str,
    project: &Path,
    url: &str,
) -> Option<String> {
    let bare = sandbox.path("bare");
    std::fs::create_dir_all(&bare).unwrap();
    std::fs::copy(project.join("package.json"), bare.join("package.json")).unwrap();
    let out = in_sandbox(sandbox, build, manager, &bare, url)
        .args(["install", "--offline", "--ignore-scripts"])
        .run();
    (!out.status.success()).then(|| text(&out))
}

/// The check's `install_manager`, fresh, with the registry stopped.
fn manager_timing(sandbox: &Sandbox, build: &Build, project: &Path) -> Value {
    let mut cmd = sandbox.cmd();
    cmd.env("PATH", &build.path);
    cmd.args([
        "check",
        "--probe-budget-ms",
        "300",
        "--format",
        "json",
        "--fresh",
    ])
    .arg(project);
    let report = cmd.run().ok_json();
    report["predict"]["install_manager"].clone()
}

/// The human report of `check` on `project` with `build` first on PATH, its words joined by
/// single spaces (the report wraps at the terminal's width).
fn report_words(sandbox: &Sandbox, build: &Build, project: &Path) -> String {
    let out = sandbox
        .cmd()
        .args(["check", "--probe-budget-ms", "300"])
        .arg(project)
        .env("PATH", &build.path)
        .run();
    text(&out).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The sample of `manager` on a project installed from its lock is measured from the lock, with
/// each build of it; the same packages from package.json alone (the old sample) fail offline
/// where `bare_fails` says so for that build's major.
fn sample_from_lock_is_measured(manager: &str, bare_fails: fn(u32) -> bool) {
    for build in builds(manager) {
        let sandbox = Sandbox::new();
        let mut registry = Registry::with_leaves(&sandbox.path("packs"), LEAVES);
        let url = registry.url().to_string();
        let project = project_from_lock(&sandbox, &build, manager, &registry);
        registry.stop();
        let bare = bare_install_fails(&sandbox, &build, manager, &project, &url);
        if bare_fails(build.major()) {
            assert!(
                bare.is_some(),
                "{} installed package.json alone offline",
                build.label
            );
        }
        let timing = manager_timing(&sandbox, &build, &project);
        let label = &build.label;
        assert_eq!(timing["manager"], manager, "{label}: {timing}");
        assert_eq!(timing["source"], "measured", "{label}: {timing}");
        assert_eq!(timing["sample_packages"], LEAVES, "{label}: {timing}");
        assert!(timing.get("sample_failed").is_none(), "{label}: {timing}");
        assert!(
            timing["sample_files"].as_u64().unwrap() >= 6 * LEAVES as u64,
            "{label}: {timing}"
        );
        assert_eq!(timing["sample_from_lock"], true, "{label}: {timing}");
        eprintln!("{label}: its sample of a lock measured, {timing}");
    }
}

#[test]
fn npms_sample_installs_a_lock_from_its_cache() {
    // npm 10 answers package.json alone from a cache `npm ci` filled, so only the lock's
    // sample is asserted.
    sample_from_lock_is_measured("npm", |_| false);
}

#[test]
fn pnpms_sample_installs_a_lock_from_the_store() {
    // pnpm 11 and later resolve an exact version from the store alone.
    sample_from_lock_is_measured("pnpm", |major| major < 11);
}

#[test]
fn yarns_sample_installs_a_lock_from_its_cache() {
    // yarn classic finds a package of an exact version in its cache without the registry's
    // metadata: package.json alone installs too.
    sample_from_lock_is_measured("yarn", |_| false);
}

#[test]
fn buns_sample_installs_a_lock_from_its_cache() {
    sample_from_lock_is_measured("bun", |_| true);
}

/// A sample that cannot be installed from the cache says why in the manager's words, in JSON
/// and on the report's line, with each build of pnpm: here the store kept its index but lost
/// the packages' contents after the project was installed, so pnpm is started and fails. With
/// the store gone too, pnpm is not started at all (issue 68): the store's index is read first,
/// and the reason says that none of the sample's packages is there.
#[test]
fn a_failed_lock_sample_says_why_in_the_managers_words() {
    for build in builds("pnpm") {
        let label = &build.label;
        let sandbox = Sandbox::new();
        let mut registry = Registry::with_leaves(&sandbox.path("packs"), LEAVES);
        let project = project_from_lock(&sandbox, &build, "pnpm", &registry);
        registry.stop();
        // The contents go, each package's index stays (pnpm 10 keeps it under `index/`,
        // pnpm 9 beside the contents as `<hash>-index.json`).
        let store = sandbox.path(".local/share/pnpm/store");
        for entry in walkdir::WalkDir::new(&store).into_iter().flatten() {
            let name = entry.file_name().to_string_lossy();
            let in_files = entry.path().components().any(|c| c.as_os_str() == "files");
            if entry.file_type().is_file() && in_files && !name.ends_with("-index.json") {
                std::fs::remove_file(entry.path()).unwrap();
            }
        }
        let timing = manager_timing(&sandbox, &build, &project);
        assert_eq!(timing["source"], "estimated", "{label}: {timing}");
        let why = timing["sample_failed"].as_str().unwrap_or_default();
        assert!(why.starts_with("ERR_PNPM_"), "{label}: {timing}");
        assert_eq!(
            timing["sample_failed_kind"]["kind"], "said",
            "{label}: {timing}"
        );
        let shown = report_words(&sandbox, &build, &project);
        assert!(
            shown.contains(
                "pnpm's sample install failed here, so its own work is estimated: ERR_PNPM"
            ),
            "{label}: {shown}"
        );
        eprintln!("{label}: a failed sample says {why:?}");

        let _ = std::fs::remove_dir_all(sandbox.path(".local/share/pnpm"));
        let fresh = Sandbox::new();
        let timing = manager_timing(&fresh, &build, &project);
        let kind = &timing["sample_failed_kind"];
        assert_eq!(kind["kind"], "cache_lacks_all", "{label}: {timing}");
        assert_eq!(kind["manager"], "pnpm", "{label}: {timing}");
        assert!(
            kind["packages"].as_u64().unwrap_or(0) > 0,
            "{label}: {timing}"
        );
    }
}

/// A manager build outside the tested majors is not sampled: its reference fit stands in, and
/// the report says why in one line. The build is a stand-in `pnpm` that says it is 99.0.0 and
/// leaves a mark if anything but its version is asked.
#[test]
fn an_untested_major_is_estimated_and_says_so() {
    let sandbox = Sandbox::new();
    let bin = sandbox.path("bin");
    let mark = sandbox.path("pnpm-ran");
    std::fs::create_dir_all(&bin).unwrap();
    support::write_executable(
        &bin.join("pnpm"),
        &format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 99.0.0; exit 0; fi\ntouch '{}'\nexit 1\n",
            mark.display()
        ),
    );
    let project = sandbox.path("project");
    write(
        &project.join("package.json"),
        br#"{"name":"p","version":"1.0.0","dependencies":{"a":"1.0.0"}}"#,
    );
    write(
        &project.join("pnpm-lock.yaml"),
        b"lockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    dependencies:\n      a:\n        specifier: 1.0.0\n        version: 1.0.0\n\npackages:\n\n  a@1.0.0:\n    resolution: {integrity: sha512-AAAA}\n\nsnapshots:\n\n  a@1.0.0: {}\n",
    );
    write(
        &project.join("node_modules/a/package.json"),
        br#"{"name":"a","version":"1.0.0"}"#,
    );
    write(&project.join(".gitignore"), b"node_modules/\n");
    init_and_commit_all(&project, "init");
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let build = Build {
        path,
        label: "pnpm 99.0.0".into(),
    };
    let timing = manager_timing(&sandbox, &build, &project);
    assert_eq!(timing["source"], "estimated", "{timing}");
    assert_eq!(timing["version"], "99.0.0", "{timing}");
    assert_eq!(
        timing["sample_skipped_kind"],
        serde_json::json!({"kind": "untested_version", "manager": "pnpm", "version": "99.0.0", "side": "newer", "tested": [9, 12]}),
        "{timing}"
    );
    let why = timing["sample_skipped"].as_str().unwrap_or_default();
    assert!(
        why.contains(
            "pnpm 99.0.0 is newer than the pnpm versions wsl-place is tested with (9 to 12)"
        ),
        "{timing}"
    );
    assert!(
        !mark.exists(),
        "the untested pnpm was asked more than its version"
    );
    let shown = report_words(&sandbox, &build, &project);
    assert!(
        shown.contains("not sampled pnpm 99.0.0 is newer than"),
        "{shown}"
    );
}

/// yarn classic's lock has no platform fields: a leaf that only another platform's optional
/// dependency reaches (esbuild's binaries for other systems, in immerjs/immer's lock) is not in
/// yarn's cache here and yarn refuses it, so the sample leaves it out and is still measured.
/// Before, it was sampled and the whole sample failed, leaving the project an estimate.
#[test]
fn yarns_sample_leaves_out_another_platforms_binary() {
    for build in builds("yarn") {
        let label = &build.label;
        let sandbox = Sandbox::new();
        let mut registry = Registry::with_leaves(&sandbox.path("packs"), LEAVES);
        let project = project_from_lock(&sandbox, &build, "yarn", &registry);
        registry.stop();
        let mut lock = std::fs::read_to_string(project.join("yarn.lock")).unwrap();
        lock.push_str(concat!(
            "\nwsl-place-test-watch@^1.0.0:\n  version \"1.0.0\"\n",
            "  resolved \"https://registry.yarnpkg.com/wsl-place-test-watch/-/wsl-place-test-watch-1.0.0.tgz#00\"\n",
            "  integrity sha512-Vw==\n  optionalDependencies:\n    wsl-place-test-darwin-arm64 \"1.0.0\"\n",
            "\nwsl-place-test-darwin-arm64@1.0.0:\n  version \"1.0.0\"\n",
            "  resolved \"https://registry.yarnpkg.com/wsl-place-test-darwin-arm64/-/wsl-place-test-darwin-arm64-1.0.0.tgz#00\"\n",
            "  integrity sha512-RA==\n",
        ));
        write(&project.join("yarn.lock"), lock.as_bytes());
        support::gitrepo::commit_all(&project, "another platform's binary in the lock");
        let timing = manager_timing(&sandbox, &build, &project);
        assert_eq!(timing["source"], "measured", "{label}: {timing}");
        assert_eq!(timing["sample_packages"], LEAVES, "{label}: {timing}");
        assert!(timing.get("sample_failed").is_none(), "{label}: {timing}");
    }
}
