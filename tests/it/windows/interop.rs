//! Windows asked the sturdy way: one `cmd.exe /d /u /c set` by its full path on the `C:` mount
//! (none on PATH, as with `appendWindowsPath=false`), started in that mount; a name that is not
//! ASCII read right in UTF-16LE and in the code pages a console answers in without `/U`; the
//! global config git.exe reads (`HOMEDRIVE`+`HOMEPATH`, a home WSL cannot reach); a slow
//! `cmd.exe` one clear line and a result; and what interop costs a `check` with fakes.

use super::{GITCONFIG, Windows, fake_cmd, fake_interop, set_output, utf16};
use crate::support::{self, Run, text};
use std::fs;
use std::time::{Duration, Instant};

/// A host whose only profile Windows names is `Users\Zoë` (the Users folder holds two, and
/// the Linux user is neither, so only Windows' answer can find it).
fn zoe() -> Windows {
    let host = Windows::new(true);
    fs::create_dir_all(host.drive.join("Users/Zoë/AppData/Local/Fork")).unwrap();
    host
}

fn check_json(host: &Windows, interop: &tempfile::TempDir) -> serde_json::Value {
    host.with_interop(interop)
        .env("USER", "nobody-here")
        .args(["check", "--no-probe", "--format", "json"])
        .arg(&host.source)
        .run()
        .ok_json()
}

#[test]
fn a_non_ascii_profile_in_utf16_under_u_is_found_from_the_c_mount_without_path() {
    let host = zoe();
    let interop = fake_interop(&host.drive, &[("USERPROFILE", "C:\\Users\\Zoë")]);
    // A cmd.exe on PATH would answer another profile: it must not be the one asked.
    support::write_executable(
        &interop.path().join("cmd.exe"),
        "#!/bin/sh\nprintf 'USERPROFILE=C:\\\\Users\\\\me\\r\\n'\n",
    );
    let json = check_json(&host, &interop);
    let windows = &json["windows"];
    assert_eq!(windows["found_by"], "interop", "{windows}");
    assert!(
        windows["profile"].as_str().unwrap().ends_with("/Users/Zoë"),
        "{windows}"
    );
    assert_eq!(windows["interop"]["encoding"], "utf-16le");
    let log = fs::read_to_string(interop.path().join("cmd.log")).unwrap();
    let (args, cwd) = log.split_once('\n').unwrap();
    assert_eq!(args, "/d /u /c set");
    assert_eq!(
        cwd.trim_end(),
        host.drive.display().to_string(),
        "started on C:"
    );
}

#[test]
fn a_non_ascii_profile_in_the_ansi_or_oem_code_page_is_read_right() {
    let host = zoe();
    let text = set_output(&[("USERPROFILE", "C:\\Users\\Zo_")]);
    for (byte, encoding) in [(0xeb_u8, "windows-1252"), (0x89, "cp437")] {
        let bytes: Vec<u8> = text
            .bytes()
            .map(|b| if b == b'_' { byte } else { b })
            .collect();
        let interop = fake_cmd(&host.drive, &bytes, 0);
        let json = check_json(&host, &interop);
        let windows = &json["windows"];
        assert!(
            windows["profile"].as_str().unwrap().ends_with("/Users/Zoë"),
            "{encoding}: {windows}"
        );
        assert_eq!(windows["interop"]["encoding"], encoding, "{windows}");
    }
}

#[test]
fn a_non_ascii_home_names_the_global_config_git_exe_reads() {
    let host = zoe();
    fs::create_dir_all(host.drive.join("Users/Zoë/home")).unwrap();
    let interop = fake_interop(
        &host.drive,
        &[
            ("USERPROFILE", "C:\\Users\\Zoë"),
            ("HOME", "C:\\Users\\Zoë\\home"),
        ],
    );
    let json = check_json(&host, &interop);
    let config = &json["windows"]["git_config"];
    assert_eq!(config["chosen_by"], "HOME", "{config}");
    assert_eq!(config["windows"], "C:\\Users\\Zoë\\home\\.gitconfig");
    assert!(
        config["path"]
            .as_str()
            .unwrap()
            .ends_with("/Users/Zoë/home/.gitconfig")
    );
}

