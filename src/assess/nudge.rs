//! The shell's nudge (`wsl-place init`): on changing into a directory, print the cached advisory
//! line for the repository it is in, at most once per repository per interval.
//!
//! It runs before every prompt after a `cd`, so it never waits on the slow mount beyond
//! [`BUDGET`]. What it reads itself is local: the advisory cache (the repository comes from the
//! cache's own file names, matched against the directory's ancestors as text), its state file,
//! and the mount table (`/proc/self/mountinfo`), which tells a local disk without a round trip to
//! the mount. What only the mount can tell (is the folder still a repository, has
//! `git config wsl-place.nudge false` silenced it, where is the `.git` above an uncached folder)
//! is learnt by a second process, `__nudge --learn`, detached: a call blocked in a FUSE or 9p
//! request cannot be cancelled, even by exiting, so it must not be a thread of the process the
//! shell waits for. The prompt waits for its answer until the budget runs out; what it did not
//! hear in time the learner keeps in the state file, for the next prompt. With nothing cached,
//! the learner also starts `check --advisory` in the background so the next visit has an answer.

use crate::assess::advisory::{self, CachedResult};
use crate::base::clock::now_unix;
use crate::base::pathtext;
use crate::decide::policy::{Level, Policy};
use crate::host::HostEnv;
use crate::host::git;
use crate::host::mounts::{self, MountKind};
use crate::store::CacheFile;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// The hidden subcommand the shell hook calls; with [`LEARN`], its background half.
pub const COMMAND: &str = "__nudge";
pub const LEARN: &str = "--learn";
/// The hook's argument in fish, whose words differ from the POSIX shells'.
pub const FISH: &str = "fish";

/// The longest a prompt waits for what only the mount can tell, from the process's start.
pub const BUDGET: Duration = Duration::from_millis(100);

/// How long a started background check or look, or an upward look that found nothing cached,
/// is trusted before the same directory is looked at again: a check that fails must not
/// restart on every `cd`, and a folder outside any repository must not be stat-ed upward on
/// every `cd`. What was learnt of a repository is trusted as long (a `git config
/// wsl-place.nudge false` counts from the next look).
const RETRY_SECS: u64 = 600;

/// The most directories and repositories the state file remembers; the oldest go first.
const REMEMBERED: usize = 256;

/// What the nudge needs from the user's settings and the hook.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// The least time between two nudges for one repository, in seconds (0: on every visit).
    pub every_secs: u64,
    /// Paths in the line as fish reads them.
    pub fish: bool,
    /// When the prompt stops waiting for the learner.
    pub deadline: Instant,
}

/// What the nudge remembers between prompts, in `$XDG_CACHE_HOME/wsl-place/nudge.json`.
#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    /// Per repository: when it was last nudged, when a background check was last started, and
    /// what was learnt of it.
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
    /// When a learner was last started for it.
    #[serde(default)]
    asked: u64,
    /// When the two facts below were learnt (0: never).
    #[serde(default)]
    learnt: u64,
    #[serde(default)]
    repository: bool,
    #[serde(default)]
    silenced: bool,
}

/// What only the mount can tell of a repository: the learner's answer.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Facts {
    /// It still holds `.git` (the cache also holds folders checked outside any repository).
    repository: bool,
    /// `git config wsl-place.nudge false` (in the repository, or `--global`).
    silenced: bool,
    /// Nothing was cached and the repository's check started now: the first visit says so.
    #[serde(default)]
    checking: bool,
}

/// The first visit's line: nothing is known yet, a measurement started, and where its answer
/// will show.
pub const FIRST_VISIT: &str = "wsl-place: measuring this repository in the background; its answer shows here at your next cd (or run wsl-place check)";

impl Seen {
    fn facts(&self, now: u64) -> Option<Facts> {
        (self.learnt > 0 && now.saturating_sub(self.learnt) <= RETRY_SECS).then_some(Facts {
            repository: self.repository,
            silenced: self.silenced,
            checking: false,
        })
    }
}

/// The state file, read freely and changed under a lock: a prompt and a learner write it
/// apart and neither may lose what the other wrote.
struct Store {
    file: PathBuf,
    lock: PathBuf,
}

impl Store {
    fn new(env: &HostEnv) -> Option<Self> {
        let folders = crate::store::Store::of(env);
        Some(Self {
            file: folders.cache_file(CacheFile::NudgeState)?,
            lock: folders.cache_file(CacheFile::NudgeLock)?,
        })
    }

