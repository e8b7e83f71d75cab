//! The probe's private scratch directory: removed on drop (normal and error paths) and, through
//! the interrupt handler, on Ctrl-C, so an interrupted `check` leaves nothing behind.

use crate::base::interrupt;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};

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
        "{SCRATCH_PREFIX}{}-{:08x}",
        std::process::id(),
        hasher.finish() as u32
    )
}

/// What every scratch directory's name starts with; the scan does not count such folders.
pub const SCRATCH_PREFIX: &str = ".wsl-place-probe-";

/// Whether `name` is a probe scratch folder's name.
pub fn is_scratch_name(name: &[u8]) -> bool {
    name.starts_with(SCRATCH_PREFIX.as_bytes())
}

/// Removes scratch folders in `parent` left by probes whose process is gone (SIGKILL, power
/// loss): the handler that would have removed them never ran.
pub fn remove_stale(parent: &Path) {
    let Ok(listing) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in listing.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(SCRATCH_PREFIX))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<i32>().ok())
            .filter(|&pid| pid > 0)
            .and_then(rustix::process::Pid::from_raw)
        else {
            continue;
        };
        // Signal 0 only asks whether the process exists.
        let gone = rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH);
        if gone {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// A scratch directory that exists exactly as long as this value. Its parent's times are put
/// back when it goes, so a probe does not make the repository look changed.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
    parent_times: Option<(std::fs::FileTimes, PathBuf)>,
}

impl Scratch {
    /// Creates `<parent>/.wsl-place-probe-<pid>-<rand>`, after removing stale ones.
    pub fn create(parent: &Path) -> std::io::Result<Self> {
        let parent_times = std::fs::metadata(parent).ok().and_then(|m| {
            let times = std::fs::FileTimes::new()
                .set_accessed(m.accessed().ok()?)
                .set_modified(m.modified().ok()?);
            Some((times, parent.to_path_buf()))
        });
        remove_stale(parent);
        let path = parent.join(scratch_name());
        // Registered before it exists, so a signal between the two cannot leak it.
        interrupt::remove_on_interrupt(&path);
        if let Err(e) = std::fs::create_dir(&path) {
            interrupt::forget(&path);
            return Err(e);
        }
        Ok(Self { path, parent_times })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the directory now and reports whether it is gone.
    pub fn remove(mut self) -> bool {
        let gone = remove(&self.path);
        self.restore_parent_times();
        std::mem::forget(self);
        gone
    }

    fn restore_parent_times(&mut self) {
        if let Some((times, parent)) = self.parent_times.take()
            && let Ok(dir) = std::fs::File::open(&parent)
        {
            let _ = dir.set_times(times);
        }
    }
}

fn remove(path: &Path) -> bool {
    let _ = std::fs::remove_dir_all(path);
    let gone = !path.exists();
    if gone {
        interrupt::forget(path);
    }
    gone
}

impl Drop for Scratch {
    fn drop(&mut self) {
        remove(&self.path);
        self.restore_parent_times();
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
    }

    #[test]
    fn names_are_hidden_and_distinct() {
        let (a, b) = (scratch_name(), scratch_name());
        assert!(a.starts_with(".wsl-place-probe-"));
        assert_ne!(a, b);
    }

    #[test]
    fn only_the_scratch_of_a_process_that_is_gone_is_stale() {
        let parent = tempfile::tempdir().unwrap();
        let mut child = crate::base::process::command("true").spawn().unwrap();
        let gone = child.id();
        child.wait().unwrap();
        let stale = parent.path().join(format!("{SCRATCH_PREFIX}{gone}-0"));
        let live = parent
            .path()
            .join(format!("{SCRATCH_PREFIX}{}-0", std::process::id()));
        let not_a_pid = parent.path().join(format!("{SCRATCH_PREFIX}0-0"));
        for dir in [&stale, &live, &not_a_pid] {
            std::fs::create_dir(dir).unwrap();
        }
        remove_stale(parent.path());
        assert!(!stale.exists());
        assert!(live.exists() && not_a_pid.exists());
    }
}
