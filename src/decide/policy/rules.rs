//! The rules that turn observations into a verdict: the mount's kind, the predicted `git status`
//! and reinstall against the policy's thresholds, WSL 1, and the paths the policy ignores.

use super::schema::{Policy, Thresholds};
use super::steady::{
    KEEP_MARGIN, Previous, RECENT_CHECKS, keep_previous, say_when_steadied, weighed,
    weighed_figures,
};
use super::verdict::{Confidence, Level, Predicts, Reason, Recent, Rule, Verdict, Why};
use crate::base::reason::Said;
use crate::decide::advice;
use crate::decide::observations::Observations;
use crate::model::Compared;

/// The level one predicted pair reaches under a pair of thresholds.
fn level_of(current: f64, speedup: f64, t: &Thresholds, advise_ms: f64, move_ms: f64) -> Level {
    if current >= move_ms && speedup >= t.move_speedup {
        Level::Move
    } else if current >= advise_ms && speedup >= t.advise_speedup {
        Level::Advise
    } else {
        Level::Ok
    }
}

/// How many times past the `move` threshold a figure here must be, across its whole range, for
/// the figure here alone to decide: a Linux-disk reference that read slow (a busy machine: 71-84
/// ms for a 3-4 ms disk) widens the speedup's range, and must not talk such a figure down.
pub const CLEAR_PAST_MOVE: f64 = 3.0;

/// The levels at the low end, the middle and the high end of a prediction's ranges, each
/// widened `widen` times; all `Ok` without a speedup to weigh.
fn levels_of(
    predicted: &Compared,
    t: &Thresholds,
    (advise_ms, move_ms): (f64, f64),
    widen: f64,
) -> [Level; 3] {
    let Some(speedup) = predicted.speedup else {
        return [Level::Ok; 3];
    };
    let speedup_error = predicted.speedup_error.unwrap_or(predicted.error) * widen;
    let error = predicted.error * widen;
    // Several times past `move` across its range, with the Linux disk still clearly faster at
    // the speedup's middle (`advise_speedup`: a repository on that disk, or on one like it, is
    // never moved by its size alone): the figure here decides.
    let low_here = predicted.current * (1.0 - error).max(0.0);
    if low_here >= CLEAR_PAST_MOVE * move_ms && speedup >= t.advise_speedup {
        return [Level::Move; 3];
    }
    let at = |k: f64, ks: f64| level_of(predicted.current * k, speedup * ks, t, advise_ms, move_ms);
    [
        at((1.0 - error).max(0.0), (1.0 - speedup_error).max(0.0)),
        at(1.0, 1.0),
        at(1.0 + error, 1.0 + speedup_error),
    ]
}

/// Applies `policy` to `observations`, with no earlier verdict to keep.
pub fn evaluate(policy: &Policy, observations: &Observations) -> Verdict {
    evaluate_after(policy, observations, &Previous::default())
}

/// Applies `policy` to `observations` after the checks `previous` remembers for the same
/// place and policy: each prediction is weighed at the medians of the last `RECENT_CHECKS`
/// checks' figures (this one's included), with this run's ranges. Where the ranges straddle a
/// threshold, the previous level is kept if they support it, else the middle decides.
pub fn evaluate_after(
    policy: &Policy,
    observations: &Observations,
    previous: &Previous,
) -> Verdict {
    // A first look's figures never join a full check's median: its short cold measurement
    // is another quantity, kept only until a full check replaces it.
    let full: Vec<Recent> = previous
        .recent
        .iter()
        .filter(|r| !r.first_look)
        .copied()
        .collect();
    let skip = (full.len() + 1).saturating_sub(RECENT_CHECKS);
    let recent: Vec<Recent> = full[skip.min(full.len())..]
        .iter()
        .copied()
        .chain([Recent::of(observations)])
        .collect();
    let mut verdict = judge(policy, &weighed(observations, &recent), previous.level);
    say_when_steadied(&mut verdict.reasons, &recent);
    Verdict {
        weighed: weighed_figures(&recent),
        recent,
        ..verdict
    }
}

