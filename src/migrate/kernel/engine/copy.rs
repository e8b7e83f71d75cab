//! Copying into staging: directories, symlinks as symlinks, files in parallel with their CRC32,
//! each file read back and verified before its journal line is written.

use super::journal::{Journal, Recovered};
use super::plan::{CopyPlan, Entry, Kind, Measured, Problem};
use super::progress;
use super::source::{SourceFile, State, read_known};
use super::verify;
use crate::base::dirfd::{self, Meta};
use crate::base::error::{ExitCode, Failure, Result};
use crate::base::interrupt;
use crate::base::pathtext::RelPath;
use crate::model::migration;
use crate::store::manifest::{FileRecord, Stamp};
use rayon::prelude::*;
use std::fs::{File, FileTimes};
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

#[derive(Debug, Default)]
pub struct Outcome {
    pub records: Vec<FileRecord>,
    pub copied_files: u64,
    pub copied_bytes: u64,
    /// Source files that could not be read, or kept changing while they were copied.
    pub problems: Vec<Problem>,
}

pub(super) enum FileResult {
    Done(FileRecord),
    Problem(Problem),
}

const SMALL: u64 = 1 << 20;
const ATTEMPTS: usize = 3;

fn system_time((secs, nanos): (i64, i64)) -> SystemTime {
    let nanos = Duration::from_nanos(nanos.clamp(0, 999_999_999) as u64);
    if secs >= 0 {
        UNIX_EPOCH + Duration::from_secs(secs as u64) + nanos
    } else {
        UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs()) + nanos
    }
}

fn dest_failure(action: &str, path: &Path, e: &std::io::Error) -> Failure {
    let hint = if e.raw_os_error() == Some(rustix::io::Errno::NOSPC.raw_os_error()) {
        "the destination is full; free some space"
    } else {
        "the destination failed"
    };
    Failure::internal(format!(
        "cannot {action} {}: {e} ({hint}); nothing was deleted and the source is untouched",
        path.display()
    ))
}

/// Copies one file from `source`: read with CRC, write, set mode and times; retried while the
/// source changes underneath (its state before the read, the walk's `lstat` at first, against
/// `fstat` after it). Read back and compared before it counts as done.
pub(super) fn copy_file(
    source: SourceFile,
    tree: &Path,
    entry: &Entry,
    overwrite: bool,
) -> Result<FileResult> {
    let dst = tree.join(&entry.rel);
    let problem = |e: String| {
        Ok(FileResult::Problem(Problem {
            path: RelPath::from(entry.rel.as_path()),
            error: e,
        }))
    };
    let mut before = State::walked(entry);
    for _ in 0..ATTEMPTS {
        let mut input = match source.open() {
            Ok(opened) => opened,
            Err(e) => return problem(e.to_string()),
        };
        if overwrite {
            match dirfd::unlink(&dst) {
                Ok(()) => {}
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                Err(e) => return Err(dest_failure("replace", &dst, &e)),
            }
        }
        let mut output =
            dirfd::create(&dst, 0o600).map_err(|e| dest_failure("create", &dst, &e))?;
        let (written, crc32) = match copy_bytes(&mut input, &mut output, before.len, &dst)? {
            Ok(copied) => copied,
            Err(e) => return problem(e.to_string()),
        };
        let after = match dirfd::fstat(&input) {
            Ok(m) if m.is_file() => m,
            Ok(_) => return problem("stopped being a regular file during the migration".into()),
            Err(e) => return problem(e.to_string()),
        };
        if before != State::of(&after) || written != after.len() {
            before = State::of(&after);
            continue;
        }
        settle(output, &dst, &after)?;
        verify::file_matches(&dst, written, crc32)?;
        return Ok(FileResult::Done(FileRecord {
            rel: entry.rel.clone(),
            size: written,
            mtime: (after.mtime(), after.mtime_nsec()),
            stamp: Some(Stamp::of(&after)),
            crc32,
        }));
    }
    problem(format!(
        "kept changing while it was copied ({ATTEMPTS} attempts); close what writes to it and run again"
    ))
}

/// [`copy_file`] of a plan's entry opened by its path (the copy after a shown plan).
fn copy_by_path(
    plan: &CopyPlan,
    tree: &Path,
    entry: &Entry,
    overwrite: bool,
) -> Result<FileResult> {
    copy_file(
        SourceFile::Path(&plan.source.join(&entry.rel)),
        tree,
        entry,
        overwrite,
    )
}

