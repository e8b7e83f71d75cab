//! Issue 68: pnpm's store for a project is the one pnpm would choose for the project's own file
//! system (pnpm's rule: the home's store when the project can hard-link into the home, else
//! `<that file system's top>/.pnpm-store`), not the one pnpm names when asked from `/`; and
//! whether pnpm copies instead of linking follows from it. A real tmpfs stands for a project
//! on another file system than HOME.

use crate::support::gitrepo::{path_with, repo_with_files, write};
use crate::support::{self, Run};
use std::path::Path;

/// A pnpm that names its version and, asked for its store from anywhere, says the one under
/// `/` (as a real pnpm does from `/` when HOME is on another file system); fails the rest.
fn pnpm_naming_the_root_store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    support::write_executable(
        &dir.path().join("pnpm"),
        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 10.34.5; exit 0; fi\nif [ \"$1\" = store ]; then echo /.pnpm-store/v10; exit 0; fi\nexit 1\n",
    );
    dir
}

fn pnpm_project(app: &Path) {
    repo_with_files(app, 5);
    let lock = std::fs::read("tests/fixtures/locks/pnpm-v9.yaml").unwrap();
    write(&app.join("pnpm-lock.yaml"), &lock);
    write(
        &app.join("package.json"),
        br#"{"name":"app","version":"1.0.0","private":true,"packageManager":"pnpm@10.34.5"}"#,
    );
    write(&app.join(".gitignore"), b"node_modules/\n");
}

#[test]
#[ignore = "needs root (mounts a tmpfs)"]
fn a_project_on_another_file_system_reads_the_store_at_that_file_systems_top() {
    let Some(disk) = support::Mount::tmpfs("64m") else {
        return;
    };
    let sandbox = support::Sandbox::new();
    let app = disk.point().join("work/app");
    pnpm_project(&app);
    let pnpm = pnpm_naming_the_root_store();
    let json = sandbox
        .cmd()
        .env("PATH", path_with(pnpm.path()))
        .env_remove("PNPM_HOME")
        .args(["check", "--format", "json", "--probe-budget-ms", "300"])
        .arg(&app)
        .run()
        .ok_json();
    let manager = &json["predict"]["install_manager"];
    assert_eq!(manager["manager"], "pnpm", "{json}");
    assert_eq!(
        manager["pnpm_store"],
        disk.point().join(".pnpm-store").to_str().unwrap(),
        "pnpm's rule puts the store at the project's file system's top: {manager}"
    );
    assert!(
        manager.get("copies_from_store").is_none(),
        "pnpm links from a store on the project's own file system: {manager}"
    );

    // The same project on HOME's file system reads pnpm's home store.
    let home_app = sandbox.path("app");
    pnpm_project(&home_app);
    let json = sandbox
        .cmd()
        .env("PATH", path_with(pnpm.path()))
        .env_remove("PNPM_HOME")
        .args(["check", "--format", "json", "--probe-budget-ms", "300"])
        .arg(&home_app)
        .run()
        .ok_json();
    let manager = &json["predict"]["install_manager"];
    let home = sandbox.path("");
    let expected = home.join(".local/share/pnpm/store");
    assert_eq!(
        manager["pnpm_store"],
        expected.to_str().unwrap(),
        "{manager}"
    );
}
