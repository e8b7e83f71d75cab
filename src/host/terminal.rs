//! What the terminal can take: colour on standard output, live progress on standard error, and
//! how wide a line may be. Decided once per run, from the environment and the streams.

use crate::host::HostEnv;
use std::io::IsTerminal;

/// `--color WHEN`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorChoice {
    /// Colour on a terminal that can show it, unless the environment says otherwise.
    Auto,
    Always,
    Never,
}

/// Lines are wrapped here when standard output is not a terminal and `COLUMNS` is not set.
pub const DEFAULT_WIDTH: usize = 80;
/// Narrower than this, wrapping makes things worse, not better.
const MIN_WIDTH: usize = 40;

/// The decisions for one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Terminal {
    /// Colour escapes on standard output.
    pub color: bool,
    /// Spinners, bars and prompts that move the cursor on standard error.
    pub live: bool,
    /// Columns available to the human report.
    pub width: usize,
}

impl Terminal {
    /// Looks at the real streams; the environment comes from `env`.
    pub fn detect(env: &HostEnv, choice: ColorChoice) -> Self {
        let stdout = std::io::stdout();
        let stdout_columns = stdout
            .is_terminal()
            .then(|| console::Term::stdout().size_checked().map(|(_, c)| c))
            .flatten();
        Self::decide(
            env,
            choice,
            Streams {
                stdout: stdout.is_terminal(),
                stderr: std::io::stderr().is_terminal(),
                stdout_columns: stdout_columns.map(usize::from),
            },
        )
    }

    /// The pure decision, for tests.
    pub fn decide(env: &HostEnv, choice: ColorChoice, streams: Streams) -> Self {
        Self {
            color: color(env, choice, streams.stdout),
            live: streams.stderr && capable(env),
            width: width(env, streams.stdout, streams.stdout_columns),
        }
    }

    /// Everything off: plain text at the default width (tests, machine formats).
    pub fn plain() -> Self {
        Self {
            color: false,
            live: false,
            width: DEFAULT_WIDTH,
        }
    }
}

/// Which streams are terminals, and how wide standard output is.
#[derive(Debug, Clone, Copy, Default)]
pub struct Streams {
    pub stdout: bool,
    pub stderr: bool,
    pub stdout_columns: Option<usize>,
}

/// A terminal that understands escapes: `TERM` set and not `dumb`.
fn capable(env: &HostEnv) -> bool {
    env.var("TERM").is_some_and(|term| term != "dumb")
}

/// The conventions of no-color.org and bixense.com/clicolors, in the order most tools apply
/// them: an explicit flag, then `NO_COLOR`, then `CLICOLOR_FORCE`, then `CLICOLOR=0`, then
/// whether standard output is a terminal that can show colour.
fn color(env: &HostEnv, choice: ColorChoice, stdout_is_terminal: bool) -> bool {
    match choice {
        ColorChoice::Always => return true,
        ColorChoice::Never => return false,
        ColorChoice::Auto => {}
    }
    if env.var("NO_COLOR").is_some() {
        return false;
    }
    if env.var("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
        return true;
    }
    if env.var("CLICOLOR") == Some("0") {
        return false;
    }
    stdout_is_terminal && capable(env)
}

/// A width no line reaches: output to a pipe or a file is not wrapped, so a path or a word is
/// never broken for grep or a copy.
pub const UNWRAPPED: usize = 1_000_000;

/// `COLUMNS` first (set by shells and by tests), then the terminal's size, then the default on
/// a terminal that does not say; not a terminal, no wrapping at all.
fn width(env: &HostEnv, stdout_is_terminal: bool, stdout_columns: Option<usize>) -> usize {
    let unsaid = match stdout_is_terminal {
        true => DEFAULT_WIDTH,
        false => UNWRAPPED,
    };
    env.var("COLUMNS")
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0)
        .or(stdout_columns)
        .unwrap_or(unsaid)
        .max(MIN_WIDTH)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> HostEnv {
        HostEnv::from_pairs(pairs)
    }

    const TTY: Streams = Streams {
        stdout: true,
        stderr: true,
        stdout_columns: Some(110),
    };
    const PIPE: Streams = Streams {
        stdout: false,
        stderr: false,
        stdout_columns: None,
    };

    #[test]
    fn colour_on_a_capable_terminal_only() {
        let xterm = env(&[("TERM", "xterm-256color")]);
        assert!(Terminal::decide(&xterm, ColorChoice::Auto, TTY).color);
        assert!(!Terminal::decide(&xterm, ColorChoice::Auto, PIPE).color);
        assert!(!Terminal::decide(&env(&[("TERM", "dumb")]), ColorChoice::Auto, TTY).color);
        assert!(!Terminal::decide(&env(&[]), ColorChoice::Auto, TTY).color);
    }

    #[test]
    fn environment_conventions() {
        let no_color = env(&[("TERM", "xterm"), ("NO_COLOR", "1")]);
        assert!(!Terminal::decide(&no_color, ColorChoice::Auto, TTY).color);
        let forced = env(&[("TERM", "dumb"), ("CLICOLOR_FORCE", "1")]);
        assert!(Terminal::decide(&forced, ColorChoice::Auto, PIPE).color);
        let forced_off = env(&[("CLICOLOR_FORCE", "0")]);
        assert!(!Terminal::decide(&forced_off, ColorChoice::Auto, PIPE).color);
        let both = env(&[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]);
        assert!(!Terminal::decide(&both, ColorChoice::Auto, PIPE).color);
        let clicolor_off = env(&[("TERM", "xterm"), ("CLICOLOR", "0")]);
        assert!(!Terminal::decide(&clicolor_off, ColorChoice::Auto, TTY).color);
    }

    #[test]
    fn the_flag_wins() {
        let no_color = env(&[("NO_COLOR", "1")]);
        assert!(Terminal::decide(&no_color, ColorChoice::Always, PIPE).color);
        let forced = env(&[("TERM", "xterm"), ("CLICOLOR_FORCE", "1")]);
        assert!(!Terminal::decide(&forced, ColorChoice::Never, TTY).color);
    }

    #[test]
    fn live_progress_needs_a_capable_stderr() {
        let xterm = env(&[("TERM", "xterm")]);
        assert!(Terminal::decide(&xterm, ColorChoice::Never, TTY).live);
        assert!(!Terminal::decide(&xterm, ColorChoice::Always, PIPE).live);
        let dumb = env(&[("TERM", "dumb"), ("CLICOLOR_FORCE", "1")]);
        assert!(!Terminal::decide(&dumb, ColorChoice::Always, TTY).live);
    }

    #[test]
    fn width_from_columns_then_terminal() {
        assert_eq!(
            Terminal::decide(&env(&[]), ColorChoice::Auto, TTY).width,
            110
        );
        // Not a terminal: not wrapped.
        assert_eq!(
            Terminal::decide(&env(&[]), ColorChoice::Auto, PIPE).width,
            UNWRAPPED
        );
        let columns = env(&[("COLUMNS", "60")]);
        assert_eq!(Terminal::decide(&columns, ColorChoice::Auto, TTY).width, 60);
        let tiny = env(&[("COLUMNS", "12")]);
        assert_eq!(Terminal::decide(&tiny, ColorChoice::Auto, PIPE).width, 40);
        let junk = env(&[("COLUMNS", "wide")]);
        assert_eq!(Terminal::decide(&junk, ColorChoice::Auto, TTY).width, 110);
        assert_eq!(
            Terminal::decide(&junk, ColorChoice::Auto, PIPE).width,
            UNWRAPPED
        );
    }
}
