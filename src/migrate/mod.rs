//! `wsl-place migrate`, as its steps: plan, confirm, copy, verify, seal, commit, fix up,
//! finalise, report. `run` is that list; each step is a function here or a file beside it.
//!
//! Nothing is ever written to the source, and nothing in it is deleted unless `--remove-source`
//! is given, after the manifest proves each entry was copied. The copy goes to a staging folder
//! beside the destination (`staging.rs`) and is renamed into place only after every file was
//! read back and compared; an interrupted run is resumed by running it again.

mod abort;
mod copy;
mod destination;
mod estimate;
mod finalise;
mod finish;
mod fixups;
mod identity;
mod journal;
mod names;
mod next_steps;
mod options;
mod outcome;
mod plan;
mod post_walk;
mod progress;
mod questions;
mod removal;
mod removal_plan;
mod rerun;
mod source;
mod source_holds;
mod staging;
mod sync;
mod sync_guard;
mod sync_ops;
mod sync_plan;
mod undo;
mod verify;
mod windows_builds;
mod worktrees;

use finish::Copied;
pub use options::{Options, Ui};
pub use outcome::MigrationReport;
pub use plan::{Plan, Problem};
use questions::Answers;
pub use questions::Question;
use staging::Staging;
pub use sync_plan::SyncReport;

use crate::base::error::{ExitCode, Failure, Result};
use crate::base::interrupt;
use crate::base::progress::Drawn;
use crate::base::units;
use crate::host::HostEnv;
use crate::host::location;
use crate::measure::moved;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Moves the repository `args.path` to `args.to`, or under `default_root` (from the policy).
pub fn run(
    env: &HostEnv,
    args: &Options,
    ui: &dyn Ui,
    default_root: Option<&Path>,
) -> Result<ExitCode> {
    let source = location::canonical_dir(&args.path)?;
    refuse_kernel_interface(env, &source)?;
    let destination = chosen_destination(env, args, &source, default_root)?;
    let staging = Staging::new(&source, &destination);
    let elsewhere = interrupted_elsewhere(&staging, &destination, default_root);
    // Held to the end of the run; a dry run only reads, and must not hold off a real one.
    let held = match args.dry_run {
        true => None,
        false => staging.lock_existing()?,
    };
    if args.abort {
        return abort::abort(env, ui, &source, &destination, &staging, &elsewhere);
    }
    worktrees::refuse_linked(&source)?;
    staging.check_owner()?;
    let finished = |manifest: &Path| {
        rerun::already_migrated(env, ui, args, &staging, &destination, manifest, &elsewhere)
    };
    if !staging.is_sealed()
        && let Some(manifest) = finalise::finished_manifest(env, &source, &destination)
    {
        return finished(&manifest);
    }
    rerun::nothing_to_sync(env, args, &source, &destination)?;
    let (from, to, kept) = (
        source.clone(),
        destination.clone(),
        staging.path().to_path_buf(),
    );
    interrupt::set_hint(move || questions::after_interrupt(&from, &to, &kept));
    if !args.yes && !args.dry_run && !ui.interactive() {
        // Said before any work: a walk of a slow mount can take long.
        return Err(Failure::input(
            "migrate asks before copying, and this is not a terminal; pass --yes to accept the plan (or --dry-run to see it).",
        ));
    }
    if staging.is_sealed() && still_sealed(ui, args, &staging)? {
        return resume_sealed(env, ui, args, &destination, &staging, &elsewhere);
    }
    let (mut plan, recovered) = plan(env, args, &source, &destination, &staging, ui)?;
    plan.interrupted_elsewhere = elsewhere.clone();
    // Staging an earlier run left is still there: the way on from it is what to say.
    interrupt::check(&questions::after_interrupt(
        &source,
        &destination,
        staging.path(),
    ))?;
    ui.plan(&plan, args.dry_run)?;
    if args.dry_run {
        return Ok(ExitCode::Ok);
    }
    let answers = questions::ask(ui, args, &mut plan, staging.path())?;
    account_resume(&mut plan, &recovered);
    for worktree in plan.worktrees.iter_mut().filter(|w| w.moved) {
        let staging = worktree.staging();
        if let (Some(planned), Some(staging)) = (worktree.plan.as_mut(), staging) {
            account_resume(planned, &journal::read_journal(&staging.journal())?);
        }
    }
    estimate::predict(&mut plan);
    if !confirm(ui, &plan, &answers)? {
        return Ok(ExitCode::Ok);
    }
    let started = Instant::now();
    let mut _locks = vec![staging.create(held)?];
    if let Some(manifest) = rerun::finished_while_planning(env, &staging, &destination)? {
        return finished(&manifest);
    }
    // Made now, before any copy: a worktree's staging folder is the record that it moves along.
    for staging in plan
        .worktrees
        .iter()
        .filter(|w| w.moved)
        .filter_map(|w| w.staging())
    {
        staging.check_owner()?;
        _locks.push(staging.create(None)?);
    }
    let (copied_files, not_copied) = stage(env, ui, args, &plan, &staging, &recovered)?;
    let mut done = Copied {
        files: copied_files,
        started,
        not_copied: not_copied
            .into_iter()
            .chain(plan.skipped.iter().map(Problem::from))
            .collect(),
        node_modules: plan.node_modules.clone(),
        worktrees: Vec::new(),
        elsewhere,
    };
    stage_worktrees(env, ui, args, plan.worktrees, &mut done)?;
    finish::finish(env, ui, &answers, &destination, &staging, done)
}

