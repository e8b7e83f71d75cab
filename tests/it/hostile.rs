//! Hostile inputs and faults (issue 14), each reproduced through the binary on real files,
//! FIFOs, devices, mounts and full disks: no panic, no hang, exit 2 with one sentence for what
//! the user handed in, exit 3 when the system fails, and no silent success.

use crate::support;

use serde_json::Value;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use support::tree::mkfifo;
use support::{Exit, Outcome, Run, Sandbox, bounded, stderr};

/// A scratch place beside a sandbox's HOME, so no test reads or writes the real one.
struct Place {
    sandbox: Sandbox,
}

impl Place {
    fn new() -> Self {
        let place = Self {
            sandbox: Sandbox::new(),
        };
        fs::create_dir_all(place.path("repo")).unwrap();
        fs::write(place.path("repo/file.txt"), "content\n").unwrap();
        place
    }

    /// `rel` in the folder holding the sandbox's HOME.
    fn path(&self, rel: &str) -> PathBuf {
        self.sandbox.home().parent().unwrap().join(rel)
    }

    fn repo(&self) -> PathBuf {
        self.path("repo")
    }

    /// `check --no-probe --format json PATH`.
    fn check(&self, path: &Path) -> Command {
        let mut cmd = self.cmd();
        cmd.args(["check", "--no-probe", "--format", "json"])
            .arg(path);
        cmd
    }

    fn cmd(&self) -> Command {
        let mut cmd = self.sandbox.cmd();
        cmd.env("NO_COLOR", "1");
        cmd
    }
}

/// Runs `cmd` to the end, or kills it after a minute and fails: a hang is the bug being tested.
fn run(cmd: Command) -> Outcome {
    support::bounded(cmd, Duration::from_secs(60))
}

/// Exit `code`, and standard error is one line, one sentence, from the tool (not a panic).
#[track_caller]
fn fails_with(output: &Outcome, exit: Exit, mentioning: &str) -> String {
    let text = output.fails(exit).stderr();
    assert!(!text.contains("panicked"), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "one line expected: {text}");
    assert!(lines[0].starts_with("wsl-place: "), "{text}");
    assert!(support::is_one_sentence(lines[0]), "{text}");
    assert!(text.contains(mentioning), "{mentioning:?} not in: {text}");
    text
}

fn full() -> fs::File {
    fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full")
}

fn os(bytes: &[u8]) -> &OsStr {
    OsStr::from_bytes(bytes)
}

// Case 1: an error message that cannot be written must not turn into a panic (exit 101).
#[test]
fn unwritable_stderr_keeps_the_exit_code() {
    let place = Place::new();
    let mut cmd = place.cmd();
    cmd.args(["check", "/no/such/dir"]).stderr(full());
    cmd.run().fails(Exit::Input);
}

