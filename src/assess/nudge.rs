//! The shell's nudge (`wsl-place init`): on changing into a directory, print the cached advisory
//! line for the repository it is in, at most once per repository per interval. It runs before
//! every prompt after a `cd`, so it never probes, scans or locates: the repository comes from the
//! advisory cache's own file names (matched against the directory's ancestors as text, without
//! touching the slow mount), the mount type from one `statfs` when a line is due, and only when
//! the cache has nothing does it look upward for `.git` and start a background
//! `check --advisory` so the next visit has an answer.

use crate::assess::advisory::{self, CachedResult};
use crate::base::clock::now_unix;
use crate::decide::policy::{Level, Policy};
use crate::host::HostEnv;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// How long a started background check, or an upward look that found nothing cached, is trusted
/// before the same directory is looked at again: a check that fails must not restart on every
/// `cd`, and a folder outside any repository must not be stat-ed upward on every `cd`.
const RETRY_SECS: u64 = 600;

/// The most directories and repositories the state file remembers; the oldest go first.
const REMEMBERED: usize = 256;

/// `statfs` magic numbers of local disk and memory file systems (linux/magic.h): a directory on
/// one of them is never slow, so the nudge stops after one system call. Anything else (9p, FUSE
/// and virtiofs, NFS, SMB, WSL 1's drvfs) goes on to the cache.
const LOCAL_MAGIC: &[u32] = &[
    0xEF53,      // ext2, ext3, ext4
    0x5846_5342, // xfs
    0x9123_683E, // btrfs
    0x0102_1994, // tmpfs
    0x8584_58F6, // ramfs
    0x794C_7630, // overlayfs
    0x2FC1_2FC1, // zfs
    0xF2F5_2010, // f2fs
    0xCA45_1A4E, // bcachefs
    0x7371_7368, // squashfs
    0x3153_464A, // jfs
    0x5265_4973, // reiserfs
];

/// What the nudge needs from the user's settings.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// The least time between two nudges for one repository, in seconds (0: on every visit).
    pub every_secs: u64,
}

/// What the nudge remembers between prompts, in `$XDG_CACHE_HOME/wsl-place/nudge.json`.
#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    /// Per repository: when it was last nudged, when a background check was last started.
    #[serde(default)]
    repositories: BTreeMap<PathBuf, Seen>,
    /// Directories whose upward look found no cached answer, and when.
    #[serde(default)]
    looked: BTreeMap<PathBuf, u64>,
}

#[derive(Debug, Default, Clone, Copy, Serialize, Deserialize)]
struct Seen {
    #[serde(default)]
    nudged: u64,
    #[serde(default)]
    started: u64,
}

/// True when `dir` is on a local disk or in memory, by one `statfs`; an unreadable answer is
/// not local (the cache decides).
pub fn is_local(dir: &Path) -> bool {
    rustix::fs::statfs(dir).is_ok_and(|st| LOCAL_MAGIC.contains(&(st.f_type as u32)))
}

/// The line to print for a prompt in `dir` (already canonical: the shell's working directory as
/// the kernel names it), or None; starts a background check when the cache has no answer or an
/// old one. Every failure is silent: a prompt is no place for errors.
///
/// The cache is read first, because it is on the local disk: in a repository already nudged
/// today, a `cd` costs no round trip to the slow mount at all. The `statfs` is made only when
/// something would follow from it (a line due, a refresh, an upward look).
pub fn run(env: &HostEnv, dir: &Path, settings: &Settings) -> Option<String> {
    let entry = cached_above(env, dir);
    let state_file = env.cache_dir()?.join("nudge.json");
    let mut state: State = crate::base::input::read_cache(&state_file, "nudge state file")
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    let now = now_unix();
    let (line, changed) = match entry {
        Some(entry) => on_cached(&mut state, &entry, dir, now, settings),
        // A folder looked at lately needs not even the statfs.
        None if looked_lately(&state, dir, now) || is_local(dir) => (None, false),
        None => (None, on_uncached(&mut state, dir, now)),
    };
    if changed && env.cache_dir_to_write().is_some() {
        forget_oldest(&mut state);
        crate::base::input::write_json_atomically(&state_file, &state);
    }
    line
}

/// The cached result for the nearest ancestor of `dir` (itself included) that has one. Each
/// candidate costs one failed open in the local cache folder, none on the slow mount.
fn cached_above(env: &HostEnv, dir: &Path) -> Option<CachedResult> {
    dir.ancestors().find_map(|a| advisory::peek(env, a))
}

