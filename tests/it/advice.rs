//! The advice of late 2026, through the binary: Windows paths for network shares, WSL 1, and
//! git's fsmonitor daemon where git >= 2.55 can run it (a fake `git` on PATH reports the
//! release; every other git command goes to the real one).

use crate::support;

use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use support::advice_ids as ids;
use support::fakeproc::{FakeProc, escape};
use support::gitrepo::{big_repo, fake_git, git, path_with};
use tempfile::TempDir;

const UNC_FIXTURE: &str = include_str!("../fixtures/mountinfo/wsl-unc-share.mountinfo");
const MAPPED_FIXTURE: &str = include_str!("../fixtures/mountinfo/wsl-mapped-drive.mountinfo");
const WSL1_FIXTURE: &str = include_str!("../fixtures/mountinfo/wsl1.mountinfo");
const WSL1_VERSION: &str = include_str!("../fixtures/mountinfo/wsl1.proc-version");

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

/// A fake `net.exe` that lists `listing` as `net.exe use` would (CRLF, English) and notes each
/// call in `calls`; the folder to put first on PATH.
fn fake_net_exe(listing: &str, calls: &Path) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let text = listing.replace('\n', "\r\n").replace('\'', "'\\''");
    let script = format!(
        "#!/bin/sh\necho \"$*\" >> '{}'\nprintf '%s' '{text}'\n",
        calls.display()
    );
    support::write_executable(&dir.path().join("net.exe"), &script);
    dir
}

const NET_USE_Z: &str = "New connections will be remembered.

Status       Local     Remote                    Network

-------------------------------------------------------------------------------
OK           Z:        \\\\fileserver\\Projects    Microsoft Windows Network
The command completed successfully.
";

const NET_USE_NONE: &str = "New connections will be remembered.

There are no entries in the list.
";

/// `check --no-probe --format json PATH` on the mapped-drive fixture host, with `net.exe`
/// (listing `listing`) on PATH and `WSL_INTEROP` set when `interop`; the JSON and the arguments
/// of every `net.exe` call.
fn check_on_mapped_fixture(listing: &str, interop: bool, path: &str) -> (Value, Vec<String>) {
    let (base, point, mountinfo) = fixture_at(MAPPED_FIXTURE, "/mnt/z");
    let mountinfo = mountinfo.replace(" /mnt/c ", &format!(" {} ", escape(&base.path().join("c"))));
    fs::create_dir_all(base.path().join("c/src/app")).unwrap();
    let calls = base.path().join("net-calls");
    let net = fake_net_exe(listing, &calls);
    // The VM's binfmt entry is always there: interop is this shell's `WSL_INTEROP` alone.
    let proc = FakeProc::new(support::fakeproc::WSL2_VERSION, &mountinfo, true);
    let target = match path {
        "z" => point.join("team/app"),
        "c" => fs::canonicalize(base.path().join("c/src/app")).unwrap(),
        _ => fs::canonicalize(base.path()).unwrap(),
    };
    let mut command = proc.command(Some("Ubuntu"));
    if !interop {
        command.env_remove("WSL_INTEROP");
    }
    let json = json_of(
        command
            .env("PATH", path_with(net.path()))
            .args(["check", "--no-probe", "--format", "json"])
            .arg(target)
            .output(),
    );
    let calls = fs::read_to_string(&calls).unwrap_or_default();
    (json, calls.lines().map(str::to_string).collect())
}

#[test]
fn a_drive_letter_windows_maps_to_a_share_is_network_storage() {
    let (json, calls) = check_on_mapped_fixture(NET_USE_Z, true, "z");
    assert_eq!(calls, vec!["use"], "net.exe use, once");
    assert_eq!(json["mount"]["kind"], "network");
    assert_eq!(json["mount"]["source"], r"Z:\");
    assert_eq!(json["paths"]["windows"], r"\\fileserver\Projects\team\app");
    assert_eq!(json["verdict"]["level"], "advise");

    // Not mapped: the drive letter stays a Windows drive.
    let (json, calls) = check_on_mapped_fixture(NET_USE_NONE, true, "z");
    assert_eq!(calls.len(), 1);
    assert_eq!(json["mount"]["kind"], "wsl-drvfs-9p");
    assert_eq!(json["paths"]["windows"], r"Z:\team\app");
}

#[test]
fn windows_is_asked_only_for_drive_letters_and_only_through_interop() {
    // A drive letter without interop: nothing to ask with, so nothing is asked.
    let (json, calls) = check_on_mapped_fixture(NET_USE_Z, false, "z");
    assert!(calls.is_empty(), "{calls:?}");
    assert_eq!(json["mount"]["kind"], "wsl-drvfs-9p");
    // A folder on the Linux disk: no drive letter, no question.
    let (json, calls) = check_on_mapped_fixture(NET_USE_Z, true, "linux");
    assert!(calls.is_empty(), "{calls:?}");
    assert_ne!(json["mount"]["kind"], "network");
    // Another drive letter is asked about, and not mapped.
    let (json, calls) = check_on_mapped_fixture(NET_USE_Z, true, "c");
    assert_eq!(calls, vec!["use"]);
    assert_eq!(json["mount"]["kind"], "wsl-drvfs-9p");
    assert_eq!(json["paths"]["windows"], r"C:\src\app");
}

/// The hook's cached answer does not wait for Windows: only a new measurement asks `net.exe`.
#[test]
fn the_hook_answers_from_its_cache_without_asking_windows() {
    let (base, point, mountinfo) = fixture_at(MAPPED_FIXTURE, "/mnt/z");
    let calls = base.path().join("net-calls");
    let net = fake_net_exe(NET_USE_Z, &calls);
    let proc = FakeProc::new(support::fakeproc::WSL2_VERSION, &mountinfo, true);
    let run = |args: &[&str]| {
        let out = proc
            .command(Some("Ubuntu"))
            .env("PATH", path_with(net.path()))
            .args(args)
            .arg(point.join("team/app"))
            .output()
            .unwrap();
        let asked = fs::read_to_string(&calls)
            .unwrap_or_default()
            .lines()
            .count();
        (String::from_utf8_lossy(&out.stdout).into_owned(), asked)
    };
    // A measured check writes the cache (a `--no-probe` one never does).
    let (_, asked) = run(&["check", "--probe-budget-ms", "100"]);
    assert_eq!(asked, 1);
    let (line, asked) = run(&["check", "--advisory", "--no-probe"]);
    assert_eq!(asked, 1, "the cached answer asked Windows again");
    assert!(line.contains("advise"), "{line}");
}

#[test]
fn a_net_exe_that_hangs_is_given_up_after_two_seconds() {
    let (_base, point, mountinfo) = fixture_at(MAPPED_FIXTURE, "/mnt/z");
    let net = tempfile::tempdir().unwrap();
    support::write_executable(&net.path().join("net.exe"), "#!/bin/sh\nexec sleep 30\n");
    let proc = FakeProc::new(support::fakeproc::WSL2_VERSION, &mountinfo, true);
    let start = std::time::Instant::now();
    let json = json_of(
        proc.command(Some("Ubuntu"))
            .env("PATH", path_with(net.path()))
            .args(["check", "--no-probe", "--format", "json"])
            .arg(point.join("team/app"))
            .output(),
    );
    let took = start.elapsed();
    assert!(took < std::time::Duration::from_secs(10), "took {took:?}");
    assert_eq!(json["mount"]["kind"], "wsl-drvfs-9p");
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
        support::Sandbox::at(home)
            .cmd()
            .env("PATH", path_with(fake.path()))
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
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
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