    fn read(&self) -> State {
        crate::base::input::read_cache(&self.file, "nudge state file")
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// Applies `change` to the state as it is now; false when there is no cache to write.
    fn update(&self, env: &HostEnv, change: impl FnOnce(&mut State)) -> bool {
        if !crate::store::Store::of(env).may_write_cache_quietly() {
            return false;
        }
        // Held for a read and a write of a small local file; released when dropped.
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&self.lock);
        if let Ok(file) = &lock {
            let _ = rustix::fs::flock(file, rustix::fs::FlockOperation::LockExclusive);
        }
        let mut state = self.read();
        change(&mut state);
        forget_oldest(&mut state);
        crate::base::input::write_json_atomically(&self.file, &state);
        true
    }
}

/// True when `dir` is on a local disk or in memory, from the mount table: a directory there is
/// never slow, so the nudge stops. Anything else (9p, FUSE and virtiofs, NFS, SMB, WSL 1's
/// drvfs), or a table that cannot be read, goes on to the cache.
pub fn is_local(env: &HostEnv, dir: &Path) -> bool {
    let Ok(text) = crate::base::input::read_regular(
        &env.mountinfo_path(),
        crate::base::input::MOUNTINFO_LIMIT,
        "mountinfo file",
    ) else {
        return false;
    };
    let entries = mounts::parse_bytes(&text).unwrap_or_default();
    mounts::mount_for(&entries, dir).is_some_and(|mount| {
        matches!(
            mount.kind(),
            MountKind::Local | MountKind::Tmpfs | MountKind::Overlay
        )
    })
}

/// The line to print for a prompt in `dir` (already canonical: the shell's working directory as
/// the kernel names it), or None. Every failure is silent: a prompt is no place for errors.
///
/// The cache is read first, because it is on the local disk: in a repository already nudged
/// today, a `cd` costs no more. The mount table is read only when something would follow.
pub fn run(env: &HostEnv, dir: &Path, settings: &Settings) -> Option<String> {
    let store = Store::new(env)?;
    let state = store.read();
    let now = now_unix();
    if let Some(record) = crate::store::moved::migrated_above(env, dir) {
        return Some(at_old_place(env, &store, &state, &record, now, settings));
    }
    match cached_above(env, dir) {
        Some(entry) => on_cached(env, &store, (&state, &entry), dir, now, settings),
        None => on_uncached(env, &store, &state, dir, (now, settings.deadline)),
    }
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
    env: &HostEnv,
    store: &Store,
    (state, entry): (&State, &CachedResult),
    dir: &Path,
    now: u64,
    settings: &Settings,
) -> Option<String> {
    let repository = &entry.path;
    let seen = state
        .repositories
        .get(repository)
        .copied()
        .unwrap_or_default();
    let max_age = (Policy::built_in().advisory.max_age_hours * 3600.0) as u64;
    // A date in the future has no known age: refresh it too.
    let old = entry.created_unix > now || now - entry.created_unix > max_age;
    let refresh = old && now.saturating_sub(seen.started) > RETRY_SECS;
    let due = entry.level != Level::Ok
        && !entry.line.is_empty()
        && (seen.nudged == 0 || now.saturating_sub(seen.nudged) >= settings.every_secs);
    if !(refresh || due) || is_local(env, dir) {
        return None;
    }
    let started = refresh && start_check(repository);
    let (facts, asked) = match (due, seen.facts(now)) {
        (false, _) => (None, false),
        (true, Some(facts)) => (Some(facts), false),
        (true, None) => ask(&seen, now, settings.deadline),
    };
    store.update(env, |state| {
        let seen = state.repositories.entry(repository.clone()).or_default();
        if started {
            seen.started = now;
        }
        if asked {
            seen.asked = now;
        }
        // Shown or silenced, asked again only after the interval; not heard in time, at the
        // next prompt here, from what the learner keeps.
        if facts.is_some() {
            seen.nudged = now;
        }
    });
    facts
        .filter(|f| f.repository && !f.silenced)
        .map(|_| in_the_shells_words(entry, settings.fish))
}

