//! Predictions that check themselves: `check --verify` times the real `git status` and keeps
//! the comparison in the machine's record; later checks say how right the tool has been on
//! that mount and, after a few verifications there, scale its figures by the record's bounded
//! correction (docs/accuracy.md).

use crate::base::clock::now_unix;
use crate::decide::correction;
use crate::decide::observations::Observations;
use crate::decide::policy::Policy;
use crate::host::HostEnv;
use crate::host::location::{Location, MountTable};
use crate::measure::verify::{self, StatusTiming};
use crate::model::Prediction;
use crate::model::accuracy::{Accuracy, Checked, Correction};
use crate::store::accuracy::{self, Figure, MountKey, Record, Verification};
use serde::Serialize;
use std::path::Path;

/// `check --verify`'s comparison: the real `git status` beside the prediction shown.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Verified {
    Measured {
        #[serde(flatten)]
        timing: StatusTiming,
        #[serde(flatten)]
        checked: Checked,
    },
    /// `git status` could not be timed there, and why (`failed` in JSON, its kind
    /// `failed_kind`).
    Failed {
        #[serde(flatten)]
        failed: crate::base::reason::Noted<verify::Unmeasured>,
    },
}

/// What the record says of the repository's mount: how right `git status` has been there, and
/// the correction that applies to this run's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AccuracyReport {
    pub mount: MountKey,
    /// The shown `git status` predictions verified on this mount (None: none yet).
    pub git_status: Option<Accuracy>,
    /// The correction applied to this run's figures (None: fewer than three verifications, or
    /// `--fresh`).
    pub correction: Option<Applied>,
}

/// A correction as it applied to one check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Applied {
    /// `git status` here.
    pub git_status: Option<Correction>,
    /// The first `git status` after a copy to the Linux disk (from `migrate`'s verifications
    /// at its destinations on that mount).
    pub first_git_status: Option<Correction>,
    /// The model's `git status` here before the correction.
    pub model_git_status_ms: f64,
    /// false when the verdict weighed the model's figure: the correction alone would have moved
    /// it across a threshold (`decide::correction`).
    pub verdict_uses_it: bool,
    /// What the Linux disk's `git status` was scaled by: the same factor when the baseline is
    /// on the repository's own mount, else 1.
    #[serde(skip)]
    pub baseline_factor: f64,
}

pub fn mount_key(location: &Location) -> MountKey {
    MountKey {
        kind: location.mount.kind,
        source: location.mount.source.clone(),
    }
}

fn key_of(table: &MountTable, dir: &Path) -> Option<MountKey> {
    let entry = table.mount_for(dir)?;
    Some(MountKey {
        kind: entry.kind(),
        source: entry.source.clone(),
    })
}

/// The verifications of `figure` on `mount` a correction may follow: taken on a machine no
/// busier than its cores (`Verification::under_load`), of a model figure.
fn quiet<'a>(
    record: &'a Record,
    figure: Figure,
    mount: &'a MountKey,
) -> impl Iterator<Item = &'a Verification> + 'a {
    record
        .on(figure, mount)
        .filter(|v| v.model_ms > 0.0 && !v.under_load())
}

/// The mount's correction: its repositories' ratios, each repository's median counted once
/// (`model::accuracy::correction_across`).
fn mount_correction(record: &Record, figure: Figure, mount: &MountKey) -> Option<Correction> {
    let mut repositories: Vec<(&Path, Vec<f64>)> = Vec::new();
    for v in quiet(record, figure, mount) {
        let ratio = v.measured_ms / v.model_ms;
        match repositories.iter().position(|(path, _)| *path == v.path) {
            Some(at) => {
                // Moved to the end: the repositories stay in the order of their newest.
                let (path, mut ratios) = repositories.remove(at);
                ratios.push(ratio);
                repositories.push((path, ratios));
            }
            None => repositories.push((&v.path, vec![ratio])),
        }
    }
    let ratios: Vec<Vec<f64>> = repositories.into_iter().map(|(_, r)| r).collect();
    crate::model::accuracy::correction_across(&ratios)
}

/// The correction for `repository` on `mount`: its own verifications' when there are enough,
/// else the mount's, which no single repository sets.
fn correction_for(
    record: &Record,
    figure: Figure,
    mount: &MountKey,
    repository: &Path,
) -> Option<Correction> {
    let own: Vec<f64> = quiet(record, figure, mount)
        .filter(|v| v.path == repository)
        .map(|v| v.measured_ms / v.model_ms)
        .collect();
    crate::model::accuracy::correction(&own).or_else(|| mount_correction(record, figure, mount))
}