/// Copies the bytes of `input` (`size` when it was opened) to `output` at `dst`: the bytes
/// written and their CRC32, or the source's read error. A small file is read whole, a large one
/// in blocks to its end.
fn copy_bytes(
    input: &mut File,
    output: &mut File,
    size: u64,
    dst: &Path,
) -> Result<std::io::Result<(u64, u32)>> {
    let mut hasher = crc32fast::Hasher::new();
    let mut written = 0u64;
    if size <= SMALL {
        let mut data = Vec::new();
        if let Err(e) = read_known(input, size, &mut data) {
            return Ok(Err(e));
        }
        hasher.update(&data);
        output
            .write_all(&data)
            .map_err(|e| dest_failure("write", dst, &e))?;
        written = data.len() as u64;
    } else {
        let mut buf = vec![0u8; SMALL as usize];
        loop {
            let n = match input.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Ok(Err(e)),
            };
            hasher.update(&buf[..n]);
            output
                .write_all(&buf[..n])
                .map_err(|e| dest_failure("write", dst, &e))?;
            written += n as u64;
        }
    }
    Ok(Ok((written, hasher.finalize())))
}

/// Gives the copy at `dst` the source's mode and times (as `after` saw them), and closes it.
fn settle(output: File, dst: &Path, after: &Meta) -> Result<()> {
    output
        .set_permissions(std::fs::Permissions::from_mode(entry_mode(after)))
        .map_err(|e| dest_failure("set the mode of", dst, &e))?;
    let times = FileTimes::new()
        .set_accessed(system_time((after.atime(), after.atime_nsec())))
        .set_modified(system_time((after.mtime(), after.mtime_nsec())));
    output
        .set_times(times)
        .map_err(|e| dest_failure("set the times of", dst, &e))
}

fn entry_mode(meta: &Meta) -> u32 {
    meta.mode() & 0o7777
}

/// Whether a journal entry still describes both the source file (size, mtime, ctime and inode
/// as the plan's walk saw them) and its staged copy, read back: a staged file rewritten between
/// runs with its size and mtime put back is only found by its bytes, and the manifest will
/// vouch for it.
fn still_valid(tree: &Path, entry: &Entry, record: &FileRecord) -> bool {
    if !record.unchanged(entry.size, entry.mtime, entry.stamp) {
        return false;
    }
    let Ok(staged) = dirfd::lstat(&tree.join(&entry.rel)) else {
        return false;
    };
    if !staged.is_file()
        || staged.len() != record.size
        || (staged.mtime(), staged.mtime_nsec()) != record.mtime
    {
        return false;
    }
    verify::file_matches(&tree.join(&entry.rel), record.size, record.crc32).is_ok()
}

pub struct CopyOptions<'a> {
    pub progress: bool,
    pub threads: usize,
    /// The model's costs, to weigh each file on the progress bar; bytes weigh when None.
    pub measured: Option<&'a Measured>,
    /// The copy's predicted duration, for the bar's ETA.
    pub predicted_ms: Option<f64>,
}

impl CopyOptions<'_> {
    /// A file's share of the work, as the model prices it (bytes plus a block when unmeasured).
    fn weight(&self, size: u64) -> u64 {
        match self.measured {
            Some(m) => migration::file_weight_us(size, &m.source, &m.destination).ceil() as u64,
            None => size + 4096,
        }
    }
}

/// Copies everything in `plan` into `tree`, reusing what `recovered` proves is already there.
pub fn run(
    plan: &CopyPlan,
    tree: &Path,
    journal: &Journal,
    recovered: &Recovered,
    options: &CopyOptions,
) -> Result<Outcome> {
    let mut outcome = Outcome::default();
    let resuming = !recovered.synced.is_empty() || !recovered.unsynced.is_empty() || tree.exists();
    std::fs::create_dir_all(tree).map_err(|e| dest_failure("create", tree, &e))?;
    // The source's calls are waits where it is latency-bound: as many in flight as the probe
    // found it overlaps, for symlinks and files alike.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .map_err(|e| Failure::internal(format!("cannot start copy threads: {e}.")))?;
    create_dirs(plan, tree)?;
    let todo = pool.install(|| reuse_verified(plan, tree, recovered, &mut outcome));
    let bar = progress::bar(
        options.progress,
        todo.iter().map(|e| options.weight(e.size)).sum(),
        options.predicted_ms.unwrap_or(0.0),
    );
    pool.install(|| copy_symlinks(plan, tree, &mut outcome))?;
    let copied = pool.install(|| {
        let files = Files {
            plan,
            tree,
            journal,
            options,
            resuming,
        };
        files.copy(&todo, &bar, &mut outcome)
    });
    bar.finish_and_clear();
    copied?;
    link_other_names(plan, tree, journal, &mut outcome)?;
    set_dir_metadata(plan, tree)?;
    outcome.records.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(outcome)
}