/// At the old place of a finished migration: its line on every visit (it is short, and a
/// person back here is about to edit files the copy will not have), from the record's last
/// count; a count older than [`RETRY_SECS`] is refreshed in the background for the next visit.
fn at_old_place(
    env: &HostEnv,
    store: &Store,
    state: &State,
    record: &crate::store::moved::Moved,
    now: u64,
    settings: &Settings,
) -> String {
    use crate::measure::changes::{Count, told};
    let old = told(env, record, Count::Recorded);
    let source = &record.source;
    let stale = old
        .counted_unix
        .is_none_or(|at| now.saturating_sub(at) > RETRY_SECS);
    let seen = state.repositories.get(source).copied().unwrap_or_default();
    if stale && !old.copy_missing && now.saturating_sub(seen.started) > RETRY_SECS {
        let started = start_check(source);
        store.update(env, |state| {
            let seen = state.repositories.entry(source.clone()).or_default();
            if started {
                seen.started = now;
            }
            seen.nudged = now;
        });
    }
    let line = crate::assess::old_place::line(&old, source);
    let posix = pathtext::shell_quote(source);
    let fish_word = pathtext::fish_quote(source);
    if settings.fish && posix != fish_word {
        line.replace(&posix, &fish_word)
    } else {
        line
    }
}

/// The entry's line, its repository's path quoted as fish reads it when the hook is fish's.
fn in_the_shells_words(entry: &CachedResult, fish: bool) -> String {
    let posix = pathtext::shell_quote(&entry.path);
    let fish_word = pathtext::fish_quote(&entry.path);
    if fish && posix != fish_word {
        entry.line.replace(&posix, &fish_word)
    } else {
        entry.line.clone()
    }
}

/// Starts a learner for the repository unless one started lately has not answered yet, and
/// waits for its answer until `deadline`: the facts when heard in time, and whether one was
/// started.
fn ask(seen: &Seen, now: u64, deadline: Instant) -> (Option<Facts>, bool) {
    if seen.asked > seen.learnt && now.saturating_sub(seen.asked) <= RETRY_SECS {
        return (None, false);
    }
    match start_learner(Stdio::piped()) {
        Some(child) => (answer_by(child, deadline), true),
        None => (None, false),
    }
}

/// The learner's answer if it comes before `deadline`. Its output is read on a thread, which
/// exits with this process if it is still waiting: a pipe, unlike the mount, lets go.
fn answer_by(mut child: Child, deadline: Instant) -> Option<Facts> {
    let mut output = child.stdout.take()?;
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        // The first line: a learner that starts a check answers before it learns the rest.
        let mut text = String::new();
        let _ = std::io::BufReader::new(&mut output).read_line(&mut text);
        let _ = sender.send(text);
    });
    let text = receiver
        .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        .ok()?;
    // Its output closed: it is ending; reaped if it has.
    let _ = child.try_wait();
    serde_json::from_str(text.trim()).ok()
}

/// No cached answer above `dir`, not on a local disk, not looked at lately: remember the look
/// and leave it to a learner; when it answers within the budget that it found a repository
/// and started its check, the first visit says so ([`FIRST_VISIT`]).
fn on_uncached(
    env: &HostEnv,
    store: &Store,
    state: &State,
    dir: &Path,
    (now, deadline): (u64, Instant),
) -> Option<String> {
    if looked_lately(state, dir, now) || is_local(env, dir) {
        return None;
    }
    let remembered = store.update(env, |state| {
        state.looked.insert(dir.to_path_buf(), now);
    });
    // Without a state file to keep it, every `cd` here would start one.
    if !remembered {
        return None;
    }
    let learner = start_learner(Stdio::piped())?;
    answer_by(learner, deadline)
        .filter(|facts| facts.checking && !facts.silenced)
        .map(|_| FIRST_VISIT.to_string())
}

/// Starts `wsl-place __nudge --learn` in the working directory, detached: its own process
/// group (no job control line, no SIGHUP from the shell's terminal), no input, errors
/// discarded, its answer on `output`.
fn start_learner(output: Stdio) -> Option<Child> {
    let exe = std::env::current_exe().ok()?;
    let mut cmd = crate::base::process::command(exe);
    cmd.args([COMMAND, LEARN])
        .stdout(output)
        .stderr(Stdio::null());
    crate::base::process::start(cmd).ok()
}

