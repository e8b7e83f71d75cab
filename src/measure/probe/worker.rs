//! The scratch rounds in a child process of their own, so that neither a slow call nor a signal
//! can hold the tool hostage to the mount.
//!
//! A call a FUSE or 9p server has taken cannot be interrupted: the thread making it waits until
//! the server answers, and a process exits only once all its threads have. So the calls that
//! create and remove files run in a worker (this binary again, started with [`WORKER_ENV`]),
//! which tells every step on its stdout. The tool waits for it at most the probe's budget: past
//! that, the call in flight is reported ("this mount took over 700 ms for one file create") and
//! judged with the figures before it, and the worker is let go. Letting go is closing its
//! stdin: the worker stops before its next call, removes its scratch folder and exits, whenever
//! the mount answers. A worker killed first leaves a scratch folder named after its pid, which
//! the next probe of that folder removes (`scratch::remove_stale`).

use super::measure::{self, Outcome, Tap};
use super::ops::Op;
use super::scratch::Scratch;
use crate::base::interrupt;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Set in the worker's environment: run one job read from stdin, nothing else.
pub const WORKER_ENV: &str = "WSL_PLACE_PROBE_WORKER";
/// How long the tool waits for a worker it let go to remove its scratch folder (after Ctrl-C,
/// or once the rounds ended): short, so the tool exits within two seconds of a signal.
const CLEANUP_WAIT: Duration = Duration::from_millis(800);
/// How often the waiting side looks at Ctrl-C.
const POLL: Duration = Duration::from_millis(20);

/// What the worker is asked to do.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Job {
    /// Where the scratch folder is made.
    #[serde(with = "crate::base::pathtext::json")]
    pub dir: PathBuf,
    /// For the rounds after the first (`measure::rounds`).
    pub budget_ms: u64,
    /// Files in the first round (`measure::first_batch`).
    pub first_batch: usize,
    pub threads: Vec<usize>,
    pub skip_parallel_below_us: f64,
}

/// How the rounds ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Ending {
    /// Every round that was begun was finished.
    Finished,
    /// The scratch folder could not be made (the error as text).
    NoScratch(String),
    /// A call failed (the error as text).
    Failed(String),
    /// Ctrl-C.
    Interrupted,
    /// A call was still running when the time was up: which (None: the worker had not begun
    /// any) and how long it had run.
    TimedOut { op: Option<Op>, running: Duration },
}

/// The rounds' figures, however they ended.
#[derive(Debug)]
pub struct WorkerRun {
    pub outcome: Outcome,
    pub ending: Ending,
    /// The scratch folder is known to be gone.
    pub cleaned: bool,
}

/// Runs `job` in a worker, waiting for it at most `limit`; in this process when no worker can
/// be started (then a slow call is waited for).
pub fn run(job: &Job, limit: Duration) -> WorkerRun {
    match spawn(job) {
        Ok(child) => wait(child, limit),
        Err(_) => in_process(job),
    }
}

fn in_process(job: &Job) -> WorkerRun {
    let scratch = match Scratch::create(&job.dir) {
        Ok(scratch) => scratch,
        Err(e) => {
            return WorkerRun {
                outcome: Outcome::default(),
                ending: Ending::NoScratch(e.to_string()),
                cleaned: true,
            };
        }
    };
    let result = measure::rounds(
        scratch.path(),
        Duration::from_millis(job.budget_ms),
        job.first_batch,
        &job.threads,
        job.skip_parallel_below_us,
        &mut measure::InProcess,
    );
    let cleaned = scratch.remove();
    match result {
        Ok(outcome) => WorkerRun {
            outcome,
            ending: Ending::Finished,
            cleaned,
        },
        Err(e) => WorkerRun {
            outcome: Outcome::default(),
            ending: ended_by(&e),
            cleaned,
        },
    }
}

fn ended_by(error: &std::io::Error) -> Ending {
    if interrupt::requested() {
        Ending::Interrupted
    } else {
        Ending::Failed(error.to_string())
    }
}

fn spawn(job: &Job) -> std::io::Result<(Child, Receiver<(Instant, Event)>)> {
    let line = serde_json::to_string(job).map_err(std::io::Error::other)?;
    let mut cmd = crate::base::process::command(worker_program());
    cmd.env(WORKER_ENV, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // Its own process group: Ctrl-C on the terminal reaches the tool, which lets it go.
    let mut child = crate::base::process::start(cmd)?;
    let sent = child
        .stdin
        .as_mut()
        .map(|stdin| stdin.write_all(format!("{line}\n").as_bytes()));
    let Some(stdout) = child.stdout.take().filter(|_| matches!(sent, Some(Ok(())))) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(std::io::Error::other(
            "the probe worker did not take its job",
        ));
    };
    let (sender, receiver) = mpsc::channel();
    // Reads until the worker exits; a worker let go ends this thread when it ends.
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Some(event) = Event::parse(&line)
                && sender.send((Instant::now(), event)).is_err()
            {
                break;
            }
        }
    });
    Ok((child, receiver))
}

