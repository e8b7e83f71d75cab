//! `wsl-place hook install|uninstall`: a plain git pre-commit hook that runs
//! `wsl-place check --advisory`, for repositories without the pre-commit framework. The hook
//! file itself, found, written, chained and taken out, is `assess::hook_file`'s; this turns the
//! arguments into its settings and prints what it did.

use crate::assess::hook_file::{self, HookSettings};
use crate::base::error::{ExitCode, Result};
use crate::commands::cli::{HookAction, HookInstallArgs};

pub fn run(action: &HookAction, quiet: bool) -> Result<ExitCode> {
    let message = match action {
        HookAction::Install(args) => hook_file::install(&settings(args))?,
        HookAction::Uninstall { path } => hook_file::uninstall(path)?,
    };
    if !quiet {
        super::print(&format!("wsl-place: {message}\n"))?;
    }
    Ok(ExitCode::Ok)
}

fn settings(args: &HookInstallArgs) -> HookSettings {
    HookSettings {
        path: args.path.clone(),
        fail_at: super::check::fail_at(args.fail_on),
        policy: args.policy.clone(),
        in_worktree: args.in_worktree,
    }
}