/// A repository on a Windows drive whose policy says Windows-native tools come first: `ok`,
/// kept there by choice (the advice of moving would only be noise).
fn kept_on_windows(policy: &Policy, observations: &Observations) -> Option<Verdict> {
    let kind = observations.mount_kind;
    let on_windows = kind.is_windows_drive()
        || observations.wsl && kind == crate::host::mounts::MountKind::Network;
    let why = policy.windows_primary(&observations.path, observations.home.as_deref())?;
    on_windows.then(|| {
        Verdict::plain(
            Level::Ok,
            vec![Reason {
                level: Level::Ok,
                rule: Rule::WindowsPrimary,
                message: Said(Why::KeptOnWindows { by: why }),
            }],
            Vec::new(),
        )
    })
}

/// The verdict on one place's weighed `observations`; `previous`: the level the last checks
/// gave, kept where this one's ranges support it.
pub(super) fn judge(
    policy: &Policy,
    observations: &Observations,
    previous: Option<Level>,
) -> Verdict {
    if let Some(plain) =
        ignored(policy, observations).or_else(|| kept_on_windows(policy, observations))
    {
        return plain;
    }
    let thresholds = &policy.thresholds;
    let mut reasons: Vec<Reason> = kind_reason(policy, observations).into_iter().collect();
    let mut reach = Reach::at(reasons.first().map_or(Level::Ok, |r| r.level));
    reasons.extend(predicted_reasons(thresholds, observations, &mut reach));
    if let Some(reason) = wsl1_reason(thresholds, observations, &reasons) {
        reach.raise([reason.level; 3], [reason.level; 3]);
        reasons.push(reason);
    }
    let kept = keep_previous(&mut reasons, [reach.keep_low, reach.keep_high], previous);
    let level = kept.unwrap_or_else(|| reasons.iter().map(|r| r.level).max().unwrap_or(Level::Ok));
    let advice = advice::for_observations(
        observations,
        advice::Judgement {
            judged: level > Level::Ok,
            advise_speedup: thresholds.advise_speedup,
            fsmonitor_min_tracked: policy.git.fsmonitor_min_tracked,
        },
    );
    Verdict {
        confidence: Confidence::of([reach.low, reach.high]),
        levels: [reach.low, reach.high],
        kept_previous: kept.is_some(),
        ..Verdict::plain(level, reasons, advice)
    }
}

/// The reasons the predicted `git status` and reinstall give, each raising `reach`; none when
/// the baseline could not be measured.
fn predicted_reasons(
    thresholds: &Thresholds,
    observations: &Observations,
    reach: &mut Reach,
) -> Vec<Reason> {
    if observations.baseline_problem.is_some() {
        return Vec::new();
    }
    let predictions = [
        (
            Rule::GitStatus,
            Predicts::GitStatus,
            observations.git_status_ms,
            (
                thresholds.advise_git_status_ms,
                thresholds.move_git_status_ms,
            ),
        ),
        (
            Rule::Install,
            Predicts::Install,
            observations.install_ms,
            (thresholds.advise_install_ms, thresholds.move_install_ms),
        ),
    ];
    let mut reasons = Vec::new();
    for (rule, what, predicted, thresholds_ms) in predictions {
        if let Some(predicted) = predicted {
            let rating = (rule, what, thresholds_ms);
            reasons.extend(rate(rating, predicted, thresholds, reach));
        }
    }
    reasons
}

/// A path the policy's `paths.ignore` names: `ok`, and nothing measured is weighed.
fn ignored(policy: &Policy, observations: &Observations) -> Option<Verdict> {
    if !policy.is_ignored(&observations.path, observations.home.as_deref()) {
        return None;
    }
    Some(Verdict::plain(
        Level::Ok,
        vec![Reason {
            level: Level::Ok,
            rule: Rule::Ignored,
            message: Said(Why::Ignored {
                path: observations.path.clone(),
            }),
        }],
        Vec::new(),
    ))
}

/// The levels the reasons reach at the low and high ends of their ranges, and the same with
/// the ranges widened `KEEP_MARGIN` times, within which an earlier level is kept.
struct Reach {
    low: Level,
    high: Level,
    keep_low: Level,
    keep_high: Level,
}

impl Reach {
    fn at(floor: Level) -> Self {
        Reach {
            low: floor,
            high: floor,
            keep_low: floor,
            keep_high: floor,
        }
    }

