//! Verdicts, exit codes, policies, the advisory cache and the CI formats, through the binary.

use crate::support;
use crate::support::{Exit, Run};

use serde_json::Value;
use std::fs;
use std::path::Path;
use support::fakeproc::{FakeProc, PLAIN_VERSION, WSL2_VERSION, drive_tree, wsl_9p_mountinfo};

/// A repository on a fixture WSL drive over 9p: `move` by mount kind when there are no measurements.
fn on_9p() -> (tempfile::TempDir, FakeProc, std::path::PathBuf) {
    let (base, drive, project) = drive_tree();
    let proc = FakeProc::new(WSL2_VERSION, &wsl_9p_mountinfo(&drive), true);
    (base, proc, project)
}

fn on_local() -> (tempfile::TempDir, FakeProc, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let project = fs::canonicalize(dir.path()).unwrap();
    let proc = FakeProc::new(PLAIN_VERSION, "1 0 8:1 / / rw - ext4 /dev/sda rw\n", false);
    (dir, proc, project)
}

fn code(proc: &FakeProc, project: &Path, extra: &[&str]) -> Option<i32> {
    proc.command(Some("Ubuntu"))
        .args(["check", "--no-probe"])
        .args(extra)
        .arg(project)
        .run()
        .status
        .code()
}

