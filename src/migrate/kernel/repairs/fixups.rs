//! What moving breaks: absolute `gitdir:` links, Windows-clone settings in `.git/config`, modes
//! that drvfs made uniform, and a git index whose stat data no longer matches.
//!
//! Every step is idempotent, so a finalisation interrupted here is simply run again.

use crate::base::error::Result;
use crate::host::git;
use crate::measure::gitsettings;
use serde::Serialize;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

/// Files git makes beside the ones it rewrites in a fix-up (`index.lock`, `config.lock`), each
/// an inode until it is renamed over the old file.
pub const GIT_LOCK_FILES: u64 = 2;

/// A `.git/config` value that is wrong on ext4.
#[derive(Debug, Clone, Serialize)]
pub struct ConfigIssue {
    #[serde(with = "crate::base::pathtext::json")]
    pub repo: PathBuf,
    pub key: String,
    pub value: String,
    pub reset_to: Option<String>,
    /// True for values drvfs itself caused (git probed a Windows file system at clone time).
    pub drvfs_caused: bool,
    pub why: String,
    /// The answer: set it to `reset_to` in the copy.
    pub reset: bool,
}

/// In JSON (`report/text/fixups.rs`): `done` and `advice` as sentences, `done_kind` and
/// `advice_kind` the same typed.
#[derive(Debug, Clone, Default)]
pub struct FixupReport {
    /// What was changed.
    pub done: Vec<Fixed>,
    /// What was noticed and left for the user.
    pub advice: Vec<FixupAdvice>,
}

/// What a fix-up after the move changed. Worded in report/text/fixups.rs; JSON carries the
/// words (`fixups.done`) and this, typed (`fixups.done_kind`).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Fixed {
    /// A `.git` or worktree `gitdir` file pointed into the copy.
    LinkPointed {
        #[serde(with = "crate::base::pathtext::json")]
        file: PathBuf,
    },
    /// Executable bits of tracked files set from the index.
    ModesFromIndex {
        #[serde(with = "crate::base::pathtext::json")]
        repo: PathBuf,
        files: u64,
    },
    /// A `.git/config` value set to `value`.
    ConfigSet { issue: ConfigIssue, value: String },
    IndexRefreshed {
        #[serde(with = "crate::base::pathtext::json")]
        repo: PathBuf,
    },
    /// `key` (core.worktree, core.hooksPath) in `config` pointed from `old` to `new`.
    GitPathPointed {
        key: &'static str,
        #[serde(with = "crate::base::pathtext::json")]
        config: PathBuf,
        old: String,
        #[serde(with = "crate::base::pathtext::json")]
        new: PathBuf,
    },
    /// A linked worktree moved along to `to` and linked both ways.
    WorktreeMoved {
        #[serde(with = "crate::base::pathtext::json")]
        worktree: PathBuf,
        #[serde(with = "crate::base::pathtext::json")]
        to: PathBuf,
    },
    /// The copy's `record` of a linked worktree that stays with the old copy, removed.
    WorktreeDetached {
        #[serde(with = "crate::base::pathtext::json")]
        worktree: PathBuf,
        #[serde(with = "crate::base::pathtext::json")]
        record: PathBuf,
    },
    /// A virtualenv rewritten to name the copy: `files` rewritten in `ms`, `tracked` left.
    VirtualenvPointed {
        venv: String,
        files: u64,
        ms: u128,
        tracked: u64,
    },
    /// The objects `repo` borrowed from the old place's stores (`objects/info/alternates`),
    /// packed into its own store in `ms`, and the pointer dropped.
    ObjectsMadeOwn {
        #[serde(with = "crate::base::pathtext::json")]
        repo: PathBuf,
        #[serde(serialize_with = "crate::base::pathtext::json::list")]
        borrowed: Vec<PathBuf>,
        ms: u128,
    },
}

