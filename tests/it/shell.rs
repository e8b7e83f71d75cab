//! `wsl-place init bash|zsh|fish`, sourced in real interactive shells on a pseudo-terminal
//! (util-linux `script` gives each its own), driven the way a person types: `cd` into a
//! repository, and read what is printed before the next command's output.
//!
//! bash is always tested; zsh and fish where they are installed (elsewhere SKIP, a failure
//! under WSL_PLACE_REQUIRE_FUSE=1). The slow mount is the slowfs emulator (FUSE: ignored unless
//! asked for); the local disk is the test's own temporary folder.

use crate::support::{self, Run, Sandbox, SlowFs, fakeproc};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// An interactive shell on its own terminal, with the hook loaded.
struct Session {
    child: Child,
    stdin: ChildStdin,
    output: Arc<Mutex<String>>,
    shell: &'static str,
    /// How much of `output` earlier commands have consumed.
    seen: usize,
    marks: u32,
}

impl Session {
    /// `shell` started with no startup files in a sandbox at `home`, the hook loaded as its
    /// documentation says.
    fn start(shell: &'static str, home: &Path) -> Session {
        let command = match shell {
            "bash" => "bash --norc --noprofile -i",
            "zsh" => "zsh -f -i",
            _ => "fish --no-config -i",
        };
        let mut child = Sandbox::at(home)
            .program("script")
            .args(["-q", "-f", "-e", "-c", command, "/dev/null"])
            .env("TERM", "dumb")
            .env("NO_COLOR", "1")
            .env_remove("PROMPT_COMMAND")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("util-linux script runs the shell on a pseudo-terminal");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let output = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&output);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let mut session = Session {
            child,
            stdin,
            output,
            shell,
            seen: 0,
            marks: 0,
        };
        let exe = support::binary_path();
        let load = match shell {
            "fish" => format!("{} init fish | source", exe.display()),
            _ => format!("eval \"$({} init {shell})\"", exe.display()),
        };
        session.run(&load);
        session
    }

    /// Types `line`, then a marker command, and returns everything the terminal showed in
    /// between: the hook runs before the prompt that follows `line`, so its output is there.
    fn run(&mut self, line: &str) -> String {
        self.marks += 1;
        let n = self.marks;
        // The marker's text appears only when the command runs, never in the typed echo.
        let marker = match self.shell {
            "fish" => format!("echo @@(math {n} + 1000)@@"),
            _ => format!("echo @@$(({n} + 1000))@@"),
        };
        let expected = format!("@@{}@@", n + 1000);
        writeln!(self.stdin, "{line}").unwrap();
        writeln!(self.stdin, "{marker}").unwrap();
        self.stdin.flush().unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            {
                let output = self.output.lock().unwrap();
                if let Some(at) = output[self.seen..].find(&expected) {
                    let text = output[self.seen..self.seen + at].to_string();
                    self.seen += at + expected.len();
                    return text;
                }
            }
            assert!(
                Instant::now() < deadline,
                "{} never ran {line:?}; the terminal showed:\n{}",
                self.shell,
                self.output.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "exit");
        let _ = self.stdin.flush();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        support::kill(&mut self.child);
    }
}

/// How many nudges `text` shows.
fn nudges(text: &str) -> usize {
    text.matches("wsl-place: advise").count() + text.matches("wsl-place: move").count()
}

/// A home folder for the shell, and a git repository with a few files at `repo`.
fn repository(repo: &Path) {
    std::fs::create_dir_all(repo.join("src")).unwrap();
    support::gitrepo::files_repo(repo, 20);
}

/// `check --advisory` run once for `repo`, as a hook or a full check leaves the cache.
fn cache_answer(home: &Path, repo: &Path) -> String {
    let output = Sandbox::at(home)
        .cmd()
        .args(["check", "--advisory"])
        .arg(repo)
        .run();
    let line = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        nudges(&line) == 1,
        "the cached answer is not a nudge: {}",
        support::text(&output)
    );
    line
}

#[test]
fn init_prints_a_hook_each_shell_accepts() {
    for (shell, check) in [("bash", "-n"), ("zsh", "-n"), ("fish", "--no-execute")] {
        if shell != "bash" && !support::have_shell(shell) {
            continue;
        }
        let output = support::wsl_place().args(["init", shell]).run();
        assert!(output.status.success());
        let script = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(script.contains("__nudge"), "{script}");
        // fish makes its config and history folders below HOME as it starts.
        let mut parse = Sandbox::shared()
            .program(shell)
            .arg(check)
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        parse
            .stdin
            .take()
            .unwrap()
            .write_all(script.as_bytes())
            .unwrap();
        assert!(
            parse.wait().unwrap().success(),
            "{shell} rejects:\n{script}"
        );
    }
}

