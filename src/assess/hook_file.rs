//! The plain git pre-commit hook that runs `wsl-place check --advisory` (`advisory.rs`), for
//! repositories without the pre-commit framework: written where git looks (`git rev-parse
//! --git-path hooks`, so core.hooksPath and linked worktrees are respected), chained to a hook
//! that is already there instead of replacing it, and taken out line by line: `uninstall`
//! removes only the lines `install` wrote, so a hook someone has added lines to keeps them.

use crate::base::error::{Failure, Result};
use crate::base::pathtext::display;
use crate::decide::policy::Level;
use crate::host::git;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The line that marks a hook as this tool's: `uninstall` removes nothing without it.
const MARK: &str = "# wsl-place-hook 1";
/// Where an existing hook goes when the new one chains to it, beside it.
const CHAINED: &str = "pre-commit.wsl-place-chained";
/// The two lines whose text depends on the install (the binary's path, the options): a line of
/// a hook is the tool's own when it starts the same way.
const EXE_LINE: &str = "exe=";
const EXEC_LINE: &str = "exec \"$exe\" check --advisory";

/// What `hook install` is asked for, decided once by the command layer.
#[derive(Debug, Clone)]
pub struct HookSettings {
    /// A directory in the repository.
    pub path: PathBuf,
    /// The verdict at or above which the hook's check blocks the commit; None: never.
    pub fail_at: Option<Level>,
    /// The policy file the hook's check reads.
    pub policy: Option<PathBuf>,
    /// Write the hook even into a hooks folder inside the working tree.
    pub in_worktree: bool,
}

/// The hooks folder git uses for the repository at `dir`, and whether it is inside the working
/// tree (a core.hooksPath such as `.githooks`, committed and shared) rather than in `.git`.
fn hooks_dir(dir: &Path) -> Result<(PathBuf, bool)> {
    if !dir.is_dir() {
        return Err(Failure::input(format!(
            "{} does not exist or is not a folder; pass the path of a repository (or run wsl-place hook install inside one).",
            display(dir)
        )));
    }
    crate::host::git::files::plain_git_files(dir)
        .map_err(|sentence| Failure::input(format!("{sentence}.")))?;
    let mut cmd = git::reading_hooks_path(dir);
    cmd.args([
        "rev-parse",
        "--path-format=absolute",
        "--git-path",
        "hooks",
        "--show-toplevel",
        "--git-common-dir",
    ]);
    let output = git::run(cmd, git::QUICK_LIMIT).map_err(|stop| match stop {
        git::Stop::Start(e) => Failure::input(format!(
            "cannot run git to find {}'s hooks folder ({e}); install git and try again.",
            display(dir)
        )),
        stop => Failure::input(format!("{}.", stop.sentence("git rev-parse", dir))),
    })?;
    let text = String::from_utf8_lossy(&output.stdout);
    let mut lines = text.lines();
    match (
        output.status.success(),
        lines.next(),
        lines.next(),
        lines.next(),
    ) {
        (true, Some(hooks), Some(top), Some(git_dir)) => {
            let hooks = PathBuf::from(hooks);
            let (top, git_dir) = (Path::new(top), Path::new(git_dir));
            git_dir_is_its_own(top, git_dir)?;
            let in_tree = hooks.starts_with(top) && !hooks.starts_with(git_dir);
            if !in_tree && !hooks.starts_with(git_dir) && set_by_the_repository(dir) {
                return Err(Failure::input(format!(
                    "the repository's own config sets core.hooksPath to {}, outside it; wsl-place writes no hook there (a repository never chooses where the tool writes): unset it with `git config --unset core.hooksPath`, or set it in your global config.",
                    display(&hooks)
                )));
            }
            Ok((hooks, in_tree))
        }
        _ => Err(Failure::input(format!(
            "{} is not in a git working tree; run wsl-place hook in a repository.",
            display(dir)
        ))),
    }
}

