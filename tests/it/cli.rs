//! The binary against fixture host facts whose mount points are real temporary directories.

use crate::support;
use std::process::Command;
use support::{CHECK_JSON, Exit, Run};

use serde_json::Value;
use std::fs;
use std::path::Path;
use support::fakeproc::{
    FakeProc, PLAIN_VERSION, WSL2_VERSION, drive_tree, escape, wsl_9p_mountinfo,
};

#[test]
fn drive_mount_over_9p_gives_windows_path_from_path_option() {
    let (_base, drive, project) = drive_tree();
    let proc = FakeProc::new(WSL2_VERSION, &wsl_9p_mountinfo(&drive), true);
    let json = proc
        .command(Some("Ubuntu-24.04"))
        .args(CHECK_JSON)
        .arg(&project)
        .run()
        .ok_json();
    assert_eq!(json["host"]["wsl"], true);
    assert_eq!(json["host"]["wsl_version"], 2);
    assert_eq!(json["host"]["distro"], "Ubuntu-24.04");
    assert_eq!(json["mount"]["kind"], "wsl-drvfs-9p");
    assert_eq!(json["mount"]["fstype"], "9p");
    assert_eq!(json["mount"]["source"], "C:\\");
    assert_eq!(json["mount"]["mount_point"], drive.to_str().unwrap());
    assert_eq!(json["paths"]["linux"], project.to_str().unwrap());
    assert_eq!(json["paths"]["windows"], "C:\\Users\\me\\app");
    assert_eq!(json["paths"]["windows_legacy"], Value::Null);
}

#[test]
fn linux_path_on_wsl_gives_both_unc_forms() {
    let (_base, drive, _project) = drive_tree();
    let home = tempfile::tempdir().unwrap();
    let home_path = fs::canonicalize(home.path()).unwrap();
    let proc = FakeProc::new(WSL2_VERSION, &wsl_9p_mountinfo(&drive), true);
    let json = proc
        .command(Some("Ubuntu"))
        .args(CHECK_JSON)
        .arg(&home_path)
        .run()
        .ok_json();
    assert_eq!(json["mount"]["kind"], "local");
    let tail = home_path.to_str().unwrap().replace('/', "\\");
    assert_eq!(
        json["paths"]["windows"],
        format!("\\\\wsl.localhost\\Ubuntu{tail}")
    );
    assert_eq!(
        json["paths"]["windows_legacy"],
        format!("\\\\wsl$\\Ubuntu{tail}")
    );
}

#[test]
fn virtiofs_drive_mount() {
    let (_base, drive, project) = drive_tree();
    let mountinfo = format!(
        "61 66 8:48 / / rw,relatime - ext4 /dev/sdd rw\n66 61 0:63 / {} rw,noatime - virtiofs drvfsa rw\n",
        escape(&drive)
    );
    let proc = FakeProc::new(WSL2_VERSION, &mountinfo, true);
    let json = proc
        .command(Some("Debian"))
        .args(CHECK_JSON)
        .arg(&project)
        .run()
        .ok_json();
    assert_eq!(json["mount"]["kind"], "wsl-drvfs-virtiofs");
    assert_eq!(json["mount"]["source"], "drvfsa");
}

#[test]
fn plain_linux_with_sshfs_and_a_bind_mount() {
    let base = tempfile::tempdir().unwrap();
    let remote = base.path().join("remote");
    let bind = base.path().join("bind with space");
    let inner = bind.join("nested");
    fs::create_dir_all(remote.join("repo")).unwrap();
    fs::create_dir_all(inner.join("repo")).unwrap();
    let remote = fs::canonicalize(remote).unwrap();
    let bind = fs::canonicalize(bind).unwrap();
    let inner = fs::canonicalize(inner).unwrap();
    let mountinfo = format!(
        "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n\
         29 27 0:45 / {} rw,nosuid,nodev,relatime - fuse.sshfs dev@build:/srv rw,user_id=1000,group_id=1000\n\
         31 27 0:47 /projects {} rw,relatime - ext4 /dev/vda rw,discard\n\
         32 31 0:48 / {} rw,relatime shared:5 - nfs4 fs1:/export rw,vers=4.2\n",
        escape(&remote),
        escape(&bind),
        escape(&inner)
    );
    let proc = FakeProc::new(PLAIN_VERSION, &mountinfo, false);

    let json = proc
        .command(None)
        .args(CHECK_JSON)
        .arg(remote.join("repo"))
        .run()
        .ok_json();
    assert_eq!(json["host"]["wsl"], false);
    assert_eq!(json["host"]["distro"], Value::Null);
    assert_eq!(json["mount"]["kind"], "network");
    assert_eq!(json["mount"]["fstype"], "fuse.sshfs");
    assert_eq!(json["paths"]["windows"], Value::Null);

    let json = proc
        .command(None)
        .args(CHECK_JSON)
        .arg(&bind)
        .run()
        .ok_json();
    assert_eq!(json["mount"]["kind"], "local");
    assert_eq!(json["mount"]["root"], "/projects");
    assert_eq!(json["mount"]["mount_point"], bind.to_str().unwrap());

    // The deepest mount point wins over the bind mount that contains it.
    let json = proc
        .command(None)
        .args(CHECK_JSON)
        .arg(inner.join("repo"))
        .run()
        .ok_json();
    assert_eq!(json["mount"]["kind"], "network");
    assert_eq!(json["mount"]["fstype"], "nfs4");
}

