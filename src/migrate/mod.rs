//! `wsl-place migrate`: plan, copy into staging, verify, finalise, fix up.
//!
//! Nothing is ever written to the source, and nothing in it is deleted unless `--remove-source`
//! is given, after the manifest proves each entry was copied. The copy goes to a staging
//! directory beside the destination (`plan::staging_dir`) and is renamed into place only after
//! every file was read back and compared; an interrupted run is resumed by running it again.

mod copy;
mod finalise;
mod fixups;
mod journal;
mod plan;
mod verify;

pub use finalise::Removal;
pub use fixups::FixupReport;
pub use plan::{Plan, Problem};

use crate::error::{ExitCode, Failure, Result};
use crate::host::HostEnv;
use crate::location;
use crate::units;
use serde::Serialize;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// What a finished migration did; its JSON form is the documented schema.
#[derive(Debug, Clone, Serialize)]
pub struct MigrationReport {
    pub source: PathBuf,
    pub destination: PathBuf,
    pub manifest: PathBuf,
    pub windows_path: Option<String>,
    pub windows_legacy_path: Option<String>,
    pub files: u64,
    pub dirs: u64,
    pub symlinks: u64,
    pub bytes: u64,
    /// Files copied by this run (the rest were verified by an interrupted earlier run).
    pub copied_files: u64,
    /// Source files left out with --skip-unreadable, and special files.
    pub not_copied: Vec<Problem>,
    pub fixups: FixupReport,
    pub removal: Option<Removal>,
}

/// What `migrate` should do, decided once from the command line.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The repository to move.
    pub path: PathBuf,
    /// Destination directory (None: the policy's root, `~/src`, plus the repository's name).
    pub to: Option<PathBuf>,
    /// Accept the plan without asking.
    pub yes: bool,
    /// Show the plan and stop.
    pub dry_run: bool,
    /// Abandon an interrupted migration: remove its staging directory.
    pub abort: bool,
    /// After a verified copy, delete what the manifest proves was copied (asks again).
    pub remove_source: bool,
    /// Finalise even if some source files could not be read.
    pub skip_unreadable: bool,
    /// Leave node_modules behind instead of copying it.
    pub skip_node_modules: bool,
}

/// How a migration talks to the person running it: the command layer decides the format,
/// the colours and whether anyone can answer a question.
pub trait Ui {
    /// Someone is at a terminal to answer questions.
    fn interactive(&self) -> bool;
    /// Asks a yes/no question.
    fn confirm(&self, prompt: &str, default: bool) -> Result<bool>;
    /// A sentence for the person (not part of any machine-readable output).
    fn note(&self, text: &str);
    /// Shows the plan before anything is copied; `dry_run` when it is all that will happen.
    fn plan(&self, plan: &Plan, dry_run: bool) -> Result<()>;
    /// Shows what a finished migration did.
    fn result(&self, report: &MigrationReport) -> Result<()>;
    /// Draw a progress bar while copying.
    fn progress(&self) -> bool;
}

