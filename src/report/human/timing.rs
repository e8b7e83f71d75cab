//! The timing half of `check`: the headline sentence, what else the model predicts, and the
//! per-file costs it was computed from.

use super::{Screen, Tone};
use crate::assess::pipeline::CheckReport;
use crate::base::reason::Worded;
use crate::base::units;
use crate::decide::policy::Rule;
use crate::measure::deps::manager_timing::{ManagerTiming, TimingSource};
use crate::measure::deps::sample_reasons::SampleFailed;
use crate::measure::probe::{ProbeReport, ProbeSet};
use crate::model::{Compared, InstallFigures, InstallSource, Prediction};

/// "~950 ms", "~1.2 s": a prediction is an estimate, and says so.
pub(super) fn approx(ms: f64) -> String {
    format!("~{}", units::duration_ms(ms))
}

fn how_much_faster(speedup: f64) -> String {
    if speedup >= 1.5 {
        format!("{} faster there", units::ratio(speedup))
    } else if speedup > 1.0 / 1.5 {
        "about the same".to_string()
    } else {
        format!("{} slower there", units::ratio(1.0 / speedup))
    }
}

/// "~2.4 s here (1.9 s-3.1 s), ~5.7 ms on the Linux disk": the range is what the samples and
/// the model's fit support ("up to 8.4 ms" where they support no low end above zero).
fn here_and_there(c: &Compared) -> String {
    let here = format!(
        "{} here ({})",
        approx(c.current),
        units::duration_range_ms(c.current_range.low, c.current_range.high)
    );
    match c.baseline {
        Some(b) => format!("{here}, {} on the Linux disk", approx(b)),
        None => here,
    }
}

/// "npm 11.19.1 reinstalling from its cache, ~4.5 s of it npm's own work on either disk
/// (measured on this machine); downloads not counted": what the install figure counts, so that
/// nobody takes it for a first install over the network. The figures lead when no chart shows
/// them (no baseline).
fn install_row(
    install: &Compared,
    manager: Option<(&ManagerTiming, f64)>,
    tree: Option<&InstallFigures>,
) -> String {
    if let Some(t) = tree.filter(|t| t.source == InstallSource::Target) {
        // Not an install: what rebuilding target/ writes, which moving it costs.
        let how = format!(
            "rebuilding target/ writes its {} files ({}); compile time not counted",
            units::count(t.files),
            units::bytes(t.bytes)
        );
        return match install.baseline {
            Some(_) => how,
            None => format!("{}: {how}", here_and_there(install)),
        };
    }
    let how = match manager {
        Some((m, own)) => manager_work(m, own, tree),
        None => "the dependency trees recreated from a warm cache".to_string(),
    };
    match install.baseline {
        Some(_) => format!("{how}; downloads not counted"),
        None => format!("{}: {how}; downloads not counted", here_and_there(install)),
    }
}

/// "npm 11.6.2 reinstalling from its cache, ~700 ms of it npm's own work on either disk
/// (measured on this machine)": what the manager does and how its part was come by.
fn manager_work(m: &ManagerTiming, own: f64, tree: Option<&InstallFigures>) -> String {
    let timed = match m.source {
        TimingSource::Measured => "measured on this machine",
        TimingSource::Cached => "measured on this machine earlier",
        TimingSource::Estimated => {
            "its reference fit scaled by this machine's CPU pace, not measured here"
        }
    };
    let version = match m.version.as_str() {
        "unknown" => " (version unknown)".to_string(),
        known => format!(" {known}"),
    };
    // A tree estimated from the lock was never installed here: nothing is "re"-installed,
    // and its cache may hold none of it.
    let installed = tree.is_none_or(|t| {
        matches!(
            t.source,
            InstallSource::NodeModules | InstallSource::DependencyTrees | InstallSource::Virtualenv
        )
    });
    let lacking = match (m.sample_cache_lacks_all, m.sample_uncached > 0) {
        (true, _) => Some("its cache holds none of these packages"),
        (false, true) => Some("its cache lacks some of these packages"),
        (false, false) => None,
    };
    let what = match (installed, lacking) {
        (true, None) => "reinstalling from its cache".to_string(),
        (true, Some(lacking)) => format!("reinstalling ({lacking})"),
        (false, None) => "installing from the lock, from its cache".to_string(),
        (false, Some(lacking)) => format!("installing from the lock ({lacking})"),
    };
    format!(
        "{}{version} {what}, {} of it {}'s own work on either disk ({timed})",
        m.manager,
        approx(own),
        m.manager
    )
}

