//! Issue 64: a FIFO where the tool, git or gix reads a file of the repository blocked `check`,
//! `check --advisory` (and so the pre-commit hook, with no end) and `survey` until a signal. A
//! tree from an archive or a copy can hold one. For each file the tool reads itself (locks,
//! manifests, requirement files, `.gitmodules`, the git index and `.git` pointers) and each
//! file git and gix read in `.git/`, a repository with a FIFO there goes through `check`, the
//! hook's `check --advisory`, `survey` and `migrate --dry-run`, each of which must end within
//! 30 s; where the tool reads the file itself it says so in one line naming it. A link out of
//! the repository in its place is never read.

use crate::support;
use crate::support::gitrepo::{init_and_commit_all, write};
use crate::support::sandbox::Sandbox;
use crate::support::text;
use std::path::Path;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(30);

/// The files, with what else the repository needs for the tool to read them.
const FILES: [(&str, &[(&str, &str)]); 17] = [
    ("package.json", &[]),
    ("package-lock.json", &[("package.json", PACKAGE_JSON)]),
    ("yarn.lock", &[("package.json", PACKAGE_JSON)]),
    ("pnpm-lock.yaml", &[("package.json", PACKAGE_JSON)]),
    ("bun.lock", &[("package.json", PACKAGE_JSON)]),
    ("requirements.txt", &[]),
    (
        "requirements-dev.txt",
        &[("requirements.txt", "six==1.16.0\n")],
    ),
    ("uv.lock", &[("pyproject.toml", PYPROJECT)]),
    ("pyproject.toml", &[("uv.lock", "version = 1\n")]),
    (".gitmodules", &[]),
    (".git/index", &[]),
    (".git/HEAD", &[]),
    (".git/config", &[]),
    (".git/packed-refs", &[]),
    (".git/info/exclude", &[]),
    (".git/info/attributes", &[]),
    (".git/HEAD_REF", &[]),
];

const PACKAGE_JSON: &str = r#"{"name":"x","version":"1.0.0","dependencies":{"a":"1.0.0"}}"#;
const PYPROJECT: &str = "[project]\nname = \"x\"\nversion = \"1\"\n";

fn repository_with_fifo(
    sandbox: &Sandbox,
    file: &str,
    beside: &[(&str, &str)],
) -> std::path::PathBuf {
    let repo = sandbox.path(format!("src/{}", file.replace(['/', '.'], "_")));
    write(&repo.join("a.txt"), b"a\n");
    for (name, content) in beside {
        write(&repo.join(name), content.as_bytes());
    }
    init_and_commit_all(&repo, "init");
    // The branch HEAD names, whatever git's default branch is here.
    let file = match file {
        ".git/HEAD_REF" => {
            let head = crate::support::gitrepo::git(&repo, &["symbolic-ref", "HEAD"]);
            format!(".git/{}", head.trim())
        }
        other => other.to_string(),
    };
    let fifo = repo.join(&file);
    let _ = std::fs::remove_file(&fifo);
    std::fs::create_dir_all(fifo.parent().unwrap()).unwrap();
    support::tree::mkfifo(&fifo);
    repo
}

/// `check --fresh --format json` of `repo`, bounded: a hang fails the test.
fn fresh_check(sandbox: &Sandbox, repo: &Path) -> crate::support::Outcome {
    let mut cmd = sandbox.cmd();
    cmd.args([
        "check",
        "--fresh",
        "--format",
        "json",
        "--probe-budget-ms",
        "200",
    ])
    .arg(repo);
    support::bounded(cmd, LIMIT)
}