/// This program, by the kernel's link, so a binary replaced since it started still starts
/// the same code.
fn worker_program() -> PathBuf {
    let link = Path::new("/proc/self/exe");
    if link.exists() {
        link.to_path_buf()
    } else {
        std::env::current_exe().unwrap_or_else(|_| link.to_path_buf())
    }
}

/// The waiting side's view of the worker.
struct Progress {
    outcome: Outcome,
    /// The call the worker began last and when its word arrived.
    in_flight: Option<(Op, Instant)>,
    ending: Option<Ending>,
    cleaned: Option<bool>,
}

fn wait((mut child, events): (Child, Receiver<(Instant, Event)>), limit: Duration) -> WorkerRun {
    let start = Instant::now();
    let mut progress = Progress {
        outcome: Outcome::default(),
        in_flight: None,
        ending: None,
        cleaned: None,
    };
    // Until the rounds end, then a short while for the scratch folder's removal.
    let mut deadline = start + limit;
    let mut stop = None;
    while progress.cleaned.is_none() {
        if stop.is_none() && interrupt::requested() {
            stop = Some(Ending::Interrupted);
            deadline = Instant::now() + CLEANUP_WAIT;
            // Closing its stdin asks the worker to stop before its next call.
            drop(child.stdin.take());
        }
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        match events.recv_timeout(POLL.min(deadline - now)) {
            Ok((at, event)) => {
                if stop.is_none() && matches!(event, Event::End(_) | Event::Fail(..)) {
                    deadline = Instant::now() + CLEANUP_WAIT;
                }
                progress.apply(at, event);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    drop(child.stdin.take());
    let cleaned = progress.cleaned.unwrap_or(false);
    // Reaped on a thread of its own: a worker stuck in a call must not hold this one.
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    let ending = match (stop, progress.ending) {
        (Some(interrupted), _) => interrupted,
        (None, Some(ending)) => ending,
        (None, None) if start.elapsed() >= limit => Ending::TimedOut {
            op: progress.in_flight.map(|(op, _)| op),
            running: progress
                .in_flight
                .map_or(start.elapsed(), |(_, since)| since.elapsed()),
        },
        (None, None) => Ending::Failed("the probe worker ended without a word".into()),
    };
    WorkerRun {
        outcome: progress.outcome,
        ending,
        cleaned,
    }
}

impl Progress {
    fn apply(&mut self, at: Instant, event: Event) {
        let run = &mut self.outcome.run;
        match event {
            Event::Begin(op) => self.in_flight = Some((op, at)),
            Event::Sample(op, us) => self.outcome.samples.ops.get_mut(op).push(us),
            Event::Parallel(threads, us) => {
                let parallel = &mut self.outcome.samples.parallel;
                match parallel.iter_mut().find(|(t, _)| *t == threads) {
                    Some((_, runs)) => runs.push(us),
                    None => parallel.push((threads, vec![us])),
                }
            }
            Event::Verified(true) => {
                run.verified_files += 1;
                run.verified_bytes += measure::FILE_BYTES as u64;
            }
            Event::Verified(false) => run.verify_errors += 1,
            Event::Round(batch) => {
                run.rounds += 1;
                run.largest_batch = batch;
            }
            Event::End(stable) => {
                run.stable = stable;
                self.ending = Some(Ending::Finished);
            }
            Event::Fail(ending) => self.ending = Some(ending),
            Event::Cleaned(gone) => self.cleaned = Some(gone),
        }
    }
}

/// One line of the worker's stdout.
#[derive(Debug, Clone, PartialEq)]
enum Event {
    Begin(Op),
    Sample(Op, f64),
    Parallel(usize, f64),
    Verified(bool),
    Round(usize),
    End(bool),
    Fail(Ending),
    Cleaned(bool),
}

impl Event {
    fn line(&self) -> String {
        let one_line = |text: &str| crate::base::pathtext::display_text(text);
        match self {
            Event::Begin(op) => format!("begin {}", op.name()),
            Event::Sample(op, us) => format!("sample {} {us}", op.name()),
            Event::Parallel(threads, us) => format!("parallel {threads} {us}"),
            Event::Verified(ok) => format!("verified {}", u8::from(*ok)),
            Event::Round(batch) => format!("round {batch}"),
            Event::End(stable) => format!("end {}", u8::from(*stable)),
            Event::Fail(Ending::NoScratch(why)) => format!("noscratch {}", one_line(why)),
            Event::Fail(Ending::Interrupted) => "interrupted".to_string(),
            Event::Fail(Ending::Failed(why)) => format!("failed {}", one_line(why)),
            Event::Fail(Ending::TimedOut { .. } | Ending::Finished) => "failed".to_string(),
            Event::Cleaned(gone) => format!("cleaned {}", u8::from(*gone)),
        }
    }

    fn parse(line: &str) -> Option<Event> {
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        let number = |text: &str| text.parse::<f64>().ok().filter(|v| v.is_finite());
        let flag = |text: &str| text == "1";
        Some(match word {
            "begin" => Event::Begin(Op::from_name(rest)?),
            "sample" => {
                let (op, us) = rest.split_once(' ')?;
                Event::Sample(Op::from_name(op)?, number(us)?)
            }
            "parallel" => {
                let (threads, us) = rest.split_once(' ')?;
                Event::Parallel(threads.parse().ok()?, number(us)?)
            }
            "verified" => Event::Verified(flag(rest)),
            "round" => Event::Round(rest.parse().ok()?),
            "end" => Event::End(flag(rest)),
            "noscratch" => Event::Fail(Ending::NoScratch(rest.to_string())),
            "interrupted" => Event::Fail(Ending::Interrupted),
            "failed" => Event::Fail(Ending::Failed(rest.to_string())),
            "cleaned" => Event::Cleaned(flag(rest)),
            _ => return None,
        })
    }
}

/// The worker's side: every step on stdout, flushed before each call so the waiting side
/// always knows which call is in flight.
struct LineTap<W: Write> {
    out: W,
}

impl<W: Write> LineTap<W> {
    fn tell(&mut self, event: &Event) {
        // A waiting side that is gone stops nothing: the rounds end at the next `begin`.
        let _ = writeln!(self.out, "{}", event.line());
    }
}

impl<W: Write> Tap for LineTap<W> {
    fn begin(&mut self, op: Op) -> std::io::Result<()> {
        measure::stop_if_interrupted()?;
        self.tell(&Event::Begin(op));
        self.out.flush()
    }

    fn sample(&mut self, op: Op, us: f64) {
        self.tell(&Event::Sample(op, us));
    }

    fn parallel(&mut self, threads: usize, per_entry_us: f64) {
        self.tell(&Event::Parallel(threads, per_entry_us));
    }

    fn verified(&mut self, ok: bool) {
        self.tell(&Event::Verified(ok));
    }

    fn round(&mut self, batch: usize) {
        self.tell(&Event::Round(batch));
    }
}

/// In the worker: runs the job on stdin and returns the exit code; None in any other process.
pub fn serve_if_asked() -> Option<i32> {
    std::env::var_os(WORKER_ENV)?;
    let mut stdin = BufReader::new(std::io::stdin());
    let mut line = String::new();
    let read = stdin.read_line(&mut line).ok();
    let Some(job) = read.and_then(|_| serde_json::from_str::<Job>(&line).ok()) else {
        return Some(2);
    };
    // The end of stdin (the tool let go, or died) is the signal to stop.
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut stdin, &mut std::io::sink());
        interrupt::request();
    });
    let mut tap = LineTap {
        out: std::io::BufWriter::new(std::io::stdout().lock()),
    };
    serve(&job, &mut tap);
    let _ = tap.out.flush();
    Some(0)
}

