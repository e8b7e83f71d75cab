//! What git says of itself (its version, what starting it costs) is a property of the machine:
//! asking costs two `git` runs, about as long as a whole `git status` in a small repository on
//! the Linux disk. It is kept per machine, boot, kernel and `git` executable, so the next check
//! asks again only when git was upgraded, another `git` comes first on `PATH`, or a day passed.

use super::mount_cache::MAX_AGE_SECS;
use crate::base::clock::now_unix;
use crate::host::{GitFacts, GitVersion, HostEnv};
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
}

/// The key and the file; None without a boot id, a `git` on `PATH` or a cache folder.
fn place(env: &HostEnv) -> Option<(String, PathBuf)> {
    let boot = env.boot_id()?;
    let kernel = env.read_facts().kernel_version.unwrap_or_default();
    let git = env.executable_identity("git")?;
    let key = format!("{}\n{boot}\n{kernel}\n{git}", env.hostname());
    let file = Store::of(env).cache_file(CacheFile::GitFacts)?;
    Some((key, file))
}

/// Git's facts: the cached ones when `reuse` and this machine asked this `git` in this boot
/// within a day, else asked now (and kept).
pub fn facts(env: &HostEnv, reuse: bool) -> GitFacts {
    let place = place(env);
    if reuse && let Some(facts) = place.as_ref().and_then(|(key, file)| load(key, file)) {
        return facts;
    }
    let facts = GitFacts::read();
    if let (Some((key, file)), Some(startup_ms)) = (place, facts.startup_ms)
        && Store::of(env).may_write_cache()
    {
        let entry = Entry {
            key,
            created_unix: now_unix(),
            version: facts.version.map(|v| v.to_string()),
            startup_ms,
        };
        crate::base::input::write_json_atomically(&file, &entry);
    }
    facts
}

fn load(key: &str, file: &std::path::Path) -> Option<GitFacts> {
    let bytes = crate::base::input::read_cache(file, "git facts cache file")?;
    let entry: Entry = serde_json::from_slice(&bytes).ok()?;
    let fresh = crate::base::clock::younger_than(entry.created_unix, MAX_AGE_SECS);
    let plausible = entry.startup_ms.is_finite() && entry.startup_ms > 0.0;
    (fresh && plausible && entry.key == key).then(|| GitFacts {
        version: entry
            .version
            .and_then(|v| GitVersion::parse(&format!("git version {v}"))),
        startup_ms: Some(entry.startup_ms),
    })
}