#[test]
fn a_fifo_in_place_of_any_file_the_tool_or_git_reads_never_blocks() {
    let sandbox = Sandbox::new();
    for (file, beside) in FILES {
        let repo = repository_with_fifo(&sandbox, file, beside);
        let runs: [&[&str]; 3] = [
            &["check", "--format", "json", "--probe-budget-ms", "200"],
            &["check", "--advisory"],
            &["survey", "--format", "json"],
        ];
        for args in runs {
            let mut cmd = sandbox.cmd();
            cmd.args(args).arg(&repo);
            let out = support::bounded(cmd, LIMIT);
            assert_ne!(
                out.status.code(),
                Some(101),
                "{file}: {args:?}: {}",
                text(&out)
            );
        }
        let mut dry = sandbox.migrate(&repo, &sandbox.path(format!("dst/{}", file.len())));
        dry.arg("--dry-run");
        let out = support::bounded(dry, LIMIT);
        assert_ne!(
            out.status.code(),
            Some(101),
            "{file}: migrate: {}",
            text(&out)
        );
        // The tool's own reads say what they refused, naming the file.
        let out = fresh_check(&sandbox, &repo);
        let name = match file {
            ".git/HEAD_REF" => "refs/heads/",
            _ => Path::new(file).file_name().unwrap().to_str().unwrap(),
        };
        let stderr = String::from_utf8_lossy(&out.stderr);
        // Read only once something else asks for them: `.gitmodules` when a submodule is
        // recorded, `uv.lock` when uv is on PATH.
        if ["uv.lock", ".gitmodules"].contains(&file) {
            continue;
        }
        assert!(
            stderr.contains(name) && (stderr.contains("FIFO") || stderr.contains("not a file")),
            "{file}: check said nothing of the FIFO: {stderr}"
        );
    }
}

/// A lock that is a link to a file outside the repository (the person's secrets, say) is never
/// read, so nothing of it can be echoed or parsed.
#[test]
fn a_lock_that_links_out_of_the_repository_is_never_read() {
    let sandbox = Sandbox::new();
    let secret = sandbox.path("secret/package-lock.json");
    write(
        &secret,
        br#"{"name":"x","lockfileVersion":3,"packages":{"":{},"node_modules/SECRET_TOKEN_VALUE":{"version":"1.0.0"}}}"#,
    );
    let repo = sandbox.path("src/linked");
    write(&repo.join("package.json"), PACKAGE_JSON.as_bytes());
    init_and_commit_all(&repo, "init");
    std::os::unix::fs::symlink(&secret, repo.join("package-lock.json")).unwrap();
    let out = fresh_check(&sandbox, &repo);
    let all = text(&out);
    assert!(!all.contains("SECRET_TOKEN_VALUE"), "{all}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("package-lock.json in"),
        "the link was not named: {all}"
    );
}

/// A repository folder named with ESC, BEL, an OSC title sequence and U+202E (right-to-left
/// override): no format of `check` or `survey` passes one of them on (JSON writes the override
/// as `\u202e`, the same string to a parser), and a JSON path field keeps the exact bytes in its
/// escaped form.
#[test]
fn names_with_control_and_bidirectional_characters_reach_no_output() {
    let sandbox = Sandbox::new();
    let name = "evil\u{1b}]0;pwned\u{7}\u{1b}[31m\u{202e}txt.exe";
    let repo = sandbox.path(format!("src/{name}"));
    write(&repo.join("a.txt"), b"a\n");
    init_and_commit_all(&repo, "init");
    for command in ["check", "survey"] {
        for format in ["human", "markdown", "github", "json"] {
            let mut cmd = sandbox.cmd();
            cmd.args(["--color", "never", command, "--format", format]);
            if command == "check" {
                cmd.args(["--probe-budget-ms", "200"]);
            }
            cmd.arg(if command == "check" {
                repo.clone()
            } else {
                sandbox.path("src")
            });
            let out = support::bounded(cmd, LIMIT);
            let all = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            for bad in ['\u{1b}', '\u{7}', '\u{202e}'] {
                assert!(
                    !all.contains(bad),
                    "{command} --format {format} passed {bad:?} on: {all:?}"
                );
            }
            if format == "json" && command == "check" {
                let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
                let path = report["paths"]["linux"].as_str().unwrap_or_default();
                assert!(path.contains("%1B]0;pwned%07"), "{path}");
                assert!(path.contains("%E2%80%AEtxt.exe"), "{path}");
            }
        }
    }
}