/// On a local disk the hook says nothing, even when the cache holds a nudge for the repository
/// (here one made with a fixture /proc that calls the folder `drive` a 9p drive).
fn silent_on_a_local_disk(drive: &Path) {
    std::fs::create_dir_all(drive).unwrap();
    let drive = drive.canonicalize().unwrap();
    let project = drive.join("Users/me/app");
    let proc = fakeproc::FakeProc::new(
        fakeproc::WSL2_VERSION,
        &fakeproc::wsl_9p_mountinfo(&drive),
        true,
    );
    repository(&project);
    let home = Sandbox::new();
    let made = proc
        .command(Some("Ubuntu"))
        .env("XDG_CACHE_HOME", home.cache())
        .args(["check", "--advisory"])
        .arg(&project)
        .run();
    assert_eq!(
        nudges(&String::from_utf8_lossy(&made.stdout)),
        1,
        "{}",
        support::text(&made)
    );
    let direct = home
        .cmd()
        .arg("__nudge")
        .current_dir(project.join("src"))
        .run();
    direct.ok();
    assert!(
        direct.stdout.is_empty() && direct.stderr.is_empty(),
        "{direct:?}"
    );
    let mut bash = Session::start("bash", home.home());
    let seen = bash.run(&format!("cd '{}'", project.display()));
    assert_eq!(nudges(&seen), 0, "{seen}");
    drop(bash);
    // Nothing was started or remembered either.
    assert!(!home.cache().join("wsl-place/nudge.json").exists());
}

#[test]
fn nothing_on_the_temporary_folders_disk() {
    let base = tempfile::tempdir().unwrap();
    silent_on_a_local_disk(&base.path().join("c"));
}

#[test]
#[ignore = "needs root (mounts a tmpfs)"]
fn nothing_on_tmpfs() {
    let Some(disk) = support::Mount::tmpfs("64m") else {
        return;
    };
    silent_on_a_local_disk(disk.point());
}

/// The nudge on slowfs: once on the first `cd` into the repository, not again that day, with
/// `git config wsl-place.nudge false` silencing it; then, with `nudge_every_hours = 0`, on every
/// visit (so the silence before was the interval's, not a hook that never ran).
fn nudges_once_on_slowfs(shell: &'static str) {
    if shell != "bash" && !support::have_shell(shell) {
        return;
    }
    let base = tempfile::tempdir().unwrap();
    let backing = base.path().join("backing");
    repository(&backing.join("app"));
    std::fs::create_dir_all(backing.join("plain")).unwrap();
    repository(&backing.join("quiet"));
    let Some(fs) = SlowFs::mount(&backing, &base.path().join("mnt"), &["--scale", "0.05"]) else {
        return;
    };
    let app = fs.mountpoint().join("app");
    let quiet = fs.mountpoint().join("quiet");
    let home = base.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let line = cache_answer(&home, &app);
    cache_answer(&home, &quiet);
    support::gitrepo::git(&quiet, &["config", "wsl-place.nudge", "false"]);

    let mut session = Session::start(shell, &home);
    let first = session.run(&format!("cd '{}'", app.join("src").display()));
    assert_eq!(nudges(&first), 1, "{shell}, first cd:\n{first}");
    assert!(first.contains(line.trim()), "{first}\nexpected: {line}");
    let elsewhere = session.run(&format!("cd '{}'", fs.mountpoint().join("plain").display()));
    assert_eq!(
        nudges(&elsewhere),
        0,
        "{shell}, outside a repository:\n{elsewhere}"
    );
    let again = session.run(&format!("cd '{}'", app.display()));
    assert_eq!(
        nudges(&again),
        0,
        "{shell}, second cd the same day:\n{again}"
    );
    let silenced = session.run(&format!("cd '{}'", quiet.display()));
    assert_eq!(nudges(&silenced), 0, "{shell}, silenced:\n{silenced}");
    drop(session);

    std::fs::create_dir_all(home.join(".config/wsl-place")).unwrap();
    std::fs::write(
        home.join(".config/wsl-place/config.toml"),
        "nudge_every_hours = 0\n",
    )
    .unwrap();
    let mut session = Session::start(shell, &home);
    for visit in 0..2 {
        session.run("cd /");
        let seen = session.run(&format!("cd '{}'", app.display()));
        assert_eq!(
            nudges(&seen),
            1,
            "{shell}, visit {visit} with no interval:\n{seen}"
        );
    }
    drop(session);
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn bash_nudges_once_on_slowfs() {
    nudges_once_on_slowfs("bash");
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn zsh_nudges_once_on_slowfs() {
    nudges_once_on_slowfs("zsh");
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn fish_nudges_once_on_slowfs() {
    nudges_once_on_slowfs("fish");
}

/// With nothing cached, the first visit starts `check --advisory` in the background and says
/// so in one line; the next visit has its answer.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn an_uncached_repository_is_checked_in_the_background() {
    let base = tempfile::tempdir().unwrap();
    let backing = base.path().join("backing");
    repository(&backing.join("app"));
    let Some(fs) = SlowFs::mount(&backing, &base.path().join("mnt"), &["--scale", "0.05"]) else {
        return;
    };
    let app = fs.mountpoint().join("app");
    let home = base.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut bash = Session::start("bash", &home);
    let first = bash.run(&format!("cd '{}'", app.join("src").display()));
    assert_eq!(nudges(&first), 0, "{first}");
    // The first visit speaks: a measurement started, and where its answer will show.
    assert!(
        first.contains("wsl-place: measuring this repository in the background; its answer shows here at your next cd"),
        "{first}"
    );
    // The background check's answer lands in the cache.
    let cache = home.join(".cache/wsl-place/advisory");
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::read_dir(&cache).map_or(0, Iterator::count) == 0 {
        assert!(Instant::now() < deadline, "no background check answered");
        std::thread::sleep(Duration::from_millis(50));
    }
    bash.run("cd /");
    let second = bash.run(&format!("cd '{}'", app.display()));
    assert_eq!(nudges(&second), 1, "{second}");

    // An answer older than the cache's week is refreshed the same way.
    let file = std::fs::read_dir(&cache)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut entry: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    entry["created_unix"] = serde_json::Value::from(1);
    std::fs::write(&file, serde_json::to_vec(&entry).unwrap()).unwrap();
    // (and the first check started long enough ago not to be waited for)
    let state_file = home.join(".cache/wsl-place/nudge.json");
    let mut state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&state_file).unwrap()).unwrap();
    state["repositories"][app.to_str().unwrap()]["started"] = serde_json::Value::from(1);
    std::fs::write(&state_file, serde_json::to_vec(&state).unwrap()).unwrap();
    bash.run("cd /");
    bash.run(&format!("cd '{}'", app.display()));
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let now: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&file).unwrap_or_default()).unwrap_or_default();
        if now["created_unix"].as_u64().is_some_and(|at| at > 1) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the old answer was not refreshed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Let the background check finish before the mount goes.
    std::thread::sleep(Duration::from_millis(300));
    drop(bash);
}

