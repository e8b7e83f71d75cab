//! The move, the first migration, as its steps: plan, confirm, copy, verify, seal, commit, fix
//! up, finalise, report. `run` is that list; each step is a function here or a file beside it.
//!
//! Nothing is ever written to the source, and nothing in it is deleted unless `--remove-source`
//! is given, after the manifest proves each entry was copied. The copy goes to a staging folder
//! beside the destination (`kernel/engine/staging.rs`) and is renamed into place only after every file was
//! read back and compared; an interrupted run is resumed by running it again.

mod finish;
mod one_pass;
mod others;
mod questions;
mod rerun;

use crate::base::error::{Failure, Result};
use crate::base::interrupt;
use crate::base::progress::Drawn;
use crate::base::units;
use crate::migrate::kernel::ask::{self, after_interrupt};
use crate::migrate::kernel::document::PlanDocument;
use crate::migrate::kernel::engine::plan::{self, Plan, Problem};
use crate::migrate::kernel::engine::staging::{self, Lock, Staging};
use crate::migrate::kernel::notice::Notice;
use crate::migrate::kernel::options::Ui;
use crate::migrate::kernel::outcome::{Copied, MigrationReport};
use crate::migrate::kernel::repairs::Repairs;
use crate::migrate::kernel::repairs::worktrees;
use crate::migrate::kernel::run::Run;
use crate::migrate::kernel::{
    document, engine::copy, engine::destination, engine::estimate, engine::finalise,
    engine::journal, engine::stage, repairs::fixups, repairs::windows_side,
};
use questions::Answers;
use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Instant;

/// What the move ended in.
pub(super) enum MoveOutcome {
    /// Nothing more to do: a dry run, or the plan was not accepted.
    Stopped,
    /// Another run finished the same move while this one planned: its manifest.
    FinishedElsewhere(PathBuf),
    /// Moved: the report, and the answer to `--remove-source` given with the plan.
    Done(Box<MigrationReport>, Option<bool>),
}

/// Moves the run's source to its destination through its staging folder, or finishes a copy an
/// interrupted run sealed there: plan, ask, confirm, copy (with the worktrees moving along),
/// finish.
pub(super) fn run(run: &Run, held: Option<Lock>) -> Result<MoveOutcome> {
    let (ui, staging, dry_run) = (run.ui, &run.staging, run.args.consent.dry_run());
    set_interrupt_hint(run);
    // Said before any work: a walk of a slow mount can take long.
    if !others::another_copy(run)? {
        return Ok(MoveOutcome::Stopped);
    }
    ask::refuse_without_terminal(ui, run.args.consent, "migrate")?;
    destination::refuse_unwritable(&run.destination)?;
    if staging.is_sealed() && still_sealed(run, staging)? {
        return resume_sealed(run);
    }
    let walk_started = Instant::now();
    let one_pass = one_pass::chosen(run, held.is_some());
    let (mut plan, mut repairs, held) = plan(run, one_pass, held)?;
    // Staging an earlier run left is still there: the way on from it is what to say.
    interrupt::check(&after_interrupt(
        run.source(),
        &run.destination,
        staging.path(),
    ))?;
    let mut shown = document::of(&plan, &repairs);
    shown.dry_run = dry_run;
    let walked = walk_started.elapsed();
    predict_the_walk(run, one_pass, walked, &mut shown);
    ui.plan(&shown, dry_run)?;
    if dry_run {
        // The refusal the real run would meet, with its exit code: a dry run promises no run
        // that cannot happen.
        check_room(&plan, &repairs)?;
        return Ok(MoveOutcome::Stopped);
    }
    let answers = questions::ask(run, &mut plan, &mut repairs)?;
    recover_worktrees(&mut repairs.worktrees)?;
    match confirm(ui, &plan, &repairs, &answers) {
        Ok(true) => {}
        Ok(false) => return Ok(MoveOutcome::Stopped),
        // What the walk copied goes too: the refusal says nothing was copied.
        Err(refused) if one_pass => return Err(one_pass::undo(staging, refused)),
        Err(refused) => return Err(refused),
    }
    if one_pass {
        one_pass::drop_left_behind(&mut plan, &repairs, staging)?;
    }
    let started = if one_pass {
        walk_started
    } else {
        Instant::now()
    };
    copy_and_finish(
        run,
        (plan, repairs),
        &answers,
        &shown,
        (held, started, one_pass.then_some(walked)),
    )
}

/// What Ctrl-C that the work does not answer in time says: how to go on from the staging.
fn set_interrupt_hint(run: &Run) {
    let (from, to, kept) = (
        run.source().to_path_buf(),
        run.destination.clone(),
        run.staging.path().to_path_buf(),
    );
    interrupt::set_hint(move || after_interrupt(&from, &to, &kept));
}