fn serve<W: Write>(job: &Job, tap: &mut LineTap<W>) {
    if tap.begin(Op::Mkdir).is_err() {
        tap.tell(&Event::Fail(Ending::Interrupted));
        tap.tell(&Event::Cleaned(true));
        return;
    }
    let scratch = match Scratch::create(&job.dir) {
        Ok(scratch) => scratch,
        Err(e) => {
            tap.tell(&Event::Fail(Ending::NoScratch(e.to_string())));
            tap.tell(&Event::Cleaned(true));
            return;
        }
    };
    let result = measure::rounds(
        scratch.path(),
        Duration::from_millis(job.budget_ms),
        job.first_batch,
        &job.threads,
        job.skip_parallel_below_us,
        tap,
    );
    match &result {
        Ok(outcome) => tap.tell(&Event::End(outcome.run.stable)),
        Err(e) => tap.tell(&Event::Fail(ended_by(e))),
    }
    let _ = tap.out.flush();
    let cleaned = scratch.remove();
    tap.tell(&Event::Cleaned(cleaned));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_read_back_as_written() {
        let events = [
            Event::Begin(Op::Create),
            Event::Sample(Op::ReadMib, 1234.5),
            Event::Parallel(8, 3.25),
            Event::Verified(false),
            Event::Round(16),
            Event::End(true),
            Event::Fail(Ending::NoScratch("Permission denied (os error 13)".into())),
            Event::Fail(Ending::Interrupted),
            Event::Cleaned(true),
        ];
        for event in events {
            assert_eq!(
                Event::parse(&event.line()),
                Some(event.clone()),
                "{event:?}"
            );
        }
        assert_eq!(Event::parse("sample create inf"), None);
        assert_eq!(Event::parse("begin nothing"), None);
        // A message cannot break the one-line protocol.
        let line = Event::Fail(Ending::Failed("a\nb".into())).line();
        assert!(!line.contains('\n'), "{line}");
    }
}
