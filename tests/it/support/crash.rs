//! What the crash tests share: a tree of many small files, and kill points drawn from a seed
//! that each run prints, so a failure can be replayed with `WSL_PLACE_CRASH_SEED`.

use super::gitrepo::write;
use super::kill;
use super::tree::bytes;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// `files` files spread over `packages` x `subs` folders, file `i` of `(i * size_step) %
/// max_size` bytes.
pub struct PackageTree {
    pub files: u64,
    pub packages: u64,
    pub subs: u64,
    pub size_step: usize,
    pub max_size: usize,
}

impl PackageTree {
    /// Where file `i` lives below `root`.
    pub fn file(&self, root: &Path, i: u64) -> PathBuf {
        root.join(format!(
            "pkg{}/sub{}/file{i}.txt",
            i % self.packages,
            i % self.subs
        ))
    }

    pub fn build(&self, root: &Path) {
        for i in 0..self.files {
            write(
                &self.file(root, i),
                &bytes(i, (i as usize * self.size_step) % self.max_size),
            );
        }
    }
}

/// The delays after which a crash test kills its run: xorshift from a seed.
pub struct KillPoints {
    seed: u64,
    state: u64,
}

impl KillPoints {
    /// Seeded from `WSL_PLACE_CRASH_SEED`, or else the clock.
    pub fn new() -> Self {
        let seed = std::env::var("WSL_PLACE_CRASH_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64
                    | 1
            });
        Self { seed, state: seed }
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// A delay up to 110% of `full`, how long an uninterrupted run took: most land inside
    /// the run, a few after it.
    pub fn next_within(&mut self, full: Duration) -> Duration {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        let window = full.as_micros() as u64 * 11 / 10;
        Duration::from_micros(self.state % window.max(1))
    }
}

/// Starts `cmd` with its output discarded and SIGKILLs it after `delay`, unless it finished
/// by then: whether it was killed.
pub fn killed_after(cmd: &mut Command, delay: Duration) -> bool {
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the run to kill");
    std::thread::sleep(delay);
    if child.try_wait().expect("poll the run").is_some() {
        return false;
    }
    kill(&mut child);
    true
}
