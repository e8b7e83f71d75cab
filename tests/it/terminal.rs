//! Terminal conventions, checked through a real pseudo-terminal (`script` from util-linux): a
//! dumb terminal gets no escape byte at all, a capable one gets colour, `NO_COLOR`,
//! `CLICOLOR_FORCE` and `--color` do what they say.

use crate::support;
use crate::support::{Outcome, Run};

use std::path::Path;
use std::process::{Command, Output, Stdio};

const ESC: u8 = 0x1b;

/// `script` running `wsl-place ARGS` on a fresh pseudo-terminal, its environment cleared down
/// to PATH and a sandbox at `home`, so no setting of the developer's reaches the binary.
fn script(home: &Path, args: &[&str]) -> Command {
    let mut line = support::binary_path().display().to_string();
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
        .env("PATH", std::env::var("PATH").unwrap_or_default());
    support::Sandbox::at(home).apply(&mut command);
    command
}

/// Runs `wsl-place ARGS` on a pseudo-terminal (see [`script`]) with `env` added, and returns
/// what the terminal showed.
fn on_a_terminal(home: &Path, env: &[(&str, &str)], args: &[&str]) -> Outcome {
    let mut command = script(home, args);
    command.stdin(Stdio::null());
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.run();
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
        let mut command = support::Sandbox::at(&home).cmd();
        command
            .args(["--color", color, "check", "--no-probe", &repo])
            .env("TERM", "xterm-256color")
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR")
            .env_remove("CLICOLOR_FORCE");
        for (key, value) in env {
            command.env(key, value);
        }
        let output = command.run();
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

/// `wsl-place ARGS` on a pseudo-terminal that a test talks to: it waits for text to appear and
/// types keys, as a person would.
struct Conversation {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    seen: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Conversation {
    fn start(home: &Path, args: &[&str]) -> Self {
        Self::start_with(home, &[], args)
    }

    /// As [`Conversation::start`], with `env` added (a fixture host).
    fn start_with(home: &Path, env: &[(&str, &Path)], args: &[&str]) -> Self {
        let mut command = script(home, args);
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command
            .env("TERM", "xterm-256color")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("running script(1) from util-linux");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = seen.clone();
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = std::io::Read::read(&mut stdout, &mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Self {
            child,
            stdin,
            seen,
            reader: Some(reader),
        }
    }

    fn transcript(&self) -> String {
        String::from_utf8_lossy(&self.seen.lock().unwrap()).into_owned()
    }

    /// Waits until `text` has appeared `times` times on the terminal.
    fn wait_for(&self, text: &str, times: usize) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while self.transcript().matches(text).count() < times {
            assert!(
                std::time::Instant::now() < deadline,
                "{text:?} never appeared; the terminal showed:\n{}",
                self.transcript()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // The prompt is drawn before the key is read: give it the moment to get there.
        std::thread::sleep(std::time::Duration::from_millis(150));
    }

    fn press(&mut self, keys: &[u8]) {
        std::io::Write::write_all(&mut self.stdin, keys).unwrap();
        std::io::Write::flush(&mut self.stdin).unwrap();
    }

    /// Waits for the end; the exit code and everything the terminal showed.
    fn finish(mut self) -> (Option<i32>, String) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if std::time::Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("still running; the terminal showed:\n{}", self.transcript());
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        if let Some(reader) = self.reader.take() {
            reader.join().unwrap();
        }
        (status.code(), self.transcript())
    }
}

/// A repository cloned on a Windows drive, as far as git can tell: a node_modules, and the two
/// settings drvfs makes git choose. Returns the scratch folder, the repository and a home.
fn windows_clone() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("app");
    support::gitrepo::repo_with_files(&repo, 8);
    support::gitrepo::write(&repo.join("package-lock.json"), b"{}");
    support::gitrepo::write(&repo.join("node_modules/dep/index.js"), b"1");
    support::gitrepo::git(&repo, &["config", "core.filemode", "false"]);
    support::gitrepo::git(&repo, &["config", "core.ignorecase", "true"]);
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    (dir, repo, home)
}

const HIDE_CURSOR: &str = "\x1b[?25l";
const SHOW_CURSOR: &str = "\x1b[?25h";

#[test]
fn every_question_is_answered_before_anything_is_staged() {
    let (dir, repo, home) = windows_clone();
    let dest = dir.path().join("moved");
    let staging = dir.path().join(".moved.wsl-place-staging");
    let (repo_arg, dest_arg) = (repo.display().to_string(), dest.display().to_string());
    let mut talk = Conversation::start(&home, &["migrate", &repo_arg, "--to", &dest_arg]);
    let nothing_yet = |talk: &Conversation, when: &str| {
        assert!(
            !staging.exists() && !dest.exists(),
            "something was staged {when}:\n{}",
            talk.transcript()
        );
    };
    talk.wait_for("Leave node_modules behind", 1);
    nothing_yet(&talk, "before the first answer");
    talk.press(b"y");
    talk.wait_for("core.fileMode is false", 1);
    nothing_yet(&talk, "after the node_modules answer");
    talk.press(b"n");
    talk.wait_for("core.ignoreCase is true", 1);
    talk.press(b"\r");
    talk.wait_for("Copy, verify and move it to", 1);
    nothing_yet(&talk, "before the last answer");
    talk.press(b"y");
    let (code, shown) = talk.finish();
    assert_eq!(code, Some(0), "{shown}");
    assert!(shown.contains("Migrated:"), "{shown}");
    // Every answer was kept, and none was asked for after the copy.
    let after_copy = &shown[shown.rfind("Copy, verify").unwrap()..];
    assert!(
        !after_copy.contains("Set it to"),
        "asked after copying:\n{shown}"
    );
    assert!(
        !dest.join("node_modules").exists(),
        "node_modules was copied"
    );
    let config = |key: &str| {
        support::gitrepo::git(&dest, &["config", key])
            .trim()
            .to_string()
    };
    assert_eq!(config("core.filemode"), "false", "declined, yet reset");
    assert_eq!(config("core.ignorecase"), "false", "Enter means reset");
    assert!(shown.contains("npm ci"), "no reinstall step:\n{shown}");
    // Issue 55: node_modules left behind, the copy's time is priced again; the last question
    // says the new figure, and the result quotes that one, not a figure never shown.
    let said = strip_escapes(&shown)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let asked = said
        .rsplit("Copy, verify and move it to ")
        .next()
        .and_then(|q| q.split(" (about ").nth(1))
        .and_then(|q| q.split(" now, node_modules left behind)?").next())
        .unwrap_or_else(|| panic!("the last question has no new figure:\n{said}"));
    assert!(
        said.contains(&format!(
            "the plan said {asked} with node_modules left behind"
        )),
        "the result quotes another figure than the question's {asked}:\n{said}"
    );
}

#[test]
fn ctrl_c_at_a_question_gives_the_cursor_back_and_exits_130() {
    let (dir, repo, home) = windows_clone();
    let dest = dir.path().join("moved");
    let (repo_arg, dest_arg) = (repo.display().to_string(), dest.display().to_string());
    let mut talk = Conversation::start(&home, &["migrate", &repo_arg, "--to", &dest_arg]);
    talk.wait_for("Leave node_modules behind", 1);
    assert!(
        talk.transcript().contains(HIDE_CURSOR),
        "the prompt hid no cursor"
    );
    talk.press(b"\x03");
    let (code, shown) = talk.finish();
    assert_eq!(code, Some(130), "{shown}");
    let hidden = shown.rfind(HIDE_CURSOR).unwrap();
    assert!(
        shown[hidden..].contains(SHOW_CURSOR),
        "the cursor was left hidden:\n{shown:?}"
    );
    assert!(
        shown.contains("interrupted") && shown.contains("nothing was copied"),
        "{shown}"
    );
    let again = format!("wsl-place migrate {repo_arg} --to {dest_arg}");
    assert!(
        shown.contains(&again),
        "no command to start again:\n{shown}"
    );
    assert!(!dest.exists());
    assert!(!dir.path().join(".moved.wsl-place-staging").exists());
}

#[test]
fn quiet_without_yes_still_shows_what_it_asks() {
    let (dir, repo, home) = windows_clone();
    let dest = dir.path().join("moved");
    let (repo_arg, dest_arg) = (repo.display().to_string(), dest.display().to_string());
    // Quiet, taking the default answers to the two fixes; then JSON, which is for the result,
    // declining them. Either way the questions come with the plan they are about.
    for (mode, fix_answer) in [(&["-q"][..], b"\r"), (&["--format", "json"][..], b"n")] {
        let mut args = vec!["migrate"];
        args.extend_from_slice(mode);
        args.extend(["--skip-node-modules", &repo_arg, "--to", &dest_arg]);
        let mut talk = Conversation::start(&home, &args);
        talk.wait_for("core.fileMode is false", 1);
        talk.press(fix_answer);
        talk.wait_for("core.ignoreCase is true", 1);
        talk.press(fix_answer);
        talk.wait_for("Copy, verify and move it to", 1);
        talk.press(b"n");
        let (code, shown) = talk.finish();
        assert_eq!(code, Some(0), "{mode:?}: {shown}");
        assert!(shown.contains("Migration plan"), "{mode:?}: {shown}");
        assert!(!dest.exists());
    }
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn ctrl_c_on_the_terminal_during_the_copy_exits_130_with_the_resume_and_abort_commands() {
    let dir = tempfile::tempdir().unwrap();
    let backing = dir.path().join("backing");
    for i in 0..300u64 {
        support::gitrepo::write(&backing.join(format!("src/f{i}")), &[b'x'; 2000]);
    }
    // 20 ms per read: the copy takes seconds, so it is surely running when the key comes.
    let Some(fs) = support::SlowFs::mount(
        &backing,
        &dir.path().join("mnt"),
        &["--profile", "none", "--latency", "read=20"],
    ) else {
        return;
    };
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let source = fs.mountpoint().display().to_string();
    let dest = dir.path().join("out/app");
    let staging = dir.path().join("out/.app.wsl-place-staging");
    let dest_arg = dest.display().to_string();
    let mut talk = Conversation::start(&home, &["migrate", "--yes", &source, "--to", &dest_arg]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !staging.join("tree/src").is_dir() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(staging.join("tree/src").is_dir(), "the copy never started");
    std::thread::sleep(std::time::Duration::from_millis(200));
    // The terminal turns the key into SIGINT for the process in front.
    talk.press(b"\x03");
    let (code, shown) = talk.finish();
    assert_eq!(code, Some(130), "{shown}");
    let again = format!("wsl-place migrate {source} --to {dest_arg}");
    assert!(
        shown.contains(&format!("resume with `{again}`"))
            && shown.contains(&format!("remove it with `{again} --abort`")),
        "{shown}"
    );
    if let Some(hidden) = shown.rfind(HIDE_CURSOR) {
        assert!(
            shown[hidden..].contains(SHOW_CURSOR),
            "cursor left hidden: {shown:?}"
        );
    }
    assert!(!dest.exists(), "finalised after Ctrl-C");
    assert!(
        staging.join("journal").is_file(),
        "the copy so far was not kept"
    );
}

/// A spinner frame (indicatif's default ticks) followed by `label`, as the terminal showed it.
fn spinner_shown(output: &Output, label: &str) -> bool {
    let text = String::from_utf8_lossy(&output.stdout);
    "⠁⠂⠄⡀⢀⠠⠐⠈"
        .chars()
        .any(|frame| text.contains(&format!("{frame} {label}")))
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn slow_phases_show_a_labelled_spinner_on_a_terminal_only() {
    let dir = tempfile::tempdir().unwrap();
    let backing = dir.path().join("backing");
    // Enough files, on a mount slow enough, that timing it takes well over the 0.3 s a spinner
    // waits for (at scale 1 a check of 300 files timed the mount in about that).
    support::gitrepo::repo_with_files(&backing.join("repo"), 300);
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let Some(slow) = support::SlowFs::mount(
        &backing,
        &dir.path().join("slow"),
        &["--profile", "drvfs-9p", "--scale", "2"],
    ) else {
        return;
    };
    let repo = slow.mountpoint().join("repo").display().to_string();
    let xterm = [("TERM", "xterm-256color")];
    for format in ["human", "markdown"] {
        let check = on_a_terminal(
            &home,
            &xterm,
            &["check", "--fresh", "--format", format, &repo],
        );
        assert!(
            spinner_shown(&check, "timing small-file operations"),
            "check --format {format}: no spinner while timing: {}",
            String::from_utf8_lossy(&check.stdout)
        );
    }
    let probe = on_a_terminal(&home, &xterm, &["probe", &repo]);
    assert!(
        spinner_shown(&probe, "timing small-file operations on"),
        "probe: no spinner: {}",
        String::from_utf8_lossy(&probe.stdout)
    );
    let piped = support::Sandbox::at(&home)
        .cmd()
        .args(["probe", &repo])
        .env("TERM", "xterm-256color")
        .run();
    assert!(piped.status.success(), "{}", support::text(&piped));
    assert!(
        !support::stderr(&piped).contains("timing"),
        "a spinner on a pipe: {}",
        support::stderr(&piped)
    );
}

// Issue 25: `--remove-source` on a repository migrated earlier shows its plan before asking
// (what goes: counts and size, with the time it takes; what stays), then removes with a bar
// that counts down the time left.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn remove_source_after_the_move_shows_its_plan_then_a_bar_with_time_left() {
    let tmp = tempfile::tempdir().unwrap();
    let backing = tmp.path().join("backing");
    support::gitrepo::repo_with_files(&backing.join("app"), 300);
    let home = tmp.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let Some(fs) = support::SlowFs::mount(
        &backing,
        &tmp.path().join("mnt"),
        &[
            "--profile",
            "none",
            "--latency",
            "unlink=4",
            "--latency",
            "lookup=2",
        ],
    ) else {
        return;
    };
    let source = fs.mountpoint().join("app");
    let dest = tmp.path().join("linux/app");
    let (source_arg, dest_arg) = (source.display().to_string(), dest.display().to_string());
    let first = support::Sandbox::at(&home)
        .migrate(&source, &dest)
        .arg("--yes")
        .run();
    first.ok();
    // Made after the move: stays, and is named with why.
    support::gitrepo::write(&source.join("late.txt"), b"after the move\n");

    let mut talk = Conversation::start(
        &home,
        &["migrate", &source_arg, "--to", &dest_arg, "--remove-source"],
    );
    talk.wait_for("Delete from", 1);
    let asked = talk.transcript();
    let plan = &asked[asked.find("Removing the source").expect(&asked)..];
    assert!(
        plan.contains("was verified on 20")
            && plan.contains("deletes")
            && plan.contains(" files, ")
            && plan.contains("about ")
            && plan.contains("late.txt (made after the copy)"),
        "{asked}"
    );
    talk.press(b"y");
    let (code, shown) = talk.finish();
    assert_eq!(code, Some(0), "{shown}");
    let after = &shown[shown.rfind("Delete from").unwrap()..];
    assert!(
        after.contains("% ") && after.contains(" left"),
        "no bar with the time left:\n{shown}"
    );
    assert!(source.join("late.txt").exists());
    assert!(!source.join("d0").exists(), "{shown}");
    drop(fs);
}

/// On a fixture WSL host with Git for Windows installed, a no to the safe.directory question
/// writes nothing to Windows' git config, and the result prints the commands that add them.
#[test]
fn a_no_to_safe_directory_writes_nothing_and_prints_the_commands() {
    let dir = tempfile::tempdir().unwrap();
    let drive = dir.path().canonicalize().unwrap().join("c");
    let profile = drive.join("Users/me");
    std::fs::create_dir_all(drive.join("Program Files/Git/cmd")).unwrap();
    std::fs::write(drive.join("Program Files/Git/cmd/git.exe"), b"MZ").unwrap();
    let gitconfig = profile.join(".gitconfig");
    let before = b"[user]\r\n\tname = Me\r\n";
    support::gitrepo::write(&gitconfig, before);
    let repo = profile.join("app");
    support::gitrepo::repo_with_files(&repo, 3);
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let proc = support::fakeproc::FakeProc::new(
        support::fakeproc::WSL2_VERSION,
        &support::fakeproc::wsl_9p_mountinfo(&drive),
        false,
    );
    let dest = dir.path().join("moved");
    let (repo_arg, dest_arg) = (repo.display().to_string(), dest.display().to_string());
    let env = [
        ("WSL_PLACE_PROC_ROOT", proc.dir.path()),
        ("WSL_DISTRO_NAME", Path::new("Ubuntu")),
        ("NO_COLOR", Path::new("1")),
        ("COLUMNS", Path::new("400")),
    ];
    let mut talk =
        Conversation::start_with(&home, &env, &["migrate", &repo_arg, "--to", &dest_arg]);
    talk.wait_for("so Git for Windows opens it?", 1);
    talk.press(b"n");
    talk.wait_for("Copy, verify and move it to", 1);
    talk.press(b"y");
    let (code, shown) = talk.finish();
    assert_eq!(code, Some(0), "{shown}");
    assert!(shown.contains("Migrated:"), "{shown}");
    assert!(
        shown.contains(
            "git.exe config --global --add safe.directory '%(prefix)///wsl.localhost/Ubuntu"
        ),
        "{shown}"
    );
    assert_eq!(std::fs::read(&gitconfig).unwrap(), before);
}

/// Output to a pipe is not wrapped: `check | cat` keeps each path and sentence on one line (grep
/// and a copy find them whole); `COLUMNS` still sets a width when given.
#[test]
fn a_pipe_gets_whole_lines_and_columns_still_wraps() {
    let base = tempfile::tempdir().unwrap();
    let home = base.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let repo = base
        .path()
        .join("a-rather-long-folder-name-for-a-project")
        .join("with-another-long-folder-name-below-it")
        .join("manifests-express-15c0d25-and-more");
    crate::support::gitrepo::repo_with_files(&repo, 3);
    let run = |columns: Option<&str>| {
        let mut cmd = crate::support::Sandbox::at(&home).cmd();
        cmd.args(["check", "--no-probe"]).arg(&repo);
        cmd.env_remove("COLUMNS").env("NO_COLOR", "1");
        if let Some(columns) = columns {
            cmd.env("COLUMNS", columns);
        }
        let out = cmd.run();
        out.ok();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let path = repo.display().to_string();
    assert!(path.len() > 100, "{path}");
    let piped = run(None);
    // Every word of every line is whole: the long path is on one line, and no line ends
    // inside it.
    assert!(piped.lines().any(|l| l.ends_with(&path)), "{piped}");
    for line in piped.lines() {
        let last = line.split(' ').next_back().unwrap_or_default();
        assert!(
            last.is_empty() || !path.starts_with(last) || last == path || !last.starts_with('/'),
            "a line ends inside the path: {line:?}\n{piped}"
        );
    }
    // COLUMNS wraps at spaces; the path, longer than a line, gets lines of its own, whole.
    let narrow = run(Some("60"));
    assert!(
        narrow
            .lines()
            .all(|l| l.chars().count() <= 60 || l.ends_with(&path)),
        "{narrow}"
    );
    assert!(narrow.lines().any(|l| l.trim_start() == path), "{narrow}");
    assert!(narrow.lines().any(|l| l.starts_with("  path ")), "{narrow}");
    assert!(
        narrow
            .lines()
            .filter(|l| l.contains("a-rather-long"))
            .all(|l| l.contains(&path)),
        "{narrow}"
    );
}

/// Issue 39: `--abort` after a finished migration deletes the whole copy, so on a terminal it
/// asks first; Enter answers no and keeps it, `y` deletes it.
#[test]
fn abort_of_a_finished_migration_asks_and_enter_keeps_the_copy() {
    let (dir, repo, home) = windows_clone();
    let dest = dir.path().join("moved");
    let moved = support::Sandbox::at(&home)
        .migrate(&repo, &dest)
        .args(["--yes", "-q"])
        .run();
    assert!(moved.status.success(), "{}", support::text(&moved));
    let (repo_arg, dest_arg) = (repo.display().to_string(), dest.display().to_string());
    let abort = ["migrate", &repo_arg, "--to", &dest_arg, "--abort"];

    let mut talk = Conversation::start(&home, &abort);
    talk.wait_for("Delete the copy at", 1);
    assert!(dest.is_dir(), "removed before the answer");
    talk.press(b"\r");
    let (code, shown) = talk.finish();
    assert_eq!(code, Some(0), "{shown}");
    assert!(shown.contains("Nothing was removed"), "{shown}");
    assert!(
        dest.join(".git").is_dir(),
        "Enter removed the copy:\n{shown}"
    );

    let mut talk = Conversation::start(&home, &abort);
    talk.wait_for("Delete the copy at", 1);
    talk.press(b"y");
    let (code, shown) = talk.finish();
    assert_eq!(code, Some(0), "{shown}");
    assert!(shown.contains("Removed the copy at"), "{shown}");
    assert!(!dest.exists(), "y kept the copy:\n{shown}");
    assert!(repo.join(".git").is_dir(), "--abort touched the source");
}

// Issue 50: a second destination for a source migrated before is a question, asked before any
// work; no (Enter's answer) copies nothing and keeps the record as it was.
#[test]
fn a_second_destination_is_asked_and_no_copies_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, home) = (dir.path().join("app"), dir.path().join("home"));
    support::gitrepo::repo_with_files(&repo, 4);
    std::fs::create_dir(&home).unwrap();
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    let out = support::Sandbox::at(&home)
        .migrate(&repo, &first)
        .arg("--yes")
        .run();
    assert!(out.status.success(), "{}", support::text(&out));
    let (repo_arg, second_arg) = (repo.display().to_string(), second.display().to_string());
    let mut talk = Conversation::start(&home, &["migrate", &repo_arg, "--to", &second_arg]);
    talk.wait_for("make a second copy at", 1);
    assert!(talk.transcript().contains(&first.display().to_string()));
    talk.press(b"\r");
    let (code, shown) = talk.finish();
    assert_eq!(code, Some(0), "{shown}");
    assert!(shown.contains("Nothing was copied"), "{shown}");
    assert!(!second.exists(), "{shown}");
    let check = support::Sandbox::at(&home).check_json(&repo, &[]);
    assert_eq!(check["moved"]["destination"], first.display().to_string());
}

/// Issue 55: a question wider than the terminal is laid out at its words before it is asked,
/// so the terminal shows it once, each row inside the width, and the answer after its last.
#[test]
fn a_question_wider_than_the_terminal_is_shown_once_and_fits() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let deep = "Users/someone/source/repos/customer-portal";
    let repo = dir.path().join(deep).join("express-api-server");
    support::gitrepo::repo_with_files(&repo, 4);
    let dest = dir
        .path()
        .join("linux/projects/customer-portal/express-api-server");
    support::Sandbox::at(&home)
        .migrate(&repo, &dest)
        .args(["--yes", "-q"])
        .run()
        .ok();
    let (repo_arg, dest_arg) = (repo.display().to_string(), dest.display().to_string());
    let abort = ["migrate", &repo_arg, "--to", &dest_arg, "--abort"];
    let mut talk = Conversation::start_with(&home, &[("COLUMNS", Path::new("110"))], &abort);
    talk.wait_for("[y/N]", 1);
    talk.press(b"\r");
    let (code, shown) = talk.finish();
    assert_eq!(code, Some(0), "{shown}");
    assert!(dest.is_dir(), "Enter removed the copy:\n{shown}");
    assert_eq!(shown.matches("Delete the copy at").count(), 1, "{shown:?}");
    // What the terminal keeps of each row: the text after the last erase or carriage return.
    let plain = strip_escapes(&shown);
    for row in plain.lines() {
        let kept = row.rsplit('\r').next().unwrap_or_default();
        assert!(kept.chars().count() <= 110, "{kept:?} in:\n{shown}");
    }
}

/// `text` without its CSI escape sequences (colour, cursor, erase).
fn strip_escapes(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}
