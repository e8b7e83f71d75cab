//! Issue 66, a person's second day: what one screen says agrees with the others and with the
//! JSON, and every refusal names the way on. Each test is one of the cases, run as a new
//! user would run it.

use crate::support::gitrepo::repo_with_files;
use crate::support::{Exit, Run, Sandbox};

/// `migrate -n` is `--dry-run`, as in rsync and git (it was clap's "use '-- -n'").
#[test]
fn dash_n_is_the_dry_run() {
    let sandbox = Sandbox::new();
    let (source, dest) = (sandbox.path("app"), sandbox.path("linux/app"));
    repo_with_files(&source, 3);
    let out = sandbox.migrate(&source, &dest).arg("-n").run();
    out.ok().stdout_has("Dry run: nothing was copied");
    assert!(!dest.exists());
}

/// `hook install` on a path that does not exist said "not in a git working tree".
#[test]
fn hook_install_on_a_missing_path_says_it_is_missing() {
    let sandbox = Sandbox::new();
    let missing = sandbox.path("no/such/repo");
    let out = sandbox.run(["hook", "install", missing.to_str().unwrap()]);
    out.fails(Exit::Input);
    let said = out.refusal();
    assert!(
        said.contains("does not exist") && said.contains(missing.to_str().unwrap()),
        "{said}"
    );
}

/// With no git on PATH, `check` said nothing of it while predicting `git status`.
#[test]
fn check_says_when_no_git_is_on_path() {
    let sandbox = Sandbox::new();
    let repo = sandbox.path("app");
    repo_with_files(&repo, 3);
    let empty = tempfile::tempdir().unwrap();
    let out = sandbox
        .cmd()
        .env("PATH", empty.path())
        .args(["check", "--format", "json"])
        .arg(&repo)
        .run();
    let json = out.json();
    assert!(json["git_version"].is_null(), "{json}");
    let human = sandbox
        .cmd()
        .env("PATH", empty.path())
        .arg("check")
        .arg(&repo)
        .run();
    let line = human
        .stdout()
        .lines()
        .find(|l| l.trim_start().starts_with("git "))
        .map(str::to_string)
        .unwrap_or_else(|| panic!("no git row in\n{}", human.stdout()));
    assert!(line.contains("no git on PATH answered"), "{line}");
    assert!(line.contains("sudo apt install git"), "{line}");
    // With git, no such row.
    let with_git = sandbox.cmd().arg("check").arg(&repo).run();
    let text = with_git.stdout();
    assert!(
        text.starts_with("ok: git status") && !text.contains("no git on PATH"),
        "{text}"
    );
}

/// markdown and github printed "Work in the copy.: cd ..." at the old place.
#[test]
fn advice_with_a_command_reads_as_one_sentence_in_every_format() {
    let sandbox = Sandbox::new();
    let (source, dest) = (sandbox.path("app"), sandbox.path("linux/app"));
    repo_with_files(&source, 3);
    sandbox.migrate(&source, &dest).arg("--yes").run().ok();
    for format in ["markdown", "github"] {
        let out = sandbox
            .cmd()
            .args(["check", "--no-probe", "--format", format])
            .arg(&source)
            .run();
        let text = out.stdout();
        assert!(text.contains("Work in the copy"), "{format}:\n{text}");
        assert!(!text.contains(".:"), "{format}:\n{text}");
    }
}

/// `probe` printed "1 round up to 8 files, budget spent before stable".
#[test]
fn the_probe_summary_reads_as_words() {
    let sandbox = Sandbox::new();
    let dir = sandbox.path("here");
    std::fs::create_dir_all(&dir).unwrap();
    let out = sandbox.run(["probe", dir.to_str().unwrap()]);
    let text = out.ok().stdout();
    assert!(!text.contains("budget spent before stable"), "{text}");
    assert!(!text.contains("round up to"), "{text}");
    assert!(
        text.contains("the figures settled")
            || text.contains("the time budget ended before two rounds agreed"),
        "{text}"
    );
}

/// The plan and the result named two figures: the result's total (the walk included) was judged
/// against a plan without the walk (+167% on express over slowfs). A one-pass `--yes` now shows
/// the walk in its plan, as the dry run does, and the result names that same figure.
#[test]
fn the_plan_said_is_the_figure_the_plan_showed_walk_included() {
    let sandbox = Sandbox::new();
    let (source, dest) = (sandbox.path("app"), sandbox.path("linux/app"));
    repo_with_files(&source, 40);
    let dry = sandbox.migrate(&source, &dest).arg("--dry-run").run();
    let dry_text = dry.ok().stdout();
    assert!(dry_text.contains("(the walk included)"), "{dry_text}");
    let out = sandbox.migrate(&source, &dest).arg("--yes").run();
    let text = out.ok().stdout();
    let between = |after: &str, before: &str| {
        let start = text.find(after).map(|i| i + after.len())?;
        let end = text[start..].find(before)?;
        Some(text[start..start + end].to_string())
    };
    let shown = between("about ", " to copy, verify and fix up, the walk");
    let judged = between("the plan said ", " (");
    assert!(shown.is_some(), "{text}");
    assert_eq!(shown, judged, "{text}");
}

