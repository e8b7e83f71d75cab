//! pnpm's, yarn's and bun's samples on a cache filled by installing the project from its lock, as
//! a clone is installed: the sample is a lock of a few of the project's leaf packages, installed
//! offline and frozen, so the manager's own work is `measured`. The packages come from a
//! registry on 127.0.0.1 (`support::registry`), stopped before the check.

use crate::support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::gitrepo::{init_and_commit_all, write};
use support::registry::Registry;
use support::sandbox::Sandbox;
use support::{json_of_success, text};

const LEAVES: usize = 3;

/// `program` and npm (which packs the registry's packages) are installed; else a skip.
fn have(program: &str) -> bool {
    let runs = |p: &str| {
        Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let found = runs(program) && runs("npm");
    if !found {
        support::skip(&format!(
            "{program} or npm is not installed (.ci/run installs them)"
        ));
    }
    found
}

/// `program` in `sandbox` and `dir`, its registry `registry` (npm_config_registry, which pnpm
/// and yarn read, and NPM_CONFIG_REGISTRY, bun's).
fn in_sandbox(sandbox: &Sandbox, program: &str, dir: &Path, registry: &str) -> Command {
    let mut cmd = sandbox.program(program);
    cmd.current_dir(dir)
        .env("npm_config_registry", registry)
        .env("NPM_CONFIG_REGISTRY", registry)
        .env_remove("npm_config_cache")
        .env_remove("YARN_CACHE_FOLDER");
    cmd
}

fn run_ok(cmd: &mut Command) {
    let out = cmd.output().expect("the package manager starts");
    assert!(out.status.success(), "{cmd:?}: {}", text(&out));
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
fn project_from_lock(sandbox: &Sandbox, manager: &str, registry: &Registry) -> PathBuf {
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
    run_ok(in_sandbox(sandbox, manager, &project, url).arg("install"));
    let lock = ["pnpm-lock.yaml", "yarn.lock", "bun.lock"]
        .into_iter()
        .find(|f| project.join(f).is_file())
        .unwrap_or_else(|| panic!("{manager} wrote no text lock"));
    assert!(
        std::fs::read_to_string(project.join(lock))
            .unwrap()
            .contains("wsl-place-test-leaf-0"),
        "{lock}"
    );
    std::fs::remove_dir_all(project.join("node_modules")).unwrap();
    clear_caches(sandbox);
    run_ok(in_sandbox(sandbox, manager, &project, url).args(["install", "--frozen-lockfile"]));
    assert!(
        project
            .join("node_modules/wsl-place-test-leaf-0/index.js")
            .is_file()
    );
    init_and_commit_all(&project, "init");
    project
}

/// What the sample did before it read the lock: the project's package.json alone, offline,
/// in a folder of its own. Its output when it failed; None when it installed.
fn bare_install_fails(
    sandbox: &Sandbox,
    manager: &str,
    project: &Path,
    url: &str,
) -> Option<String> {
    let bare = sandbox.path("bare");
    std::fs::create_dir_all(&bare).unwrap();
    std::fs::copy(project.join("package.json"), bare.join("package.json")).unwrap();
    let out = in_sandbox(sandbox, manager, &bare, url)
        .args(["install", "--offline", "--ignore-scripts"])
        .output()
        .unwrap();
    (!out.status.success()).then(|| text(&out))
}

/// The check's `install_manager`, fresh, with the registry stopped.
fn manager_timing(sandbox: &Sandbox, project: &Path, url: &str) -> Value {
    let mut cmd = sandbox.cmd();
    cmd.args([
        "check",
        "--probe-budget-ms",
        "300",
        "--format",
        "json",
        "--fresh",
    ])
    .arg(project)
    .env("npm_config_registry", url)
    .env("NPM_CONFIG_REGISTRY", url);
    let report = json_of_success(&cmd.output().expect("wsl-place starts"));
    report["predict"]["install_manager"].clone()
}

/// The sample of `manager` on a project installed from its lock is measured from the lock, and
/// the same packages from package.json alone (the old sample) fail offline where `bare_fails`.
fn sample_from_lock_is_measured(manager: &str, bare_fails: bool) {
    if !have(manager) {
        return;
    }
    let sandbox = Sandbox::new();
    let mut registry = Registry::with_leaves(&sandbox.path("packs"), LEAVES);
    let url = registry.url().to_string();
    let project = project_from_lock(&sandbox, manager, &registry);
    registry.stop();
    let bare = bare_install_fails(&sandbox, manager, &project, &url);
    if bare_fails {
        assert!(
            bare.is_some(),
            "{manager} installed package.json alone offline"
        );
    }
    let timing = manager_timing(&sandbox, &project, &url);
    assert_eq!(timing["manager"], manager, "{timing}");
    assert_eq!(timing["source"], "measured", "{timing}");
    assert_eq!(timing["sample_packages"], LEAVES, "{timing}");
    assert!(timing.get("sample_failed").is_none(), "{timing}");
    assert!(
        timing["sample_files"].as_u64().unwrap() >= 6 * LEAVES as u64,
        "{timing}"
    );
}

#[test]
fn pnpms_sample_installs_a_lock_from_the_store() {
    sample_from_lock_is_measured("pnpm", true);
}

#[test]
fn yarns_sample_installs_a_lock_from_its_cache() {
    // yarn classic finds a package of an exact version in its cache without the registry's
    // metadata: package.json alone installs too.
    sample_from_lock_is_measured("yarn", false);
}

#[test]
fn buns_sample_installs_a_lock_from_its_cache() {
    sample_from_lock_is_measured("bun", true);
}

/// A sample that cannot be installed from the cache says why in the manager's words, in JSON
/// and on the report's line: here pnpm's store was emptied after the project was installed.
#[test]
fn a_failed_lock_sample_says_why_in_the_managers_words() {
    if !have("pnpm") {
        return;
    }
    let sandbox = Sandbox::new();
    let mut registry = Registry::with_leaves(&sandbox.path("packs"), LEAVES);
    let url = registry.url().to_string();
    let project = project_from_lock(&sandbox, "pnpm", &registry);
    registry.stop();
    let _ = std::fs::remove_dir_all(sandbox.path(".local/share/pnpm"));
    let timing = manager_timing(&sandbox, &project, &url);
    assert_eq!(timing["source"], "estimated", "{timing}");
    let why = timing["sample_failed"].as_str().unwrap_or_default();
    assert!(why.contains("ERR_PNPM"), "{timing}");
    let out = sandbox
        .cmd()
        .args(["check", "--probe-budget-ms", "300"])
        .arg(&project)
        .env("npm_config_registry", &url)
        .output()
        .unwrap();
    let shown = text(&out).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        shown.contains("pnpm's sample install failed here, so its own work is estimated: ERR_PNPM"),
        "{shown}"
    );
}
