//! The probe's private scratch directory: removed on drop (normal and error paths) and, through a
//! process-wide registry, on Ctrl-C, so an interrupted `check` leaves nothing behind.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once};

static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static HANDLER: Once = Once::new();

/// True once Ctrl-C was pressed; measuring loops stop early so the handler's removal wins.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// After Ctrl-C the handler is removing the scratch folders under the measuring thread's feet,
/// so that thread's I/O errors are not failures to report: it waits for the handler's exit.
pub fn exit_if_interrupted() {
    if interrupted() {
        std::thread::sleep(std::time::Duration::from_secs(5));
        std::process::exit(130);
    }
}

fn install_handler() {
    HANDLER.call_once(|| {
        // Another part of the program may own the handler already (only one is allowed); then the
        // Drop guard still covers every path but a signal.
        let _ = ctrlc::set_handler(|| {
            INTERRUPTED.store(true, Ordering::SeqCst);
            remove_all_live();
            eprintln!("wsl-place: interrupted; probe scratch files removed.");
            std::process::exit(130);
        });
    });
}

fn remove_all_live() {
    let dirs: Vec<PathBuf> = LIVE.lock().map(|v| v.clone()).unwrap_or_default();
    for dir in dirs {
        // A measuring thread may still be adding a file while we walk; a few tries win the race.
        for _ in 0..5 {
            if std::fs::remove_dir_all(&dir).is_ok() || !dir.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

/// Names the scratch directory; randomness keeps two probes of the same process apart.
pub fn scratch_name() -> String {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    format!(
        ".wsl-place-probe-{}-{:08x}",
        std::process::id(),
        hasher.finish() as u32
    )
}

/// A scratch directory that exists exactly as long as this value.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
}

impl Scratch {
    /// Creates `<parent>/.wsl-place-probe-<pid>-<rand>`.
    pub fn create(parent: &Path) -> std::io::Result<Self> {
        install_handler();
        let path = parent.join(scratch_name());
        // Registered before it exists, so a signal between the two cannot leak it.
        if let Ok(mut live) = LIVE.lock() {
            live.push(path.clone());
        }
        if let Err(e) = std::fs::create_dir(&path) {
            unregister(&path);
            return Err(e);
        }
        Ok(Self { path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the directory now and reports whether it is gone.
    pub fn remove(self) -> bool {
        let gone = remove(&self.path);
        std::mem::forget(self);
        gone
    }
}

fn unregister(path: &Path) {
    if let Ok(mut live) = LIVE.lock() {
        live.retain(|p| p != path);
    }
}

fn remove(path: &Path) -> bool {
    let _ = std::fs::remove_dir_all(path);
    let gone = !path.exists();
    if gone {
        unregister(path);
    }
    gone
}

impl Drop for Scratch {
    fn drop(&mut self) {
        remove(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_is_removed_on_drop_and_on_remove() {
        let parent = tempfile::tempdir().unwrap();
        let a = Scratch::create(parent.path()).unwrap();
        let a_path = a.path().to_path_buf();
        std::fs::write(a_path.join("f"), b"x").unwrap();
        std::fs::create_dir(a_path.join("d")).unwrap();
        drop(a);
        assert!(!a_path.exists());
        let b = Scratch::create(parent.path()).unwrap();
        let b_path = b.path().to_path_buf();
        assert!(b.remove());
        assert!(!b_path.exists());
        assert!(!LIVE.lock().unwrap().contains(&b_path));
    }

    #[test]
    fn names_are_hidden_and_distinct() {
        let (a, b) = (scratch_name(), scratch_name());
        assert!(a.starts_with(".wsl-place-probe-"));
        assert_ne!(a, b);
    }
}
