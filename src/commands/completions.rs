//! `wsl-place completions SHELL`: the completion script clap derives from the command line.

use crate::cli::Cli;
use crate::error::{ExitCode, Result};
use clap::CommandFactory;

pub fn run(shell: clap_complete::Shell) -> Result<ExitCode> {
    let mut command = Cli::command();
    let mut buffer = Vec::new();
    clap_complete::generate(shell, &mut command, "wsl-place", &mut buffer);
    super::print(&String::from_utf8_lossy(&buffer))?;
    Ok(ExitCode::Ok)
}
