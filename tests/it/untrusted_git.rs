//! Every repository is untrusted input (issue 49): the programs a repository's own git config,
//! the files it includes and its hooks name never run when the tool runs git there. Each test
//! plants one payload that leaves a marker outside the repository if it runs, then runs
//! `check --verify`, `migrate --yes`, `migrate --sync --yes` after an edit at the source, and
//! `check` at the copy, and looks for the marker after each. The person's own global config is
//! honoured: their fsmonitor runs, and a run it holds up past the time limit is stopped.

use crate::support;

use serde_json::Value;
use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};
use support::gitrepo::{files_repo, init_and_commit_all, write};
use support::{Sandbox, text, write_executable};

/// A repository in a sandbox, and a folder outside it for the markers its payloads leave.
struct Hostile {
    sandbox: Sandbox,
}

impl Hostile {
    /// A committed repository of a few files; its payload is added after the commit, so that
    /// making the repository runs none of it.
    fn new() -> Self {
        let hostile = Self {
            sandbox: Sandbox::new(),
        };
        let source = hostile.source();
        files_repo(&source, 12);
        write(&source.join(".gitattributes"), b"* filter=evil\n");
        init_and_commit_all(&source, "init");
        fs::create_dir_all(hostile.markers()).unwrap();
        hostile
    }

    fn source(&self) -> PathBuf {
        self.sandbox.path("src/repo")
    }

    fn dest(&self) -> PathBuf {
        self.sandbox.path("linux/repo")
    }

    /// Beside the sandbox's HOME: outside both the repository and its copy.
    fn markers(&self) -> PathBuf {
        self.sandbox.home().parent().unwrap().join("markers")
    }

    fn marker(&self, name: &str) -> PathBuf {
        self.markers().join(name)
    }

    /// `touch MARKER`, as a shell command a config value can hold.
    fn touch(&self, name: &str) -> String {
        format!("touch '{}'", self.marker(name).display())
    }

    /// Appends `text` to the repository's `.git/config`.
    fn configure(&self, text: &str) {
        let config = self.source().join(".git/config");
        let mut all = fs::read_to_string(&config).unwrap();
        all.push_str(text);
        fs::write(&config, all).unwrap();
    }

    fn cmd(&self) -> Command {
        let mut cmd = self.sandbox.cmd();
        cmd.env("NO_COLOR", "1");
        cmd
    }

    fn run(&self, mut cmd: Command) -> (support::Outcome, Duration) {
        let started = Instant::now();
        let out = support::bounded(
            {
                cmd.env("NO_COLOR", "1");
                cmd
            },
            Duration::from_secs(240),
        );
        (out, started.elapsed())
    }

    /// `check --verify` at the source, as JSON, and how long it took.
    fn verify(&self) -> (Value, Duration) {
        let mut cmd = self.cmd();
        cmd.args([
            "check",
            "--verify",
            "--probe-budget-ms",
            "300",
            "--format",
            "json",
        ])
        .arg(self.source());
        let (out, took) = self.run(cmd);
        (out.ok_json(), took)
    }

    fn migrate(&self, extra: &[&str]) -> (Value, Duration) {
        let mut cmd = self.sandbox.migrate(&self.source(), &self.dest());
        cmd.args(extra).args(["--yes", "--format", "json"]);
        let (out, took) = self.run(cmd);
        (out.ok_json(), took)
    }

    /// Fails naming `step` when a marker of `names` is there: the repository's code ran.
    #[track_caller]
    fn assert_not_run(&self, step: &str, names: &[&str]) {
        let ran: Vec<&&str> = names
            .iter()
            .filter(|name| self.marker(name).exists())
            .collect();
        assert!(
            ran.is_empty(),
            "`{step}` ran the repository's own {ran:?} (markers in {})",
            self.markers().display()
        );
    }

