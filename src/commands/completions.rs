//! `wsl-place completions SHELL`: the completion script clap derives from the command line.

use crate::base::error::{ExitCode, Result};
use crate::commands::cli::Cli;
use clap::CommandFactory;

const BIN_NAME: &str = "wsl-place";

pub fn run(shell: clap_complete::Shell) -> Result<ExitCode> {
    super::print(&script(shell))?;
    Ok(ExitCode::Ok)
}

/// The completion script for `shell`, repaired where clap_complete gets our name wrong.
///
/// For a hyphenated binary, clap_complete's bash script labels the subcommand states
/// `wsl__subcmd__place__subcmd__check` while its dispatch loop builds
/// `wsl__place__subcmd__check`, so no option after a subcommand ever completes
/// (clap-rs/clap issue 6421). Renaming the labels to what the loop builds fixes it; once clap
/// is fixed there is nothing left to rename.
fn script(shell: clap_complete::Shell) -> String {
    let mut buffer = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), BIN_NAME, &mut buffer);
    let script = String::from_utf8_lossy(&buffer).into_owned();
    match shell {
        clap_complete::Shell::Bash => {
            let built = BIN_NAME.replace('-', "__");
            let mislabelled = BIN_NAME.replace('-', "__subcmd__");
            script.replace(&mislabelled, &built)
        }
        _ => script,
    }
}