/// A cached answer for the repository: refresh it in the background when old, print its line
/// when it is not `ok`, not silenced and not printed within the interval; either only when
/// `dir` is not on a local disk (the cache may hold a verdict for a path since moved to one).
fn on_cached(
    state: &mut State,
    entry: &CachedResult,
    dir: &Path,
    now: u64,
    settings: &Settings,
) -> (Option<String>, bool) {
    let repository = entry.path.clone();
    let mut seen = state
        .repositories
        .get(&repository)
        .copied()
        .unwrap_or_default();
    let max_age = (Policy::built_in().advisory.max_age_hours * 3600.0) as u64;
    // A date in the future has no known age: refresh it too.
    let old = entry.created_unix > now || now - entry.created_unix > max_age;
    let refresh = old && now.saturating_sub(seen.started) > RETRY_SECS;
    let due = entry.level != Level::Ok
        && !entry.line.is_empty()
        && (seen.nudged == 0 || now.saturating_sub(seen.nudged) >= settings.every_secs);
    if !(refresh || due) || is_local(dir) {
        return (None, false);
    }
    if refresh && start_check(&repository) {
        seen.started = now;
    }
    let mut line = None;
    if due {
        // The cache also holds folders checked outside any repository; and `git config
        // wsl-place.nudge false` silences one repository. Both cost a round trip on the slow
        // mount, paid only when a line is due.
        if is_repository(&repository) && !silenced(&repository) {
            line = Some(entry.line.clone());
        }
        // Silenced or not, asked again only after the interval.
        seen.nudged = now;
    }
    state.repositories.insert(repository, seen);
    (line, true)
}

/// No cached answer above `dir`, not on a local disk, not looked at lately: find the repository
/// by looking upward for `.git` (one round trip per level, hence at most once per directory per
/// [`RETRY_SECS`]) and start its check.
fn on_uncached(state: &mut State, dir: &Path, now: u64) -> bool {
    state.looked.insert(dir.to_path_buf(), now);
    if let Some(repository) = dir.ancestors().find(|a| is_repository(a)) {
        let seen = state
            .repositories
            .entry(repository.to_path_buf())
            .or_default();
        if now.saturating_sub(seen.started) > RETRY_SECS && start_check(repository) {
            seen.started = now;
        }
    }
    true
}

fn looked_lately(state: &State, dir: &Path, now: u64) -> bool {
    state
        .looked
        .get(dir)
        .is_some_and(|&at| now.saturating_sub(at) <= RETRY_SECS)
}

fn is_repository(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join(".git")).is_ok()
}

/// `git config wsl-place.nudge false` (in the repository, or `--global` for every one).
fn silenced(repository: &Path) -> bool {
    Command::new("git")
        .args(["config", "--type=bool", "--get", "wsl-place.nudge"])
        .current_dir(repository)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "false")
}

/// Starts `wsl-place check --advisory REPOSITORY` detached: its own process group (no job
/// control line, no SIGHUP from the shell's terminal), every stream closed, not waited for.
fn start_check(repository: &Path) -> bool {
    use std::os::unix::process::CommandExt;
    let Ok(exe) = std::env::current_exe() else {
        return false;
    };
    Command::new(exe)
        .args(["check", "--advisory", "-q", "--"])
        .arg(repository)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .is_ok()
}

/// Keeps the state file small: the [`REMEMBERED`] most recent of each kind.
fn forget_oldest(state: &mut State) {
    while state.looked.len() > REMEMBERED {
        let oldest = state
            .looked
            .iter()
            .min_by_key(|&(_, &at)| at)
            .map(|(dir, _)| dir.clone());
        oldest.map(|dir| state.looked.remove(&dir));
    }
    while state.repositories.len() > REMEMBERED {
        let oldest = state
            .repositories
            .iter()
            .min_by_key(|(_, seen)| seen.nudged.max(seen.started))
            .map(|(dir, _)| dir.clone());
        oldest.map(|dir| state.repositories.remove(&dir));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_disks_stop_at_statfs() {
        // The test's temporary folder is on a local disk or tmpfs on every machine CI uses.
        let dir = tempfile::tempdir().unwrap();
        assert!(is_local(dir.path()));
        assert!(!is_local(Path::new("/proc")));
    }

    #[test]
    fn the_state_file_stays_small() {
        let mut state = State::default();
        for i in 0..(REMEMBERED as u64 + 10) {
            state.looked.insert(PathBuf::from(format!("/d{i}")), i);
        }
        forget_oldest(&mut state);
        assert_eq!(state.looked.len(), REMEMBERED);
        assert!(!state.looked.contains_key(Path::new("/d0")));
        assert!(state.looked.contains_key(Path::new("/d265")));
    }
}
