//! Issue 36: the hook installer never destroys what a person wrote (items 4, 9 and the
//! non-executable hook of 13), and the user's config file never turns the hook into a wall
//! (item 7, and the config messages of 13). Every check is through the binary and real `git
//! commit`s.

use crate::support::{self, Outcome, Run, Sandbox, SlowFs, gitrepo};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The tool with `home` as HOME and the XDG folders below it: the one place these tests set them.
fn tool(home: &Path) -> Command {
    let mut cmd = Sandbox::at(home).cmd();
    cmd.env("NO_COLOR", "1");
    cmd
}

/// A committed repository at `base/repo`, and a home folder beside it.
fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let base = tempfile::tempdir().unwrap();
    let repo = base.path().join("repo");
    fs::create_dir_all(&repo).unwrap();
    gitrepo::files_repo(&repo, 3);
    gitrepo::commit_all(&repo, "work");
    let home = base.path().join("home");
    fs::create_dir_all(&home).unwrap();
    (base, repo, home)
}

fn hook(home: &Path, repo: &Path, args: &[&str]) -> Outcome {
    tool(home).arg("hook").args(args).current_dir(repo).run()
}

/// `git commit` of a new file, hooks on, with the hook's tool seeing `home`; `RUNS` is where a
/// test's own hook lines count their runs.
fn commit(repo: &Path, home: &Path) -> Outcome {
    let name = format!("change-{}", fs::read_dir(repo).unwrap().count());
    fs::write(repo.join(&name), "x").unwrap();
    gitrepo::git(repo, &["add", &name]);
    Sandbox::at(home)
        .program("git")
        .arg("-C")
        .arg(repo)
        .args(["-c", "user.name=T", "-c", "user.email=t@example.invalid"])
        .args(["commit", "-q", "-m", "change"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("RUNS", home.join("runs"))
        .env("NO_COLOR", "1")
        .run()
}

fn runs(home: &Path, what: &str) -> usize {
    fs::read_to_string(home.join("runs"))
        .unwrap_or_default()
        .lines()
        .filter(|line| *line == what)
        .count()
}

/// The installed hook with a person's own lines put in after its first line.
fn edit(hook: &Path, lines: &str) {
    let text = fs::read_to_string(hook).unwrap();
    let (shebang, rest) = text.split_once('\n').unwrap();
    fs::write(hook, format!("{shebang}\n{lines}{rest}")).unwrap();
}

const MINE: &str = "# my own check\necho mine >> \"$RUNS\"\n";

#[test]
fn uninstall_keeps_a_persons_lines_and_removes_only_its_own() {
    let (_base, repo, home) = setup();
    uninstall_keeps_a_persons_lines(&repo, &home);
}

/// The same with the repository on a FUSE mount (slowfs), as on /mnt/c.
#[test]
#[ignore = "needs FUSE (mounts slowfs)"]
fn uninstall_keeps_a_persons_lines_and_removes_only_its_own_on_slowfs() {
    let base = tempfile::tempdir().unwrap();
    let backing = base.path().join("backing");
    fs::create_dir_all(&backing).unwrap();
    let Some(slow) = SlowFs::mount(
        &backing,
        &base.path().join("mnt"),
        &["--profile", "none", "--latency", "open=1"],
    ) else {
        return;
    };
    let repo = slow.mountpoint().join("repo");
    fs::create_dir_all(&repo).unwrap();
    gitrepo::files_repo(&repo, 3);
    gitrepo::commit_all(&repo, "work");
    let home = base.path().join("home");
    fs::create_dir_all(&home).unwrap();
    uninstall_keeps_a_persons_lines(&repo, &home);
}

fn uninstall_keeps_a_persons_lines(repo: &Path, home: &Path) {
    let (repo, home) = (repo.to_path_buf(), home.to_path_buf());
    let pre_commit = repo.join(".git/hooks/pre-commit");
    assert!(hook(&home, &repo, &["install"]).status.success());
    edit(&pre_commit, MINE);
    let ok = commit(&repo, &home);
    assert!(ok.status.success(), "{}", support::text(&ok));
    assert_eq!(runs(&home, "mine"), 1);

    let removed = hook(&home, &repo, &["uninstall"]);
    assert!(removed.status.success(), "{}", support::text(&removed));
    let said = String::from_utf8_lossy(&removed.stdout);
    assert!(said.contains("kept"), "{said}");
    let left = fs::read_to_string(&pre_commit).expect("the edited hook is kept");
    assert!(left.starts_with("#!/bin/sh\n"), "{left}");
    assert!(left.contains(MINE), "{left}");
    assert!(!left.contains("wsl-place"), "{left}");
    assert!(fs::metadata(&pre_commit).unwrap().permissions().mode() & 0o111 != 0);
    // What is left still runs, and runs nothing of the tool's (which would cache its answer).
    fs::remove_dir_all(home.join(".cache")).unwrap();
    let after = commit(&repo, &home);
    assert!(after.status.success(), "{}", support::text(&after));
    assert_eq!(runs(&home, "mine"), 2);
    assert!(!home.join(".cache/wsl-place/advisory").exists());
}

#[test]
fn install_updates_its_own_lines_and_keeps_a_persons() {
    let (_base, repo, home) = setup();
    let pre_commit = repo.join(".git/hooks/pre-commit");
    assert!(hook(&home, &repo, &["install"]).status.success());
    edit(&pre_commit, MINE);
    let again = hook(&home, &repo, &["install", "--fail-on", "move"]);
    assert!(again.status.success(), "{}", support::text(&again));
    let text = fs::read_to_string(&pre_commit).unwrap();
    assert!(text.contains(MINE), "{text}");
    assert!(text.contains("check --advisory --fail-on move"), "{text}");
    let ok = commit(&repo, &home);
    assert!(ok.status.success(), "{}", support::text(&ok));
    assert_eq!(runs(&home, "mine"), 1);
    assert!(
        home.join(".cache/wsl-place/advisory").is_dir(),
        "the check ran"
    );
}

#[test]
fn uninstall_with_a_chained_hook_and_edits_keeps_both_running() {
    let (_base, repo, home) = setup();
    let pre_commit = repo.join(".git/hooks/pre-commit");
    let team = "#!/bin/sh\necho team >> \"$RUNS\"\n";
    support::write_executable(&pre_commit, team);
    assert!(hook(&home, &repo, &["install"]).status.success());
    edit(&pre_commit, MINE);
    let removed = hook(&home, &repo, &["uninstall"]);
    assert!(removed.status.success(), "{}", support::text(&removed));
    let left = fs::read_to_string(&pre_commit).unwrap();
    assert!(left.contains(MINE), "{left}");
    assert!(!left.contains("check --advisory"), "{left}");
    let chained = repo.join(".git/hooks/pre-commit.wsl-place-chained");
    assert_eq!(fs::read_to_string(&chained).unwrap(), team);
    let ok = commit(&repo, &home);
    assert!(ok.status.success(), "{}", support::text(&ok));
    assert_eq!((runs(&home, "mine"), runs(&home, "team")), (1, 1));
    assert!(!home.join(".cache/wsl-place/advisory").exists());
}

#[test]
fn a_hooks_path_inside_the_working_tree_is_refused_without_the_flag() {
    let (_base, repo, home) = setup();
    let shared = repo.join(".githooks");
    fs::create_dir(&shared).unwrap();
    fs::write(shared.join("README"), "the team's hooks\n").unwrap();
    gitrepo::commit_all(&repo, "hooks folder");
    gitrepo::git(&repo, &["config", "core.hooksPath", ".githooks"]);

    let refused = hook(&home, &repo, &["install"]);
    let sentence = refused.refusal();
    for word in ["git add", "--in-worktree", "core.hooksPath"] {
        assert!(sentence.contains(word), "{word}: {sentence}");
    }
    assert!(!shared.join("pre-commit").exists());
    let status = Command::new("git")
        .arg("-C")
        .arg(&repo)
        .args(["status", "--porcelain"])
        .run();
    assert!(status.stdout.is_empty(), "{}", support::text(&status));

    let forced = hook(&home, &repo, &["install", "--in-worktree"]);
    assert!(forced.status.success(), "{}", support::text(&forced));
    assert!(shared.join("pre-commit").is_file());
    assert!(hook(&home, &repo, &["uninstall"]).status.success());
    assert!(!shared.join("pre-commit").exists());
}

#[test]
fn a_hook_git_did_not_run_is_not_said_to_run_first() {
    let (_base, repo, home) = setup();
    let pre_commit = repo.join(".git/hooks/pre-commit");
    fs::write(&pre_commit, "#!/bin/sh\necho idle >> \"$RUNS\"\n").unwrap();
    let installed = hook(&home, &repo, &["install"]);
    assert!(installed.status.success(), "{}", support::text(&installed));
    let said = String::from_utf8_lossy(&installed.stdout).into_owned();
    assert!(!said.contains("runs first"), "{said}");
    assert!(said.contains("not executable"), "{said}");
    // As before the install: git skipped it, and so does the hook.
    assert!(commit(&repo, &home).status.success());
    assert_eq!(runs(&home, "idle"), 0);
    // Made executable, it runs, as the sentence says.
    let chained = repo.join(".git/hooks/pre-commit.wsl-place-chained");
    fs::set_permissions(&chained, fs::Permissions::from_mode(0o755)).unwrap();
    assert!(commit(&repo, &home).status.success());
    assert_eq!(runs(&home, "idle"), 1);
}

fn write_config(home: &Path, text: &str) -> PathBuf {
    let file = home.join(".config/wsl-place/config.toml");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(&file, text).unwrap();
    file
}

#[test]
fn a_typo_in_the_config_warns_in_the_hook_and_blocks_nothing() {
    let (_base, repo, home) = setup();
    let file = write_config(&home, "polcy = \"team.toml\"\n");
    let advisory = tool(&home).args(["check", "--advisory"]).arg(&repo).run();
    assert_eq!(
        advisory.status.code(),
        Some(0),
        "{}",
        support::text(&advisory)
    );
    let warning = support::stderr(&advisory);
    assert_eq!(warning.lines().count(), 1, "{warning}");
    for part in [file.to_str().unwrap(), "`polcy`", "`policy`"] {
        assert!(warning.contains(part), "{part}: {warning}");
    }
    assert!(hook(&home, &repo, &["install"]).status.success());
    let committed = commit(&repo, &home);
    assert!(committed.status.success(), "{}", support::text(&committed));

    // A full check still refuses it, naming the key and what it takes in plain words.
    write_config(&home, "nudge_every_hours = \"daily\"\n");
    let refused = tool(&home).args(["check", "--no-probe"]).arg(&repo).run();
    let sentence = refused.refusal();
    assert!(sentence.contains("`nudge_every_hours`"), "{sentence}");
    assert!(sentence.contains("must be a number"), "{sentence}");
    assert!(!sentence.contains("f64"), "{sentence}");
}

#[test]
fn a_relative_destination_is_said_and_taken_relative_to_home() {
    let (_base, repo, home) = setup();
    write_config(&home, "destination = \"work\"\n");
    let plan = tool(&home)
        .args(["migrate", "--dry-run", "--format", "json"])
        .arg(&repo)
        .run();
    let plan = plan.ok_json();
    assert_eq!(
        plan["destination"],
        home.join("work/repo").to_str().unwrap()
    );
    // A destination it cannot use: the sentence offers what it does take, a relative path too.
    write_config(&home, "destination = \"~bob/work\"\n");
    let refused = tool(&home).args(["migrate", "--dry-run"]).arg(&repo).run();
    let sentence = refused.refusal();
    assert!(
        sentence.contains("relative to your home folder"),
        "{sentence}"
    );
}
