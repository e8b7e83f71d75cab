//! The machine's record of verified predictions: each time a prediction was checked against
//! the real thing (`check --verify`, the first `git status` at a migration's copy), what was
//! predicted and measured, on which mount and when. Kept in the state folder
//! (`accuracy.json`, `store::Store::accuracy_record`), the newest `RECORD_LIMIT` entries, written
//! atomically under a lock (`accuracy.lock` beside it, `flock`), so two runs that verify at once
//! both keep theirs; it is what the report's "within ±9% over 6 checks" and the bounded
//! self-correction are computed from.

use crate::host::HostEnv;
use crate::host::mounts::MountKind;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// How many verifications the record keeps (the oldest go first): enough for every mount a
/// person uses, small enough to read on every check.
pub const RECORD_LIMIT: usize = 200;

/// Which prediction a verification checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Figure {
    /// `git status` where the repository is.
    GitStatus,
    /// The first `git status` after a copy (what `migrate` times at its destination).
    FirstGitStatus,
}

/// One mount as the record tells mounts apart: its kind and source (a drive, a share, a
/// device), which survive a reboot where mount ids do not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MountKey {
    pub kind: MountKind,
    pub source: String,
}

/// One verified prediction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verification {
    pub figure: Figure,
    pub mount: MountKey,
    #[serde(with = "crate::base::pathtext::json")]
    pub path: PathBuf,
    /// What the model predicted, before any correction from this record.
    pub model_ms: f64,
    /// What the report showed (the model's figure with the correction that applied then).
    pub predicted_ms: f64,
    /// The median of the timed runs.
    pub measured_ms: f64,
    /// When, seconds since 1970.
    pub unix: u64,
    /// The machine's load then: the 1-minute load average over the cores (None: not read, as in
    /// records earlier releases wrote). Past `LOADED_PER_CORE` the measured figure is the
    /// machine's queue as much as the repository's, and the correction leaves it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_per_core: Option<f64>,
}

/// The load per core past which a verification was taken under load: more runnable work than
/// cores, so `git status` waited for a core some of the time it was timed.
pub const LOADED_PER_CORE: f64 = 1.0;

impl Verification {
    /// Whether the machine was busier than its cores when this was timed.
    pub fn under_load(&self) -> bool {
        self.load_per_core.is_some_and(|l| l > LOADED_PER_CORE)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub verifications: Vec<Verification>,
}

impl Record {
    /// The verifications of `figure` on `mount`, oldest first.
    pub fn on<'a>(
        &'a self,
        figure: Figure,
        mount: &'a MountKey,
    ) -> impl Iterator<Item = &'a Verification> + 'a {
        self.verifications
            .iter()
            .filter(move |v| v.figure == figure && &v.mount == mount)
    }

    fn push(&mut self, verification: Verification) {
        self.verifications.push(verification);
        let over = self.verifications.len().saturating_sub(RECORD_LIMIT);
        self.verifications.drain(..over);
    }
}

fn record_file(env: &HostEnv) -> Option<PathBuf> {
    super::Store::of(env).accuracy_record()
}

/// The record, or an empty one when there is none yet or it cannot be read (a record that does
/// not parse only loses what it held: the next verification starts a new one).
pub fn load(env: &HostEnv) -> Record {
    record_file(env)
        .and_then(|file| crate::base::input::read_cache(&file, "accuracy record"))
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// Adds `verification` to the record. Best effort: a record that cannot be written only
/// forgets this one.
pub fn remember(env: &HostEnv, verification: Verification) -> Record {
    remember_or_why(env, verification).0
}

/// [`remember`], and why the record could not be written (None: it was). The record is read
/// again and written back while this run holds the lock beside it: another run's verification
/// written in between is kept, not overwritten.
pub fn remember_or_why(env: &HostEnv, verification: Verification) -> (Record, Option<String>) {
    let Some(file) = record_file(env) else {
        let mut record = load(env);
        record.push(verification);
        let why = "there is no state folder to keep it in (no usable home)".to_string();
        return (record, Some(why));
    };
    // Held until the record is replaced; a lock that cannot be taken (a read-only state
    // folder) leaves the write to fail, and say so, on its own.
    let _held = hold_lock(&file);
    let mut record = load(env);
    record.push(verification);
    let why = crate::base::input::try_write_json_atomically(&file, &record)
        .err()
        .map(|e| format!("{} could not be written ({e})", file.display()));
    (record, why)
}

/// The lock beside the record, held (`flock`, exclusive) while the returned file is open.
fn hold_lock(record: &std::path::Path) -> Option<std::fs::File> {
    let lock = record.with_extension("lock");
    std::fs::create_dir_all(lock.parent()?).ok()?;
    let file = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock)
        .ok()?;
    file.lock().ok()?;
    Some(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(n: u64) -> Verification {
        Verification {
            figure: Figure::GitStatus,
            mount: MountKey {
                kind: MountKind::Other,
                source: "src".into(),
            },
            path: PathBuf::from("/r"),
            model_ms: 100.0,
            predicted_ms: 100.0,
            measured_ms: 110.0,
            unix: n,
            load_per_core: None,
        }
    }

    #[test]
    fn the_record_is_kept_and_bounded() {
        let tmp = tempfile::tempdir().unwrap();
        let env = HostEnv::from_pairs(&[("XDG_STATE_HOME", tmp.path().to_str().unwrap())]);
        for n in 0..(RECORD_LIMIT as u64 + 5) {
            remember(&env, one(n));
        }
        let record = load(&env);
        assert_eq!(record.verifications.len(), RECORD_LIMIT);
        assert_eq!(record.verifications[0].unix, 5);
        let key = one(0).mount;
        assert_eq!(record.on(Figure::GitStatus, &key).count(), RECORD_LIMIT);
        assert_eq!(record.on(Figure::FirstGitStatus, &key).count(), 0);
    }
}