/// Moves the repository `args.path` to `args.to`, or under `default_root` (from the policy).
pub fn run(
    env: &HostEnv,
    args: &Options,
    ui: &dyn Ui,
    default_root: Option<&Path>,
) -> Result<ExitCode> {
    let source = location::canonical_dir(&args.path)?;
    let destination = plan::destination(&source, args.to.as_deref(), default_root)?;
    let staging = plan::staging_dir(&destination);
    if args.abort {
        return abort(ui, &source, &staging);
    }
    check_owner(&source, &staging)?;
    if finalise::is_sealed(&staging) {
        if args.dry_run {
            ui.note(&format!(
                "A verified copy of {} is waiting in {}; run without --dry-run to finish moving it into place.\n",
                source.display(),
                staging.display()
            ));
            return Ok(ExitCode::Ok);
        }
        return finish(
            env,
            ui,
            args,
            &source,
            &destination,
            &staging,
            0,
            Vec::new(),
        );
    }
    if std::fs::symlink_metadata(&destination).is_ok() {
        return Err(Failure::input(format!(
            "the destination {} already exists; choose a new folder with --to, or move it away first.",
            destination.display()
        )));
    }

    let mut plan = plan::build(&source, &destination, &staging, args.skip_node_modules);
    if !args.skip_node_modules
        && !args.yes
        && !args.dry_run
        && ui.interactive()
        && !plan.node_modules.is_empty()
    {
        let (files, bytes) = plan
            .node_modules
            .iter()
            .fold((0, 0), |a, n| (a.0 + n.files, a.1 + n.bytes));
        if ui.confirm(
            &format!(
                "Leave node_modules behind ({files} files, {}) and reinstall it at the destination?",
                units::bytes(bytes)
            ),
            true,
        )? {
            plan = plan::build(&source, &destination, &staging, true);
        }
    }
    let recovered = journal::read_journal(&staging.join("journal"))?;
    account_resume(&mut plan, &recovered);

    ui.plan(&plan, args.dry_run)?;
    if args.dry_run {
        return Ok(ExitCode::Ok);
    }
    if let Some(free) = plan.free_bytes
        && free < plan.needed_bytes
    {
        return Err(Failure::input(format!(
            "not enough space at {}: the copy needs {} and only {} are free; free some space or choose another --to. Nothing was copied.",
            destination.display(),
            units::bytes(plan.needed_bytes),
            units::bytes(free)
        )));
    }
    if !args.yes {
        if !ui.interactive() {
            return Err(Failure::input(
                "migrate asks before copying, and this is not a terminal; pass --yes to accept the plan.",
            ));
        }
        if !ui.confirm("Copy, verify and move it there?", false)? {
            ui.note("Nothing was copied.\n");
            return Ok(ExitCode::Ok);
        }
    }

    prepare_staging(&source, &staging)?;
    let tree = staging.join("tree");
    let journal = journal::Journal::open(&staging.join("journal"), &staging)?;
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let flag = Arc::clone(&interrupted);
        // Already set (a second run in one process): the first handler serves as well.
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    }
    let threads = copy_threads(env, &source);
    let options = copy::Options {
        progress: ui.progress(),
        interrupted: &interrupted,
        threads,
    };
    let kept = |message: &str| {
        Failure::internal(format!(
            "{message}; the copy so far is kept in {}: run the same command again to resume, or with --abort to remove it.",
            staging.display()
        ))
    };
    let outcome = copy::run(&plan, &tree, &journal, &recovered, &options).map_err(|f| {
        if interrupted.load(Ordering::SeqCst) {
            kept("interrupted")
        } else {
            kept(f.message.trim_end_matches('.'))
        }
    })?;

    let mut problems = plan.unreadable.clone();
    problems.extend(outcome.problems.iter().cloned());
    if !problems.is_empty() && !args.skip_unreadable {
        let mut text = format!("{} source entries could not be copied:\n", problems.len());
        for p in &problems {
            text.push_str(&format!("  {}: {}\n", p.path, p.error));
        }
        eprint!("{text}");
        return Err(kept(&format!(
            "{} source entries could not be read (listed above), so the migration was not finalised; fix them, or pass --skip-unreadable to move the rest without them",
            problems.len()
        )));
    }
    let problem_paths: HashSet<PathBuf> = problems
        .iter()
        .filter_map(|p| journal::unescape_path(&p.path))
        .collect();
    verify::tree(&plan, &tree, &outcome.records, &problem_paths)
        .map_err(|f| kept(f.message.trim_end_matches('.')))?;
    journal.sync()?;
    finalise::seal(&plan, &tree, &outcome.records, &problem_paths)?;
    let mut not_copied = problems;
    not_copied.extend(plan.skipped.iter().map(|s| Problem {
        path: s.path.clone(),
        error: s.reason.clone(),
    }));
    finish(
        env,
        ui,
        args,
        &source,
        &destination,
        &staging,
        outcome.copied_files,
        not_copied,
    )
}

/// Local disks lose to directory-lock contention beyond a few threads per core; a drive reached
/// over 9p or a network is latency-bound, and more requests in flight hide the round trips.
fn copy_threads(env: &HostEnv, source: &Path) -> usize {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let remote = location::MountTable::read(env)
        .ok()
        .and_then(|t| t.mount_for(source).map(|m| m.kind()))
        .is_some_and(|k| {
            k.is_windows_drive()
                || matches!(
                    k,
                    crate::mounts::MountKind::Network | crate::mounts::MountKind::Fuse
                )
        });
    if remote {
        (cores * 8).clamp(8, 32)
    } else {
        (cores * 2).clamp(2, 8)
    }
}

/// Marks files that an interrupted run already verified, and what space the rest still needs.
fn account_resume(plan: &mut Plan, recovered: &journal::Recovered) {
    let mut needed = 0u64;
    for entry in &plan.entries {
        let done = recovered
            .synced
            .get(&entry.rel)
            .or_else(|| recovered.unsynced.get(&entry.rel))
            .is_some_and(|r| r.size == entry.size && r.mtime == entry.mtime);
        match entry.kind {
            plan::Kind::File if done => {
                plan.resumed_files += 1;
                plan.resumed_bytes += entry.size;
            }
            plan::Kind::File => needed += plan::blocks(entry.size),
            _ => needed += 4096,
        }
    }
    plan.needed_bytes = needed;
}

const SOURCE_FILE: &str = "source";

/// Refuses a staging directory that belongs to a different source, or was not made by us.
fn check_owner(source: &Path, staging: &Path) -> Result<()> {
    let Ok(listing) = std::fs::read_dir(staging) else {
        return Ok(());
    };
    match check_owner_recorded(&staging.join(SOURCE_FILE)) {
        Some(owner) if owner == source => Ok(()),
        Some(owner) => Err(Failure::input(format!(
            "{} holds an interrupted migration of {}, not of {}; finish it or run `wsl-place migrate {} --to <same destination> --abort`, or choose another --to.",
            staging.display(),
            owner.display(),
            source.display(),
            owner.display()
        ))),
        // Killed between creating it and recording the source: nothing else in it yet.
        None if listing
            .flatten()
            .all(|e| e.file_name() == SOURCE_FILE || e.file_name() == "source.tmp") =>
        {
            Ok(())
        }
        None => Err(Failure::input(format!(
            "{} exists but was not made by wsl-place; move it away and run again.",
            staging.display()
        ))),
    }
}