/// `--to`, else where an earlier run moved this source (run again at the old place), else the
/// policy's root plus the repository's name.
fn chosen_destination(
    env: &HostEnv,
    args: &Options,
    source: &Path,
    default_root: Option<&Path>,
) -> Result<PathBuf> {
    let recorded = moved::lookup(env, source).map(|m| m.destination);
    destination::destination(
        source,
        args.to.as_deref().or(recorded.as_deref()),
        default_root,
    )
}

/// Copies, verifies and seals each worktree that moves along, as the repository was; a copy an
/// interrupted run sealed is kept as it is.
fn stage_worktrees(
    env: &HostEnv,
    ui: &dyn Ui,
    args: &Options,
    worktrees: Vec<worktrees::LinkedWorktree>,
    done: &mut Copied,
) -> Result<()> {
    for worktree in worktrees {
        let (Some(staging), Some(planned)) = (worktree.staging(), worktree.plan.as_deref()) else {
            done.worktrees.push(worktree);
            continue;
        };
        if worktree.moved && !(staging.is_sealed() && still_sealed(ui, args, &staging)?) {
            let recovered = journal::read_journal(&staging.journal())?;
            let mut planned = planned.clone();
            account_resume(&mut planned, &recovered);
            done.files += stage(env, ui, args, &planned, &staging, &recovered)?.0;
        }
        done.worktrees.push(worktree);
    }
    Ok(())
}

/// Steps 3 to 5 for one tree, the repository or a worktree moving along: copy, verify, seal.
/// The files this run copied, and the entries left out (with --skip-unreadable).
fn stage(
    env: &HostEnv,
    ui: &dyn Ui,
    args: &Options,
    plan: &Plan,
    staging: &Staging,
    recovered: &journal::Recovered,
) -> Result<(u64, Vec<Problem>)> {
    let copied = copy(env, ui, plan, staging, recovered)?;
    let not_copied = verify(ui, args, plan, staging, &copied)?;
    seal(ui, plan, staging, &copied, &not_copied)?;
    Ok((copied.copied_files, not_copied))
}

/// Whether a sealed copy still holds what its manifest says; if not, it is unsealed (a dry run
/// only says so) and copied again where it changed.
fn still_sealed(ui: &dyn Ui, args: &Options, staging: &Staging) -> Result<bool> {
    let Some(changed) = finalise::changed_since_sealing(staging) else {
        return Ok(true);
    };
    ui.note(&format!(
        "The verified copy in {} changed since it was verified ({changed} no longer matches its CRC32); {}\n",
        staging.path().display(),
        if args.dry_run {
            "a run without --dry-run copies what changed again."
        } else {
            "copying what changed again."
        }
    ))?;
    if !args.dry_run {
        finalise::unseal(staging)?;
    }
    Ok(false)
}

/// Staging folders of this source left by runs with another `--to`, beside this destination or
/// in the default root.
fn interrupted_elsewhere(
    staging: &Staging,
    destination: &Path,
    default_root: Option<&Path>,
) -> Vec<staging::Elsewhere> {
    let dirs: Vec<&Path> = destination
        .parent()
        .into_iter()
        .chain(default_root)
        .collect();
    staging::interrupted_elsewhere(staging.source(), staging.path(), &dirs)
}

