//! Issue 55: every report of `check` and `survey` fits one terminal of 40 rows at 110 columns,
//! its answer and the figures that decided it on screen at the end (details behind
//! `--verbose`); and check, survey, the hook and the shell nudge word one thing one way.

use crate::support::gitrepo::{init_and_commit_all, write};
use crate::support::{self, Run, Sandbox, SlowFs};
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

const ROWS: usize = 40;
const COLUMNS: usize = 110;

/// A Node project as npm leaves it: its own few files tracked, and a `node_modules` of
/// `packages` packages (more than the 96 a scan walks whole, so it is priced from a sample).
fn node_project(root: &Path, packages: usize) {
    write(
        &root.join("index.js"),
        b"module.exports = require('./lib');\n",
    );
    write(&root.join("lib/index.js"), b"module.exports = 1;\n");
    write(&root.join(".gitignore"), b"node_modules/\n");
    write(
        &root.join("package.json"),
        br#"{"name": "app", "version": "1.0.0", "dependencies": {}}"#,
    );
    for i in 0..packages {
        let dir = root.join("node_modules").join(format!("pkg{i:03}"));
        write(
            &dir.join("package.json"),
            format!(r#"{{"name": "pkg{i:03}", "version": "1.0.{i}"}}"#).as_bytes(),
        );
        for f in 0..(1 + i % 9) {
            write(&dir.join(format!("lib/f{f}.js")), &vec![b'x'; 100 + 37 * f]);
        }
    }
    init_and_commit_all(root, "init");
}

/// A repository with no dependency tree.
fn plain_repository(root: &Path) {
    for i in 0..60 {
        write(&root.join(format!("src/m{i}.rs")), b"fn main() {}\n");
    }
    init_and_commit_all(root, "init");
}

/// The report as a person at a 110-column terminal sees it (no colour).
fn screen(sandbox: &Sandbox, args: &[&str], path: &Path) -> String {
    let out = sandbox
        .cmd()
        .env("NO_COLOR", "1")
        .env("COLUMNS", COLUMNS.to_string())
        .env("LINES", ROWS.to_string())
        .args(args)
        .arg(path)
        .run();
    assert!(
        out.status.code().is_some_and(|c| c == 0 || c == 1),
        "{}",
        support::text(&out)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// The lines after the last blank line: what a terminal shorter than the report keeps in view.
fn last_block(screen: &str) -> String {
    let trimmed = screen.trim_end();
    let block = trimmed.rsplit_once("\n\n").map_or(trimmed, |(_, b)| b);
    block.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most 40 rows, none over 110 columns.
fn fits(what: &str, screen: &str) {
    let rows = screen.lines().count();
    assert!(rows <= ROWS, "{what}: {rows} rows\n{screen}");
    for line in screen.lines() {
        let columns = line.chars().count();
        assert!(columns <= COLUMNS, "{what}: {columns} columns: {line:?}");
    }
}

/// The last lines of a `check` give its verdict and the `git status` figure behind it.
fn ends_with_the_answer(what: &str, screen: &str) {
    let last = last_block(screen);
    let levels = ["ok: ", "advise: ", "move: "];
    assert!(
        levels.iter().any(|l| last.starts_with(l)),
        "{what}: no verdict at the end: {last:?}\n{screen}"
    );
    let figure = regex_lite(&last, "(git status ", " here");
    assert!(figure, "{what}: no figure at the end: {last:?}\n{screen}");
}

/// True when `text` holds `start`, then a figure and a unit, then `end`.
fn regex_lite(text: &str, start: &str, end: &str) -> bool {
    text.split(start).skip(1).any(|rest| {
        let figure: Vec<&str> = rest.splitn(3, ' ').collect();
        figure.len() == 3
            && figure[0].chars().next().is_some_and(|c| c.is_ascii_digit())
            && format!(" {}", figure[2]).starts_with(end)
    })
}

#[test]
fn check_and_survey_fit_one_screen_with_the_answer_at_the_end() {
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path().canonicalize().unwrap().join("projects");
    let (node, plain) = (top.join("webapp"), top.join("tool"));
    node_project(&node, 120);
    plain_repository(&plain);
    let sandbox = Sandbox::new();
    for (what, path) in [("node project", &node), ("plain repository", &plain)] {
        let shown = screen(&sandbox, &["check"], path);
        fits(what, &shown);
        ends_with_the_answer(what, &shown);
        // The details are one flag away, and wrapped to the terminal too.
        let all = screen(&sandbox, &["check", "--verbose"], path);
        assert!(all.contains("each file check"), "{all}");
        assert!(!shown.contains("each file check"), "{shown}");
        assert!(all.lines().all(|l| l.chars().count() <= COLUMNS), "{all}");
    }
    let node_screen = screen(&sandbox, &["check"], &node);
    assert!(node_screen.contains("node_modules: ~"), "{node_screen}");
    let survey = screen(&sandbox, &["survey"], &top);
    fits("survey", &survey);
    let last = survey.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("2 repositories: ") && last.contains("git status "),
        "{last:?}\n{survey}"
    );
}

/// The phrase `check`, the hook and the nudge give a verdict's figures in: "git status 1.2 s
/// here, 3 ms on the Linux disk" (None when `text` has none).
fn figures_phrase(text: &str) -> Option<String> {
    let start = text.find("git status ")?;
    let rest = &text[start..];
    let end = rest.find(" on the Linux disk")? + " on the Linux disk".len();
    Some(rest[..end].to_string())
}

/// What the shell's nudge prints for a prompt in `dir`, once it has learnt the repository (the
/// first prompts leave that to a background process).
fn nudge(sandbox: &Sandbox, dir: &Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let out = sandbox
            .cmd()
            .env("NO_COLOR", "1")
            .current_dir(dir)
            .arg("__nudge")
            .run();
        let said = out.stderr() + &out.stdout();
        if said.contains("wsl-place: ") {
            return said;
        }
        assert!(
            Instant::now() < deadline,
            "the nudge never spoke in {dir:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn on_a_slow_mount_check_survey_the_hook_and_the_nudge_word_it_alike() {
    let tmp = tempfile::tempdir().unwrap();
    let backing = tmp.path().join("backing");
    fs::create_dir_all(&backing).unwrap();
    let Some(fs) = SlowFs::mount(
        &backing,
        &tmp.path().join("mnt"),
        &["--profile", "drvfs-9p", "--scale", "1"],
    ) else {
        return;
    };
    let top = fs.mountpoint().to_path_buf();
    let repo = top.join("webapp");
    // Made in the backing folder, at local speed; the mount shows the same tree. Enough
    // tracked files that git status, not only the mount, decides the verdict.
    let made = fs.backing().join("webapp");
    for i in 0..1500 {
        write(&made.join(format!("src/m{}/f{i}.js", i % 30)), b"1;\n");
    }
    node_project(&made, 120);
    let sandbox = Sandbox::new();
    fs::create_dir_all(sandbox.config()).unwrap();
    fs::write(
        sandbox.config().join("config.toml"),
        "nudge_every_hours = 0\n",
    )
    .unwrap();

    let check = screen(&sandbox, &["check"], &repo);
    fits("check", &check);
    let last = last_block(&check);
    assert!(
        last.starts_with("move: ") || last.starts_with("advise: "),
        "{check}"
    );
    let in_check = figures_phrase(&last).unwrap_or_else(|| panic!("{check}"));
    let hook = screen(&sandbox, &["check", "--advisory"], &repo);
    let in_hook = figures_phrase(&hook).unwrap_or_else(|| panic!("{hook}"));
    let nudged = nudge(&sandbox, &repo);
    let in_nudge = figures_phrase(&nudged).unwrap();
    the_readmes_example_is(&nudged, &repo);
    let survey = screen(&sandbox, &["survey"], &top);
    fits("survey", &survey);
    // The summary, the last lines, wrapped: read as one line.
    let summary = last_block(&survey);
    let summary = summary[summary.find("1 repository: ").unwrap_or(0)..].to_string();
    // One way to name the place and lead with the same figure, everywhere.
    assert_eq!(in_hook, in_check, "hook {hook:?}, check:\n{check}");
    assert_eq!(in_nudge, in_hook);
    for text in [&check, &hook, &summary] {
        assert!(!text.contains("on Linux,"), "{text}");
        assert!(!text.contains("on Linux)"), "{text}");
    }
    assert!(
        summary.contains(", ") && summary.contains("on the Linux disk"),
        "{summary}"
    );
    assert!(summary.contains("git status "), "{summary}");
    drop(fs);
}

/// The README's example of the nudge is `line` (the real one for `repo`) with its own figures
/// and path: the same words, order and command.
fn the_readmes_example_is(line: &str, repo: &Path) {
    let readme =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    // The nudge's own example, after the paragraph that introduces it (the hook's comes before).
    let example = readme
        .split_once("prints the repository's cached advisory line")
        .map_or("", |(_, after)| after)
        .lines()
        .find(|l| l.starts_with("wsl-place: move (") || l.starts_with("wsl-place: advise ("))
        .unwrap_or_else(|| panic!("no nudge example in the README"));
    let line = line.trim();
    let real = line
        .replace(
            &figures_phrase(line).unwrap(),
            &figures_phrase(example).unwrap(),
        )
        .replace(&repo.display().to_string(), "/mnt/c/src/app")
        .replacen("advise (", "move (", 1);
    assert_eq!(
        example, real,
        "the README's nudge example against the real line {line:?}"
    );
}
