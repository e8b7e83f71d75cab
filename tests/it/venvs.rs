//! Usable the minute it lands (issue 38): virtualenvs in the tree are pointed at the copy, one
//! made by Windows Python is left behind with its command, and the settings files that still
//! name the old place are listed with their line. Real environments: `python3 -m venv` with a
//! console script installed into it, and a uv project with a `src/` layout installed editable,
//! both made offline (uv's own build backend needs no index).

use crate::moved::OldPlace;
use crate::support;
use crate::support::Run;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::fakeproc::{FakeProc, WSL2_VERSION, drive_tree, wsl_9p_mountinfo};
use support::gitrepo::write;
use support::text;
use support::tree::snapshot;

/// A project uv builds with its own backend, offline: `name` with a console script.
fn uv_project(dir: &Path, name: &str, script: &str) {
    write(
        &dir.join("pyproject.toml"),
        format!(
            "[project]\nname = \"{name}\"\nversion = \"0.1.0\"\nrequires-python = \">=3.8\"\ndependencies = []\n\n\
             [project.scripts]\n{script} = \"{name}:main\"\n\n\
             [build-system]\nrequires = [\"uv_build>=0.7\"]\nbuild-backend = \"uv_build\"\n"
        )
        .as_bytes(),
    );
    write(
        &dir.join(format!("src/{name}/__init__.py")),
        format!("def main():\n    print(\"hello from {name}\")\n").as_bytes(),
    );
}

/// `uv ARGS` in `dir`, offline, with a cache of its own; None (SKIP printed) without uv.
fn uv(dir: &Path, cache: &Path, args: &[&str]) -> Option<()> {
    let out = Command::new("uv")
        .args(args)
        .current_dir(dir)
        .env("UV_CACHE_DIR", cache)
        .env("UV_PYTHON_DOWNLOADS", "never")
        .env("UV_OFFLINE", "1")
        .env_remove("VIRTUAL_ENV")
        .output();
    match out {
        Ok(out) if out.status.success() => Some(()),
        Ok(out) => panic!("uv {args:?} failed: {}", text(&out)),
        Err(_) => {
            support::skip("uv is not installed (pip install uv)");
            None
        }
    }
}

/// The source as the issue found it: the repository is a uv project (`src/pkg`, installed
/// editable into `.venv`), with a `python3 -m venv` holding a console script, and VS Code's
/// settings naming the interpreter at the old place.
fn python_project(source: &Path, cache: &Path) -> Option<()> {
    uv_project(source, "pkg", "pkg-hello");
    uv(source, cache, &["sync", "--offline", "-q"])?;
    let greet = source.join("tools/greet");
    uv_project(&greet, "greet", "greet");
    let venv = source.join("tools/venv");
    let made = Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(made.success());
    let python = venv.join("bin/python");
    uv(
        source,
        cache,
        &[
            "pip",
            "install",
            "-q",
            "--python",
            python.to_str().unwrap(),
            greet.to_str().unwrap(),
        ],
    )?;
    write(
        &source.join(".vscode/settings.json"),
        format!(
            "{{\n  \"python.defaultInterpreterPath\": \"{}/.venv/bin/python\"\n}}\n",
            source.display()
        )
        .as_bytes(),
    );
    Some(())
}

