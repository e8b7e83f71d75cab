//! The Windows half on fixture WSL hosts: a drive mount whose mount point is a real folder
//! shaped like `C:\` (`Users\me` with the tools' folders, `Program Files`), the profile found
//! through the Users folder, `WSL_PLACE_WINDOWS_PROFILE` or a fake interop (`cmd.exe`,
//! `wslpath` on PATH); Windows' global `.gitconfig` with CRLF line endings and other content.

mod clients;
mod gitconfig;
mod interop;
mod programs;

use crate::support::{self, Outcome, Run, Sandbox, text};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::fakeproc::{FakeProc, PLAIN_VERSION, WSL2_VERSION, wsl_9p_mountinfo};
use tempfile::TempDir;

/// Windows' global git config before the migration: CRLF, and no line ending on the last line.
pub(crate) const GITCONFIG: &[u8] =
    b"[user]\r\n\tname = Me Myself\r\n\temail = me@example.com\r\n[core]\r\n\tautocrlf = true\r\n[safe]\r\n\tdirectory = D:/work/other";

struct Windows {
    _tmp: TempDir,
    drive: PathBuf,
    profile: PathBuf,
    source: PathBuf,
    sandbox: Sandbox,
    proc: FakeProc,
}

impl Windows {
    /// A WSL 2 host (interop registered when `interop`) whose `C:` holds `Users\me` with the
    /// tools installed, and the repository `Users\me\src\app`.
    fn new(interop: bool) -> Self {
        let host = Self::bare(interop);
        for folder in [
            "Users/me/AppData/Local/GitHubDesktop",
            "Users/me/AppData/Local/gitkraken",
            "Users/me/AppData/Local/Programs/Microsoft VS Code",
            "Users/me/AppData/Roaming/JetBrains",
            "Program Files/Git/cmd",
            "Program Files/TortoiseGit",
            "Program Files/GitExtensions",
        ] {
            fs::create_dir_all(host.drive.join(folder)).unwrap();
        }
        fs::write(host.drive.join("Program Files/Git/cmd/git.exe"), b"MZ").unwrap();
        host
    }

    /// The same host with no Windows tool installed: a test adds the ones it is about.
    fn bare(interop: bool) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let drive = tmp.path().canonicalize().unwrap().join("c");
        let profile = drive.join("Users/me");
        for folder in ["Users/Public", "Users/Default"] {
            fs::create_dir_all(drive.join(folder)).unwrap();
        }
        let source = profile.join("src/app");
        fs::create_dir_all(&source).unwrap();
        fs::write(profile.join(".gitconfig"), GITCONFIG).unwrap();
        fs::write(source.join("a.txt"), b"a").unwrap();
        let proc = FakeProc::new(WSL2_VERSION, &wsl_9p_mountinfo(&drive), interop);
        Self {
            _tmp: tmp,
            drive,
            profile,
            source,
            sandbox: Sandbox::new(),
            proc,
        }
    }

    /// The binary on this host with Windows answering through `interop` (its `wslpath` first
    /// on PATH; `cmd.exe` only on the drive, as with `appendWindowsPath=false`).
    fn with_interop(&self, interop: &TempDir) -> Command {
        let mut cmd = self.cmd();
        let path = format!(
            "{}:{}",
            interop.path().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        cmd.env("PATH", path)
            .env("WSL_INTEROP", "/run/WSL/1_interop");
        cmd
    }

    fn gitconfig(&self) -> PathBuf {
        self.profile.join(".gitconfig")
    }

    fn destination(&self) -> PathBuf {
        self.sandbox.home().join("src/app")
    }

    /// The binary on this host, distro `Ubuntu`, Linux user `me`.
    fn cmd(&self) -> Command {
        let mut cmd = self.sandbox.cmd();
        cmd.env("WSL_PLACE_PROC_ROOT", self.proc.dir.path())
            .env("WSL_DISTRO_NAME", "Ubuntu")
            .env_remove("WSL_INTEROP")
            .env("USER", "me")
            .env("NO_COLOR", "1")
            // One line per tool, unwrapped, so a test can find it whole.
            .env("COLUMNS", "1000");
        cmd
    }

    fn migrate(&self, extra: &[&str]) -> Outcome {
        self.cmd()
            .arg("migrate")
            .arg(&self.source)
            .arg("--to")
            .arg(self.destination())
            .args(extra)
            .run()
    }

    /// The two entries the copy needs, in the form git.exe matches.
    fn entries(&self) -> [String; 2] {
        let tail = self.destination().display().to_string();
        [
            format!("%(prefix)///wsl.localhost/Ubuntu{tail}"),
            format!("%(prefix)///wsl$/Ubuntu{tail}"),
        ]
    }

    /// The file after the migration added the entries: the old bytes, then exactly these.
    fn with_entries(&self) -> Vec<u8> {
        let [localhost, dollar] = self.entries();
        let mut bytes = GITCONFIG.to_vec();
        bytes.extend_from_slice(
            format!("\r\n[safe]\r\n\tdirectory = {localhost}\r\n\tdirectory = {dollar}\r\n")
                .as_bytes(),
        );
        bytes
    }
}