/// Every directory first, so the files can go anywhere in any order.
fn create_dirs(plan: &CopyPlan, tree: &Path) -> Result<()> {
    for entry in plan.entries.iter().filter(|e| e.kind == Kind::Dir) {
        let dst = tree.join(&entry.rel);
        match dirfd::mkdir(&dst, 0o777) {
            Ok(()) => {}
            Err(e)
                if e.kind() == ErrorKind::AlreadyExists
                    && dirfd::lstat(&dst).is_ok_and(|m| m.is_dir()) =>
            {
                // A read-only directory from an earlier run must be writable again.
                let _ = dirfd::chmod(&dst, 0o700);
            }
            Err(e) => return Err(dest_failure("create the directory", &dst, &e)),
        }
    }
    Ok(())
}

/// Symlinks as they are (never followed), with their own times; in parallel, since reading
/// a link is a round trip on a slow source.
fn copy_symlinks(plan: &CopyPlan, tree: &Path, outcome: &mut Outcome) -> Result<()> {
    let links: Vec<&Entry> = plan
        .entries
        .iter()
        .filter(|e| e.kind == Kind::Symlink)
        .collect();
    let problems: Vec<Option<Problem>> = links
        .par_iter()
        .map(|entry| copy_symlink(plan, tree, entry))
        .collect::<Result<_>>()?;
    outcome.problems.extend(problems.into_iter().flatten());
    Ok(())
}

/// One symlink; the source's error as a problem when its target cannot be read.
fn copy_symlink(plan: &CopyPlan, tree: &Path, entry: &Entry) -> Result<Option<Problem>> {
    let src = plan.source.join(&entry.rel);
    let dst = tree.join(&entry.rel);
    let target = match dirfd::read_link(&src) {
        Ok(t) => t,
        Err(e) => {
            return Ok(Some(Problem {
                path: RelPath::from(entry.rel.as_path()),
                error: e.to_string(),
            }));
        }
    };
    if dirfd::lstat(&dst).is_ok() {
        if dirfd::read_link(&dst).ok().as_ref() == Some(&target) {
            let _ = dirfd::set_times(&dst, entry.atime, entry.mtime);
            return Ok(None);
        }
        dirfd::unlink(&dst).map_err(|e| dest_failure("replace", &dst, &e))?;
    }
    dirfd::symlink(&target, &dst).map_err(|e| dest_failure("create the symlink", &dst, &e))?;
    dirfd::set_times(&dst, entry.atime, entry.mtime)
        .map_err(|e| dest_failure("set the times of", &dst, &e))?;
    Ok(None)
}

/// Keeps the files an interrupted run verified and that still match, each read back (in
/// parallel: the staged copy is on the local disk); returns the rest.
fn reuse_verified<'p>(
    plan: &'p CopyPlan,
    tree: &Path,
    recovered: &Recovered,
    outcome: &mut Outcome,
) -> Vec<&'p Entry> {
    // Other names of a file are linked after the copy, never copied or reused on their own.
    let files: Vec<&Entry> = plan
        .entries
        .iter()
        .filter(|e| e.kind == Kind::File && e.hard_link_of.is_none())
        .collect();
    let checked: Vec<(&Entry, Option<&FileRecord>)> = files
        .par_iter()
        .map(|entry| {
            let record = recovered
                .synced
                .get(&entry.rel)
                .or_else(|| recovered.unsynced.get(&entry.rel));
            let ahead = plan.copied_ahead.contains_key(&entry.rel);
            (
                *entry,
                record.filter(|r| !ahead && still_valid(tree, entry, r)),
            )
        })
        .collect();
    let mut todo = Vec::new();
    for (entry, reused) in checked {
        // Read back when it was copied a moment ago in this run, while the walk met it.
        let ahead = plan.copied_ahead.get(&entry.rel);
        if let Some(record) = ahead.filter(|r| r.unchanged(entry.size, entry.mtime, entry.stamp)) {
            outcome.copied_files += 1;
            outcome.copied_bytes += record.size;
            outcome.records.push(record.clone());
            continue;
        }
        match reused {
            Some(r) => outcome.records.push(r.clone()),
            None => todo.push(entry),
        }
    }
    todo
}

/// The files, in parallel on the caller's thread pool, each journaled once verified; stops at
/// the first fatal error or when interrupted.
/// What every file of one copy shares: the plan, the tree it lands in, the journal each
/// verified file is appended to, the run's options, and whether an earlier run left files.
struct Files<'a> {
    plan: &'a CopyPlan,
    tree: &'a Path,
    journal: &'a Journal,
    options: &'a CopyOptions<'a>,
    resuming: bool,
}