    /// Raises the reach to the low and high ends of `levels` and of `widened`.
    fn raise(&mut self, levels: [Level; 3], widened: [Level; 3]) {
        self.low = self.low.max(levels[0]);
        self.high = self.high.max(levels[2]);
        self.keep_low = self.keep_low.max(widened[0]);
        self.keep_high = self.keep_high.max(widened[2]);
    }
}

/// One prediction (`what`, by `rule`) against its pair of thresholds (`advise_ms`, `move_ms`):
/// the levels it reaches raise `reach`, and the reason when its middle is above `Ok`.
fn rate(
    (rule, of, thresholds_ms): (Rule, Predicts, (f64, f64)),
    predicted: Compared,
    thresholds: &Thresholds,
    reach: &mut Reach,
) -> Option<Reason> {
    let levels = levels_of(&predicted, thresholds, thresholds_ms, 1.0);
    let widened = levels_of(&predicted, thresholds, thresholds_ms, KEEP_MARGIN);
    reach.raise(levels, widened);
    let level = levels[1];
    let (Some(baseline), Some(speedup)) = (predicted.baseline, predicted.speedup) else {
        return None;
    };
    if level == Level::Ok {
        return None;
    }
    let range = predicted.current_range;
    Some(Reason {
        level,
        rule,
        message: Said(Why::Predicted {
            of,
            current_ms: predicted.current,
            low_ms: range.low,
            high_ms: range.high,
            baseline_ms: baseline,
            speedup,
            median_of_checks: None,
        }),
    })
}

/// What the mount's kind alone says.
fn kind_reason(policy: &Policy, observations: &Observations) -> Option<Reason> {
    let measured = observations.git_status_ms.is_some() || observations.install_ms.is_some();
    let kind = observations.mount_kind;
    let level = if policy.mounts.move_.contains(&kind) {
        // Measurements decide `move` when there are any: a tiny repository on a slow mount
        // deserves a nudge, not an alarm.
        if measured { Level::Advise } else { Level::Move }
    } else if policy.mounts.advise.contains(&kind) {
        Level::Advise
    } else {
        return None;
    };
    Some(Reason {
        level,
        rule: Rule::MountKind,
        message: Said(Why::OnMount { mount_kind: kind }),
    })
}

