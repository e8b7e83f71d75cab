//! Issue 67: a program found on PATH whose file lies on a Windows drive (WSL appends Windows'
//! PATH by default: Node.js's `npm` in `C:\Program Files\nodejs`) is never started as a package
//! manager or as git, not even for its version, by `check`, `survey` or `migrate`.

use super::Windows;
use crate::support::{Run, gitrepo, write_executable};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A stand-in that leaves `marker` behind if anything starts it, and answers as the real one.
fn stand_in(path: &Path, marker: &Path, answer: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    write_executable(
        path,
        &format!("#!/bin/sh\ntouch '{}'\necho '{answer}'\n", marker.display()),
    );
}

/// The host with Windows' Node.js (`npm`) and a `git` on its drive, first on PATH, and the
/// repository an npm project: what each command must not start, and where starting leaves a mark.
fn host_with_windows_programs() -> (Windows, PathBuf, Command) {
    let host = Windows::bare(true);
    let marker = host.drive.join("started");
    let nodejs = host.drive.join("Program Files/nodejs");
    let git_bin = host.drive.join("Program Files/Git/usr/bin");
    stand_in(&nodejs.join("npm"), &marker, "11.6.2");
    stand_in(
        &git_bin.join("git"),
        &marker,
        "git version 2.55.0.windows.1",
    );
    fs::write(
        host.source.join("package.json"),
        br#"{"name":"app","version":"1.0.0","dependencies":{"left-pad":"1.3.0"}}"#,
    )
    .unwrap();
    fs::write(
        host.source.join("package-lock.json"),
        br#"{"name":"app","lockfileVersion":3,"packages":{"":{"name":"app"},"node_modules/left-pad":{"version":"1.3.0","resolved":"https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz","integrity":"sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQVoydSK6NVr7Y0gbeJVY4jpWsHtUhG6cm+ZvrtEF/yjDrSxQ=="}}}"#,
    )
    .unwrap();
    gitrepo::init_and_commit_all(&host.source, "init");
    let cmd = host_with_path(&host);
    (host, marker, cmd)
}

fn with_args(mut cmd: Command, args: &[&str], path: &Path) -> Command {
    cmd.args(args).arg(path);
    cmd
}

#[test]
fn windows_npm_first_on_path_is_never_started_and_the_json_says_why() {
    let (host, marker, cmd) = host_with_windows_programs();
    let json = with_args(cmd, &["check", "--format", "json"], &host.source)
        .run()
        .json();
    assert!(!marker.exists(), "a Windows program was started: {json}");
    let manager = &json["predict"]["install_manager"];
    assert_eq!(manager["manager"], "npm", "{json}");
    assert_eq!(manager["source"], "estimated", "{json}");
    assert_eq!(manager["sample_skipped_cause"], "windows-program", "{json}");
    let kind = &manager["sample_skipped_kind"];
    assert_eq!(
        (&kind["kind"], &kind["manager"], &kind["program"]),
        (
            &serde_json::json!("windows_program"),
            &serde_json::json!("npm"),
            &manager["windows_program"]
        ),
        "{json}"
    );
    assert_eq!(
        manager["windows_program"]["windows"], r"C:\Program Files\nodejs\npm",
        "{json}"
    );
    let said = manager["sample_skipped"].as_str().unwrap_or_default();
    assert!(
        said.contains(r"npm on PATH is Windows' npm (C:\Program Files\nodejs\npm)")
            && said.contains("install Node.js inside WSL"),
        "{said}"
    );
    // git was run, and it was Linux's: Windows' would have answered 2.55.0.windows.1.
    let linux_git = Command::new("git").arg("--version").output().unwrap();
    let linux_git = String::from_utf8_lossy(&linux_git.stdout);
    let version = json["git_version"].as_str().unwrap_or_default();
    assert!(!version.is_empty() && linux_git.contains(version), "{json}");
}

#[test]
fn windows_npm_first_on_path_is_started_by_no_command() {
    let (host, marker, _) = host_with_windows_programs();
    let parent = host.source.parent().unwrap().to_path_buf();
    let runs: [(&[&str], &Path); 4] = [
        (&["check"], &host.source),
        (&["survey"], &parent),
        (&["migrate", "--dry-run", "--format", "json"], &host.source),
        (&["migrate", "--yes"], &host.source),
    ];
    for (args, path) in runs {
        let out = with_args(host_with_path(&host), args, path).run();
        out.ok();
        assert!(
            !marker.exists(),
            "{args:?} started a Windows program: {}{}",
            out.stdout(),
            out.stderr()
        );
    }
    assert!(host.destination().join("package-lock.json").is_file());
}

/// The same PATH as [`host_with_windows_programs`] gives, for another run on that host.
fn host_with_path(host: &Windows) -> Command {
    let mut cmd = host.cmd();
    let path = format!(
        "{}:{}:{}",
        host.drive.join("Program Files/nodejs").display(),
        host.drive.join("Program Files/Git/usr/bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    cmd.env("PATH", path);
    cmd
}

/// `doctor` lists Windows' npm as Windows', never started, and git as the Linux one.
#[test]
fn doctor_lists_windows_npm_without_starting_it() {
    let (host, marker, _) = host_with_windows_programs();
    let mut cmd = host_with_path(&host);
    cmd.args(["doctor", "--format", "json"]);
    let json = cmd.run().ok_json();
    assert!(!marker.exists(), "a Windows program was started: {json}");
    let npm = json["managers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "npm")
        .unwrap();
    assert_eq!(npm["found"], "windows", "{json}");
    assert_eq!(
        npm["windows_program"]["windows"], r"C:\Program Files\nodejs\npm",
        "{json}"
    );
    assert_eq!(json["git"]["found"], "linux", "{json}");
    assert!(
        !json["git"]["path"]
            .as_str()
            .unwrap_or_default()
            .contains("Program Files"),
        "{json}"
    );
    assert_eq!(json["host"]["wsl"], true, "{json}");
    assert_eq!(json["drives"][0]["windows"], r"C:\", "{json}");
}