impl Files<'_> {
    /// Copies `todo` in parallel, each file verified and journaled, counted on `bar`; what each
    /// came to goes into `outcome`.
    fn copy(
        &self,
        todo: &[&Entry],
        bar: &crate::base::progress::Drawn,
        outcome: &mut Outcome,
    ) -> Result<()> {
        let Files {
            plan,
            tree,
            journal,
            options,
            resuming,
        } = *self;
        let done_files = std::sync::atomic::AtomicU64::new(0);
        let done_bytes = std::sync::atomic::AtomicU64::new(0);
        let total_bytes = crate::base::units::bytes(todo.iter().map(|e| e.size).sum());
        let results = Mutex::new(Vec::with_capacity(todo.len()));
        let copied = todo.par_iter().try_for_each(|entry| {
            if interrupt::requested() {
                return Err(Failure {
                    code: ExitCode::Interrupted,
                    message: "interrupted".to_string(),
                });
            }
            let result = copy_by_path(plan, tree, entry, resuming)?;
            if let FileResult::Done(record) = &result {
                journal.append(record)?;
            }
            bar.inc(options.weight(entry.size));
            let n = done_files.fetch_add(1, Ordering::Relaxed) + 1;
            let bytes = done_bytes.fetch_add(entry.size, Ordering::Relaxed) + entry.size;
            if n.is_multiple_of(16) || n as usize == todo.len() {
                bar.set_message(format!(
                    "{} files, {} of {total_bytes}",
                    crate::base::units::done_of(n, todo.len() as u64),
                    crate::base::units::bytes(bytes)
                ));
            }
            results
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(result);
            Ok(())
        });
        let flushed = journal.flush();
        copied?;
        flushed?;
        for result in results.into_inner().unwrap_or_else(|p| p.into_inner()) {
            match result {
                FileResult::Done(record) => {
                    outcome.copied_files += 1;
                    outcome.copied_bytes += record.size;
                    outcome.records.push(record);
                }
                FileResult::Problem(p) => outcome.problems.push(p),
            }
        }
        Ok(())
    }
}

/// Each further name of a file with hard links in the tree becomes a link to its first name's
/// verified copy (relinked on a resume, whatever an earlier run left there), with that copy's
/// record; when the first name could not be copied, this one is copied on its own.
fn link_other_names(
    plan: &CopyPlan,
    tree: &Path,
    journal: &Journal,
    outcome: &mut Outcome,
) -> Result<()> {
    let others: Vec<(&Entry, &Path)> = plan
        .entries
        .iter()
        .filter_map(|e| Some((e, e.hard_link_of.as_deref()?)))
        .collect();
    if others.is_empty() {
        return Ok(());
    }
    let records: std::collections::HashMap<PathBuf, FileRecord> = outcome
        .records
        .iter()
        .map(|r| (r.rel.clone(), r.clone()))
        .collect();
    for (entry, first) in others {
        let Some(record) = records.get(first) else {
            match copy_by_path(plan, tree, entry, true)? {
                FileResult::Done(record) => {
                    journal.append(&record)?;
                    outcome.copied_files += 1;
                    outcome.copied_bytes += record.size;
                    outcome.records.push(record);
                }
                FileResult::Problem(p) => outcome.problems.push(p),
            }
            continue;
        };
        let (copy, name) = (tree.join(first), tree.join(&entry.rel));
        let same = |a: &Meta, b: &Meta| (a.dev(), a.ino()) == (b.dev(), b.ino());
        let linked = match (dirfd::lstat(&copy), dirfd::lstat(&name)) {
            (Ok(a), Ok(b)) => same(&a, &b),
            _ => false,
        };
        if !linked {
            match dirfd::unlink(&name) {
                Ok(()) => {}
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                Err(e) => return Err(dest_failure("replace", &name, &e)),
            }
            dirfd::hard_link(&copy, &name).map_err(|e| dest_failure("link", &name, &e))?;
            outcome.copied_files += 1;
        }
        outcome.records.push(FileRecord {
            rel: entry.rel.clone(),
            ..record.clone()
        });
    }
    outcome.records.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(())
}

/// Directory modes and times last, deepest first: creating children changes a directory's
/// mtime, and a read-only directory would refuse them. The root gets the source's.
fn set_dir_metadata(plan: &CopyPlan, tree: &Path) -> Result<()> {
    for entry in plan.entries.iter().rev().filter(|e| e.kind == Kind::Dir) {
        let dst = tree.join(&entry.rel);
        dirfd::chmod(&dst, entry.mode).map_err(|e| dest_failure("set the mode of", &dst, &e))?;
        dirfd::set_times(&dst, entry.atime, entry.mtime)
            .map_err(|e| dest_failure("set the times of", &dst, &e))?;
    }
    if let Ok(root_meta) = dirfd::lstat(&plan.source) {
        let _ = dirfd::chmod(tree, entry_mode(&root_meta));
        let _ = dirfd::set_times(
            tree,
            (root_meta.atime(), root_meta.atime_nsec()),
            (root_meta.mtime(), root_meta.mtime_nsec()),
        );
    }
    Ok(())
}