/// The git folder git uses for the repository at `top` is its own: `.git` itself, or a main
/// repository's `worktrees/<id>` whose `gitdir` names `top`'s `.git` back (a linked worktree),
/// or a submodule's folder under a `.git/modules/` above it. A `.git` file or link that leads
/// anywhere else would have the hook written into another repository.
fn git_dir_is_its_own(top: &Path, common_dir: &Path) -> Result<()> {
    let dot_git = top.join(".git");
    if common_dir.starts_with(top) {
        return Ok(());
    }
    // A `.git` folder whose `commondir` names another repository: git keeps hooks there.
    if std::fs::symlink_metadata(&dot_git).is_ok_and(|m| m.is_dir()) {
        return Err(Failure::input(format!(
            "{}'s commondir leads to {}, outside the repository; wsl-place writes no hook there.",
            display(&dot_git),
            display(common_dir)
        )));
    }
    let named_back = std::fs::read_dir(common_dir.join("worktrees"))
        .into_iter()
        .flatten()
        .flatten()
        .any(|record| {
            crate::base::repo_file::read_at(
                &record.path().join("gitdir"),
                crate::base::repo_file::POINTER_LIMIT,
            )
            .is_ok_and(|text| Path::new(String::from_utf8_lossy(&text).trim()) == dot_git)
        });
    let submodule = common_dir
        .ancestors()
        .any(|a| a.file_name().is_some_and(|n| n == "modules"))
        && top
            .ancestors()
            .skip(1)
            .any(|above| common_dir.starts_with(above.join(".git/modules")));
    if named_back || submodule {
        return Ok(());
    }
    Err(Failure::input(format!(
        "{} leads to the git folder {}, outside the repository and not a worktree of it; wsl-place writes no hook there.",
        display(&dot_git),
        display(common_dir)
    )))
}

/// Whether `core.hooksPath` comes from the repository's own config (its `.git/config`, a
/// worktree's, or a file they include), not the person's global or system config.
fn set_by_the_repository(dir: &Path) -> bool {
    let mut cmd = git::reading_hooks_path(dir);
    cmd.args(["config", "--show-scope", "--get", "core.hooksPath"]);
    git::run(cmd, git::QUICK_LIMIT).is_ok_and(|out| {
        let said = String::from_utf8_lossy(&out.stdout);
        said.starts_with("local") || said.starts_with("worktree")
    })
}

/// Which part of the hook a line of it belongs to: what `uninstall` keeps of a hook that holds
/// lines of someone else's depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// `#!/bin/sh`: kept, the lines left need it.
    Shebang,
    /// The comment and the mark.
    Header,
    /// Running the hook that was there first.
    Chain,
    /// Running the check.
    Check,
}

/// The hook's lines, each with its part: the chained hook first (its failure is the
/// commit's), then the check.
fn script(settings: &HookSettings) -> Vec<(Part, String)> {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.to_str().map(String::from))
        .unwrap_or_else(|| "wsl-place".to_string());
    let mut options = String::new();
    if let Some(fail_at) = settings.fail_at {
        let level = if fail_at == Level::Move {
            "move"
        } else {
            "advise"
        };
        options.push_str(&format!(" --fail-on {level}"));
    }
    if let Some(policy) = &settings.policy {
        // The hook runs at the working tree's top, not where this command ran.
        let policy = std::path::absolute(policy).unwrap_or_else(|_| policy.clone());
        options.push_str(&format!(" --policy {}", quote(&policy.to_string_lossy())));
    }
    let header = [
        "# Written by `wsl-place hook install`; `wsl-place hook uninstall` removes it and puts back the".to_string(),
        format!("# hook it runs first ({CHAINED}), if there was one."),
        MARK.to_string(),
    ];
    let chain = [
        format!("chained=\"$(dirname \"$0\")/{CHAINED}\""),
        "if [ -x \"$chained\" ]; then".to_string(),
        "    \"$chained\" \"$@\" || exit $?".to_string(),
        "fi".to_string(),
    ];
    let check = [
        format!("{EXE_LINE}{}", quote(&exe)),
        "[ -x \"$exe\" ] || exe=wsl-place".to_string(),
        "if ! command -v \"$exe\" >/dev/null 2>&1; then".to_string(),
        "    echo \"wsl-place: not found, so its pre-commit check was skipped; install it, or run wsl-place hook uninstall.\" >&2".to_string(),
        "    exit 0".to_string(),
        "fi".to_string(),
        format!("{EXEC_LINE}{options}"),
    ];
    std::iter::once((Part::Shebang, "#!/bin/sh".to_string()))
        .chain(header.map(|l| (Part::Header, l)))
        .chain(chain.map(|l| (Part::Chain, l)))
        .chain(check.map(|l| (Part::Check, l)))
        .collect()
}

fn text_of<'a>(lines: impl IntoIterator<Item = &'a str>) -> String {
    lines.into_iter().map(|l| format!("{l}\n")).collect()
}

fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A hook as found, each line with the line of the tool's script it is, if it is one.
struct Found {
    lines: Vec<String>,
    /// Per line: the index into [`script`] of the tool's line it is.
    ours: Vec<Option<usize>>,
    mode: u32,
}

impl Found {
    /// The hook at `hook` when it carries the tool's mark; None when it does not (or cannot be
    /// read, which then is no hook of the tool's to change).
    fn read(hook: &Path, script: &[(Part, String)]) -> Option<Self> {
        let limit = crate::base::repo_file::MANIFEST_LIMIT;
        let text = String::from_utf8(crate::base::repo_file::read_at(hook, limit).ok()?).ok()?;
        if !text.lines().any(|l| l == MARK) {
            return None;
        }
        let lines: Vec<String> = text.lines().map(String::from).collect();
        let ours = match_lines(script, &lines);
        let mode = std::fs::metadata(hook).map_or(0o755, |m| m.permissions().mode() & 0o7777);
        Some(Self { lines, ours, mode })
    }

