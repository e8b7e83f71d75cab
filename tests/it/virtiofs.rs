//! WSL's virtiofs drives through the binary, on fixture hosts laid out as real ones (`proc/`
//! with `run/wsl/virtiofs/` beside it), each form named after the release it comes from: the
//! letter tags of WSL 2.7.0 and earlier (`drvfsC0`), the GUID tags of 2.7.1 and later read
//! through WSL's links (a tag WSL has no record of, a link a person pointed at a Linux path),
//! the aggregate device of WSL's main branch under either tag (`drvfs`, `drvfsa`) whose root
//! names the drive, a share falling back to 9p beside virtiofs, and the brief's `drvfsa` at `/`.
//! Every mount point is stood in for by a folder named `drive <x>`, so no letter can come from
//! a `/mnt/<letter>` name.

use crate::support::fakeproc::FixtureHost;
use crate::support::{CHECK_JSON, Run};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

/// `folder` made below the stand-in for `point`.
fn folder(host: &FixtureHost, point: &str, folder: &str) -> PathBuf {
    let path = host.point(point).join(folder);
    fs::create_dir_all(&path).unwrap();
    path
}

/// `check --no-probe` on `path` of a WSL host (distro Ubuntu): its JSON, and its human report.
fn check(host: &FixtureHost, path: &Path) -> (Value, String) {
    let json = host
        .command(Some("Ubuntu"))
        .args(CHECK_JSON)
        .arg(path)
        .run()
        .ok_json();
    let human = host
        .command(Some("Ubuntu"))
        .args(["check", "--no-probe"])
        .arg(path)
        .run();
    (json, human.ok().stdout())
}

/// The human report's row named `name`.
fn row<'a>(human: &'a str, name: &str) -> &'a str {
    human
        .lines()
        .find(|line| line.trim_start().starts_with(name))
        .unwrap_or_else(|| panic!("no {name} row in\n{human}"))
}

#[test]
fn a_guid_tag_is_the_drive_wsl_linked_it_to() {
    let host = FixtureHost::new(
        "wsl-2.7.1-virtiofs-guid",
        Some("wsl-2.7.1-virtiofs-guid"),
        &["/mnt/c", "/mnt/d"],
    );
    let app = folder(&host, "/mnt/c", "src/app");
    let (json, human) = check(&host, &app);
    assert_eq!(json["mount"]["kind"], "wsl-drvfs-virtiofs", "{json}");
    assert_eq!(
        json["mount"]["source"],
        "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
    );
    assert_eq!(json["paths"]["windows"], r"C:\src\app");
    assert!(json["mount"].get("note").is_none(), "{json}");
    assert_ne!(json["verdict"]["level"], "ok", "{json}");
    assert!(
        row(&human, "mount").contains("a Windows drive reached over virtiofs"),
        "{human}"
    );
    assert!(
        row(&human, "windows path").ends_with(r"C:\src\app"),
        "{human}"
    );
    let work = folder(&host, "/mnt/d", "work");
    let (json, _) = check(&host, &work);
    assert_eq!(json["paths"]["windows"], r"D:\work", "{json}");
}

#[test]
fn a_guid_tag_wsl_has_no_record_of_is_a_drive_whose_letter_is_said_unknown_once() {
    let host = FixtureHost::new("wsl-2.7.1-virtiofs-guid", None, &["/mnt/c"]);
    let app = folder(&host, "/mnt/c", "src/app");
    let (json, human) = check(&host, &app);
    assert_eq!(json["mount"]["kind"], "wsl-drvfs-virtiofs", "{json}");
    assert_eq!(json["paths"]["windows"], Value::Null, "{json}");
    let note = json["mount"]["note"].as_str().unwrap_or_default();
    assert!(
        note.contains("3f2504e0-4f89-41d3-9a0c-0305e82c3301")
            && note.contains("drive letter is unknown"),
        "{json}"
    );
    assert_ne!(json["verdict"]["level"], "ok", "{json}");
    let said = human.matches("drive letter is unknown").count();
    assert_eq!(said, 1, "{human}");
    assert!(row(&human, "windows path").contains("unknown"), "{human}");
}

#[test]
fn the_aggregate_devices_guid_root_is_mapped_to_its_drive() {
    let host = FixtureHost::new(
        "wsl-main-virtiofs-aggregate-elevated",
        Some("wsl-main-virtiofs-aggregate-elevated"),
        &["/mnt/c", "/mnt/p"],
    );
    let app = folder(&host, "/mnt/c", "src/app");
    let (json, human) = check(&host, &app);
    assert_eq!(json["mount"]["kind"], "wsl-drvfs-virtiofs", "{json}");
    assert_eq!(json["mount"]["source"], "drvfsa");
    assert_eq!(
        json["mount"]["root"],
        "/3f2504e0-4f89-41d3-9a0c-0305e82c3301"
    );
    // Not `C:\3f2504e0-...\src\app`: the root names the drive, not a folder of it.
    assert_eq!(json["paths"]["windows"], r"C:\src\app", "{json}");
    assert!(
        row(&human, "windows path").ends_with(r"C:\src\app"),
        "{human}"
    );
    let team = folder(&host, "/mnt/p", "team");
    let (json, _) = check(&host, &team);
    assert_eq!(json["paths"]["windows"], r"D:\Projects\team", "{json}");
}

