//! The bar of issue 49: hostile repositories, each with many payloads at once (some not named in
//! the issue), run through every command a person runs in a repository: `check` (plain,
//! `--fresh`, `--verify`, `--advisory`), `survey`, `probe`, `hook install`/`uninstall`, the
//! nudge's background learner, `migrate`, `--sync`, `--abort`, `--remove-source`. After each
//! command: no marker (a payload that ran leaves one), and nothing changed outside the folders
//! the tool may write (the repository itself, the copy, its cache and state, and the package
//! managers' own caches).

use crate::support;

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use support::gitrepo::{init_and_commit_all, write};
use support::sandbox::Sandbox;

/// A sandbox whose HOME holds the person's own files, a folder of hostile repositories, and a
/// markers folder beside it.
struct Bar {
    sandbox: Sandbox,
    /// Whether a command may refuse the repository (in one sentence, with its own exit code)
    /// rather than do its work: for repositories no command can work on safely.
    refusals_allowed: bool,
    /// Text of the person's that no output may show (a file a repository's link points at).
    secret: Option<&'static str>,
}

impl Bar {
    fn new() -> Self {
        let bar = Self {
            sandbox: Sandbox::new(),
            refusals_allowed: false,
            secret: None,
        };
        std::fs::create_dir_all(bar.markers()).unwrap();
        for (file, text) in [
            (".bashrc", "# the person's own\n"),
            (".profile", "# the person's own\n"),
            (
                ".gitconfig",
                "[user]\n\tname = Person\n\temail = p@example.com\n",
            ),
        ] {
            std::fs::write(bar.sandbox.path(file), text).unwrap();
        }
        std::fs::create_dir_all(bar.sandbox.path("bin")).unwrap();
        bar
    }

    fn markers(&self) -> PathBuf {
        self.sandbox.home().parent().unwrap().join("markers")
    }

    /// A shell command that leaves marker `name`; git appends arguments to some (an fsmonitor
    /// hook's version and token), which `true` takes.
    fn touch(&self, name: &str) -> String {
        format!("touch '{}'; true", self.markers().join(name).display())
    }

    fn repos(&self) -> PathBuf {
        self.sandbox.path("work")
    }

    fn cmd(&self, dir: &Path) -> Command {
        let mut cmd = self.sandbox.cmd();
        cmd.current_dir(dir).env("NO_COLOR", "1");
        cmd
    }

    /// Every file below the sandbox's top folder, with its size, mode and modification time,
    /// but for the places the tool or a manager may write.
    fn outside(&self, repo: &Path) -> BTreeMap<PathBuf, (u64, u32, i64, i64)> {
        let home = self.sandbox.home();
        let allowed: Vec<PathBuf> = vec![
            repo.to_path_buf(),
            self.sandbox.path("src"),
            self.sandbox.cache(),
            self.sandbox.path(".local/state"),
            self.sandbox.path(".local/share/pnpm"),
            self.sandbox.path(".npm"),
            self.sandbox.path(".bun"),
            self.sandbox.path(".yarn"),
            self.sandbox.path(".yarnrc"),
            self.markers(),
        ];
        let top = home.parent().unwrap();
        walkdir::WalkDir::new(top)
            .follow_links(false)
            .into_iter()
            .filter_entry(|e| !allowed.iter().any(|a| e.path() == a))
            .flatten()
            .filter_map(|e| {
                let meta = e.path().symlink_metadata().ok()?;
                let kept = (meta.len(), meta.mode(), meta.mtime(), meta.mtime_nsec());
                Some((e.path().to_path_buf(), kept))
            })
            .filter(|(p, _)| !p.is_dir())
            .collect()
    }