#[test]
fn container_inside_wsl_is_not_reported_as_wsl() {
    let dir = tempfile::tempdir().unwrap();
    let proc = FakeProc::new(
        WSL2_VERSION,
        "1 0 0:30 / / rw - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w\n",
        false,
    );
    let json = proc
        .command(None)
        .args(CHECK_JSON)
        .arg(dir.path())
        .run()
        .ok_json();
    assert_eq!(json["host"]["wsl"], false);
    assert_eq!(json["mount"]["kind"], "overlay");
    assert_eq!(json["paths"]["windows"], Value::Null);
}

#[test]
fn shipped_fixtures_parse_through_the_binary() {
    // A directory under /tmp, so each fixture decides the mount: its own /tmp line, or `/`.
    for (name, wsl, mount_point, fstype, kind) in [
        ("wsl-9p-drvfs.mountinfo", true, "/tmp", "tmpfs", "tmpfs"),
        ("wsl-virtiofs.mountinfo", true, "/", "ext4", "local"),
        ("linux-plain.mountinfo", false, "/tmp", "tmpfs", "tmpfs"),
    ] {
        let text = fs::read_to_string(Path::new("tests/fixtures/mountinfo").join(name)).unwrap();
        let proc = FakeProc::new(if wsl { WSL2_VERSION } else { PLAIN_VERSION }, &text, wsl);
        let dir = tempfile::tempdir_in("/tmp").unwrap();
        let json = proc
            .command(wsl.then_some("Ubuntu"))
            .args(CHECK_JSON)
            .arg(dir.path())
            .run()
            .ok_json();
        assert_eq!(json["host"]["wsl"], wsl, "{name}");
        assert_eq!(json["mount"]["mount_point"], mount_point, "{name}");
        assert_eq!(json["mount"]["fstype"], fstype, "{name}");
        assert_eq!(json["mount"]["kind"], kind, "{name}");
    }
}

#[test]
fn human_report_is_not_json() {
    let (_base, drive, project) = drive_tree();
    let proc = FakeProc::new(WSL2_VERSION, &wsl_9p_mountinfo(&drive), true);
    let out = proc
        .command(Some("Ubuntu"))
        .args(["check", "--no-probe", "--verbose"])
        .arg(&project)
        .run();
    out.ok()
        .stdout_has("over 9p (DrvFs)")
        .stdout_has("C:\\Users\\me\\app")
        .stdout_has("WSL 2, distro Ubuntu");
    assert!(!out.stdout().starts_with('{'), "{out}");
    assert!(!out.stdout().contains("\u{1b}["), "{out}");
}

#[test]
fn malformed_mountinfo_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let proc = FakeProc::new(
        PLAIN_VERSION,
        "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n28 27 garbage\n",
        false,
    );
    let mountinfo = proc.dir.path().join("self/mountinfo");
    let out = proc
        .command(None)
        .args(["check", "--no-probe"])
        .arg(dir.path())
        .run();
    out.fails(Exit::Input)
        .stderr_has(mountinfo.to_str().unwrap())
        .stderr_has("line 2");
    assert!(!out.stderr().contains("panicked"), "{out}");
}

#[test]
fn missing_mountinfo_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let proc = FakeProc::new(PLAIN_VERSION, "", false);
    fs::remove_file(proc.dir.path().join("self/mountinfo")).unwrap();
    proc.command(None)
        .args(["check", "--no-probe"])
        .arg(dir.path())
        .run()
        .fails(Exit::Input)
        .stderr_has("self/mountinfo");
}