/// What a fix-up noticed and left for the person, with what to run. Worded in
/// report/text/fixups.rs; JSON carries the words (`fixups.advice`) and this, typed
/// (`fixups.advice_kind`).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FixupAdvice {
    LinkNotRewritten {
        #[serde(with = "crate::base::pathtext::json")]
        file: PathBuf,
        error: String,
    },
    /// A `gitdir` link pointing outside the moved tree, at `target`.
    LinkOutside {
        #[serde(with = "crate::base::pathtext::json")]
        file: PathBuf,
        target: String,
    },
    /// A `.git/config` value with no right value to set: to review.
    ConfigToReview(ConfigIssue),
    ConfigNotSet {
        issue: ConfigIssue,
        value: String,
    },
    ConfigDeclined(ConfigIssue),
    /// The index refresh failed (`why`: git's words or its exit code).
    RefreshFailed {
        #[serde(with = "crate::base::pathtext::json")]
        repo: PathBuf,
        why: String,
    },
    /// The index refresh could not run or was stopped (one sentence).
    RefreshStopped {
        why: String,
    },
    /// The repository's own clean filter `driver`, not run by the refresh.
    FilterNotRun {
        driver: String,
        #[serde(with = "crate::base::pathtext::json")]
        repo: PathBuf,
    },
    GitPathNotSet {
        key: &'static str,
        #[serde(with = "crate::base::pathtext::json")]
        config: PathBuf,
        old: String,
        #[serde(with = "crate::base::pathtext::json")]
        new: PathBuf,
    },
    /// `repo`'s `.git`, `commondir`, `index` or `config` (`leads`) leads to `git_dir`, outside
    /// the copy: git's index there was not refreshed (it would write into another repository).
    GitDirOutside {
        #[serde(with = "crate::base::pathtext::json")]
        repo: PathBuf,
        leads: GitLeads,
        #[serde(with = "crate::base::pathtext::json")]
        git_dir: PathBuf,
    },
    /// `repo` still borrows objects from the old place (`objects/info/alternates`): its `.git`
    /// there must stay until this is fixed (`--remove-source` keeps it).
    StillBorrows {
        #[serde(with = "crate::base::pathtext::json")]
        repo: PathBuf,
        why: String,
    },
    /// `key` names `value`, outside both the old place and the copy.
    GitPathOutside {
        key: &'static str,
        value: String,
        #[serde(with = "crate::base::pathtext::json")]
        repo: PathBuf,
    },
    /// The moved worktree's `.git` could not be pointed at `admin`.
    WorktreeNotPointed {
        #[serde(with = "crate::base::pathtext::json")]
        dot_git: PathBuf,
        #[serde(with = "crate::base::pathtext::json")]
        admin: PathBuf,
        #[serde(with = "crate::base::pathtext::json")]
        destination: PathBuf,
        #[serde(with = "crate::base::pathtext::json")]
        moved: PathBuf,
        error: String,
    },
    /// `git worktree repair` failed (`said`: its stderr).
    WorktreeRepairFailed {
        #[serde(with = "crate::base::pathtext::json")]
        moved: PathBuf,
        #[serde(with = "crate::base::pathtext::json")]
        destination: PathBuf,
        said: String,
    },
    /// `git worktree repair` could not run or was stopped (`why`, one sentence).
    WorktreeRepairStopped {
        why: String,
        #[serde(with = "crate::base::pathtext::json")]
        destination: PathBuf,
        #[serde(with = "crate::base::pathtext::json")]
        moved: PathBuf,
    },
    WorktreeRecordLeft {
        #[serde(with = "crate::base::pathtext::json")]
        record: PathBuf,
        #[serde(with = "crate::base::pathtext::json")]
        destination: PathBuf,
        #[serde(with = "crate::base::pathtext::json")]
        worktree: PathBuf,
        error: String,
    },
    /// A linked worktree not moved (`why_not`), attached to the old copy `source`.
    WorktreeLeftBehind {
        #[serde(with = "crate::base::pathtext::json")]
        worktree: PathBuf,
        #[serde(with = "crate::base::pathtext::json")]
        source: PathBuf,
        why_not: Option<String>,
    },
    /// The repository's root is a virtualenv, left as it is; `recreate` makes it again.
    RootVirtualenv {
        recreate: String,
    },
    /// A virtualenv not rewritten (declined); `command` rewrites it.
    VirtualenvNotRewritten {
        venv: String,
        command: String,
    },
    /// A virtualenv not rewritten: which of its files git tracks cannot be told (`why`).
    VirtualenvUntold {
        venv: String,
        why: crate::measure::gitindex::GitProblem,
        command: String,
    },
    /// `files` of a virtualenv could not be rewritten, `first` the first error.
    VirtualenvFilesFailed {
        venv: String,
        files: u64,
        first: String,
        command: String,
    },
    /// A virtualenv Windows Python made, left behind; `recreate` makes it again in `folder`.
    VirtualenvLeftBehind {
        venv: String,
        folder: String,
        recreate: String,
    },
    /// An interrupted migration of this source elsewhere (its own sentence).
    InterruptedElsewhere {
        said: String,
    },
    /// A `node_modules` with native Windows builds (`examples`): copied (at `tree`, relative),
    /// or left behind (at `tree` in the source); `install` reinstalls it.
    WindowsBuilds {
        tree: String,
        skipped: bool,
        examples: String,
        install: String,
    },
    /// `--remove-source` asked, and the answer was no.
    RemovalNotConfirmed,
    /// Files changed at the old place since the migration; `sync` copies them.
    SourceChanged {
        #[serde(with = "crate::base::pathtext::json")]
        source: PathBuf,
        changed: u64,
        added: u64,
        modified: u64,
        removed: u64,
        sync: String,
    },
}