/// A dry run to a destination too small said `needs 7.9 MiB ... only 5.0 MiB free`, then the
/// question and "Dry run: nothing was copied" with exit 0; the real run refused with exit 2. A
/// read-only destination was not mentioned by the dry run, and the real run exited 3 after the
/// walk. Now both runs refuse, with the same sentence and exit 2, and nothing is made there.
#[test]
#[ignore = "needs root (mounts a tmpfs)"]
fn a_destination_too_small_or_read_only_is_refused_by_the_dry_run_as_by_the_run() {
    let Some(small) = crate::support::Mount::tmpfs("5m") else {
        return;
    };
    let sandbox = Sandbox::new();
    let source = sandbox.path("big");
    std::fs::create_dir_all(&source).unwrap();
    std::fs::write(source.join("blob"), vec![7u8; 8 << 20]).unwrap();
    crate::support::gitrepo::init_and_commit_all(&source, "big");
    let dest = small.point().join("home/big");
    std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
    for args in [&["--dry-run"][..], &["--yes"]] {
        let out = sandbox.migrate(&source, &dest).args(args).run();
        out.fails(Exit::Input);
        assert!(
            out.refusal().contains("not enough space"),
            "{args:?}: {}",
            out.refusal()
        );
        assert_eq!(
            std::fs::read_dir(dest.parent().unwrap()).unwrap().count(),
            0
        );
    }
    small.remount_read_only();
    for args in [&["--dry-run"][..], &["--yes"]] {
        let out = sandbox.migrate(&source, &dest).args(args).run();
        out.fails(Exit::Input);
        let said = out.refusal();
        assert!(
            said.contains("read-only file system") && said.contains("--to"),
            "{said}"
        );
    }
}