/// `git config wsl-place.nudge false` silences the first visit's line too: a repository the
/// person turned the nudge off for says nothing, measured or not; one beside it still speaks.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn a_silenced_repository_says_nothing_on_its_first_visit() {
    let base = tempfile::tempdir().unwrap();
    let backing = base.path().join("backing");
    repository(&backing.join("app"));
    repository(&backing.join("quiet"));
    support::gitrepo::git(
        &backing.join("quiet"),
        &["config", "wsl-place.nudge", "false"],
    );
    let Some(fs) = SlowFs::mount(&backing, &base.path().join("mnt"), &["--scale", "0.05"]) else {
        return;
    };
    let home = base.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut bash = Session::start("bash", &home);
    let quiet = bash.run(&format!(
        "cd '{}'",
        fs.mountpoint().join("quiet/src").display()
    ));
    assert!(!quiet.contains("wsl-place:"), "{quiet}");
    let app = bash.run(&format!("cd '{}'", fs.mountpoint().join("app").display()));
    assert!(
        app.contains("wsl-place: measuring this repository in the background"),
        "{app}"
    );
    // Let the background checks finish before the mount goes.
    let cache = home.join(".cache/wsl-place/advisory");
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::read_dir(&cache).map_or(0, Iterator::count) < 2 {
        assert!(Instant::now() < deadline, "no background check answered");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    drop(bash);
}

/// The hook keeps the last command's exit status for what runs after it before the prompt
/// (a prompt that shows `$?`, as starship's does).
#[test]
fn the_exit_status_survives_the_hook() {
    let home = tempfile::tempdir().unwrap();
    let away = tempfile::tempdir().unwrap();
    for (shell, after) in [
        (
            "bash",
            r#"PROMPT_COMMAND="$PROMPT_COMMAND;"'echo "seen=$?"'"#,
        ),
        (
            "zsh",
            r#"__seen() { echo "seen=$?" }; precmd_functions+=(__seen)"#,
        ),
    ] {
        if shell != "bash" && !support::have_shell(shell) {
            continue;
        }
        let mut session = Session::start(shell, home.path());
        session.run(after);
        let seen = session.run(&format!("cd '{}'; (exit 3)", away.path().display()));
        assert!(seen.contains("seen=3"), "{shell}:\n{seen}");
    }
}

