//! Policies: the thresholds that turn measurements into a verdict, and the verdict itself.
//!
//! Loading is text in, `Policy` out; evaluation is `Observations` in, `Verdict` out. Neither touches
//! the file system, so both are tested on fixed values.

use crate::base::units;
use crate::decide::advice::{self, Advice};
pub use crate::decide::observations::Observations;
use crate::host::mounts::MountKind;
use crate::model::{Compared, Figure};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// The policy built into the binary; also shipped as `policies/default.toml`.
pub const DEFAULT_POLICY: &str = include_str!("../../policies/default.toml");
/// The name of a repository's own policy file, at its root.
pub const REPOSITORY_POLICY: &str = ".wsl-place.toml";

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Thresholds {
    pub advise_git_status_ms: f64,
    pub advise_speedup: f64,
    pub move_git_status_ms: f64,
    pub move_speedup: f64,
    pub advise_install_ms: f64,
    pub move_install_ms: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self {
            advise_git_status_ms: 150.0,
            advise_speedup: 4.0,
            move_git_status_ms: 800.0,
            move_speedup: 20.0,
            advise_install_ms: 30_000.0,
            move_install_ms: 120_000.0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Mounts {
    pub acceptable: Vec<MountKind>,
    pub advise: Vec<MountKind>,
    #[serde(rename = "move")]
    pub move_: Vec<MountKind>,
}

impl Default for Mounts {
    fn default() -> Self {
        use MountKind::*;
        Self {
            acceptable: vec![Local, Tmpfs, Overlay, Wsl1Lxfs, Other],
            advise: vec![WslDrvfsVirtiofs, Network, Fuse],
            move_: vec![WslDrvfs9p, Wsl1Drvfs],
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Paths {
    pub ignore: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Advisory {
    pub max_age_hours: f64,
}

impl Default for Advisory {
    fn default() -> Self {
        Self {
            max_age_hours: 168.0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Migrate {
    pub destination: String,
}

impl Default for Migrate {
    fn default() -> Self {
        Self {
            destination: "~/src".to_string(),
        }
    }
}

/// Git settings the advice depends on.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Git {
    /// Tracked files from which git's fsmonitor daemon is advised on the Linux disk (git >= 2.55).
    pub fsmonitor_min_tracked: u64,
}

impl Default for Git {
    fn default() -> Self {
        Self {
            fsmonitor_min_tracked: 10_000,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Policy {
    pub thresholds: Thresholds,
    pub mounts: Mounts,
    pub git: Git,
    pub paths: Paths,
    pub advisory: Advisory,
    pub migrate: Migrate,
}

/// A policy file that could not be used, with where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub key: Option<String>,
    pub message: String,
    pub suggestion: Option<String>,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Line 0: the key was left to its default, so there is no place in the file to show.
        if self.line == 0 {
            write!(f, "{}: ", self.file)?;
        } else {
            write!(f, "{}:{}:{}: ", self.file, self.line, self.column)?;
        }
        if let Some(key) = &self.key {
            write!(f, "key `{key}`: ")?;
        }
        write!(f, "{}", self.message)?;
        if let Some(suggestion) = &self.suggestion {
            write!(f, "; did you mean `{suggestion}`?")?;
        } else {
            write!(f, "; fix the policy file and try again.")?;
        }
        Ok(())
    }
}

/// Where a policy came from, for the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "path", rename_all = "kebab-case")]
pub enum PolicySource {
    BuiltIn,
    File(#[serde(with = "crate::base::pathtext::json")] PathBuf),
    Repository(#[serde(with = "crate::base::pathtext::json")] PathBuf),
}

impl Thresholds {
    /// Values that are not positive numbers, and `advise` levels above their `move` levels.
    fn problems(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        let t = self;
        let pairs = [
            (
                "advise_git_status_ms",
                t.advise_git_status_ms,
                "move_git_status_ms",
                t.move_git_status_ms,
                0.0,
            ),
            (
                "advise_speedup",
                t.advise_speedup,
                "move_speedup",
                t.move_speedup,
                1.0,
            ),
            (
                "advise_install_ms",
                t.advise_install_ms,
                "move_install_ms",
                t.move_install_ms,
                0.0,
            ),
        ];
        for (advise_key, advise, move_key, move_, floor) in pairs {
            for (key, value) in [(advise_key, advise), (move_key, move_)] {
                if !value.is_finite() || value <= 0.0 || value < floor {
                    let wanted = if floor > 0.0 {
                        format!("a number of at least {floor}")
                    } else {
                        "a positive number".to_string()
                    };
                    problems.push(Problem::at(
                        &["thresholds", key],
                        None,
                        format!("must be {wanted}, not {value}"),
                    ));
                }
            }
            if advise.is_finite() && move_.is_finite() && advise > move_ {
                problems.push(Problem {
                    // Shown at whichever of the two keys the file sets.
                    also: Some(vec!["thresholds", move_key]),
                    ..Problem::at(
                        &["thresholds", advise_key],
                        None,
                        format!("`{advise_key}` ({advise}) is above `{move_key}` ({move_}), so `move` would come before `advise`"),
                    )
                });
            }
        }
        problems
    }
}

impl Policy {
    /// Parses and validates a policy; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Self, PolicyError> {
        let policy: Self = toml::from_str(text).map_err(|e| describe_toml_error(&e, text, file))?;
        match policy.problems().into_iter().next() {
            None => Ok(policy),
            Some(problem) => Err(problem.locate(text, file)),
        }
    }

    pub fn built_in() -> Self {
        // The embedded file is checked by a unit test to parse to exactly `Policy::default()`.
        Self::default()
    }

    /// The folder `migrate` puts repositories in (`<root>/<name>`): `~` is the home directory and
    /// a relative destination is relative to it too, never to wherever the command was started.
    pub fn migrate_root(&self, home: Option<&Path>) -> Option<PathBuf> {
        let destination = &self.migrate.destination;
        if Path::new(destination).is_absolute() {
            return Some(PathBuf::from(destination));
        }
        let rest = destination
            .strip_prefix('~')
            .unwrap_or(destination)
            .trim_start_matches('/');
        Some(home?.join(rest))
    }

    fn is_ignored(&self, path: &Path, home: Option<&Path>) -> bool {
        let mut builder = globset::GlobSetBuilder::new();
        for pattern in &self.paths.ignore {
            let Some(expanded) = expand_home(pattern, home) else {
                continue;
            };
            if let Ok(glob) = globset::GlobBuilder::new(&expanded.to_string_lossy())
                .literal_separator(true)
                .build()
            {
                builder.add(glob);
            }
        }
        builder.build().is_ok_and(|set| set.is_match(path))
    }

    /// What parsing cannot check: values that would silently disable a rule or contradict another.
    fn problems(&self) -> Vec<Problem> {
        let mut problems = self.thresholds.problems();
        problems.extend(self.other_problems());
        problems
    }

    fn other_problems(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        let age = self.advisory.max_age_hours;
        if !age.is_finite() || age < 0.0 {
            problems.push(Problem::at(
                &["advisory", "max_age_hours"],
                None,
                format!("must be zero or a positive number of hours, not {age}"),
            ));
        }
        let lists = [
            ("acceptable", &self.mounts.acceptable),
            ("advise", &self.mounts.advise),
            ("move", &self.mounts.move_),
        ];
        for (i, (first, kinds)) in lists.iter().enumerate() {
            for (second, others) in &lists[i + 1..] {
                if let Some(kind) = kinds.iter().find(|k| others.contains(k)) {
                    problems.push(Problem::at(
                        &["mounts", second],
                        None,
                        format!("\"{kind}\" is also in `mounts.{first}`; a mount kind belongs to one list"),
                    ));
                }
            }
        }
        for (index, pattern) in self.paths.ignore.iter().enumerate() {
            if let Err(e) = globset::Glob::new(pattern) {
                problems.push(Problem::at(
                    &["paths", "ignore"],
                    Some(index),
                    format!("{pattern:?} is not a valid glob: {}", e.kind()),
                ));
            }
        }
        let destination = &self.migrate.destination;
        if destination.trim().is_empty() {
            problems.push(Problem::at(
                &["migrate", "destination"],
                None,
                "is empty".to_string(),
            ));
        } else if destination.starts_with('~')
            && !(destination == "~" || destination.starts_with("~/"))
        {
            problems.push(Problem::at(
                &["migrate", "destination"],
                None,
                format!("{destination:?} names another user's home, which is not supported; write the absolute path"),
            ));
        }
        problems
    }
}

/// A value that parsed but cannot be used: which key (and array element), and why.
struct Problem {
    key: Vec<&'static str>,
    /// Another key the problem may be shown at, when `key` is not in the file.
    also: Option<Vec<&'static str>>,
    element: Option<usize>,
    message: String,
}

impl Problem {
    fn at(key: &[&'static str], element: Option<usize>, message: String) -> Self {
        Self {
            key: key.to_vec(),
            also: None,
            element,
            message,
        }
    }

    /// Finds the key's line and column in `text`; a key left to its default has none.
    fn locate(mut self, text: &str, file: &str) -> PolicyError {
        let mut found = self.span_in(text, &self.key);
        if found.is_none()
            && let Some(also) = self.also.take()
        {
            found = self.span_in(text, &also);
            if found.is_some() {
                self.key = also;
            }
        }
        let (line, column) = found.map_or((0, 0), |span| line_and_column(text, span.start));
        PolicyError {
            file: file.to_string(),
            line,
            column,
            key: Some(self.key.join(".")),
            message: self.message,
            suggestion: None,
        }
    }

    fn span_in(&self, text: &str, key: &[&str]) -> Option<std::ops::Range<usize>> {
        toml::de::DeTable::parse(text).ok().and_then(|document| {
            let (last, sections) = key.split_last()?;
            let mut table = document.get_ref();
            for section in sections {
                match lookup(table, section)?.get_ref() {
                    toml::de::DeValue::Table(inner) => table = inner,
                    _ => return None,
                }
            }
            let value = lookup(table, last)?;
            match (self.element, value.get_ref()) {
                (Some(index), toml::de::DeValue::Array(items)) => {
                    items.get(index).map(|item| item.span())
                }
                _ => Some(value.span()),
            }
        })
    }
}

fn lookup<'a, 'i>(
    table: &'a toml::de::DeTable<'i>,
    key: &str,
) -> Option<&'a toml::Spanned<toml::de::DeValue<'i>>> {
    table
        .iter()
        .find(|(name, _)| name.get_ref() == key)
        .map(|(_, value)| value)
}

/// Chooses and reads the policy: `--policy FILE`, else the repository's `.wsl-place.toml`, else
/// the built-in one. Files are read as untrusted input (see [`crate::base::input`]).
pub fn load(
    explicit: Option<&Path>,
    repository_root: &Path,
) -> crate::base::error::Result<(Policy, PolicySource)> {
    let (path, source) = match explicit {
        Some(path) => (path.to_path_buf(), PolicySource::File(path.to_path_buf())),
        None => {
            let path = repository_root.join(REPOSITORY_POLICY);
            if std::fs::symlink_metadata(&path).is_err() {
                return Ok((Policy::built_in(), PolicySource::BuiltIn));
            }
            (path.clone(), PolicySource::Repository(path))
        }
    };
    let text =
        crate::base::input::read_text(&path, crate::base::input::POLICY_LIMIT, "policy file")?;
    let policy = Policy::parse(&text, &path.display().to_string())
        .map_err(|e| crate::base::error::Failure::input(e.to_string()))?;
    Ok((policy, source))
}

fn expand_home(pattern: &str, home: Option<&Path>) -> Option<PathBuf> {
    match pattern.strip_prefix('~') {
        Some(rest) => {
            let home = home?;
            Some(home.join(rest.trim_start_matches('/')))
        }
        None => Some(PathBuf::from(pattern)),
    }
}

fn describe_toml_error(error: &toml::de::Error, text: &str, file: &str) -> PolicyError {
    let (line, column) = error
        .span()
        .map(|span| line_and_column(text, span.start))
        .unwrap_or((0, 0));
    let message = error.message().trim().to_string();
    let line_text = text.lines().nth(line.saturating_sub(1)).unwrap_or_default();
    let key = line_text
        .split_once('=')
        .map(|(k, _)| k.trim().trim_matches('"').to_string())
        .filter(|k| !k.is_empty() && !k.starts_with('['));
    let suggestion = unknown_field_suggestion(&message);
    PolicyError {
        file: file.to_string(),
        line,
        column,
        key,
        message,
        suggestion,
    }
}

fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rfind('\n')
        .map_or(before.len(), |nl| before.len() - nl - 1)
        + 1;
    (line, column)
}

/// serde says "unknown field `x`, expected `a`, `b` or `c`": pick the expected key nearest to `x`.
fn unknown_field_suggestion(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    let (unknown, expected) = rest.split_once('`')?;
    expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|candidate| (edit_distance(unknown, candidate), candidate))
        .filter(|(distance, candidate)| *distance <= candidate.len().max(unknown.len()) / 2 + 1)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate.to_string())
}

/// Levenshtein distance; short keys only, so the quadratic table is fine.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

/// The levels of a verdict, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    Ok,
    Advise,
    Move,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Ok => "ok",
            Level::Advise => "advise",
            Level::Move => "move",
        }
    }
}

/// Which rule gave a reason: a stable identifier for scripts, in JSON the kebab-case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    MountKind,
    GitStatus,
    Install,
    Wsl1,
    Ignored,
    /// The last verdict, kept because this run's ranges still support it.
    Kept,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reason {
    pub level: Level,
    pub rule: Rule,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub level: Level,
    pub reasons: Vec<Reason>,
    pub advice: Vec<Advice>,
    /// `firm` when every figure's whole range gives the same level; `near-threshold` when the
    /// ranges straddle a threshold (then `levels` holds more than one level).
    pub confidence: Confidence,
    /// The lowest and highest level the ranges of the predictions support.
    pub levels: [Level; 2],
    /// The level is the previous check's, kept because this run's ranges still support it:
    /// noise does not flip a verdict.
    pub kept_previous: bool,
    /// From the hook's short cold measurement: replaced by the next full `check`, and never
    /// fails a run under `--fail-on`.
    pub provisional: bool,
    /// The predictions of the last checks here, this one last (at most `RECENT_CHECKS`): the
    /// verdict weighs their medians, so one run caught in a stall does not decide it.
    pub recent: Vec<Recent>,
}

/// How many checks' predictions a verdict weighs.
pub const RECENT_CHECKS: usize = 5;

/// One check's predictions as a verdict weighs them: `[here, on the baseline]`, milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Recent {
    pub git_status_ms: Option<[f64; 2]>,
    pub install_ms: Option<[f64; 2]>,
}

impl Recent {
    fn of(observations: &Observations) -> Self {
        let pair = |c: &Compared| c.baseline.map(|b| [c.current, b]);
        Self {
            git_status_ms: observations.git_status_ms.as_ref().and_then(pair),
            install_ms: observations.install_ms.as_ref().and_then(pair),
        }
    }
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
    if recent.len() < 2 {
        return *predicted;
    }
    let baseline_error = predicted
        .baseline_range
        .map_or(predicted.error, |[_, high]| high / baseline - 1.0);
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
fn weighed(observations: &Observations, recent: &[Recent]) -> Observations {
    let over = |mine: &Option<Compared>, pick: fn(&Recent) -> Option<[f64; 2]>| {
        let points: Vec<[f64; 2]> = recent.iter().filter_map(pick).collect();
        mine.as_ref().map(|c| steadied(c, &points))
    };
    Observations {
        git_status_ms: over(&observations.git_status_ms, |r| r.git_status_ms),
        install_ms: over(&observations.install_ms, |r| r.install_ms),
        ..observations.clone()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Confidence {
    Firm,
    NearThreshold,
}

impl Confidence {
    /// Firm when the lowest and highest supported levels are the same.
    fn of([low, high]: [Level; 2]) -> Self {
        if low == high {
            Confidence::Firm
        } else {
            Confidence::NearThreshold
        }
    }
}

impl Verdict {
    fn plain(level: Level, reasons: Vec<Reason>, advice: Vec<Advice>) -> Self {
        Self {
            level,
            reasons,
            advice,
            confidence: Confidence::Firm,
            levels: [level, level],
            kept_previous: false,
            provisional: false,
            recent: Vec::new(),
        }
    }
}

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

/// How far past its ranges a prediction must move before the last verdict gives way, as a
/// multiple of their half-widths: back-to-back checks on a busy machine move by about a
/// range's half-width, so a verdict kept only inside the range still flipped now and then.
pub const KEEP_MARGIN: f64 = 1.5;

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
    let at = |k: f64, ks: f64| level_of(predicted.current * k, speedup * ks, t, advise_ms, move_ms);
    [
        at((1.0 - error).max(0.0), (1.0 - speedup_error).max(0.0)),
        at(1.0, 1.0),
        at(1.0 + error, 1.0 + speedup_error),
    ]
}

/// The previous level, when the ranges widened by `KEEP_MARGIN` (`levels`, lowest and
/// highest) support it and the middle of the ranges would say otherwise; the reasons then
/// carry it.
fn keep_previous(
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
        message: format!(
            "the last check said {}; this run's ranges, with their margin, reach from {} to {}, so it stands",
            kept.as_str(),
            low.as_str(),
            high.as_str()
        ),
    });
    Some(kept)
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
    let skip = (previous.recent.len() + 1).saturating_sub(RECENT_CHECKS);
    let recent: Vec<Recent> = previous.recent[skip.min(previous.recent.len())..]
        .iter()
        .copied()
        .chain([Recent::of(observations)])
        .collect();
    let mut verdict = judge(policy, &weighed(observations, &recent), previous.level);
    say_when_steadied(&mut verdict.reasons, &recent);
    Verdict { recent, ..verdict }
}

/// A reason weighed at the medians of several checks says so, or its figures would contradict
/// this run's prediction printed beside it.
fn say_when_steadied(reasons: &mut [Reason], recent: &[Recent]) {
    for reason in reasons {
        let checks = match reason.rule {
            Rule::GitStatus => recent.iter().filter(|r| r.git_status_ms.is_some()).count(),
            Rule::Install => recent.iter().filter(|r| r.install_ms.is_some()).count(),
            _ => continue,
        };
        if checks >= 2 {
            reason
                .message
                .push_str(&format!("; the median of the last {checks} checks here"));
        }
    }
}

fn judge(policy: &Policy, observations: &Observations, previous: Option<Level>) -> Verdict {
    if policy.is_ignored(&observations.path, observations.home.as_deref()) {
        return Verdict::plain(
            Level::Ok,
            vec![Reason {
                level: Level::Ok,
                rule: Rule::Ignored,
                message: format!(
                    "{} matches a `paths.ignore` pattern of the policy",
                    observations.path.display()
                ),
            }],
            Vec::new(),
        );
    }
    let thresholds = &policy.thresholds;
    let mut reasons: Vec<Reason> = kind_reason(policy, observations).into_iter().collect();
    let floor = reasons.first().map_or(Level::Ok, |r| r.level);
    let (mut low, mut high) = (floor, floor);
    let (mut keep_low, mut keep_high) = (floor, floor);
    let mut rate = |rule: Rule, what: &str, predicted: Compared, advise_ms: f64, move_ms: f64| {
        let thresholds_ms = (advise_ms, move_ms);
        let [at_low, level, at_high] = levels_of(&predicted, thresholds, thresholds_ms, 1.0);
        low = low.max(at_low);
        high = high.max(at_high);
        let [wide_low, _, wide_high] =
            levels_of(&predicted, thresholds, thresholds_ms, KEEP_MARGIN);
        keep_low = keep_low.max(wide_low);
        keep_high = keep_high.max(wide_high);
        let (Some(baseline), Some(speedup)) = (predicted.baseline, predicted.speedup) else {
            return;
        };
        if level == Level::Ok {
            return;
        }
        let [lowest, highest] = predicted.current_range;
        reasons.push(Reason {
            level,
            rule,
            message: format!(
                "{what} is predicted at {} ({}-{}) here and {} on the Linux disk ({} faster)",
                units::duration_ms(predicted.current),
                units::duration_ms(lowest),
                units::duration_ms(highest),
                units::duration_ms(baseline),
                units::ratio(speedup)
            ),
        });
    };
    if observations.baseline_problem.is_none() {
        if let Some(predicted) = observations.git_status_ms {
            rate(
                Rule::GitStatus,
                "git status",
                predicted,
                thresholds.advise_git_status_ms,
                thresholds.move_git_status_ms,
            );
        }
        if let Some(predicted) = observations.install_ms {
            rate(
                Rule::Install,
                "reinstalling dependencies",
                predicted,
                thresholds.advise_install_ms,
                thresholds.move_install_ms,
            );
        }
    }
    if let Some(reason) = wsl1_reason(thresholds, observations, &reasons) {
        (low, high) = (low.max(reason.level), high.max(reason.level));
        (keep_low, keep_high) = (keep_low.max(reason.level), keep_high.max(reason.level));
        reasons.push(reason);
    }
    let kept = keep_previous(&mut reasons, [keep_low, keep_high], previous);
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
        confidence: Confidence::of([low, high]),
        levels: [low, high],
        kept_previous: kept.is_some(),
        ..Verdict::plain(level, reasons, advice)
    }
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
        // The kind's identifier is in the JSON (`mount.kind`); the sentence is for people.
        message: format!("the repository is on {}", kind.describe()),
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
    (observations.context.wsl_version == Some(1) && slow && !judged).then(|| Reason {
        level: Level::Advise,
        rule: Rule::Wsl1,
        message: format!(
            "git status is predicted at {} here, and on WSL 1 every Linux file is stored on NTFS; \
             WSL 2 keeps them on ext4",
            units::duration_ms(predicted.current)
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::advice::AdviceId;
    use crate::decide::observations::Context;
    use crate::measure::gitsettings::GitSettings;

    fn observations(kind: MountKind) -> Observations {
        Observations {
            path: PathBuf::from("/mnt/c/src/app"),
            home: Some(PathBuf::from("/home/me")),
            mount_kind: kind,
            wsl: true,
            git_status_ms: None,
            install_ms: None,
            tracked: Some(1000),
            dirs: 100,
            git: Some(GitSettings::default()),
            baseline_problem: None,
            context: Context::default(),
        }
    }

    fn with_git_status(kind: MountKind, current: f64, baseline: f64) -> Observations {
        Observations {
            git_status_ms: Some(Compared::exact(current, baseline)),
            ..observations(kind)
        }
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
        assert!(reason.message.contains("910 ms"), "{}", reason.message);
        assert!(
            reason
                .message
                .ends_with("; the median of the last 5 checks here"),
            "{}",
            reason.message
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
            alone.reasons.iter().all(|r| !r.message.contains("median")),
            "{:?}",
            alone.reasons
        );
        assert_eq!(
            (alone.level, alone.confidence),
            (Level::Move, Confidence::Firm)
        );
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
    fn embedded_default_policy_is_the_default() {
        let parsed = Policy::parse(DEFAULT_POLICY, "policies/default.toml").unwrap();
        assert_eq!(parsed, Policy::default());
    }

    #[test]
    fn example_policies_parse() {
        for (name, text) in [
            ("strict", include_str!("../../policies/strict.toml")),
            ("ci", include_str!("../../policies/ci.toml")),
        ] {
            Policy::parse(text, name).unwrap();
        }
    }

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
            verdict.reasons[1].message.contains("180x"),
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
            baseline_problem: Some("same mount".into()),
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
                git_version: crate::host::GitVersion::parse("git version 2.55.0"),
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
            baseline_problem: Some("the baseline is tmpfs".into()),
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
    fn strict_policy_moves_what_default_advises() {
        let strict = Policy::parse(include_str!("../../policies/strict.toml"), "strict").unwrap();
        let obs = with_git_status(MountKind::WslDrvfsVirtiofs, 300.0, 10.0);
        assert_eq!(evaluate(&Policy::default(), &obs).level, Level::Advise);
        assert_eq!(evaluate(&strict, &obs).level, Level::Move);
    }

    #[test]
    fn unknown_key_names_line_column_and_nearest_key() {
        let text = "[thresholds]\nadvise_git_status = 100\n";
        let err = Policy::parse(text, "team.toml").unwrap_err();
        assert_eq!((err.line, err.column), (2, 1));
        assert_eq!(err.key.as_deref(), Some("advise_git_status"));
        assert_eq!(err.suggestion.as_deref(), Some("advise_git_status_ms"));
        let shown = err.to_string();
        assert!(shown.starts_with("team.toml:2:1: "), "{shown}");
        assert!(
            shown.contains("did you mean `advise_git_status_ms`?"),
            "{shown}"
        );
    }

    #[test]
    fn unknown_section_suggests_the_nearest_section() {
        let err = Policy::parse("[threshold]\n", "p.toml").unwrap_err();
        assert_eq!(err.suggestion.as_deref(), Some("thresholds"));
    }

    #[test]
    fn wrong_type_names_the_key() {
        let err = Policy::parse("[thresholds]\nmove_speedup = \"fast\"\n", "p.toml").unwrap_err();
        assert_eq!(err.line, 2);
        assert_eq!(err.key.as_deref(), Some("move_speedup"));
        assert!(err.message.contains("invalid type"), "{err}");
        let err = Policy::parse("[mounts]\nmove = [\"9p\"]\n", "p.toml").unwrap_err();
        assert_eq!(err.key.as_deref(), Some("move"));
        assert!(err.message.contains("unknown variant"), "{err}");
    }

    #[test]
    fn syntax_error_has_a_position() {
        let err = Policy::parse("[thresholds\n", "p.toml").unwrap_err();
        assert_eq!(err.line, 1);
        assert!(err.column > 1);
    }

    #[test]
    fn integers_are_accepted_for_float_thresholds() {
        let policy = Policy::parse("[thresholds]\nmove_speedup = 10\n", "p.toml").unwrap();
        assert_eq!(policy.thresholds.move_speedup, 10.0);
        assert_eq!(policy.thresholds.advise_speedup, 4.0);
    }

    #[test]
    fn migrate_root_expands_home() {
        let policy = Policy::default();
        assert_eq!(
            policy.migrate_root(Some(Path::new("/home/me"))),
            Some(PathBuf::from("/home/me/src"))
        );
    }

    #[test]
    fn edit_distance_basics() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
