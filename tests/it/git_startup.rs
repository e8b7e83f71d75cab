//! Git's start-up, timed with `git --version` and kept a day per machine and boot
//! (`$XDG_CACHE_HOME/wsl-place/git.json`): one timed while the machine was busier than its cores
//! is timed again by the first check on a quiet machine, the faster kept; one timed quiet is kept.

use crate::support::Run;
use crate::support::fakeproc;
use crate::support::gitrepo::{files_repo, init_and_commit_all};
use crate::support::sandbox::Sandbox;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn cache_file(sandbox: &Sandbox) -> PathBuf {
    sandbox.cache().join("wsl-place/git.json")
}

fn kept(sandbox: &Sandbox) -> Value {
    serde_json::from_slice(&std::fs::read(cache_file(sandbox)).expect("git's facts kept")).unwrap()
}

/// The kept start-up replaced by `ms`, as if timed at `load` per core.
fn pretend_kept(sandbox: &Sandbox, ms: f64, load: f64) {
    let mut entry = kept(sandbox);
    entry["startup_ms"] = ms.into();
    entry["load_per_core"] = load.into();
    std::fs::write(cache_file(sandbox), serde_json::to_vec(&entry).unwrap()).unwrap();
}

fn check_at_load(sandbox: &Sandbox, repo: &Path, proc: &tempfile::TempDir) {
    sandbox
        .cmd()
        .args(["check", "--no-probe", "--format", "json"])
        .env("WSL_PLACE_PROC_ROOT", proc.path())
        .arg(repo)
        .run()
        .ok_json();
}

#[test]
fn a_start_up_timed_under_load_is_timed_again_once_the_machine_is_quiet() {
    let sandbox = Sandbox::new();
    let repo = sandbox.path("repo");
    files_repo(&repo, 5);
    init_and_commit_all(&repo, "init");
    let (busy, quiet) = (fakeproc::proc_with_load(4.0), fakeproc::proc_with_load(0.1));

    check_at_load(&sandbox, &repo, &busy);
    let first = kept(&sandbox);
    assert!(first["load_per_core"].as_f64().unwrap() > 3.9, "{first}");
    assert!(first["startup_ms"].as_f64().unwrap() > 0.0, "{first}");

    // Timed under load, and the machine still busy: kept (timing again measures the queue).
    pretend_kept(&sandbox, 900.0, 4.0);
    check_at_load(&sandbox, &repo, &busy);
    assert_eq!(kept(&sandbox)["startup_ms"], 900.0);

    // Quiet now: timed again, the faster kept, with the load it was timed at.
    check_at_load(&sandbox, &repo, &quiet);
    let retimed = kept(&sandbox);
    let ms = retimed["startup_ms"].as_f64().unwrap();
    assert!(ms > 0.0 && ms < 900.0, "{retimed}");
    assert!(
        retimed["load_per_core"].as_f64().unwrap() < 0.2,
        "{retimed}"
    );

    // Timed quiet: kept, however slow it says git is.
    pretend_kept(&sandbox, 900.0, 0.1);
    check_at_load(&sandbox, &repo, &quiet);
    assert_eq!(kept(&sandbox)["startup_ms"], 900.0);
}
