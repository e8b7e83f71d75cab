//! `check --advisory`: the pre-commit nudge. One line or nothing, in well under a second,
//! by reusing the last result for this repository while its mount and age still match.
//!
//! What replaces what, so a hook's answer is predictable: only a measured `check` (not
//! `--no-probe`) writes the cache, so a full verdict is replaced only by another full one; the
//! hook's short first look is written only where no valid entry is.

use crate::assess::hook_line;
use crate::assess::pipeline::{self, CheckReport};
use crate::base::clock::now_unix;
use crate::base::error::Result;
use crate::decide::policy::{Level, Policy, Previous, Recent};
use crate::host::HostEnv;
use crate::host::location::Location;
use crate::store::{CacheFile, Store};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Budgets for the measurement an advisory run makes when it has no usable cache: short, because
/// a commit is waiting; the full `check` refreshes the cache with its longer budgets.
pub const COLD_SCAN_BUDGET: Duration = Duration::from_millis(100);
pub const COLD_PROBE_BUDGET: Duration = Duration::from_millis(200);

/// One cached result, kept per repository under the XDG cache directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedResult {
    #[serde(with = "crate::base::pathtext::json")]
    pub path: PathBuf,
    #[serde(with = "crate::base::pathtext::json")]
    pub mount_point: PathBuf,
    pub fstype: String,
    pub source: String,
    /// Identifies the policy the verdict was reached under.
    pub policy_digest: u32,
    pub created_unix: u64,
    pub level: Level,
    /// The advisory line; empty when the verdict is `ok`.
    pub line: String,
    /// From the hook's short cold measurement: it fails a run under `--fail-on` only when its
    /// whole range (`levels`) is at or past the threshold, and the next full `check` replaces it.
    #[serde(default)]
    pub provisional: bool,
    /// The lowest and highest level the measurement's ranges support (`verdict.levels`); None
    /// in an entry written before they were kept, which then never blocks when provisional.
    #[serde(default)]
    pub levels: Option<[Level; 2]>,
    /// The predictions of the last checks here (`verdict.recent`), for the next verdict to
    /// weigh.
    #[serde(default)]
    pub recent: Vec<Recent>,
}

impl CachedResult {
    /// Whether this answer fails a hook run under `--fail-on fail_at`: a full verdict at or
    /// past the threshold does; a provisional one only when its whole range is past it (a
    /// short measurement that is clearly `move` is `move`).
    pub fn blocks(&self, fail_at: Option<Level>) -> bool {
        let Some(threshold) = fail_at else {
            return false;
        };
        match (self.provisional, self.levels) {
            (false, _) => self.level >= threshold,
            (true, Some([lowest, _])) => lowest >= threshold,
            (true, None) => false,
        }
    }

    /// The entry as a hook run under `--fail-on fail_at` shows it: a provisional answer at or
    /// past the threshold that does not block says so, and why, in its line.
    pub fn shown_under(mut self, fail_at: Option<Level>) -> Self {
        let Some(threshold) = fail_at else {
            return self;
        };
        if self.provisional && self.level >= threshold && !self.blocks(fail_at) {
            let lowest = self.levels.map_or(Level::Ok, |[lowest, _]| lowest);
            self.line = printable(&hook_line::not_blocking(self.level, lowest, &self.path));
        }
        self
    }

    /// What the next check here starts from.
    pub fn previous(&self) -> Previous {
        Previous {
            level: Some(self.level),
            recent: self.recent.clone(),
        }
    }
}

/// A CRC32 of the policy's serialised values: the same thresholds give the same digest
/// whatever file they came from, and any change to them invalidates the cache.
pub fn policy_digest(policy: &Policy) -> u32 {
    // Serialising plain numbers, strings and lists cannot fail; if it ever did, an empty
    // digest input only costs a re-measurement.
    crc32fast::hash(&serde_json::to_vec(policy).unwrap_or_default())
}

pub fn entry_for(report: &CheckReport, policy: &Policy) -> CachedResult {
    let location: &Location = &report.location;
    CachedResult {
        path: location.paths.linux.clone(),
        mount_point: location.mount.mount_point.clone(),
        fstype: location.mount.fstype.clone(),
        source: location.mount.source.clone(),
        policy_digest: policy_digest(policy),
        created_unix: now_unix(),
        level: report.verdict.level,
        line: printable(&hook_line::for_report(report)),
        provisional: report.verdict.provisional,
        levels: Some(report.verdict.levels),
        recent: report.verdict.recent.clone(),
    }
}