fn ids(tools: &serde_json::Value) -> Vec<String> {
    tools
        .as_array()
        .unwrap_or_else(|| panic!("a list of tools: {tools}"))
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect()
}

const FOUND: [&str; 7] = [
    "git-for-windows",
    "github-desktop",
    "git-extensions",
    "gitkraken",
    "tortoisegit",
    "vs-code",
    "jetbrains",
];

#[test]
fn check_names_the_windows_tools_in_one_line_and_in_json() {
    let host = Windows::new(false);
    let out = host
        .cmd()
        .args(["check", "--no-probe", "--format", "json"])
        .arg(&host.source)
        .run();
    let json = out.ok_json();
    let windows = &json["windows"];
    assert_eq!(ids(&windows["tools"]), FOUND, "{windows}");
    assert_eq!(windows["found_by"], "users folder", "{windows}");
    assert_eq!(
        windows["profile"].as_str(),
        Some(host.profile.to_str().unwrap())
    );
    let out = host
        .cmd()
        .args(["check", "--no-probe", "--verbose"])
        .arg(&host.source)
        .run();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("windows tools"))
        .unwrap_or_else(|| panic!("no windows tools line in\n{stdout}"));
    assert!(
        line.ends_with(
            "Git for Windows, GitHub Desktop, Git Extensions, GitKraken, TortoiseGit, VS Code, JetBrains IDEs"
        ),
        "{line}"
    );
}

#[test]
fn several_profiles_and_none_named_after_the_user_is_a_clear_note() {
    let host = Windows::new(false);
    fs::create_dir_all(host.drive.join("Users/ann")).unwrap();
    let out = host
        .cmd()
        .env("USER", "bob")
        .args(["check", "--no-probe", "--verbose"])
        .arg(&host.source)
        .run();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("Windows interop is off")
            && stdout.contains("holds 2 profiles (ann, me), none named bob"),
        "{}",
        text(&out)
    );
    // The same reason typed in the JSON, beside its sentence.
    let typed = host
        .cmd()
        .env("USER", "bob")
        .args(support::CHECK_JSON)
        .arg(&host.source)
        .run()
        .json();
    let kind = &typed["windows"]["note_kind"];
    assert_eq!(kind["interop"]["kind"], "off", "{kind}");
    assert_eq!(
        kind["candidates"],
        serde_json::json!(["ann", "me"]),
        "{kind}"
    );
    assert_eq!(kind["linux_user"], "bob", "{kind}");
    assert!(
        typed["windows"]["note"]
            .as_str()
            .is_some_and(|n| n.contains("none named bob")),
        "{typed}"
    );
    // Named after the Linux user, one of several is the one.
    let json = host
        .cmd()
        .args(support::CHECK_JSON)
        .arg(&host.source)
        .run()
        .ok_json();
    assert_eq!(ids(&json["windows"]["tools"]), FOUND);
}

