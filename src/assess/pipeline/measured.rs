//! What `check` measures of a place before it judges, gathered in one value: the scan and
//! the repository's hints, git, the probes and the prediction with its accuracy, the record of
//! a finished migration from here, and the repositories below a folder that is none.

use super::{
    Measurements, Place, Purpose, RepoHints, Reuse, Scanned, Settings, context, git_cache, observe,
    phases, probe_and_predict, repositories_below, scan_and_hints,
};
use crate::assess::accuracy;
use crate::base::error::Result;
use crate::base::progress::Progress;
use crate::decide::observations::Observations;
use crate::host::HostEnv;
use crate::host::git::version::GitFacts;
use crate::host::location::Location;
use crate::measure::probe;
use crate::measure::scan::ScanReport;
use crate::model;
use std::path::Path;

/// What `check` measures of a place before it judges: the scan and the repository's hints,
/// git, the probes and the prediction with its accuracy, the record of a finished migration
/// from here, and the repositories below a folder that is none.
pub(super) struct Measured {
    pub(super) scan: ScanReport,
    hints: RepoHints,
    pub(super) git: GitFacts,
    pub(super) probe: Option<probe::ProbeSet>,
    pub(super) predict: Option<model::Prediction>,
    pub(super) accuracy: Option<accuracy::AccuracyReport>,
    pub(super) old_place: Option<crate::store::moved::Moved>,
    pub(super) below: Below,
}

impl Measured {
    pub(super) fn taken(
        env: &HostEnv,
        settings: &Settings,
        place: Place,
        progress: &dyn Progress,
        phases: &mut phases::Phases,
    ) -> Result<Self> {
        let Place {
            table, location, ..
        } = place;
        let (scan, index, hints) = scan_and_hints(env, settings, location, progress, phases);
        let (git, git_ms) =
            phases::timed(|| git_cache::facts(env, settings.purpose.reuse() != Reuse::Nothing));
        phases.git_facts_ms = git_ms;
        // At the old place of a finished migration moving is done: what the mount costs is no
        // longer the story, so nothing is timed.
        let old_place = crate::store::moved::recorded(env, &location.paths.linux);
        let (probe, mut predict) = if old_place.is_none() {
            probe_and_predict(
                env,
                settings,
                place,
                Scanned {
                    scan: &scan,
                    index: index.as_ref(),
                    lock: hints.lock,
                },
                &git,
                progress,
                phases,
            )?
        } else {
            (None, None)
        };
        let accuracy = accuracy::correct(
            env,
            table,
            location,
            probe
                .as_ref()
                .and_then(|p| p.baseline.as_ref())
                .map(|b| b.dir.as_path()),
            predict.as_mut(),
            settings.purpose == Purpose::Check { fresh: true },
        );
        let below = Below::found(&scan, &location.paths.linux, progress, phases);
        Ok(Measured {
            scan,
            hints,
            git,
            probe,
            predict,
            accuracy,
            old_place,
            below,
        })
    }

    /// What the policy weighs: the observations of the scan, probes and prediction, in the
    /// context of the repository's settings and use and of the repositories below.
    pub(super) fn observations(&self, env: &HostEnv, location: &Location) -> Observations {
        let mut observations = observe(
            env,
            location,
            &self.scan,
            Measurements {
                probes: self.probe.as_ref(),
                predict: self.predict.as_ref(),
            },
            self.hints.settings.clone(),
        );
        observations.context = context(
            location,
            &self.git,
            (self.hints.usage.clone(), observations.git.as_ref()),
            &self.scan,
        );
        observations.context.repositories_below = self.below.count;
        observations.context.repositories_below_partial = self.below.complete == Some(false);
        observations.context.unfinished_move_to =
            crate::store::moved::started(env, &location.paths.linux).map(|s| s.destination);
        observations
    }
}

/// The repositories found below a folder that is no repository: how many (None: none found,
/// or not looked for), and whether the search saw everything.
pub(super) struct Below {
    pub(super) count: Option<usize>,
    pub(super) complete: Option<bool>,
}

impl Below {
    /// Looks below `dir` when the scan found no repository there.
    fn found(
        scan: &ScanReport,
        dir: &Path,
        progress: &dyn Progress,
        phases: &mut phases::Phases,
    ) -> Self {
        let repositories_below = scan.git.is_none().then(|| {
            let (found, ms) = phases::timed(|| repositories_below(dir, progress));
            phases.repositories_below_ms = Some(ms);
            found
        });
        let repositories_below = repositories_below.filter(|found| !found.repositories.is_empty());
        Below {
            complete: repositories_below.as_ref().map(|d| d.complete),
            count: repositories_below.map(|found| found.repositories.len()),
        }
    }
}
