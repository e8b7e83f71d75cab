//! `wsl-place doctor`: one screen of what the tool sees on this host, or (`--record FILE`) the
//! same as JSON, shown in full, then written for a bug report after `y` or `--yes`.

use crate::assess::doctor::{self, PERSONAL_FIELDS};
use crate::base::error::{ExitCode, Failure, Result};
use crate::base::progress::Drawn;
use crate::commands::cli::{DoctorArgs, GlobalArgs};
use crate::host::HostEnv;
use crate::report::{self, Format};
use std::io::Write;
use std::path::Path;

pub fn run(env: &HostEnv, global: &GlobalArgs, args: &DoctorArgs) -> Result<ExitCode> {
    let format = if args.record.is_some() {
        Format::Json
    } else {
        args.format
    };
    if let Some(file) = args
        .record
        .as_deref()
        .filter(|f| f.symlink_metadata().is_ok())
    {
        return Err(exists(file));
    }
    let output = super::output(global, format, args.quiet && args.record.is_none(), env);
    let spinner = Drawn::spinner(output.shows_progress(), "looking at this host");
    let report = doctor::look(env);
    spinner.finish_and_clear();
    super::show(&report, &output)?;
    let Some(file) = &args.record else {
        return Ok(ExitCode::Ok);
    };
    eprintln!(
        "wsl-place: the record above holds your user names and paths in {PERSONAL_FIELDS}; read it before you attach it."
    );
    let prompt = format!("Write it to {}?", crate::base::pathtext::display(file));
    if !args.yes && !super::migrate::confirm_by_line(&prompt, false)? {
        eprintln!("wsl-place: nothing was written.");
        return Ok(ExitCode::Ok);
    }
    let text = report::render(&report, Format::Json, &output.style)?;
    write_new(file, text.as_bytes())?;
    eprintln!(
        "wsl-place: the record is in {}.",
        crate::base::pathtext::display(file)
    );
    Ok(ExitCode::Ok)
}

/// Writes `bytes` to `file`, which must not exist: a record never replaces a file.
fn write_new(file: &Path, bytes: &[u8]) -> Result<()> {
    let mut out = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(file)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => exists(file),
            _ => Failure::io("create", file, &e),
        })?;
    out.write_all(bytes)
        .and_then(|()| out.sync_all())
        .map_err(|e| Failure::io("write", file, &e))
}

fn exists(file: &Path) -> Failure {
    Failure::input(format!(
        "{} exists; name another file for the record, or move that one away.",
        crate::base::pathtext::display(file)
    ))
}
