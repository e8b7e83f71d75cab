//! `wsl-place check`: locate, scan, probe, predict, decide, in that order.

use crate::cli::{CheckArgs, FailOn};
use crate::error::{ExitCode, Result};
use crate::gitsettings;
use crate::host::HostEnv;
use crate::location::{self, Location, MountTable};
use crate::policy::{self, Level, Observations, Pair, Policy, PolicySource, Verdict};
use crate::scan::{self, ScanOptions, ScanReport};
use crate::{model, probe};
use serde::Serialize;
use std::path::Path;
use std::time::Duration;

/// Everything `check` found; its JSON form is the documented schema.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub schema: u32,
    #[serde(flatten)]
    pub location: Location,
    pub scan: ScanReport,
    /// The timing probes (None with --no-probe).
    pub probe: Option<probe::ProbeSet>,
    /// What the model predicts from scan + probes (None with --no-probe or when the probe failed).
    pub predict: Option<model::Prediction>,
    pub policy: PolicySource,
    pub verdict: Verdict,
}

pub const SCHEMA_VERSION: u32 = 1;

/// Where the repository is and which policy judges it: what every check starts from. The mount
/// table is kept so the probes reuse it instead of reading mountinfo again.
pub struct Setting {
    pub table: MountTable,
    pub location: Location,
    pub policy: Policy,
    pub policy_source: PolicySource,
}

/// Locates `path` and loads its policy.
pub fn prepare(env: &HostEnv, path: &Path, policy_file: Option<&Path>) -> Result<Setting> {
    let canonical = location::canonical_dir(path)?;
    let table = MountTable::read(env)?;
    let host = location::host(env, &table);
    let location = location::locate_in(&host, &table, &canonical)?;
    let (policy, policy_source) = policy::load(policy_file, &location.paths.linux)?;
    Ok(Setting {
        table,
        location,
        policy,
        policy_source,
    })
}

pub fn run(
    env: &HostEnv,
    args: &CheckArgs,
    policy_file: Option<&Path>,
    interactive: bool,
) -> Result<(CheckReport, Policy)> {
    let setting = prepare(env, &args.path, policy_file)?;
    measure(env, args, setting, interactive)
}

/// Scans, probes, predicts and decides for an already prepared setting.
pub fn measure(
    env: &HostEnv,
    args: &CheckArgs,
    setting: Setting,
    interactive: bool,
) -> Result<(CheckReport, Policy)> {
    let Setting {
        table,
        location,
        policy,
        policy_source,
    } = setting;
    let (scan, index) = scan::scan_keeping_index(
        &location.paths.linux,
        &ScanOptions {
            budget: Duration::from_millis(args.scan_budget_ms),
            progress: interactive,
        },
    );
    let (probe, predict) = if args.no_probe {
        (None, None)
    } else {
        let probes = probe::for_check(env, &table, &location, args, index.as_ref())?;
        let predict = probe::predict(&scan, &probes, &location.paths.linux);
        (Some(probes), predict)
    };
    let observations = observe(env, &location, &scan, probe.as_ref(), predict.as_ref());
    let verdict = policy::evaluate(&policy, &observations);
    let report = CheckReport {
        schema: SCHEMA_VERSION,
        location,
        scan,
        probe,
        predict,
        policy: policy_source,
        verdict,
    };
    Ok((report, policy))
}

fn pair(compared: &model::Compared) -> Option<Pair> {
    compared.baseline.map(|baseline| Pair {
        current: compared.current,
        baseline,
    })
}

/// What the policy needs, gathered from the measurements.
fn observe(
    env: &HostEnv,
    location: &Location,
    scan: &ScanReport,
    probes: Option<&probe::ProbeSet>,
    predict: Option<&model::Prediction>,
) -> Observations {
    let baseline_problem = probes.and_then(|p| {
        if p.baseline.is_none() || p.baseline_same_mount {
            Some(
                p.baseline_note
                    .clone()
                    .unwrap_or_else(|| "no usable baseline".to_string()),
            )
        } else {
            None
        }
    });
    Observations {
        path: location.paths.linux.clone(),
        home: env.home(),
        mount_kind: location.mount.kind,
        wsl: location.host.wsl,
        git_status_ms: predict.and_then(|p| pair(&p.git_status_ms)),
        install_ms: predict.and_then(|p| p.install_ms.as_ref().and_then(pair)),
        tracked: scan.tracked,
        dirs: scan.dirs,
        git: gitsettings::read(&location.paths.linux),
        baseline_problem,
    }
}

/// Exit code for a verdict under `--fail-on`.
pub fn exit_code(level: Level, fail_on: FailOn) -> ExitCode {
    let threshold = match fail_on {
        FailOn::Advise => Level::Advise,
        FailOn::Move => Level::Move,
        FailOn::Never => return ExitCode::Ok,
    };
    if level >= threshold {
        ExitCode::VerdictFailed
    } else {
        ExitCode::Ok
    }
}

/// The policy a command would use for `root`, for callers other than `check` (migrate).
pub fn policy_for(policy_file: Option<&Path>, root: &Path) -> Result<Policy> {
    policy::load(policy_file, root).map(|(policy, _)| policy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fail_on_levels() {
        assert_eq!(exit_code(Level::Move, FailOn::Never), ExitCode::Ok);
        assert_eq!(exit_code(Level::Advise, FailOn::Move), ExitCode::Ok);
        assert_eq!(
            exit_code(Level::Move, FailOn::Move),
            ExitCode::VerdictFailed
        );
        assert_eq!(
            exit_code(Level::Advise, FailOn::Advise),
            ExitCode::VerdictFailed
        );
        assert_eq!(exit_code(Level::Ok, FailOn::Advise), ExitCode::Ok);
    }
}
