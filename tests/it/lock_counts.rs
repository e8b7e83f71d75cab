//! A JavaScript project checked before its install (a clone with its lock, no `node_modules`):
//! the tree the install would place is counted from pnpm's, yarn classic's or bun's lock, this
//! machine's packages only, so the check predicts an install (it predicted none before). The
//! locks are the real-shaped excerpts of tests/fixtures/locks; each manager is a stand-in that
//! names its version and fails the rest, so its timing is the reference fit.

use crate::support;
use support::Run;

use serde_json::Value;
use std::fs;
use std::path::Path;
use support::gitrepo::{path_with, repo_with_files, write};

/// `name` says `version` and fails everything else, but answers `store path` with `store`
/// when given (pnpm's question for its store).
fn fake_manager_with_store(name: &str, version: &str, store: Option<&Path>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let store = store.map_or(String::new(), |s| {
        format!(
            "if [ \"$1\" = store ]; then echo {}; exit 0; fi\n",
            s.display()
        )
    });
    support::write_executable(
        &dir.path().join(name),
        &format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo {version}; exit 0; fi\n{store}exit 1\n"
        ),
    );
    dir
}

/// The check's `predict` for a committed project holding the fixture `fixture` as `lock`.
fn predict_with_lock(manager: (&str, &str), fixture: &str, lock: &str) -> Value {
    predict_with_lock_and_store(manager, fixture, lock, None)
}

/// The same with pnpm's store at `store` (None: the manager names none).
fn predict_with_lock_and_store(
    manager: (&str, &str),
    fixture: &str,
    lock: &str,
    store: Option<&Path>,
) -> Value {
    let work = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(work.path()).unwrap();
    let (app, home) = (base.join("app"), base.join("home"));
    fs::create_dir_all(&home).unwrap();
    repo_with_files(&app, 20);
    let text = fs::read(Path::new("tests/fixtures/locks").join(fixture)).unwrap();
    write(&app.join(lock), &text);
    write(
        &app.join("package.json"),
        br#"{"name":"app","version":"1.0.0","private":true}"#,
    );
    write(&app.join(".gitignore"), b"node_modules/\n");
    let fake = fake_manager_with_store(manager.0, manager.1, store);
    let json = support::Sandbox::at(&home)
        .cmd()
        .env("PATH", path_with(fake.path()))
        .args(["check", "--format", "json", "--probe-budget-ms", "300"])
        .arg(&app)
        .run()
        .ok_json();
    json["predict"].clone()
}

/// On x86-64 each fixture's linux-x64 binary is placed too.
fn here(other: u64) -> u64 {
    other + u64::from(std::env::consts::ARCH == "x86_64")
}

fn assert_counted(p: &Value, lock: &str, packages: u64) {
    let install = &p["inputs"]["install"];
    assert_eq!(install["source"], lock, "{p}");
    assert_eq!(install["packages"], packages, "{install}");
    let per_package = if lock == "pnpm-lock.yaml" {
        wsl_place::facade::model::PNPM_FILES_PER_PACKAGE
    } else {
        wsl_place::facade::model::FILES_PER_PACKAGE
    };
    assert_eq!(install["files"], packages * per_package, "{install}");
    assert!(p["install_ms"]["current"].as_f64().unwrap() > 0.0, "{p}");
}

#[test]
fn a_pnpm_workspace_is_priced_from_its_lock_before_its_install() {
    // pnpm-v9.yaml: a workspace of three importers; 11 snapshots, of which fsevents, its
    // optional child and esbuild's darwin binary are not placed here.
    let p = predict_with_lock(("pnpm", "10.34.9"), "pnpm-v9.yaml", "pnpm-lock.yaml");
    assert_eq!(p["install_manager"]["manager"], "pnpm", "{p}");
    assert_counted(&p, "pnpm-lock.yaml", here(7));
}

#[test]
fn a_pnpm_tree_from_its_lock_has_pnpms_folders_and_a_link_per_dependency_edge() {
    // pnpm-v9.yaml here: 4 dependency edges among the placed snapshots, 7 importer links, 3
    // hoisted names; on arm64 the linux-x64 binary, its edge and its name are not there.
    let p = predict_with_lock(("pnpm", "10.34.9"), "pnpm-v9.yaml", "pnpm-lock.yaml");
    let install = &p["inputs"]["install"];
    let links = if std::env::consts::ARCH == "x86_64" {
        14
    } else {
        12
    };
    assert_eq!(install["links"], links, "{install}");
    let packages = install["packages"].as_u64().unwrap();
    assert_eq!(
        install["dirs"],
        packages * wsl_place::facade::model::PNPM_DIRS_PER_PACKAGE,
        "{install}"
    );
    // yarn's tree from its lock has none counted.
    let yarn = predict_with_lock(("yarn", "1.22.22"), "yarn-v1.lock", "yarn.lock");
    assert_eq!(yarn["inputs"]["install"]["links"], 0, "{yarn}");
}

#[test]
fn a_yarn_project_is_priced_from_its_lock_before_its_install() {
    let p = predict_with_lock(("yarn", "1.22.22"), "yarn-v1.lock", "yarn.lock");
    assert_eq!(p["install_manager"]["manager"], "yarn", "{p}");
    assert_counted(&p, "yarn.lock", here(8));
}

#[test]
fn a_bun_project_is_priced_from_its_lock_before_its_install() {
    let p = predict_with_lock(("bun", "1.4.5"), "bun.lock", "bun.lock");
    assert_eq!(p["install_manager"]["manager"], "bun", "{p}");
    assert_counted(&p, "bun.lock", here(5));
}