/// Every file below `root`, with its bytes and modification time: to tell that nothing there
/// was written.
fn untouched_state(root: &Path) -> Vec<(std::path::PathBuf, Vec<u8>, std::time::SystemTime)> {
    let mut all: Vec<_> = walkdir::WalkDir::new(root)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let meta = e.metadata().unwrap();
            (
                e.path().to_path_buf(),
                std::fs::read(e.path()).unwrap(),
                meta.modified().unwrap(),
            )
        })
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    all
}

/// Issue 64: a `.git` that is a file naming another repository's git folder had `hook install`
/// write into that repository's hooks and `migrate` refresh its index. Neither writes there now.
#[test]
fn a_git_file_that_leads_to_another_repository_is_never_written_through() {
    let sandbox = Sandbox::new();
    let other = sandbox.path("src/other");
    write(&other.join("o.txt"), b"other\n");
    init_and_commit_all(&other, "other");
    let before = untouched_state(&other.join(".git"));
    let repo = sandbox.path("src/pointer");
    write(&repo.join("o.txt"), b"other\n");
    std::fs::write(
        repo.join(".git"),
        format!("gitdir: {}\n", other.join(".git").display()),
    )
    .unwrap();
    let mut hook = sandbox.cmd();
    hook.args(["hook", "install"]).arg(&repo);
    let out = support::bounded(hook, LIMIT);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("outside the repository"),
        "{}",
        text(&out)
    );
    let mut migrate = sandbox.migrate(&repo, &sandbox.path("dst/pointer"));
    migrate.arg("--yes");
    let out = support::bounded(migrate, LIMIT);
    assert_eq!(
        untouched_state(&other.join(".git")),
        before,
        "the other repository's .git was written: {}",
        text(&out)
    );
}

/// A `core.hooksPath` the repository's own config sets outside it: `hook install` refuses in
/// one sentence and writes nothing there.
#[test]
fn a_hooks_path_the_repository_sets_outside_it_is_refused() {
    let sandbox = Sandbox::new();
    let elsewhere = sandbox.path("persons-hooks");
    std::fs::create_dir_all(&elsewhere).unwrap();
    write(&elsewhere.join("pre-commit"), b"#!/bin/sh\necho theirs\n");
    let repo = sandbox.path("src/hookspath");
    write(&repo.join("a.txt"), b"a\n");
    init_and_commit_all(&repo, "init");
    crate::support::gitrepo::git(
        &repo,
        &["config", "core.hooksPath", elsewhere.to_str().unwrap()],
    );
    let mut hook = sandbox.cmd();
    hook.args(["hook", "install"]).arg(&repo);
    let out = support::bounded(hook, LIMIT);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("core.hooksPath"), "{}", text(&out));
    assert_eq!(
        std::fs::read(elsewhere.join("pre-commit")).unwrap(),
        b"#!/bin/sh\necho theirs\n"
    );
    assert!(!elsewhere.join("pre-commit.wsl-place-chained").exists());
}

/// A repository made and committed at `sandbox/rel`.
fn committed_repository(sandbox: &Sandbox, rel: &str) -> std::path::PathBuf {
    let repo = sandbox.path(rel);
    write(&repo.join("a.txt"), b"a\n");
    init_and_commit_all(&repo, "init");
    repo
}

/// `migrate --yes` from `repo` to `dst/<its name>`, then `--remove-source`: both outcomes.
fn migrate_and_remove(
    sandbox: &Sandbox,
    repo: &Path,
) -> (crate::support::Outcome, crate::support::Outcome) {
    let copy = sandbox.path("dst").join(repo.file_name().unwrap());
    let mut migrate = sandbox.migrate(repo, &copy);
    migrate.arg("--yes");
    let migrated = support::bounded(migrate, LIMIT);
    let mut remove = sandbox.migrate(repo, &copy);
    remove.args(["--remove-source", "--yes"]);
    (migrated, support::bounded(remove, LIMIT))
}

