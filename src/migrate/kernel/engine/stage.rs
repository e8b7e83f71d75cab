//! The steps a move and a sync share, in the order they run them: time the source and the
//! destination for the estimate, copy into the staging folder (journaled, resumable), and check
//! the staged tree against the plan. Each failure after the copy started keeps the staging
//! folder and says so.

use super::journal::Journal;
use super::plan::CopyPlan;
use super::staging::Staging;
use super::{copy, estimate, verify};
use crate::base::error::Result;
use crate::base::progress::Drawn;
use crate::host::HostEnv;
use std::collections::HashSet;
use std::path::PathBuf;

/// The source's and the destination's costs for the estimate and the thread count; without
/// them the plan says why and the copy takes its threads from the kind of mount.
pub fn measure(env: &HostEnv, progress: bool, plan: &mut CopyPlan) {
    let spinner = Drawn::spinner(progress, "timing the source and the destination");
    match estimate::measure(env, plan) {
        Ok(measured) => plan.measured = Some(measured),
        Err(why) => plan.unmeasured = Some(why),
    }
    spinner.finish_and_clear();
}

/// Copy: `plan` into the staging tree, journaled, until done or interrupted.
/// What the plan's journal proves copied already is kept when it still matches.
pub fn copy(
    env: &HostEnv,
    progress: bool,
    plan: &CopyPlan,
    staging: &Staging,
) -> Result<copy::Outcome> {
    let journal = Journal::open(&staging.journal(), staging.path())?;
    let estimate = estimate::of(plan, &plan.resume());
    let options = copy::CopyOptions {
        progress,
        measured: plan.measured.as_ref(),
        predicted_ms: estimate.prediction.as_ref().map(|p| p.copy_ms),
        threads: estimate
            .threads
            .unwrap_or_else(|| estimate::copy_threads(env, &plan.source)),
    };
    let outcome = copy::run(plan, &staging.tree(), &journal, &plan.recovered, &options)
        .map_err(|f| staging.kept(&f))?;
    journal.sync()?;
    // A copy Ctrl-C stopped is short of its plan: the person's interrupt, not a fault to
    // report as one when the staged tree is counted.
    crate::base::interrupt::check("what was copied and verified so far is kept")
        .map_err(|f| staging.kept(&f))?;
    Ok(outcome)
}

/// Verify: the staged tree holds what `plan` says, each file as its journal record, apart from
/// the entries `left_out` (unreadable ones, with --skip-unreadable).
pub fn check(
    progress: bool,
    plan: &CopyPlan,
    staging: &Staging,
    copied: &copy::Outcome,
    left_out: &HashSet<PathBuf>,
) -> Result<()> {
    let spinner = Drawn::spinner(progress, "checking the copy against the plan");
    let checked = verify::tree(plan, &staging.tree(), &copied.records, left_out);
    spinner.finish_and_clear();
    checked.map_err(|f| staging.kept(&f))
}