#[test]
fn bad_paths_exit_2_with_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file.txt");
    fs::write(&file, "x").unwrap();
    let missing = dir.path().join("does-not-exist");
    for (path, expected) in [(&missing, "does not exist"), (&file, "is not a directory")] {
        let output = support::wsl_place()
            .args(["check", "--no-probe"])
            .arg(path)
            .run();
        output.fails(Exit::Input);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{stderr}");
        assert!(stderr.contains(path.to_str().unwrap()), "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    }
}

#[test]
fn unknown_flag_is_a_usage_error() {
    support::wsl_place()
        .args(["check", "--no-such-flag"])
        .run()
        .fails(Exit::Input);
}

/// One format enum for every command: `probe` and `migrate` speak GitHub Actions too, one
/// annotation per line and nothing else on standard output.
#[test]
fn probe_and_migrate_print_github_annotations() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("app");
    fs::create_dir_all(&source).unwrap();
    fs::write(source.join("marker"), "x").unwrap();
    let expected = [
        ("probe", "::notice title=wsl-place probe%3A "),
        ("migrate", "::notice title=wsl-place migrate%3A plan::"),
    ];
    for (command, start) in expected {
        let mut args = vec![command, "--format", "github"];
        if command == "migrate" {
            args.push("--dry-run");
        }
        let output = support::Sandbox::at(dir.path())
            .cmd()
            .args(&args)
            .arg(&source)
            .run();
        output.ok();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(stdout.starts_with(start), "{command}: {stdout}");
        assert!(
            stdout.lines().all(|l| l.starts_with("::")),
            "{command}: not only annotations: {stdout}"
        );
    }
    // --dry-run copied nothing.
    assert!(!dir.path().join("src").exists());
}

#[test]
fn probe_and_migrate_print_real_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("app");
    fs::create_dir_all(source.join("src")).unwrap();
    fs::write(source.join("src/main.rs"), "fn main() {}\n").unwrap();
    let probe = support::wsl_place()
        .args(["probe", "--format", "markdown", "--probe-budget-ms", "200"])
        .arg(&source)
        .run();
    probe.ok();
    let text = String::from_utf8_lossy(&probe.stdout);
    assert!(text.starts_with("### wsl-place probe:"), "{text}");
    assert!(text.contains("| lstat |"), "{text}");
    let plan = support::wsl_place()
        .args(["migrate", "--format", "markdown", "--dry-run", "--to"])
        .arg(dir.path().join("moved"))
        .arg(&source)
        .run();
    plan.ok();
    let text = String::from_utf8_lossy(&plan.stdout);
    assert!(text.starts_with("### wsl-place: migration plan"), "{text}");
    assert!(
        text.contains("| content | 1 file, 1 directory, 0 symlinks"),
        "{text}"
    );
}

#[test]
fn completions_are_generated() {
    support::wsl_place()
        .args(["completions", "bash"])
        .run()
        .ok()
        .stdout_has("wsl-place")
        .stdout_has("--format");
}

#[test]
#[ignore = "needs root (runs the check as nobody through setpriv)"]
fn unreadable_directory_exits_2() {
    // Root reads everything, so the check runs as `nobody` through setpriv.
    if !support::require_root("running the check as nobody through setpriv") {
        return;
    }
    let setpriv = Path::new("/usr/bin/setpriv");
    if !setpriv.exists() {
        support::skip("/usr/bin/setpriv (util-linux) is missing");
        return;
    }
    let base = tempfile::tempdir().unwrap();
    fs::set_permissions(
        base.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let locked = base.path().join("locked");
    fs::create_dir(&locked).unwrap();
    fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    let binary = support::binary_path();
    let output = support::Sandbox::shared()
        .program(setpriv)
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&binary)
        .args(["check", "--no-probe"])
        .arg(&locked)
        .run();
    let stderr = String::from_utf8_lossy(&output.stderr);
    output.fails(Exit::Input);
    assert!(stderr.contains("cannot read the directory"), "{stderr}");
    assert!(stderr.contains(locked.to_str().unwrap()), "{stderr}");
}

