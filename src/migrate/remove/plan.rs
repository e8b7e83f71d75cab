//! `--remove-source` as a plan: before the question, what will be deleted and what will stay
//! (and why), with the time the model puts on it; during the removal, a bar with the count and
//! the time left. Read-only: the plan walks the source by `lstat` alone.

use crate::base::error::{Failure, Result};
use crate::base::pathtext::RelPath;
use crate::base::progress::Drawn;
use crate::measure::changes::{self, SeenKind};
use crate::migrate::kernel::outcome::{GitFolder, Kept, KeptWhy, RemovalPlan};
use crate::store::manifest::{self, FileRecord, ManifestEntry};
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
            Some(ms) => crate::migrate::kernel::engine::progress::bar(show, self.entries(), ms),
            None => Drawn::spinner(show, "removing what was copied from the source"),
        }
    }
}

/// What `--remove-source` would delete from `source` and keep, from the manifest and one walk.
pub fn plan(source: &Path, destination: &Path, manifest_path: &Path) -> Result<RemovalPlan> {
    let entries = read_manifest(manifest_path)?;
    let again =
        crate::migrate::kernel::engine::staging::command(source, destination, " --remove-source");
    let seen = changes::walk(source).map_err(|unseen| match unseen {
        changes::Unseen::Interrupted => Failure::interrupted(&format!(
            "nothing in the source was deleted; to remove it later: `{again}`"
        )),
        other => other.failure(source, "nothing in the source was deleted."),
    })?;
    let found = changes::classify(source, &entries, &seen);
    let differs: HashSet<&Path> = found
        .changed
        .iter()
        .chain(&found.removed)
        .map(PathBuf::as_path)
        .collect();
    let mut plan = RemovalPlan {
        git: git_folders(source, destination, &entries, &seen),
        ..RemovalPlan::default()
    };
    let units: Vec<PathBuf> = plan.git.iter().map(|g| g.path.0.clone()).collect();
    let in_unit = |rel: &Path| units.iter().any(|u| rel.starts_with(u));
    let mut dirs = HashSet::new();
    // What the removal deletes: unchanged files and links, and folders once emptied.
    let mut removable: HashSet<&Path> = HashSet::new();
    let venvs = changes::virtualenv_roots(&entries, &seen);
    let mut copy_changed = Vec::new();
    for entry in entries.iter().filter(|e| !in_unit(e.rel())) {
        match entry {
            ManifestEntry::File(r) if differs.contains(r.rel.as_path()) => {}
            ManifestEntry::File(r) if let Some(why) = copy_differs(destination, r, &venvs) => {
                copy_changed.push(Kept::new(&r.rel, why));
            }
            ManifestEntry::File(r) => {
                plan.totals.files += 1;
                plan.totals.bytes += r.size;
                removable.insert(&r.rel);
            }
            ManifestEntry::Symlink { rel, .. } if !differs.contains(rel.as_path()) => {
                plan.totals.symlinks += 1;
                removable.insert(rel);
            }
            ManifestEntry::Dir(rel) => {
                dirs.insert(rel.as_path());
                removable.insert(rel);
            }
            _ => {}
        }
    }
    count_emptied(&mut plan, &found, &seen, &removable, &dirs);
    plan.kept.append(&mut copy_changed);
    kept_reasons(&mut plan, &found, &seen, &dirs, &in_unit);
    plan.predicted_ms = predicted_ms(source, &entries, &plan);
    Ok(plan)
}

/// The manifest's entries: all of them, or nothing is deleted.
fn read_manifest(manifest_path: &Path) -> Result<Vec<ManifestEntry>> {
    let (_, entries) = manifest::read(manifest_path).ok_or_else(|| {
        Failure::internal(format!(
            "{} is not a complete wsl-place manifest, so nothing in the source was deleted.",
            manifest_path.display()
        ))
    })?;
    Ok(entries)
}

/// The folders the removal will count as removed, and whether the source itself goes: a
/// folder holding anything that stays is not emptied, so not removed.
fn count_emptied(
    plan: &mut RemovalPlan,
    found: &changes::Changes,
    seen: &[changes::Seen],
    removable: &HashSet<&Path>,
    dirs: &HashSet<&Path>,
) {
    let gone: HashSet<&Path> = found.removed_dirs.iter().map(PathBuf::as_path).collect();
    // A `.git` that goes takes everything in it: nothing there holds its folders.
    let going: Vec<PathBuf> = plan
        .git
        .iter()
        .filter(|g| g.kept.is_none())
        .map(|g| g.path.0.clone())
        .collect();
    let kept_in: HashSet<&Path> = seen
        .iter()
        .filter(|s| !removable.contains(s.rel.as_path()))
        .filter(|s| !going.iter().any(|g| s.rel.starts_with(g)))
        .flat_map(|s| s.rel.ancestors().skip(1))
        .collect();
    plan.totals.dirs = dirs
        .iter()
        .filter(|rel| !gone.contains(*rel) && !kept_in.contains(*rel))
        .count() as u64;
    plan.source_emptied = !kept_in.contains(Path::new(""));
}

