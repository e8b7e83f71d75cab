//! Issue 36: the shell's nudge never holds the prompt on a slow mount (item 5), the cache folder
//! is made when missing and a broken one is said at most once (item 12), and the shell hook
//! stays silent and harmless when its binary is gone, in fish's words in fish (item 13).

use crate::support::{self, Sandbox, SlowFs, fakeproc, gitrepo};
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The tool with `home` as HOME and the XDG folders below it: the one place these tests set them
/// (a shell started for a test takes the same environment, see [`shell`]).
fn tool(home: &Path) -> Command {
    let mut cmd = Sandbox::at(home).cmd();
    cmd.env("NO_COLOR", "1").env("TERM", "dumb");
    cmd
}

/// `program` with the environment [`tool`] gives the binary.
fn shell(home: &Path, program: &str) -> Command {
    let template = tool(home);
    let mut cmd = Command::new(program);
    for (key, value) in template.get_envs() {
        match value {
            Some(value) => cmd.env(key, value),
            None => cmd.env_remove(key),
        };
    }
    cmd.stdin(Stdio::null());
    cmd
}

/// How many nudges `text` shows.
fn nudges(text: &str) -> usize {
    text.matches("wsl-place: advise").count() + text.matches("wsl-place: move").count()
}

/// `cd DIR` in bash, then the hook's own call: what the nudge printed.
fn nudge_in(home: &Path, dir: &Path, extra: &[(&str, &Path)]) -> String {
    let mut bash = nudge_shell(home, dir, "");
    for (key, value) in extra {
        bash.env(key, value);
    }
    let out = bash.output().unwrap();
    assert!(out.status.success(), "{}", support::text(&out));
    support::stderr(&out)
}

/// A hang guard, not a budget: no nudge comes near it unless it waits on the held mount.
const HANG_GUARD: Duration = Duration::from_secs(10);

/// [`nudge_in`] with every request on `mount` held while the hook runs (the `cd` before it, a
/// round trip per folder, is the shell's and runs before the hold): a nudge that touched the
/// mount would wait for the release, which comes only after the nudge has ended, or after
/// slowfs's own 30 s.
fn nudge_held(home: &Path, dir: &Path, mount: &SlowFs) -> String {
    let mut bash = nudge_shell(home, dir, "echo cd; read -r go; ");
    let mut child = bash
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut line).unwrap();
    assert_eq!(line, "cd\n", "the shell did not reach {}", dir.display());
    mount.hold();
    let started = Instant::now();
    child.stdin.take().unwrap().write_all(b"go\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let took = started.elapsed();
    mount.release();
    assert!(out.status.success(), "{}", support::text(&out));
    assert!(
        took < HANG_GUARD,
        "{} waited on the held mount: {took:?}",
        dir.display()
    );
    support::stderr(&out)
}

