//! Running a package manager for the sample: without input, started where nothing the
//! repository holds can choose the program or its options, killed at a time limit, and, when it
//! fails, what it said in its own words.

use crate::base::process::{self, Stop};
use crate::measure::deps::sample_reasons::SampleFailed;
use std::path::Path;
use std::time::{Duration, Instant};

/// No run may take longer than this; a manager that hangs is killed.
const RUN_LIMIT: Duration = Duration::from_secs(30);

/// Runs `program args` in `dir` with no input or output, killed after `RUN_LIMIT`; the
/// elapsed milliseconds when it succeeded.
pub fn timed_run(program: &str, args: &[&str], dir: &Path) -> Option<f64> {
    run_saying_why(program, args, dir).ok()
}

/// As [`timed_run`], with why a run failed: the program's own words (the first lines of what
/// it printed on stderr), or that it could not start or was stopped at the limit.
pub fn run_saying_why(program: &str, args: &[&str], dir: &Path) -> Result<f64, SampleFailed> {
    run_keeping_words(program, args, dir, false)
}

/// As [`run_saying_why`]; with `stdout_too`, what the program printed on stdout is read for its
/// reason too (pnpm prints its errors there).
pub(super) fn run_keeping_words(
    program: &str,
    args: &[&str],
    dir: &Path,
    stdout_too: bool,
) -> Result<f64, SampleFailed> {
    let mut cmd = crate::base::process::command(program);
    cmd.args(args).current_dir(dir);
    let start = Instant::now();
    let program_name = || program.to_string();
    let out = process::run(cmd, RUN_LIMIT).map_err(|stop| match stop {
        Stop::Start(e) => SampleFailed::DidNotStart {
            program: program_name(),
            error: e.to_string(),
        },
        Stop::Limit(_) => SampleFailed::StoppedAtLimit {
            program: program_name(),
            limit_secs: RUN_LIMIT.as_secs(),
        },
        Stop::Interrupted => SampleFailed::Interrupted {
            program: program_name(),
        },
    })?;
    let elapsed_ms = start.elapsed().as_secs_f64() * 1e3;
    if out.status.success() {
        return Ok(elapsed_ms);
    }
    let mut said = out.stderr;
    if stdout_too {
        said.extend_from_slice(&out.stdout);
    }
    Err(own_words(program, &said, out.status))
}

/// What a failed run said: its first two lines that say anything, from the first that reads as
/// an error (`ERR_PNPM_...`, `error: ...`) when one does, without npm's `npm error` prefixes. pnpm 11 and later print a diagnostic tree ("Error: ERR_PNPM_X",
/// "× installing dependencies", "╰─▶ the cause"): its drawing and the generic "×" heading are
/// left out, so the code is followed by the cause.
fn own_words(program: &str, said: &[u8], status: std::process::ExitStatus) -> SampleFailed {
    let said = String::from_utf8_lossy(&said[..said.len().min(1024 * 1024)]);
    let program = program.to_string();
    match reason_in(&said) {
        Some(words) => SampleFailed::Said { program, words },
        None => SampleFailed::Exited {
            program,
            status: status.to_string(),
        },
    }
}

fn reason_in(said: &str) -> Option<String> {
    const DRAWING: &[char] = &['×', '╰', '├', '│', '─', '▶', ' '];
    let headed_tree = said.lines().any(|l| l.trim_start().starts_with('╰'));
    let lines: Vec<&str> = said
        .lines()
        .map(str::trim)
        .filter(|l| !(headed_tree && l.starts_with('×')))
        .map(|l| {
            l.trim_start_matches(DRAWING)
                .trim_start_matches("npm error")
                .trim_start_matches("npm ERR!")
                .trim()
        })
        .map(|l| l.strip_prefix("Error: ").unwrap_or(l))
        .filter(|l| !l.is_empty() && !l.starts_with("A complete log of this run"))
        .collect();
    let erring = |l: &&str| l.contains("ERR_") || l.to_ascii_lowercase().starts_with("error");
    let first = lines.iter().position(erring).unwrap_or(0);
    let lines: Vec<&str> = lines.into_iter().skip(first).take(2).collect();
    // pnpm pads its code with a thin space: one plain space between words reads the same.
    let text = lines.join(": ");
    let words: Vec<&str> = text.split_whitespace().collect();
    (!words.is_empty()).then(|| words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_managers_reason_is_its_code_and_cause() {
        let pnpm12 = "Error: ERR_PNPM_NO_OFFLINE_TARBALL\n\n  × installing dependencies\n  ╰─▶ Failed to fetch tarball for a@1.0.0 in offline mode: snapshot not present in local store\n  help: Drop `--offline`\n";
        assert_eq!(
            reason_in(pnpm12).as_deref(),
            Some(
                "ERR_PNPM_NO_OFFLINE_TARBALL: Failed to fetch tarball for a@1.0.0 in offline mode: snapshot not present in local store"
            )
        );
        let pnpm10 = "Progress: resolved 1\n ERR_PNPM_NO_OFFLINE_TARBALL\u{2009} A package is missing from the store\n";
        assert_eq!(
            reason_in(pnpm10).as_deref(),
            Some("ERR_PNPM_NO_OFFLINE_TARBALL A package is missing from the store")
        );
        let npm = "npm error code ENOTCACHED\nnpm error request to https://x failed\nnpm error A complete log of this run can be found in: /x\n";
        assert_eq!(
            reason_in(npm).as_deref(),
            Some("code ENOTCACHED: request to https://x failed")
        );
        assert_eq!(reason_in("\n  \n"), None);
    }
}