// Case 9: output that cannot be written is never a silent success.
#[test]
fn unwritable_stdout_is_an_error() {
    let place = Place::new();
    let repo = place.repo().display().to_string();
    let to = place.path("dest").display().to_string();
    let runs: Vec<Vec<&str>> = vec![
        vec!["migrate", &repo, "--to", &to, "--dry-run"],
        vec![
            "migrate",
            "--format",
            "json",
            &repo,
            "--to",
            &to,
            "--dry-run",
        ],
        vec!["--help"],
        vec!["--version"],
        vec!["migrate", "--help"],
        vec!["check", "--format", "json", "--no-probe", &repo],
    ];
    for args in runs {
        let mut cmd = place.cmd();
        cmd.args(&args).stdout(full()).stderr(Stdio::piped());
        let output = cmd.run();
        output.fails(Exit::Internal);
        assert!(
            stderr(&output).contains("cannot write to standard output"),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    assert!(!place.path("dest").exists() && !place.path(".dest.wsl-place-staging").exists());
}

// Cases 2 and 8: special and binary files as policies are refused at once, never read forever.
#[test]
fn policy_must_be_a_small_regular_text_file() {
    let place = Place::new();
    let fifo = place.path("fifo.toml");
    mkfifo(&fifo);
    let binary = place.path("binary.toml");
    fs::write(&binary, b"\x7fELF\x02\x01\x01\0\0\0\xff\xfe").unwrap();
    let huge = place.path("huge.toml");
    fs::write(&huge, "# padding\n".repeat(200_000)).unwrap();
    let cases: [(&Path, &str); 6] = [
        (Path::new("/dev/zero"), "is a device"),
        (&fifo, "is a FIFO"),
        (&place.path("repo"), "is a directory"),
        (&binary, "not UTF-8"),
        (&huge, "too large"),
        (Path::new("/no/such/policy.toml"), "/no/such/policy.toml"),
    ];
    for (policy, what) in cases {
        let mut cmd = place.cmd();
        cmd.args(["check", "--no-probe", "--policy"])
            .arg(policy)
            .arg(place.repo());
        let output = bounded(cmd, Duration::from_secs(20));
        fails_with(&output, Exit::Input, what);
    }
}

// Case 8: the repository's own policy file, binary or special, is an input error too.
#[test]
fn repository_policy_must_be_text() {
    let place = Place::new();
    let policy = place.repo().join(".wsl-place.toml");
    fs::write(&policy, b"[thresholds]\nmove_speedup = \xff\xfe\n").unwrap();
    let mut cmd = place.cmd();
    cmd.args(["check", "--no-probe"]).arg(place.repo());
    fails_with(&run(cmd), Exit::Input, ".wsl-place.toml");
    fs::remove_file(&policy).unwrap();
    mkfifo(&policy);
    let mut cmd = place.cmd();
    cmd.args(["check", "--no-probe"]).arg(place.repo());
    fails_with(
        &bounded(cmd, Duration::from_secs(20)),
        Exit::Input,
        "is a FIFO",
    );
}

// Case 8: a symlink loop as the path, a directory as mountinfo: the user's input, exit 2.
#[test]
fn symlink_loop_and_directory_mountinfo_are_input_errors() {
    let place = Place::new();
    let a = place.path("loop-a");
    std::os::unix::fs::symlink(place.path("loop-b"), &a).unwrap();
    std::os::unix::fs::symlink(&a, place.path("loop-b")).unwrap();
    for command in ["check", "migrate", "probe"] {
        let mut cmd = place.cmd();
        cmd.arg(command).arg(&a);
        if command == "migrate" {
            cmd.arg("--dry-run");
        }
        fails_with(&run(cmd), Exit::Input, "loop-a");
    }

    let proc_root = place.path("proc");
    fs::create_dir_all(proc_root.join("self/mountinfo")).unwrap();
    fs::write(proc_root.join("version"), support::fakeproc::PLAIN_VERSION).unwrap();
    let mut cmd = place.cmd();
    cmd.env("WSL_PLACE_PROC_ROOT", &proc_root)
        .args(["check", "--no-probe"])
        .arg(place.repo());
    fails_with(
        &run(cmd),
        Exit::Input,
        "is a directory, not a mountinfo file",
    );
}

// Case 6: mountinfo is bytes; a mount point that is not UTF-8, anywhere, breaks nothing.
#[test]
fn non_utf8_mount_point_in_a_fixture_mountinfo() {
    let place = Place::new();
    let proc_root = place.path("proc");
    fs::create_dir_all(proc_root.join("self")).unwrap();
    fs::write(proc_root.join("version"), support::fakeproc::PLAIN_VERSION).unwrap();
    let mut table = b"1 0 8:1 / / rw - ext4 /dev/sda rw\n".to_vec();
    table.extend_from_slice(b"2 1 0:40 / /media/caf\xe9\\040disk rw - vfat /dev/sdb1 rw\n");
    fs::write(proc_root.join("self/mountinfo"), table).unwrap();
    let mut cmd = place.cmd();
    cmd.env("WSL_PLACE_PROC_ROOT", &proc_root)
        .args(["check", "--no-probe", "--format", "json"])
        .arg(place.repo());
    let output = run(cmd);
    output.ok();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["mount"]["mount_point"], "/");
}

// Case 6, on a real mount: a tmpfs mounted at a name that is not UTF-8.
#[test]
#[ignore = "needs root (mounts a tmpfs)"]
fn non_utf8_mount_point_on_this_machine() {
    if !support::require_root("mounting tmpfs") {
        return;
    }
    let place = Place::new();
    let point = place.path("mnt").join(os(b"odd\xfe\xff name"));
    let mount = match support::Mount::try_tmpfs_at(&point, "4m") {
        Ok(mount) => mount,
        Err(reason) => return support::skip(&reason),
    };
    for args in [
        vec!["check", "--no-probe"],
        vec!["probe", "--probe-budget-ms", "100"],
        vec![
            "check",
            "--probe-budget-ms",
            "100",
            "--scan-budget-ms",
            "200",
        ],
    ] {
        let mut cmd = place.cmd();
        cmd.args(&args).arg(place.repo());
        let output = run(cmd);
        output.ok();
    }
    // On the odd mount itself, the JSON names it losslessly.
    let inside = mount.point().join("repo");
    fs::create_dir(&inside).unwrap();
    let report = run(place.check(&inside)).ok_json();
    let shown = report["mount"]["mount_point"].as_str().unwrap();
    let decoded = wsl_place::facade::base::pathtext::unescape_path(shown).unwrap();
    assert_eq!(decoded, mount.point(), "{shown}");
    assert!(shown.ends_with("odd%FE%FF name"), "{shown}");
}

// Case 7: paths that are not UTF-8 come out of JSON losslessly, `%XX`-escaped.
#[test]
fn json_paths_are_lossless() {
    let place = Place::new();
    let repo = place.path("").join(os(b"caf\xe9 100%"));
    fs::create_dir(&repo).unwrap();
    fs::write(repo.join(os(b"f\xff")), "x").unwrap();
    // A git repository: its layout (worktree, git dir) is in the JSON too.
    support::gitrepo::git(&repo, &["init", "-q"]);
    let report = run(place.check(&repo)).ok_json();
    let linux = report["paths"]["linux"].as_str().unwrap();
    assert!(linux.ends_with("/caf%E9 100%25"), "{linux}");
    assert_eq!(
        wsl_place::facade::base::pathtext::unescape_path(linux).unwrap(),
        repo
    );

    // `survey` lists the repository below a folder with the same encoding.
    let mut cmd = place.cmd();
    cmd.args(["survey", "--format", "json"]).arg(place.path(""));
    let output = run(cmd);
    output.ok();
    let text = String::from_utf8(output.stdout.clone()).unwrap();
    assert!(text.contains("/caf%E9 100%25\""), "{text}");

    let destination = place.path("").join(os(b"out\x01\xfe"));
    let mut cmd = place.cmd();
    cmd.args(["migrate", "--format", "json", "--dry-run", "--to"])
        .arg(&destination)
        .arg(&repo);
    let output = run(cmd);
    output.ok();
    let plan: Value = serde_json::from_slice(&output.stdout).unwrap();
    for (field, expected) in [("source", &repo), ("destination", &destination)] {
        let shown = plan[field].as_str().unwrap();
        assert_eq!(
            wsl_place::facade::base::pathtext::unescape_path(shown).as_ref(),
            Some(expected),
            "{field}: {shown}"
        );
    }
}

fn policy_error(place: &Place, text: &str) -> String {
    let policy = place.path("policy.toml");
    fs::write(&policy, text).unwrap();
    let mut cmd = place.cmd();
    cmd.args(["check", "--no-probe", "--policy"])
        .arg(&policy)
        .arg(place.repo());
    fails_with(&run(cmd), Exit::Input, "policy.toml")
}

// Case 10: values that parse but would silently disable or contradict a rule are refused.
#[test]
fn policy_values_are_validated() {
    let place = Place::new();
    let cases = [
        (
            "[thresholds]\nmove_speedup = nan\n",
            "policy.toml:2:16: key `thresholds.move_speedup`",
        ),
        (
            "[thresholds]\nadvise_git_status_ms = inf\n",
            "thresholds.advise_git_status_ms",
        ),
        (
            "[thresholds]\nmove_install_ms = -5\n",
            "thresholds.move_install_ms",
        ),
        (
            "[thresholds]\nadvise_speedup = 0\n",
            "thresholds.advise_speedup",
        ),
        ("[advisory]\nmax_age_hours = -1\n", "advisory.max_age_hours"),
        (
            "[advisory]\nmax_age_hours = nan\n",
            "advisory.max_age_hours",
        ),
        (
            "[thresholds]\nadvise_git_status_ms = 900\nmove_git_status_ms = 800\n",
            "above `move_git_status_ms`",
        ),
        (
            "[mounts]\nadvise = [\"local\"]\n",
            "also in `mounts.acceptable`",
        ),
        ("[mounts]\nmove = [\"fuse\"]\n", "also in `mounts.advise`"),
    ];
    for (text, expected) in cases {
        policy_error(&place, text);
        let shown = policy_error(&place, text);
        assert!(shown.contains(expected), "{text:?}: {shown}");
    }
    // A default on the other side of a contradiction: the key that is in the file is named.
    let shown = policy_error(&place, "\n[thresholds]\nmove_git_status_ms = 100\n");
    assert!(shown.contains("policy.toml:3:22:"), "{shown}");
}

// Case 17: a bad glob is shown at its place in the file, not at `file:0:0`.
#[test]
fn bad_glob_names_its_line_and_column() {
    let place = Place::new();
    let shown = policy_error(&place, "[paths]\nignore = [\"/ok/*\", \"/bad/[x\"]\n");
    assert!(
        shown.contains("policy.toml:2:20: key `paths.ignore`"),
        "{shown}"
    );
    assert!(!shown.contains(":0:0"), "{shown}");
}

fn planned_destination(place: &Place, destination: &str) -> Outcome {
    let policy = place.path("policy.toml");
    fs::write(
        &policy,
        format!("[migrate]\ndestination = {destination:?}\n"),
    )
    .unwrap();
    let mut cmd = place.cmd();
    cmd.current_dir(place.path("repo"))
        .args(["migrate", "--format", "json", "--dry-run", "--policy"])
        .arg(&policy)
        .arg(place.repo());
    run(cmd)
}

// Case 11: a relative destination is under $HOME, never the current directory; `~user` is refused.
#[test]
fn migrate_destination_resolves_against_home() {
    let place = Place::new();
    for (destination, expected) in [
        ("projects/linux", "home/projects/linux/repo"),
        ("~/code", "home/code/repo"),
        ("~", "home/repo"),
    ] {
        let output = planned_destination(&place, destination);
        output.ok();
        let plan: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(
            plan["destination"].as_str().unwrap(),
            place.path(expected).to_str().unwrap(),
            "{destination}"
        );
    }
    let output = planned_destination(&place, "~nobody/x");
    fails_with(&output, Exit::Input, "another user's home");
    let output = planned_destination(&place, "");
    fails_with(&output, Exit::Input, "migrate.destination");
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn advisory(place: &Place) -> Outcome {
    let mut cmd = place.cmd();
    cmd.args(["check", "--advisory"]).arg(place.repo());
    run(cmd)
}

fn only_cache_file(place: &Place) -> PathBuf {
    let files: Vec<PathBuf> = fs::read_dir(place.sandbox.cache().join("wsl-place/advisory"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

fn rewrite_cache(file: &Path, created: u64, line: &str) {
    let mut entry: Value = serde_json::from_slice(&fs::read(file).unwrap()).unwrap();
    entry["created_unix"] = created.into();
    entry["level"] = "advise".into();
    entry["line"] = line.into();
    fs::write(file, serde_json::to_vec(&entry).unwrap()).unwrap();
}

// Case 12: a cached result from the future is not trusted; a cached line is never printed raw.
#[test]
fn advisory_cache_is_not_trusted_blindly() {
    let place = Place::new();
    let first = advisory(&place);
    first.ok();
    let file = only_cache_file(&place);

    rewrite_cache(
        &file,
        now() + 10 * 365 * 24 * 3600,
        "wsl-place: advise: planted",
    );
    let output = advisory(&place);
    output.ok();
    assert!(
        !String::from_utf8_lossy(&output.stdout).contains("planted"),
        "a result from the future was reused"
    );
    let entry: Value = serde_json::from_slice(&fs::read(&file).unwrap()).unwrap();
    assert!(entry["created_unix"].as_u64().unwrap() <= now(), "{entry}");

    rewrite_cache(
        &file,
        now(),
        "wsl-place: advise\n\u{1b}]0;owned\u{7}\u{1b}[2Jhidden",
    );
    let output = advisory(&place);
    let shown = String::from_utf8(output.stdout.clone()).unwrap();
    assert!(
        shown.contains("wsl-place: advise"),
        "the cache was not used: {shown:?}"
    );
    assert!(
        !shown.trim_end_matches('\n').chars().any(char::is_control),
        "{shown:?}"
    );
    assert_eq!(shown.lines().count(), 1, "{shown:?}");
}

// Case 13: in hook mode, a malformed repository policy is reported and the commit goes on.
#[test]
fn malformed_repository_policy_does_not_block_a_commit() {
    let place = Place::new();
    fs::write(place.repo().join(".wsl-place.toml"), "[thresholds\n").unwrap();
    let output = advisory(&place);
    output.ok();
    assert!(
        stderr(&output).contains(".wsl-place.toml:1:"),
        "{}",
        stderr(&output)
    );
    // Asked to fail: the input error keeps its code.
    let mut cmd = place.cmd();
    cmd.args(["check", "--advisory", "--fail-on", "move"])
        .arg(place.repo());
    fails_with(&run(cmd), Exit::Input, ".wsl-place.toml");
}

// Case 17: --baseline that does not exist is named as the baseline, not as "the repository".
#[test]
fn missing_baseline_is_named_as_the_baseline() {
    let place = Place::new();
    let mut cmd = place.cmd();
    cmd.args(["check", "--baseline", "/nonexistent/baseline"])
        .arg(place.repo());
    let shown = fails_with(
        &run(cmd),
        Exit::Input,
        "the baseline /nonexistent/baseline does not exist",
    );
    assert!(!shown.contains("repository"), "{shown}");
}

// Case 17: HOME that does not exist: one plain note, and nothing is created there.
#[test]
fn missing_home_is_reported_and_left_alone() {
    let place = Place::new();
    let home = place.path("gone/home");
    let mut cmd = Sandbox::at(&home).cmd();
    cmd.env("NO_COLOR", "1")
        .args([
            "check",
            "--probe-budget-ms",
            "100",
            "--scan-budget-ms",
            "200",
        ])
        .arg(place.repo());
    let output = run(cmd);
    output.ok();
    // The human report wraps to the width: compare with the line breaks taken out.
    let shown = String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let expected = format!("No baseline: $HOME ({}) does not exist;", home.display());
    assert!(shown.contains(&expected), "{shown}");
    assert!(!place.path("gone").exists(), "HOME was created");
    // The JSON keeps the sentence and gives its kind beside it.
    let mut cmd = Sandbox::at(&home).cmd();
    cmd.args(["check", "--format", "json", "--probe-budget-ms", "100"])
        .arg(place.repo());
    let json = run(cmd).ok_json();
    let probe = &json["probe"];
    assert!(
        probe["baseline_note"]
            .as_str()
            .is_some_and(|note| note.starts_with(&expected)),
        "{probe}"
    );
    assert_eq!(
        probe["baseline_note_kind"],
        serde_json::json!({"kind": "home_unusable", "home": home.to_str().unwrap(), "problem": {"kind": "missing"}})
    );
}

// Case 17: --to under a file says so, instead of talking about the journal.
#[test]
fn destination_under_a_file_names_the_file() {
    let place = Place::new();
    fs::write(place.path("plain"), "x").unwrap();
    let mut cmd = place.cmd();
    cmd.args(["migrate", "--yes", "--to"])
        .arg(place.path("plain/sub"))
        .arg(place.repo());
    let shown = fails_with(&run(cmd), Exit::Input, "is a file");
    assert!(!shown.contains("journal"), "{shown}");
}

// Case 17: kernel file systems are not repositories: refused before anything is staged.
#[test]
fn migrate_refuses_kernel_file_systems() {
    let place = Place::new();
    for source in ["/proc", "/sys/kernel"] {
        let mut cmd = place.cmd();
        cmd.args(["migrate", "--yes", "--to"])
            .arg(place.path("copy"))
            .arg(source);
        fails_with(&run(cmd), Exit::Input, "kernel file system");
        assert!(!place.path("copy").exists() && !place.path(".copy.wsl-place-staging").exists());
    }
}

// Case 17: the `cd` line of the next steps is one shell word per path, whatever the name.
#[test]
fn open_it_line_is_shell_quoted() {
    let place = Place::new();
    let destination = place.path("it's here");
    let mut cmd = place.cmd();
    cmd.args(["migrate", "--yes", "--to"])
        .arg(&destination)
        .arg(place.repo());
    let output = run(cmd);
    output.ok();
    let shown = String::from_utf8_lossy(&output.stdout);
    let line = shown
        .lines()
        .find(|l| l.trim_start().starts_with("cd "))
        .unwrap_or_else(|| panic!("no cd line: {shown}"));
    let quoted = wsl_place::facade::base::pathtext::shell_quote(&destination);
    assert!(
        quoted.starts_with('\'') && quoted.contains(r"'\''"),
        "{quoted}"
    );
    assert_eq!(line.trim(), format!("cd {quoted}"), "{shown}");
    assert!(shown.contains("code ."), "{shown}");
    // The shell agrees: `cd` into the quoted word lands in the destination.
    let cd = format!("cd {quoted} && pwd");
    let pwd = Command::new("sh").args(["-c", &cd]).run();
    assert_eq!(
        String::from_utf8_lossy(&pwd.stdout).trim(),
        destination.to_str().unwrap()
    );
}

fn scratch_folders(dir: &Path) -> Vec<PathBuf> {
    fs::read_dir(dir)
        .map(|listing| {
            listing
                .flatten()
                .filter(|e| e.file_name().as_bytes().starts_with(b".wsl-place-probe-"))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default()
}

// Cases 3 and 16: SIGTERM during the probe removes its scratch folder and exits with the
// documented code for an interrupted run, 130.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn sigterm_during_the_probe_leaves_no_junk() {
    let place = Place::new();
    let (backing, mnt) = (place.path("backing"), place.path("slow"));
    fs::create_dir(&backing).unwrap();
    // drvfs-9p latency: the probe runs for seconds, so the signal finds it at work.
    let Some(slow) = support::SlowFs::mount(&backing, &mnt, &["--profile", "drvfs-9p"]) else {
        return;
    };
    let mut cmd = place.cmd();
    cmd.args(["probe", "--probe-budget-ms", "20000"])
        .arg(slow.mountpoint())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let (output, _) = support::signal_once(
        cmd.spawn().unwrap(),
        support::Signal::TERM,
        "the probe's start",
        || !scratch_folders(&backing).is_empty(),
        Duration::from_secs(10),
        Duration::from_millis(100),
    );
    output.fails(Exit::Interrupted);
    assert_eq!(scratch_folders(&backing), Vec::<PathBuf>::new());
}

// Case 3: a scratch folder a SIGKILL left is neither counted by the scan nor kept by the next
// probe, and `check` leaves the repository root's mtime as it found it.
#[test]
fn stale_scratch_is_skipped_and_removed() {
    let place = Place::new();
    let repo = place.repo();
    // No process has this id (above the kernel's largest pid_max).
    let stale = repo.join(".wsl-place-probe-4194999-0badf00d");
    fs::create_dir_all(stale.join("d")).unwrap();
    for i in 0..20 {
        fs::write(stale.join(format!("d/f{i}")), vec![0u8; 4096]).unwrap();
    }
    let past = SystemTime::now() - Duration::from_secs(3600);
    fs::File::open(&repo)
        .unwrap()
        .set_times(fs::FileTimes::new().set_modified(past))
        .unwrap();
    let before = fs::metadata(&repo).unwrap().modified().unwrap();

    let report = run(place.check(&repo)).ok_json();
    assert_eq!(report["scan"]["files"], 1, "{}", report["scan"]);

    let mut cmd = place.cmd();
    cmd.args([
        "check",
        "--probe-budget-ms",
        "200",
        "--scan-budget-ms",
        "300",
    ])
    .arg(&repo);
    let output = run(cmd);
    output.ok();
    assert_eq!(scratch_folders(&repo), Vec::<PathBuf>::new());
    assert_eq!(fs::metadata(&repo).unwrap().modified().unwrap(), before);
}

/// The warning lines of a run's stderr that name `file`.
fn warnings_naming(output: &Output, file: &Path) -> Vec<String> {
    stderr(output)
        .lines()
        .filter(|l| l.contains(&file.display().to_string()))
        .map(str::to_string)
        .collect()
}

// Issue 22 item 5: a FIFO or a link to /dev/zero in place of a cache file neither blocks the run
// nor fills its memory: it is ignored with one warning line, and the run goes on.
#[test]
fn special_files_in_place_of_cache_files_are_ignored() {
    let place = Place::new();
    fs::write(place.repo().join("bun.lock"), "{}\n").unwrap();
    let first = advisory(&place);
    first.ok();
    let advisory_file = only_cache_file(&place);
    // bun's timing is cached per version (bun-1.4.5.json), as bun-unknown.json where bun is not
    // installed and in the hook, which does not start the manager to ask its version.
    let bun_version = place
        .sandbox
        .program("bun")
        .arg("--version")
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let manager_file_of = |args: &[&str]| {
        let version = if args.contains(&"--advisory") {
            "unknown"
        } else {
            bun_version.as_str()
        };
        place
            .sandbox
            .cache()
            .join(format!("wsl-place/manager/bun-{version}.json"))
    };
    fs::create_dir_all(place.sandbox.cache().join("wsl-place/manager")).unwrap();
    type Plant = fn(&Path);
    let plants: [(Plant, &str); 2] = [
        (mkfifo, "a FIFO"),
        (
            |file| std::os::unix::fs::symlink("/dev/zero", file).unwrap(),
            "a device",
        ),
    ];
    for (plant, is) in plants {
        for args in [
            &["check", "--advisory"][..],
            &["check", "--probe-budget-ms", "100"][..],
        ] {
            let manager_file = manager_file_of(args);
            for file in [&advisory_file, &manager_file] {
                let _ = fs::remove_file(file);
                plant(file);
            }
            let mut cmd = place.cmd();
            cmd.args(args).arg(place.repo());
            let output = bounded(cmd, Duration::from_secs(30));
            output.ok();
            for file in [&advisory_file, &manager_file] {
                let lines = warnings_naming(&output, file);
                assert_eq!(lines.len(), 1, "{args:?}: {}", support::text(&output));
                assert!(lines[0].contains(is), "{}", lines[0]);
                assert!(support::is_one_sentence(&lines[0]), "{}", lines[0]);
            }
            // The run measured afresh and wrote a regular cache file in its place.
            assert!(fs::symlink_metadata(&advisory_file).unwrap().is_file());
        }
    }
}

// Issue 22 item 15: a cache with predictions no measurement gives (1.7e308 ms, zero, negative)
// cannot move the verdict: those are dropped, and the verdict stands on the real ones.
#[test]
fn poisoned_cache_history_cannot_move_the_verdict() {
    let place = Place::new();
    let check = || {
        let mut cmd = place.cmd();
        cmd.args([
            "check",
            "--format",
            "json",
            "--probe-budget-ms",
            "100",
            "--scan-budget-ms",
            "200",
        ])
        .arg(place.repo());
        run(cmd).ok_json()
    };
    let first = check();
    assert_eq!(first["verdict"]["level"], "ok", "{}", first["verdict"]);
    let file = only_cache_file(&place);
    let mut entry: Value = serde_json::from_slice(&fs::read(&file).unwrap()).unwrap();
    let poisoned = serde_json::json!({"git_status_ms": [1.7e308, 1.0], "install_ms": [-5.0, 0.0]});
    entry["recent"] = Value::Array(vec![poisoned; 6]);
    fs::write(&file, serde_json::to_vec(&entry).unwrap()).unwrap();
    let second = check();
    assert_eq!(second["verdict"]["level"], "ok", "{}", second["verdict"]);
    let recent = second["verdict"]["recent"].to_string();
    assert!(
        !recent.contains("e308") && !recent.contains("-5"),
        "{recent}"
    );
}

/// A committed repository in `backing`, seen through slowfs with `latency` (`create=20000`).
fn slow_repo(place: &Place, latency: &str) -> Option<(support::SlowFs, PathBuf)> {
    let (backing, mnt) = (place.path("backing"), place.path("slow"));
    support::gitrepo::repo_with_files(&backing.join("app"), 8);
    let slow =
        support::SlowFs::mount(&backing, &mnt, &["--profile", "none", "--latency", latency])?;
    let repo = slow.mountpoint().join("app");
    Some((slow, repo))
}

/// A hang guard, not a budget: a run that waited for one 20 s file create cannot end within it.
const HANG_GUARD: Duration = Duration::from_secs(10);

/// Runs `cmd`, which must end by itself within [`HANG_GUARD`]; returns its output.
fn guarded(cmd: Command) -> Outcome {
    let start = Instant::now();
    let output = bounded(cmd, Duration::from_secs(60));
    let took = start.elapsed();
    assert!(
        took < HANG_GUARD,
        "{took:?} (over {HANG_GUARD:?}): {}",
        support::text(&output)
    );
    output
}

// Issue 22 item 6: one file create that takes 20 s does not stretch the probe past its budget:
// the probe stops waiting, says so, and judges from it. The figures are bench/'s; here a run
// that waited for the create would outlast the hang guard.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn one_slow_call_does_not_outlast_the_budget() {
    let place = Place::new();
    let Some((_slow, repo)) = slow_repo(&place, "create=20000") else {
        return;
    };
    let mut cmd = place.cmd();
    cmd.args(["check", "--advisory"]).arg(&repo);
    let output = guarded(cmd);
    output.ok();
    let line = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        line.starts_with("wsl-place: advise") || line.starts_with("wsl-place: move"),
        "a 2 s file create judged fine: {line}"
    );

    let mut cmd = place.cmd();
    cmd.args(["probe", "--format", "json"]).arg(&repo);
    let output = guarded(cmd);
    let report = output.ok_json();
    assert_eq!(report["slow_call"]["operation"], "create", "{report}");
    let over = report["slow_call"]["over_ms"].as_u64().unwrap();
    assert!((500..20000).contains(&over), "{report}");
    assert!(
        report["slow_call"]["scratch_cleaned"].is_boolean(),
        "{report}"
    );
    let said = report["slow_call"]["message"].as_str().unwrap_or_default();
    assert!(said.contains("for one file create"), "{report}");
    assert_eq!(report["ops"]["create"]["samples"], 1, "{report}");

    let mut cmd = place.cmd();
    cmd.arg("check").arg(&repo);
    let output = guarded(cmd);
    output.ok();
    let shown = String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        shown.contains("this mount took over") && shown.contains("ms for one file create"),
        "{shown}"
    );
}

// Issue 22 item 7: SIGINT or SIGTERM during a probe ends the run at once whatever the mount
// does, with the code for an interrupted run; a scratch folder the mount still holds goes once
// the mount answers. Unsignalled, the probe would go on for its 60 s budget: ending within the
// hang guard is the signal's doing.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn a_signal_ends_a_probe_at_once() {
    for (latency, signal) in [
        ("create=2000", support::Signal::INT),
        ("create=20000", support::Signal::TERM),
    ] {
        let place = Place::new();
        let Some((slow, repo)) = slow_repo(&place, latency) else {
            return;
        };
        let mut cmd = place.cmd();
        cmd.args(["probe", "--probe-budget-ms", "60000"])
            .arg(&repo)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let backing = slow.backing().join("app");
        let (output, took) = support::signal_once(
            cmd.spawn().unwrap(),
            signal,
            "the probe's start",
            || !scratch_folders(&backing).is_empty(),
            Duration::from_secs(10),
            // Inside the first file create by now.
            Duration::from_millis(300),
        );
        eprintln!(
            "{latency}: {:?} {took:?} after signal {signal:?}",
            output.status
        );
        assert!(
            took < HANG_GUARD,
            "{latency}: {took:?}: {}",
            stderr(&output)
        );
        output.fails(Exit::Interrupted);
        assert!(
            stderr(&output).contains("is removed once it does"),
            "{}",
            stderr(&output)
        );
        if latency == "create=2000" {
            let gone_by = Instant::now() + Duration::from_secs(6);
            while !scratch_folders(&backing).is_empty() && Instant::now() < gone_by {
                std::thread::sleep(Duration::from_millis(50));
            }
            assert_eq!(scratch_folders(&backing), Vec::<PathBuf>::new());
        }
    }
}

// Issue 22 item 8: ESC, CR, tab and newline in a repository's name are escaped in every human
// output (survey, check, probe, migrate, error messages), never written raw.
#[test]
fn control_characters_in_names_never_reach_the_terminal() {
    let place = Place::new();
    let name = "x\u{1b}[7my\rz\tw\nv";
    let repo = place.path(name);
    support::gitrepo::repo_with_files(&repo, 3);
    let words =
        |list: &[&str]| -> Vec<std::ffi::OsString> { list.iter().map(|w| w.into()).collect() };
    let with = |mut list: Vec<std::ffi::OsString>, path: PathBuf| {
        list.push(path.into_os_string());
        list
    };
    let budgets = ["--probe-budget-ms", "100", "--scan-budget-ms", "200"];
    let runs = [
        with(words(&["survey"]), place.path("")),
        with(words(&[&["check"][..], &budgets].concat()), repo.clone()),
        with(words(&["probe", "--probe-budget-ms", "100"]), repo.clone()),
        with(words(&["check", "--advisory"]), repo.clone()),
        with(words(&["migrate", "--dry-run"]), repo.clone()),
        with(words(&["check"]), repo.join("missing")),
        with(
            with(
                words(&["migrate", "--yes", "--to"]),
                place.path("copy\u{1b}]0;t\u{7}"),
            ),
            repo.clone(),
        ),
    ];
    let mut seen_escaped = false;
    for args in &runs {
        let mut cmd = place.cmd();
        cmd.args(args);
        let output = run(cmd);
        output.exits_one_of(&[0, Exit::Input as i32]);
        for (stream, bytes) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
            let text = String::from_utf8_lossy(bytes);
            let raw = text.chars().find(|c| c.is_control() && *c != '\n');
            assert_eq!(raw, None, "{args:?} {stream}: {text:?}");
            assert!(!text.contains("w\nv"), "{args:?} {stream}: {text:?}");
            seen_escaped |= text.contains("x%1B[7my%0Dz%09w%0Av");
        }
    }
    assert!(seen_escaped, "the name was never shown");
}

// Issue 22 item 15: a full disk is the system's failure (exit 3), as the README says.
#[test]
#[ignore = "needs root (mounts a tmpfs)"]
fn probe_on_a_full_disk_exits_3() {
    let Some(small) = support::Mount::tmpfs("1m") else {
        return;
    };
    let mut fill = fs::File::create(small.point().join("fill")).unwrap();
    let block = vec![0u8; 4096];
    while std::io::Write::write_all(&mut fill, &block).is_ok() {}
    drop(fill);
    let place = Place::new();
    let mut cmd = place.cmd();
    cmd.arg("probe").arg(small.point());
    let output = run(cmd);
    output.fails(Exit::Internal);
    assert!(
        stderr(&output).contains("No space left"),
        "{}",
        stderr(&output)
    );
}

// Issue 22 item 15: a policy that opens as a regular file and cannot be read is what the user
// handed in (exit 2); a kernel file system is no baseline.
#[test]
fn unreadable_policy_and_kernel_baselines_are_input_errors() {
    let place = Place::new();
    let mut cmd = place.cmd();
    cmd.args(["check", "--no-probe", "--policy", "/proc/self/mem"])
        .arg(place.repo());
    fails_with(&run(cmd), Exit::Input, "/proc/self/mem");
    for baseline in ["/proc", "/sys", "/dev"] {
        let mut cmd = place.cmd();
        cmd.args(["check", "--probe-budget-ms", "100", "--baseline", baseline])
            .arg(place.repo());
        fails_with(&run(cmd), Exit::Input, "kernel file system");
    }
}

// Issue 22 item 15: the cursor-show escape is for a terminal; when the interrupt handler ends a
// run stuck in a slow read, a stderr that is a file gets words only.
#[test]
#[ignore = "needs FUSE (/dev/fuse and fusermount3)"]
fn no_cursor_escape_into_a_file() {
    let place = Place::new();
    let backing = place.path("backing");
    support::gitrepo::repo_with_files(&backing.join("app"), 4);
    let Some(slow) = support::SlowFs::mount(
        &backing,
        &place.path("slow"),
        &["--profile", "none", "--latency", "read=4000"],
    ) else {
        return;
    };
    let log = place.path("stderr.txt");
    let mut cmd = place.cmd();
    cmd.args(["migrate", "--yes", "--to"])
        .arg(place.path("copy"))
        .arg(slow.mountpoint().join("app"))
        .stdout(Stdio::null())
        .stderr(fs::File::create(&log).unwrap());
    // Signalled inside one of its 4 s reads of the source, once it has a file there open.
    let source = slow.mountpoint().join("app");
    let child = cmd.spawn().unwrap();
    let pid = child.id();
    let (output, _) = support::signal_once(
        child,
        support::Signal::INT,
        "a read of the source",
        || support::reads_below(pid, &source),
        Duration::from_secs(20),
        Duration::ZERO,
    );
    let status = output.status;
    let written = fs::read(&log).unwrap();
    assert_eq!(
        status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&written)
    );
    assert!(
        !written.contains(&0x1b),
        "{:?}",
        String::from_utf8_lossy(&written)
    );
}

