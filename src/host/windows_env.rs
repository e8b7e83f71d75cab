//! Windows' environment variables, asked once per run through interop: one `cmd.exe /d /u /c set`
//! by its full path on the `C:` mount (`Windows/System32/cmd.exe`: not on `PATH` with
//! `appendWindowsPath=false`), started in that mount (from a Linux folder Windows programs are
//! reported to take seconds to start), under one time limit.
//!
//! `set` prints each variable as `NAME=value`, verbatim: `echo %NAME%` would hand the value to
//! cmd.exe's parser again, so a profile named `Tom&Jerry` would run `Jerry`. `/U` makes it print
//! UTF-16LE; output that is not UTF-16 is read in the console's code page, and where bytes alone
//! cannot tell which (1252 or 437), the reading whose folders exist is the one kept.

use crate::base::codepage;
use crate::host::HostEnv;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// How long Windows may take to answer: all the variables come in one call, under this limit.
pub const LIMIT: Duration = Duration::from_secs(2);

/// The variables whose values name folders: a reading of the answer is judged by them.
const PATHS: &[&str] = &["USERPROFILE", "HOME", "GIT_CONFIG_GLOBAL"];

/// How Windows answered, for the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Interop {
    /// The program asked, as a Linux path.
    pub program: String,
    /// It is there (a `C:` mount without it is no Windows a person runs).
    pub found: bool,
    /// How long the call took, in milliseconds.
    pub ms: f64,
    /// How its answer was read (`utf-16le`, `utf-8`, `windows-1252`, `cp437`); null without one.
    pub encoding: Option<&'static str>,
    /// Why there is no answer (not there, failed, too slow); null with one.
    pub problem: Option<String>,
}

/// What Windows' environment holds, as far as it was told.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WindowsEnv {
    /// Names in capitals (Windows' names ignore case).
    vars: BTreeMap<String, String>,
    /// None when Windows was not asked (interop off).
    pub interop: Option<Interop>,
}

impl WindowsEnv {
    /// A variable's value; None when unset or empty.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .get(&name.to_ascii_uppercase())
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// For tests of the layers above: an environment Windows answered with `pairs`.
    #[cfg(test)]
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Self {
        Self {
            vars: pairs
                .iter()
                .map(|(k, v)| (k.to_ascii_uppercase(), v.to_string()))
                .collect(),
            interop: None,
        }
    }
}

/// Asks Windows through `cmd.exe` on the drive mounted at `c_drive`; `exists` tells whether a
/// Windows path names something WSL sees (to choose between code pages).
pub fn ask(env: &HostEnv, c_drive: &Path, exists: impl Fn(&str) -> bool) -> WindowsEnv {
    if !env.interop() {
        return WindowsEnv::default();
    }
    let program = c_drive.join("Windows/System32/cmd.exe");
    let mut interop = Interop {
        program: crate::base::pathtext::display(&program),
        found: program.is_file(),
        ms: 0.0,
        encoding: None,
        problem: None,
    };
    if !interop.found {
        interop.problem = Some(format!("no cmd.exe at {}", interop.program));
        return WindowsEnv {
            vars: BTreeMap::new(),
            interop: Some(interop),
        };
    }
    let start = Instant::now();
    let answer = env.ask_windows_in(&program, c_drive, &["/d", "/u", "/c", "set"], LIMIT);
    let took = start.elapsed();
    interop.ms = took.as_secs_f64() * 1e3;
    let Some(bytes) = answer else {
        interop.problem = Some(if took >= LIMIT {
            format!(
                "{} did not answer within {} s",
                interop.program,
                LIMIT.as_secs()
            )
        } else {
            format!("{} failed", interop.program)
        });
        return WindowsEnv {
            vars: BTreeMap::new(),
            interop: Some(interop),
        };
    };
    let (encoding, vars) = best_reading(&bytes, exists);
    interop.encoding = Some(encoding.name());
    WindowsEnv {
        vars,
        interop: Some(interop),
    }
}

/// The reading of `bytes` under which the most of the path variables name something that
/// exists; the likeliest reading among equals.
fn best_reading(
    bytes: &[u8],
    exists: impl Fn(&str) -> bool,
) -> (codepage::Encoding, BTreeMap<String, String>) {
    let mut readings: Vec<_> = codepage::readings(bytes)
        .into_iter()
        .map(|(encoding, text)| (encoding, parse_set(&text)))
        .collect();
    if readings.len() > 1 {
        let score = |vars: &BTreeMap<String, String>| {
            PATHS
                .iter()
                .filter_map(|name| vars.get(*name))
                .filter(|value| !value.is_ascii() && exists(value))
                .count()
        };
        let best = (0..readings.len())
            .max_by_key(|&i| (score(&readings[i].1), std::cmp::Reverse(i)))
            .unwrap_or(0);
        readings.swap(0, best);
    }
    readings.swap_remove(0)
}

/// `set`'s lines, `NAME=value`, into a map keyed by the name in capitals; the hidden `=C:`
/// variables are left out.
fn parse_set(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .map(|line| line.trim_end_matches('\r'))
        .filter_map(|line| line.split_once('='))
        .filter(|(name, _)| !name.is_empty())
        .map(|(name, value)| (name.to_ascii_uppercase(), value.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reading_whose_folders_exist_wins() {
        let oem = b"HOMEDRIVE=C:\r\nUSERPROFILE=C:\\Users\\Zo\x89\r\n=C:=C:\\\r\n";
        let (encoding, vars) = best_reading(oem, |p| p == "C:\\Users\\Zoë");
        assert_eq!(encoding, codepage::Encoding::Cp437);
        assert_eq!(vars["USERPROFILE"], "C:\\Users\\Zoë");
        assert_eq!(vars.len(), 2);
        let (encoding, _) = best_reading(oem, |_| false);
        assert_eq!(encoding, codepage::Encoding::Windows1252);
        let utf16: Vec<u8> = "Path=C:\\a=b\r\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let (_, vars) = best_reading(&utf16, |_| false);
        assert_eq!(vars["PATH"], "C:\\a=b");
    }
}
