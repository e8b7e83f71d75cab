//! When a corrected prediction may decide the verdict (docs/accuracy.md): a correction from
//! the record never moves a verdict across a threshold on its own. Where the corrected and
//! the model's `git status` land on different levels, the corrected one decides only when the
//! latest verification of this repository on this mount measured a figure that lands on the
//! corrected level too: a measurement, not the factor, is behind the crossing.

use super::observations::Observations;
use super::policy::{self, Policy};
use crate::model::Compared;

/// Whether `corrected` may stand for the model's `observations.git_status_ms` in the verdict;
/// `latest_measured_ms`: the newest verified `git status` of this repository on this mount.
pub fn may_decide(
    policy: &Policy,
    observations: &Observations,
    corrected: Compared,
    latest_measured_ms: Option<f64>,
) -> bool {
    let Some(model) = observations.git_status_ms else {
        return true;
    };
    let level_at = |figure: Compared| {
        let judged = Observations {
            git_status_ms: Some(figure),
            ..observations.clone()
        };
        policy::evaluate(policy, &judged).level
    };
    let corrected_level = level_at(corrected);
    if corrected_level == level_at(model) {
        return true;
    }
    latest_measured_ms
        .filter(|_| model.current > 0.0)
        .is_some_and(|measured| {
            level_at(model.scaled(measured / model.current, 1.0)) == corrected_level
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::policy::fixtures::with_git_status;
    use crate::host::mounts::MountKind;

    #[test]
    fn a_correction_crosses_a_threshold_only_with_a_measurement_behind_it() {
        let policy = Policy::default();
        let move_ms = policy.thresholds.move_git_status_ms;
        // The model says well below `move`; the correction lifts it well above.
        let obs = with_git_status(MountKind::WslDrvfs9p, move_ms * 0.5, 5.0);
        let corrected = obs.git_status_ms.unwrap().scaled(3.0, 1.0);
        assert!(!may_decide(&policy, &obs, corrected, None));
        assert!(!may_decide(&policy, &obs, corrected, Some(move_ms * 0.4)));
        assert!(may_decide(&policy, &obs, corrected, Some(move_ms * 2.0)));
        // A correction that stays on one side needs nothing behind it.
        let small = obs.git_status_ms.unwrap().scaled(1.1, 1.0);
        assert!(may_decide(&policy, &obs, small, None));
    }
}
