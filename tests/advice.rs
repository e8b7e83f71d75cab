//! The advice of late 2026, through the binary: Windows paths for network shares, WSL 1, and
//! git's fsmonitor daemon where git >= 2.55 can run it (a fake `git` on PATH reports the
//! release; every other git command goes to the real one).

mod support;

use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use support::fakeproc::{FakeProc, escape};
use support::gitrepo::{big_repo, fake_git, git, path_with};
use tempfile::TempDir;

const UNC_FIXTURE: &str = include_str!("fixtures/mountinfo/wsl-unc-share.mountinfo");
const WSL1_FIXTURE: &str = include_str!("fixtures/mountinfo/wsl1.mountinfo");
const WSL1_VERSION: &str = include_str!("fixtures/mountinfo/wsl1.proc-version");

fn json_of(output: std::io::Result<std::process::Output>) -> Value {
    let output = output.expect("wsl-place runs");
    assert!(
        output.status.success() || output.status.code() == Some(1),
        "wsl-place failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON on stdout")
}

/// A temporary folder standing in for a fixture's mount point, and the fixture with that
/// mount point replaced (escaped as the kernel does).
fn fixture_at(fixture: &str, mount_point: &str) -> (TempDir, PathBuf, String) {
    let base = tempfile::tempdir().unwrap();
    let point = base.path().join("share point");
    fs::create_dir_all(point.join("team/app")).unwrap();
    let point = fs::canonicalize(point).unwrap();
    let text = fixture.replace(
        &format!(" {mount_point} "),
        &format!(" {} ", escape(&point)),
    );
    assert_ne!(text, fixture, "{mount_point} is in the fixture");
    (base, point, text)
}

fn ids(json: &Value) -> Vec<String> {
    json["verdict"]["advice"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn unc_share_fixture_gives_a_unc_windows_path_and_network_storage() {
    let (_base, point, mountinfo) = fixture_at(UNC_FIXTURE, "/mnt/share");
    let proc = FakeProc::new(support::fakeproc::WSL2_VERSION, &mountinfo, true);
    let json = json_of(
        proc.command(Some("Ubuntu"))
            .args(["check", "--no-probe", "--format", "json"])
            .arg(point.join("team/app"))
            .output(),
    );
    assert_eq!(json["mount"]["kind"], "network");
    assert_eq!(json["mount"]["source"], r"\\fileserver\Projects");
    assert_eq!(json["paths"]["windows"], r"\\fileserver\Projects\team\app");
    assert_eq!(json["paths"]["windows_legacy"], Value::Null);
    assert_eq!(json["verdict"]["level"], "advise");
}

#[test]
fn wsl1_fixture_advises_wsl2_not_the_linux_disk() {
    let (_base, drive, mountinfo) = fixture_at(WSL1_FIXTURE, "/mnt/c");
    let proc = FakeProc::new(WSL1_VERSION, &mountinfo, true);
    let json = json_of(
        proc.command(None)
            .env("WSL_DISTRO_NAME", "Ubuntu")
            .args(["check", "--no-probe", "--format", "json"])
            .arg(drive.join("team/app"))
            .output(),
    );
    assert_eq!(json["host"]["wsl_version"], 1);
    assert_eq!(json["mount"]["kind"], "wsl1-drvfs");
    assert_eq!(json["paths"]["windows"], r"C:\team\app");
    assert_eq!(json["verdict"]["level"], "move");
    assert_eq!(ids(&json), vec!["wsl2"]);
    let advice = &json["verdict"]["advice"][0];
    assert_eq!(advice["command"], "wsl --set-version Ubuntu 2");
    assert!(
        advice["message"].as_str().unwrap().contains("not the fix"),
        "{advice}"
    );
    // The human report says the same, not "move this repository to the Linux disk".
    let out = proc
        .command(None)
        .env("WSL_DISTRO_NAME", "Ubuntu")
        .args(["check", "--no-probe"])
        .arg(drive.join("team/app"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("WSL 2 is the fix"), "{text}");
    assert!(
        !text.contains("move this repository to the Linux disk"),
        "{text}"
    );
}

fn check_with_git(version: &str, repo: &Path, home: &Path) -> Value {
    let fake = fake_git(version);
    json_of(
        support::wsl_place()
            .env("PATH", path_with(fake.path()))
            .env("HOME", home)
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .args(["check", "--format", "json", "--probe-budget-ms", "300"])
            .arg(repo)
            .output(),
    )
}

#[test]
fn git_2_55_on_a_local_disk_gets_fsmonitor_advice_and_figure() {
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("big");
    big_repo(&repo, 10_050);
    let home = work.path().join("home");
    fs::create_dir_all(&home).unwrap();

    let json = check_with_git("2.55.0", &repo, &home);
    assert_eq!(json["git_version"], "2.55.0");
    assert_eq!(json["scan"]["tracked"], 10_050);
    assert!(ids(&json).contains(&"fsmonitor".to_string()), "{json}");
    let with = json["predict"]["git_status_fsmonitor_ms"].as_f64().unwrap();
    let without = json["predict"]["git_status_ms"]["baseline"]
        .as_f64()
        .unwrap();
    assert!(with < without, "with fsmonitor {with} ms vs {without} ms");

    // The same repository with the git of this machine's era: no advice, no figure.
    let json = check_with_git("2.47.3", &repo, &home);
    assert!(!ids(&json).contains(&"fsmonitor".to_string()), "{json}");
    assert_eq!(json["predict"]["git_status_fsmonitor_ms"], Value::Null);
}

#[test]
fn git_2_55_on_slowfs_gets_no_fsmonitor_advice_and_is_told_why_when_set() {
    let work = tempfile::tempdir().unwrap();
    let backing = work.path().join("backing");
    let repo_in_backing = backing.join("big");
    big_repo(&repo_in_backing, 10_050);
    let home = work.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let Some(fs) = support::SlowFs::mount(
        &backing,
        &work.path().join("mnt"),
        &["--profile", "drvfs-9p", "--scale", "0.01"],
    ) else {
        return;
    };
    let repo = fs.mountpoint().join("big");

    let json = check_with_git("2.55.0", &repo, &home);
    assert_eq!(json["mount"]["kind"], "fuse");
    assert_eq!(json["scan"]["tracked"], 10_050);
    assert!(
        !ids(&json).iter().any(|id| id.starts_with("fsmonitor")),
        "{json}"
    );

    // Set there anyway: the advice says why it cannot work and how to turn it off.
    git(&repo_in_backing, &["config", "core.fsmonitor", "true"]);
    let json = check_with_git("2.55.0", &repo, &home);
    let advice = json["verdict"]["advice"].as_array().unwrap();
    let unsupported = advice
        .iter()
        .find(|a| a["id"] == "fsmonitor-unsupported")
        .unwrap_or_else(|| panic!("{json}"));
    assert_eq!(unsupported["command"], "git config --unset core.fsmonitor");
    assert!(
        unsupported["message"]
            .as_str()
            .unwrap()
            .contains("allowRemote"),
        "{unsupported}"
    );
}