/// A dry run with no staging folder stands for a one-pass `--yes`, which walks and copies at
/// once: its copy_ms holds the walk, whose round trips the same mount pays beside the copy's,
/// and the planning after it (the source's settings read, the copy's costs timed, worktrees
/// found), which a one-pass run does too before it finishes, so the prediction shown holds
/// `planned`, the dry run's own time for those (docs/json.md). With the walk alone it was 0.7
/// of the copy on a tree of 3,000 small files on slowfs. A one-pass `--yes` shows the same
/// figure, its own walk included (it is over by then), and its result is judged against it:
/// one figure, the one the dry run promised.
fn predict_the_walk(
    run: &Run,
    one_pass: bool,
    planned: std::time::Duration,
    shown: &mut PlanDocument,
) {
    let dry_one_pass = run.args.consent.dry_run() && !run.staging.path().exists();
    if dry_one_pass || one_pass {
        let planned_ms = planned.as_millis() as u64;
        shown.predicted_copy_ms = shown.predicted_copy_ms.map(|ms| ms + planned_ms);
        shown.walk_predicted = shown.predicted_copy_ms.is_some();
    }
}

/// Steps 3 to 9 once the plan is confirmed: the staging folders made, the repository and the
/// worktrees moving along copied, verified and sealed, then finished.
/// `started`: when the copy started (the walk's start in a one-pass run, where the walk copies).
/// `walked`: this run made the staging folder and copied into it while it walked, which took
/// this long (one pass).
fn copy_and_finish(
    run: &Run,
    (plan, repairs): (Plan, Repairs),
    answers: &Answers,
    shown: &PlanDocument,
    (held, started, walked): (Option<Lock>, Instant, Option<std::time::Duration>),
) -> Result<MoveOutcome> {
    let (staging, one_pass) = (&run.staging, walked.is_some());
    // Priced again after the answers: what is copied now (node_modules left behind or not),
    // the walk included as the plan showed it.
    let walk_ms = walked.map_or(0, |w| w.as_millis() as u64);
    let planned_ms = estimate::of(&plan.copy, &plan.copy.resume())
        .predicted_copy_ms
        .map(|ms| ms + walk_ms);
    crate::store::moved::start(run.env, run.source(), &run.destination);
    let mut _locks = vec![staging.create(held)?];
    if let Some(manifest) =
        rerun::finished_while_planning(run.env, staging, &run.destination, one_pass)?
    {
        return Ok(MoveOutcome::FinishedElsewhere(manifest));
    }
    // Made now, before any copy: a worktree's staging folder is the record that it moves along.
    for staging in repairs
        .worktrees
        .iter()
        .filter(|w| w.moved)
        .filter_map(|w| w.staging())
    {
        staging.check_owner()?;
        _locks.push(staging.create(None)?);
    }
    let (copied_files, not_copied) = copy_verify_seal(run, &plan, staging)?;
    let mut done = Copied {
        files: copied_files,
        started,
        not_copied: not_copied
            .into_iter()
            .chain(plan.skipped.iter().map(Problem::from))
            .collect(),
        node_modules: plan.node_modules.clone(),
        virtualenvs: repairs.virtualenvs.clone(),
        worktrees: Vec::new(),
        elsewhere: run.elsewhere.clone(),
        // git's own start-up is in what is timed, not in the copy's estimate.
        predicted_refresh_ms: shown
            .prediction
            .as_ref()
            .map(|p| p.refresh_ms + crate::model::GIT_STARTUP_MS),
        planned_ms,
        left_behind: answers.left_behind.clone(),
    };
    stage_worktrees(run, repairs.worktrees, &mut done)?;
    let report = finish::finish(run, answers, done)?;
    Ok(MoveOutcome::Done(Box::new(report), answers.remove_source))
}

/// What an interrupted run verified of each worktree the answers move along, from its own
/// journal.
fn recover_worktrees(worktrees: &mut [worktrees::LinkedWorktree]) -> Result<()> {
    for worktree in worktrees.iter_mut().filter(|w| w.moved) {
        let staging = worktree.staging();
        if let (Some(planned), Some(staging)) = (worktree.plan.as_mut(), staging) {
            planned.copy.recovered = journal::read_journal(&staging.journal())?;
        }
    }
    Ok(())
}

