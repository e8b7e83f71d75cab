//! wsl-place: is this repository on the wrong file system?
//!
//! `main.rs` only calls [`run`]. Host facts enter through [`host`], are measured by [`measure`],
//! modelled by [`model`], judged by [`decide`], assembled by [`assess`] (or moved by [`migrate`]),
//! shown by [`report`] and driven by [`commands`]; [`store`] keeps what runs leave on disk, and
//! [`base`] is the plumbing under all of them.

// Mapping a file is the only unsafe call, allowed where it is made (measure::probe).
#![deny(unsafe_code)]

// The layers, lowest first: base, host, store, measure, model, decide, assess, migrate, report,
// commands; each imports only from the ones before it (tests/layering.rs). They are the crate's
// own: what tests reach is in `facade`, so that the compiler sees code no command reaches.
pub(crate) mod assess;
pub(crate) mod base;
pub(crate) mod commands;
pub(crate) mod decide;
pub(crate) mod host;
pub(crate) mod measure;
pub(crate) mod migrate;
pub(crate) mod model;
pub(crate) mod report;
pub(crate) mod store;

#[doc(hidden)]
pub mod facade;

use base::error::{ExitCode, Failure};
use clap::Parser;
use commands::cli::Cli;
use commands::report_failure;
use host::HostEnv;

/// Parses the command line, runs one subcommand, prints its output, returns the exit code.
pub fn run() -> i32 {
    // The probe's worker process (`measure::probe::worker`) is this binary again.
    if let Some(code) = measure::probe::worker::serve_if_asked() {
        return code;
    }
    // The shell hook's per-prompt call (`wsl-place init`): before clap, and without the Ctrl-C
    // thread, because it runs on every change of directory.
    if let Some(code) = commands::init::nudge_if_asked() {
        return code;
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            if e.use_stderr() {
                commands::report_usage_error(&e.render().to_string());
                return ExitCode::Input as i32;
            }
            // --help or --version into a full disk is not a success either.
            return match e.print() {
                Err(error) => {
                    report_failure(&Failure::internal(format!(
                        "cannot write to standard output: {error}."
                    )));
                    ExitCode::Internal as i32
                }
                Ok(()) => ExitCode::Ok as i32,
            };
        }
    };
    base::interrupt::install();
    let env = HostEnv::from_process();
    match commands::run(&cli, &env) {
        Ok(code) => code as i32,
        Err(failure) => {
            report_failure(&failure);
            failure.code as i32
        }
    }
}