/// The skip policy itself, run as a non-root user: a plain run lists the root-only test above
/// as ignored; asked for (`--include-ignored`) it skips with a printed reason, and under
/// WSL_PLACE_REQUIRE_FUSE=1 (CI) it fails instead.
#[test]
fn root_only_test_fails_instead_of_skipping_when_required() {
    let test_binary = std::env::current_exe().expect("current_exe");
    let as_non_root = |include_ignored: bool, require: bool| {
        let mut cmd = if support::is_root() {
            let mut cmd = std::process::Command::new("setpriv");
            cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
                .arg(&test_binary);
            cmd
        } else {
            std::process::Command::new(&test_binary)
        };
        cmd.args([
            "--exact",
            "cli::unreadable_directory_exits_2",
            "--test-threads=1",
        ]);
        if include_ignored {
            cmd.arg("--include-ignored");
        }
        if require {
            cmd.env(support::REQUIRE_ENV, "1");
        } else {
            cmd.env_remove(support::REQUIRE_ENV);
        }
        cmd.run()
    };

    let plain = as_non_root(false, true);
    let stdout = String::from_utf8_lossy(&plain.stdout);
    assert!(plain.status.success(), "{stdout}");
    assert!(
        stdout.contains("0 passed") && stdout.contains("1 ignored"),
        "{stdout}"
    );

    let skipped = as_non_root(true, false);
    let stderr = String::from_utf8_lossy(&skipped.stderr);
    assert!(skipped.status.success(), "{stderr}");
    assert!(
        stderr.contains("SKIP: ") && stderr.contains("setpriv needs root"),
        "{stderr}"
    );

    let required = as_non_root(true, true);
    let stdout = String::from_utf8_lossy(&required.stdout);
    assert!(!required.status.success(), "{stdout}");
    assert!(
        stdout.contains("1 failed") && stdout.contains("needs root"),
        "{stdout}"
    );
}

/// Where root and FUSE are available (CI), a test that asks for them without its
/// `#[ignore = "needs ..."]` mark fails, so the mark cannot be forgotten. libtest names each
/// test's thread after the test; the two threads here carry the names of a marked and an
/// unmarked test.
#[test]
fn asking_for_root_or_fuse_from_an_unmarked_test_fails_it() {
    let as_test = |name: &str| {
        std::thread::Builder::new()
            .name(name.to_string())
            .spawn(|| support::assert_marked_ignored("root"))
            .expect("spawn a thread")
            .join()
    };
    assert!(as_test("cli::unreadable_directory_exits_2").is_ok());
    let unmarked = as_test("cli::asking_for_root_or_fuse_from_an_unmarked_test_fails_it")
        .expect_err("an unmarked test that asks for root fails");
    let message = unmarked
        .downcast_ref::<String>()
        .expect("a formatted panic message");
    assert!(message.contains("is not marked #[ignore"), "{message}");
}

/// The fields docs/json.md lists for one document (`## NAME`): each field's path, and whether
/// the table marks it as left out when it does not apply ("absent").
fn documented_fields(document: &str) -> Vec<(String, bool)> {
    let doc = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/json.md"))
        .expect("docs/json.md");
    let section = doc
        .split("\n## ")
        .find(|s| s.starts_with(&format!("{document}\n")))
        .unwrap_or_else(|| panic!("docs/json.md has no section `## {document}`"));
    let mut fields = Vec::new();
    for row in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.split(" | ").collect();
        let absent = cells.get(1).is_some_and(|c| c.contains("absent"));
        for name in cells[0].split('`').skip(1).step_by(2) {
            fields.push((name.replace("[]", ""), absent));
        }
    }
    fields
}

/// Every top-level key of `emitted` is documented and every documented key is emitted (unless
/// marked absent); for a top-level object whose keys the table lists one by one, the same.
fn assert_documented(document: &str, output: &support::Outcome) {
    let emitted = output.ok_json();
    let fields = documented_fields(document);
    let object = emitted.as_object().expect("a JSON object");
    assert!(
        output.stdout.starts_with(b"{\n  \"schema\": "),
        "{document}: schema is not the first key"
    );
    assert!(object["schema"].is_u64(), "{document}: schema is no number");
    let top = |name: &str| name.split('.').next().unwrap().to_string();
    for key in object.keys() {
        assert!(
            fields.iter().any(|(f, _)| top(f) == *key),
            "{document}: key `{key}` is emitted but not in docs/json.md"
        );
    }
    for (field, absent) in &fields {
        let mut value = Some(&emitted);
        for part in field.split('.') {
            value = value.and_then(|v| v.get(part));
        }
        assert!(
            value.is_some() || *absent,
            "{document}: `{field}` is in docs/json.md but not emitted"
        );
    }
    for (key, value) in object {
        let Some(inner) = value.as_object() else {
            continue;
        };
        let listed: Vec<&str> = fields
            .iter()
            .filter_map(|(f, _)| f.strip_prefix(&format!("{key}.")))
            .map(|rest| rest.split('.').next().unwrap())
            .collect();
        if listed.is_empty() {
            continue;
        }
        for inner_key in inner.keys() {
            assert!(
                listed.contains(&inner_key.as_str()),
                "{document}: key `{key}.{inner_key}` is emitted but not in docs/json.md"
            );
        }
    }
}

