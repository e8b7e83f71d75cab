//! The steady state of a verdict: each prediction weighed at the medians of the last checks
//! here, and the last verdict kept while this run's ranges (with a margin) still support it, so
//! that noise and one stalled run do not flip it.

use super::verdict::{Level, Reason, Recent, Rule, Weighed, Why};
use crate::base::reason::Said;
use crate::decide::observations::Observations;
use crate::model::{Compared, Figure};

/// How many checks' predictions a verdict weighs.
pub const RECENT_CHECKS: usize = 5;

/// Fewer checks than this give no median: of two, the "median" is their mean, a figure no
/// check measured; the run's own prediction is shown and weighed instead.
pub const MEDIAN_FROM_CHECKS: usize = 3;

impl Recent {
    pub(super) fn of(observations: &Observations) -> Self {
        let pair = |c: &Compared| c.baseline.map(|b| [c.current, b]);
        Self {
            git_status_ms: observations.git_status_ms.as_ref().and_then(pair),
            install_ms: observations.install_ms.as_ref().and_then(pair),
            first_look: false,
        }
    }
}

impl super::verdict::Verdict {
    /// The `[here, on the Linux disk]` figures the verdict weighed for `rule` (git status or
    /// install) and over how many checks: the medians of `recent`, as the reasons give them,
    /// so that every place showing them shows the same numbers.
    pub fn weighed(&self, rule: Rule) -> Option<([f64; 2], usize)> {
        self.weighed
            .iter()
            .find(|w| w.rule == rule)
            .map(|w| ([w.here_ms, w.baseline_ms], w.checks))
    }

    /// `predicted` as the verdict weighed it for `rule` (its figures the medians of the last
    /// checks, its ranges this run's), with how many checks: what a report shows beside the
    /// reasons.
    pub fn shown(&self, rule: Rule, predicted: &Compared) -> (Compared, usize) {
        let points = points(&self.recent, rule);
        (steadied(predicted, &points), points.len().max(1))
    }

    /// Marks this verdict as the hook's first look, its own figures among `recent` too, so
    /// the next full check leaves them out of its median.
    pub fn as_first_look(&mut self) {
        self.provisional = true;
        if let Some(own) = self.recent.last_mut() {
            own.first_look = true;
        }
    }
}

/// The `[here, baseline]` points of `rule` a figure is the median of: every one in `recent`
/// from `MEDIAN_FROM_CHECKS` on, else only the last (this run's), so that a shown figure is
/// either a median of enough checks or a measured one.
fn points(recent: &[Recent], rule: Rule) -> Vec<[f64; 2]> {
    let pick: fn(&Recent) -> Option<[f64; 2]> = match rule {
        Rule::GitStatus => |r| r.git_status_ms,
        Rule::Install => |r| r.install_ms,
        _ => return Vec::new(),
    };
    let mut points: Vec<[f64; 2]> = recent.iter().filter_map(pick).collect();
    if points.len() < MEDIAN_FROM_CHECKS {
        points.drain(..points.len().saturating_sub(1));
    }
    points
}

/// The figures the verdict weighed, per rule: the medians of `recent`.
pub(super) fn weighed_figures(recent: &[Recent]) -> Vec<Weighed> {
    [Rule::GitStatus, Rule::Install]
        .into_iter()
        .filter_map(|rule| {
            let points = points(recent, rule);
            (!points.is_empty()).then(|| Weighed {
                rule,
                here_ms: median(points.iter().map(|p| p[0]).collect()),
                baseline_ms: median(points.iter().map(|p| p[1]).collect()),
                checks: points.len(),
            })
        })
        .collect()
}

/// What the last check for the same place and policy left: its level and the predictions of
/// the checks before it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Previous {
    pub level: Option<Level>,
    pub recent: Vec<Recent>,
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// This run's prediction with its figures replaced by the medians over `recent` (which ends
/// with this run): the ranges stay this run's, as fractions.
fn steadied(predicted: &Compared, recent: &[[f64; 2]]) -> Compared {
    let Some(baseline) = predicted.baseline.filter(|&b| b > 0.0) else {
        return *predicted;
    };
    if recent.len() < MEDIAN_FROM_CHECKS {
        return *predicted;
    }
    let baseline_error = predicted
        .baseline_range
        .map_or(predicted.error, |r| r.high / baseline - 1.0);
    Compared::from_figures(
        Figure {
            value: median(recent.iter().map(|p| p[0]).collect()),
            error: predicted.error,
        },
        Some(Figure {
            value: median(recent.iter().map(|p| p[1]).collect()),
            error: baseline_error,
        }),
        predicted.speedup_error.unwrap_or(predicted.error),
    )
}

