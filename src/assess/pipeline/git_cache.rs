//! What git says of itself (its version, what starting it costs) is a property of the machine:
//! asking costs two `git` runs, about as long as a whole `git status` in a small repository on
//! the Linux disk. It is kept per machine, boot, kernel and `git` executable, so the next check
//! asks again only when git was upgraded, another `git` comes first on `PATH`, or a day passed.
//! A start-up timed while the machine was busier than its cores is timed again by the first
//! check on a quiet machine, and the faster of the two kept: one loaded run would otherwise
//! have added its queue to every prediction for a day (18 ms for git's ~1.5 ms under load 9).

use super::mount_cache::MAX_AGE_SECS;
use crate::base::clock::now_unix;
use crate::host::HostEnv;
use crate::host::git::version::{GitFacts, GitVersion};
use crate::store::accuracy::LOADED_PER_CORE;
use crate::store::{CacheFile, Store};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Serialize, Deserialize)]
struct Entry {
    /// Machine, boot, kernel and git executable: a mismatch is a miss.
    key: String,
    created_unix: u64,
    /// `2.47.1`; None when git printed no version we read.
    version: Option<String>,
    startup_ms: f64,
    /// The machine's load per core when `startup_ms` was timed (None: not read, or an earlier
    /// release's entry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    load_per_core: Option<f64>,
}

/// The key and the file; None without a boot id, a Linux `git` on `PATH` or a cache folder.
fn place(env: &HostEnv) -> Option<(String, PathBuf)> {
    let boot = env.boot_id()?;
    let kernel = env.read_facts().kernel_version.unwrap_or_default();
    // The git the builders start, which a Windows `git` earlier on PATH is not.
    let git = crate::host::identity_of(crate::host::git::linux_git()?)?;
    let key = format!("{}\n{boot}\n{kernel}\n{git}", env.hostname());
    let file = Store::of(env).cache_file(CacheFile::GitFacts)?;
    Some((key, file))
}

/// Git's facts: the cached ones when `reuse` and this machine asked this `git` in this boot
/// within a day (unless they were timed under load and the machine is quiet now), else asked
/// now (and kept).
pub fn facts(env: &HostEnv, reuse: bool) -> GitFacts {
    let place = place(env);
    let load_now = env.load_per_core();
    let cached = reuse
        .then(|| place.as_ref().and_then(|(key, file)| load(key, file)))
        .flatten();
    if let Some(entry) = &cached
        && !worth_retiming(entry.load_per_core, load_now)
    {
        return entry.facts();
    }
    let mut facts = GitFacts::read();
    if let (Some(entry), Some(now)) = (&cached, facts.startup_ms) {
        facts.startup_ms = Some(now.min(entry.startup_ms));
    }
    if let (Some((key, file)), Some(startup_ms)) = (place, facts.startup_ms)
        && Store::of(env).may_write_cache()
    {
        let entry = Entry {
            key,
            created_unix: now_unix(),
            version: facts.version.map(|v| v.to_string()),
            startup_ms,
            load_per_core: load_now,
        };
        crate::base::input::write_json_atomically(&file, &entry);
    }
    facts
}

/// Whether a cached start-up timed at load `then` is worth timing again at load `now`: it was
/// timed busier than the cores and the machine is not now (a loaded figure's queue is most of
/// it; a quiet one is kept whatever the load now, as timing it again under load cannot do
/// better).
fn worth_retiming(then: Option<f64>, now: Option<f64>) -> bool {
    then.is_some_and(|l| l > LOADED_PER_CORE) && now.is_some_and(|l| l <= LOADED_PER_CORE)
}

impl Entry {
    fn facts(&self) -> GitFacts {
        GitFacts {
            version: self
                .version
                .as_ref()
                .and_then(|v| GitVersion::parse(&format!("git version {v}"))),
            startup_ms: Some(self.startup_ms),
        }
    }
}

fn load(key: &str, file: &std::path::Path) -> Option<Entry> {
    let bytes = crate::base::input::read_cache(file, "git facts cache file")?;
    let entry: Entry = serde_json::from_slice(&bytes).ok()?;
    let fresh = crate::base::clock::younger_than(entry.created_unix, MAX_AGE_SECS);
    let plausible = entry.startup_ms.is_finite() && entry.startup_ms > 0.0;
    (fresh && plausible && entry.key == key).then_some(entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_up_timed_under_load_is_timed_again_on_a_quiet_machine_only() {
        assert!(worth_retiming(Some(4.5), Some(0.3)));
        assert!(worth_retiming(Some(1.2), Some(1.0)));
        // Busy now too: timing again would measure the queue again.
        assert!(!worth_retiming(Some(4.5), Some(2.0)));
        assert!(!worth_retiming(Some(4.5), None));
        // Timed quiet (or by an earlier release, which did not say): kept.
        assert!(!worth_retiming(Some(0.4), Some(0.1)));
        assert!(!worth_retiming(None, Some(0.1)));
    }
}