/// The model's time for the removal, from one round trip to the source.
fn predicted_ms(source: &Path, entries: &[ManifestEntry], plan: &RemovalPlan) -> Option<f64> {
    source_call_ms(source, entries).map(|call_ms| {
        crate::model::migration::removal_ms(
            plan.totals.files + plan.totals.symlinks,
            plan.totals.dirs,
            call_ms,
            plan.totals.bytes,
        )
    })
}

/// What stays in the source besides the copies that changed, each with why: a `.git` kept
/// whole, files changed or made since, a `node_modules` left behind, special files.
fn kept_reasons(
    plan: &mut RemovalPlan,
    found: &changes::Changes,
    seen: &[changes::Seen],
    dirs: &HashSet<&Path>,
    in_unit: &dyn Fn(&Path) -> bool,
) {
    let kept = Kept::new;
    for g in &plan.git {
        if let Some(why) = &g.kept {
            let whole = kept(g.path.as_path(), KeptWhy::KeptWhole(why.clone()));
            plan.kept.push(whole);
        }
    }
    for rel in found.changed.iter().filter(|rel| !in_unit(rel)) {
        plan.kept.push(kept(rel, KeptWhy::ChangedSinceCopy));
    }
    for rel in found.added.iter().filter(|rel| !in_unit(rel)) {
        plan.kept.push(kept(rel, KeptWhy::MadeAfterCopy));
    }
    for s in seen.iter().filter(|s| !in_unit(&s.rel)) {
        let left_behind = s.kind == SeenKind::Dir
            && s.rel.file_name() == Some(OsStr::new("node_modules"))
            && !dirs.contains(s.rel.as_path())
            && s.rel
                .parent()
                .is_none_or(|p| dirs.contains(p) || p.as_os_str().is_empty());
        if left_behind {
            plan.kept.push(kept(&s.rel, KeptWhy::NodeModulesLeftBehind));
        } else if s.kind == SeenKind::Other {
            plan.kept.push(kept(&s.rel, KeptWhy::SpecialFile));
        }
    }
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

/// Each repository's `.git` folder the manifest lists and the source still has as a folder
/// (outermost only: `.git/modules/x` goes with its `.git`), with whether git shows its history
/// in the copy (`history::kept_why`).
fn git_folders(
    source: &Path,
    destination: &Path,
    entries: &[ManifestEntry],
    seen: &[changes::Seen],
) -> Vec<GitFolder> {
    let sync = crate::migrate::kernel::engine::staging::command(source, destination, " --sync");
    entries
        .iter()
        .filter_map(|e| match e {
            ManifestEntry::Dir(rel) if is_git_folder(rel) => Some(rel),
            _ => None,
        })
        .filter(|rel| crate::base::dirfd::lstat(&source.join(rel)).is_ok_and(|m| m.is_dir()))
        .map(|rel| {
            let parent = rel.parent().unwrap_or(Path::new(""));
            GitFolder {
                path: RelPath::from(rel.as_path()),
                files: seen
                    .iter()
                    .filter(|s| s.kind == SeenKind::File && s.rel.starts_with(rel))
                    .count() as u64,
                kept: super::history::kept_why(
                    source,
                    &source.join(parent),
                    &destination.join(parent),
                    &sync,
                ),
            }
        })
        .collect()
}

/// `.git`, or `sub/.git`, not inside another `.git`.
pub(super) fn is_git_folder(rel: &Path) -> bool {
    rel.file_name() == Some(OsStr::new(".git"))
        && !rel
            .parent()
            .is_some_and(|p| p.components().any(|c| c.as_os_str() == ".git"))
}

/// Why the copy of `r` at `destination` does not hold what was copied: the reason the removal
/// would give, so the plan keeps what the removal keeps. By one `lstat` there (the copy keeps
/// each file's size and mtime), and by reading it on the local disk only when its stat moved
/// (a checkout at the copy rewrites a file with the same bytes); the removal reads every copy
/// back before deleting anything.
fn copy_differs(destination: &Path, r: &FileRecord, venvs: &[PathBuf]) -> Option<KeptWhy> {
    let copy = destination.join(&r.rel);
    let meta = match crate::base::dirfd::lstat(&copy) {
        Ok(meta) if meta.is_file() => meta,
        _ => return Some(KeptWhy::CopyGone),
    };
    let rewritten =
        super::rewritten_by_fixups(&r.rel) || venvs.iter().any(|v| r.rel.starts_with(v));
    let same = meta.len() == r.size && (meta.mtime(), meta.mtime_nsec()) == r.mtime;
    if rewritten || same {
        return None;
    }
    let read = crate::base::dirfd::open_read(&copy)
        .and_then(crate::migrate::kernel::engine::verify::crc_of_reader);
    match read {
        Ok((size, crc)) if size == r.size && crc == r.crc32 => None,
        _ => Some(KeptWhy::CopyChanged),
    }
}