    /// Runs `args` in `dir`: it must end in time (30 s, or two minutes for a manager's sample);
    /// then no marker may exist and nothing outside may have changed since `before`.
    fn step(
        &self,
        repo: &Path,
        dir: &Path,
        args: &[&str],
        before: &BTreeMap<PathBuf, (u64, u32, i64, i64)>,
    ) -> support::Outcome {
        let mut cmd = self.cmd(dir);
        cmd.args(args);
        // The hostile repositories' commands (no manager's sample among them) end within the
        // issue's 30 s; a real manager's sample on a loaded CI machine is given more.
        let limit = Duration::from_secs(if self.refusals_allowed { 30 } else { 120 });
        let out = support::bounded(cmd, limit);
        match self.refusals_allowed {
            // A refusal is one sentence and a code of its own, never an internal error.
            true => assert!(
                !matches!(out.status.code(), Some(3 | 101) | None)
                    && (out.status.success() || !out.stderr.is_empty()),
                "{out}"
            ),
            false => {
                out.ok();
            }
        }
        let shown = support::text(&out);
        // Every name reaches the output neutralised: no terminal or CI command, no reordering.
        for bad in ['\u{1b}', '\u{7}', '\u{202e}', '\u{9b}'] {
            assert!(
                !shown.contains(bad),
                "`wsl-place {}` passed {bad:?} on: {shown:?}",
                args.join(" ")
            );
        }
        if let Some(secret) = self.secret {
            assert!(
                !support::text(&out).contains(secret),
                "`wsl-place {}` showed what a link out of the repository reaches: {}",
                args.join(" "),
                support::text(&out)
            );
        }
        let ran: Vec<String> = std::fs::read_dir(self.markers())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            ran.is_empty(),
            "`wsl-place {}` in {} ran the repository's code: {ran:?}\n{}",
            args.join(" "),
            dir.display(),
            support::text(&out)
        );
        let after = self.outside(repo);
        let changed: Vec<&PathBuf> = after
            .iter()
            .filter(|(p, v)| before.get(*p) != Some(v))
            .map(|(p, _)| p)
            .chain(before.keys().filter(|p| !after.contains_key(*p)))
            .collect();
        assert!(
            changed.is_empty(),
            "`wsl-place {}` in {} changed files outside: {changed:?}\n{}",
            args.join(" "),
            dir.display(),
            support::text(&out)
        );
        out
    }

    /// Every command, in the order a person meets them, on the repository at `repo`.
    fn every_command(&self, repo: &Path) {
        let before = self.outside(repo);
        let repo_arg = repo.to_str().unwrap();
        let budget = ["--probe-budget-ms", "300"];
        let check = |extra: &[&str]| {
            let args: Vec<&str> = ["check"]
                .iter()
                .chain(&budget)
                .chain(extra)
                .copied()
                .collect();
            self.step(repo, repo, &args, &before)
        };
        check(&[]);
        check(&["--fresh"]);
        check(&["--verify"]);
        check(&["--advisory"]);
        self.step(repo, repo, &["__nudge", "--learn"], &before);
        self.step(
            repo,
            &self.repos(),
            &["survey", "--probe-budget-ms", "300", "."],
            &before,
        );
        self.step(
            repo,
            repo,
            &["probe", "--probe-budget-ms", "300", "."],
            &before,
        );
        self.step(repo, repo, &["hook", "install"], &before);
        self.step(repo, repo, &["hook", "uninstall"], &before);
        self.step(repo, repo, &["migrate", "--yes", repo_arg], &before);
        std::fs::write(repo.join("late.txt"), "late edit\n").unwrap();
        self.step(
            repo,
            repo,
            &["migrate", "--sync", "--yes", repo_arg],
            &before,
        );
        self.step(repo, repo, &["check", "--verify", "."], &before);
        self.step(
            repo,
            repo,
            &["migrate", "--abort", "--yes", repo_arg],
            &before,
        );
        self.step(repo, repo, &["migrate", "--yes", repo_arg], &before);
        let parent = repo.parent().unwrap();
        self.step(
            repo,
            parent,
            &["migrate", "--remove-source", "--yes", repo_arg],
            &before,
        );
    }

    /// git payloads: the config (fsmonitor, filters and their process driver, diff and merge
    /// drivers, pager, editor, ssh, credential helper, an include holding more), attributes
    /// that ask for them, and every hook.
    fn plant_git(&self, repo: &Path) {
        let included = repo.join(".git/more.config");
        let config = format!(
            "[core]\n\tfsmonitor = {fsm}\n\tpager = {pager}\n\teditor = {editor}\n\tsshCommand = {ssh}\n\taskPass = {ask}\n\
             [filter \"evil\"]\n\tclean = {clean}\n\tsmudge = {smudge}\n\tprocess = {process}\n\trequired = true\n\
             [diff \"evil\"]\n\ttextconv = {textconv}\n\tcommand = {diffcmd}\n[diff]\n\texternal = {external}\n\
             [merge \"evil\"]\n\tdriver = {merge}\n[credential]\n\thelper = !{cred}\n\
             [gc]\n\tauto = 1\n[include]\n\tpath = {included}\n",
            fsm = self.touch("fsmonitor"),
            pager = self.touch("pager"),
            editor = self.touch("editor"),
            ssh = self.touch("ssh"),
            ask = self.touch("askpass"),
            clean = self.touch("clean"),
            smudge = self.touch("smudge"),
            process = self.touch("process"),
            textconv = self.touch("textconv"),
            diffcmd = self.touch("diffcmd"),
            external = self.touch("external"),
            merge = self.touch("merge"),
            cred = self.touch("credential"),
            included = included.display(),
        );
        let mut text = std::fs::read_to_string(repo.join(".git/config")).unwrap();
        text.push_str(&config);
        std::fs::write(repo.join(".git/config"), text).unwrap();
        std::fs::write(
            &included,
            format!(
                "[core]\n\tfsmonitor = {}\n[filter \"inc\"]\n\tclean = {}\n",
                self.touch("included-fsmonitor"),
                self.touch("included-clean")
            ),
        )
        .unwrap();
        write(
            &repo.join(".gitattributes"),
            b"* filter=evil diff=evil merge=evil\n*.md filter=inc\n",
        );
        for hook in [
            "pre-commit",
            "post-checkout",
            "post-merge",
            "post-index-change",
            "post-rewrite",
            "reference-transaction",
            "pre-auto-gc",
            "fsmonitor-watchman",
            "post-commit",
        ] {
            support::write_executable(
                &repo.join(".git/hooks").join(hook),
                &format!("#!/bin/sh\n{}\n", self.touch(&format!("hook-{hook}"))),
            );
        }
    }
}