/// "npm's sample install failed here: code ENOTCACHED: ...": why the manager's own work is an
/// estimate, in its own words.
fn sample_failed(m: &ManagerTiming, why: &SampleFailed) -> String {
    format!(
        "{}'s sample install failed here, so its own work is estimated: {}",
        m.manager,
        crate::base::pathtext::display_text(&why.sentence())
    )
}

/// "3 entries ... left out": what the sample would not install, since a manager would fetch,
/// read or build them from wherever they name.
fn left_out(m: &ManagerTiming) -> String {
    let n = m.sample_left_out;
    format!(
        "{} {} the project names {} not a plain registry package pinned by version (a path, URL, git, editable or option): {}'s sample installed only plain pins",
        crate::base::units::count(n),
        if n == 1 { "entry" } else { "entries" },
        if n == 1 { "is" } else { "are" },
        m.manager
    )
}

/// What of a pip install from requirement files is estimated rather than read or timed.
fn pip_estimated(i: &InstallFigures, editable_build: bool) -> String {
    format!(
        "the packages pip installs with their dependencies (~{}, {} files){}: fitted on other projects, since check asks no index and runs no build",
        units::count(i.packages),
        units::count(i.files),
        if editable_build {
            " and the editable project's build"
        } else {
            ""
        }
    )
}

/// The first line: what `git status` costs here and on the Linux disk, or why there is no
/// figure; then a blank line.
pub fn headline(screen: &mut Screen, report: &CheckReport) {
    if let Some(line) = crate::report::text::not_a_repository(report) {
        // A folder's "git status" is no git status anyone runs: the answer is where the
        // repositories are.
        screen.headline(&line, Tone::Bold);
        screen.blank();
        return;
    }
    let skipped = report
        .probe
        .as_ref()
        .and_then(|p| p.current.skipped.as_ref())
        .map(crate::base::reason::Worded::sentence);
    // The first line is the answer: the verdict's word leads it.
    let verdict = report.verdict.level.as_str();
    match (&report.predict, skipped) {
        (Some(p), _) => {
            // The figures the verdict weighed, as "why" gives them.
            let (c, checks) = report.verdict.shown(Rule::GitStatus, &p.git_status_ms);
            let mut line = format!("{verdict}: git status {}", here_and_there(&c));
            if let Some(s) = c.speedup {
                line.push_str(&format!(" ({})", how_much_faster(s)));
            }
            line.push_str(&crate::report::text::median_note(checks));
            screen.headline(&line, Tone::Bold);
            if report.git_version.is_none() {
                screen.row("git", crate::report::text::NO_GIT, Tone::Warn);
            }
        }
        (None, Some(reason)) => {
            screen.headline(&format!("{verdict}: no prediction: {reason}"), Tone::Warn)
        }
        (None, None) => screen.headline(
            &format!(
                "{verdict}: {} is on {}; nothing was timed",
                crate::base::pathtext::display(&report.location.paths.linux),
                report.location.mount.description
            ),
            Tone::Bold,
        ),
    }
    screen.blank();
}

/// The install, fsmonitor, after-a-move and checkout predictions.
fn prediction_rows(screen: &mut Screen, p: &Prediction, move_matters: bool) {
    install_rows(screen, p);
    let first = &p.first_git_status_ms;
    let cold = &p.first_git_status_cold_ms;
    // The warm figure is the one a move meets (the copy is still cached); after a reboot the
    // files come from the disk, said only where that differs.
    let (warm_ms, cold_ms, place) = match (first.baseline, cold.baseline) {
        (Some(b), Some(c)) => (b, c, "on the Linux disk"),
        _ => (first.current, cold.current, "here"),
    };
    let mut after = format!(
        "the first git status reads every file once: {} {place}",
        approx(warm_ms)
    );
    if cold_ms > warm_ms * 1.2 {
        after.push_str(&format!(", {} after a reboot", approx(cold_ms)));
    }
    // The figures beside the verdict's are details: the default screen keeps to 40 rows.
    if !screen.style().verbose {
        return;
    }
    if let Some(ms) = p.git_status_fsmonitor_ms {
        screen.row(
            "with fsmonitor",
            &format!(
                "git status {} on the Linux disk with core.fsmonitor and core.untrackedCache (git 2.55 or later)",
                approx(ms)
            ),
            Tone::Plain,
        );
    }
    if move_matters {
        screen.row("after a move", &after, Tone::Plain);
    }
    screen.row(
        "fresh checkout",
        &here_and_there(&p.checkout_ms),
        Tone::Plain,
    );
}