#[test]
fn the_briefs_drvfsa_at_the_root_is_still_a_virtiofs_drive() {
    // No release mounts a drive so (a tag without letter and index, a root of `/`): the brief's
    // fixture, kept as the least a virtiofs drive can show.
    let host = FixtureHost::new("wsl-virtiofs", Some("wsl-2.7.1-virtiofs-guid"), &["/mnt/c"]);
    let app = folder(&host, "/mnt/c", "src/app");
    let (json, human) = check(&host, &app);
    assert_eq!(json["mount"]["kind"], "wsl-drvfs-virtiofs", "{json}");
    assert_eq!(json["mount"]["source"], "drvfsa");
    // No record is looked for, so none is missed.
    assert!(json["mount"].get("note").is_none(), "{json}");
    assert!(!human.contains("drive letter"), "{human}");
    assert_ne!(json["verdict"]["level"], "ok", "{json}");
}

#[test]
fn a_letter_tag_of_wsl_2_7_0_gives_the_drive_whatever_the_mount_point_is_named() {
    let host = FixtureHost::new("wsl-2.7.0-virtiofs-letter-tags", None, &["/c", "/work/e"]);
    let app = folder(&host, "/c", "src/app");
    let (json, human) = check(&host, &app);
    assert_eq!(json["mount"]["kind"], "wsl-drvfs-virtiofs", "{json}");
    assert_eq!(json["mount"]["source"], "drvfsC0");
    assert_eq!(json["paths"]["windows"], r"C:\src\app", "{json}");
    assert!(json["mount"].get("note").is_none(), "{json}");
    assert!(
        row(&human, "windows path").ends_with(r"C:\src\app"),
        "{human}"
    );
    let elevated = folder(&host, "/work/e", "x");
    let (json, _) = check(&host, &elevated);
    assert_eq!(json["paths"]["windows"], r"E:\x", "{json}");
}

#[test]
fn a_guid_link_to_a_linux_path_builds_no_windows_path_and_is_named() {
    let host = FixtureHost::new(
        "wsl-2.7.1-virtiofs-guid",
        Some("wsl-2.7.1-virtiofs-guid-linux-target"),
        &["/mnt/c", "/mnt/d"],
    );
    let app = folder(&host, "/mnt/c", "src/app");
    let (json, human) = check(&host, &app);
    assert_eq!(json["mount"]["kind"], "wsl-drvfs-virtiofs", "{json}");
    assert_eq!(json["paths"]["windows"], Value::Null, "{json}");
    let note = json["mount"]["note"].as_str().unwrap_or_default();
    assert!(
        note.contains("leads to /mnt/c, not a Windows folder"),
        "{json}"
    );
    assert!(!human.contains(r"\mnt\c"), "{human}");
    let work = folder(&host, "/mnt/d", "work");
    let (json, _) = check(&host, &work);
    assert_eq!(json["paths"]["windows"], r"D:\work", "{json}");
}

#[test]
fn the_aggregate_device_tagged_drvfs_is_a_windows_drive_and_its_share_ends_right() {
    let host = FixtureHost::new(
        "wsl-main-virtiofs-aggregate",
        Some("wsl-main-virtiofs-aggregate"),
        &["/mnt/c", "/mnt/p"],
    );
    let app = folder(&host, "/mnt/c", "src/app");
    let (json, _) = check(&host, &app);
    assert_eq!(json["mount"]["kind"], "wsl-drvfs-virtiofs", "{json}");
    assert_eq!(json["mount"]["source"], "drvfs");
    assert_eq!(json["paths"]["windows"], r"C:\src\app", "{json}");
    // The record `D:\Projects\` (trailing separator) joined with the folder below it.
    let team = folder(&host, "/mnt/p", "team");
    let (json, _) = check(&host, &team);
    assert_eq!(json["paths"]["windows"], r"D:\Projects\team", "{json}");
}

#[test]
fn the_bound_shares_line_alone_is_enough() {
    let host = FixtureHost::new("wsl-main-virtiofs-aggregate", None, &["/mnt/c"]);
    let mountinfo = host.proc_root().join("self/mountinfo");
    let text = fs::read_to_string(&mountinfo).unwrap();
    let without_device: String = text
        .lines()
        .filter(|line| !line.contains("virtiofs-mounts"))
        .map(|line| format!("{line}\n"))
        .collect();
    assert_ne!(text, without_device);
    fs::write(&mountinfo, without_device).unwrap();
    let app = folder(&host, "/mnt/c", "src/app");
    let (json, _) = check(&host, &app);
    assert_eq!(json["mount"]["kind"], "wsl-drvfs-virtiofs", "{json}");
    // No record: the letter is unknown, and the GUID is never taken for a folder.
    assert_eq!(json["paths"]["windows"], Value::Null, "{json}");
    assert!(
        json["mount"]["note"]
            .as_str()
            .unwrap_or_default()
            .contains("drive letter is unknown"),
        "{json}"
    );
}

#[test]
fn a_share_that_fell_back_to_9p_sits_beside_virtiofs() {
    let host = FixtureHost::new(
        "wsl-main-virtiofs-9p-fallback",
        Some("wsl-main-virtiofs-9p-fallback"),
        &["/mnt/c", "/mnt/d"],
    );
    let (json, _) = check(&host, &folder(&host, "/mnt/c", "a"));
    assert_eq!(json["mount"]["kind"], "wsl-drvfs-virtiofs", "{json}");
    assert_eq!(json["paths"]["windows"], r"C:\a", "{json}");
    let (json, _) = check(&host, &folder(&host, "/mnt/d", "b"));
    assert_eq!(json["mount"]["kind"], "wsl-drvfs-9p", "{json}");
    assert_eq!(json["paths"]["windows"], r"D:\b", "{json}");
}