/// `markdown` with its code spans taken out (CommonMark: a run of backticks up to the next run
/// of the same length; an escaped backtick opens none); None when a span never closes.
fn outside_code_spans(markdown: &str) -> Option<String> {
    let markdown = markdown.replace("\\\\", "").replace("\\`", "");
    let mut out = String::new();
    let mut rest = markdown.as_str();
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let after = &rest[start..];
        let fence = after.len() - after.trim_start_matches('`').len();
        let body = &after[fence..];
        let mut search = 0;
        let close = loop {
            let at = search + body[search..].find('`')?;
            let run = body[at..].len() - body[at..].trim_start_matches('`').len();
            if run == fence {
                break at;
            }
            search = at + run;
        };
        rest = &body[close + fence..];
    }
    out.push_str(rest);
    Some(out)
}

// Issue 22 item 9: a backtick in a name cannot end its code span, and HTML in a name (the
// survey's heading included) is never live in markdown output.
#[test]
fn markdown_names_cannot_inject() {
    let place = Place::new();
    let top = place.path("<i>top");
    let repo = top.join("back`tick<b>");
    support::gitrepo::repo_with_files(&repo, 2);
    let budgets = ["--probe-budget-ms", "100", "--scan-budget-ms", "200"];
    let runs: [(&[&str], &Path); 4] = [
        (&["survey", "--format", "markdown"], &top),
        (&["check", "--format", "markdown"], &repo),
        (&["probe", "--format", "markdown"], &repo),
        (&["migrate", "--dry-run", "--format", "markdown"], &repo),
    ];
    for (args, path) in runs {
        let mut cmd = place.cmd();
        cmd.args(args).arg(path);
        if args[0] != "migrate" {
            cmd.args(&budgets[..if args[0] == "check" { 4 } else { 2 }]);
        }
        let output = run(cmd);
        output.ok();
        let shown = String::from_utf8_lossy(&output.stdout);
        assert!(shown.contains("back`tick"), "{args:?}: {shown}");
        let text = outside_code_spans(&shown).unwrap_or_else(|| panic!("{args:?}: {shown}"));
        assert!(!text.contains('<'), "{args:?}: outside code spans: {text}");
    }
}

// A run that prints more than a pipe holds (64 KiB) is read while it runs, not taken for a hang.
#[test]
fn bounded_reads_output_larger_than_a_pipe() {
    let mut cmd = Command::new("sh");
    cmd.args([
        "-c",
        "head -c 300000 /dev/zero; head -c 200000 /dev/zero >&2",
    ]);
    let output = bounded(cmd, Duration::from_secs(20));
    assert!(output.status.success(), "{:?}", output.status);
    assert_eq!(
        (output.stdout.len(), output.stderr.len()),
        (300_000, 200_000)
    );
}