/// The install prediction, and what its package manager's sample could not time.
fn install_rows(screen: &mut Screen, p: &Prediction) {
    let Some(install) = &p.install_ms else {
        return;
    };
    let manager = p.install_manager.as_ref().zip(p.install_manager_ms);
    let row = install_row(install, manager, p.inputs.install.as_ref());
    screen.row("install", &row, Tone::Plain);
    if let Some((m, why)) = p
        .install_manager
        .as_ref()
        .and_then(|m| Some((m, m.sample_failed.as_ref()?)))
    {
        screen.row("sample failed", &sample_failed(m, why), Tone::Warn);
    }
    if let Some(m) = p.install_manager.as_ref().filter(|m| m.sample_left_out > 0) {
        screen.row("left out", &left_out(m), Tone::Plain);
    }
    if let Some(i) = p
        .inputs
        .install
        .as_ref()
        .filter(|i| i.source == InstallSource::PipRequirements)
    {
        let build = p.install_manager.as_ref().map_or(0.0, |m| m.build_startups);
        screen.row("estimated", &pip_estimated(i, build > 0.0), Tone::Plain);
    }
    if let Some(why) = p
        .install_manager
        .as_ref()
        .and_then(|m| m.sample_skipped.as_ref())
    {
        screen.row(
            "not sampled",
            &crate::base::pathtext::display_text(&crate::base::reason::Worded::sentence(why)),
            Tone::Warn,
        );
    }
}

/// Predictions the chart does not show, then the per-file costs behind them.
/// `move_matters`: false where the repository is fine or both sides are one disk, so the row
/// about the first status after a move is left out.
pub fn rows(
    screen: &mut Screen,
    probes: &ProbeSet,
    predict: Option<&Prediction>,
    move_matters: bool,
) {
    if let Some(p) = predict {
        prediction_rows(screen, p, move_matters);
    }
    if let Some(note) = probes.baseline_note.as_ref() {
        screen.row(
            "note",
            &crate::base::reason::Worded::sentence(note),
            Tone::Warn,
        );
    }
    let baseline = probes
        .baseline
        .as_ref()
        .filter(|_| !probes.baseline_same_mount);
    let current = &probes.current;
    if screen.style().verbose {
        cost_rows(screen, current, baseline);
        let (key, value) = measured(probes, baseline);
        screen.row(key, &value, Tone::Dim);
    }
    for p in std::iter::once(current).chain(baseline) {
        troubles(screen, p);
    }
}

/// What each operation costs per file here, and on the Linux disk where that was probed apart.
fn cost_rows(screen: &mut Screen, current: &ProbeReport, baseline: Option<&ProbeReport>) {
    let costs = [
        (
            "each file check",
            current.lstat_us(),
            baseline.and_then(|b| b.lstat_us()),
        ),
        (
            "create a file",
            create_us(current),
            baseline.and_then(create_us),
        ),
        ("read a file", read_us(current), baseline.and_then(read_us)),
    ];
    for (key, here, there) in costs {
        let Some(here) = here else { continue };
        let value = match there {
            Some(there) => format!(
                "{} here, {} on the Linux disk",
                units::micros(here),
                units::micros(there)
            ),
            None => format!("{} here", units::micros(here)),
        };
        screen.row(key, &value, Tone::Plain);
    }
}

/// A probe's call that hung, and files that read back wrong: the mount misbehaves.
fn troubles(screen: &mut Screen, p: &ProbeReport) {
    if let Some(slow) = &p.slow_call {
        let shown = crate::base::pathtext::display(&p.dir);
        screen.row(
            "slow call",
            &format!("{shown}: {}", slow.sentence()),
            Tone::Bad,
        );
    }
    if p.run.verify_errors > 0 {
        screen.row(
            "read back",
            &format!(
                "{} in {} came back with the wrong length or CRC32: this mount does not return what was written",
                units::counted(p.run.verify_errors, "file", "files"),
                crate::base::pathtext::display(&p.dir)
            ),
            Tone::Bad,
        );
    }
}

/// Operations a probe cut short never reached have no figure to show.
fn create_us(p: &ProbeReport) -> Option<f64> {
    p.ops
        .as_ref()
        .filter(|o| o.create.samples > 0)
        .map(|o| o.create.median_us)
}

fn read_us(p: &ProbeReport) -> Option<f64> {
    p.ops
        .as_ref()
        .filter(|o| o.read.samples > 0)
        .map(|o| o.read.median_us)
}