#[test]
fn json_documents_have_the_documented_keys() {
    let base = tempfile::tempdir().unwrap();
    let home = base.path().join("home");
    fs::create_dir(&home).unwrap();
    let repo = base.path().join("repos/app");
    support::gitrepo::repo_with_files(&repo, 5);
    let run = |args: &[&str]| support::Sandbox::at(&home).cmd().args(args).run();
    let repo_arg = repo.to_str().unwrap();
    let dest = base.path().join("moved");
    let dest_arg = dest.to_str().unwrap();
    let repos = base.path().join("repos");
    let cases: [(&str, Vec<&str>); 6] = [
        ("check", vec!["check", "--format", "json", repo_arg]),
        (
            "survey",
            vec!["survey", "--format", "json", repos.to_str().unwrap()],
        ),
        ("probe", vec!["probe", "--format", "json", repo_arg]),
        (
            "migrate plan",
            vec![
                "migrate",
                "--dry-run",
                "--format",
                "json",
                "--to",
                dest_arg,
                repo_arg,
            ],
        ),
        (
            "advisory entry",
            vec!["check", "--advisory", "--format", "json", repo_arg],
        ),
        (
            "migrate result",
            vec![
                "migrate", "--yes", "--format", "json", "--to", dest_arg, repo_arg,
            ],
        ),
    ];
    for (document, args) in cases {
        assert_documented(document, &run(&args));
    }
    // At the old place after the move: `moved` and its keys, and nothing probed.
    let old_place = run(&["check", "--format", "json", repo_arg]).ok_json();
    assert_eq!(old_place["moved"]["destination"], dest_arg, "{old_place}");
    assert!(old_place["probe"].is_null(), "{old_place}");
    let fields = documented_fields("check");
    for key in old_place["moved"].as_object().unwrap().keys() {
        let field = format!("moved.{key}");
        assert!(
            fields.iter().any(|(f, _)| *f == field),
            "check: `{field}` is emitted but not in docs/json.md"
        );
    }
    for (field, _) in fields.iter().filter(|(f, _)| f.starts_with("moved.")) {
        let key = field.trim_start_matches("moved.");
        assert!(
            old_place["moved"].get(key).is_some()
                || ["copy_missing", "other_copies", "unfinished"].contains(&key),
            "check: `{field}` is in docs/json.md but not emitted"
        );
    }
}

/// `wsl-place ARGS` in a sandbox at `home`, and no colour setting inherited.
fn isolated(home: &Path) -> Command {
    let mut cmd = support::Sandbox::at(home).cmd();
    cmd.env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE");
    cmd
}

#[test]
fn quiet_before_or_after_the_command_and_the_last_colour_flag_wins() {
    let base = tempfile::tempdir().unwrap();
    let repo = base.path().join("repo");
    support::gitrepo::repo_with_files(&repo, 3);
    for args in [
        &["-q", "check"][..],
        &["check", "-q"],
        &["--quiet", "check"],
    ] {
        let output = isolated(base.path())
            .args(args)
            .args(["--no-probe"])
            .arg(&repo)
            .run();
        assert!(
            output.status.success(),
            "{args:?}: {}",
            support::text(&output)
        );
        assert!(
            output.stdout.is_empty(),
            "{args:?}: {}",
            support::text(&output)
        );
    }
    let coloured = |flags: &[&str]| {
        let output = isolated(base.path())
            .args(flags)
            .args(["check", "--no-probe"])
            .arg(&repo)
            .run();
        assert!(output.status.success(), "{}", support::text(&output));
        output.stdout.contains(&0x1b)
    };
    assert!(coloured(&["--no-color", "--color", "always"]));
    assert!(!coloured(&["--color", "always", "--no-color"]));
}

