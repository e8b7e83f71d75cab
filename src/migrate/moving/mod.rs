//! The move, the first migration, as its steps: plan, confirm, copy, verify, seal, commit, fix
//! up, finalise, report. `run` is that list; each step is a function here or a file beside it.
//!
//! Nothing is ever written to the source, and nothing in it is deleted unless `--remove-source`
//! is given, after the manifest proves each entry was copied. The copy goes to a staging folder
//! beside the destination (`kernel/staging.rs`) and is renamed into place only after every file was
//! read back and compared; an interrupted run is resumed by running it again.

mod finish;
mod questions;
mod rerun;

use crate::base::error::{Failure, Result};
use crate::base::interrupt;
use crate::base::progress::Drawn;
use crate::base::units;
use crate::host::HostEnv;
use crate::migrate::kernel::ask::after_interrupt;
use crate::migrate::kernel::outcome::{Copied, MigrationReport};
use crate::migrate::kernel::plan::{self, Plan, Problem};
use crate::migrate::kernel::staging::{self, Lock, Staging};
use crate::migrate::kernel::{copy, destination, estimate, finalise, fixups, journal, verify};
use crate::migrate::kernel::{options::Options, options::Ui, worktrees};
use questions::Answers;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What the move ended in.
pub(super) enum Moved {
    /// Nothing more to do: a dry run, or the plan was not accepted.
    Stopped,
    /// Another run finished the same move while this one planned: its manifest.
    FinishedElsewhere(PathBuf),
    /// Moved: the report, and the answer to `--remove-source` given with the plan.
    Done(Box<MigrationReport>, Option<bool>),
}

/// Moves `staging.source()` to `destination` through `staging`, or finishes a copy an
/// interrupted run sealed there.
pub(super) fn run(
    env: &HostEnv,
    args: &Options,
    ui: &dyn Ui,
    destination: &Path,
    staging: &Staging,
    held: Option<Lock>,
    elsewhere: &[staging::Elsewhere],
) -> Result<Moved> {
    let (source, destination) = (staging.source().to_path_buf(), destination.to_path_buf());
    let (from, to, kept) = (
        source.clone(),
        destination.clone(),
        staging.path().to_path_buf(),
    );
    interrupt::set_hint(move || after_interrupt(&from, &to, &kept));
    if !args.yes && !args.dry_run && !ui.interactive() {
        // Said before any work: a walk of a slow mount can take long.
        return Err(Failure::input(
            "migrate asks before copying, and this is not a terminal; pass --yes to accept the plan (or --dry-run to see it).",
        ));
    }
    if staging.is_sealed() && still_sealed(ui, args, staging)? {
        return resume_sealed(env, ui, args, &destination, staging, elsewhere);
    }
    let (mut plan, recovered) = plan(env, args, &source, &destination, staging, ui)?;
    plan.interrupted_elsewhere = elsewhere.to_vec();
    // Staging an earlier run left is still there: the way on from it is what to say.
    interrupt::check(&after_interrupt(&source, &destination, staging.path()))?;
    ui.plan(&plan, args.dry_run)?;
    if args.dry_run {
        return Ok(Moved::Stopped);
    }
    let answers = questions::ask(ui, args, &mut plan, staging.path())?;
    plan.account_resume(&recovered);
    for worktree in plan.worktrees.iter_mut().filter(|w| w.moved) {
        let staging = worktree.staging();
        if let (Some(planned), Some(staging)) = (worktree.plan.as_mut(), staging) {
            planned.account_resume(&journal::read_journal(&staging.journal())?);
        }
    }
    estimate::predict(&mut plan);
    if !confirm(ui, &plan, &answers)? {
        return Ok(Moved::Stopped);
    }
    let started = Instant::now();
    let mut _locks = vec![staging.create(held)?];
    if let Some(manifest) = rerun::finished_while_planning(env, staging, &destination)? {
        return Ok(Moved::FinishedElsewhere(manifest));
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
    let (copied_files, not_copied) = stage(env, ui, args, &plan, staging, &recovered)?;
    let mut done = Copied {
        files: copied_files,
        started,
        not_copied: not_copied
            .into_iter()
            .chain(plan.skipped.iter().map(Problem::from))
            .collect(),
        node_modules: plan.node_modules.clone(),
        worktrees: Vec::new(),
        elsewhere: elsewhere.to_vec(),
    };
    stage_worktrees(env, ui, args, plan.worktrees, &mut done)?;
    let report = finish::finish(env, ui, &answers, &destination, staging, done)?;
    Ok(Moved::Done(Box::new(report), answers.remove_source))
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
            planned.account_resume(&recovered);
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

/// A copy an earlier run verified and sealed: only finalising is left.
fn resume_sealed(
    env: &HostEnv,
    ui: &dyn Ui,
    args: &Options,
    destination: &Path,
    staging: &Staging,
    elsewhere: &[staging::Elsewhere],
) -> Result<Moved> {
    let source = staging.source();
    if args.dry_run {
        ui.note(&format!(
            "A verified copy of {} is waiting in {}; run without --dry-run to finish moving it into place.\n",
            source.display(),
            staging.path().display()
        ))?;
        return Ok(Moved::Stopped);
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
    let report = finish::finish(env, ui, &answers, destination, staging, done)?;
    Ok(Moved::Done(Box::new(report), answers.remove_source))
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
    plan.account_resume(&recovered);
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
            .unwrap_or_else(|| estimate::copy_threads(env, &plan.source)),
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