/// On WSL 1 even the Linux disk is NTFS underneath, so a slow `git status` there has no faster
/// disk to compare with; its absolute cost is the measurement that supports moving to WSL 2.
fn wsl1_reason(
    thresholds: &Thresholds,
    observations: &Observations,
    reasons: &[Reason],
) -> Option<Reason> {
    let predicted = observations.git_status_ms?;
    let slow = predicted.current >= thresholds.advise_git_status_ms;
    let judged = reasons.iter().any(|r| r.level > Level::Ok);
    (observations.context.wsl_version == Some(1) && slow && !judged).then_some(Reason {
        level: Level::Advise,
        rule: Rule::Wsl1,
        message: Said(Why::Wsl1 {
            git_status_ms: predicted.current,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{observations, with_git_status};
    use super::*;
    use crate::decide::advice::AdviceId;
    use crate::decide::observations::Context;
    use crate::host::mounts::MountKind;
    use std::path::PathBuf;

    #[test]
    fn local_fast_repository_is_ok() {
        let verdict = evaluate(
            &Policy::default(),
            &with_git_status(MountKind::Local, 6.0, 5.0),
        );
        assert_eq!(verdict.level, Level::Ok);
        assert!(verdict.reasons.is_empty());
        assert!(verdict.advice.is_empty());
    }

    #[test]
    fn published_9p_figures_mean_move() {
        let verdict = evaluate(
            &Policy::default(),
            &with_git_status(MountKind::WslDrvfs9p, 950.97, 5.28),
        );
        assert_eq!(verdict.level, Level::Move);
        let rules: Vec<_> = verdict.reasons.iter().map(|r| r.rule).collect();
        assert_eq!(rules, vec![Rule::MountKind, Rule::GitStatus]);
        assert!(
            matches!(verdict.reasons[1].message.0, Why::Predicted { speedup, .. } if (speedup - 180.1).abs() < 0.1),
            "{:?}",
            verdict.reasons
        );
    }

    #[test]
    fn small_repository_on_9p_is_only_advised() {
        let verdict = evaluate(
            &Policy::default(),
            &with_git_status(MountKind::WslDrvfs9p, 40.0, 2.0),
        );
        assert_eq!(verdict.level, Level::Advise);
    }

    #[test]
    fn without_measurements_the_mount_kind_decides() {
        let policy = Policy::default();
        assert_eq!(
            evaluate(&policy, &observations(MountKind::WslDrvfs9p)).level,
            Level::Move
        );
        assert_eq!(
            evaluate(&policy, &observations(MountKind::Network)).level,
            Level::Advise
        );
        assert_eq!(
            evaluate(&policy, &observations(MountKind::Local)).level,
            Level::Ok
        );
    }

    #[test]
    fn slow_measurement_on_an_acceptable_kind_still_advises() {
        // An overloaded local disk measured slow compared with the baseline.
        let verdict = evaluate(
            &Policy::default(),
            &with_git_status(MountKind::Local, 300.0, 20.0),
        );
        assert_eq!(verdict.level, Level::Advise);
        assert_eq!(verdict.reasons[0].rule, Rule::GitStatus);
    }

    #[test]
    fn slow_install_alone_can_mean_move() {
        let obs = Observations {
            install_ms: Some(Compared::exact(400_000.0, 9_000.0)),
            ..observations(MountKind::Local)
        };
        let verdict = evaluate(&Policy::default(), &obs);
        assert_eq!(verdict.level, Level::Move);
        assert_eq!(verdict.reasons[0].rule, Rule::Install);
    }

    #[test]
    fn wsl1_slow_status_on_its_own_disk_advises_wsl2() {
        // On lxfs the baseline is the same mount: no ratio, but the absolute cost counts.
        let obs = Observations {
            baseline_problem: Some(crate::measure::probe::NoBaseline::NotProbed),
            context: Context {
                wsl_version: Some(1),
                ..Context::default()
            },
            ..with_git_status(MountKind::Wsl1Lxfs, 400.0, 400.0)
        };
        let verdict = evaluate(&Policy::default(), &obs);
        assert_eq!(verdict.level, Level::Advise);
        assert_eq!(verdict.reasons[0].rule, Rule::Wsl1);
        assert_eq!(verdict.advice[0].id, AdviceId::Wsl2);
        let fast = Observations {
            git_status_ms: Some(Compared::exact(40.0, 40.0)),
            ..obs
        };
        assert_eq!(evaluate(&Policy::default(), &fast).level, Level::Ok);
    }

    #[test]
    fn tuning_advice_comes_with_an_ok_verdict() {
        let obs = Observations {
            tracked: Some(20_000),
            context: Context {
                git_version: crate::host::git::version::GitVersion::parse("git version 2.55.0"),
                ..Context::default()
            },
            ..with_git_status(MountKind::Local, 30.0, 30.0)
        };
        let verdict = evaluate(&Policy::default(), &obs);
        assert_eq!(verdict.level, Level::Ok);
        let ids: Vec<_> = verdict.advice.iter().map(|a| a.id).collect();
        assert_eq!(ids, vec![AdviceId::Fsmonitor]);
        let mut policy = Policy::default();
        policy.git.fsmonitor_min_tracked = 50_000;
        assert!(evaluate(&policy, &obs).advice.is_empty());
    }

    #[test]
    fn unusable_baseline_means_no_ratio_verdict() {
        let obs = Observations {
            baseline_problem: Some(crate::measure::probe::NoBaseline::Memory {
                folder: "/tmp".into(),
            }),
            ..with_git_status(MountKind::Local, 2000.0, 5.0)
        };
        assert_eq!(evaluate(&Policy::default(), &obs).level, Level::Ok);
    }

    #[test]
    fn ignored_paths_are_ok() {
        let mut policy = Policy::default();
        policy.paths.ignore = vec!["/mnt/c/src/**".into(), "~/scratch/*".into()];
        let verdict = evaluate(&policy, &with_git_status(MountKind::WslDrvfs9p, 950.0, 5.0));
        assert_eq!(verdict.level, Level::Ok);
        assert_eq!(verdict.reasons[0].rule, Rule::Ignored);
        let home_obs = Observations {
            path: PathBuf::from("/home/me/scratch/app"),
            ..observations(MountKind::Network)
        };
        assert_eq!(evaluate(&policy, &home_obs).level, Level::Ok);
        let other = Observations {
            path: PathBuf::from("/home/me/scratch/app/deeper"),
            ..observations(MountKind::Network)
        };
        assert_eq!(evaluate(&policy, &other).level, Level::Advise);
    }

    #[test]
    fn windows_primary_keeps_a_repository_on_a_windows_drive_only() {
        let obs = with_git_status(MountKind::WslDrvfs9p, 950.0, 5.0);
        let mut policy = Policy::parse("primary = \"windows\"\n", "repo").unwrap();
        let verdict = evaluate(&policy, &obs);
        assert_eq!(verdict.level, Level::Ok);
        assert_eq!(verdict.reasons[0].rule, Rule::WindowsPrimary);
        assert_eq!(
            verdict.reasons[0].message.0,
            Why::KeptOnWindows {
                by: super::super::WindowsChoice::Primary
            }
        );
        // On the Linux disk the setting has nothing to keep: the usual rules judge.
        let local = evaluate(&policy, &observations(MountKind::Local));
        assert_ne!(
            local.reasons.first().map(|r| r.rule),
            Some(Rule::WindowsPrimary)
        );
        // A person's own policy names the folders instead.
        policy = Policy::default();
        policy.paths.windows_primary = vec!["/mnt/c/src/*".into()];
        assert_eq!(
            evaluate(&policy, &obs).reasons[0].rule,
            Rule::WindowsPrimary
        );
        policy.paths.windows_primary = vec!["/mnt/d/**".into()];
        assert_eq!(evaluate(&policy, &obs).level, Level::Move);
        assert!(Policy::parse("primary = \"mac\"\n", "repo").is_err());
    }

    #[test]
    fn strict_policy_moves_what_default_advises() {
        let strict =
            Policy::parse(include_str!("../../../policies/strict.toml"), "strict").unwrap();
        let obs = with_git_status(MountKind::WslDrvfsVirtiofs, 300.0, 10.0);
        assert_eq!(evaluate(&Policy::default(), &obs).level, Level::Advise);
        assert_eq!(evaluate(&strict, &obs).level, Level::Move);
    }

    /// A first look (its figures within `FIRST_LOOK_SPREAD`) several times past the move
    /// threshold supports `move` across its range; one 3% past it reaches down to `advise`,
    /// so it is not sure enough to block a commit (the advisory's `blocks`). Fixture figures:
    /// the same claim on a live mount depended on the machine's load.
    #[test]
    fn a_first_look_blocks_only_when_its_whole_range_is_past_the_threshold() {
        let first_look = |current: f64, move_ms: f64| {
            let mut policy = Policy::default();
            policy.thresholds.move_git_status_ms = move_ms;
            let observed = Observations {
                git_status_ms: Some(Compared::exact(current, 3.0).as_first_look()),
                ..with_git_status(MountKind::Fuse, current, 3.0)
            };
            evaluate(&policy, &observed)
        };
        let clear = first_look(700.0, 200.0);
        assert_eq!((clear.level, clear.levels), (Level::Move, [Level::Move; 2]));
        let close = first_look(700.0, 700.0 / 1.03);
        assert_eq!(close.level, Level::Move);
        assert_eq!(close.levels, [Level::Advise, Level::Move]);
    }

    /// A first look whose Linux-disk reference read 80 ms instead of 3 ms: its speedup is 9x
    /// (below `move_speedup`) with a wide range, but the figure here is several times past
    /// `move`, so it decides. On one disk (about 1x) size alone never moves a repository.
    #[test]
    fn a_slow_reference_does_not_talk_down_a_clear_figure_here() {
        let judged = |current: f64, baseline: f64| {
            let mut policy = Policy::default();
            policy.thresholds.move_git_status_ms = 200.0;
            let observed = Observations {
                git_status_ms: Some(Compared::exact(current, baseline).as_first_look()),
                ..with_git_status(MountKind::Fuse, current, baseline)
            };
            evaluate(&policy, &observed)
        };
        let noisy = judged(720.0, 80.0);
        assert_eq!((noisy.level, noisy.levels), (Level::Move, [Level::Move; 2]));
        // Only twice past `move`: the speedup's range still weighs.
        assert_ne!(judged(400.0, 80.0).levels, [Level::Move; 2]);
        // The same disk: nothing faster to move to.
        assert_ne!(judged(5000.0, 5000.0).level, Level::Move);
    }
}