/// The change count a passive line at the old place gives: "nothing changed" is 0.
fn count_in_line(line: &str) -> Option<u64> {
    if line.contains("nothing changed here since") {
        return Some(0);
    }
    let before = line.split(" changed here since").next()?;
    let mut words = before.rsplit(' ');
    let unit = words.next()?;
    (unit == "file" || unit == "files")
        .then(|| words.next()?.replace(',', "").parse().ok())
        .flatten()
}

/// What each surface at the old place says, as (level, destination, count).
fn old_place_surfaces(
    old: &crate::moved::OldPlace,
    session: &mut Session,
) -> Vec<(&'static str, String, String, Option<u64>)> {
    let source = old.source();
    let dest = old.dest().display().to_string();
    let check = old.json("check", &source);
    let mut said = vec![(
        "check",
        check["verdict"]["level"].as_str().unwrap().to_string(),
        check["moved"]["destination"].as_str().unwrap().to_string(),
        check["moved"]["files_changed"].as_u64(),
    )];
    // Neither the probes nor the pre-move answer: the old place's story alone.
    assert!(check["probe"].is_null(), "{check}");
    let line = old.run(&["check", "--advisory"]).arg(&source).run();
    line.ok();
    let line = String::from_utf8_lossy(&line.stdout).trim().to_string();
    let nudge = {
        session.run("cd /");
        session.run(&format!("cd '{}'", source.display()))
    };
    let nudge = nudge
        .lines()
        .find(|l| l.starts_with("wsl-place: "))
        .unwrap_or_else(|| panic!("no nudge at the old place:\n{nudge}"))
        .trim()
        .to_string();
    for (surface, text) in [("hook", &line), ("nudge", &nudge)] {
        assert!(!text.contains("--remove-source"), "{surface}: {text}");
        let level = text
            .strip_prefix("wsl-place: ")
            .and_then(|rest| rest.split(' ').next())
            .unwrap_or_default()
            .to_string();
        let destination = if text.contains(&dest) {
            dest.clone()
        } else {
            String::new()
        };
        said.push((surface, level, destination, count_in_line(text)));
    }
    let survey = old.json("survey", old.fs.mountpoint());
    let repository = &survey["repositories"][0];
    said.push((
        "survey",
        repository["verdict"]["level"].as_str().unwrap().to_string(),
        repository["moved"]["destination"]
            .as_str()
            .unwrap()
            .to_string(),
        repository["moved"]["files_changed"].as_u64(),
    ));
    // Moving it again would gain nothing: not in the survey's "would be faster".
    assert_eq!(survey["summary"]["would_gain"], 0, "{survey}");
    assert_eq!(survey["summary"]["bytes_to_move"], 0, "{survey}");
    said
}

/// After a migration the old place tells one story: `check`, the hook's line, the nudge (on a
/// pty, on every visit) and `survey` give the same level, destination and change count, before
/// and after edits there and after `--sync` copied them.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn the_old_place_tells_one_story_on_every_surface() {
    let Some(old) = crate::moved::OldPlace::new(20) else {
        return;
    };
    let first = old.migrate(&["--yes"]);
    first.ok();
    let home = old.tmp.path().join("home");
    let mut session = Session::start("bash", &home);
    let dest = old.dest().display().to_string();
    let expect = |said: Vec<(&str, String, String, Option<u64>)>, count: u64| {
        for (surface, level, destination, changed) in &said {
            assert_eq!(
                (level.as_str(), destination.as_str(), *changed),
                ("moved", dest.as_str(), Some(count)),
                "{surface} disagrees: {said:?}"
            );
        }
    };
    expect(old_place_surfaces(&old, &mut session), 0);

    // Edits at the old place: one changed, one added, one removed.
    let source = old.source();
    let grown = source.join("d0/f0.txt");
    let mut content = std::fs::read(&grown).unwrap();
    content.extend_from_slice(b"a late line\n");
    std::fs::write(&grown, content).unwrap();
    support::gitrepo::write(&source.join("late/new.txt"), b"after the move\n");
    std::fs::remove_file(source.join("d1/f1.txt")).unwrap();
    expect(old_place_surfaces(&old, &mut session), 3);

    // A commit here is blocked by --fail-on advise, not by --fail-on move.
    for (fail_on, code) in [("advise", 1), ("move", 0)] {
        let out = old
            .run(&["check", "--advisory", "--fail-on", fail_on])
            .arg(&source)
            .run();
        assert_eq!(
            out.status.code(),
            Some(code),
            "{fail_on}: {}",
            support::text(&out)
        );
    }

    let synced = old.migrate(&["--sync", "--yes"]);
    synced.ok();
    expect(old_place_surfaces(&old, &mut session), 0);
    drop(session);
}