/// A Python package whose in-tree build backend leaves marker `name` when imported.
fn evil_python_package(bar: &Bar, dir: &Path, name: &str) {
    support::payloads::evil_python_package(dir, &bar.touch(name));
}

fn committed(repo: &Path) {
    init_and_commit_all(repo, "init");
}

/// A repository named `git` holding a `config` (so that a destination of `~/.config` would make
/// it git's global config), its `.wsl-place.toml` asking for that, every git payload, a
/// requirements line that is a path with a pip option, one that is a URL, a planted link where
/// the virtualenv rewrite once put its temporary file, and a real virtualenv.
fn repository_of_git_payloads(bar: &Bar) -> PathBuf {
    let repo = bar.repos().join("git");
    write(&repo.join("config"), b"[core]\n\tbare = false\n");
    write(&repo.join("README.md"), b"hello\n");
    write(
        &repo.join(".wsl-place.toml"),
        b"[migrate]\ndestination = \"~/.config\"\n",
    );
    let evil = bar.sandbox.path("evilpkg");
    evil_python_package(bar, &evil, "pip-path");
    write(
        &repo.join("requirements.txt"),
        format!(
            "{} --config-settings=a==1\nevil2 @ file://{}?x==1.0\n",
            evil.display(),
            evil.display()
        )
        .as_bytes(),
    );
    std::fs::create_dir_all(repo.join(".venv")).unwrap();
    std::os::unix::fs::symlink(
        "../../../.bashrc",
        repo.join(".venv/.pyvenv.cfg.wsl-place-rewrite"),
    )
    .unwrap();
    committed(&repo);
    let venv = Command::new("python3")
        .args(["-m", "venv", "--without-pip", ".venv"])
        .current_dir(&repo)
        .status();
    assert!(venv.is_ok_and(|s| s.success()), "python3 -m venv");
    bar.plant_git(&repo);
    repo
}