/// Which of a repository's pointers leads git out of the copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GitLeads {
    /// `.git` is a file (`gitdir: ...`) or a link.
    DotGit,
    /// The git folder's `commondir` (a linked worktree's record): its history is there.
    CommonDir,
    /// `index` is a link: git writes its index through it.
    Index,
    /// `config` is a link: git writes its settings through it.
    Config,
}

/// Replaces a leading `from` with `to` in an absolute path written by git; None if it does not
/// start there.
pub fn rebase(path: &Path, from: &Path, to: &Path) -> Option<PathBuf> {
    let rest = path.strip_prefix(from).ok()?;
    Some(if rest.as_os_str().is_empty() {
        to.to_path_buf()
    } else {
        to.join(rest)
    })
}

/// The new content of a `.git` file (`gitdir: <path>`) or a `worktrees/*/gitdir` file, if it
/// names a path inside the old tree.
pub fn rewrite_link(content: &[u8], prefix: &[u8], from: &Path, to: &Path) -> Option<Vec<u8>> {
    let text = content.strip_prefix(prefix)?;
    let end = text
        .iter()
        .rposition(|b| *b != b'\n' && *b != b'\r')
        .map_or(0, |i| i + 1);
    let target = Path::new(std::ffi::OsStr::from_bytes(&text[..end]));
    if !target.is_absolute() {
        return None;
    }
    let rebased = rebase(target, from, to)?;
    let mut out = prefix.to_vec();
    out.extend_from_slice(rebased.as_os_str().as_bytes());
    out.extend_from_slice(&text[end..]);
    Some(out)
}

fn rewrite_file(path: &Path, prefix: &[u8], from: &Path, to: &Path, report: &mut FixupReport) {
    let Ok(content) = crate::base::repo_file::read_at(path, crate::base::repo_file::MANIFEST_LIMIT)
    else {
        return;
    };
    match rewrite_link(&content, prefix, from, to) {
        Some(new) if new != content => match crate::base::input::replace_whole(path, &new, None) {
            Ok(()) => report.done.push(Fixed::LinkPointed {
                file: path.to_path_buf(),
            }),
            Err(e) => report.advice.push(FixupAdvice::LinkNotRewritten {
                file: path.to_path_buf(),
                error: e.to_string(),
            }),
        },
        Some(_) => {}
        None => {
            let text = String::from_utf8_lossy(&content);
            let target = text
                .trim_start_matches(std::str::from_utf8(prefix).unwrap_or(""))
                .trim();
            // A worktree record pointing outside is the worktrees' own business (worktrees.rs).
            if !prefix.is_empty()
                && Path::new(target).is_absolute()
                && !Path::new(target).starts_with(to)
            {
                report.advice.push(FixupAdvice::LinkOutside {
                    file: path.to_path_buf(),
                    target: target.to_string(),
                });
            }
        }
    }
}

/// Finds `.git` files and `.git/worktrees/*/gitdir` files in the destination and rebases every
/// absolute path that pointed into the source.
pub fn repair_links(source: &Path, dest: &Path, report: &mut FixupReport) -> Vec<PathBuf> {
    let mut worktrees = Vec::new();
    let walk = walkdir::WalkDir::new(dest)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.file_name() != "node_modules" && e.file_name() != "objects");
    for item in walk.flatten() {
        let name = item.file_name();
        if name == ".git" {
            if item.file_type().is_file() {
                rewrite_file(item.path(), b"gitdir: ", source, dest, report);
            }
            if let Some(parent) = item.path().parent() {
                worktrees.push(parent.to_path_buf());
            }
        } else if name == "gitdir"
            && item.file_type().is_file()
            && item
                .path()
                .parent()
                .and_then(Path::parent)
                .is_some_and(|p| p.file_name().is_some_and(|n| n == "worktrees"))
        {
            rewrite_file(item.path(), b"", source, dest, report);
        }
    }
    worktrees
}