/// `wsl-place doctor --format json`, run from an empty folder with only the binary, says whether
/// the host is WSL and writes nothing there; `--record FILE` shows the record in full, names the
/// fields that hold user names and paths, and writes it only after `y` (or `--yes`), never over
/// a file.
#[test]
fn doctor_says_whether_this_is_wsl_and_writes_only_the_record_asked_for() {
    let sandbox = Sandbox::new();
    let empty = tempfile::tempdir().unwrap();
    let json = sandbox
        .cmd()
        .current_dir(empty.path())
        .args(["doctor", "--format", "json"])
        .run()
        .ok_json();
    assert_eq!(json["schema"], 1, "{json}");
    assert_eq!(json["host"]["wsl"], false, "{json}");
    assert!(json["git"]["found"].is_string(), "{json}");
    assert_eq!(std::fs::read_dir(empty.path()).unwrap().count(), 0);
    let human = sandbox.cmd().current_dir(empty.path()).arg("doctor").run();
    assert!(
        human.ok().stdout().starts_with("This machine is not WSL"),
        "{}",
        human.stdout()
    );

    let record = empty.path().join("record.json");
    let answered = |answer: &str| {
        use std::io::Write;
        let mut child = sandbox
            .cmd()
            .current_dir(empty.path())
            .args(["doctor", "--record", "record.json"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(answer.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let declined = answered("n\n");
    assert!(declined.status.success());
    let shown: serde_json::Value = serde_json::from_slice(&declined.stdout).unwrap();
    assert_eq!(shown["host"]["wsl"], false);
    let said = String::from_utf8_lossy(&declined.stderr);
    assert!(
        said.contains("user names and paths") && said.contains("nothing was written"),
        "{said}"
    );
    assert!(!record.exists());
    let accepted = answered("y\n");
    assert!(accepted.status.success());
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    assert_eq!(written["schema"], 1);
    let again = sandbox
        .cmd()
        .current_dir(empty.path())
        .args(["doctor", "--record", "record.json", "--yes"])
        .run();
    again.fails(Exit::Input);
    assert!(again.refusal().contains("exists"), "{}", again.refusal());
}

/// `check --verify` said "+19% against the ~832 ms above" (the median of the last checks the
/// headline gives) and then "within ±9% over 1 check" (the record kept this run's own 914 ms).
/// The record now keeps the figure the screen shows, so both lines judge one figure.
#[test]
fn verify_judges_and_keeps_the_figure_the_headline_shows() {
    let sandbox = Sandbox::new();
    let repo = sandbox.path("app");
    repo_with_files(&repo, 50);
    for _ in 0..2 {
        sandbox.cmd().arg("check").arg(&repo).run().ok();
    }
    let json = sandbox
        .cmd()
        .args(["check", "--verify", "--format", "json"])
        .arg(&repo)
        .run()
        .ok_json();
    let weighed = json["verdict"]["weighed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["rule"] == "git-status")
        .unwrap_or_else(|| panic!("{json}"));
    assert!(weighed["checks"].as_u64().unwrap() > 1, "{json}");
    assert_eq!(json["verify"]["predicted_ms"], weighed["here_ms"], "{json}");
}

/// After `--sync` the copy "now holds 7,127 files", after `--remove-source` minutes later it was
/// "holding 6,811 files" (the manifest's count of the first copy), and `check` in the copy said
/// "~7,141 files". The copy's count is now one figure, counted in the copy, everything in it
/// (`.git` too, as `check`'s scan counts), said so once in each headline.
#[test]
fn the_copys_file_count_is_one_figure_after_a_sync_and_a_removal() {
    let sandbox = Sandbox::new();
    let (source, dest) = (sandbox.path("app"), sandbox.path("linux/app"));
    repo_with_files(&source, 30);
    sandbox.migrate(&source, &dest).arg("--yes").run().ok();
    for i in 0..5 {
        std::fs::write(source.join(format!("late-{i}.txt")), "late\n").unwrap();
    }
    let synced = sandbox
        .migrate(&source, &dest)
        .args(["--sync", "--yes", "--format", "json"])
        .run()
        .ok_json();
    assert_eq!(synced["sync"]["added"], 5, "{synced}");
    let removal = sandbox
        .migrate(&source, &dest)
        .args(["--remove-source", "--yes"])
        .run();
    let text = removal.ok().stdout();
    let held: u64 = text
        .split("is the repository now, holding ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(text.contains(".git included"), "{text}");
    let scanned = sandbox.check(&dest, &[]).ok_json();
    assert_eq!(scanned["scan"]["complete"], true, "{scanned}");
    assert_eq!(
        (synced["files"].as_u64(), Some(held)),
        (
            scanned["scan"]["files"].as_u64(),
            scanned["scan"]["files"].as_u64()
        ),
        "sync, removal, then check"
    );
}

/// An empty repository (no commit) was predicted `~206 ms (164 ms-247 ms)` for a `git status`
/// measured at 0.09 s on the emulator: the model paid a history's fixed calls and walked `.git`'s
/// folders as the work tree's. The figures `check` gives the model now say neither (the time
/// itself is bench/'s: `bench/status-requests.sh`, docs/accuracy.md).
#[test]
fn an_empty_repository_is_priced_without_history_or_its_git_folders() {
    let sandbox = Sandbox::new();
    let repo = sandbox.path("empty");
    std::fs::create_dir_all(&repo).unwrap();
    crate::support::gitrepo::git(&repo, &["init", "-q"]);
    let probed = |repo: &std::path::Path| {
        sandbox
            .cmd()
            .args(["check", "--format", "json", "--probe-budget-ms", "300"])
            .arg(repo)
            .run()
            .ok_json()
    };
    let json = probed(&repo);
    let (git, inputs) = (&json["scan"]["git"], &json["predict"]["inputs"]);
    assert_eq!(git["unborn_head"], true, "{git}");
    assert_eq!(git["git_dir_dirs"], json["scan"]["dirs"], "{json}");
    assert_eq!(inputs["unborn_head"], true, "{inputs}");
    assert_eq!(inputs["worktree_dirs"], 1, "{inputs}");
    repo_with_files(&sandbox.path("born"), 1);
    let born = probed(&sandbox.path("born"));
    assert!(born["scan"]["git"].get("unborn_head").is_none(), "{born}");
}

/// koa without `node_modules` and none of its packages in npm's cache: the screen said
/// "reinstalling from its cache ... downloads not counted" and npm was started to fail. Now
/// nothing is "re"-installed, the line says the cache holds none of them, and no install starts.
#[test]
fn a_lock_never_installed_here_is_an_install_whose_cache_holds_none_of_it() {
    let sandbox = Sandbox::new();
    let app = sandbox.path("koa");
    repo_with_files(&app, 5);
    let packages: serde_json::Map<String, serde_json::Value> =
        std::iter::once((String::new(), serde_json::json!({})))
            .chain((0..30).map(|p| {
                (
                    format!("node_modules/pkg{p}"),
                    serde_json::json!({"version": format!("1.0.{p}"), "resolved": format!("https://registry.npmjs.org/pkg{p}/-/pkg{p}-1.0.{p}.tgz"), "integrity": "sha512-AAAA"}),
                )
            }))
            .collect();
    let lock = serde_json::json!({"lockfileVersion": 3, "packages": packages});
    std::fs::write(app.join("package-lock.json"), lock.to_string()).unwrap();
    let bin = tempfile::tempdir().unwrap();
    let started = sandbox.path("npm-started");
    crate::support::write_executable(
        &bin.path().join("npm"),
        &format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 11.19.1; exit 0; fi\ntouch '{}'\nexit 1\n",
            started.display()
        ),
    );
    let out = sandbox
        .cmd()
        .env("PATH", crate::support::gitrepo::path_with(bin.path()))
        .env("COLUMNS", "200")
        .args(["check", "--probe-budget-ms", "300"])
        .arg(&app)
        .run();
    let text = out.stdout();
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("install ") && l.contains("npm 11.19.1"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("installing from the lock (its cache holds none of these packages)"),
        "{line}"
    );
    assert!(!line.contains("reinstalling"), "{line}");
    assert!(
        !started.exists(),
        "npm was started for a sample that must fail"
    );
}