#[test]
fn usage_errors_and_failures_share_one_style() {
    let base = tempfile::tempdir().unwrap();
    for args in [
        &["chek"][..],
        &["check", "--bogus"],
        &["check", "/no/such/place"],
    ] {
        let output = isolated(base.path()).args(args).run();
        output.fails(Exit::Input);
        let stderr = support::stderr(&output);
        assert!(stderr.starts_with("wsl-place: "), "{args:?}: {stderr}");
        assert!(!stderr.contains("error:"), "{args:?}: {stderr}");
    }
}

#[test]
fn config_file_and_variable_give_the_default_policy_and_destination() {
    let base = tempfile::tempdir().unwrap();
    let repo = base.path().join("repo");
    support::gitrepo::repo_with_files(&repo, 3);
    let config = base.path().join("config");
    fs::create_dir_all(config.join("wsl-place")).unwrap();
    fs::write(config.join("wsl-place/team.toml"), "[migrate]\n").unwrap();
    fs::write(config.join("strict.toml"), "[migrate]\n").unwrap();
    fs::write(
        config.join("wsl-place/config.toml"),
        "policy = \"team.toml\"\ndestination = \"~/work\"\n",
    )
    .unwrap();
    let policy_path = |command: &mut Command| {
        let json = command
            .env("XDG_CONFIG_HOME", &config)
            .args(CHECK_JSON)
            .arg(&repo)
            .run()
            .ok_json();
        json["policy"]["path"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let team = config.join("wsl-place/team.toml");
    assert_eq!(
        policy_path(&mut isolated(base.path())),
        team.to_str().unwrap()
    );
    let strict = config.join("strict.toml");
    assert_eq!(
        policy_path(isolated(base.path()).env("WSL_PLACE_POLICY", &strict)),
        strict.to_str().unwrap()
    );
    let plan = isolated(base.path())
        .env("XDG_CONFIG_HOME", &config)
        .args(["migrate", "--dry-run", "--format", "json"])
        .arg(&repo)
        .run();
    let plan = plan.ok_json();
    assert_eq!(
        plan["destination"],
        base.path().join("work/repo").to_str().unwrap()
    );

    fs::write(config.join("wsl-place/config.toml"), "polcy = 1\n").unwrap();
    let bad = isolated(base.path())
        .env("XDG_CONFIG_HOME", &config)
        .args(["check", "--no-probe"])
        .arg(&repo)
        .run();
    bad.fails(Exit::Input);
    let stderr = support::stderr(&bad);
    assert!(
        stderr.contains("config.toml is not a valid config file"),
        "{stderr}"
    );
    assert!(
        support::is_one_sentence(stderr.trim_start_matches("wsl-place: ").trim_end()),
        "{stderr}"
    );
}

/// Issue 26: on a repository that is fine where it is, what a move would change is noise: no
/// bar chart and no "after a move" row.
#[test]
fn an_ok_repository_gets_no_move_rows() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    support::gitrepo::repo_with_files(&repo, 5);
    let output = support::Sandbox::at(dir.path())
        .cmd()
        .args(["--color", "never", "check"])
        .arg(&repo)
        .run();
    let text = String::from_utf8_lossy(&output.stdout);
    output.ok();
    assert!(text.contains("verdict          ok"), "{text}");
    assert!(!text.contains("after a move"), "{text}");
    assert!(!text.contains('█'), "{text}");
}

/// A dry run ends saying nothing was changed (and nothing was); the markdown report renders the
/// tool's own code spans as code, never as escaped backticks.
#[test]
fn a_dry_run_says_so_last_and_markdown_keeps_its_code_spans() {
    let base = tempfile::tempdir().unwrap();
    let home = base.path().join("home");
    fs::create_dir(&home).unwrap();
    let repo = base.path().join("app");
    support::gitrepo::repo_with_files(&repo, 3);
    let dest = base.path().join("moved");
    let out = support::Sandbox::at(&home)
        .cmd()
        .env("NO_COLOR", "1")
        .args(["migrate", "--dry-run", "--to"])
        .arg(&dest)
        .arg(&repo)
        .run();
    out.ok();
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        said.trim_end().lines().last(),
        Some("Dry run: nothing was copied or changed."),
        "{said}"
    );
    assert!(!dest.exists());
    let out = support::Sandbox::at(&home)
        .cmd()
        .args(["check", "--no-probe", "--format", "markdown"])
        .arg(base.path())
        .run();
    let markdown = String::from_utf8_lossy(&out.stdout);
    assert!(markdown.contains("`wsl-place survey`"), "{markdown}");
    assert!(!markdown.contains("\\`"), "{markdown}");
}