fn nudge_shell(home: &Path, dir: &Path, before: &str) -> Command {
    let mut bash = shell(home, "bash");
    bash.args([
        "-c",
        &format!(r#"cd "$1" || exit 9; {before}"$2" __nudge"#),
        "nudge",
    ])
    .arg(dir)
    .arg(support::binary_path());
    bash
}

/// Waits up to four minutes (a check on this mount takes about one) for `done`, saying `what` if it never comes.
fn wait_for(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(240);
    while !done() {
        assert!(Instant::now() < deadline, "never happened: {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// What the nudge learnt in the background for `repository`: its entry in `nudge.json`.
fn learnt(home: &Path, repository: &Path) -> bool {
    let state: serde_json::Value = serde_json::from_slice(
        &fs::read(home.join(".cache/wsl-place/nudge.json")).unwrap_or_default(),
    )
    .unwrap_or_default();
    state["repositories"][repository.to_str().unwrap()]["learnt"]
        .as_u64()
        .is_some_and(|at| at > 0)
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn a_slow_mount_never_holds_the_prompt() {
    let base = tempfile::tempdir().unwrap();
    let backing = base.path().join("backing");
    fs::create_dir_all(backing.join("app/src/deep")).unwrap();
    gitrepo::files_repo(&backing.join("app"), 5);
    fs::create_dir_all(backing.join("plain/q/r/s")).unwrap();
    let latency = [
        "--profile",
        "none",
        "--latency",
        "getattr=500",
        "--latency",
        "lookup=500",
        "--latency",
        "statfs=500",
        "--latency",
        "opendir=500",
    ];
    let Some(fs) = SlowFs::mount(&backing, &base.path().join("mnt"), &latency) else {
        return;
    };
    let home = base.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let app = fs.mountpoint().join("app");

    // Nothing cached: a repository's root, two folders down, a plain folder four deep.
    for dir in [
        app.clone(),
        app.join("src/deep"),
        fs.mountpoint().join("plain/q/r/s"),
    ] {
        let said = nudge_held(&home, &dir, &fs);
        assert_eq!(nudges(&said), 0, "{said}");
    }
    // Learnt in the background: the check's answer and what the nudge needs to show it.
    let cache = home.join(".cache/wsl-place/advisory");
    wait_for("the background check's answer", || {
        fs::read_dir(&cache).is_ok_and(|d| d.count() > 0)
    });
    wait_for("the repository's facts", || learnt(&home, &app));
    let said = nudge_held(&home, &app.join("src"), &fs);
    assert_eq!(nudges(&said), 1, "the answer learnt is not shown: {said}");

    // An answer cached with nothing learnt about it (a nudge state lost): not shown at once
    // (asking the mount takes longer than the prompt may wait), but at the next visit.
    fs::remove_file(home.join(".cache/wsl-place/nudge.json")).unwrap();
    let said = nudge_held(&home, &app, &fs);
    assert_eq!(nudges(&said), 0, "{said}");
    wait_for("the repository's facts again", || learnt(&home, &app));
    let said = nudge_held(&home, &app.join("src/deep"), &fs);
    assert_eq!(nudges(&said), 1, "{said}");
    // The learners end in a few round trips; let them before the mount goes.
    std::thread::sleep(Duration::from_secs(3));
}

#[test]
fn a_nested_missing_cache_folder_is_made() {
    let base = tempfile::tempdir().unwrap();
    let repo = base.path().join("repo");
    gitrepo::files_repo(&repo, 3);
    let nested = base.path().join("home/not/yet/there");
    let out = tool(base.path())
        .env("XDG_CACHE_HOME", &nested)
        .args(["check", "--advisory"])
        .arg(&repo)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", support::text(&out));
    let entries = fs::read_dir(nested.join("wsl-place/advisory"))
        .map(Iterator::count)
        .unwrap_or(0);
    assert_eq!(entries, 1, "nothing cached in {}", nested.display());
}

#[test]
fn a_cache_folder_that_is_a_file_is_said_once_and_never_in_the_prompt() {
    let base = tempfile::tempdir().unwrap();
    let repo = base.path().join("repo");
    gitrepo::files_repo(&repo, 3);
    let deep = repo.join("a/b/c/d/e/f");
    fs::create_dir_all(&deep).unwrap();
    let file = base.path().join("cache-file");
    fs::write(&file, "not a folder").unwrap();
    let out = tool(base.path())
        .env("XDG_CACHE_HOME", &file)
        .args(["check", "--advisory"])
        .arg(&repo)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", support::text(&out));
    let said = support::stderr(&out);
    assert!(said.lines().count() <= 1, "{said}");
    let said = nudge_in(base.path(), &deep, &[("XDG_CACHE_HOME", &file)]);
    assert_eq!(said, "", "the prompt hook spoke");
}

/// Runs `lines` in an interactive `shell` on its own terminal (util-linux `script`), the hook
/// loaded from a copy of the binary that is then removed; returns what the terminal showed.
fn without_the_binary(home: &Path, shell_name: &str, errexit: &str) -> String {
    let copy_dir = tempfile::tempdir().unwrap();
    let copy = copy_dir.path().join("wsl-place");
    fs::copy(support::binary_path(), &copy).unwrap();
    let load = match shell_name {
        "fish" => format!("{} init fish | source", copy.display()),
        _ => format!("eval \"$({} init {shell_name})\"", copy.display()),
    };
    let command = match shell_name {
        "bash" => "bash --norc --noprofile -i",
        "zsh" => "zsh -f -i",
        _ => "fish --no-config -i",
    };
    let mut child = shell(home, "script")
        .args(["-q", "-f", "-e", "-c", command, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let dirs = tempfile::tempdir().unwrap();
    // The marker's text appears only when the command runs, never in the typed echo.
    let marker = match shell_name {
        "fish" => "echo @@(math 40 + 2)@@",
        _ => "echo @@$((40 + 2))@@",
    };
    let script = format!(
        "{load}\nrm {copy}\n{errexit}\ncd {a}\n{marker}\ncd {b}\n{marker}\nexit\n",
        copy = copy.display(),
        a = dirs.path().display(),
        b = home.display(),
    );
    stdin.write_all(script.as_bytes()).unwrap();
    let mut output = String::new();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let _ = stdout.read_to_string(&mut output);
        output
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            support::kill(&mut child);
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(stdin);
    reader.join().unwrap()
}

#[test]
fn a_removed_binary_leaves_the_shell_quiet_and_alive() {
    let home = tempfile::tempdir().unwrap();
    for (name, errexit) in [("bash", "set -e"), ("zsh", "setopt errexit"), ("fish", "")] {
        if name != "bash" && !support::have_shell(name) {
            continue;
        }
        let shown = without_the_binary(home.path(), name, errexit);
        assert_eq!(
            shown.matches("@@42@@").count(),
            2,
            "{name} did not live on:\n{shown}"
        );
        for noise in [
            "No such file",
            "no such file",
            "Unknown command",
            "not found",
        ] {
            assert!(!shown.contains(noise), "{name} said {noise:?}:\n{shown}");
        }
    }
}

#[test]
fn fish_is_shown_a_command_fish_can_run() {
    if !support::have_shell("fish") {
        return;
    }
    let (base, drive, _) = fakeproc::drive_tree();
    let proc = fakeproc::FakeProc::new(
        fakeproc::WSL2_VERSION,
        &fakeproc::wsl_9p_mountinfo(&drive),
        true,
    );
    let repo = drive.join("Users/me/odd\nname");
    gitrepo::files_repo(&repo, 3);
    let home = base.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let with_proc = |cmd: &mut Command| {
        cmd.env("WSL_PLACE_PROC_ROOT", proc.dir.path())
            .env("WSL_DISTRO_NAME", "Ubuntu")
            .env("WSL_INTEROP", "/run/WSL/1_interop");
    };
    let mut check = tool(&home);
    with_proc(&mut check);
    let made = check
        .args(["check", "--advisory"])
        .arg(&repo)
        .output()
        .unwrap();
    let posix = String::from_utf8_lossy(&made.stdout).into_owned();
    assert!(posix.contains("$'"), "{}", support::text(&made));

    let hook = tool(&home).args(["init", "fish"]).output().unwrap();
    let hook = String::from_utf8_lossy(&hook.stdout).into_owned();
    assert!(hook.contains("__nudge fish"), "{hook}");
    let mut nudge = tool(&home);
    with_proc(&mut nudge);
    let shown = nudge
        .args(["__nudge", "fish"])
        .current_dir(&repo)
        .output()
        .unwrap();
    let line = support::stderr(&shown);
    assert_eq!(nudges(&line), 1, "{}", support::text(&shown));
    assert!(!line.contains("$'"), "{line}");
    let word = line
        .trim_end()
        .rsplit_once("wsl-place migrate ")
        .map(|(_, word)| word.to_string())
        .unwrap_or_else(|| panic!("no migrate command: {line}"));
    // fish itself reads the word back as the repository's path.
    let printed = shell(&home, "fish")
        .args(["--no-config", "-c"])
        .arg(format!("printf %s {word}"))
        .output()
        .unwrap();
    assert_eq!(
        PathBuf::from(String::from_utf8_lossy(&printed.stdout).into_owned()),
        repo,
        "{}",
        support::text(&printed)
    );
}
