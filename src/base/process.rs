//! The one way the tool starts a process. Every run has a time limit, runs in a process group
//! of its own (so that when it is stopped whatever it started goes with it: a hook a person's
//! configuration names, a package manager's children), and obeys Ctrl-C: the group is not the
//! terminal's, so the tool sees the interrupt, stops the group and says so (`Stop::Interrupted`).
//! Processes that outlive the call (the probe's worker, the nudge's learner and check) are
//! started by [`start`], in a group of their own too.

use crate::base::pathtext::display;
use crate::base::units;
use std::ffi::OsStr;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A command for `program` with no input: a child of the tool never waits on the person's
/// terminal. The one place a `Command` is made; [`run`] and [`start`] are the two ways it starts.
/// A caller that talks to the child (the probe's worker) sets its input to a pipe.
pub fn command(program: impl AsRef<OsStr>) -> Command {
    let mut cmd = Command::new(program);
    cmd.stdin(Stdio::null());
    cmd
}

/// The most of a stream [`run`] keeps: past it the rest is read and dropped, so a child that
/// prints without end neither blocks on a full pipe nor fills the tool's memory.
pub const OUTPUT_CAP: usize = 64 * 1024 * 1024;

/// Why a run gave no output.
#[derive(Debug)]
pub enum Stop {
    /// The program could not be started (not installed).
    Start(std::io::Error),
    /// It ran past its limit and was stopped, with whatever it had started.
    Limit(Duration),
    /// Ctrl-C: it was stopped with the tool.
    Interrupted,
}

impl Stop {
    /// One sentence naming the run and where it ran: "git status in /r did not finish within
    /// 10 s; it was stopped".
    pub fn sentence(&self, what: &str, repo: &Path) -> String {
        match self {
            Stop::Start(e) => format!("cannot run {what} ({e})"),
            Stop::Limit(limit) => format!(
                "{what} in {} did not finish within {}; it was stopped",
                display(repo),
                units::duration_ms(limit.as_secs_f64() * 1000.0)
            ),
            Stop::Interrupted => format!("{what} in {} was interrupted", display(repo)),
        }
    }
}

/// Runs `cmd` to the end or for `limit`, reading its standard output and error as it goes. It
/// runs in a process group of its own, so that when it is stopped whatever it started (a hook a
/// person's configuration names, a filter) goes with it; the group is not the terminal's, so
/// Ctrl-C reaches it through this loop. A thread waits for it, so its end is seen at once:
/// `check --verify` times runs of a few milliseconds with this.
pub fn run(mut cmd: Command, limit: Duration) -> Result<Output, Stop> {
    use std::os::unix::process::CommandExt;
    use std::sync::mpsc::RecvTimeoutError;
    let deadline = Instant::now() + limit;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(Stop::Start)?;
    let group = rustix::process::Pid::from_child(&child);
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let (sender, ended) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(child.wait());
    });
    let stopped = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match ended.recv_timeout(left.min(INTERRUPT_POLL)) {
            Ok(Ok(status)) => break Ok(status),
            Ok(Err(e)) => break Err(Stop::Start(e)),
            Err(RecvTimeoutError::Disconnected) => {
                break Err(Stop::Start(std::io::Error::other(
                    "lost the wait for the process",
                )));
            }
            Err(RecvTimeoutError::Timeout) if crate::base::interrupt::requested() => {
                break Err(Stop::Interrupted);
            }
            Err(RecvTimeoutError::Timeout) if Instant::now() < deadline => {}
            Err(RecvTimeoutError::Timeout) => break Err(Stop::Limit(limit)),
        }
    };
    match stopped {
        Ok(status) => Ok(Output {
            status,
            // A descendant that kept a stream open is not waited for past the limit.
            stdout: stdout.recv_timeout(remaining(deadline)).unwrap_or_default(),
            stderr: stderr.recv_timeout(remaining(deadline)).unwrap_or_default(),
        }),
        Err(stop) => {
            // A leader not yet reaped keeps its id from being reused, and once it is, the
            // group's id stays with what it started: either way it names this group.
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
            let _ = ended.recv();
            Err(stop)
        }
    }
}

/// How often a run that has not ended looks for Ctrl-C.
const INTERRUPT_POLL: Duration = Duration::from_millis(50);

fn remaining(deadline: Instant) -> Duration {
    deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(100))
}

/// Everything `pipe` gives until it closes, read on a thread of its own.
fn drain(pipe: Option<impl std::io::Read + Send + 'static>) -> std::sync::mpsc::Receiver<Vec<u8>> {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::Read;
        let mut all = Vec::new();
        if let Some(pipe) = pipe {
            let mut kept = pipe.take(OUTPUT_CAP as u64);
            let _ = kept.read_to_end(&mut all);
            let _ = std::io::copy(&mut kept.into_inner(), &mut std::io::sink());
        }
        let _ = sender.send(all);
    });
    receiver
}

/// `cmd` started in a process group of its own and not waited for: a process that outlives
/// the call (a worker the caller talks to, a learner started detached). The caller sets its
/// streams.
pub fn start(mut cmd: Command) -> std::io::Result<Child> {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0).spawn()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_past_its_limit_is_stopped_with_what_it_started() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("late");
        let mut cmd = command("sh");
        // A child of the run that would outlive it, were the group not stopped.
        cmd.arg("-c").arg(format!(
            "(sleep 1; touch '{}') & sleep 30",
            marker.display()
        ));
        let started = Instant::now();
        let stop = run(cmd, Duration::from_millis(200)).unwrap_err();
        assert!(matches!(stop, Stop::Limit(_)), "{stop:?}");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "not stopped at its limit"
        );
        std::thread::sleep(Duration::from_millis(1500));
        assert!(!marker.exists(), "the run's child outlived it");
    }

    #[test]
    fn a_run_gives_its_output_and_a_missing_program_says_so() {
        let mut cmd = command("sh");
        cmd.args(["-c", "echo out; echo err >&2; exit 3"]);
        let out = run(cmd, Duration::from_secs(10)).unwrap();
        assert_eq!(
            (out.stdout.as_slice(), out.stderr.as_slice()),
            (&b"out\n"[..], &b"err\n"[..])
        );
        assert_eq!(out.status.code(), Some(3));
        let missing = run(command("/nonexistent/program"), Duration::from_secs(1));
        let sentence = missing
            .unwrap_err()
            .sentence("the program", Path::new("/x"));
        assert!(
            sentence.starts_with("cannot run the program ("),
            "{sentence}"
        );
    }
}
