//! The one-pass move: `--yes` with nothing to show before the copy, so the walk copies each
//! file as it meets it (`engine/ahead.rs`) instead of finishing before the copy starts. The
//! plan is still built from the same walk, asked the same (`--yes`) questions and checked for
//! space before the rest is copied; the copy after it takes what went ahead as copied.

use crate::base::error::{Failure, Result};
use crate::migrate::kernel::engine::ahead::{self, Target};
use crate::migrate::kernel::engine::journal::Journal;
use crate::migrate::kernel::engine::plan::{self, Kind, Plan};
use crate::migrate::kernel::engine::staging::{Lock, Staging};
use crate::migrate::kernel::engine::{destination, estimate};
use crate::migrate::kernel::options::Consent;
use crate::migrate::kernel::repairs::Repairs;
use crate::migrate::kernel::run::Run;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Whether this run copies while it walks: `--yes` (no plan is shown first) and no staging
/// folder of an earlier run, whose journal the copy after a plan resumes from.
pub(super) fn chosen(run: &Run, held: bool) -> bool {
    run.args.consent == Consent::Yes && !held && !run.staging.path().exists()
}

/// Makes the staging folder (its lock held from here on), then walks the source into a plan
/// while the copy workers copy each file the walk meets. The plan's free space is the
/// destination's before anything was copied, for the space check to mean what it did.
pub(super) fn walk_and_copy(run: &Run) -> Result<(Plan, Lock)> {
    let (source, destination) = (run.source(), run.destination.as_path());
    let staging = &run.staging;
    crate::store::moved::start(run.env, run.source(), &run.destination);
    let lock = staging.create(None)?;
    let tree = staging.tree();
    std::fs::create_dir_all(&tree).map_err(|e| Failure::io("create", &tree, &e))?;
    let journal = Journal::open(&staging.journal(), staging.path())?;
    let target = Target {
        source,
        tree: &tree,
        journal: &journal,
        threads: estimate::copy_threads(run.env, source),
        free_bytes: destination::free_bytes(destination),
        free_inodes: destination::free_inodes(destination),
        leave_node_modules: run.args.skip_node_modules,
    };
    let progress = run.ui.progress();
    let (mut plan, copied) = ahead::copy_while(&target, |offer| {
        plan::build_offering(source, destination, staging.path(), progress, offer)
    });
    journal.flush().map_err(|f| staging.kept(&f))?;
    if let Some(failure) = copied.failure {
        return Err(staging.kept(&failure));
    }
    plan.copy.copied_ahead = copied.records;
    (plan.free_bytes, plan.free_inodes) = (target.free_bytes, target.free_inodes);
    Ok((plan, lock))
}

/// A refusal before the copy (too little space): what the walk copied is removed with the
/// staging folder, so that "nothing was copied" stays true.
pub(super) fn undo(staging: &Staging, refused: Failure) -> Failure {
    match staging.remove() {
        Ok(()) => refused,
        Err(failure) => failure,
    }
}

/// Removes from the staging tree what went ahead but the answers leave behind (a node_modules
/// with Windows builds, build output), so that the copy holds only what the plan copies.
pub(super) fn drop_left_behind(
    plan: &mut Plan,
    repairs: &Repairs,
    staging: &Staging,
) -> Result<()> {
    let tree = staging.tree();
    let kept: HashSet<&Path> = plan
        .copy
        .entries
        .iter()
        .filter(|e| e.kind == Kind::File)
        .map(|e| e.rel.as_path())
        .collect();
    let gone: Vec<PathBuf> = plan
        .copy
        .copied_ahead
        .keys()
        .filter(|rel| !kept.contains(rel.as_path()))
        .cloned()
        .collect();
    for rel in &gone {
        plan.copy.copied_ahead.remove(rel);
        remove(&tree.join(rel), staging)?;
    }
    let left = plan
        .node_modules
        .iter()
        .filter(|n| n.skipped)
        .map(|n| &n.path);
    let built = repairs
        .build_output
        .iter()
        .filter(|o| o.skipped)
        .map(|o| &o.path);
    for root in left.chain(built) {
        remove(&tree.join(root.as_path()), staging)?;
    }
    Ok(())
}

fn remove(path: &Path, staging: &Staging) -> Result<()> {
    match crate::base::dirfd::remove_all(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(staging.kept(&Failure::io("remove", path, &e))),
    }
}
