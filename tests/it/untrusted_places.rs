//! A repository may not choose where wsl-place writes outside it (issue 49): not by its own
//! `.wsl-place.toml`, not by a link planted where the tool puts a temporary file.

use crate::support;
use crate::support::Run;

use std::path::Path;
use std::process::Command;
use support::gitrepo::{init_and_commit_all, write};
use support::sandbox::Sandbox;
use support::text;

/// A repository folder named `git` holding a `config`, whose `.wsl-place.toml` asks `migrate` to
/// put it in `~/.config`: it would become `~/.config/git`, git's own global config. The
/// destination is the person's default; one line says the repository's was ignored.
#[test]
fn a_repositorys_destination_is_ignored() {
    let sandbox = Sandbox::new();
    let repo = sandbox.path("work/git");
    let marker = sandbox.path("../fsmonitor-ran");
    write(
        &repo.join("config"),
        format!("[core]\n\tfsmonitor = touch {}\n", marker.display()).as_bytes(),
    );
    write(
        &repo.join(".wsl-place.toml"),
        b"[migrate]\ndestination = \"~/.config\"\n",
    );
    init_and_commit_all(&repo, "init");
    let out = sandbox.cmd().args(["migrate", "--yes"]).arg(&repo).run();
    let said = text(&out);
    out.ok();
    assert!(
        !sandbox.config().join("git").exists(),
        "the repository chose its destination: {said}"
    );
    assert!(sandbox.path("src/git/config").is_file(), "{said}");
    let words = said.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains(
            "sets [migrate] destination = \"~/.config\"; ignored: a repository may not choose where wsl-place writes outside it"
        ),
        "{words}"
    );
    // The person's own choice on the command line is honoured.
    let policy = sandbox.path("mine.toml");
    std::fs::write(&policy, "[migrate]\ndestination = \"~/code\"\n").unwrap();
    let planned = sandbox
        .cmd()
        .args(["migrate", "--dry-run", "--format", "json", "--policy"])
        .arg(&policy)
        .arg(sandbox.path("src/git"))
        .run();
    let plan = support::json_of(&planned);
    assert!(
        plan["destination"]
            .as_str()
            .is_some_and(|d| d.ends_with("/code/git")),
        "{plan}"
    );
}

/// A link committed where the virtualenv rewrite once put its temporary file
/// (`.venv/.pyvenv.cfg.wsl-place-rewrite`), pointing at the person's `~/.bashrc`: the rewrite
/// makes its temporary under a name no one can predict, and `~/.bashrc` is untouched.
#[test]
fn a_planted_link_never_redirects_a_rewrite() {
    let python = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !python {
        support::skip("python3 is not installed");
        return;
    }
    let sandbox = Sandbox::new();
    let bashrc = sandbox.path(".bashrc");
    std::fs::write(&bashrc, "# the person's own\n").unwrap();
    let repo = sandbox.path("work/project");
    write(&repo.join("README.md"), b"hello\n");
    std::fs::create_dir_all(repo.join(".venv")).unwrap();
    std::os::unix::fs::symlink(
        "../../../.bashrc",
        repo.join(".venv/.pyvenv.cfg.wsl-place-rewrite"),
    )
    .unwrap();
    assert!(repo.join(".venv/.pyvenv.cfg.wsl-place-rewrite").exists());
    init_and_commit_all(&repo, "init");
    let made = Command::new("python3")
        .args(["-m", "venv", "--without-pip", ".venv"])
        .current_dir(&repo)
        .status()
        .unwrap();
    assert!(made.success());
    let out = sandbox.cmd().args(["migrate", "--yes"]).arg(&repo).run();
    let said = text(&out);
    out.ok();
    assert_eq!(
        std::fs::read_to_string(&bashrc).unwrap(),
        "# the person's own\n",
        "the rewrite wrote through the planted link: {said}"
    );
    let copy = sandbox.path("src/project/.venv/pyvenv.cfg");
    let cfg = std::fs::read_to_string(&copy).unwrap();
    // The rewrite did run: the copy's pyvenv.cfg names the copy, not the source.
    assert!(!cfg.contains(&format!("{}/.venv", repo.display())), "{cfg}");
    assert!(is_untouched_link(
        &sandbox.path("src/project/.venv/.pyvenv.cfg.wsl-place-rewrite")
    ));
}

/// The planted link arrives at the copy as a link (the migration copies what is there).
fn is_untouched_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}