/// Issue 64: a `.git/commondir` naming another repository had migrate say "copied and
/// verified" and `--remove-source` say the history was in the copy, while git read it from the
/// other repository; `hook install` wrote into that repository's hooks. Now the result says
/// where the history is, the old place's `.git` is kept, and no hook is written there.
#[test]
fn a_commondir_naming_another_repository_is_said_and_never_trusted_for_history() {
    let sandbox = Sandbox::new();
    let other = committed_repository(&sandbox, "other");
    let before = untouched_state(&other.join(".git"));
    let repo = committed_repository(&sandbox, "src/common");
    std::fs::write(
        repo.join(".git/commondir"),
        format!("{}\n", other.join(".git").display()),
    )
    .unwrap();
    let mut hook = sandbox.cmd();
    hook.args(["hook", "install"]).arg(&repo);
    let out = support::bounded(hook, LIMIT);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("commondir leads to"), "{}", text(&out));
    let (migrated, removed) = migrate_and_remove(&sandbox, &repo);
    assert!(
        text(&migrated).contains(".git/commondir leads to")
            && text(&migrated).contains("its history is there, not in the copy"),
        "{}",
        text(&migrated)
    );
    assert!(repo.join(".git").is_dir(), "{}", text(&removed));
    assert!(
        text(&removed).contains("reads its history from"),
        "{}",
        text(&removed)
    );
    assert_eq!(untouched_state(&other.join(".git")), before);
}

/// Issue 64: a FIFO among the loose refs (not HEAD's) hangs every git that reads all refs: the
/// history check of `--remove-source` and a sync's fetch. Both end in time, and the old place's
/// `.git` is kept, the FIFO named.
#[test]
fn a_fifo_among_the_refs_never_blocks_the_history_check() {
    let sandbox = Sandbox::new();
    let repo = committed_repository(&sandbox, "src/fiforef");
    support::tree::mkfifo(&repo.join(".git/refs/tags/hang"));
    let (migrated, removed) = migrate_and_remove(&sandbox, &repo);
    migrated.ok();
    assert!(repo.join(".git").is_dir(), "{}", text(&removed));
    assert!(
        text(&removed).contains("refs/tags/hang is a FIFO"),
        "{}",
        text(&removed)
    );
}

/// Issue 64: `.git/index` a link (relative, so it reaches another repository's index from the
/// copy): git writes an index through its link, so the tool runs no git there and says why;
/// the other repository's files are never written.
#[test]
fn an_index_that_links_out_is_never_written_through() {
    let sandbox = Sandbox::new();
    let other = committed_repository(&sandbox, "dst/other");
    let before = untouched_state(&other.join(".git"));
    let repo = committed_repository(&sandbox, "src/linked");
    std::fs::remove_file(repo.join(".git/index")).unwrap();
    // Dangling at the old place; at the copy (`dst/linked`) it names `dst/other`'s index.
    std::os::unix::fs::symlink("../../other/.git/index", repo.join(".git/index")).unwrap();
    let check = sandbox.check(&repo, &[]);
    assert!(text(&check).contains(".git/index is a link"), "{check}");
    let (migrated, _) = migrate_and_remove(&sandbox, &repo);
    assert!(
        text(&migrated).contains(".git/index (a link) leads to"),
        "{}",
        text(&migrated)
    );
    assert_eq!(untouched_state(&other.join(".git")), before);
}

/// Issue 64: every output format that shows a name with characters escaped says so, once.
#[test]
fn a_report_says_when_a_name_was_shown_escaped() {
    let sandbox = Sandbox::new();
    let repo = committed_repository(&sandbox, "src/bell\u{7}name");
    for format in ["human", "markdown", "github"] {
        let mut cmd = sandbox.cmd();
        cmd.args(["check", "--no-probe", "--format", format])
            .arg(&repo);
        let out = support::bounded(cmd, LIMIT);
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(said.contains("bell%07name"), "{format}: {said}");
        assert_eq!(said.matches("shown as %XX").count(), 1, "{format}: {said}");
    }
    let plain = committed_repository(&sandbox, "src/plain");
    let out = support::bounded(
        {
            let mut cmd = sandbox.cmd();
            cmd.args(["check", "--no-probe"]).arg(&plain);
            cmd
        },
        LIMIT,
    );
    assert!(!text(&out).contains("shown as %XX"), "{}", text(&out));
}
