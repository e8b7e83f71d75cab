//! Terminal conventions, checked through a real pseudo-terminal (`script` from util-linux): a
//! dumb terminal gets no escape byte at all, a capable one gets colour, `NO_COLOR`,
//! `CLICOLOR_FORCE` and `--color` do what they say.

mod support;

use std::path::Path;
use std::process::{Command, Output, Stdio};

const ESC: u8 = 0x1b;

fn binary() -> String {
    assert_cmd::cargo::cargo_bin!("wsl-place")
        .display()
        .to_string()
}

/// Runs `wsl-place ARGS` with its standard streams on a fresh pseudo-terminal, environment
/// cleared down to `env` (plus PATH and a private HOME), and returns what the terminal showed.
fn on_a_terminal(home: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut line = binary();
    for arg in args {
        assert!(
            !arg.contains(['\'', ' ']),
            "argument {arg:?} needs quoting for script -c"
        );
        line.push(' ');
        line.push_str(arg);
    }
    let mut command = Command::new("script");
    command
        .args(["--quiet", "--return", "--command", &line, "/dev/null"])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .stdin(Stdio::null());
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("running script(1) from util-linux");
    assert!(
        output.status.success(),
        "wsl-place {args:?} on a terminal failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn has_escape(output: &Output) -> bool {
    output.stdout.contains(&ESC) || output.stderr.contains(&ESC)
}

/// A small committed repository and a private home for the advisory cache and the baseline.
fn repo() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    support::gitrepo::repo_with_files(&repo, 20);
    std::fs::create_dir(dir.path().join("home")).unwrap();
    let path = repo.display().to_string();
    (dir, path)
}

#[test]
fn dumb_terminal_gets_no_escape_byte() {
    let (dir, repo) = repo();
    let home = dir.path().join("home");
    let dumb = [("TERM", "dumb")];
    let check = on_a_terminal(&home, &dumb, &["check", &repo]);
    let text = String::from_utf8_lossy(&check.stdout);
    assert!(
        text.contains("verdict"),
        "no report on the terminal: {text}"
    );
    assert!(!has_escape(&check), "escape byte under TERM=dumb: {text:?}");

    let destination = dir.path().join("moved").display().to_string();
    let migrate = on_a_terminal(
        &home,
        &dumb,
        &["migrate", "--yes", "--to", &destination, &repo],
    );
    let text = String::from_utf8_lossy(&migrate.stdout);
    assert!(text.contains("Migrated:"), "migrate did not finish: {text}");
    assert!(
        !has_escape(&migrate),
        "escape byte under TERM=dumb: {text:?}"
    );
}

#[test]
fn capable_terminal_gets_colour_unless_told_otherwise() {
    let (dir, repo) = repo();
    let home = dir.path().join("home");
    let args = ["check", "--no-probe", repo.as_str()];
    let xterm = ("TERM", "xterm-256color");
    assert!(
        has_escape(&on_a_terminal(&home, &[xterm], &args)),
        "no colour on a capable terminal"
    );
    assert!(!has_escape(&on_a_terminal(
        &home,
        &[xterm, ("NO_COLOR", "1")],
        &args
    )));
    assert!(!has_escape(&on_a_terminal(
        &home,
        &[xterm, ("CLICOLOR", "0")],
        &args
    )));
    let never = ["--color", "never", "check", "--no-probe", repo.as_str()];
    assert!(!has_escape(&on_a_terminal(&home, &[xterm], &never)));
}

#[test]
fn pipes_are_plain_unless_colour_is_forced() {
    let (dir, repo) = repo();
    let home = dir.path().join("home");
    let run = |env: &[(&str, &str)], color: &str| {
        let mut command = support::wsl_place();
        command
            .args(["--color", color, "check", "--no-probe", &repo])
            .env("HOME", &home)
            .env_remove("XDG_CACHE_HOME")
            .env("TERM", "xterm-256color")
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR")
            .env_remove("CLICOLOR_FORCE");
        for (key, value) in env {
            command.env(key, value);
        }
        let output = command.output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        output.stdout.contains(&ESC)
    };
    assert!(!run(&[], "auto"), "colour in a pipe");
    assert!(
        run(&[("CLICOLOR_FORCE", "1")], "auto"),
        "CLICOLOR_FORCE ignored"
    );
    assert!(
        !run(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], "auto"),
        "NO_COLOR loses to CLICOLOR_FORCE"
    );
    assert!(run(&[], "always"), "--color always ignored");
}
