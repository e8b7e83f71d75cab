//! The install prediction through the binary: `check` and `survey` price a repository's
//! reinstall with the same call, so their figures agree.

use crate::support;

use serde_json::Value;
use std::fs;
use std::path::Path;
use support::gitrepo::{path_with, repo_with_files, write};

/// A committed repository with an ignored `node_modules` of `packages` packages of ten files
/// each and a `pnpm-lock.yaml`.
fn pnpm_project(dir: &Path, packages: usize) {
    repo_with_files(dir, 20);
    write(&dir.join(".gitignore"), b"node_modules/\n");
    write(&dir.join("pnpm-lock.yaml"), b"lockfileVersion: '9.0'\n");
    for p in 0..packages {
        for f in 0..10 {
            write(
                &dir.join(format!("node_modules/pkg{p}/lib/f{f}.js")),
                &[b'x'; 2000],
            );
        }
    }
}

/// A `pnpm` that names its version and fails everything else, so the manager's timing is its
/// reference fit, whichever command asks.
fn fake_pnpm() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    support::write_executable(
        &dir.path().join("pnpm"),
        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 9.1.0; exit 0; fi\nexit 1\n",
    );
    dir
}

fn run(home: &Path, fake: &Path, args: &[&str], target: &Path) -> Value {
    let out = support::wsl_place()
        .env("HOME", home)
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("PATH", path_with(fake))
        .args(args)
        .args(["--format", "json", "--probe-budget-ms", "300"])
        .arg(target)
        .output()
        .expect("wsl-place runs");
    support::json_of_success(&out)
}

fn ratio(a: &Value, b: &Value) -> f64 {
    let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
    assert!(a > 0.0 && b > 0.0, "{a} and {b}");
    a.max(b) / a.min(b)
}

#[test]
fn survey_and_check_agree_on_the_install() {
    let work = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(work.path()).unwrap();
    let (top, home) = (base.join("source"), base.join("home"));
    fs::create_dir_all(&home).unwrap();
    let app = top.join("app");
    pnpm_project(&app, 30);
    let fake = fake_pnpm();
    let check = run(&home, fake.path(), &["check"], &app);
    let survey = run(&home, fake.path(), &["survey"], &top);
    let listed = survey["repositories"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{survey}");
    let (c, s) = (&check["predict"], &listed[0]["predict"]);
    // The same manager, timed the same way: its own work is in both (survey used to leave it
    // out, 0 ms).
    for key in ["manager", "version", "source"] {
        assert_eq!(
            c["install_manager"][key], s["install_manager"][key],
            "{key}: {c} vs {s}"
        );
    }
    assert_eq!(c["install_manager"]["manager"], "pnpm");
    assert_eq!(c["install_manager"]["source"], "estimated");
    // Two runs measure the CPU's pace and the disk apart, so the figures agree within that
    // noise, not to the digit; the old survey was 6-80x off.
    assert!(ratio(&c["install_manager_ms"], &s["install_manager_ms"]) < 1.6);
    assert!(ratio(&c["install_ms"]["current"], &s["install_ms"]["current"]) < 1.6);
    assert_eq!(c["inputs"]["install"], s["inputs"]["install"]);
}
