//! wsl-place: is this repository on the wrong file system?
//!
//! `main.rs` only calls [`run`]. Host facts enter through [`host`], are located by [`location`],
//! measured by `scan` and `probe`, modelled, judged by the policy and shown by [`report`].

pub mod advice;
pub mod advisory;
pub mod check;
pub mod cli;
pub mod commands;
pub mod discover;
pub mod error;
pub mod gitindex;
pub mod gitsettings;
pub mod host;
pub mod interrupt;
pub mod location;
pub mod migrate;
pub mod model;
pub mod mounts;
pub mod observations;
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
use error::ExitCode;
use host::HostEnv;

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
    interrupt::install();
    let env = HostEnv::from_process();
    match commands::run(&cli, &env) {
        Ok(code) => code as i32,
        Err(failure) => {
            eprintln!("wsl-place: {failure}");
            failure.code as i32
        }
    }
}