#[test]
fn migrate_adds_both_safe_directory_entries_once_and_abort_takes_them_out_byte_for_byte() {
    let host = Windows::new(false);
    let plan = host.migrate(&["--dry-run", "--format", "json"]);
    let plan = plan.ok_json();
    assert_eq!(ids(&plan["windows"]["tools"]), FOUND, "{plan}");
    assert_eq!(
        plan["windows"]["safe_directory"]["missing"],
        serde_json::json!(host.entries()),
        "{plan}"
    );
    assert!(
        plan["questions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|q| q["id"] == "safe_directory" && q["default"] == true),
        "{plan}"
    );
    assert_eq!(
        fs::read(host.gitconfig()).unwrap(),
        GITCONFIG,
        "a dry run writes nothing"
    );

    let out = host.migrate(&["--yes"]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The plan and the result: one line per tool, with what to expect and the fix.
    for needle in [
        "GitHub Desktop: it runs its own Git for Windows",
        "desktop/desktop#22044",
        "forward its git to WSL's git",
        "Git Extensions: it runs WSL's own git",
        "GitKraken: it embeds its own git",
        "forwarding git cannot help it",
        "TortoiseGit: it opens",
        "a WSL window: cd ",
        "JetBrains IDEs: since 2026.3 the IDE opens a WSL project in its native mode",
        "Git for Windows: git.exe refuses",
    ] {
        assert_eq!(stdout.matches(needle).count(), 2, "{needle} in\n{stdout}");
    }
    assert!(stdout.contains("added to"), "{stdout}");
    assert_eq!(fs::read(host.gitconfig()).unwrap(), host.with_entries());

    // Run again: already migrated, nothing added.
    let again = host.migrate(&["--yes", "--format", "json"]);
    assert!(again.status.success(), "{}", text(&again));
    assert_eq!(fs::read(host.gitconfig()).unwrap(), host.with_entries());

    let abort = host.migrate(&["--abort", "--yes"]);
    assert!(abort.status.success(), "{}", text(&abort));
    assert!(
        String::from_utf8_lossy(&abort.stdout).contains("safe.directory entries out of"),
        "{}",
        text(&abort)
    );
    assert_eq!(fs::read(host.gitconfig()).unwrap(), GITCONFIG);
    assert!(!host.destination().exists());
}

#[test]
fn the_result_json_lists_the_entries_added_and_the_git_config_commands() {
    let host = Windows::new(false);
    let out = host.migrate(&["--yes", "--format", "json"]);
    let json = out.ok_json();
    let done = &json["windows"]["safe_directory"];
    assert_eq!(done["added"], serde_json::json!(host.entries()), "{json}");
    assert_eq!(ids(&json["windows"]["tools"]), FOUND);
    assert!(
        json["windows"]["tools"][5]["fix"]
            .as_str()
            .unwrap()
            .ends_with("&& code ."),
        "{json}"
    );
    let commands = done["commands"].as_array().unwrap();
    assert_eq!(
        commands[0],
        format!(
            "git.exe config --global --add safe.directory '{}'",
            host.entries()[0]
        )
    );
    assert_eq!(fs::read(host.gitconfig()).unwrap(), host.with_entries());
}

#[test]
fn entries_already_there_are_not_asked_for_or_added() {
    let host = Windows::new(false);
    fs::write(host.gitconfig(), host.with_entries()).unwrap();
    let plan = host.migrate(&["--dry-run", "--format", "json"]).ok_json();
    assert_eq!(
        plan["windows"]["safe_directory"]["missing"],
        serde_json::json!([])
    );
    assert!(
        !plan["questions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|q| q["id"] == "safe_directory"),
        "{plan}"
    );
    let out = host.migrate(&["--yes"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(fs::read(host.gitconfig()).unwrap(), host.with_entries());
    // Not added by this migration: --abort leaves them.
    assert!(host.migrate(&["--abort", "--yes"]).status.success());
    assert_eq!(fs::read(host.gitconfig()).unwrap(), host.with_entries());
}

#[test]
fn nothing_is_written_or_listed_off_wsl() {
    let host = Windows::new(false);
    let plain = FakeProc::new(PLAIN_VERSION, &wsl_9p_mountinfo(&host.drive), false);
    let run = |args: &[&str]| {
        host.cmd()
            .env("WSL_PLACE_PROC_ROOT", plain.dir.path())
            .env_remove("WSL_DISTRO_NAME")
            .env("WSL_PLACE_WINDOWS_PROFILE", &host.profile)
            .args(args)
            .run()
    };
    let source = host.source.to_str().unwrap();
    let json = run(&["check", "--no-probe", "--format", "json", source]).ok_json();
    assert!(json.get("windows").is_none(), "{json}");
    let destination = host.destination();
    let to = destination.to_str().unwrap();
    let out = run(&["migrate", source, "--to", to, "--yes", "--format", "json"]);
    let json = out.ok_json();
    assert!(json.get("windows").is_none(), "{json}");
    assert_eq!(fs::read(host.gitconfig()).unwrap(), GITCONFIG);
}

/// Windows' environment as `set` prints it: `NAME=value` lines, CRLF.
fn set_output(vars: &[(&str, &str)]) -> String {
    let mut text = String::from("ComSpec=C:\\Windows\\system32\\cmd.exe\r\n");
    for (name, value) in vars {
        text.push_str(&format!("{name}={value}\r\n"));
    }
    text
}

/// `text` in UTF-16LE, as `cmd.exe /U` prints it.
fn utf16(text: &str) -> Vec<u8> {
    text.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

/// A fake interop answering `vars` in UTF-16LE (see [`fake_cmd`]).
fn fake_interop(drive: &Path, vars: &[(&str, &str)]) -> TempDir {
    fake_cmd(drive, &utf16(&set_output(vars)), 0)
}

/// A fake interop: `<drive>/Windows/System32/cmd.exe` prints `answer` after `sleep` seconds and
/// logs its arguments and working folder to `cmd.log` in the returned folder; `wslpath -u
/// C:\...` (in the returned folder, for PATH) maps `C:` to `drive`.
fn fake_cmd(drive: &Path, answer: &[u8], sleep: u32) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let system32 = drive.join("Windows/System32");
    fs::create_dir_all(&system32).unwrap();
    fs::write(dir.path().join("answer"), answer).unwrap();
    let cmd = format!(
        "#!/bin/sh\nprintf '%s\\n' \"$*\" \"$(pwd)\" > '{log}'\nsleep {sleep}\ncat '{answer}'\n",
        log = dir.path().join("cmd.log").display(),
        answer = dir.path().join("answer").display(),
    );
    support::write_executable(&system32.join("cmd.exe"), &cmd);
    let wslpath = format!(
        "#!/bin/sh\np=$(printf '%s' \"$2\" | sed -e 's/^[Cc]://' -e 's/\\\\/\\//g')\nprintf '%s\\n' '{}'\"$p\"\n",
        drive.display()
    );
    support::write_executable(&dir.path().join("wslpath"), &wslpath);
    dir
}

#[test]
fn interop_finds_the_profile_and_git_config_global_names_the_file() {
    let host = Windows::new(true);
    // Windows' profile is another folder than the one the Users folder would give.
    fs::create_dir_all(host.drive.join("Users/other")).unwrap();
    let config = host.drive.join("cfg/git.config");
    fs::create_dir_all(config.parent().unwrap()).unwrap();
    fs::write(&config, GITCONFIG).unwrap();
    let interop = fake_interop(
        &host.drive,
        &[
            ("USERPROFILE", "C:\\Users\\me"),
            ("GIT_CONFIG_GLOBAL", "C:\\cfg\\git.config"),
        ],
    );
    let run = |args: &[&str]| {
        host.with_interop(&interop)
            .env("USER", "nobody-here")
            .args(args)
            .run()
    };
    let source = host.source.to_str().unwrap();
    let json = run(&["check", "--no-probe", "--format", "json", source]).ok_json();
    assert_eq!(json["windows"]["found_by"], "interop", "{json}");
    assert_eq!(ids(&json["windows"]["tools"]), FOUND);
    let destination = host.destination();
    let to = destination.to_str().unwrap();
    let out = run(&["migrate", source, "--to", to, "--yes"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(fs::read(&config).unwrap(), host.with_entries());
    assert_eq!(
        fs::read(host.gitconfig()).unwrap(),
        GITCONFIG,
        "not the profile's"
    );
    assert!(
        run(&["migrate", source, "--to", to, "--abort", "--yes"])
            .status
            .success()
    );
    assert_eq!(fs::read(&config).unwrap(), GITCONFIG);
}

/// A committed repository on the fixture drive (WSL 2, 9p) with a Visual Studio project, and
/// with `primary = "windows"` in its `.wsl-place.toml` when `primary`.
fn windows_first(primary: bool) -> (TempDir, FakeProc, PathBuf) {
    let (base, drive, project) = support::fakeproc::drive_tree();
    support::gitrepo::files_repo(&project, 3);
    fs::write(project.join("App.csproj"), "<Project />").unwrap();
    if primary {
        fs::write(project.join(".wsl-place.toml"), "primary = \"windows\"\n").unwrap();
    }
    support::gitrepo::commit_all(&project, "work");
    let proc = FakeProc::new(WSL2_VERSION, &wsl_9p_mountinfo(&drive), true);
    (base, proc, project)
}

fn on(proc: &FakeProc, args: &[&str], dir: &Path) -> Outcome {
    proc.command(Some("Ubuntu"))
        .env("COLUMNS", "1000")
        .args(args)
        .current_dir(dir)
        .run()
}

#[test]
fn primary_windows_makes_the_verdict_ok_by_choice_and_the_hook_and_nudge_silent() {
    let (_base, proc, project) = windows_first(true);
    let here = project.to_str().unwrap();
    let json = on(
        &proc,
        &["check", "--no-probe", "--format", "json", here],
        &project,
    )
    .ok_json();
    assert_eq!(json["verdict"]["level"], "ok", "{json}");
    assert_eq!(json["verdict"]["reasons"][0]["rule"], "windows-primary");
    let human = on(&proc, &["check", "--no-probe", here], &project);
    assert!(
        String::from_utf8_lossy(&human.stdout).contains("kept on Windows by choice"),
        "{}",
        text(&human)
    );
    let hook = on(&proc, &["check", "--advisory", here], &project);
    assert!(hook.status.success(), "{}", text(&hook));
    assert!(
        hook.stdout.is_empty() && hook.stderr.is_empty(),
        "{}",
        text(&hook)
    );
    let nudge = on(&proc, &["__nudge"], &project);
    assert!(
        nudge.stdout.is_empty() && nudge.stderr.is_empty(),
        "{}",
        text(&nudge)
    );
    let parent = project.parent().unwrap();
    let survey = on(
        &proc,
        &["survey", "--no-probe", parent.to_str().unwrap()],
        parent,
    );
    assert!(
        String::from_utf8_lossy(&survey.stdout).contains("kept on Windows by choice"),
        "{}",
        text(&survey)
    );
}

#[test]
fn windows_signs_add_a_sentence_and_never_change_the_level() {
    let (_base, proc, project) = windows_first(false);
    let here = project.to_str().unwrap();
    let json = on(
        &proc,
        &["check", "--no-probe", "--format", "json", here],
        &project,
    )
    .ok_json();
    assert_eq!(json["verdict"]["level"], "move", "{json}");
    let advice = json["verdict"]["advice"].to_string();
    assert!(advice.contains("a .NET project (.csproj)"), "{advice}");
    assert!(
        advice.contains("keeping it on Windows is the better choice"),
        "{advice}"
    );
    assert!(advice.contains("primary = \\\"windows\\\""), "{advice}");
    // Without the setting, the hook and the nudge speak: the silence above is the setting's.
    let hook = on(&proc, &["check", "--advisory", here], &project);
    assert!(!hook.stdout.is_empty(), "{}", text(&hook));
    let nudge = on(&proc, &["__nudge"], &project);
    assert!(!nudge.stderr.is_empty(), "{}", text(&nudge));
}

#[test]
fn a_persons_own_policy_keeps_the_folders_it_names_on_windows() {
    let (_base, proc, project) = windows_first(false);
    let sandbox = Sandbox::new();
    let policy = sandbox.home().join("policy.toml");
    let folder = project.parent().unwrap().display().to_string();
    fs::write(
        &policy,
        format!("[paths]\nwindows_primary = [\"{folder}/*\"]\n"),
    )
    .unwrap();
    fs::create_dir_all(sandbox.config().join("wsl-place")).unwrap();
    fs::write(
        sandbox.config().join("wsl-place/config.toml"),
        format!("policy = \"{}\"\n", policy.display()),
    )
    .unwrap();
    let out = sandbox
        .cmd()
        .env("WSL_PLACE_PROC_ROOT", proc.dir.path())
        .env("WSL_DISTRO_NAME", "Ubuntu")
        .args(["check", "--no-probe", "--format", "json"])
        .arg(&project)
        .run();
    let json = out.ok_json();
    assert_eq!(json["verdict"]["level"], "ok", "{json}");
    let reason = json["verdict"]["reasons"][0]["message"].as_str().unwrap();
    assert!(
        reason.starts_with("kept on Windows by choice (a `paths.windows_primary` pattern"),
        "{reason}"
    );
}
