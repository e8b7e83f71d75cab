//! Running a program for at most a given time: git in a repository, a package manager's
//! answers, Windows' interop programs. One loop for all, so that each is stopped the same way
//! when it runs past its limit or the person presses Ctrl-C, with what it started.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

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
                    "lost the wait for the program",
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
        let mut all = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut all);
        }
        let _ = sender.send(all);
    });
    receiver
}
