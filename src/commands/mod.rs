//! The command layer: one file per subcommand. Each turns its clap arguments into typed settings
//! once, runs the layers below with them, and prints what they return. Nothing below this layer
//! sees a clap type.

pub(crate) mod check;
pub mod cli;
pub(crate) mod completions;
pub(crate) mod config;
pub(crate) mod doctor;
pub(crate) mod hook;
pub mod init;
pub(crate) mod migrate;
pub(crate) mod probe;
pub(crate) mod survey;

use crate::base::error::{ExitCode, Failure, Result};
use crate::host::HostEnv;
use crate::report::{self, Document, Format, Output};
use cli::{Cli, Command};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Runs the subcommand `cli` names.
pub fn run(cli: &Cli, env: &HostEnv) -> Result<ExitCode> {
    let config = || config::UserConfig::load(env);
    match &cli.command {
        Command::Check(args) => {
            // A mistake in the user's config must not turn the pre-commit hook into a wall:
            // the hook's check says it in one line and goes on with the settings that are right.
            let config = if args.advisory {
                let (config, warning) = config::UserConfig::load_for_hook(env);
                warning.inspect(|w| crate::base::input::warn(w));
                config
            } else {
                config()?
            };
            check::run(env, &check::Settings::new(&cli.global, args, env, &config)?)
        }
        Command::Survey(args) => survey::run(
            env,
            &survey::Settings::new(args, &cli.global, env, &config()?),
        ),
        Command::Migrate(args) => migrate::run(
            env,
            &migrate::Settings::new(&cli.global, args, env, config()?)?,
        ),
        Command::Probe(args) => probe::run(env, &probe::Settings::new(&cli.global, args, env)?),
        Command::Doctor(args) => doctor::run(env, &cli.global, args),
        Command::Completions { shell } => completions::run(*shell),
        Command::Init { shell } => init::run(*shell),
        Command::Hook { action } => hook::run(action, cli.global.quiet),
    }
}

/// The directory a command works on: `path` itself, or the top of the git working tree it is
/// inside, said in one line on stderr (a folder of a repository is not the repository).
pub fn whole_repository(env: &HostEnv, path: &Path, quiet: bool, doing: &str) -> Result<PathBuf> {
    let dir = crate::host::location::canonical_dir(path)?;
    let Some(top) = crate::measure::gitindex::enclosing_worktree(&dir, &env.automount_root())
    else {
        return Ok(dir);
    };
    if !quiet {
        eprintln!(
            "wsl-place: {} is inside the git repository {}; {doing} the whole repository.",
            crate::base::pathtext::display(&dir),
            crate::base::pathtext::display(&top)
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

/// The output setting every command shares: `--format` and `-q` as given, colour, width and
/// liveness as the terminal takes them.
pub fn output(global: &cli::GlobalArgs, format: Format, quiet: bool, env: &HostEnv) -> Output {
    Output::new(format, quiet || global.quiet, &global.terminal(env))
}

/// `document` as `output` asks, on standard output; nothing with `-q`.
pub fn show<D: Document + ?Sized>(document: &D, output: &Output) -> Result<()> {
    if output.quiet {
        return Ok(());
    }
    print(&report::render(document, output.format, &output.style)?)
}

/// The failure's sentence on standard error. If even that cannot be written, the exit code
/// still tells: `eprintln!` would panic instead (exit 101).
pub(crate) fn report_failure(failure: &Failure) {
    // Messages name paths; their control characters must not drive the terminal.
    let message = crate::base::pathtext::display_text(&failure.to_string());
    let _ = writeln!(std::io::stderr(), "wsl-place: {message}");
}

/// A usage error from clap, in the tool's one error style: `wsl-place: ` where clap writes
/// `error: `, then clap's tip and usage lines as they are.
pub(crate) fn report_usage_error(rendered: &str) {
    let message = rendered.strip_prefix("error: ").unwrap_or(rendered);
    let _ = write!(std::io::stderr(), "wsl-place: {message}");
}