/// The files below `dir` that `grep -rIl` finds naming `old`.
fn naming(dir: &Path, old: &Path) -> String {
    let out = Command::new("grep").arg("-rIlF").arg(old).arg(dir).run();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stdout_of(program: &Path, args: &[&str]) -> String {
    let out = Command::new(program).args(args).run();
    assert!(
        out.status.success(),
        "{}: {}",
        program.display(),
        text(&out)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn assert_runs_from(dest: &Path, source: &Path) {
    for venv in [dest.join(".venv"), dest.join("tools/venv")] {
        assert!(venv.join("pyvenv.cfg").is_file(), "{}", venv.display());
        let left = naming(&venv, source);
        assert!(left.is_empty(), "still naming the old place:\n{left}");
    }
    let script = dest.join("tools/venv/bin/greet");
    let first = fs::read_to_string(&script).unwrap();
    let first = first.lines().next().unwrap();
    assert!(
        first.starts_with(&format!("#!{}/tools/venv/bin/python", dest.display())),
        "{first}"
    );
    assert_eq!(stdout_of(&script, &[]), "hello from greet");
    let imported = stdout_of(
        &dest.join(".venv/bin/python"),
        &["-c", "import pkg; print(pkg.__file__)"],
    );
    assert_eq!(
        PathBuf::from(&imported),
        dest.join("src/pkg/__init__.py"),
        "the editable install imports {imported}"
    );
    let activate = fs::read_to_string(dest.join(".venv/bin/activate")).unwrap();
    assert!(
        activate.contains(&format!("{}/.venv", dest.display())),
        "{activate}"
    );
}

#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn virtualenvs_are_pointed_at_the_copy_and_settings_naming_the_old_place_are_listed() {
    let Some(old) = OldPlace::new(4) else {
        return;
    };
    let (source, dest) = (old.source(), old.dest());
    let cache = old.tmp.path().join("uv-cache");
    if python_project(&source, &cache).is_none() {
        return;
    }
    let before = snapshot(&source);

    // The plan lists each virtualenv with its size, tied to its path, and asks to rewrite them.
    let plan = old.migrate(&["--dry-run"]);
    let shown = String::from_utf8_lossy(&plan.stdout);
    assert!(plan.status.success(), "{}", text(&plan));
    assert!(
        shown.contains("virtualenv") && shown.contains("tools/venv: ") && shown.contains(".venv: "),
        "{shown}"
    );
    assert!(shown.contains("tied to its path"), "{shown}");

    // JSON: the result lists the settings line; --abort then takes the copy back.
    let json = old.migrate(&["--yes", "--format", "json"]).ok_json();
    let hits = json["still_points_to_old_place"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{json:#}");
    assert_eq!(hits[0]["file"], ".vscode/settings.json");
    assert_eq!(hits[0]["line"], 2);
    assert_eq!(hits[0]["form"], "linux");
    assert_eq!(hits[0]["change_to"], dest.to_str().unwrap());
    let fixed = json["fixups"]["done"].to_string();
    assert!(fixed.contains("virtualenv tools/venv"), "{fixed}");
    // The same fix-up typed, in the same place of its list: a script branches on its kind.
    let done = json["fixups"]["done"].as_array().unwrap();
    let kinds = json["fixups"]["done_kind"].as_array().unwrap();
    assert_eq!(done.len(), kinds.len(), "{json:#}");
    let venv = done
        .iter()
        .position(|d| d.as_str().unwrap().contains("virtualenv tools/venv"))
        .unwrap();
    assert_eq!(kinds[venv]["kind"], "virtualenv_pointed", "{json:#}");
    assert_eq!(kinds[venv]["venv"], "tools/venv", "{json:#}");
    assert_runs_from(&dest, &source);
    let abort = old.migrate(&["--abort", "--yes"]);
    assert!(abort.status.success(), "{}", text(&abort));
    assert!(!dest.exists(), "--abort left the rewritten copy");
    assert_eq!(before, snapshot(&source), "the source changed");

    // Human: the same line, with its file and line number.
    let out = old.migrate(&["--yes"]);
    assert!(out.status.success(), "{}", text(&out));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains(".vscode/settings.json:2"), "{shown}");
    assert_runs_from(&dest, &source);
    assert_eq!(before, snapshot(&source), "the source changed");

    // A sync copies a late edit, but never the old place's version of a virtualenv's file.
    let activate = source.join(".venv/bin/activate");
    let mut late = fs::read(&activate).unwrap();
    late.extend_from_slice(b"# edited at the old place\n");
    fs::write(&activate, late).unwrap();
    write(&source.join("src/pkg/extra.py"), b"X = 1\n");
    let sync = old
        .migrate(&["--sync", "--yes", "--format", "json"])
        .ok_json();
    assert_eq!(
        sync["sync"]["conflicts"].as_array().unwrap().len(),
        0,
        "{sync:#}"
    );
    assert!(dest.join("src/pkg/extra.py").is_file(), "{sync:#}");
    assert_runs_from(&dest, &source);
}

#[test]
fn on_a_windows_drive_windows_spellings_are_listed_and_a_windows_virtualenv_is_left_behind() {
    let (_base, drive, source) = drive_tree();
    let proc = FakeProc::new(WSL2_VERSION, &wsl_9p_mountinfo(&drive), true);
    write(
        &source.join(".vscode/settings.json"),
        b"{\n  \"python.defaultInterpreterPath\": \"C:\\\\Users\\\\me\\\\app\\\\winvenv\\\\Scripts\\\\python.exe\"\n}\n",
    );
    write(
        &source.join(".env"),
        format!(
            "DATA=C:\\Users\\me\\app\\data\nLINUX={}/data\nOTHER=C:\\Users\\me\\apple\n",
            source.display()
        )
        .as_bytes(),
    );
    write(&source.join("requirements.txt"), b"six\n");
    write(
        &source.join("winvenv/pyvenv.cfg"),
        b"home = C:\\Python312\ninclude-system-site-packages = false\n",
    );
    write(&source.join("winvenv/Scripts/python.exe"), b"MZ\x90\x00");
    let dest = _base.path().join("linux/app");
    let run = |format: &str| {
        proc.command(Some("Ubuntu"))
            .arg("migrate")
            .arg(&source)
            .arg("--to")
            .arg(&dest)
            .args(["--yes", "--format", format])
            .env("HOME", _base.path().join("home"))
            .run()
    };
    let json = run("json").ok_json();
    let hits: Vec<(String, u64, String)> = json["still_points_to_old_place"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                format!("{}:{}", h["file"].as_str().unwrap(), h["line"]),
                h["line"].as_u64().unwrap(),
                h["form"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        hits,
        vec![
            (".env:1".to_string(), 1, "windows".to_string()),
            (".env:2".to_string(), 2, "linux".to_string()),
            (
                ".vscode/settings.json:2".to_string(),
                2,
                "windows".to_string()
            ),
        ],
        "{json:#}"
    );
    assert!(
        !dest.join("winvenv").exists(),
        "a Windows virtualenv was copied"
    );
    let notes = json["fixups"]["advice"].to_string();
    assert!(
        notes.contains("winvenv") && notes.contains("pip install -r requirements.txt"),
        "{notes}"
    );
    // Human, on a second copy: each line with its file and line number.
    fs::remove_dir_all(&dest).unwrap();
    let out = run("human");
    assert!(out.status.success(), "{}", text(&out));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains(".vscode/settings.json:2") && shown.contains(".env:1"),
        "{shown}"
    );
    assert!(
        shown.contains("C:\\Users\\me\\app"),
        "the Windows spelling is not named:\n{shown}"
    );
}

#[test]
fn a_jest_cache_inside_the_tree_is_left_behind_and_never_synced_into() {
    let tmp = tempfile::tempdir().unwrap();
    let (source, dest) = (tmp.path().join("app"), tmp.path().join("linux/app"));
    write(&source.join("sum.test.js"), b"test('sum', () => {});\n");
    write(&source.join(".jest-cache/haste-map-25f8c4c0"), b"map");
    write(
        &source.join(".jest-cache/jest-transform-cache-25f8c4c0/bb/sum_bb"),
        &[b'x'; 8192],
    );
    let run = |extra: &[&str]| {
        support::Sandbox::at(tmp.path())
            .cmd()
            .arg("migrate")
            .arg(&source)
            .arg("--to")
            .arg(&dest)
            .args(extra)
            .run()
    };
    let plan = run(&["--dry-run", "--format", "json"]).ok_json();
    let output = &plan["build_output"][0];
    assert_eq!(output["path"], ".jest-cache", "{plan:#}");
    assert_eq!(output["kind"], "jest cache");
    assert_eq!(output["files"], 2);
    assert_eq!(output["bytes"], 8195);
    let asked: Vec<&serde_json::Value> = plan["questions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["id"] == "build_output")
        .collect();
    assert_eq!(asked.len(), 1, "{plan:#}");
    assert_eq!(asked[0]["default"], true);
    assert_eq!(asked[0]["with_yes"], true);
    let shown = run(&["--dry-run"]);
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(
        shown.contains("build output") && shown.contains(".jest-cache (jest cache)"),
        "{shown}"
    );

    let out = run(&["--yes"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(dest.join("sum.test.js").is_file());
    assert!(
        !dest.join(".jest-cache").exists(),
        "the Jest cache was copied"
    );

    // Jest writes its cache again at the old place; the sync copies the edit, not the cache.
    write(
        &source.join(".jest-cache/jest-transform-cache-25f8c4c0/cc/more_cc"),
        b"y",
    );
    write(
        &source.join("sum.test.js"),
        b"test('sum', () => { expect(1).toBe(1); });\n",
    );
    let sync = run(&["--sync", "--yes", "--format", "json"]).ok_json();
    assert_eq!(sync["sync"]["changed"], 1, "{sync:#}");
    assert_eq!(sync["sync"]["added"], 0, "{sync:#}");
    assert!(
        !dest.join(".jest-cache").exists(),
        "the sync copied the Jest cache"
    );
    assert_eq!(
        fs::read(dest.join("sum.test.js")).unwrap(),
        fs::read(source.join("sum.test.js")).unwrap()
    );
}

/// `--remove-source` takes a rewritten virtualenv's copy as proof, as it does git's rewritten
/// files: the old one is removed, and the copy still runs from where it is.
#[test]
fn remove_source_removes_the_old_virtualenv_once_its_copy_was_rewritten() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (source, dest) = (root.join("app"), root.join("linux/app"));
    write(&source.join("main.py"), b"print('hi')\n");
    let made = Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(source.join(".venv"))
        .status()
        .unwrap();
    assert!(made.success());
    let run = |extra: &[&str]| {
        let mut cmd = support::Sandbox::at(&root).migrate(&source, &dest);
        cmd.args(["--yes", "--format", "json"]).args(extra);
        cmd.run().ok_json()
    };
    let first = run(&[]);
    let fixed = first["fixups"]["done"].to_string();
    assert!(fixed.contains("virtualenv .venv"), "{fixed}");
    let removed = run(&["--remove-source"]);
    assert_eq!(
        removed["removal"]["kept_count"], 0,
        "{:#}",
        removed["removal"]
    );
    assert!(
        !source.join(".venv").exists(),
        "the old virtualenv was kept"
    );
    let prefix = stdout_of(
        &dest.join(".venv/bin/python"),
        &["-c", "import sys; print(sys.prefix)"],
    );
    assert_eq!(PathBuf::from(prefix), dest.join(".venv"));
    assert!(naming(&dest.join(".venv"), &source).is_empty());
}

/// `python3 -m venv --without-pip DIR`.
fn make_venv(dir: &Path) {
    let made = Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(dir)
        .status()
        .unwrap();
    assert!(made.success(), "python3 -m venv {}", dir.display());
}

/// Issue 50's reproduction: `python3 -m venv --without-pip .` at the repository's top, a tracked
/// `NOTES.md` naming the path, a remote `$PWD/../upstream`. The root is reported and left as it
/// is (the whole repository is not "a virtualenv" to rewrite), and `--remove-source` still reads
/// back every copy there: a file emptied at the copy keeps its only good version at the source.
#[test]
fn a_virtualenv_at_the_repositorys_root_is_reported_and_nothing_is_rewritten() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (source, dest) = (root.join("app"), root.join("linux/app"));
    support::gitrepo::git(&root, &["init", "-q", "--bare", "upstream"]);
    fs::create_dir_all(&source).unwrap();
    make_venv(&source);
    write(
        &source.join("NOTES.md"),
        format!("The project lives at {}\n", source.display()).as_bytes(),
    );
    write(&source.join("app.py"), b"print('the only good copy')\n");
    support::gitrepo::git(&source, &["init", "-q"]);
    let remote = format!("{}/../upstream", source.display());
    support::gitrepo::git(&source, &["remote", "add", "origin", &remote]);
    write(
        &source.join(".git/description"),
        format!("app, kept at {}\n", source.display()).as_bytes(),
    );
    support::gitrepo::git(&source, &["add", "-f", "NOTES.md", "app.py"]);
    support::gitrepo::git(&source, &["commit", "-q", "-m", "notes"]);
    let kept_as_is = [
        "NOTES.md",
        "pyvenv.cfg",
        ".git/config",
        ".git/description",
        "bin/activate",
    ];
    let before: Vec<Vec<u8>> = kept_as_is
        .iter()
        .map(|rel| fs::read(source.join(rel)).unwrap())
        .collect();
    let run = |extra: &[&str]| {
        let mut cmd = support::Sandbox::at(&root).migrate(&source, &dest);
        cmd.args(extra).run()
    };

    let plan = run(&["--dry-run", "--format", "json"]).ok_json();
    assert_eq!(plan["virtualenvs"], serde_json::json!([]), "{plan:#}");
    assert_eq!(plan["root_virtualenv"], "python3 -m venv .", "{plan:#}");
    let shown = run(&["--dry-run"]);
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(
        shown.contains("the repository's root is itself a virtualenv (pyvenv.cfg); it is left as it is: make it again at the copy with `python3 -m venv .`"),
        "{shown}"
    );

    let json = run(&["--yes", "--format", "json"]).ok_json();
    let advice = json["fixups"]["advice"].to_string();
    assert!(
        advice.contains("the repository's root is itself a virtualenv"),
        "{json:#}"
    );
    assert!(
        !json["fixups"]["done"].to_string().contains("virtualenv"),
        "{json:#}"
    );
    for (rel, was) in kept_as_is.iter().zip(&before) {
        assert_eq!(
            &fs::read(dest.join(rel)).unwrap(),
            was,
            "{rel} was rewritten at the copy"
        );
    }
    let url = support::gitrepo::git(&dest, &["remote", "get-url", "origin"]);
    assert_eq!(url.trim(), remote);

    // Emptied at the copy: the source's version is the only good one, and it stays.
    fs::write(dest.join("app.py"), b"").unwrap();
    let removed = run(&["--remove-source", "--yes", "--format", "json"]).ok_json();
    assert_eq!(
        fs::read(source.join("app.py")).unwrap(),
        b"print('the only good copy')\n",
        "{:#}",
        removed["removal"]
    );
    let kept = removed["removal"]["kept"].to_string();
    assert!(kept.contains("app.py ("), "{kept}");
}

/// A repository at `source` with a virtualenv `tools/venv` (`more` adds to it) holding a
/// `NOTES.txt` git tracks, which names the old place: its text.
fn venv_with_tracked_notes(source: &Path, more: impl FnOnce(&Path)) -> String {
    let venv = source.join("tools/venv");
    make_venv(&venv);
    let notes = format!("made in {}/tools/venv\n", source.display());
    write(&venv.join("NOTES.txt"), notes.as_bytes());
    more(&venv);
    write(&source.join("main.py"), b"print('hi')\n");
    support::gitrepo::git(source, &["init", "-q"]);
    support::gitrepo::git(source, &["add", "-f", "main.py", "tools/venv/NOTES.txt"]);
    support::gitrepo::git(source, &["commit", "-q", "-m", "notes"]);
    notes
}

/// A file git tracks inside a virtualenv (a README kept with it) is the person's: the fix-up
/// rewrites the virtualenv's own files and leaves that one as it is.
#[test]
fn a_file_git_tracks_inside_a_virtualenv_is_never_rewritten() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (source, dest) = (root.join("app"), root.join("linux/app"));
    let notes = venv_with_tracked_notes(&source, |_| {});
    let mut cmd = support::Sandbox::at(&root).migrate(&source, &dest);
    let json = cmd.args(["--yes", "--format", "json"]).run().ok_json();
    let done = json["fixups"]["done"].to_string();
    assert!(
        done.contains("virtualenv tools/venv")
            && done.contains("1 file git tracks left as they are"),
        "{json:#}"
    );
    assert_eq!(
        fs::read_to_string(dest.join("tools/venv/NOTES.txt")).unwrap(),
        notes
    );
    let activate = fs::read_to_string(dest.join("tools/venv/bin/activate")).unwrap();
    assert!(
        activate.contains(&format!("{}/tools/venv", dest.display())),
        "{activate}"
    );
    let status = support::gitrepo::git(&dest, &["status", "--porcelain", "--untracked-files=no"]);
    assert_eq!(status, "", "a tracked file shows as changed at the copy");
}

/// `--remove-source` reads back a virtualenv's copy too: one that differs from what was copied
/// only passes where it names the copy (the fix-up's rewrite). A file git tracks there, emptied at
/// the copy, and a script emptied at the copy keep the source's, the only copy of what was copied;
/// the rewritten `activate` goes.
#[test]
fn remove_source_keeps_a_virtualenvs_file_emptied_at_the_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (source, dest) = (root.join("app"), root.join("linux/app"));
    let notes = venv_with_tracked_notes(&source, |venv| {
        write(&venv.join("bin/tool"), b"#!/bin/sh\necho mine\n");
    });
    let sandbox = support::Sandbox::at(&root);
    let run = |extra: &[&str]| {
        let mut cmd = sandbox.migrate(&source, &dest);
        cmd.args(["--yes", "--format", "json"])
            .args(extra)
            .run()
            .ok_json()
    };
    run(&[]);
    for emptied in ["tools/venv/NOTES.txt", "tools/venv/bin/tool"] {
        fs::write(dest.join(emptied), b"").unwrap();
    }
    let removed = run(&["--remove-source"]);
    let kept = removed["removal"]["kept"].to_string();
    assert_eq!(
        fs::read_to_string(source.join("tools/venv/NOTES.txt")).unwrap(),
        notes,
        "{kept}"
    );
    assert_eq!(
        fs::read(source.join("tools/venv/bin/tool")).unwrap(),
        b"#!/bin/sh\necho mine\n",
        "{kept}"
    );
    assert!(
        kept.contains("tools/venv/NOTES.txt (") && kept.contains("tools/venv/bin/tool ("),
        "{kept}"
    );
    assert!(
        !source.join("tools/venv/bin/activate").exists(),
        "the rewritten activate names the copy and goes: {kept}"
    );
}