/// What the record says of `location`'s mount, and (unless `fresh`) the correction it makes:
/// `prediction`'s `git status` and first-status figures are scaled in place. `baseline_dir`:
/// the Linux disk's probe folder, whose mount the first-status correction is looked up for.
pub fn correct(
    env: &HostEnv,
    table: &MountTable,
    location: &Location,
    baseline_dir: Option<&Path>,
    prediction: Option<&mut Prediction>,
    fresh: bool,
) -> Option<AccuracyReport> {
    let record = accuracy::load(env);
    let mount = mount_key(location);
    let git_status = Accuracy::of(
        record
            .on(Figure::GitStatus, &mount)
            .map(|v| (v.predicted_ms, v.measured_ms)),
    );
    let applied = prediction.filter(|_| !fresh).and_then(|p| {
        let repository = &location.paths.linux;
        let here = correction_for(&record, Figure::GitStatus, &mount, repository);
        let linux = baseline_dir.and_then(|dir| key_of(table, dir));
        let first = linux
            .as_ref()
            .and_then(|m| mount_correction(&record, Figure::FirstGitStatus, m));
        if here.is_none() && first.is_none() {
            return None;
        }
        let factor = |c: Option<Correction>| c.map_or(1.0, |c| c.factor);
        let model_git_status_ms = p.git_status_ms.current;
        // Both sides on one mount are one disk: what corrects one corrects the other, or the
        // disk would read faster than itself.
        let baseline_factor = if linux.as_ref() == Some(&mount) {
            factor(here)
        } else {
            1.0
        };
        p.git_status_ms = p.git_status_ms.scaled(factor(here), baseline_factor);
        p.first_git_status_ms = p.first_git_status_ms.scaled(1.0, factor(first));
        p.first_git_status_cold_ms = p.first_git_status_cold_ms.scaled(1.0, factor(first));
        Some(Applied {
            git_status: here,
            first_git_status: first,
            model_git_status_ms,
            verdict_uses_it: true,
            baseline_factor,
        })
    });
    (git_status.is_some() || applied.is_some()).then_some(AccuracyReport {
        mount,
        git_status,
        correction: applied,
    })
}

/// The verdict's observations with the model's `git status` back in place of the corrected one
/// when the correction alone would carry it across a threshold.
pub fn gate(
    env: &HostEnv,
    policy: &Policy,
    observations: &mut Observations,
    report: Option<&mut AccuracyReport>,
) {
    let Some(applied) = report.and_then(|r| r.correction.as_mut()) else {
        return;
    };
    let (Some(corrected), Some(factor)) = (
        observations.git_status_ms,
        applied.git_status.map(|c| c.factor),
    ) else {
        return;
    };
    let model = corrected.scaled(1.0 / factor, 1.0 / applied.baseline_factor);
    let latest = accuracy::load(env)
        .verifications
        .iter()
        .rev()
        .find(|v| v.figure == Figure::GitStatus && v.path == observations.path)
        .map(|v| v.measured_ms);
    let uncorrected = Observations {
        git_status_ms: Some(model),
        ..observations.clone()
    };
    if !correction::may_decide(policy, &uncorrected, corrected, latest) {
        observations.git_status_ms = Some(model);
        applied.verdict_uses_it = false;
    }
}

/// Times the real `git status` in the repository, compares it with `shown` (the figure the
/// screen's headline gives: the median of the last checks here where there are some) and keeps
/// both in the record; the report's accuracy then counts this verification too, so the two
/// lines of one screen judge the same figure.
pub fn verify(
    env: &HostEnv,
    location: &Location,
    shown: f64,
    accuracy: &mut Option<AccuracyReport>,
) -> Verified {
    let repository = &location.paths.linux;
    let mut timing = match verify::time_git_status(repository, verify::VERIFY_RUNS, Some(shown)) {
        Ok(timing) => timing,
        Err(failed) => {
            return Verified::Failed {
                failed: crate::base::reason::Noted(Some(failed)),
            };
        }
    };
    timing.racily_clean =
        verify::racily_clean_entries(&location.paths.linux, &env.automount_root());
    timing.load_per_core = env.load_per_core();
    if timing.racily_clean > 0 {
        // git re-read those files on every run: a cost of the checkout's second, not of the
        // repository in use, which would teach the correction a miss that is not there.
        return Verified::Measured {
            checked: Checked::new(shown, timing.median_ms),
            timing,
        };
    }
    let model_ms = accuracy
        .as_ref()
        .and_then(|a| a.correction.as_ref())
        .filter(|c| c.git_status.is_some())
        .map_or(shown, |c| c.model_git_status_ms);
    let mount = mount_key(location);
    let record = accuracy::remember(
        env,
        Verification {
            figure: Figure::GitStatus,
            mount: mount.clone(),
            path: location.paths.linux.clone(),
            model_ms,
            predicted_ms: shown,
            measured_ms: timing.median_ms,
            unix: now_unix(),
            load_per_core: timing.load_per_core,
        },
    );
    count_in(accuracy, &record, mount);
    Verified::Measured {
        checked: Checked::new(shown, timing.median_ms),
        timing,
    }
}