fn check_owner_recorded(owner: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(owner).ok()?;
    journal::unescape_path(text.strip_suffix('\n')?)
}

fn prepare_staging(source: &Path, staging: &Path) -> Result<()> {
    if let Some(parent) = staging.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Failure::io("create", parent, &e))?;
    }
    match std::fs::create_dir(staging) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(Failure::io("create the staging directory", staging, &e)),
    }
    let owner = staging.join(SOURCE_FILE);
    if check_owner_recorded(&owner).is_none() {
        let tmp = staging.join("source.tmp");
        std::fs::write(&tmp, format!("{}\n", journal::escape_path(source)))
            .and_then(|_| std::fs::rename(&tmp, &owner))
            .map_err(|e| Failure::io("write", &owner, &e))?;
    }
    Ok(())
}

fn abort(ui: &dyn Ui, source: &Path, staging: &Path) -> Result<ExitCode> {
    if std::fs::symlink_metadata(staging).is_err() {
        ui.note(&format!(
            "No interrupted migration of {} to abort (no {}).\n",
            source.display(),
            staging.display()
        ));
        return Ok(ExitCode::Ok);
    }
    check_owner(source, staging)?;
    make_writable(staging);
    finalise::remove_staging(staging)?;
    ui.note(&format!(
        "Removed the staging directory {}; the source {} was not touched.\n",
        staging.display(),
        source.display()
    ));
    Ok(ExitCode::Ok)
}

/// Read-only directories copied from the source would stop an unprivileged removal.
fn make_writable(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for item in walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .flatten()
    {
        if item.file_type().is_dir()
            && let Ok(meta) = item.metadata()
        {
            let mode = meta.permissions().mode();
            if mode & 0o700 != 0o700 {
                let _ = std::fs::set_permissions(
                    item.path(),
                    std::fs::Permissions::from_mode(mode | 0o700),
                );
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn finish(
    env: &HostEnv,
    ui: &dyn Ui,
    args: &Options,
    source: &Path,
    destination: &Path,
    staging: &Path,
    copied_files: u64,
    not_copied: Vec<Problem>,
) -> Result<ExitCode> {
    let manifest = finalise::commit(staging, destination)?;
    let mut fixups = FixupReport::default();
    let repos = fixups::repair_links(source, destination, &mut fixups);
    if destination.join(".git").is_dir() {
        for issue in fixups::config_issues(destination) {
            let accept = match (&issue.reset_to, args.yes) {
                (None, _) => false,
                (Some(_), true) => issue.drvfs_caused,
                (Some(value), false) => ui.confirm(
                    &format!(
                        "{} is {} ({}). Set it to {value}?",
                        issue.key, issue.value, issue.why
                    ),
                    true,
                )?,
            };
            if accept {
                fixups::apply(&issue, &mut fixups);
            } else {
                fixups::decline(&issue, &mut fixups);
            }
        }
    }
    for repo in &repos {
        fixups::refresh_index(repo, &mut fixups)?;
    }
    finalise::remove_staging(staging)?;

    let text = std::fs::read_to_string(&manifest)
        .map_err(|e| Failure::io("read the manifest", &manifest, &e))?;
    let (_, entries) = journal::parse_manifest(&text).ok_or_else(|| {
        Failure::internal(format!(
            "{} is not a complete manifest.",
            manifest.display()
        ))
    })?;
    let mut report = MigrationReport {
        source: source.to_path_buf(),
        destination: destination.to_path_buf(),
        manifest: manifest.clone(),
        windows_path: None,
        windows_legacy_path: None,
        files: 0,
        dirs: 0,
        symlinks: 0,
        bytes: 0,
        copied_files,
        not_copied,
        fixups,
        removal: None,
    };
    for entry in &entries {
        match entry {
            journal::ManifestEntry::File(r) => {
                report.files += 1;
                report.bytes += r.size;
            }
            journal::ManifestEntry::Dir(_) => report.dirs += 1,
            journal::ManifestEntry::Symlink { .. } => report.symlinks += 1,
        }
    }
    if let Ok(located) = location::locate(env, destination) {
        report.windows_path = located.paths.windows;
        report.windows_legacy_path = located.paths.windows_legacy;
    }
    if args.remove_source {
        let go = args.yes
            || (ui.interactive()
                && ui.confirm(
                    &format!(
                        "Delete from {} the {} files the manifest proves were copied?",
                        source.display(),
                        report.files
                    ),
                    false,
                )?);
        if go {
            report.removal = Some(finalise::remove_source(source, &manifest)?);
        } else {
            report
                .fixups
                .advice
                .push("--remove-source was not confirmed; the source is left in place".into());
        }
    }
    ui.result(&report)?;
    Ok(ExitCode::Ok)
}
