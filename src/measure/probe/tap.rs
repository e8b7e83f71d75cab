//! How the scratch rounds tell what they do as they go, and how they are stopped.

use super::ops::Op;
use crate::base::interrupt;

/// What the rounds tell as they go. The probe worker (`worker`) passes every step on to the
/// process waiting for it, so a call that never returns still leaves the figures before it and
/// the name of the call; run in-process, nothing is passed on.
pub trait Tap {
    /// Before each call on the mount, outside its timing; an error stops the rounds.
    fn begin(&mut self, op: Op) -> std::io::Result<()>;
    /// A timed call's microseconds.
    fn sample(&mut self, _op: Op, _us: f64) {}
    /// One parallel `lstat` run's wall-clock microseconds per entry.
    fn parallel(&mut self, _threads: usize, _per_entry_us: f64) {}
    /// One file read back: whether it matched what was written.
    fn verified(&mut self, _ok: bool) {}
    /// A round of `batch` files finished.
    fn round(&mut self, _batch: usize) {}
}

/// Rounds run in this process: they stop at the next call once Ctrl-C was pressed.
pub struct InProcess;

impl Tap for InProcess {
    fn begin(&mut self, _op: Op) -> std::io::Result<()> {
        stop_if_interrupted()
    }
}

/// An `Interrupted` error once a stop was asked for (Ctrl-C, or the worker's parent let go).
pub fn stop_if_interrupted() -> std::io::Result<()> {
    if interrupt::requested() {
        Err(std::io::Error::new(
            std::io::ErrorKind::Interrupted,
            "the probe was asked to stop",
        ))
    } else {
        Ok(())
    }
}
