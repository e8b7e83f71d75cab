//! `wsl-place hook install|uninstall`, proven with real `git commit`s: the hook runs the check,
//! a hook that was already there keeps running and its failure still blocks the commit,
//! `uninstall` puts it back, and core.hooksPath and linked worktrees are where git says.

use crate::support::{self, Exit, Outcome, Run, fakeproc, gitrepo};
use std::fs;
use std::path::Path;

/// A committed repository in `dir`.
fn repository(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    gitrepo::files_repo(dir, 5);
    gitrepo::commit_all(dir, "work");
}

fn hook(dir: &Path, args: &[&str], cache: &Path) -> Outcome {
    support::wsl_place()
        .arg("hook")
        .args(args)
        .current_dir(dir)
        .env("XDG_CACHE_HOME", cache)
        .run()
}

/// `git commit` of a change in `dir`, as a person runs it (hooks on), with the hook's cache
/// in `cache` and any `extra` environment.
fn commit(dir: &Path, cache: &Path, extra: &[(&str, &Path)]) -> Outcome {
    let name = format!("change-{}", fs::read_dir(dir).unwrap().count());
    fs::write(dir.join(&name), "x").unwrap();
    gitrepo::git(dir, &["add", &name]);
    // In the shared sandbox: the hook's own runs of the binary see none of the developer's
    // settings.
    let mut git = support::Sandbox::shared().program("git");
    git.arg("-C")
        .arg(dir)
        .args(["-c", "user.name=T", "-c", "user.email=t@example.invalid"])
        .args(["commit", "-q", "-m", "change"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("XDG_CACHE_HOME", cache)
        .env("NO_COLOR", "1");
    for (key, value) in extra {
        git.env(key, value);
    }
    git.run()
}

/// How many times the hook that was there first has run (it counts in `runs`).
fn runs(dir: &Path) -> usize {
    fs::read_to_string(dir.join("runs"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

const EXISTING: &str =
    "#!/bin/sh\n# the team's own hook\necho ran >> \"$RUNS\"\n[ ! -e \"$BLOCK\" ]\n";

#[test]
fn an_existing_hook_keeps_running_and_blocking_and_comes_back() {
    let base = tempfile::tempdir().unwrap();
    let repo = base.path().join("repo");
    let cache = base.path().join("cache");
    repository(&repo);
    let existing = repo.join(".git/hooks/pre-commit");
    support::write_executable(&existing, EXISTING);
    let runs_file = base.path().join("runs");
    let block = base.path().join("block");
    let env = [("RUNS", runs_file.as_path()), ("BLOCK", block.as_path())];

    let installed = hook(&repo, &["install", "--fail-on", "move"], &cache);
    assert!(installed.status.success(), "{}", support::text(&installed));
    let said = String::from_utf8_lossy(&installed.stdout);
    assert!(said.contains("runs first"), "{said}");
    let script = fs::read_to_string(&existing).unwrap();
    assert!(
        script.contains("check --advisory --fail-on move"),
        "{script}"
    );

    let ok = commit(&repo, &cache, &env);
    assert!(ok.status.success(), "{}", support::text(&ok));
    assert_eq!(runs(base.path()), 1, "the existing hook ran");
    // The check ran too: it left its answer in the cache.
    assert_eq!(
        fs::read_dir(cache.join("wsl-place/advisory"))
            .unwrap()
            .count(),
        1
    );

    fs::write(&block, "").unwrap();
    let blocked = commit(&repo, &cache, &env);
    assert!(
        !blocked.status.success(),
        "the existing hook's failure no longer blocks"
    );
    assert_eq!(runs(base.path()), 2);
    fs::remove_file(&block).unwrap();

    // Installing again updates the hook and keeps the chain.
    let again = hook(&repo, &["install"], &cache);
    assert!(again.status.success(), "{}", support::text(&again));
    assert!(!fs::read_to_string(&existing).unwrap().contains("--fail-on"));

    let removed = hook(&repo, &["uninstall"], &cache);
    assert!(removed.status.success(), "{}", support::text(&removed));
    assert_eq!(fs::read_to_string(&existing).unwrap(), EXISTING);
    assert!(
        !repo
            .join(".git/hooks/pre-commit.wsl-place-chained")
            .exists()
    );
    let after = commit(&repo, &cache, &env);
    assert!(after.status.success());
    assert_eq!(runs(base.path()), 3);

    // What it did not write, it does not remove.
    let refused = hook(&repo, &["uninstall"], &cache);
    refused.fails(Exit::Input);
    assert!(support::is_one_sentence(support::stderr(&refused).trim()));
    assert_eq!(fs::read_to_string(&existing).unwrap(), EXISTING);
}

/// The hook prints the advisory line in a real commit (the repository seen as a 9p drive
/// through a fixture /proc) and never blocks without `--fail-on`.
#[test]
fn the_hook_prints_the_line_in_a_commit() {
    let (_base, drive, project) = fakeproc::drive_tree();
    let proc = fakeproc::FakeProc::new(
        fakeproc::WSL2_VERSION,
        &fakeproc::wsl_9p_mountinfo(&drive),
        true,
    );
    repository(&project);
    let cache = proc.cache_dir();
    let installed = hook(&project, &["install"], &cache);
    assert!(installed.status.success(), "{}", support::text(&installed));
    let done = commit(
        &project,
        &cache,
        &[("WSL_PLACE_PROC_ROOT", proc.dir.path())],
    );
    assert!(done.status.success(), "{}", support::text(&done));
    let shown = String::from_utf8_lossy(&done.stderr);
    assert!(
        shown.contains("wsl-place: advise"),
        "{}",
        support::text(&done)
    );
}

#[test]
fn core_hooks_path_and_worktrees_are_respected() {
    let base = tempfile::tempdir().unwrap();
    let repo = base.path().join("repo");
    let cache = base.path().join("cache");
    repository(&repo);
    // A hooks folder of the repository's own, shared by its worktrees (one the repository's
    // config sets outside it is refused: tests/it/untrusted_files.rs).
    let shared = repo.join(".git/shared-hooks");
    gitrepo::git(
        &repo,
        &["config", "core.hooksPath", shared.to_str().unwrap()],
    );
    let linked = base.path().join("linked");
    gitrepo::git(&repo, &["worktree", "add", "-q", linked.to_str().unwrap()]);

    // From the linked worktree: the hook goes where git runs it for both.
    let installed = hook(&linked, &["install"], &cache);
    assert!(installed.status.success(), "{}", support::text(&installed));
    assert!(shared.join("pre-commit").is_file());
    assert!(!repo.join(".git/hooks/pre-commit").exists());
    let done = commit(&linked, &cache, &[]);
    assert!(done.status.success(), "{}", support::text(&done));
    assert_eq!(
        fs::read_dir(cache.join("wsl-place/advisory"))
            .unwrap()
            .count(),
        1
    );
    assert!(hook(&repo, &["uninstall"], &cache).status.success());
    assert!(!shared.join("pre-commit").exists());

    // A hooks folder inside the working tree is everyone's: an existing hook there is not
    // moved, and the refusal says what to do instead.
    let in_tree = repo.join(".githooks");
    fs::create_dir(&in_tree).unwrap();
    support::write_executable(&in_tree.join("pre-commit"), EXISTING);
    gitrepo::git(&repo, &["config", "core.hooksPath", ".githooks"]);
    let refused = hook(&repo, &["install"], &cache);
    let sentence = refused.refusal();
    assert!(
        sentence.contains("wsl-place check --advisory"),
        "{sentence}"
    );
    assert_eq!(
        fs::read_to_string(in_tree.join("pre-commit")).unwrap(),
        EXISTING
    );
}

#[test]
fn outside_a_repository_is_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let out = hook(dir.path(), &["install"], &dir.path().join("cache"));
    out.fails(Exit::Input);
    assert!(
        support::is_one_sentence(support::stderr(&out).trim()),
        "{}",
        support::text(&out)
    );
}
