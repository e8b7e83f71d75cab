//! wsl-place: is this repository on the wrong file system?
//!
//! `main.rs` only calls [`run`]. Host facts enter through [`host`], are located by [`location`],
//! measured by `scan` and `probe`, modelled, judged by the policy and shown by [`report`].

pub mod advice;
pub mod advisory;
pub mod check;
pub mod cli;
pub mod error;
pub mod gitindex;
pub mod gitsettings;
pub mod host;
pub mod location;
pub mod migrate;
pub mod model;
pub mod mounts;
pub mod policy;
pub mod probe;
pub mod report;
pub mod scan;
pub mod units;

use clap::{CommandFactory, Parser};
use cli::{Cli, Command};
use error::{ExitCode, Failure};
use host::HostEnv;
use std::io::Write;

/// Parses the command line, runs one subcommand, prints its output, returns the exit code.
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                ExitCode::Input
            } else {
                ExitCode::Ok
            };
            let _ = e.print();
            return code as i32;
        }
    };
    let env = HostEnv::from_process();
    match dispatch(&cli, &env) {
        Ok(code) => code as i32,
        Err(failure) => {
            eprintln!("wsl-place: {failure}");
            failure.code as i32
        }
    }
}

pub(crate) fn print(text: &str) -> Result<(), Failure> {
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

fn dispatch(cli: &Cli, env: &HostEnv) -> Result<ExitCode, Failure> {
    let style = report::Style::for_stdout(cli.global.no_color, env);
    match &cli.command {
        Command::Check(args) if args.advisory => {
            let (entry, _cached) = advisory::run(env, args, cli.global.policy.as_deref())?;
            match cli.global.format {
                cli::Format::Json => print(&report::to_json(&entry)?)?,
                _ if !entry.line.is_empty() => print(&format!("{}\n", entry.line))?,
                _ => {}
            }
            Ok(check::exit_code(entry.level, args.fail_on))
        }
        Command::Check(args) => {
            let interactive = !cli.global.quiet && console::Term::stderr().is_term();
            let (report, policy) =
                check::run(env, args, cli.global.policy.as_deref(), interactive)?;
            advisory::store(env, &advisory::entry_for(&report, &policy));
            if !cli.global.quiet {
                print(&report::render_check(&report, cli.global.format, &style)?)?;
            }
            Ok(check::exit_code(report.verdict.level, args.fail_on))
        }
        Command::Migrate(args) => {
            let source = location::canonical_dir(&args.path)?;
            let policy = check::policy_for(cli.global.policy.as_deref(), &source)?;
            let root = policy.migrate_root(env.home().as_deref());
            migrate::run_with_root(env, &cli.global, args, root.as_deref())
        }
        Command::Probe(args) => probe::run_command(env, &cli.global, args),
        Command::Completions { shell } => {
            let mut command = Cli::command();
            let mut buffer = Vec::new();
            clap_complete::generate(*shell, &mut command, "wsl-place", &mut buffer);
            print(&String::from_utf8_lossy(&buffer))?;
            Ok(ExitCode::Ok)
        }
    }
}
