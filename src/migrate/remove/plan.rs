//! `--remove-source` as a plan: before the question, what will be deleted and what will stay
//! (and why), with the time the model puts on it; during the removal, a bar with the count and
//! the time left. Read-only: the plan walks the source by `lstat` alone.

use crate::base::error::{Failure, Result};
use crate::base::progress::Drawn;
use crate::base::units;
use crate::measure::changes::{self, SeenKind};
use crate::measure::manifest::{self, ManifestEntry};
use std::collections::HashSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What `--remove-source` will delete and keep.
#[derive(Debug, Clone, Default)]
pub struct RemovalPlan {
    pub files: u64,
    pub symlinks: u64,
    pub dirs: u64,
    pub bytes: u64,
    /// Each `path (why)`: changed since the copy, made after it, never copied.
    pub kept: Vec<String>,
    /// The model's time for the removal; None when the source could not be timed.
    pub predicted_ms: Option<f64>,
}

/// Files listed under "keeps" before the rest is summed up as a count.
const LISTED: usize = 10;
/// Source files whose `lstat` times the source's round trip.
const SAMPLE: usize = 32;

impl RemovalPlan {
    /// Entries the bar counts: each file, link and folder the removal visits.
    pub fn entries(&self) -> u64 {
        self.files + self.symlinks + self.dirs
    }

    /// The plan for a person. `verified` is the day an earlier run verified the copy, or None
    /// when this run did.
    pub fn text(&self, source: &Path, destination: &Path, verified: Option<&str>) -> String {
        let when = match verified {
            Some(day) => format!(
                "its copy at {} was verified on {day}",
                destination.display()
            ),
            None => format!("its copy at {} was just verified", destination.display()),
        };
        let time = self
            .predicted_ms
            .map(|ms| format!(" (about {})", units::duration_ms(ms)))
            .unwrap_or_default();
        let mut out = format!(
            "Removing the source {} ({when}):\n  deletes  {}, then {}{time}\n",
            source.display(),
            units::tree(self.files, self.symlinks, self.bytes, false),
            units::counted(self.dirs, "emptied folder", "emptied folders"),
        );
        if self.kept.is_empty() {
            out.push_str("  keeps    nothing: everything there was copied and is unchanged\n");
            return out;
        }
        out.push_str(&format!(
            "  keeps    {}:\n",
            units::counted(self.kept.len() as u64, "entry", "entries")
        ));
        for kept in self.kept.iter().take(LISTED) {
            out.push_str(&format!("           {kept}\n"));
        }
        if self.kept.len() > LISTED {
            out.push_str(&format!(
                "           and {} more\n",
                units::count((self.kept.len() - LISTED) as u64)
            ));
        }
        out
    }

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
    for entry in &entries {
        match entry {
            ManifestEntry::File(r) if !differs.contains(r.rel.as_path()) => {
                plan.files += 1;
                plan.bytes += r.size;
            }
            ManifestEntry::Symlink { rel, .. } if !differs.contains(rel.as_path()) => {
                plan.symlinks += 1
            }
            ManifestEntry::Dir(rel) => {
                dirs.insert(rel.as_path());
                if !gone.contains(rel.as_path()) {
                    plan.dirs += 1;
                }
            }
            _ => {}
        }
    }
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
