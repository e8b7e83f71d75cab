//! `--remove-source` as a plan: before the question, what will be deleted and what will stay
//! (and why), with the time the model puts on it; during the removal, a bar with the count and
//! the time left. Read-only: the plan walks the source by `lstat` alone.

use crate::base::error::{Failure, Result};
use crate::base::progress::Drawn;
use crate::measure::changes::{self, SeenKind};
use crate::measure::manifest::{self, ManifestEntry};
pub use crate::migrate::kernel::outcome::RemovalPlan;
use std::collections::HashSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Source files whose `lstat` times the source's round trip.
const SAMPLE: usize = 32;

/// The removal's bar, from its plan.
impl RemovalPlan {
    /// The bar the removal advances, one unit per entry, with the model's time left.
    pub fn bar(&self, show: bool) -> Drawn {
        match self.predicted_ms {
            Some(ms) => crate::migrate::kernel::progress::bar(show, self.entries(), ms),
            None => Drawn::spinner(show, "removing what was copied from the source"),
        }
    }
}

/// What `--remove-source` would delete from `source` and keep, from the manifest and one walk.
pub fn plan(source: &Path, manifest_path: &Path) -> Result<RemovalPlan> {
    let (_, entries) = manifest::read(manifest_path).ok_or_else(|| {
        Failure::internal(format!(
            "{} is not a complete wsl-place manifest, so nothing in the source was deleted.",
            manifest_path.display()
        ))
    })?;
    let seen = changes::walk(source)
        .map_err(|u| u.failure(source, "nothing in the source was deleted."))?;
    let found = changes::classify(source, &entries, &seen);
    let differs: HashSet<&Path> = found
        .changed
        .iter()
        .chain(&found.removed)
        .map(PathBuf::as_path)
        .collect();
    let gone: HashSet<&Path> = found.removed_dirs.iter().map(PathBuf::as_path).collect();
    let mut plan = RemovalPlan::default();
    let mut dirs = HashSet::new();
    // What the removal deletes: unchanged files and links, and folders once emptied.
    let mut removable: HashSet<&Path> = HashSet::new();
    for entry in &entries {
        match entry {
            ManifestEntry::File(r) if !differs.contains(r.rel.as_path()) => {
                plan.files += 1;
                plan.bytes += r.size;
                removable.insert(&r.rel);
            }
            ManifestEntry::Symlink { rel, .. } if !differs.contains(rel.as_path()) => {
                plan.symlinks += 1;
                removable.insert(rel);
            }
            ManifestEntry::Dir(rel) => {
                dirs.insert(rel.as_path());
                removable.insert(rel);
            }
            _ => {}
        }
    }
    // A folder holding anything that stays is not emptied, so not removed: the plan counts
    // the folders the removal will count.
    let kept_in: HashSet<&Path> = seen
        .iter()
        .filter(|s| !removable.contains(s.rel.as_path()))
        .flat_map(|s| s.rel.ancestors().skip(1))
        .collect();
    plan.dirs = dirs
        .iter()
        .filter(|rel| !gone.contains(*rel) && !kept_in.contains(*rel))
        .count() as u64;
    plan.source_emptied = !kept_in.contains(Path::new(""));
    let escape = |p: &Path| crate::base::pathtext::escape_path(p);
    for rel in &found.changed {
        plan.kept
            .push(format!("{} (changed since the copy)", escape(rel)));
    }
    for rel in &found.added {
        plan.kept
            .push(format!("{} (made after the copy)", escape(rel)));
    }
    for s in &seen {
        let left_behind = s.kind == SeenKind::Dir
            && s.rel.file_name() == Some(OsStr::new("node_modules"))
            && !dirs.contains(s.rel.as_path())
            && s.rel
                .parent()
                .is_none_or(|p| dirs.contains(p) || p.as_os_str().is_empty());
        if left_behind {
            plan.kept.push(format!(
                "{} (node_modules left behind, never copied)",
                escape(&s.rel)
            ));
        } else if s.kind == SeenKind::Other {
            plan.kept
                .push(format!("{} (a special file, never copied)", escape(&s.rel)));
        }
    }
    plan.kept.sort();
    plan.predicted_ms = source_call_ms(source, &entries).map(|call_ms| {
        crate::model::migration::removal_ms(
            plan.files + plan.symlinks,
            plan.dirs,
            call_ms,
            plan.bytes,
        )
    });
    Ok(plan)
}

/// One round trip to the source: the median of serial `lstat`s of files the manifest lists.
fn source_call_ms(source: &Path, entries: &[ManifestEntry]) -> Option<f64> {
    let mut times: Vec<f64> = entries
        .iter()
        .filter_map(|e| match e {
            ManifestEntry::File(r) => Some(source.join(&r.rel)),
            _ => None,
        })
        .take(SAMPLE)
        .filter_map(|path| {
            let started = Instant::now();
            crate::base::dirfd::lstat(&path).ok()?;
            Some(started.elapsed().as_secs_f64() * 1e3)
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times.get(times.len() / 2).copied()
}