    /// Lines that are not the tool's (blank ones do not count).
    fn others(&self) -> usize {
        self.lines
            .iter()
            .zip(&self.ours)
            .filter(|(line, ours)| ours.is_none() && !line.trim().is_empty())
            .count()
    }
}

/// Whether `line` of a hook is the script's line `want`: the same text, or for the two lines
/// that change with the install, the same start.
fn is_line(want: &str, line: &str) -> bool {
    want == line
        || [EXE_LINE, EXEC_LINE]
            .iter()
            .any(|start| want.starts_with(start) && line.starts_with(start))
}

/// The most lines of `lines` that are the script's lines in the script's order (a longest
/// common subsequence), so lines someone put between, before or after the tool's are theirs.
fn match_lines(script: &[(Part, String)], lines: &[String]) -> Vec<Option<usize>> {
    let (n, m) = (script.len(), lines.len());
    // best[i][j]: the most matches between script[i..] and lines[j..].
    let mut best = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            best[i][j] = if is_line(&script[i].1, &lines[j]) {
                best[i + 1][j + 1] + 1
            } else {
                best[i + 1][j].max(best[i][j + 1])
            };
        }
    }
    let mut ours = vec![None; m];
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if is_line(&script[i].1, &lines[j]) && best[i][j] == best[i + 1][j + 1] + 1 {
            ours[j] = Some(i);
            i += 1;
            j += 1;
        } else if best[i + 1][j] >= best[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    ours
}

/// The refusal for a hooks folder inside the working tree, without `--in-worktree`.
fn in_tree_refusal(hooks: &Path) -> Failure {
    Failure::input(format!(
        "{} is inside the working tree (core.hooksPath), so a hook written there, which names this machine's wsl-place, would be committed by the next `git add -A`; unset core.hooksPath (git config --unset core.hooksPath) to install it into .git/hooks, or pass --in-worktree to write it there anyway.",
        display(hooks)
    ))
}

/// Writes the pre-commit hook of the repository at `settings.path` (chaining to one that is
/// there, or updating the tool's own); what was done, in a sentence.
pub fn install(settings: &HookSettings) -> Result<String> {
    let (hooks, in_tree) = hooks_dir(&settings.path)?;
    let hook = hooks.join("pre-commit");
    let chained = hooks.join(CHAINED);
    let script = script(settings);
    let existing = std::fs::symlink_metadata(&hook).ok();
    let ours = existing
        .as_ref()
        .filter(|meta| !meta.file_type().is_symlink())
        .and_then(|_| Found::read(&hook, &script));
    let note = match (existing, ours) {
        (Some(_), Some(found)) => {
            if in_tree && !settings.in_worktree {
                return Err(in_tree_refusal(&hooks));
            }
            return update(&hook, &found, &script);
        }
        (Some(meta), None) if meta.file_type().is_symlink() => {
            return Err(Failure::input(format!(
                "{} is a symbolic link, which wsl-place does not move; add `wsl-place check --advisory` to the script it points to instead.",
                display(&hook)
            )));
        }
        (Some(_), None) if in_tree => {
            return Err(Failure::input(format!(
                "{} is inside the working tree (core.hooksPath), shared with everyone who clones it; add `wsl-place check --advisory` to it instead.",
                display(&hook)
            )));
        }
        (Some(_), None) if std::fs::symlink_metadata(&chained).is_ok() => {
            return Err(Failure::input(format!(
                "{} already exists beside the pre-commit hook; move it away and run wsl-place hook install again.",
                display(&chained)
            )));
        }
        (Some(meta), None) => {
            std::fs::rename(&hook, &chained).map_err(|e| write_failure(&hook, &e))?;
            chain_note(&meta, &chained)
        }
        (None, _) => {
            if in_tree && !settings.in_worktree {
                return Err(in_tree_refusal(&hooks));
            }
            std::fs::create_dir_all(&hooks).map_err(|e| write_failure(&hooks, &e))?;
            String::new()
        }
    };
    write_hook(
        &hook,
        &text_of(script.iter().map(|(_, l)| l.as_str())),
        0o755,
    )?;
    Ok(format!(
        "installed the pre-commit hook {}{note}.",
        display(&hook)
    ))
}