/// Runs the binary on `project` with `args` before the path and returns standard output.
fn stdout_of(proc: &FakeProc, args: &[&str], project: &Path) -> String {
    let output = proc.command(Some("Ubuntu")).args(args).arg(project).run();
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn json_of(proc: &FakeProc, args: &[&str], project: &Path) -> Value {
    serde_json::from_str(&stdout_of(proc, args, project)).expect("JSON on standard output")
}

#[test]
fn exit_codes_follow_fail_on() {
    let (_b, proc, project) = on_9p();
    assert_eq!(code(&proc, &project, &[]), Some(0), "default never fails");
    assert_eq!(code(&proc, &project, &["--fail-on", "move"]), Some(1));
    assert_eq!(code(&proc, &project, &["--fail-on", "advise"]), Some(1));
    assert_eq!(code(&proc, &project, &["--fail-on", "never"]), Some(0));

    let (_d, local, project) = on_local();
    assert_eq!(code(&local, &project, &["--fail-on", "advise"]), Some(0));
}

#[test]
fn advise_is_below_move() {
    let (base, drive, project) = drive_tree();
    let mountinfo = format!(
        "1 0 8:1 / / rw - ext4 /dev/sda rw\n2 1 0:40 / {} rw - nfs4 fs:/export rw\n",
        support::fakeproc::escape(&drive)
    );
    let proc = FakeProc::new(PLAIN_VERSION, &mountinfo, false);
    assert_eq!(code(&proc, &project, &["--fail-on", "move"]), Some(0));
    assert_eq!(code(&proc, &project, &["--fail-on", "advise"]), Some(1));
    drop(base);
}

#[test]
fn verdict_and_reasons_in_json_and_human() {
    let (_b, proc, project) = on_9p();
    let json: Value = json_of(
        &proc,
        &["check", "--no-probe", "--format", "json"],
        &project,
    );
    assert_eq!(json["verdict"]["level"], "move");
    assert_eq!(json["verdict"]["reasons"][0]["rule"], "mount-kind");
    // The reason typed beside its sentence, for a script to branch on.
    let reason = &json["verdict"]["reasons"][0];
    assert_eq!(reason["message_kind"]["kind"], "on_mount", "{reason}");
    assert_eq!(
        reason["message_kind"]["mount_kind"], "wsl-drvfs-9p",
        "{reason}"
    );
    assert!(
        reason["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("the repository is on"),
        "{reason}"
    );
    let advice: Vec<&str> = json["verdict"]["advice"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    assert_eq!(advice, vec!["migrate", "virtiofs"]);
    assert_eq!(json["policy"]["kind"], "built-in");

    let out = proc
        .command(Some("Ubuntu"))
        .args(["check", "--no-probe"])
        .arg(&project)
        .run();
    out.ok()
        .stdout_has("virtiofs=true")
        .stdout_has("wsl-place migrate");
    assert!(
        out.stdout().lines().any(|line| line
            .strip_prefix("  verdict")
            .is_some_and(|rest| rest.starts_with(' ') && rest.trim_start().starts_with("move: "))),
        "{out}"
    );
}

#[test]
fn git_advice_is_given_only_where_it_applies() {
    let (_b, proc, project) = on_9p();
    let git = |args: &[&str]| {
        support::gitrepo::git(&project, args);
    };
    git(&["init", "-q"]);
    for i in 0..120 {
        fs::create_dir_all(project.join(format!("d{i}"))).unwrap();
    }
    let advice_ids = || -> Vec<String> {
        let output = proc
            .command(Some("Ubuntu"))
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .args(["check", "--no-probe", "--format", "json"])
            .arg(&project)
            .run();
        support::advice_ids(&serde_json::from_slice(&output.stdout).unwrap())
    };
    // 120 directories and no untracked cache: worth advising; fsmonitor never is on Linux.
    let before = advice_ids();
    assert!(
        before.contains(&"untracked-cache".to_string()),
        "{before:?}"
    );
    assert!(!before.iter().any(|id| id.contains("fsmonitor")));
    git(&["config", "core.preloadIndex", "false"]);
    let after = advice_ids();
    assert!(after.contains(&"preload-index".to_string()), "{after:?}");
    git(&["config", "core.preloadIndex", "true"]);
    git(&["config", "core.untrackedCache", "true"]);
    let set = advice_ids();
    assert!(!set.contains(&"preload-index".to_string()), "{set:?}");
    assert!(!set.contains(&"untracked-cache".to_string()), "{set:?}");
}

#[test]
fn malformed_policy_names_file_line_column_and_key() {
    let (_b, proc, project) = on_9p();
    let dir = tempfile::tempdir().unwrap();
    let policy = dir.path().join("team.toml");
    fs::write(
        &policy,
        "[thresholds]\nmove_speedup = 20\nadvise_git_statu_ms = 100\n",
    )
    .unwrap();
    // `check --policy FILE` refuses the file (exit 2) with a message holding every piece.
    let refused = |file: &Path, pieces: &[&str]| {
        let out = proc
            .command(Some("Ubuntu"))
            .args(["check", "--no-probe", "--policy"])
            .arg(file)
            .arg(&project)
            .run();
        let stderr = String::from_utf8_lossy(&out.stderr);
        out.fails(Exit::Input);
        for piece in pieces {
            assert!(stderr.contains(piece), "{piece:?} not in: {stderr}");
        }
    };
    refused(
        &policy,
        &[
            &format!("{}:3:1", policy.display()),
            "advise_git_statu_ms",
            "did you mean `advise_git_status_ms`?",
        ],
    );
    fs::write(&policy, "[thresholds]\nmove_speedup = \"high\"\n").unwrap();
    refused(
        &policy,
        &[
            ":2:16",
            "key `thresholds.move_speedup`",
            "must be a number, not a string",
        ],
    );
    fs::write(&policy, "[mounts\n").unwrap();
    refused(&policy, &[":1:"]);
    refused(&dir.path().join("missing.toml"), &["missing.toml"]);
}

/// A value of the wrong kind names its key and what it takes, in the policy file's words rather
/// than serde's ("invalid type: map, expected f64"); a control character in a path the policy
/// names is refused, shown escaped (issue 22 item 15).
#[test]
fn wrong_kinds_and_control_characters_are_refused_in_one_sentence() {
    let (_b, proc, project) = on_9p();
    let dir = tempfile::tempdir().unwrap();
    let policy = dir.path().join("team.toml");
    for (text, pieces) in [
        (
            "[[thresholds]]\nmove_speedup = 3\n",
            &[
                ":1:1: key `thresholds`",
                "must be a table, written `[thresholds]`, not an array of tables",
            ][..],
        ),
        // serde alone reads six numbers as the six thresholds in order.
        (
            "thresholds = [900, 30, 2000, 80, 30000, 120000]\n",
            &["key `thresholds`", "must be a table"][..],
        ),
        (
            "[git]\nfsmonitor_min_tracked = { a = 1 }\n",
            &[
                ":2:25: key `git.fsmonitor_min_tracked`",
                "must be a whole number, not a table",
            ][..],
        ),
        (
            "[migrate]\ndestination = \"a\\u0000b\"\n",
            &[":2:15: key `migrate.destination`", "\"a\\0b\"", "U+0000"][..],
        ),
        (
            "[paths]\nignore = [\"/ok\", \"/x\\u001b[7my\"]\n",
            &[":2:18: key `paths.ignore`", "U+001B", "`?`"][..],
        ),
    ] {
        fs::write(&policy, text).unwrap();
        let out = proc
            .command(Some("Ubuntu"))
            .args(["check", "--no-probe", "--policy"])
            .arg(&policy)
            .arg(&project)
            .run();
        let stderr = String::from_utf8_lossy(&out.stderr);
        out.fails(Exit::Input);
        let message = stderr.trim_end_matches('\n');
        assert!(support::is_one_sentence(message), "{text:?}: {stderr:?}");
        assert!(!stderr.contains("invalid type"), "{text:?}: {stderr}");
        assert!(
            !message.chars().any(char::is_control),
            "{text:?}: a raw control character in {stderr:?}"
        );
        for piece in pieces {
            assert!(stderr.contains(piece), "{piece:?} not in: {stderr}");
        }
    }
}

#[test]
fn repository_policy_is_used_and_can_ignore_paths() {
    let (_b, proc, project) = on_9p();
    fs::write(
        project.join(".wsl-place.toml"),
        format!("[paths]\nignore = [\"{}\"]\n", project.display()),
    )
    .unwrap();
    let output = proc
        .command(Some("Ubuntu"))
        .args([
            "check",
            "--no-probe",
            "--format",
            "json",
            "--fail-on",
            "advise",
        ])
        .arg(&project)
        .run();
    output.ok();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["policy"]["kind"], "repository");
    assert_eq!(json["verdict"]["level"], "ok");
    assert_eq!(json["verdict"]["reasons"][0]["rule"], "ignored");
    assert_eq!(
        json["verdict"]["reasons"][0]["message_kind"]["kind"],
        "ignored"
    );
}

#[test]
fn shipped_example_policies_load() {
    let (_b, proc, project) = on_9p();
    for name in ["default", "strict", "ci"] {
        proc.command(Some("Ubuntu"))
            .arg("check")
            .arg("--policy")
            .arg(format!("policies/{name}.toml"))
            .args(["--no-probe", "--fail-on", "move"])
            .arg(&project)
            .run()
            .fails(Exit::Verdict);
    }
}

#[test]
fn advisory_reuses_the_cache_and_is_quiet_when_ok() {
    let (_b, proc, project) = on_9p();
    let first = proc
        .command(Some("Ubuntu"))
        .args(["check", "--advisory"])
        .arg(&project)
        .run();
    first.ok(); // advisory never fails by default
    let line = String::from_utf8_lossy(&first.stdout).to_string();
    assert_eq!(line.lines().count(), 1, "{line}");
    // Measured: the fixture "drive" is really a fast local directory, so the mount kind alone
    // earns a nudge, not `move`.
    assert!(
        line.starts_with("wsl-place: advise (first look: "),
        "{line}"
    );

    // Prove the second run reads the cache: mark the cached line and see the mark come back.
    let advisory_dir = proc.cache_dir().join("wsl-place/advisory");
    let files: Vec<_> = fs::read_dir(&advisory_dir).unwrap().collect();
    assert_eq!(files.len(), 1);
    let cache_file = files[0].as_ref().unwrap().path();
    let mut entry: Value = serde_json::from_slice(&fs::read(&cache_file).unwrap()).unwrap();
    entry["line"] = Value::String("wsl-place: advise: CACHED".into());
    fs::write(&cache_file, serde_json::to_vec(&entry).unwrap()).unwrap();

    let second = proc
        .command(Some("Ubuntu"))
        .args(["check", "--advisory", "--fail-on", "advise"])
        .arg(&project)
        .run();
    assert_eq!(
        String::from_utf8_lossy(&second.stdout),
        "wsl-place: advise: CACHED\n"
    );
    // The cold run's answer was a short measurement: provisional, yet its whole range is
    // `advise` (the mount's kind alone says so), so it blocks under `--fail-on advise`.
    assert_eq!(entry["provisional"], Value::Bool(true));
    assert_eq!(entry["levels"], serde_json::json!(["advise", "advise"]));
    second.fails(Exit::Verdict); // a provisional answer whose range is clear of the threshold blocks
    // One whose range reaches below the threshold does not block, and its line says why.
    entry["levels"] = serde_json::json!(["ok", "advise"]);
    fs::write(&cache_file, serde_json::to_vec(&entry).unwrap()).unwrap();
    let straddling = proc
        .command(Some("Ubuntu"))
        .args(["check", "--advisory", "--fail-on", "advise"])
        .arg(&project)
        .run();
    straddling.ok();
    let shown = String::from_utf8_lossy(&straddling.stdout);
    assert!(
        shown.starts_with("wsl-place: advise (did not block: ") && shown.contains("down to ok"),
        "{shown}"
    );
    // What a full check leaves behind is not provisional, and --fail-on applies to it.
    entry["provisional"] = Value::Bool(false);
    fs::write(&cache_file, serde_json::to_vec(&entry).unwrap()).unwrap();
    let fourth = proc
        .command(Some("Ubuntu"))
        .args(["check", "--advisory", "--fail-on", "advise"])
        .arg(&project)
        .run();
    fourth.fails(Exit::Verdict); // --fail-on still applies

    // An expired entry is measured again.
    entry["created_unix"] = Value::from(0);
    fs::write(&cache_file, serde_json::to_vec(&entry).unwrap()).unwrap();
    let third = proc
        .command(Some("Ubuntu"))
        .args(["check", "--advisory"])
        .arg(&project)
        .run();
    assert!(!String::from_utf8_lossy(&third.stdout).contains("CACHED"));

    // An ok repository prints nothing at all.
    let (_d, local, project) = on_local();
    let quiet = local
        .command(None)
        .args(["check", "--advisory"])
        .arg(&project)
        .run();
    assert!(quiet.ok().stdout().is_empty(), "{quiet}");
}

#[test]
fn github_format_emits_annotations() {
    let (_b, proc, project) = on_9p();
    let text = stdout_of(
        &proc,
        &["check", "--format", "github", "--no-probe"],
        &project,
    );
    assert!(text.lines().all(|l| l.starts_with("::")), "{text}");
    assert!(
        text.contains("::warning title=wsl-place%3A move::"),
        "{text}"
    );
    assert!(text.contains("9p"), "{text}");

    let (_d, local, project) = on_local();
    let text = stdout_of(
        &local,
        &["check", "--format", "github", "--no-probe"],
        &project,
    );
    assert!(
        text.starts_with("::notice title=wsl-place%3A ok::"),
        "{text}"
    );
    assert!(!text.contains("::warning"), "{text}");
}

#[test]
fn markdown_format_writes_a_summary_table() {
    let (_b, proc, project) = on_9p();
    let out = proc
        .command(Some("Ubuntu"))
        .args(["check", "--format", "markdown", "--no-probe"])
        .arg(&project)
        .run();
    out.ok()
        .stdout_has("|---|---|")
        .stdout_has("| mount | wsl-drvfs-9p")
        .stdout_has("| windows path | `C:\\Users\\me\\app` |")
        .stdout_has("**What to do**");
    assert!(out.stdout().starts_with("### wsl-place:"), "{out}");
}

#[test]
fn unwritable_output_is_an_internal_error() {
    let (_d, local, project) = on_local();
    let full = fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let output = support::wsl_place()
        .env("WSL_PLACE_PROC_ROOT", local.dir.path())
        .env("XDG_CACHE_HOME", local.cache_dir())
        .args(["check", "--no-probe"])
        .arg(&project)
        .stdout(full)
        .run();
    output.fails(Exit::Internal);
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot write to standard output"));
}