/// Writes the cache; a failure here only costs the next hook run some time, so it is not an error.
pub fn store(env: &HostEnv, entry: &CachedResult) {
    Store::of(env).keep(CacheFile::Advisory(&entry.path), entry);
}

/// A cached result still valid for this location under this policy.
pub fn load_valid(env: &HostEnv, location: &Location, policy: &Policy) -> Option<CachedResult> {
    let mut entry: CachedResult = Store::of(env).load(
        CacheFile::Advisory(&location.paths.linux),
        "advisory cache file",
    )?;
    let max_age = (policy.advisory.max_age_hours * 3600.0).max(0.0) as u64;
    // A result from the future (a clock set back, a copied cache) has no known age: not fresh.
    let fresh = crate::base::clock::younger_than(entry.created_unix, max_age);
    // The cache is a file anyone with the account can edit: never print its bytes raw, and
    // weigh no prediction a measurement could not have made.
    entry.line = printable(&entry.line);
    entry.recent.iter_mut().for_each(drop_implausible);
    let same_place = entry.path == location.paths.linux
        && entry.mount_point == location.mount.mount_point
        && entry.fstype == location.mount.fstype
        && entry.source == location.mount.source;
    (fresh && same_place && entry.policy_digest == policy_digest(policy)).then_some(entry)
}

/// The widest range a `git status` or install prediction can take, in milliseconds: from a
/// hundredth of a millisecond (git's start-up alone is more) to a day.
const PLAUSIBLE_MS: std::ops::RangeInclusive<f64> = 0.01..=86_400_000.0;

/// Forgets a cached prediction pair outside what a measurement gives (1.7e308 ms, zero, a
/// negative or non-finite figure): in a median it would otherwise decide the verdict.
fn drop_implausible(recent: &mut Recent) {
    for pair in [&mut recent.git_status_ms, &mut recent.install_ms] {
        if pair
            .as_ref()
            .is_some_and(|p| !p.iter().all(|ms| PLAUSIBLE_MS.contains(ms)))
        {
            *pair = None;
        }
    }
}

/// One line with no control characters (newlines, escape sequences), at most 300 characters
/// (a line is composed within `hook_line::LINE_BUDGET` beside its path; this bounds an edited cache).
fn printable(line: &str) -> String {
    line.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(300)
        .collect()
}

/// Runs the advisory check: the cached line when there is one, else a short measurement.
pub fn run(
    env: &HostEnv,
    settings: &pipeline::Settings,
    policy_file: Option<&Path>,
) -> Result<(CachedResult, bool)> {
    // The cached answer needs no word from Windows; a new measurement does (mapped drives).
    let quick = pipeline::prepare(&env.without_mapped_drives(), &settings.path, policy_file)?;
    if let Some(entry) = load_valid(env, &quick.location, &quick.policy) {
        return Ok((entry, true));
    }
    let setting = pipeline::prepare(env, &settings.path, policy_file)?;
    let cold = pipeline::Settings {
        scan_budget: settings.scan_budget.min(COLD_SCAN_BUDGET),
        probe_budget: settings.probe_budget.min(COLD_PROBE_BUDGET),
        purpose: pipeline::Purpose::Hook,
        ..settings.clone()
    };
    // One line or nothing: no spinner.
    let (mut report, policy) = pipeline::measure(
        env,
        &cold,
        setting,
        &Previous::default(),
        &crate::base::progress::Drawn::hidden(),
    )?;
    report.verdict.as_first_look();
    let entry = entry_for(&report, &policy);
    // Without a probe there is nothing measured to keep: the next hook run measures.
    if settings.probe {
        store(env, &entry);
    }
    Ok((entry, false))
}

/// The result cached for exactly `repository`, whatever its age, mount or policy, with its line
/// made printable: for the shell's nudge (`assess::nudge`), which must not locate, load a policy
/// or measure anything in the prompt. Only the file for that path is opened.
pub fn peek(env: &HostEnv, repository: &Path) -> Option<CachedResult> {
    let mut entry: CachedResult =
        Store::of(env).load(CacheFile::Advisory(repository), "advisory cache file")?;
    entry.line = printable(&entry.line);
    (entry.path == repository).then_some(entry)
}
