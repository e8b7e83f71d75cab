//! The machine's record of verified predictions: each time a prediction was checked against
//! the real thing (`check --verify`, the first `git status` at a migration's copy), what was
//! predicted and measured, on which mount and when. Kept in the state folder
//! (`accuracy.json`, `store::Store::accuracy_record`), the newest `RECORD_LIMIT` entries, written
//! atomically; it is what the report's "within ±9% over 6 checks" and the bounded
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

/// [`remember`], and why the record could not be written (None: it was).
pub fn remember_or_why(env: &HostEnv, verification: Verification) -> (Record, Option<String>) {
    let mut record = load(env);
    record.push(verification);
    let why = match record_file(env) {
        None => Some("there is no state folder to keep it in (no usable home)".to_string()),
        Some(file) => crate::base::input::try_write_json_atomically(&file, &record)
            .err()
            .map(|e| format!("{} could not be written ({e})", file.display())),
    };
    (record, why)
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
