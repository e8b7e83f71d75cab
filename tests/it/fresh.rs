//! `check --fresh` and the figures a verdict weighed: after earlier checks the verdict weighs
//! the median of the last checks here, and the headline, the chart, the table and "why" all show
//! that median and say so; `--fresh` judges on this run alone.

use crate::support;
use crate::support::{Exit, Outcome, Run};

use std::fs;
use std::path::Path;
use std::process::Output;
use support::SlowFs;
use support::gitrepo::{commit_all, git};

/// Thresholds low enough that the slow mount's git status always gives a reason ("why").
const POLICY: &str = "[thresholds]\nadvise_git_status_ms = 0.001\nadvise_speedup = 1\n";

fn check(home: &Path, repo: &Path, args: &[&str]) -> Outcome {
    support::Sandbox::at(home)
        .cmd()
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("COLUMNS", "1000")
        .args(["check", "--probe-budget-ms", "100", "--policy"])
        .arg(home.join("policy.toml"))
        .args(args)
        .arg(repo)
        .run()
}

/// The text between `before` and the next `after` in `text`, from its first `before`.
fn between<'a>(text: &'a str, before: &str, after: &str) -> &'a str {
    let start = text
        .find(before)
        .unwrap_or_else(|| panic!("no {before:?} in:\n{text}"))
        + before.len();
    let rest = &text[start..];
    &rest[..rest.find(after).unwrap_or(rest.len())]
}

/// The git status figures (here, on the Linux disk, speedup) of the headline and of "why" agree,
/// and both say they are a median of `checks` checks when `checks` >= 2.
fn assert_one_figure(output: &Output, checks: usize) -> String {
    assert!(output.status.success(), "{}", support::text(output));
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let headline = text.lines().next().expect("a headline");
    let why = text
        .lines()
        .find(|l| l.contains("git status is predicted at"))
        .unwrap_or_else(|| panic!("no git status reason in:\n{text}"));
    let here = between(headline, "git status ~", " here");
    assert_eq!(here, between(why, "predicted at ", " ("), "{text}");
    let linux = between(headline, "), ~", " on the Linux disk");
    assert_eq!(
        linux,
        between(why, " here and ", " on the Linux disk"),
        "{text}"
    );
    let faster = between(headline, "Linux disk (", " faster there");
    assert_eq!(faster, between(why, "Linux disk (", " faster)"), "{text}");
    let label = format!("the median of the last {checks} checks here");
    for (what, line) in [("headline", headline), ("why", why)] {
        assert_eq!(line.contains(&label), checks >= 3, "{what}: {text}");
        assert_eq!(line.contains("median"), checks >= 3, "{what}: {text}");
    }
    // The chart's git status row, when drawn, shows the same figure.
    if let Some(bar) = text
        .lines()
        .find(|l| l.trim_start().starts_with("git status"))
    {
        assert!(bar.ends_with(&format!("~{here}")), "{bar}\n{text}");
    }
    here.to_string()
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn medians_are_labelled_everywhere_and_fresh_judges_this_run_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let (backing, home) = (tmp.path().join("backing"), tmp.path().join("home"));
    fs::create_dir_all(&backing).unwrap();
    fs::create_dir_all(&home).unwrap();
    fs::write(home.join("policy.toml"), POLICY).unwrap();
    let Some(sfs) = SlowFs::mount(
        &backing,
        &tmp.path().join("mnt"),
        &["--profile", "drvfs-9p", "--scale", "0.02"],
    ) else {
        return;
    };
    let repo = sfs.mountpoint().join("repo");
    fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    for i in 0..50 {
        fs::write(repo.join(format!("file{i}.txt")), format!("line {i}\n")).unwrap();
    }
    commit_all(&repo, "initial");

    // The first check has no history: its figures are its own, unlabelled.
    assert_one_figure(&check(&home, &repo, &[]), 1);
    // The second keeps the history but two checks make no median (their mean is a figure no
    // check measured); the third weighs the median, and every place says so.
    let json = check(&home, &repo, &["--format", "json"]).ok_json();
    let weighed = &json["verdict"]["weighed"][0];
    assert_eq!(
        (weighed["rule"].as_str(), weighed["checks"].as_u64()),
        (Some("git-status"), Some(1))
    );
    assert_eq!(json["verdict"]["recent"].as_array().map(Vec::len), Some(2));
    assert_one_figure(&check(&home, &repo, &[]), 3);
    let table = String::from_utf8_lossy(&check(&home, &repo, &["--format", "markdown"]).stdout)
        .into_owned();
    assert!(
        table.contains("| git status (the median of the last 4 checks here) |"),
        "{table}"
    );

    // --fresh: this run's predictions are the verdict's figures, and nothing says "median".
    let json = check(&home, &repo, &["--fresh", "--format", "json"]).ok_json();
    let verdict = &json["verdict"];
    let predicted = &json["predict"]["git_status_ms"];
    let weighed = &verdict["weighed"][0];
    assert_eq!(weighed["checks"], 1, "{verdict}");
    assert_eq!(weighed["here_ms"], predicted["current"], "{json}");
    assert_eq!(weighed["baseline_ms"], predicted["baseline"], "{json}");
    assert_eq!(
        verdict["recent"].as_array().map(Vec::len),
        Some(1),
        "{verdict}"
    );
    assert_eq!(verdict["kept_previous"], false);
    let reasons = verdict["reasons"].to_string();
    assert!(!reasons.contains("median"), "{reasons}");
    assert_one_figure(&check(&home, &repo, &["--fresh"]), 1);
    // A fresh check is still a full measurement: the next check keeps it and the one before
    // (two: no median yet), and the one after weighs the three.
    let next = check(&home, &repo, &["--format", "json"]).ok_json();
    assert_eq!(next["verdict"]["recent"].as_array().map(Vec::len), Some(2));
    assert_eq!(next["verdict"]["weighed"][0]["checks"], 1, "{next}");
    let after = check(&home, &repo, &["--format", "json"]).ok_json();
    assert_eq!(after["verdict"]["weighed"][0]["checks"], 3, "{after}");
    drop(sfs);
}