    /// Every command that runs git there, each followed by a look for the markers; what each
    /// reported, and how long each took.
    fn every_command(&self, names: &[&str]) -> Steps {
        let (verify, verify_took) = self.verify();
        self.assert_not_run("check --verify", names);
        let (migrate, migrate_took) = self.migrate(&[]);
        self.assert_not_run("migrate", names);
        write(
            &self.source().join("src/d000/f001.txt"),
            b"edited at the source\n",
        );
        let (sync, sync_took) = self.migrate(&["--sync"]);
        self.assert_not_run("migrate --sync", names);
        assert_eq!(sync["sync"]["done"], true, "{sync}");
        let mut check = self.cmd();
        check
            .args(["check", "--no-probe", "--format", "json"])
            .arg(self.dest());
        let (out, _) = self.run(check);
        out.ok_json();
        self.assert_not_run("check", names);
        Steps {
            verify,
            migrate,
            took: [verify_took, migrate_took, sync_took],
        }
    }
}

struct Steps {
    verify: Value,
    migrate: Value,
    /// `check --verify`, `migrate`, `migrate --sync`.
    took: [Duration; 3],
}

/// The strings of `migrate`'s `fixups.advice`.
fn advice(report: &Value) -> Vec<String> {
    report["fixups"]["advice"]
        .as_array()
        .map(|all| {
            all.iter()
                .filter_map(|a| a.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn an_fsmonitor_command_in_the_repository_config_never_runs() {
    let h = Hostile::new();
    h.configure(&format!("[core]\n\tfsmonitor = {}\n", h.touch("fsmonitor")));
    let steps = h.every_command(&["fsmonitor"]);
    assert!(
        steps.verify["verify"]["median_ms"].is_number(),
        "{}",
        steps.verify
    );
}

#[test]
fn a_clean_filter_in_the_repository_config_never_runs_and_the_report_says_so() {
    let h = Hostile::new();
    h.configure(&format!(
        "[filter \"evil\"]\n\tclean = {}; cat\n\trequired = true\n",
        h.touch("clean")
    ));
    let mut human = h.cmd();
    human
        .args(["check", "--verify", "--probe-budget-ms", "300"])
        .arg(h.source());
    let (out, _) = h.run(human);
    let shown = text(&out).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        shown.contains("the repository's own clean filter \"evil\" was not run"),
        "{shown}"
    );
    h.assert_not_run("check --verify (human)", &["clean"]);
    let steps = h.every_command(&["clean"]);
    // Timed without it, and said so, in JSON and to a person.
    assert_eq!(
        steps.verify["verify"]["filters_not_run"],
        serde_json::json!(["evil"]),
        "{}",
        steps.verify
    );
    let said = advice(&steps.migrate);
    let expected = format!(
        "the repository's own clean filter \"evil\" was not run in {}: wsl-place never runs a repository's commands; the first `git status` you run there runs it",
        h.dest().display()
    );
    assert!(said.contains(&expected), "{said:?}");
}

/// `git status` starts a git of its own in each submodule, which reads the submodule's config;
/// the fsmonitor override travels to it (`GIT_CONFIG_PARAMETERS`).
#[test]
fn a_submodules_own_fsmonitor_command_never_runs() {
    let h = Hostile::new();
    let library = h.sandbox.path("library");
    files_repo(&library, 3);
    init_and_commit_all(&library, "library");
    let library_url = library.display().to_string();
    support::gitrepo::git(
        &h.source(),
        &["submodule", "add", "-q", &library_url, "lib"],
    );
    support::gitrepo::commit_all(&h.source(), "a submodule");
    let own = support::gitrepo::git(
        &h.source().join("lib"),
        &["rev-parse", "--absolute-git-dir"],
    );
    let config = PathBuf::from(own.trim()).join("config");
    let mut text = fs::read_to_string(&config).unwrap();
    text.push_str(&format!("[core]\n\tfsmonitor = {}\n", h.touch("submodule")));
    fs::write(&config, text).unwrap();
    h.every_command(&["submodule"]);
}

/// git splits `-c` at the first `=`, so a filter named `a=b` cannot be overridden with it: no
/// git runs in such a repository, and the report says why.
#[test]
fn a_filter_whose_name_c_cannot_override_stops_git_there() {
    let h = Hostile::new();
    write(&h.source().join(".gitattributes"), b"* filter=a=b\n");
    support::gitrepo::commit_all(&h.source(), "a filter git's -c cannot name");
    h.configure(&format!(
        "[filter \"a=b\"]\n\tclean = {}; cat\n",
        h.touch("a=b")
    ));
    let steps = h.every_command(&["a=b"]);
    let why = format!(
        "the configuration of {} names a program under a name wsl-place cannot override (filter.a=b.clean), so it runs no git there",
        h.source().display()
    );
    assert_eq!(
        steps.verify["verify"]["failed"],
        why.as_str(),
        "{}",
        steps.verify
    );
    let said = advice(&steps.migrate);
    assert!(
        said.iter()
            .any(|a| a.contains("cannot override (filter.a=b.clean)")),
        "{said:?}"
    );
}

#[test]
fn a_process_or_smudge_filter_in_the_repository_config_never_runs() {
    let h = Hostile::new();
    h.configure(&format!(
        "[filter \"evil\"]\n\tprocess = {}\n\tsmudge = {}; cat\n",
        h.touch("process"),
        h.touch("smudge")
    ));
    h.every_command(&["process", "smudge"]);
}

#[test]
fn hooks_of_the_repository_never_run() {
    let h = Hostile::new();
    let hooks = [
        "post-index-change",
        "reference-transaction",
        "post-checkout",
        "post-merge",
        "post-commit",
        "pre-auto-gc",
        "post-rewrite",
        "fsmonitor-watchman",
    ];
    for hook in hooks {
        write_executable(
            &h.source().join(".git/hooks").join(hook),
            &format!("#!/bin/sh\n{}\n", h.touch(hook)),
        );
    }
    h.every_command(&hooks);
    // The copy keeps them: they are the repository's, for the person to run.
    assert!(h.dest().join(".git/hooks/post-index-change").is_file());
}

#[test]
fn a_sleeping_fsmonitor_in_the_repository_does_not_hold_up_the_run() {
    let h = Hostile::new();
    h.configure(&format!(
        "[core]\n\tfsmonitor = sleep 10; {}\n",
        h.touch("sleeper")
    ));
    let steps = h.every_command(&["sleeper"]);
    // Three `git status` runs would have waited 30 s on it.
    for (step, took) in ["check --verify", "migrate", "migrate --sync"]
        .iter()
        .zip(steps.took)
    {
        assert!(took < Duration::from_secs(10), "{step} took {took:?}");
    }
}

#[test]
fn a_payload_in_a_file_the_repository_config_includes_never_runs() {
    let h = Hostile::new();
    // Committed with the repository, included by a path relative to `.git/config`.
    write(
        &h.source().join("tools/git.cfg"),
        format!(
            "[core]\n\tfsmonitor = {}\n[filter \"evil\"]\n\tclean = {}; cat\n",
            h.touch("included-fsmonitor"),
            h.touch("included-clean")
        )
        .as_bytes(),
    );
    h.configure("[include]\n\tpath = ../tools/git.cfg\n");
    let steps = h.every_command(&["included-fsmonitor", "included-clean"]);
    assert_eq!(
        steps.verify["verify"]["filters_not_run"],
        serde_json::json!(["evil"]),
        "{}",
        steps.verify
    );
}

/// The person's own `core.fsmonitor` (their global config) stays theirs and runs; one that
/// holds `git status` up is stopped at the time limit, and the report says so in one sentence
/// naming the repository, after one run instead of three.
#[test]
fn the_persons_own_fsmonitor_runs_and_a_stuck_one_is_stopped_at_the_limit() {
    let h = Hostile::new();
    let hook = h.markers().join("persons-fsmonitor");
    write_executable(
        &hook,
        &format!("#!/bin/sh\n{}\nsleep 40\n", h.touch("person")),
    );
    fs::write(
        h.sandbox.path(".gitconfig"),
        format!("[core]\n\tfsmonitor = {}\n", hook.display()),
    )
    .unwrap();
    let (report, took) = h.verify();
    assert!(
        h.marker("person").exists(),
        "the person's own fsmonitor did not run"
    );
    let failed = report["verify"]["failed"].as_str().unwrap_or_default();
    let expected = format!(
        "git status in {} did not finish within 10 s; it was stopped",
        h.source().display()
    );
    assert_eq!(failed, expected, "{report}");
    assert_eq!(
        report["verify"]["failed_kind"],
        serde_json::json!({"kind": "stopped_at_limit", "repository": h.source().to_str().unwrap(), "limit_ms": 10000}),
        "{report}"
    );
    assert!(took < Duration::from_secs(30), "took {took:?}");
}