/// Copies, verifies and seals each worktree that moves along, as the repository was; a copy an
/// interrupted run sealed is kept as it is.
fn stage_worktrees(
    run: &Run,
    worktrees: Vec<worktrees::LinkedWorktree>,
    done: &mut Copied,
) -> Result<()> {
    for worktree in worktrees {
        let (Some(staging), Some(planned)) = (worktree.staging(), worktree.plan.as_deref()) else {
            done.worktrees.push(worktree);
            continue;
        };
        if worktree.moved && !(staging.is_sealed() && still_sealed(run, &staging)?) {
            let mut planned = planned.clone();
            planned.copy.recovered = journal::read_journal(&staging.journal())?;
            done.files += copy_verify_seal(run, &planned, &staging)?.0;
        }
        done.worktrees.push(worktree);
    }
    Ok(())
}

/// Steps 3 to 5 for one tree, the repository or a worktree moving along: copy, verify, seal.
/// The files this run copied, and the entries left out (with --skip-unreadable).
fn copy_verify_seal(run: &Run, plan: &Plan, staging: &Staging) -> Result<(u64, Vec<Problem>)> {
    let progress = run.ui.progress();
    let copied = stage::copy(run.env, progress, &plan.copy, staging)?;
    let not_copied = verify(run, plan, staging, &copied)?;
    seal(progress, plan, staging, &copied, &not_copied)?;
    Ok((copied.copied_files, not_copied))
}

/// Whether a sealed copy still holds what its manifest says; if not, it is unsealed (a dry run
/// only says so) and copied again where it changed.
fn still_sealed(run: &Run, staging: &Staging) -> Result<bool> {
    let Some(changed) = finalise::changed_since_sealing(staging) else {
        return Ok(true);
    };
    let dry_run = run.args.consent.dry_run();
    run.ui.notice(&Notice::SealedCopyChanged {
        staging: staging.path(),
        changed: &changed,
        dry_run,
    })?;
    if !dry_run {
        finalise::unseal(staging)?;
    }
    Ok(false)
}

/// A copy an earlier run verified and sealed: only finalising is left.
fn resume_sealed(run: &Run) -> Result<MoveOutcome> {
    let (ui, staging, source) = (run.ui, &run.staging, run.source());
    let dry_run = run.args.consent.dry_run();
    ui.notice(&Notice::SealedCopyWaiting {
        source,
        staging: staging.path(),
        dry_run,
    })?;
    if dry_run {
        return Ok(MoveOutcome::Stopped);
    }
    let answers = questions::ask_to_finish(run)?;
    let mut done = Copied::nothing_yet(&run.elsewhere);
    done.node_modules = finalise::sealed_node_modules(staging);
    // The worktrees the interrupted run moved along are those with a staging folder.
    let mut moving = worktrees::find(source, &run.destination);
    for worktree in &mut moving {
        worktree.moved = worktree.staging().is_some_and(|s| s.path().exists());
        if !worktree.moved {
            worktree.destination = None;
        }
    }
    worktrees::plan_each(&mut moving, ui.progress());
    stage_worktrees(run, moving, &mut done)?;
    let report = finish::finish(run, &answers, done)?;
    Ok(MoveOutcome::Done(Box::new(report), answers.remove_source))
}

/// Step 1, plan: walk the source once (copying as it goes in a one-pass run, which then holds
/// the staging folder's lock), find the repairs beside the plan, gather every question they
/// raise, and account for what an interrupted run already copied. Asks nothing: the questions
/// come with the plan.
fn plan(run: &Run, one_pass: bool, held: Option<Lock>) -> Result<(Plan, Repairs, Option<Lock>)> {
    let (args, progress) = (run.args, run.ui.progress());
    let (source, destination) = (run.source(), run.destination.as_path());
    refuse_existing(destination)?;
    let (mut plan, held) = match one_pass {
        true => one_pass::walk_and_copy(run).map(|(plan, lock)| (plan, Some(lock)))?,
        false => (
            plan::build(source, destination, run.staging.path(), progress),
            held,
        ),
    };
    let mut repairs = Repairs::in_tree(&mut plan);
    // Timed after the walk in a one-pass run too (most of it copied by then): the report
    // reads the copy and the first `git status` against the model's figures (docs/json.md).
    stage::measure(run.env, progress, &mut plan.copy);
    if !plan.node_modules.is_empty() && args.skip_node_modules {
        plan.leave_node_modules();
    }
    price_build_output(&plan, &mut repairs);
    repairs.git_settings = questions::git_settings(source);
    repairs.worktrees = worktrees::find(source, destination);
    worktrees::plan_each(&mut repairs.worktrees, progress);
    if args.skip_node_modules {
        for worktree in repairs.worktrees.iter_mut().filter_map(|w| w.plan.as_mut()) {
            worktree.leave_node_modules();
        }
    }
    repairs.windows = windows_side::plan(run.env, source, destination);
    plan.questions = questions::for_plan(&plan, &repairs, args);
    plan.interrupted_elsewhere = run.elsewhere.clone();
    // A one-pass run's journal is its own copy (`copied_ahead`), not an interrupted run's: read
    // as `recovered`, the plan would say it resumes and price only what the walk left.
    if !one_pass {
        plan.copy.recovered = journal::read_journal(&run.staging.journal())?;
    }
    Ok((plan, repairs, held))
}