#[test]
fn fresh_conflicts_with_advisory() {
    let out = support::wsl_place()
        .args(["check", "--advisory", "--fresh", "."])
        .run();
    out.fails(Exit::Input);
}

/// `survey --fresh` is accepted, and a survey never weighs the history `check` cached: each
/// repository's verdict is its own run's.
#[test]
fn survey_fresh_judges_each_repository_on_its_own_run() {
    let tmp = tempfile::tempdir().unwrap();
    let top = fs::canonicalize(tmp.path()).unwrap();
    let (home, repo) = (top.join("home"), top.join("repos/app"));
    fs::create_dir_all(&home).unwrap();
    fs::create_dir_all(&repo).unwrap();
    fs::write(home.join("policy.toml"), POLICY).unwrap();
    git(&repo, &["init", "-q"]);
    fs::write(repo.join("a.txt"), "a\n").unwrap();
    commit_all(&repo, "initial");
    for _ in 0..2 {
        assert!(check(&home, &repo, &["-q"]).status.success());
    }
    let history = check(&home, &repo, &["--format", "json"]).ok_json();
    assert_eq!(
        history["verdict"]["recent"].as_array().map(Vec::len),
        Some(3)
    );
    for fresh in [&["--fresh"][..], &[]] {
        let out = support::Sandbox::at(&home)
            .cmd()
            .env("XDG_CACHE_HOME", home.join("cache"))
            .args(["survey", "--format", "json", "--probe-budget-ms", "100"])
            .args(fresh)
            .arg(top.join("repos"))
            .run();
        let json = out.ok_json();
        let verdict = &json["repositories"][0]["verdict"];
        assert_eq!(
            verdict["recent"].as_array().map(Vec::len),
            Some(1),
            "{verdict}"
        );
        assert!(
            !verdict["reasons"].to_string().contains("median"),
            "{verdict}"
        );
    }
}
