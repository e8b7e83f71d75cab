//! bench/real-host.sh, the record a person makes on a real WSL host, run on a fixture host: WSL
//! 2.7.1's GUID virtiofs tag for `C:` (WSL's record beside the fixture `proc/`), interop with a
//! fake `cmd.exe` and `wsl.exe` in the drive's `Windows/System32`, a repository on the drive.

use crate::support::fakeproc::FixtureHost;
use crate::support::{Run, Sandbox, gitrepo, write_executable};
use serde_json::Value;
use std::fs;
use std::path::Path;

/// Fakes of the two Windows programs the record asks, where WSL finds them on `C:`; `wsl.exe`
/// answers in UTF-16LE, as it does without `WSL_UTF8`, unless that is set.
fn windows_programs(drive: &Path) {
    let system32 = drive.join("Windows/System32");
    fs::create_dir_all(&system32).unwrap();
    write_executable(
        &system32.join("cmd.exe"),
        "#!/bin/sh\nprintf '\\r\\nMicrosoft Windows [Version 10.0.26100.4652]\\r\\n'\n",
    );
    write_executable(
        &system32.join("wsl.exe"),
        "#!/bin/sh\n[ \"$WSL_UTF8\" = 1 ] || exit 9\nprintf 'WSL version: 2.7.1.0\\r\\nKernel version: 6.6.87.2-1\\r\\n'\n",
    );
}

#[test]
fn the_record_on_a_fixture_host_holds_the_classified_virtiofs_line() {
    let host = FixtureHost::new(
        "wsl-2.7.1-virtiofs-guid",
        Some("wsl-2.7.1-virtiofs-guid"),
        &["/mnt/c"],
    );
    let drive = host.point("/mnt/c").to_path_buf();
    windows_programs(&drive);
    let repo = drive.join("src/app");
    gitrepo::files_repo(&repo, 5);
    gitrepo::commit_all(&repo, "work");
    let sandbox = Sandbox::new();
    let out_file = sandbox.home().join("record.json");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/real-host.sh");
    let mut cmd = sandbox.program("bash");
    host.apply(&mut cmd, Some("Ubuntu"));
    let run = cmd
        .env("WSL_PLACE", env!("CARGO_BIN_EXE_wsl-place"))
        .arg(script)
        .args(["--yes", "--probe-budget-ms", "100", "--repo"])
        .arg(&repo)
        .arg("--out")
        .arg(&out_file)
        .run();
    run.ok();
    let written = fs::read_to_string(&out_file).unwrap();
    assert_eq!(run.stdout(), written, "what is written is what was shown");
    let record: Value = serde_json::from_str(&written).unwrap();
    let mounts = record["mounts"].as_array().unwrap();
    let c = mounts
        .iter()
        .find(|m| m["line"].as_str().unwrap().contains(" virtiofs 3f2504e0-"))
        .unwrap_or_else(|| panic!("no virtiofs line in {record}"));
    assert_eq!(c["mount"]["kind"], "wsl-drvfs-virtiofs", "{c}");
    assert_eq!(c["windows_path"], "C:\\", "{c}");
    assert_eq!(
        record["virtiofs_tags"]["3f2504e0-4f89-41d3-9a0c-0305e82c3301"],
        "C:\\"
    );
    assert_eq!(
        record["versions"]["wsl"],
        "WSL version: 2.7.1.0\nKernel version: 6.6.87.2-1"
    );
    assert_eq!(
        record["versions"]["windows"],
        "Microsoft Windows [Version 10.0.26100.4652]"
    );
    // The C: drive is the one the tool placed at C:\, and both probes measured.
    assert_eq!(
        record["probe"]["c_drive"]["kind"], "wsl-drvfs-virtiofs",
        "{record}"
    );
    assert!(record["probe"]["home"]["ops"].is_object(), "{record}");
    let verify = &record["check_verify"];
    assert_eq!(verify["paths"]["windows"], "C:\\src\\app", "{verify}");
    assert!(record["windows"].is_object(), "{record}");
}

#[test]
fn nothing_is_written_without_a_yes() {
    let host = FixtureHost::new("wsl-2.7.1-virtiofs-guid", None, &["/mnt/c"]);
    let sandbox = Sandbox::new();
    let out_file = sandbox.home().join("record.json");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/real-host.sh");
    let mut cmd = sandbox.program("bash");
    host.apply(&mut cmd, Some("Ubuntu"));
    let run = cmd
        .env("WSL_PLACE", env!("CARGO_BIN_EXE_wsl-place"))
        .arg(script)
        .args(["--probe-budget-ms", "100", "--out"])
        .arg(&out_file)
        .run();
    assert!(!run.status.success(), "{}", run.stderr());
    assert!(run.stderr().contains("Not written"), "{}", run.stderr());
    assert!(!out_file.exists());
    // Shown all the same: the unresolved tag, classified as a drive of unknown letter.
    let shown: Value = serde_json::from_str(&run.stdout()).unwrap();
    let noted = shown["mounts"].as_array().unwrap().iter().any(|m| {
        m["mount"]["note"]
            .as_str()
            .is_some_and(|n| n.contains("unknown"))
    });
    assert!(noted, "{shown}");
}
