//! Ctrl-C, in one place: one handler, one flag, one exit code (130).
//!
//! The handler sets the flag and removes the folders registered with [`remove_on_interrupt`]
//! (the probe's scratch folders), so nothing is left behind even if the work is stuck in a slow
//! call. Long-running work checks [`requested`] and stops at the next safe point (a migration
//! keeps its verified copy so far); the command then fails with [`Failure::interrupted`]. Work
//! that does not come back within [`GRACE`] is ended by the handler itself, with the same code.

use crate::base::error::{ExitCode, Failure};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static TO_REMOVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// What the last words say when the handler ends the process itself (see [`set_hint`]).
type Hint = Box<dyn Fn() -> String + Send>;
static HINT: Mutex<Option<Hint>> = Mutex::new(None);

/// How long the handler waits for the work to stop on its own before it ends the process.
pub const GRACE: Duration = Duration::from_secs(2);

/// Installs the handler; once per process (later calls change nothing).
pub fn install() {
    // Fails only when a handler is already installed, which is then this one.
    let _ = ctrlc::set_handler(|| {
        INTERRUPTED.store(true, Ordering::SeqCst);
        remove_registered();
        std::thread::sleep(GRACE);
        // A prompt or a bar may have hidden it; the shell gets it back either way. Only a
        // terminal has a cursor: into a file or a pipe the escape would be junk.
        if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            let _ = console::Term::stderr().show_cursor();
        }
        let hint = HINT
            .lock()
            .ok()
            .and_then(|h| h.as_ref().map(|f| f()))
            .map_or_else(|| ".".to_string(), |h| format!("; {h}"));
        // Not eprintln!: with stderr closed or full it would panic instead of exiting.
        let last = format!("wsl-place: interrupted{hint}\n");
        let _ = std::io::Write::write_all(&mut std::io::stderr(), last.as_bytes());
        std::process::exit(ExitCode::Interrupted as i32);
    });
}

/// What to tell the person if the work does not stop within [`GRACE`] and the handler ends the
/// process: computed then, so it says what is true at that moment (say, how to resume).
pub fn set_hint(hint: impl Fn() -> String + Send + 'static) {
    if let Ok(mut slot) = HINT.lock() {
        *slot = Some(Box::new(hint));
    }
}

/// Asks the work to stop as Ctrl-C would, without ending the process (the probe worker, once
/// the tool let it go).
pub fn request() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// True once Ctrl-C was pressed.
pub fn requested() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// `Err(Failure::interrupted(..))` once Ctrl-C was pressed: for the safe points between steps.
pub fn check(what_happened: &str) -> Result<(), Failure> {
    if requested() {
        Err(Failure::interrupted(what_happened))
    } else {
        Ok(())
    }
}

/// Removes `path` (a folder) if Ctrl-C comes before [`forget`].
pub fn remove_on_interrupt(path: &Path) {
    if let Ok(mut list) = TO_REMOVE.lock() {
        list.push(path.to_path_buf());
    }
}

/// `path` no longer needs removing on Ctrl-C.
pub fn forget(path: &Path) {
    if let Ok(mut list) = TO_REMOVE.lock() {
        list.retain(|p| p != path);
    }
}

fn remove_registered() {
    let dirs: Vec<PathBuf> = TO_REMOVE.lock().map(|v| v.clone()).unwrap_or_default();
    for dir in dirs {
        // The work may still be adding a file while we walk; a few tries win the race.
        for _ in 0..5 {
            if std::fs::remove_dir_all(&dir).is_ok() || !dir.exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