/// A yarn classic project whose `.yarnrc` names the program yarn runs, whose lock names a
/// `file:` package and a git one beside a registry one, and whose `package.json` names a
/// `packageManager` and lifecycle scripts.
fn repository_of_yarn_payloads(bar: &Bar) -> PathBuf {
    let repo = bar.repos().join("yarnproject");
    write(
        &repo.join("evil.js"),
        format!(
            "#!/usr/bin/env node\nrequire('child_process').execSync({:?});\nconsole.log('1.22.22');\n",
            bar.touch("yarn-path")
        )
        .as_bytes(),
    );
    write(&repo.join(".yarnrc"), b"yarn-path \"./evil.js\"\n");
    write(
        &repo.join(".npmrc"),
        format!("script-shell={}\n", bar.sandbox.path("evil.sh").display()).as_bytes(),
    );
    support::write_executable(
        &bar.sandbox.path("evil.sh"),
        &format!("#!/bin/sh\n{}\n", bar.touch("script-shell")),
    );
    write(
        &repo.join("package.json"),
        format!(
            r#"{{"name":"p","version":"1.0.0","packageManager":"yarn@1.22.22","scripts":{{"prepare":"{0}","postinstall":"{0}"}},"dependencies":{{"ms":"2.1.2","local":"file:../local"}}}}"#,
            bar.touch("lifecycle").replace('\'', "")
        )
        .as_bytes(),
    );
    write(
        &repo.join("yarn.lock"),
        b"# yarn lockfile v1\n\n\n\"local@file:../local\":\n  version \"1.0.0\"\n  resolved \"file:../local\"\n\nms@2.1.2:\n  version \"2.1.2\"\n  resolved \"https://registry.yarnpkg.com/ms/-/ms-2.1.2.tgz#4e0d6\"\n  integrity sha512-sGkPx+VjMtmA6MX27oA4FBFELFCZZ4S4XqeGOXCv68tT+jb3vk/RyaKWP0PTKyWtmLSM0b+adUTEvbs1PEaH2w==\n",
    );
    committed(&repo);
    repo
}

/// A pnpm project whose committed `node_modules/.modules.yaml` names a store in the person's
/// `bin` folder, and whose lock names a directory and a tarball by path.
fn repository_of_pnpm_payloads(bar: &Bar) -> PathBuf {
    let repo = bar.repos().join("pnpmproject");
    write(
        &repo.join("package.json"),
        br#"{"name":"p","version":"1.0.0","dependencies":{"ms":"2.1.2"}}"#,
    );
    write(
        &repo.join("pnpm-lock.yaml"),
        b"lockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    dependencies:\n      ms:\n        specifier: 2.1.2\n        version: 2.1.2\n      x:\n        specifier: file:../x\n        version: file:../x\n\npackages:\n\n  ms@2.1.2:\n    resolution: {integrity: sha512-sGkPx+VjMtmA6MX27oA4FBFELFCZZ4S4XqeGOXCv68tT+jb3vk/RyaKWP0PTKyWtmLSM0b+adUTEvbs1PEaH2w==}\n\n  x@file:../x:\n    resolution: {directory: ../x, type: directory}\n\nsnapshots:\n\n  ms@2.1.2: {}\n\n  x@file:../x: {}\n",
    );
    write(
        &repo.join("node_modules/.modules.yaml"),
        format!(
            "storeDir: {}\nvirtualStoreDir: .pnpm\n",
            bar.sandbox.path("bin").display()
        )
        .as_bytes(),
    );
    write(
        &repo.join("node_modules/ms/package.json"),
        br#"{"name":"ms","version":"2.1.2"}"#,
    );
    committed(&repo);
    repo
}

/// A uv project whose lock names a directory that, from a folder directly in HOME, reaches a
/// package with an in-tree build backend, and whose `pyproject.toml` names a cache in the
/// person's `bin` folder and its own build backend.
fn repository_of_uv_payloads(bar: &Bar) -> PathBuf {
    let repo = bar.repos().join("uvproject");
    evil_python_package(bar, &bar.sandbox.path("evil"), "uv-directory");
    evil_python_package(bar, &repo, "uv-backend");
    let pyproject = format!(
        "[project]\nname = \"proj\"\nversion = \"0.1.0\"\nrequires-python = \">=3.8\"\ndependencies = [\"evilpkg\"]\n\n[build-system]\nrequires = []\nbuild-backend = \"backend\"\nbackend-path = [\".\"]\n\n[tool.uv]\ncache-dir = {:?}\n\n[tool.uv.sources]\nevilpkg = {{ path = \"../evil\" }}\n",
        bar.sandbox.path("bin/uv-cache").display().to_string()
    );
    write(&repo.join("pyproject.toml"), pyproject.as_bytes());
    write(
        &repo.join("uv.lock"),
        b"version = 1\nrevision = 3\nrequires-python = \">=3.8\"\n\n[[package]]\nname = \"evilpkg\"\nversion = \"1.0\"\nsource = { directory = \"../evil\" }\n\n[[package]]\nname = \"proj\"\nversion = \"0.1.0\"\nsource = { editable = \".\" }\ndependencies = [\n    { name = \"evilpkg\" },\n]\n",
    );
    committed(&repo);
    repo
}