/// The observations the verdict weighs: each prediction at the medians of the recent checks.
pub(super) fn weighed(observations: &Observations, recent: &[Recent]) -> Observations {
    let over = |mine: &Option<Compared>, rule: Rule| {
        mine.as_ref().map(|c| steadied(c, &points(recent, rule)))
    };
    Observations {
        git_status_ms: over(&observations.git_status_ms, Rule::GitStatus),
        install_ms: over(&observations.install_ms, Rule::Install),
        ..observations.clone()
    }
}

/// How far past its ranges a prediction must move before the last verdict gives way, as a
/// multiple of their half-widths: back-to-back checks on a busy machine move by about a
/// range's half-width, so a verdict kept only inside the range still flipped now and then.
pub const KEEP_MARGIN: f64 = 1.5;

/// The previous level, when the ranges widened by `KEEP_MARGIN` (`levels`, lowest and
/// highest) support it and the middle of the ranges would say otherwise; the reasons then
/// carry it.
pub(super) fn keep_previous(
    reasons: &mut Vec<Reason>,
    [low, high]: [Level; 2],
    previous: Option<Level>,
) -> Option<Level> {
    let middle = reasons.iter().map(|r| r.level).max().unwrap_or(Level::Ok);
    let kept = previous.filter(|&p| p != middle && p >= low && p <= high)?;
    for reason in reasons.iter_mut() {
        reason.level = reason.level.min(kept);
    }
    reasons.push(Reason {
        level: kept,
        rule: Rule::Kept,
        message: Said(Why::KeptPrevious { kept, low, high }),
    });
    Some(kept)
}

