//! The uncertainty arithmetic: a prediction on both mounts with the ranges its samples and the
//! model's own fit support, and the speedup between them.

use super::costs::MountCosts;
use serde::Serialize;

/// How far each prediction may be off by the model's own fit, as a fraction (the accuracy
/// bench's worst errors, rounded up): the model part of a prediction's range.
pub const GIT_STATUS_FIT_ERROR: f64 = 0.2;
pub const FIRST_STATUS_FIT_ERROR: f64 = 0.25;
pub const INSTALL_FIT_ERROR: f64 = 0.25;
pub const CHECKOUT_FIT_ERROR: f64 = 0.35;
/// The hook's first look (a short, cold measurement) varies this much from one cold run to the
/// next (bench/first-look-spread.sh: 20 cold runs on a 400-file repository on slowfs drvfs-9p
/// scale 1 came within -2.2% and +5.5% of their median, 1.26 s; rounded up for a busier
/// machine): its `git status` range is this wide, no wider (docs/accuracy.md).
pub const FIRST_LOOK_SPREAD: f64 = 0.10;
/// The same runs' speedups (the Linux disk's few-millisecond figure varies most) came within
/// -80% and +15% of their median: the first look's speedup range is at most this wide.
pub const FIRST_LOOK_SPEEDUP_SPREAD: f64 = 0.8;

/// One prediction on both mounts, with the range the samples and the model's fit support.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Compared {
    pub current: f64,
    pub baseline: Option<f64>,
    /// current / baseline: how many times faster the baseline is; None without a positive
    /// baseline figure, which no ratio can be taken from.
    pub speedup: Option<f64>,
    /// [low, high] of `current`, `baseline` and `speedup`.
    pub current_range: Range,
    pub baseline_range: Option<Range>,
    pub speedup_range: Option<Range>,
    /// Half-widths of the current and speedup ranges, as fractions of the values.
    pub error: f64,
    pub speedup_error: Option<f64>,
}

/// A figure's range. Its low end is left out (`None`, null in JSON) where the error would put
/// it below a tenth of the figure: a range reaching down to zero ("0.0 µs-8.4 ms", what a noisy
/// probe of a fast local disk gives) says nothing a person can use, while its high end still
/// says how bad it may be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    pub low: Option<f64>,
    pub high: f64,
}

/// Below this share of the figure a range's low end is not given.
const LOWEST_SHOWN_SHARE: f64 = 0.1;

impl Range {
    fn of(value: f64, error: f64) -> Self {
        Self {
            low: (1.0 - error >= LOWEST_SHOWN_SHARE).then_some(value * (1.0 - error)),
            high: value * (1.0 + error),
        }
    }
}

/// Stays `[low, high]` in JSON, as it was, with a null low end where there is none.
impl Serialize for Range {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (self.low, self.high).serialize(serializer)
    }
}

fn range(value: f64, error: f64) -> Range {
    Range::of(value, error)
}

/// A figure and the half-width of its range, as a fraction of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figure {
    pub value: f64,
    pub error: f64,
}

impl Compared {
    /// `fit` is the model's own error for this prediction; each side adds its sampling error.
    pub(super) fn new(
        current: (f64, &MountCosts),
        baseline: Option<(f64, &MountCosts)>,
        fit: f64,
    ) -> Self {
        // Both sides share the model's structure; what differs between them is their samples.
        let speedup_error = baseline.map_or(0.0, |(_, c)| {
            fit.hypot(current.1.sampling_error).hypot(c.sampling_error)
        });
        Self::from_figures(
            Figure {
                value: current.0,
                error: fit.hypot(current.1.sampling_error),
            },
            baseline.map(|(b, c)| Figure {
                value: b,
                error: fit.hypot(c.sampling_error),
            }),
            speedup_error,
        )
    }

    /// The prediction from its two figures and the speedup's error: the one place the
    /// speedup and the ranges are derived.
    pub fn from_figures(current: Figure, baseline: Option<Figure>, speedup_error: f64) -> Self {
        let speedup = baseline
            .filter(|b| b.value > 0.0)
            .map(|b| current.value / b.value);
        Self {
            current: current.value,
            baseline: baseline.map(|b| b.value),
            speedup,
            current_range: range(current.value, current.error),
            baseline_range: baseline.map(|b| range(b.value, b.error)),
            speedup_range: speedup.map(|s| range(s, speedup_error)),
            error: current.error,
            speedup_error: baseline.map(|_| speedup_error),
        }
    }

    /// The same figures with a first look's ranges: its measured run-to-run spread
    /// (`FIRST_LOOK_SPREAD`), and the speedup's own error capped at its measured spread.
    pub fn as_first_look(&self) -> Self {
        let figure = |value: f64| Figure {
            value,
            error: FIRST_LOOK_SPREAD,
        };
        let speedup_error = self
            .speedup_error
            .unwrap_or(self.error)
            .min(FIRST_LOOK_SPEEDUP_SPREAD);
        Self::from_figures(
            figure(self.current),
            self.baseline.map(figure),
            speedup_error,
        )
    }

    /// Exact figures on both sides (no range): for examples and tests.
    pub fn exact(current: f64, baseline: f64) -> Self {
        let exact = |value| Figure { value, error: 0.0 };
        Self::from_figures(exact(current), Some(exact(baseline)), 0.0)
    }
}