#[test]
fn a_repository_of_git_payloads_through_every_command() {
    if !support::have_program("python3") {
        return;
    }
    let bar = Bar::new();
    let repo = repository_of_git_payloads(&bar);
    // The payloads are live: a plain git status there runs them.
    let plain = Command::new("git")
        .args(["status", "--porcelain"])
        .current_dir(&repo)
        .env("HOME", bar.sandbox.home())
        .output()
        .unwrap();
    let live = std::fs::read_dir(bar.markers()).unwrap().count();
    assert!(live > 0, "{}", support::text(&plain));
    std::fs::remove_dir_all(bar.markers()).unwrap();
    std::fs::create_dir_all(bar.markers()).unwrap();
    bar.every_command(&repo);
    assert!(
        !bar.sandbox.config().join("git").exists(),
        "the repository chose its destination"
    );
    assert!(bar.sandbox.path("src/git/config").is_file());
}

#[test]
fn a_yarn_repository_through_every_command() {
    if !support::have_program("yarn") {
        return;
    }
    let bar = Bar::new();
    let repo = repository_of_yarn_payloads(&bar);
    bar.every_command(&repo);
}

#[test]
fn a_pnpm_repository_through_every_command() {
    if !support::have_program("pnpm") {
        return;
    }
    let bar = Bar::new();
    let repo = repository_of_pnpm_payloads(&bar);
    bar.every_command(&repo);
}

#[test]
fn a_uv_repository_through_every_command() {
    if !support::have_program("uv") {
        return;
    }
    let bar = Bar::new();
    let repo = repository_of_uv_payloads(&bar);
    bar.every_command(&repo);
}

/// Issue 64: git's pointers that lead out of the repository, each in a repository of its own
/// (one refused pointer would hide the next): `.git` a link or a `gitdir:` file naming another
/// repository, `objects/info/alternates` borrowing its objects, `.git/index` a link to another repository's index
/// (git writes an index through its link), `commondir` naming another repository (git keeps
/// refs, hooks and history there), `.git/config` a link out, a FIFO among the loose refs (every
/// command that reads all refs would wait on it), and `.git/info` a link out (a sync writes
/// its exclude file there). The other repository is in HOME, where no write is allowed.
fn repositories_of_pointer_payloads(bar: &Bar) -> Vec<PathBuf> {
    let other = bar.sandbox.path("other");
    write(&other.join("o.txt"), b"other\n");
    committed(&other);
    type Plant = fn(&Path, &Path);
    let plant: [(&str, Plant); 8] = [
        ("dotgitlink", |repo, other| {
            std::fs::remove_dir_all(repo.join(".git")).unwrap();
            std::os::unix::fs::symlink(other.join(".git"), repo.join(".git")).unwrap();
        }),
        ("dotgitfile", |repo, other| {
            std::fs::remove_dir_all(repo.join(".git")).unwrap();
            std::fs::write(
                repo.join(".git"),
                format!("gitdir: {}\n", other.join(".git").display()),
            )
            .unwrap();
        }),
        ("alternates", |repo, other| {
            std::fs::write(
                repo.join(".git/objects/info/alternates"),
                format!("{}\n", other.join(".git/objects").display()),
            )
            .unwrap();
        }),
        ("linkedindex", |repo, other| {
            std::fs::remove_file(repo.join(".git/index")).unwrap();
            // From `~/<folder>/<repo>/.git`, the same link reaches `~/other` at the old place and
            // at the copy.
            let _ = other;
            std::os::unix::fs::symlink("../../../other/.git/index", repo.join(".git/index"))
                .unwrap();
        }),
        ("commondir", |repo, other| {
            std::fs::write(
                repo.join(".git/commondir"),
                format!("{}\n", other.join(".git").display()),
            )
            .unwrap();
        }),
        ("linkedconfig", |repo, _| {
            std::fs::remove_file(repo.join(".git/config")).unwrap();
            std::os::unix::fs::symlink("../../../other/.git/config", repo.join(".git/config"))
                .unwrap();
        }),
        ("fiforef", |repo, _| {
            support::tree::mkfifo(&repo.join(".git/refs/tags/hang"));
        }),
        ("linkedinfo", |repo, _| {
            std::fs::remove_dir_all(repo.join(".git/info")).unwrap();
            std::os::unix::fs::symlink("../../../other/.git/info", repo.join(".git/info")).unwrap();
        }),
    ];
    plant
        .into_iter()
        .map(|(name, plant)| {
            let repo = bar.repos().join(name);
            write(&repo.join("a.txt"), b"a\n");
            write(
                &repo.join("package.json"),
                br#"{"name":"p","version":"1.0.0"}"#,
            );
            committed(&repo);
            plant(&repo, &other);
            repo
        })
        .collect()
}

