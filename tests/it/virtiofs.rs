//! WSL's virtiofs drives through the binary, on fixture hosts laid out as real ones (`proc/`
//! with `run/wsl/virtiofs/` beside it): the GUID tags of WSL 2.7.1 and later read through
//! WSL's links, a tag WSL has no record of, the aggregate `drvfsa` device whose root names
//! the drive, and the named tag of earlier releases.

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
        "wsl-virtiofs-guid",
        Some("wsl-virtiofs-guid"),
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
    let host = FixtureHost::new("wsl-virtiofs-guid", None, &["/mnt/c"]);
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
        "wsl-virtiofs-drvfsa",
        Some("wsl-virtiofs-drvfsa"),
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
fn the_named_tag_of_earlier_releases_is_still_a_virtiofs_drive() {
    let host = FixtureHost::new("wsl-virtiofs", Some("wsl-virtiofs-guid"), &["/mnt/c"]);
    let app = folder(&host, "/mnt/c", "src/app");
    let (json, human) = check(&host, &app);
    assert_eq!(json["mount"]["kind"], "wsl-drvfs-virtiofs", "{json}");
    assert_eq!(json["mount"]["source"], "drvfsa");
    // No record is looked for, so none is missed.
    assert!(json["mount"].get("note").is_none(), "{json}");
    assert!(!human.contains("drive letter"), "{human}");
    assert_ne!(json["verdict"]["level"], "ok", "{json}");
}