#[test]
fn homedrive_and_homepath_come_before_the_profile_where_that_folder_exists() {
    let host = Windows::new(true);
    let share = host.drive.join("home-share/me");
    fs::create_dir_all(&share).unwrap();
    let vars = [
        ("USERPROFILE", "C:\\Users\\me"),
        ("HOMEDRIVE", "C:"),
        ("HOMEPATH", "\\home-share\\me"),
    ];
    let interop = fake_interop(&host.drive, &vars);
    let destination = host.destination();
    let out = host
        .with_interop(&interop)
        .args(["migrate", "--yes", "--format", "json"])
        .arg(&host.source)
        .arg("--to")
        .arg(&destination)
        .run();
    let json = out.ok_json();
    let done = &json["windows"]["safe_directory"];
    assert_eq!(
        done["git_config"]["chosen_by"], "HOMEDRIVE+HOMEPATH",
        "{json}"
    );
    assert_eq!(done["added"].as_array().unwrap().len(), 2, "{json}");
    assert!(
        fs::read_to_string(share.join(".gitconfig"))
            .unwrap()
            .contains("%(prefix)///wsl.localhost/Ubuntu")
    );
    assert_eq!(
        fs::read(host.gitconfig()).unwrap(),
        GITCONFIG,
        "not the profile's"
    );
    // Where that folder does not exist, git.exe takes USERPROFILE: so does the plan.
    let missing = [vars[0], vars[1], ("HOMEPATH", "\\nowhere")];
    let interop = fake_interop(&host.drive, &missing);
    let json = check_json(&host, &interop);
    assert_eq!(json["windows"]["git_config"]["chosen_by"], "USERPROFILE");
}

#[test]
fn a_home_on_a_share_wsl_cannot_reach_gets_the_commands_and_no_edit() {
    let host = Windows::new(true);
    let vars = [
        ("USERPROFILE", "C:\\Users\\me"),
        ("HOMEDRIVE", "\\\\server\\homes"),
        ("HOMEPATH", "\\me"),
    ];
    let interop = fake_interop(&host.drive, &vars);
    let migrate = |extra: &[&str]| {
        host.with_interop(&interop)
            .arg("migrate")
            .arg(&host.source)
            .arg("--to")
            .arg(host.destination())
            .args(extra)
            .run()
    };
    let plan = migrate(&["--dry-run", "--format", "json"]).ok_json();
    let offer = &plan["windows"]["safe_directory"];
    assert_eq!(offer["config"], serde_json::Value::Null, "{plan}");
    assert_eq!(
        offer["git_config"]["windows"],
        "\\\\server\\homes\\me\\.gitconfig"
    );
    assert_eq!(offer["commands"].as_array().unwrap().len(), 2);
    assert!(
        !plan["questions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|q| q["id"] == "safe_directory"),
        "{plan}"
    );
    let out = migrate(&["--yes"]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("which WSL cannot reach") && !stdout.contains("added to"),
        "{stdout}"
    );
    assert!(
        stdout.contains("git.exe config --global --add safe.directory"),
        "{stdout}"
    );
    assert_eq!(fs::read(host.gitconfig()).unwrap(), GITCONFIG);
}

#[test]
fn a_slow_cmd_exe_gives_one_clear_line_and_a_result() {
    let host = Windows::new(true);
    let answer = utf16(&set_output(&[("USERPROFILE", "C:\\Users\\me")]));
    let interop = fake_cmd(&host.drive, &answer, 30);
    let start = Instant::now();
    let out = host
        .with_interop(&interop)
        .args(["check", "--no-probe", "--verbose"])
        .arg(&host.source)
        .run();
    let took = start.elapsed();
    assert!(out.status.success(), "{}", text(&out));
    assert!(took < Duration::from_secs(10), "took {took:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("did not answer within 2 s"))
        .collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    assert!(
        lines[0].contains("the profile was taken from the users folder"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Git for Windows, GitHub Desktop"),
        "{stdout}"
    );
}

/// What asking Windows costs a `check` on the fixture host, fakes standing in for cmd.exe
/// and wslpath: the median of five runs, printed for the record and held under 100 ms.
#[test]
fn interop_costs_a_check_under_100_ms_with_fakes() {
    let host = Windows::new(true);
    let interop = fake_interop(&host.drive, &[("USERPROFILE", "C:\\Users\\me")]);
    let mut figures: Vec<f64> = (0..5)
        .map(|_| {
            check_json(&host, &interop)["windows"]["interop"]["ms"]
                .as_f64()
                .unwrap()
        })
        .collect();
    figures.sort_by(f64::total_cmp);
    let median = figures[2];
    println!("interop: cmd.exe answered a check in {median:.1} ms (median of 5: {figures:?})");
    assert!(median < 100.0, "{figures:?}");
}