/// The report's accuracy with the record's verifications on `mount`, this one's included.
fn count_in(accuracy: &mut Option<AccuracyReport>, record: &Record, mount: MountKey) {
    let git_status = Accuracy::of(
        record
            .on(Figure::GitStatus, &mount)
            .map(|v| (v.predicted_ms, v.measured_ms)),
    );
    match accuracy {
        Some(report) => report.git_status = git_status,
        None => {
            *accuracy = Some(AccuracyReport {
                mount,
                git_status,
                correction: None,
            })
        }
    }
}

/// A migration's first `git status` at its copy against the plan's prediction, and whether the
/// machine's record keeps it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FirstStatus {
    #[serde(flatten)]
    pub checked: Checked,
    /// The prediction's own range, `[low, high]` (its fit's error, `FIRST_STATUS_FIT_ERROR`).
    pub range_ms: [f64; 2],
    /// Why the measured figure fell outside that range, in words; None: within it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missed: Option<String>,
    /// Why the record does not keep it (its file could not be written, no state folder, the
    /// copy's mount unknown); None: kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_kept: Option<String>,
}

/// Below this many milliseconds past its range, a first status that took longer than predicted
/// is git's start-up and fixed work (config, index, the object store), not the files.
const FIXED_WORK_MS: f64 = 20.0;

impl FirstStatus {
    /// `predicted_ms` against `measured_ms`, with the prediction's range and why it missed.
    pub fn of(predicted_ms: f64, measured_ms: f64, not_kept: Option<String>) -> Self {
        let error = crate::model::FIRST_STATUS_FIT_ERROR;
        let range_ms = [predicted_ms * (1.0 - error), predicted_ms * (1.0 + error)];
        let missed = if measured_ms > range_ms[1] && measured_ms - range_ms[1] < FIXED_WORK_MS {
            Some(
                "on a repository this small, git's own start-up sets the time, not the files"
                    .to_string(),
            )
        } else if measured_ms > range_ms[1] {
            Some("the copy's disk read its files slower than its probe said".to_string())
        } else if measured_ms < range_ms[0] {
            Some("the copy's disk read its files faster than its probe said (they were still in memory)".to_string())
        } else {
            None
        };
        Self {
            checked: Checked::new(predicted_ms, measured_ms),
            range_ms,
            missed,
            not_kept,
        }
    }
}

/// Keeps a migration's first `git status` at its copy (its index refresh) against the plan's
/// prediction; the comparison for the report.
pub fn remember_first_status(
    env: &HostEnv,
    table: &MountTable,
    destination: &Path,
    predicted_ms: f64,
    measured_ms: f64,
) -> FirstStatus {
    let Some(mount) = key_of(table, destination) else {
        let why = "the copy's mount is not in the mount table";
        return FirstStatus::of(predicted_ms, measured_ms, Some(why.into()));
    };
    let (_, not_kept) = accuracy::remember_or_why(
        env,
        Verification {
            figure: Figure::FirstGitStatus,
            mount,
            path: destination.to_path_buf(),
            model_ms: predicted_ms,
            predicted_ms,
            measured_ms,
            unix: now_unix(),
            load_per_core: env.load_per_core(),
        },
    );
    FirstStatus::of(predicted_ms, measured_ms, not_kept)
}

/// What `probe` adds about its mount: every verification the record keeps there, how right
/// `git status` has been and the correction later checks apply.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MountRecord {
    pub mount: MountKey,
    pub git_status: Option<Accuracy>,
    pub correction: Option<Correction>,
    pub verifications: Vec<Verification>,
}

/// The record of the mount `entry`; None when nothing was verified there.
pub fn mount_record(env: &HostEnv, entry: &crate::host::mounts::MountEntry) -> Option<MountRecord> {
    let record = accuracy::load(env);
    let mount = MountKey {
        kind: entry.kind(),
        source: entry.source.clone(),
    };
    let verifications: Vec<Verification> = record
        .verifications
        .iter()
        .filter(|v| v.mount == mount)
        .cloned()
        .collect();
    if verifications.is_empty() {
        return None;
    }
    Some(MountRecord {
        git_status: Accuracy::of(
            record
                .on(Figure::GitStatus, &mount)
                .map(|v| (v.predicted_ms, v.measured_ms)),
        ),
        correction: mount_correction(&record, Figure::GitStatus, &mount),
        mount,
        verifications,
    })
}

/// `probe`'s report with its mount's record.
#[derive(Debug, Clone, Serialize)]
pub struct ProbeWithRecord {
    #[serde(flatten)]
    pub probe: crate::measure::probe::ProbeReport,
    /// The machine's record of verified predictions on this mount (None: none yet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<MountRecord>,
}
