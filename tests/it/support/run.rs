//! One way to run a program and judge how it ended, in the manner of ripgrep's `TestCommand`:
//! a run gives an [`Outcome`] whose methods assert, and a failed assertion prints the command,
//! its exit status, stdout and stderr, so a test never writes its own status check or message.
//!
//! ```ignore
//! let report = sandbox.run(["check", "--no-probe", "--format", "json", "."]).ok_json();
//! sandbox.migrate(&source, &dest).run().fails(Exit::WouldLoseData);
//! let said = sandbox.migrate(&source, &dest).arg("--yes").run().ok().stderr();
//! ```

use std::ops::Deref;
use std::process::{Child, Command, Output};

/// `check` without a probe, reporting in JSON: the arguments before the path of most runs
/// whose report a test reads.
pub const CHECK_JSON: [&str; 4] = ["check", "--no-probe", "--format", "json"];

/// The exit codes of README's table, by the name the table gives them (src/base/error.rs has
/// the same list; the tests keep their own, so a renumbering there fails here).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// The verdict is at or above `--fail-on`.
    Verdict = 1,
    /// A usage or input error.
    Input = 2,
    /// Something failed inside the tool or the system.
    Internal = 3,
    /// Another `migrate` of the same move holds its lock.
    Busy = 4,
    /// Refused because going on would lose data.
    WouldLoseData = 5,
    /// Ctrl-C, SIGTERM or SIGHUP.
    Interrupted = 130,
}

/// How a run ended, with the command that was run, for assertions that say both when they fail.
/// It reads as the [`Output`] it holds (`outcome.status`, `outcome.stdout`) where a test needs more.
pub struct Outcome {
    command: String,
    output: Output,
}

/// Runs a [`Command`] to the end as an [`Outcome`].
pub trait Run {
    fn run(&mut self) -> Outcome;
}

impl Run for Command {
    #[track_caller]
    fn run(&mut self) -> Outcome {
        let output = self
            .output()
            .unwrap_or_else(|e| panic!("{self:?} did not start: {e}"));
        Outcome::of(self, output)
    }
}

/// Waits for `child`, started with its output piped, to end: how it ended.
#[track_caller]
pub fn wait(child: Child) -> Outcome {
    let pid = child.id();
    let output = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("waiting for process {pid}: {e}"));
    Outcome::named(format!("the run started as process {pid}"), output)
}

impl Outcome {
    /// `output`, which `command` printed.
    pub fn of(command: &Command, output: Output) -> Self {
        Self {
            command: format!("{command:?}"),
            output,
        }
    }

    /// `output` of a run that `what` describes (one started and signalled by hand).
    pub fn named(what: impl Into<String>, output: Output) -> Self {
        Self {
            command: what.into(),
            output,
        }
    }

    /// Asserts that the run exited 0.
    #[track_caller]
    pub fn ok(&self) -> &Self {
        assert!(self.output.status.success(), "{self}");
        self
    }

    /// Asserts that the run exited 0 and printed JSON on stdout: that JSON.
    #[track_caller]
    pub fn ok_json(&self) -> serde_json::Value {
        self.ok().json()
    }

    /// Asserts that the run exited with `exit`.
    #[track_caller]
    pub fn fails(&self, exit: Exit) -> &Self {
        assert_eq!(self.output.status.code(), Some(exit as i32), "{self}");
        self
    }

    /// Asserts that the run did not exit 0, whatever else it did.
    #[track_caller]
    pub fn fails_somehow(&self) -> &Self {
        assert!(!self.output.status.success(), "{self}");
        self
    }

    /// Asserts that the run exited with one of `exits` (0 for success).
    #[track_caller]
    pub fn exits_one_of(&self, exits: &[i32]) -> &Self {
        let code = self.output.status.code();
        assert!(code.is_some_and(|code| exits.contains(&code)), "{self}");
        self
    }

    /// Asserts that the run refused with an input error (exit 2) in one sentence on one line:
    /// that sentence.
    #[track_caller]
    pub fn refusal(&self) -> String {
        self.fails(Exit::Input);
        let sentence = self.stderr();
        assert!(super::is_one_sentence(sentence.trim()), "{self}");
        sentence
    }

    /// Asserts that the run wrote nothing on stderr.
    #[track_caller]
    pub fn quiet(&self) -> &Self {
        assert!(self.output.stderr.is_empty(), "stderr written: {self}");
        self
    }

    /// Asserts that stdout holds `needle`.
    #[track_caller]
    pub fn stdout_has(&self, needle: &str) -> &Self {
        assert!(
            self.stdout().contains(needle),
            "{needle:?} not on stdout: {self}"
        );
        self
    }

    /// Asserts that stderr holds `needle`.
    #[track_caller]
    pub fn stderr_has(&self, needle: &str) -> &Self {
        assert!(
            self.stderr().contains(needle),
            "{needle:?} not on stderr: {self}"
        );
        self
    }

    /// What the run printed on stdout, as JSON whatever its exit status.
    #[track_caller]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.output.stdout)
            .unwrap_or_else(|e| panic!("no JSON on stdout ({e}): {self}"))
    }

    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    pub fn into_output(self) -> Output {
        self.output
    }
}

impl Deref for Outcome {
    type Target = Output;

    fn deref(&self) -> &Output {
        &self.output
    }
}

impl std::fmt::Debug for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}\n{}", self.command, super::text(&self.output))
    }
}
