//! `wsl-place hook install|uninstall`: a plain git pre-commit hook that runs
//! `wsl-place check --advisory`, for repositories without the pre-commit framework. It goes
//! where git looks (`git rev-parse --git-path hooks`, so core.hooksPath and linked worktrees are
//! respected), chains to a hook that is already there instead of replacing it, and `uninstall`
//! removes only what `install` wrote.

use crate::base::error::{ExitCode, Failure, Result};
use crate::base::pathtext::display;
use crate::commands::cli::{FailOn, HookAction, HookInstallArgs};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The line that marks a hook as this tool's: `uninstall` removes nothing without it.
const MARK: &str = "# wsl-place-hook 1";
/// Where an existing hook goes when the new one chains to it, beside it.
const CHAINED: &str = "pre-commit.wsl-place-chained";

pub fn run(action: &HookAction, quiet: bool) -> Result<ExitCode> {
    let message = match action {
        HookAction::Install(args) => install(args)?,
        HookAction::Uninstall { path } => uninstall(path)?,
    };
    if !quiet {
        super::print(&format!("wsl-place: {message}\n"))?;
    }
    Ok(ExitCode::Ok)
}

/// The hooks folder git uses for the repository at `dir`, and whether it is inside the working
/// tree (a core.hooksPath such as `.githooks`, committed and shared) rather than in `.git`.
fn hooks_dir(dir: &Path) -> Result<(PathBuf, bool)> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "rev-parse",
            "--path-format=absolute",
            "--git-path",
            "hooks",
            "--show-toplevel",
            "--git-common-dir",
        ])
        .output()
        .map_err(|e| {
            Failure::input(format!(
                "cannot run git to find {}'s hooks folder ({e}); install git and try again.",
                display(dir)
            ))
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
            let in_tree = hooks.starts_with(top) && !hooks.starts_with(git_dir);
            Ok((hooks, in_tree))
        }
        _ => Err(Failure::input(format!(
            "{} is not in a git working tree; run wsl-place hook in a repository.",
            display(dir)
        ))),
    }
}

/// The hook's text: the chained hook first (its failure is the commit's), then the check.
fn script(args: &HookInstallArgs) -> String {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.to_str().map(String::from))
        .unwrap_or_else(|| "wsl-place".to_string());
    let mut options = String::new();
    if args.fail_on != FailOn::Never {
        let level = if args.fail_on == FailOn::Move {
            "move"
        } else {
            "advise"
        };
        options.push_str(&format!(" --fail-on {level}"));
    }
    if let Some(policy) = &args.policy {
        // The hook runs at the working tree's top, not where this command ran.
        let policy = std::path::absolute(policy).unwrap_or_else(|_| policy.clone());
        options.push_str(&format!(" --policy {}", quote(&policy.to_string_lossy())));
    }
    format!(
        r#"#!/bin/sh
# Written by `wsl-place hook install`; `wsl-place hook uninstall` removes it and puts back the
# hook it runs first ({CHAINED}), if there was one.
{MARK}
chained="$(dirname "$0")/{CHAINED}"
if [ -x "$chained" ]; then
    "$chained" "$@" || exit $?
fi
exe={exe}
[ -x "$exe" ] || exe=wsl-place
if ! command -v "$exe" >/dev/null 2>&1; then
    echo "wsl-place: not found, so its pre-commit check was skipped; install it, or run wsl-place hook uninstall." >&2
    exit 0
fi
exec "$exe" check --advisory{options}
"#,
        exe = quote(&exe),
    )
}

fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

fn is_ours(hook: &Path) -> bool {
    std::fs::read_to_string(hook).is_ok_and(|text| text.lines().any(|l| l == MARK))
}

fn install(args: &HookInstallArgs) -> Result<String> {
    let (hooks, in_tree) = hooks_dir(&args.path)?;
    let hook = hooks.join("pre-commit");
    let chained = hooks.join(CHAINED);
    let existing = std::fs::symlink_metadata(&hook).ok();
    let mut note = String::new();
    match existing {
        Some(_) if is_ours(&hook) => note = " (updated)".to_string(),
        Some(meta) if meta.file_type().is_symlink() => {
            return Err(Failure::input(format!(
                "{} is a symbolic link, which wsl-place does not move; add `wsl-place check --advisory` to the script it points to instead.",
                display(&hook)
            )));
        }
        Some(_) if in_tree => {
            return Err(Failure::input(format!(
                "{} is inside the working tree (core.hooksPath), shared with everyone who clones it; add `wsl-place check --advisory` to it instead.",
                display(&hook)
            )));
        }
        Some(_) if std::fs::symlink_metadata(&chained).is_ok() => {
            return Err(Failure::input(format!(
                "{} already exists beside the pre-commit hook; move it away and run wsl-place hook install again.",
                display(&chained)
            )));
        }
        Some(_) => {
            std::fs::rename(&hook, &chained).map_err(|e| write_failure(&hook, &e))?;
            note = format!(
                "; the hook that was there runs first, from {}",
                display(&chained)
            );
        }
        None => std::fs::create_dir_all(&hooks).map_err(|e| write_failure(&hooks, &e))?,
    }
    write_executable(&hook, &script(args))?;
    Ok(format!(
        "installed the pre-commit hook {}{note}.",
        display(&hook)
    ))
}

fn write_executable(hook: &Path, text: &str) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let dir = hook.parent().unwrap_or(Path::new("."));
    tempfile::Builder::new()
        .permissions(std::fs::Permissions::from_mode(0o755))
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

fn uninstall(dir: &Path) -> Result<String> {
    let (hooks, _) = hooks_dir(dir)?;
    let hook = hooks.join("pre-commit");
    let chained = hooks.join(CHAINED);
    if std::fs::symlink_metadata(&hook).is_err() {
        return Ok(format!(
            "there is no pre-commit hook in {}; nothing to remove.",
            display(&hooks)
        ));
    }
    if !is_ours(&hook) {
        return Err(Failure::input(format!(
            "{} was not written by wsl-place hook install, so it is left as it is; remove it yourself if you mean to.",
            display(&hook)
        )));
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