/// A copy an earlier run verified and sealed: only finalising is left.
fn resume_sealed(
    env: &HostEnv,
    ui: &dyn Ui,
    args: &Options,
    destination: &Path,
    staging: &Staging,
    elsewhere: &[staging::Elsewhere],
) -> Result<ExitCode> {
    let source = staging.source();
    if args.dry_run {
        ui.note(&format!(
            "A verified copy of {} is waiting in {}; run without --dry-run to finish moving it into place.\n",
            source.display(),
            staging.path().display()
        ))?;
        return Ok(ExitCode::Ok);
    }
    ui.note(&format!(
        "A verified copy of {} is waiting in {}; finishing it.\n",
        source.display(),
        staging.path().display()
    ))?;
    let answers = questions::ask_to_finish(ui, args, source, destination, staging.path())?;
    let mut done = Copied::nothing_yet(elsewhere);
    done.node_modules = finalise::sealed_node_modules(staging);
    // The worktrees the interrupted run moved along are those with a staging folder.
    let mut moving = worktrees::find(source, destination);
    for worktree in &mut moving {
        worktree.moved = worktree.staging().is_some_and(|s| s.path().exists());
        if !worktree.moved {
            worktree.destination = None;
        }
    }
    worktrees::plan_each(&mut moving, ui.progress());
    stage_worktrees(env, ui, args, moving, &mut done)?;
    finish::finish(env, ui, &answers, destination, staging, done)
}

/// Step 1, plan: walk the source once, gather every question it raises, and account for what an
/// interrupted run already copied. Asks nothing: the questions come with the plan.
fn plan(
    env: &HostEnv,
    args: &Options,
    source: &Path,
    destination: &Path,
    staging: &Staging,
    ui: &dyn Ui,
) -> Result<(Plan, journal::Recovered)> {
    if std::fs::symlink_metadata(destination).is_ok() {
        let free = destination::free_name(destination).map_or(String::new(), |free| {
            format!(
                " (--to {} is free)",
                crate::base::pathtext::shell_quote(&free)
            )
        });
        return Err(Failure::input(format!(
            "the destination {} already exists; choose a new folder with --to{free}, or move it away first.",
            destination.display()
        )));
    }
    let mut plan = plan::build(source, destination, staging.path(), ui.progress());
    measure(env, ui, &mut plan);
    if !plan.node_modules.is_empty() && args.skip_node_modules {
        plan.leave_node_modules();
    }
    plan.git_settings = questions::git_settings(source);
    plan.worktrees = worktrees::find(source, destination);
    worktrees::plan_each(&mut plan.worktrees, ui.progress());
    if args.skip_node_modules {
        for worktree in plan.worktrees.iter_mut().filter_map(|w| w.plan.as_mut()) {
            worktree.leave_node_modules();
            estimate::predict(worktree);
        }
    }
    plan.questions = questions::for_plan(&plan, args);
    let recovered = journal::read_journal(&staging.journal())?;
    account_resume(&mut plan, &recovered);
    estimate::predict(&mut plan);
    Ok((plan, recovered))
}

/// The source's and the destination's costs for the estimate and the thread count; without
/// them the plan says why and the copy takes its threads from the kind of mount.
fn measure(env: &HostEnv, ui: &dyn Ui, plan: &mut Plan) {
    let spinner = Drawn::spinner(ui.progress(), "timing the source and the destination");
    match estimate::measure(env, plan) {
        Ok(measured) => {
            plan.measured = Some(measured);
            estimate::predict(plan);
        }
        Err(why) => plan.prediction_basis = format!("no estimate: {why}"),
    }
    spinner.finish_and_clear();
}

/// Step 2, confirm: the space is there and the person (or --yes) agreed to copy.
fn confirm(ui: &dyn Ui, plan: &Plan, answers: &Answers) -> Result<bool> {
    let moving = || {
        plan.worktrees
            .iter()
            .filter(|w| w.moved)
            .filter_map(|w| w.plan.as_deref())
    };
    let needed_bytes = plan.needed_bytes + moving().map(|p| p.needed_bytes).sum::<u64>();
    if let Some(free) = plan.free_bytes
        && free < needed_bytes
    {
        return Err(Failure::input(format!(
            "not enough space at {}: the copy needs {} and only {} are free; free some space or choose another --to. Nothing was copied.",
            plan.destination.display(),
            units::bytes(needed_bytes),
            units::bytes(free)
        )));
    }
    let jobs = 1 + moving().count() as u64;
    // A further name of a hard-linked file takes no inode of its own.
    let inodes = |p: &Plan| {
        p.entries
            .iter()
            .filter(|e| e.hard_link_of.is_none())
            .count() as u64
            + 1
    };
    let copied = inodes(plan) + moving().map(inodes).sum::<u64>();
    let own = jobs * (staging::OWN_FILES + fixups::GIT_LOCK_FILES);
    if let Some(free) = plan.free_inodes
        && free < copied + own
    {
        return Err(Failure::input(format!(
            "not enough free inodes at {}: the migration needs {} ({copied} files, directories and links copied, {own} for its staging folder, manifest and git's lock files) and only {free} are free; free some or choose another --to. Nothing was copied.",
            plan.destination.display(),
            copied + own
        )));
    }
    if !answers.go {
        ui.note("Nothing was copied.\n")?;
    }
    Ok(answers.go)
}