/// Where and when the figures were taken: keyed "measured in", "/mnt/c/src/app (9p) and
/// /home/me (ext4), 1.2 s" for this run's probes; keyed "measured", "on this mount at 19:21,
/// cached" for figures another run measured, whose scratch folder is gone (naming it would
/// send a person to a folder that is not there).
fn measured(probes: &ProbeSet, baseline: Option<&ProbeReport>) -> (&'static str, String) {
    let current = &probes.current;
    let (mut fresh, mut cached) = (Vec::new(), Vec::new());
    for (p, is_current) in std::iter::once((current, true)).chain(baseline.map(|b| (b, false))) {
        match cached_at(p) {
            Some(at) if is_current => cached.push(format!("on this mount at {at}, cached")),
            Some(at) => cached.push(format!(
                "on {} ({}) at {at}, cached",
                crate::base::pathtext::display(&p.mount_point),
                p.fstype
            )),
            None => fresh.push(side(p)),
        }
    }
    if cached.is_empty() {
        let text = format!(
            "{}, {}",
            fresh.join(" and "),
            units::duration_ms(probes.elapsed_ms as f64)
        );
        return ("measured in", text);
    }
    if !fresh.is_empty() {
        cached.push(format!(
            "in {}, {}",
            fresh.join(" and "),
            units::duration_ms(probes.elapsed_ms as f64)
        ));
    }
    ("measured", cached.join("; "))
}

/// "19:21" for figures read back from the mount cache.
fn cached_at(p: &ProbeReport) -> Option<String> {
    crate::base::clock::local_hh_mm(p.cached_unix?)
}

fn side(p: &ProbeReport) -> String {
    format!("{} ({})", crate::base::pathtext::display(&p.dir), p.fstype)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npm(source: TimingSource) -> ManagerTiming {
        ManagerTiming {
            manager: crate::measure::deps::managers::Manager::Npm,
            version: "11.19.1".into(),
            startup_ms: 300.0,
            sample_ms: 2000.0,
            sample_packages: 120,
            sample_files: 2000,
            sample_dirs: 300,
            sample_bytes: 0,
            source,
            cpu_sha1_us_per_mib: None,
            sample_failed: Default::default(),
            sample_skipped: Default::default(),
            sample_skipped_cause: None,
            windows_program: None,
            sample_left_out: 0,
            sample_from_lock: false,
            lifecycle_startups: 0.0,
            build_startups: 0.0,
            sample_source: None,
            sample_uncached: 0,
            sample_not_shared: Default::default(),
            sample_cache_lacks_all: false,
            copies_from_store: false,
            pnpm_store: None,
            pnpm_store_setting: None,
        }
    }

    #[test]
    fn the_install_row_says_what_is_counted_and_how_it_was_timed() {
        let both = Compared::exact(120_000.0, 4_300.0);
        for (source, timed) in [
            (TimingSource::Measured, "(measured on this machine)"),
            (TimingSource::Cached, "(measured on this machine earlier)"),
            (
                TimingSource::Estimated,
                "(its reference fit scaled by this machine's CPU pace, not measured here)",
            ),
        ] {
            let m = npm(source);
            let row = install_row(&both, Some((&m, 4_100.0)), None);
            assert_eq!(
                row,
                format!(
                    "npm 11.19.1 reinstalling from its cache, ~4.1 s of it npm's own work on \
                     either disk {timed}; downloads not counted"
                )
            );
        }
        // No baseline, so no chart: the figure and its range lead.
        let here = Compared {
            baseline: None,
            ..both
        };
        let row = install_row(&here, None, None);
        assert!(
            row.starts_with("~2 min here (2 min-2 min): the dependency trees"),
            "{row}"
        );
        assert!(row.ends_with("; downloads not counted"), "{row}");
    }

    #[test]
    fn a_failed_sample_says_why_in_the_managers_words() {
        let m = npm(TimingSource::Estimated);
        assert_eq!(
            sample_failed(
                &m,
                &SampleFailed::Said {
                    program: "npm".into(),
                    words: "code ENOTCACHED: request to https://x failed".into()
                }
            ),
            "npm's sample install failed here, so its own work is estimated: code ENOTCACHED: request to https://x failed"
        );
    }

    #[test]
    fn a_rust_target_is_shown_as_the_writes_of_rebuilding_it() {
        let target = InstallFigures {
            files: 12_345,
            dirs: 400,
            bytes: 3 << 30,
            packages: 0,
            source: InstallSource::Target,
            depth: 0.0,
            links: 0,
            cache_links: None,
        };
        let row = install_row(&Compared::exact(9_000.0, 900.0), None, Some(&target));
        assert_eq!(
            row,
            "rebuilding target/ writes its 12,345 files (3.0 GiB); compile time not counted"
        );
    }
}