/// What becomes of the hook that was there: git runs a hook only when it is executable, and
/// so does the chain, so one that is not still does not run, and the note says so.
fn chain_note(meta: &std::fs::Metadata, chained: &Path) -> String {
    if meta.permissions().mode() & 0o111 != 0 {
        format!(
            "; the hook that was there runs first, from {}",
            display(chained)
        )
    } else {
        format!(
            "; the hook that was there is kept at {} and, as before, does not run because it is not executable (chmod +x makes it run first)",
            display(chained)
        )
    }
}

/// Rewrites the tool's own hook for new options: its own lines replaced, anyone else's kept
/// where they are.
fn update(hook: &Path, found: &Found, script: &[(Part, String)]) -> Result<String> {
    // A hook of the tool's alone comes out as the new script, line for line.
    let lines = found
        .lines
        .iter()
        .zip(&found.ours)
        .map(|(line, ours)| ours.map_or(line.as_str(), |i| script[i].1.as_str()));
    write_hook(hook, &text_of(lines), found.mode)?;
    let kept = match found.others() {
        0 => String::new(),
        n => format!(
            "; {} of your own kept",
            crate::base::units::counted(n as u64, "line", "lines")
        ),
    };
    Ok(format!(
        "installed the pre-commit hook {} (updated{kept}).",
        display(hook)
    ))
}

/// Writes `text` to `hook` whole (beside it, then renamed), with `mode`.
fn write_hook(hook: &Path, text: &str, mode: u32) -> Result<()> {
    use std::io::Write;
    let dir = hook.parent().unwrap_or(Path::new("."));
    tempfile::Builder::new()
        .permissions(std::fs::Permissions::from_mode(mode))
        .tempfile_in(dir)
        .and_then(|mut file| {
            file.write_all(text.as_bytes())?;
            file.persist(hook).map(drop).map_err(|e| e.error)
        })
        .map_err(|e| write_failure(hook, &e))
}

fn write_failure(path: &Path, error: &std::io::Error) -> Failure {
    Failure::input(format!(
        "cannot write {} ({error}); check that its folder is writable and try again.",
        display(path)
    ))
}

/// Takes the tool's pre-commit hook (or its lines) out of the repository at `dir`, putting back
/// the hook it chained to; what was done, in a sentence.
pub fn uninstall(dir: &Path) -> Result<String> {
    let (hooks, _) = hooks_dir(dir)?;
    let hook = hooks.join("pre-commit");
    let chained = hooks.join(CHAINED);
    let Ok(meta) = std::fs::symlink_metadata(&hook) else {
        return Ok(format!(
            "there is no pre-commit hook in {}; nothing to remove.",
            display(&hooks)
        ));
    };
    // Whatever the options it was written with, the tool's lines are the same but for two.
    let script = script(&HookSettings {
        path: dir.to_path_buf(),
        fail_at: None,
        policy: None,
        in_worktree: false,
    });
    let found = (!meta.file_type().is_symlink())
        .then(|| Found::read(&hook, &script))
        .flatten();
    let Some(found) = found else {
        return Err(Failure::input(format!(
            "{} was not written by wsl-place hook install, so it is left as it is; remove it yourself if you mean to.",
            display(&hook)
        )));
    };
    if found.others() > 0 {
        return remove_own_lines(&hook, &found, &script, &chained);
    }
    if std::fs::symlink_metadata(&chained).is_ok() {
        std::fs::rename(&chained, &hook).map_err(|e| write_failure(&hook, &e))?;
        return Ok(format!(
            "removed the wsl-place pre-commit hook; the one it ran first is back at {}.",
            display(&hook)
        ));
    }
    std::fs::remove_file(&hook).map_err(|e| write_failure(&hook, &e))?;
    Ok(format!("removed the pre-commit hook {}.", display(&hook)))
}

/// A hook of the tool's that someone has added lines to: the tool's lines go, theirs stay, and
/// so do the shebang they need and, while there is a hook it ran first, the lines that run it
/// (putting that one back would overwrite theirs).
fn remove_own_lines(
    hook: &Path,
    found: &Found,
    script: &[(Part, String)],
    chained: &Path,
) -> Result<String> {
    let chain_kept = std::fs::symlink_metadata(chained).is_ok();
    let kept = found
        .lines
        .iter()
        .zip(&found.ours)
        .filter(|(_, ours)| match ours.map(|i| script[i].0) {
            None | Some(Part::Shebang) => true,
            Some(Part::Chain) => chain_kept,
            Some(Part::Header | Part::Check) => false,
        })
        .map(|(line, _)| line.as_str());
    write_hook(hook, &text_of(kept), found.mode)?;
    let chain = if chain_kept {
        format!(
            "; the hook it ran first still runs, from {}",
            display(chained)
        )
    } else {
        String::new()
    };
    Ok(format!(
        "removed the wsl-place lines from the pre-commit hook {} and kept the {} of your own{chain}.",
        display(hook),
        crate::base::units::counted(found.others() as u64, "line", "lines")
    ))
}