/// The destination must not exist yet: the move makes it.
fn refuse_existing(destination: &std::path::Path) -> Result<()> {
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
    Ok(())
}

/// What copying each build output costs, from the estimate: the plan priced with and without
/// it, so the question can say what leaving it saves.
fn price_build_output(plan: &Plan, repairs: &mut Repairs) {
    let cost = |copy: &plan::CopyPlan| estimate::of(copy, &copy.resume()).predicted_copy_ms;
    let Some(all) = cost(&plan.copy) else {
        return;
    };
    for output in &mut repairs.build_output {
        let mut without = plan.copy.clone();
        without
            .entries
            .retain(|e| !e.rel.starts_with(output.path.as_path()));
        without.count();
        output.saved_ms = cost(&without).map(|rest| all.saturating_sub(rest));
    }
}

/// Step 2, confirm: the space is there and the person (or --yes) agreed to copy.
fn confirm(ui: &dyn Ui, plan: &Plan, repairs: &Repairs, answers: &Answers) -> Result<bool> {
    check_room(plan, repairs)?;
    if !answers.go {
        ui.notice(&Notice::NothingCopied)?;
    }
    Ok(answers.go)
}

/// The destination's file system has the space and the inodes the copy needs.
fn check_room(plan: &Plan, repairs: &Repairs) -> Result<()> {
    let moving = || {
        repairs
            .worktrees
            .iter()
            .filter(|w| w.moved)
            .filter_map(|w| w.plan.as_deref())
    };
    let needed = |p: &Plan| p.copy.resume().needed_bytes;
    let needed_bytes = needed(plan) + moving().map(needed).sum::<u64>();
    if let Some(free) = plan.free_bytes
        && free < needed_bytes
    {
        return Err(Failure::input(format!(
            "not enough space at {}: the copy needs {} and only {} are free; free some space or choose another --to. Nothing was copied.",
            plan.copy.destination.display(),
            units::bytes(needed_bytes),
            units::bytes(free)
        )));
    }
    let jobs = 1 + moving().count() as u64;
    // A further name of a hard-linked file takes no inode of its own.
    let inodes = |p: &Plan| {
        p.copy
            .entries
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
            "not enough free inodes at {}: the migration needs {} ({} files, directories and links copied, {own} for its staging folder, manifest and git's lock files) and only {} are free; free some or choose another --to. Nothing was copied.",
            plan.copy.destination.display(),
            units::count(copied + own),
            units::count(copied),
            units::count(free)
        )));
    }
    Ok(())
}

/// Step 4, verify: every source entry was copied (or --skip-unreadable allows it not to be),
/// and the staged tree matches the plan. Returns the entries left out.
fn verify(
    run: &Run,
    plan: &Plan,
    staging: &Staging,
    copied: &copy::Outcome,
) -> Result<Vec<Problem>> {
    let mut problems = plan.unreadable.clone();
    problems.extend(copied.problems.iter().cloned());
    if !problems.is_empty() && !run.args.skip_unreadable {
        let mut text = format!(
            "{} source entries could not be copied:\n",
            units::count(problems.len() as u64)
        );
        for p in &problems {
            text.push_str(&format!("  {}: {}\n", p.path, p.error));
        }
        // The failure below says the same in one sentence if this list cannot be shown.
        let _ = std::io::Write::write_all(&mut std::io::stderr(), text.as_bytes());
        return Err(staging.kept(&Failure::internal(format!(
            "{} source entries could not be read (listed above), so the migration was not finalised; fix them, or pass --skip-unreadable to move the rest without them",
            units::count(problems.len() as u64)
        ))));
    }
    stage::check(
        run.ui.progress(),
        &plan.copy,
        staging,
        copied,
        &problem_paths(&problems),
    )?;
    Ok(problems)
}

fn problem_paths(problems: &[Problem]) -> HashSet<PathBuf> {
    problems.iter().map(|p| p.path.0.clone()).collect()
}

/// Step 5, seal: the manifest written and the copy marked verified, durably.
fn seal(
    progress: bool,
    plan: &Plan,
    staging: &Staging,
    copied: &copy::Outcome,
    problems: &[Problem],
) -> Result<()> {
    let spinner = Drawn::spinner(progress, "flushing the copy to disk");
    let sealed = finalise::seal(plan, staging, &copied.records, &problem_paths(problems));
    spinner.finish_and_clear();
    sealed
}