/// A reason weighed at the medians of several checks says so, or its figures would contradict
/// this run's prediction printed beside it.
pub(super) fn say_when_steadied(reasons: &mut [Reason], recent: &[Recent]) {
    for reason in reasons {
        let checks = points(recent, reason.rule).len();
        if checks >= MEDIAN_FROM_CHECKS
            && let Why::Predicted {
                median_of_checks, ..
            } = &mut reason.message.0
        {
            *median_of_checks = Some(checks);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::observations;
    use super::super::rules::{evaluate, evaluate_after, judge};
    use super::super::schema::Policy;
    use super::super::verdict::Confidence;
    use super::*;
    use crate::host::mounts::MountKind;

    fn said_median(reason: &Reason) -> bool {
        matches!(
            reason.message.0,
            Why::Predicted {
                median_of_checks: Some(_),
                ..
            }
        )
    }

    /// `current` ms +-30% against 9 ms, the speedup +-40%.
    #[test]
    fn the_verdict_weighs_the_median_of_recent_checks() {
        let policy = Policy::default();
        let at = |current: f64| Observations {
            git_status_ms: Some(near_threshold(current)),
            ..observations(MountKind::WslDrvfs9p)
        };
        // Four checks around 900 ms, then one caught in a stall at 3 s: the median stays
        // near 900 ms, so the verdict does not jump to a firm reading of the stall.
        let mut previous = Previous::default();
        for current in [900.0, 880.0, 950.0, 910.0] {
            let verdict = evaluate_after(&policy, &at(current), &previous);
            previous = Previous {
                level: Some(verdict.level),
                recent: verdict.recent,
            };
        }
        let stalled = evaluate_after(&policy, &at(3000.0), &previous);
        assert_eq!(stalled.recent.len(), RECENT_CHECKS);
        assert_eq!(stalled.confidence, Confidence::NearThreshold);
        let reason = stalled
            .reasons
            .iter()
            .find(|r| r.rule == Rule::GitStatus)
            .unwrap();
        assert!(
            matches!(
                reason.message.0,
                Why::Predicted {
                    current_ms: 910.0,
                    median_of_checks: Some(5),
                    ..
                }
            ),
            "{:?}",
            reason.message
        );
        // Every report shows these medians: the figures weighed, and the shown prediction.
        assert_eq!(stalled.weighed(Rule::GitStatus), Some(([910.0, 9.0], 5)));
        let (shown, checks) = stalled.shown(Rule::GitStatus, &near_threshold(3000.0));
        assert_eq!(
            (shown.current, shown.baseline, checks),
            (910.0, Some(9.0), 5)
        );
        // Only the last RECENT_CHECKS are kept.
        let next = Previous {
            level: Some(stalled.level),
            recent: stalled.recent,
        };
        assert_eq!(
            evaluate_after(&policy, &at(900.0), &next).recent.len(),
            RECENT_CHECKS
        );
        // With no history the run's own figures decide.
        let alone = evaluate_after(&policy, &at(3000.0), &Previous::default());
        assert!(
            alone.reasons.iter().all(|r| !said_median(r)),
            "{:?}",
            alone.reasons
        );
        assert_eq!(
            (alone.level, alone.confidence),
            (Level::Move, Confidence::Firm)
        );
        assert_eq!(alone.weighed(Rule::GitStatus), Some(([3000.0, 9.0], 1)));
    }

    fn near_threshold(current: f64) -> Compared {
        use crate::model::Figure;
        Compared::from_figures(
            Figure {
                value: current,
                error: 0.3,
            },
            Some(Figure {
                value: 9.0,
                error: 0.3,
            }),
            0.4,
        )
    }

    #[test]
    fn a_range_across_a_threshold_keeps_the_last_verdict_and_says_so() {
        let policy = Policy::default();
        // 900 ms, +-30%: the range (630-1170 ms) straddles the 800 ms move threshold.
        let near = Observations {
            git_status_ms: Some(near_threshold(900.0)),
            ..observations(MountKind::WslDrvfs9p)
        };
        let first = evaluate(&policy, &near);
        assert_eq!(first.level, Level::Move);
        assert_eq!(first.confidence, Confidence::NearThreshold);
        assert_eq!(first.levels, [Level::Advise, Level::Move]);
        // A later run a little below the threshold keeps `move`; one from `advise` keeps that.
        let below = Observations {
            git_status_ms: Some(near_threshold(780.0)),
            ..near.clone()
        };
        let kept = judge(&policy, &below, Some(Level::Move));
        assert_eq!((kept.level, kept.kept_previous), (Level::Move, true));
        assert!(kept.reasons.iter().any(|r| r.rule == Rule::Kept));
        assert_eq!(
            judge(&policy, &near, Some(Level::Advise)).level,
            Level::Advise
        );
        // Within the margin past the range (640 ms +-20% ends at 768 ms; with the margin at
        // 832 ms) the last verdict still stands, though the range alone is all `advise`.
        let just_past = Observations {
            git_status_ms: Some(Compared::from_figures(
                crate::model::Figure {
                    value: 640.0,
                    error: 0.2,
                },
                Some(crate::model::Figure {
                    value: 9.0,
                    error: 0.2,
                }),
                0.3,
            )),
            ..near.clone()
        };
        let plain = evaluate(&policy, &just_past);
        assert_eq!(
            (plain.level, plain.levels),
            (Level::Advise, [Level::Advise, Level::Advise])
        );
        let kept = judge(&policy, &just_past, Some(Level::Move));
        assert_eq!((kept.level, kept.kept_previous), (Level::Move, true));
        // A previous level the range does not support is not kept.
        let far = Observations {
            git_status_ms: Some(near_threshold(5000.0)),
            ..near.clone()
        };
        let moved = judge(&policy, &far, Some(Level::Advise));
        assert_eq!((moved.level, moved.kept_previous), (Level::Move, false));
        assert_eq!(moved.confidence, Confidence::Firm);
    }

    #[test]
    fn a_first_look_is_left_out_and_two_checks_make_no_median() {
        let policy = Policy::default();
        let at = |current: f64| Observations {
            git_status_ms: Some(near_threshold(current)),
            ..observations(MountKind::WslDrvfs9p)
        };
        let mut look = evaluate_after(&policy, &at(41_000.0), &Previous::default());
        look.as_first_look();
        assert!(look.provisional && look.recent[0].first_look);
        let after = |verdict: &super::super::verdict::Verdict| Previous {
            level: Some(verdict.level),
            recent: verdict.recent.clone(),
        };
        // The first full check: its own 119 s, not 80 s.
        let full = evaluate_after(&policy, &at(119_000.0), &after(&look));
        assert_eq!(full.recent.len(), 1);
        assert_eq!(full.weighed(Rule::GitStatus), Some(([119_000.0, 9.0], 1)));
        // Two full checks: still this run's figure, said without "median".
        let second = evaluate_after(&policy, &at(100_000.0), &after(&full));
        assert_eq!(second.weighed(Rule::GitStatus), Some(([100_000.0, 9.0], 1)));
        assert!(second.reasons.iter().all(|r| !said_median(r)));
        // Three: their median.
        let third = evaluate_after(&policy, &at(130_000.0), &after(&second));
        assert_eq!(third.weighed(Rule::GitStatus), Some(([119_000.0, 9.0], 3)));
    }
}