/// `git args` in `repo`, its own programs overridden (`host::git`); Err, one sentence naming
/// the run as `what`, when git cannot be started there, the repository's configuration cannot
/// be read, or it ran past `limit`.
fn git_within(
    repo: &Path,
    args: &[&str],
    what: &str,
    limit: Duration,
) -> std::result::Result<Output, String> {
    let defused = git::defuse(repo)?;
    let mut cmd = git::in_repo(repo, &defused);
    cmd.args(args);
    git::run(cmd, limit).map_err(|stop| stop.sentence(what, repo))
}

fn git(repo: &Path, args: &[&str]) -> Option<Output> {
    git_within(repo, args, "git", git::QUICK_LIMIT).ok()
}

/// The repository's own value of `key`, from the one configuration listing each run reads
/// (`git::defuse`): no git is started per key.
fn config_get(repo: &Path, key: &str) -> Option<String> {
    git::defuse(repo).ok()?.local(key).map(str::to_string)
}

/// The settings a Windows-side clone leaves behind that are wrong on ext4.
pub fn config_issues(repo: &Path) -> Vec<ConfigIssue> {
    let mut issues = Vec::new();
    let is_true = gitsettings::is_true;
    if let Some(v) = config_get(repo, "core.filemode")
        && !is_true(&v)
    {
        issues.push(ConfigIssue {
            repo: repo.to_path_buf(),
            key: "core.fileMode".into(),
            value: v,
            reset_to: Some("true".into()),
            drvfs_caused: true,
            reset: false,
            why: "drvfs shows every file with the same mode, so git stopped tracking the executable bit; ext4 keeps real modes".into(),
        });
    }
    if let Some(v) = config_get(repo, "core.ignorecase")
        && is_true(&v)
    {
        issues.push(ConfigIssue {
            repo: repo.to_path_buf(),
            key: "core.ignoreCase".into(),
            value: v,
            reset_to: Some("false".into()),
            drvfs_caused: true,
            reset: false,
            why: "the repository was created on a case-insensitive Windows drive; ext4 tells README from readme".into(),
        });
    }
    if let Some(v) = config_get(repo, "core.autocrlf")
        && !v.eq_ignore_ascii_case("false")
    {
        issues.push(ConfigIssue {
            repo: repo.to_path_buf(),
            key: "core.autocrlf".into(),
            value: v,
            reset_to: None,
            drvfs_caused: false,
            reset: false,
            why: "CRLF conversion is a Windows convention; Linux tools expect LF (unset it if the files should have LF)".into(),
        });
    }
    issues
}

/// Sets the executable bit of every tracked file from the index, as it was before drvfs made all
/// modes alike; untracked files keep their modes.
fn modes_from_index(repo: &Path, report: &mut FixupReport) {
    let listed = git_within(
        repo,
        &["ls-files", "-s", "-z"],
        "git ls-files",
        git::work_limit(None),
    );
    let Ok(out) = listed else {
        return;
    };
    if !out.status.success() {
        return;
    }
    let mut changed = 0u64;
    for record in out.stdout.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let Some(tab) = record.iter().position(|b| *b == b'\t') else {
            continue;
        };
        let (meta, path) = (&record[..tab], &record[tab + 1..]);
        let executable = meta.starts_with(b"100755");
        if !meta.starts_with(b"100") {
            continue;
        }
        let file = repo.join(std::ffi::OsStr::from_bytes(path));
        let Ok(m) = crate::base::dirfd::lstat(&file) else {
            continue;
        };
        if !m.is_file() {
            continue;
        }
        let mode = m.mode() & 0o7777;
        let wanted = if executable {
            mode | ((mode & 0o444) >> 2)
        } else {
            mode & !0o111
        };
        if wanted != mode && crate::base::dirfd::chmod(&file, wanted).is_ok() {
            changed += 1;
        }
    }
    if changed > 0 {
        report.done.push(Fixed::ModesFromIndex {
            repo: repo.to_path_buf(),
            files: changed,
        });
    }
}

/// Applies one accepted config reset.
pub fn apply(issue: &ConfigIssue, report: &mut FixupReport) {
    let Some(value) = &issue.reset_to else {
        report
            .advice
            .push(FixupAdvice::ConfigToReview(issue.clone()));
        return;
    };
    if issue.key == "core.fileMode" {
        modes_from_index(&issue.repo, report);
    }
    match git(&issue.repo, &["config", "--local", &issue.key, value]) {
        Some(out) if out.status.success() => report.done.push(Fixed::ConfigSet {
            issue: issue.clone(),
            value: value.clone(),
        }),
        _ => report.advice.push(FixupAdvice::ConfigNotSet {
            issue: issue.clone(),
            value: value.clone(),
        }),
    }
}

