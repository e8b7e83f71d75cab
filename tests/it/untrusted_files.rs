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
    (".git/refs/heads/side", &[]),
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
    let fifo = repo.join(file);
    let _ = std::fs::remove_file(&fifo);
    std::fs::create_dir_all(fifo.parent().unwrap()).unwrap();
    support::tree::mkfifo(&fifo);
    repo
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
        let mut cmd = sandbox.cmd();
        cmd.args([
            "check",
            "--fresh",
            "--format",
            "json",
            "--probe-budget-ms",
            "200",
        ])
        .arg(&repo);
        let out = support::bounded(cmd, LIMIT);
        let name = Path::new(file).file_name().unwrap().to_str().unwrap();
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
    let mut cmd = sandbox.cmd();
    cmd.args([
        "check",
        "--fresh",
        "--format",
        "json",
        "--probe-budget-ms",
        "200",
    ])
    .arg(&repo);
    let out = support::bounded(cmd, LIMIT);
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