/// Step 3, copy: into the staging tree, journaled, until done or interrupted.
fn copy(
    env: &HostEnv,
    ui: &dyn Ui,
    plan: &Plan,
    staging: &Staging,
    recovered: &journal::Recovered,
) -> Result<copy::Outcome> {
    let journal = journal::Journal::open(&staging.journal(), staging.path())?;
    let options = copy::Options {
        progress: ui.progress(),
        measured: plan.measured.as_ref(),
        predicted_ms: plan.prediction.as_ref().map(|p| p.copy_ms),
        threads: plan
            .copy_threads
            .unwrap_or_else(|| copy_threads(env, &plan.source)),
    };
    let outcome = copy::run(plan, &staging.tree(), &journal, recovered, &options)
        .map_err(|f| staging.kept(&f))?;
    journal.sync()?;
    Ok(outcome)
}

/// Step 4, verify: every source entry was copied (or --skip-unreadable allows it not to be),
/// and the staged tree matches the plan. Returns the entries left out.
fn verify(
    ui: &dyn Ui,
    args: &Options,
    plan: &Plan,
    staging: &Staging,
    copied: &copy::Outcome,
) -> Result<Vec<Problem>> {
    let mut problems = plan.unreadable.clone();
    problems.extend(copied.problems.iter().cloned());
    if !problems.is_empty() && !args.skip_unreadable {
        let mut text = format!("{} source entries could not be copied:\n", problems.len());
        for p in &problems {
            text.push_str(&format!("  {}: {}\n", p.path, p.error));
        }
        // The failure below says the same in one sentence if this list cannot be shown.
        let _ = std::io::Write::write_all(&mut std::io::stderr(), text.as_bytes());
        return Err(staging.kept(&Failure::internal(format!(
            "{} source entries could not be read (listed above), so the migration was not finalised; fix them, or pass --skip-unreadable to move the rest without them",
            problems.len()
        ))));
    }
    let spinner = Drawn::spinner(ui.progress(), "checking the copy against the plan");
    let checked = verify::tree(
        plan,
        &staging.tree(),
        &copied.records,
        &problem_paths(&problems),
    );
    spinner.finish_and_clear();
    checked.map_err(|f| staging.kept(&f))?;
    Ok(problems)
}

fn problem_paths(problems: &[Problem]) -> HashSet<PathBuf> {
    problems
        .iter()
        .filter_map(|p| journal::unescape_path(&p.path))
        .collect()
}

/// Step 5, seal: the manifest written and the copy marked verified, durably.
fn seal(
    ui: &dyn Ui,
    plan: &Plan,
    staging: &Staging,
    copied: &copy::Outcome,
    problems: &[Problem],
) -> Result<()> {
    let spinner = Drawn::spinner(ui.progress(), "flushing the copy to disk");
    let sealed = finalise::seal(plan, staging, &copied.records, &problem_paths(problems));
    spinner.finish_and_clear();
    sealed
}

/// Local disks lose to directory-lock contention beyond a few threads per core; a drive reached
/// over 9p or a network is latency-bound, and more requests in flight hide the round trips.
/// `/proc`, `/sys` and their kin hold no repository, and their files change size while read.
fn refuse_kernel_interface(env: &HostEnv, source: &Path) -> Result<()> {
    let table = location::MountTable::read(env)?;
    match table.mount_for(source) {
        Some(mount) if crate::host::mounts::is_kernel_interface(&mount.fstype) => {
            Err(Failure::input(format!(
                "{} is on {}, a kernel file system whose files are made up when read, not a repository; nothing was copied.",
                source.display(),
                mount.fstype
            )))
        }
        _ => Ok(()),
    }
}

fn copy_threads(env: &HostEnv, source: &Path) -> usize {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let remote = location::MountTable::read(env)
        .ok()
        .and_then(|t| t.mount_for(source).map(|m| m.kind()))
        .is_some_and(|k| k.is_remote());
    if remote {
        (cores * 8).clamp(8, 32)
    } else {
        (cores * 2).clamp(2, 8)
    }
}

/// Marks files that an interrupted run already verified, and what space the rest still needs.
fn account_resume(plan: &mut Plan, recovered: &journal::Recovered) {
    let mut needed = 0u64;
    // Counted afresh: answers given after the first count can leave node_modules out.
    plan.resumed_files = 0;
    plan.resumed_bytes = 0;
    for entry in &plan.entries {
        let done = recovered
            .synced
            .get(&entry.rel)
            .or_else(|| recovered.unsynced.get(&entry.rel))
            .is_some_and(|r| r.unchanged(entry.size, entry.mtime, entry.stamp));
        match entry.kind {
            // Another name of a file already counted: a link, no data and no inode.
            plan::Kind::File if entry.hard_link_of.is_some() => {}
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
