//! wsl-place: is this repository on the wrong file system?
//!
//! `main.rs` only calls [`run`]. Host facts enter through [`host`], are located by [`location`],
//! measured by `scan` and `probe`, modelled, judged by the policy and shown by [`report`].

pub mod advice;
pub mod advisory;
pub mod check;
pub mod cli;
pub mod commands;
pub mod dirfd;
pub mod discover;
pub mod error;
pub mod gitindex;
pub mod gitsettings;
pub mod host;
pub mod input;
pub mod interrupt;
pub mod location;
pub mod migrate;
pub mod model;
pub mod mounts;
pub mod observations;
pub mod pathtext;
pub mod policy;
pub mod probe;
pub mod report;
pub mod scan;
pub mod survey;
pub mod terminal;
pub mod units;
pub mod usage;

use clap::Parser;
use cli::Cli;
use error::{ExitCode, Failure};
use host::HostEnv;
use std::io::Write;

/// Parses the command line, runs one subcommand, prints its output, returns the exit code.
pub fn run() -> i32 {
    // The probe's worker process (`probe::worker`) is this binary again.
    if let Some(code) = probe::worker::serve_if_asked() {
        return code;
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                ExitCode::Input
            } else {
                ExitCode::Ok
            };
            // --help or --version into a full disk is not a success either.
            return match e.print() {
                Err(error) if code == ExitCode::Ok => {
                    report_failure(&Failure::internal(format!(
                        "cannot write to standard output: {error}."
                    )));
                    ExitCode::Internal as i32
                }
                _ => code as i32,
            };
        }
    };
    interrupt::install();
    let env = HostEnv::from_process();
    match commands::run(&cli, &env) {
        Ok(code) => code as i32,
        Err(failure) => {
            report_failure(&failure);
            failure.code as i32
        }
    }
}

/// The failure's sentence on standard error. If even that cannot be written, the exit code
/// still tells: `eprintln!` would panic instead (exit 101).
pub(crate) fn report_failure(failure: &Failure) {
    // Messages name paths; their control characters must not drive the terminal.
    let message = pathtext::display_text(&failure.to_string());
    let _ = writeln!(std::io::stderr(), "wsl-place: {message}");
}
