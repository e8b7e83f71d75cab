//! The command layer: one file per subcommand. Each turns its clap arguments into typed settings
//! once, runs the layers below with them, and prints what they return. Nothing below this layer
//! sees a clap type.

pub mod check;
pub mod completions;
pub mod migrate;
pub mod probe;
pub mod survey;

use crate::cli::{self, Cli, Command};
use crate::error::{ExitCode, Failure, Result};
use crate::host::HostEnv;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Runs the subcommand `cli` names.
pub fn run(cli: &Cli, env: &HostEnv) -> Result<ExitCode> {
    match &cli.command {
        Command::Check(args) => check::run(env, &check::Settings::new(&cli.global, args, env)?),
        Command::Survey(args) => survey::run(env, &survey::Settings::new(args, &cli.global, env)),
        Command::Migrate(args) => {
            migrate::run(env, &migrate::Settings::new(&cli.global, args, env)?)
        }
        Command::Probe(args) => probe::run(env, &probe::Settings::new(&cli.global, args, env)?),
        Command::Completions { shell } => completions::run(*shell),
    }
}

/// The directory a command works on: `path` itself, or the top of the git working tree it is
/// inside, said in one line on stderr (a folder of a repository is not the repository).
pub fn whole_repository(env: &HostEnv, path: &Path, quiet: bool, doing: &str) -> Result<PathBuf> {
    let dir = crate::location::canonical_dir(path)?;
    let Some(top) = crate::gitindex::enclosing_worktree(&dir, &env.automount_root()) else {
        return Ok(dir);
    };
    if !quiet {
        eprintln!(
            "wsl-place: {} is inside the git repository {}; {doing} the whole repository.",
            crate::pathtext::display(&dir),
            crate::pathtext::display(&top)
        );
    }
    Ok(top)
}

/// Writes `text` to standard output.
pub fn print(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
    {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is the reader's choice, not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::internal(format!(
            "cannot write to standard output: {e}."
        ))),
    }
}

/// What `probe` and `migrate` print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    Human,
    Json,
    Markdown,
}

impl From<cli::ReportFormat> for ReportFormat {
    fn from(format: cli::ReportFormat) -> Self {
        match format {
            cli::ReportFormat::Human => Self::Human,
            cli::ReportFormat::Json => Self::Json,
            cli::ReportFormat::Markdown => Self::Markdown,
        }
    }
}