/// The learner (`__nudge --learn`) for a prompt in `dir`: finds the repository (the cached one
/// above `dir`, else the nearest folder above it holding `.git`), learns what only the mount
/// tells of it, keeps that in the state file and returns it as the line the prompt waits for;
/// with nothing cached, starts the repository's check. It may take as long as the mount does:
/// nobody waits for it but a prompt that stops at its budget.
pub fn learn(env: &HostEnv, dir: &Path) -> Option<String> {
    // Its working directory would keep the mount busy.
    let _ = std::env::set_current_dir("/");
    let store = Store::new(env)?;
    let (repository, cached) = match cached_above(env, dir) {
        Some(entry) => (entry.path, true),
        None => (
            dir.ancestors().find(|a| is_repository(a))?.to_path_buf(),
            false,
        ),
    };
    let mut check = false;
    if !cached {
        store.update(env, |state| {
            let now = now_unix();
            let seen = state.repositories.entry(repository.clone()).or_default();
            check = now.saturating_sub(seen.started) > RETRY_SECS;
            if check {
                seen.started = now;
            }
        });
    }
    // A repository found just now holds `.git`; a cached one is looked at again.
    let is_repo = !cached || is_repository(&repository);
    let checking = check && start_check(&repository);
    // Asked after the check started (it runs meanwhile) and before the prompt hears of it: the
    // first visit's line is a nudge too, and `git config wsl-place.nudge false` silences it.
    let facts = Facts {
        repository: is_repo,
        silenced: is_repo && silenced(&repository),
        checking: false,
    };
    if checking {
        let early = Facts {
            checking: true,
            ..facts
        };
        if let Ok(text) = serde_json::to_string(&early) {
            let _ =
                std::io::Write::write_all(&mut std::io::stdout(), format!("{text}\n").as_bytes());
        }
    }
    store.update(env, |state| {
        let seen = state.repositories.entry(repository.clone()).or_default();
        seen.learnt = now_unix();
        seen.repository = facts.repository;
        seen.silenced = facts.silenced;
    });
    serde_json::to_string(&facts).ok()
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
    // Read in-process where `.git` is a folder: the first visit's line waits on this, and a
    // `git` process finding its repository costs some 50 ms of round trips on a 9p mount.
    let git_dir = repository.join(".git");
    if git_dir.is_dir()
        && plain_config_without_includes(&git_dir)
        && let Ok(config) = gix::config::File::from_git_dir(git_dir)
    {
        return matches!(config.boolean("wsl-place.nudge"), Ok(Some(false)));
    }
    // A repository git would wait on (a FIFO it reads) is not silenced; its check says why.
    if crate::host::git::files::plain_git_files(repository).is_err() {
        return false;
    }
    let mut cmd = git::reading(Some(repository));
    cmd.args(["config", "--type=bool", "--get", "wsl-place.nudge"]);
    git::run(cmd, git::QUICK_LIMIT)
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "false")
}

/// Whether the repository's config can be read in-process without waiting on anything it
/// names: it and `config.worktree` are regular files (a FIFO would block the read, and with it
/// every `cd`), and it includes no other file (an include can name one anywhere). Else the
/// `git` process, stopped at its limit, answers.
fn plain_config_without_includes(git_dir: &Path) -> bool {
    let plain = |name: &str| crate::base::repo_file::not_a_file(&git_dir.join(name)).is_none();
    let limit = crate::base::repo_file::MANIFEST_LIMIT;
    plain("config")
        && plain("config.worktree")
        && crate::base::repo_file::read_at(&git_dir.join("config"), limit).is_ok_and(|text| {
            !String::from_utf8_lossy(&text)
                .to_ascii_lowercase()
                .contains("[include")
        })
}

/// Starts `wsl-place check --advisory REPOSITORY` detached: its own process group, every
/// stream closed, not waited for, and not in the repository (a working directory there would
/// keep the mount busy).
fn start_check(repository: &Path) -> bool {
    let Ok(exe) = std::env::current_exe() else {
        return false;
    };
    let mut cmd = crate::base::process::command(exe);
    cmd.args(["check", "--advisory", "-q", "--"])
        .arg(repository)
        .current_dir("/")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    crate::base::process::start(cmd).is_ok()
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
            .min_by_key(|(_, seen)| seen.nudged.max(seen.started).max(seen.learnt))
            .map(|(dir, _)| dir.clone());
        oldest.map(|dir| state.repositories.remove(&dir));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_disks_are_told_by_the_mount_table() {
        let env = HostEnv::from_vars(Default::default());
        // The test's temporary folder is on a local disk or tmpfs on every machine CI uses.
        let dir = tempfile::tempdir().unwrap();
        assert!(is_local(&env, &dir.path().canonicalize().unwrap()));
        assert!(!is_local(&env, Path::new("/proc")));
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