pub fn decline(issue: &ConfigIssue, report: &mut FixupReport) {
    report
        .advice
        .push(FixupAdvice::ConfigDeclined(issue.clone()));
}

/// Re-stats every tracked file so the first `git status` is not a full re-hash; stopped past
/// [`git::work_limit`] of `predicted_ms`, the refresh that would take. The work tree is named
/// (`repo` itself): a `core.worktree` the configuration still holds never takes it elsewhere.
pub fn refresh_index(
    repo: &Path,
    predicted_ms: Option<f64>,
    report: &mut FixupReport,
) -> Result<()> {
    let what = "git update-index --refresh";
    let refreshed = git_within(
        repo,
        &["--work-tree=.", "update-index", "-q", "--refresh"],
        what,
        git::work_limit(predicted_ms),
    );
    match refreshed {
        Ok(out) if out.status.success() || out.status.code() == Some(1) => {
            report.done.push(Fixed::IndexRefreshed {
                repo: repo.to_path_buf(),
            });
        }
        Ok(out) => report.advice.push(FixupAdvice::RefreshFailed {
            repo: repo.to_path_buf(),
            why: refresh_failure(repo, &out),
        }),
        Err(why) => report.advice.push(FixupAdvice::RefreshStopped { why }),
    }
    // Read once per repository, so this costs nothing after the refresh's own read.
    if let Ok(defused) = git::defuse(repo) {
        for driver in &defused.filters_not_run {
            report.advice.push(FixupAdvice::FilterNotRun {
                driver: driver.clone(),
                repo: repo.to_path_buf(),
            });
        }
    }
    Ok(())
}

/// Why the refresh failed: git's own words, or (`-q` silences even its fatal line) its exit
/// code and the index lock when one is there.
fn refresh_failure(repo: &Path, out: &Output) -> String {
    let said = String::from_utf8_lossy(&out.stderr).trim().to_string();
    if !said.is_empty() {
        return said;
    }
    let code = out
        .status
        .code()
        .map_or("no exit code".to_string(), |c| format!("exit code {c}"));
    let lock = repo.join(".git").join("index.lock");
    match crate::base::dirfd::lstat(&lock) {
        Ok(_) => format!(
            "{code}: {} exists, so git will not write the index; remove it once no git runs there",
            lock.display()
        ),
        Err(_) => format!("{code}, and git said nothing more"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refresh_git_fails_quietly_says_why() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path();
        let init = crate::base::process::command("git")
            .args(["init", "-q"])
            .arg(repo)
            .status()
            .unwrap();
        assert!(init.success());
        std::fs::write(repo.join("a.txt"), b"a\n").unwrap();
        let add = crate::base::process::command("git")
            .arg("-C")
            .arg(repo)
            .args(["add", "a.txt"])
            .status()
            .unwrap();
        assert!(add.success());
        std::fs::write(repo.join(".git/index.lock"), b"").unwrap();
        let mut report = FixupReport::default();
        refresh_index(repo, None, &mut report).unwrap();
        let said = format!("{:?}", report.advice);
        assert!(
            said.contains("exit code 128") && said.contains("index.lock exists"),
            "{said}"
        );
    }

    #[test]
    fn rewrites_gitdir_inside_the_tree_only() {
        let from = Path::new("/mnt/c/src/app");
        let to = Path::new("/home/me/src/app");
        assert_eq!(
            rewrite_link(
                b"gitdir: /mnt/c/src/app/.git/worktrees/wt\n",
                b"gitdir: ",
                from,
                to
            ),
            Some(b"gitdir: /home/me/src/app/.git/worktrees/wt\n".to_vec())
        );
        assert_eq!(
            rewrite_link(b"/mnt/c/src/app/wt/.git\n", b"", from, to),
            Some(b"/home/me/src/app/wt/.git\n".to_vec())
        );
        // Outside the tree, relative, or only a string prefix: left alone.
        assert_eq!(
            rewrite_link(b"gitdir: /elsewhere/.git\n", b"gitdir: ", from, to),
            None
        );
        assert_eq!(
            rewrite_link(b"gitdir: ../.git/modules/x\n", b"gitdir: ", from, to),
            None
        );
        assert_eq!(
            rewrite_link(b"gitdir: /mnt/c/src/app2/.git\n", b"gitdir: ", from, to),
            None
        );
    }
}