#[test]
fn git_pointers_out_of_the_repository_through_every_command() {
    let mut bar = Bar::new();
    bar.refusals_allowed = true;
    for repo in repositories_of_pointer_payloads(&bar) {
        bar.every_command(&repo);
    }
}

/// Every file the tool reads from a repository itself, where a FIFO or a link would stand.
const TOOL_READ: [&str; 11] = [
    "package.json",
    "package-lock.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lock",
    "requirements.txt",
    "requirements-dev.txt",
    "uv.lock",
    "pyproject.toml",
    ".gitmodules",
    ".python-version",
];

/// The files git and gix read in a repository's git folder; one in place of any of them refuses
/// the repository, so each has a repository of its own.
const GIT_READ: [&str; 7] = [
    "index",
    "HEAD",
    "config",
    "packed-refs",
    "info/exclude",
    "info/attributes",
    "refs/tags/v1",
];

/// Issue 64: a FIFO for every file the tool reads (all in one repository) and for each file git
/// reads (a repository each), through every command: each ends, runs nothing, writes nothing
/// outside.
#[test]
fn a_fifo_for_every_file_read_through_every_command() {
    let mut bar = Bar::new();
    bar.refusals_allowed = true;
    let repo = bar.repos().join("fifos");
    write(&repo.join("a.txt"), b"a\n");
    committed(&repo);
    for file in TOOL_READ {
        support::tree::mkfifo(&repo.join(file));
    }
    bar.every_command(&repo);
    for file in GIT_READ {
        let repo = bar.repos().join(format!("git-{}", file.replace('/', "-")));
        write(&repo.join("a.txt"), b"a\n");
        committed(&repo);
        support::gitrepo::git(&repo, &["tag", "v0"]);
        let planted = repo.join(".git").join(file);
        let _ = std::fs::remove_file(&planted);
        std::fs::create_dir_all(planted.parent().unwrap()).unwrap();
        support::tree::mkfifo(&planted);
        bar.every_command(&repo);
    }
    // A config that includes a FIFO elsewhere: git's own runs stop at their limits, and
    // nothing of the tool's reads it in-process.
    let repo = bar.repos().join("git-include");
    write(&repo.join("a.txt"), b"a\n");
    committed(&repo);
    let fifo = bar.sandbox.path("included.fifo");
    support::tree::mkfifo(&fifo);
    support::gitrepo::git(&repo, &["config", "include.path", fifo.to_str().unwrap()]);
    bar.every_command(&repo);
}

/// Issue 64: a link out of the repository for every file the tool reads, `.wsl-place.toml`
/// among them, each to a file of the person's: no command reads it, so no output shows it.
#[test]
fn a_link_out_for_every_file_read_through_every_command() {
    let mut bar = Bar::new();
    bar.refusals_allowed = true;
    bar.secret = Some("GITHUB_TOKEN");
    let secret = bar.sandbox.path("secret.toml");
    std::fs::write(&secret, "GITHUB_TOKEN = \"ghp_x\"\n").unwrap();
    let repo = bar.repos().join("links");
    write(&repo.join("a.txt"), b"a\n");
    committed(&repo);
    for file in TOOL_READ.iter().chain(&[".wsl-place.toml"]) {
        std::os::unix::fs::symlink(&secret, repo.join(file)).unwrap();
    }
    bar.every_command(&repo);
}

/// Issue 64: a repository whose name holds ESC, BEL, an OSC title sequence and U+202E goes
/// through every command, in every output format `check` has: no command passes one of them on.
#[test]
fn a_name_with_control_characters_through_every_command() {
    let bar = Bar::new();
    let repo = bar
        .repos()
        .join("evil\u{1b}]0;pwned\u{7}\u{1b}[31m\u{202e}txt.exe");
    write(&repo.join("a.txt"), b"a\n");
    committed(&repo);
    let before = bar.outside(&repo);
    for format in ["markdown", "github", "json"] {
        bar.step(
            &repo,
            &repo,
            &["check", "--probe-budget-ms", "300", "--format", format],
            &before,
        );
    }
    bar.every_command(&repo);
}
