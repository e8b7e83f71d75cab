//! The package manager's own work for an install prediction: timed, cached or its reference
//! fit, with what the project itself adds (its lifecycle scripts, pip's editable build, pnpm's
//! store on another file system).

use super::super::Purpose;
use super::{Baseline, python};
use crate::base::interrupt;
use crate::base::reason::Noted;
use crate::host::HostEnv;
use crate::measure::deps;
use crate::measure::deps::manager::{self, Timing, Untimed};
use crate::measure::deps::manager_timing::{ManagerTiming, Skipped};
use crate::measure::deps::managers::{self, Ecosystem, Manager};
use crate::model;
use std::path::Path;

/// The package manager's own work for the repository at `root`, as `check` and `survey` both
/// price it (one code path, so the two agree): cached when this machine timed the manager
/// before, timed in a scratch folder on the baseline disk when `may_measure` (and no Ctrl-C),
/// else its reference fit (`model::estimated`). None when the repository has no manager.
pub fn manager_timing(
    env: &HostEnv,
    root: &Path,
    baseline: &Baseline,
    purpose: Purpose,
    cpu_pace: f64,
) -> Option<ManagerTiming> {
    let may_measure = purpose.times_manager();
    let scratch_dir = match baseline {
        Baseline::Probe(dir, _) | Baseline::Same(dir, _) => Some(dir.as_path()),
        Baseline::None(_) => None,
    };
    let timing = manager::timing(
        env,
        root,
        scratch_dir,
        (
            may_measure && !interrupt::requested(),
            purpose.reuses_manager_timing(),
        ),
        cpu_pace,
    )?;
    let timing = match timing {
        Timing::Timed(timing) => *timing,
        Timing::Untimed(untimed) => estimated(untimed, cpu_pace),
    };
    let javascript = managers::of(timing.manager).ecosystem() == Ecosystem::Node;
    // pip's build of an editable project: an estimate, priced only where the install is
    // estimated from the requirement files (an existing virtualenv holds the built project).
    let build_startups = match python::pip_estimate(root, 0) {
        Some(estimate) if timing.manager == Manager::Pip => estimate.build_startups,
        _ => 0.0,
    };
    let (pnpm_store, copies_from_store) = match timing.manager {
        Manager::Pnpm => {
            deps::samplers::pnpm_store::for_project(timing.pnpm_store_setting.as_ref(), env, root)
        }
        _ => (None, false),
    };
    Some(ManagerTiming {
        lifecycle_startups: if javascript {
            deps::packages::lifecycle_startups(root)
        } else {
            0.0
        },
        copies_from_store,
        pnpm_store,
        build_startups,
        ..timing
    })
}

/// An untimed manager's reference fit, saying why no sample stands for it.
fn estimated(untimed: Untimed, cpu_pace: f64) -> ManagerTiming {
    let Untimed {
        manager,
        version,
        failed,
        skipped,
        left_out,
        cache_lacks_all,
    } = untimed;
    ManagerTiming {
        sample_failed: Noted(failed),
        sample_skipped_cause: skipped.as_ref().map(Skipped::cause),
        windows_program: skipped.as_ref().and_then(Skipped::windows_program).cloned(),
        sample_skipped: Noted(skipped),
        sample_left_out: left_out,
        sample_cache_lacks_all: cache_lacks_all,
        ..model::estimated(manager, version, cpu_pace)
    }
}
