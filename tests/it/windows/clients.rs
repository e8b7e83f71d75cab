//! Every Windows git that reads Windows' global git config gets the copy's `safe.directory`
//! entries offered, alone as much as beside Git for Windows: Fork (its own git under
//! `%LOCALAPPDATA%\Fork\gitInstance`), GitHub Desktop; none where `safe.directory = *` is
//! already there; and the line-ending warning where that file sets `core.autocrlf=true`.

use super::{Windows, ids};
use crate::support::text;
use std::fs;

fn dry_plan(host: &Windows) -> serde_json::Value {
    host.migrate(&["--dry-run", "--format", "json"]).ok_json()
}

fn question(plan: &serde_json::Value) -> Option<String> {
    plan["questions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["id"] == "safe_directory")
        .map(|q| q["text"].as_str().unwrap().to_string())
}

#[test]
fn fork_alone_is_offered_the_entries_and_gets_them() {
    let host = Windows::bare(false);
    let fork = host
        .profile
        .join("AppData/Local/Fork/gitInstance/2.45.1/cmd");
    fs::create_dir_all(&fork).unwrap();
    fs::write(fork.join("git.exe"), b"MZ").unwrap();
    let plan = dry_plan(&host);
    let offer = &plan["windows"]["safe_directory"];
    assert_eq!(offer["clients"], serde_json::json!(["fork"]), "{plan}");
    assert_eq!(offer["missing"], serde_json::json!(host.entries()));
    assert_eq!(offer["git_config"]["chosen_by"], "profile");
    let asked = question(&plan).unwrap_or_else(|| panic!("no question in {plan}"));
    assert!(asked.ends_with("so Fork opens it?"), "{asked}");
    let out = host.migrate(&["--yes"]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("Fork: it runs Git for Windows (its own copy)"),
        "{stdout}"
    );
    assert_eq!(fs::read(host.gitconfig()).unwrap(), host.with_entries());
}

#[test]
fn github_desktop_alone_is_offered_the_entries_and_gets_them() {
    let host = Windows::bare(false);
    fs::create_dir_all(host.profile.join("AppData/Local/GitHubDesktop")).unwrap();
    let plan = dry_plan(&host);
    assert_eq!(ids(&plan["windows"]["tools"]), ["github-desktop"]);
    let offer = &plan["windows"]["safe_directory"];
    assert_eq!(
        offer["clients"],
        serde_json::json!(["github-desktop"]),
        "{plan}"
    );
    assert!(
        question(&plan)
            .unwrap()
            .ends_with("so GitHub Desktop opens it?")
    );
    let out = host.migrate(&["--yes", "--format", "json"]);
    let json = out.ok_json();
    let done = &json["windows"]["safe_directory"];
    assert_eq!(done["added"], serde_json::json!(host.entries()), "{json}");
    assert_eq!(fs::read(host.gitconfig()).unwrap(), host.with_entries());
}

#[test]
fn safe_directory_star_already_there_gets_nothing_added_or_asked() {
    let host = Windows::new(false);
    let trusting = b"[user]\r\n\tname = Me\r\n[safe]\r\n\tdirectory = *\r\n";
    fs::write(host.gitconfig(), trusting).unwrap();
    let plan = dry_plan(&host);
    let offer = &plan["windows"]["safe_directory"];
    assert_eq!(offer["trusts_all"], true, "{plan}");
    assert_eq!(offer["missing"], serde_json::json!([]));
    assert_eq!(offer["commands"], serde_json::json!([]));
    assert_eq!(question(&plan), None);
    let out = host.migrate(&["--yes"]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("trusts every folder (safe.directory = *): nothing to add"),
        "{stdout}"
    );
    assert_eq!(fs::read(host.gitconfig()).unwrap(), trusting);
}

#[test]
fn autocrlf_true_in_windows_config_warns_with_the_fix_unless_the_repository_says() {
    let host = Windows::new(false);
    // GITCONFIG sets core.autocrlf = true, as Git for Windows' installer does.
    let plan = dry_plan(&host);
    let warning = &plan["windows"]["line_endings"];
    assert_eq!(
        warning["fix"][0], "git config core.autocrlf input",
        "{plan}"
    );
    let out = host.migrate(&["--dry-run"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("sets core.autocrlf=true") && stdout.contains("* text=auto eol=lf"),
        "{stdout}"
    );
    fs::write(host.source.join(".gitattributes"), "* text=auto eol=lf\n").unwrap();
    assert_eq!(
        dry_plan(&host)["windows"]["line_endings"],
        serde_json::Value::Null
    );
}
