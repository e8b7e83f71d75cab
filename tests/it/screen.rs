//! The check screen as a person sees it, pinned by snapshots at 60 and 110 columns.
//!
//! The report is built from fixed figures on a fixture WSL host (the 9p mount table in
//! tests/fixtures/mountinfo), so the snapshots never depend on this machine's speed. The
//! snapshots are insta's, in tests/it/snapshots/: after a deliberate change to the screen,
//! `INSTA_UPDATE=always cargo test --release --test it screen::` rewrites them (or
//! `cargo insta review`, with cargo-insta installed) and `git diff` shows what changed.

use crate::support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use wsl_place::facade::assess::pipeline::CheckReport;
use wsl_place::facade::base::counts::TreeCounts;
use wsl_place::facade::decide::observations::{Context, Observations};
use wsl_place::facade::decide::policy::{self, Policy, PolicySource};
use wsl_place::facade::host::HostEnv;
use wsl_place::facade::host::git::version::GitVersion;
use wsl_place::facade::host::location::{self, MountTable};
use wsl_place::facade::measure::gitindex::{IndexSummary, RepoKind};
use wsl_place::facade::measure::gitsettings::GitSettings;
use wsl_place::facade::measure::probe::{ProbeReport, ProbeSet, measure::RunSummary};
use wsl_place::facade::measure::scan::{Counts, DependencyTree, DirFiles, GitReport, ScanReport};
use wsl_place::facade::measure::stats::{OpStats, ParallelLstat};
use wsl_place::facade::model::{Compared, Figure, InstallFigures, Prediction, Range, RepoFigures};
use wsl_place::facade::report::{self, Format, Style};

const REPO: &str = "/mnt/c/Users/dev/src/webapp";

fn stats(us: f64) -> OpStats {
    OpStats::from_samples(&[us * 0.9, us, us * 1.1]).unwrap()
}

fn probe(dir: &str, mount_point: &str, fstype: &str, lstat_us: f64) -> ProbeReport {
    let kind = if fstype == "9p" {
        wsl_place::facade::host::mounts::MountKind::WslDrvfs9p
    } else {
        wsl_place::facade::host::mounts::MountKind::Local
    };
    ProbeReport {
        dir: PathBuf::from(dir),
        mount_point: PathBuf::from(mount_point),
        fstype: fstype.to_string(),
        kind,
        skipped: wsl_place::facade::reason::Noted(None),
        ops: Some(wsl_place::facade::measure::probe::Ops {
            create: stats(lstat_us * 4.2),
            read: stats(lstat_us * 1.3),
            lstat: stats(lstat_us),
            readdir_entry: stats(lstat_us * 0.1),
            opendir: stats(lstat_us * 2.0),
            unlink: stats(lstat_us * 1.5),
            mkdir: stats(lstat_us * 3.0),
            rename: stats(lstat_us * 2.5),
            write_mib: stats(lstat_us * 40.0),
            read_mib: stats(lstat_us * 20.0),
        }),
        parallel_lstat: vec![
            ParallelLstat::from_runs(
                8,
                wsl_place::facade::measure::stats::LstatSource::Tracked,
                &[lstat_us / 3.0],
            )
            .unwrap(),
        ],
        tracked_lstat: Some(stats(lstat_us)),
        cold_read: None,
        run: RunSummary::default(),
        cleaned: true,
        slow_call: None,
        system_failure: false,
        elapsed_ms: 640,
        cached_unix: None,
    }
}

fn range(low: f64, high: f64) -> Range {
    Range {
        low: Some(low),
        high,
    }
}

fn compared(current: f64, baseline: f64) -> Compared {
    Compared {
        current,
        baseline: Some(baseline),
        speedup: Some(current / baseline),
        current_range: range(current * 0.8, current * 1.25),
        baseline_range: Some(range(baseline * 0.8, baseline * 1.25)),
        speedup_range: Some(range(current / baseline * 0.7, current / baseline * 1.4)),
        error: 0.2,
        speedup_error: Some(0.3),
    }
}

/// What the policy weighs: each side +-20%, the speedup +-30%.
fn judged(current: f64, baseline: f64) -> Compared {
    let figure = |value| Figure { value, error: 0.2 };
    Compared::from_figures(figure(current), Some(figure(baseline)), 0.3)
}

/// A repository of 5,000 tracked files on /mnt/c (9p), with node_modules, as `check` would
/// report it on a WSL 2 host, figures fixed.
fn fixture() -> CheckReport {
    let proc = support::fakeproc::FakeProc::new(
        support::fakeproc::WSL2_VERSION,
        include_str!("../fixtures/mountinfo/wsl-9p-drvfs.mountinfo"),
        true,
    );
    let vars: BTreeMap<String, String> = [
        ("WSL_PLACE_PROC_ROOT", proc.dir.path().to_str().unwrap()),
        ("WSL_DISTRO_NAME", "Ubuntu"),
        ("WSL_INTEROP", "/run/WSL/1_interop"),
        ("HOME", "/home/dev"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let env = HostEnv::from_vars(vars);
    let table = MountTable::read(&env).unwrap();
    let host = location::host(&env, &table);
    let location = location::locate_in(&host, &table, Path::new(REPO)).unwrap();

    let node_modules = DependencyTree {
        path: PathBuf::from("node_modules"),
        kind: wsl_place::facade::measure::scan::DependencyKind::NodeModules,
        files: 6_569,
        dirs: 812,
        bytes: 96_468_992,
        symlinks: 31,
        estimated: false,
        counted: Counts::default(),
        reached: true,
        sample: None,
        reused: false,
        stamp: None,
    };
    let scan = ScanReport {
        totals: TreeCounts {
            files: 13_126,
            dirs: 1_050,
            symlinks: 31,
            bytes: 181_403_648,
        },
        tracked: Some(5_000),
        git_dir_bytes: Some(41_943_040),
        node_modules: vec![node_modules],
        complete: true,
        elapsed_ms: 1_640,
        largest_dirs: vec![DirFiles {
            path: PathBuf::from("src/components").into(),
            files: 412,
            estimated: false,
        }],
        git: Some(GitReport {
            kind: RepoKind::Repository,
            worktree: REPO.into(),
            git_dir: format!("{REPO}/.git").into(),
            common_dir: format!("{REPO}/.git").into(),
            git_dir_inside_root: true,
            index: Some(IndexSummary {
                version: 2,
                header_entries: 5_000,
                entries: 5_000,
                entries_under_root: 5_000,
                split: false,
                sparse: false,
                sparse_dirs: 0,
                skip_worktree: 0,
                submodules: 0,
                conflict_entries: 0,
            }),
            index_error: wsl_place::facade::reason::Noted(None),
            pack_bytes: Some(39_845_888),
            loose_object_bytes: Some(1_048_576),
            loose_object_files: Some(120),
            git_dir_files: Some(1_557),
            git_dir_dirs: None,
            estimated: false,
            error: wsl_place::facade::reason::Noted(None),
            unborn_head: false,
        }),
        ..ScanReport::default()
    };
    let probes = ProbeSet {
        current: probe(REPO, "/mnt/c", "9p", 4_696.0),
        baseline: Some(probe("/home/dev/.cache/wsl-place/probe", "/", "ext4", 0.34)),
        baseline_note: wsl_place::facade::reason::Noted(None),
        baseline_same_mount: false,
        baseline_label: Some("~/src/webapp".to_string()),
        git_startup_ms: Some(1.2),
        cpu_sha1_us_per_mib: Some(580.0),
        index_files: Some(5_000),
        index_dirs: Some(640),
        elapsed_ms: 1_310,
        git_walk: None,
        manager: None,
    };
    let predict = Prediction {
        git_status_ms: compared(950.97, 5.28),
        first_git_status_ms: compared(23_480.0, 41.0),
        first_git_status_cold_ms: compared(23_480.0, 160.0),
        install_ms: Some(compared(305_100.0, 3_800.0)),
        checkout_ms: compared(96_300.0, 640.0),
        git_status_fsmonitor_ms: None,
        install_manager: None,
        install_manager_ms: None,
        inputs: RepoFigures {
            tracked: 5_000,
            worktree_files: 11_569,
            worktree_dirs: 1_049,
            worktree_bytes: 139_460_608,
            tracked_bytes: Some(42_991_616),
            mapped_bytes: 42_991_616,
            text_bytes: 0,
            auto_text_bytes: 0,
            install: Some(InstallFigures {
                files: 6_569,
                dirs: 812,
                bytes: 96_468_992,
                packages: 740,
                source: wsl_place::facade::model::InstallSource::NodeModules,
                depth: 0.0,
                links: 0,
                cache_links: None,
            }),
            unborn_head: false,
        },
    };
    let git_version = GitVersion {
        major: 2,
        minor: 43,
        patch: 0,
    };
    let observations = Observations {
        path: PathBuf::from(REPO),
        home: Some(PathBuf::from("/home/dev")),
        mount_kind: location.mount.kind,
        wsl: true,
        git_status_ms: Some(judged(950.97, 5.28)),
        install_ms: Some(judged(305_100.0, 3_800.0)),
        tracked: Some(5_000),
        dirs: 1_050,
        git: Some(GitSettings::default()),
        baseline_problem: None,
        context: Context {
            wsl_version: Some(2),
            distro: Some("Ubuntu".to_string()),
            git_version: Some(git_version),
            usage: Default::default(),
            repositories_below: None,
            repositories_below_partial: false,
            build_trees: Vec::new(),
            unfinished_move_to: None,
        },
    };
    let verdict = policy::evaluate(&Policy::built_in(), &observations);
    CheckReport {
        repositories_below: None,
        repositories_below_complete: None,
        moved: None,
        windows: None,
        accuracy: None,
        verify: None,
        git_version: Some(git_version),
        schema: wsl_place::facade::assess::pipeline::SCHEMA_VERSION,
        location,
        scan,
        probe: Some(probes),
        predict: Some(predict),
        policy: PolicySource::BuiltIn,
        verdict,
        phases: Default::default(),
    }
}

/// The screen against its snapshot in tests/it/snapshots/. insta compares the text with its
/// trailing newlines trimmed, so the one final newline is checked here.
fn snapshot(name: &str, screen: &str) {
    assert!(
        screen.ends_with('\n') && !screen.ends_with("\n\n"),
        "the screen must end in exactly one newline: {screen:?}"
    );
    insta::assert_snapshot!(name, screen);
}

fn human(width: usize) -> String {
    report::render(&fixture(), Format::Human, &Style::plain(width)).unwrap()
}

/// The whole report, as `--verbose` shows it.
fn verbose(width: usize) -> String {
    let style = Style {
        verbose: true,
        ..Style::plain(width)
    };
    report::render(&fixture(), Format::Human, &style).unwrap()
}

#[test]
fn check_screen_at_110_columns() {
    let screen = human(110);
    assert!(screen.lines().count() <= 40, "{screen}");
    snapshot("check-110", &screen);
}

#[test]
fn check_screen_at_110_columns_verbose() {
    let screen = verbose(110);
    assert!(screen.lines().all(|l| l.chars().count() <= 110), "{screen}");
    for detail in ["host", "each file check", "measured in", "most files in"] {
        assert!(screen.contains(detail), "{detail} missing:\n{screen}");
        assert!(!human(110).contains(detail), "{detail} by default");
    }
    snapshot("check-110-verbose", &screen);
}

#[test]
fn check_screen_at_60_columns() {
    snapshot("check-60", &human(60));
}

#[test]
fn every_line_fits_and_keys_share_one_column() {
    for width in [60, 80, 110] {
        let text = human(width);
        for line in text.lines() {
            assert!(
                line.chars().count() <= width,
                "{width} columns, line too wide: {line:?}"
            );
            assert_eq!(line, line.trim_end(), "trailing space: {line:?}");
        }
        let mut lines = text.lines();
        let headline = lines.next().unwrap();
        assert!(headline.starts_with("move: git status "), "{headline}");
        // Every line with a key starts its value in the same column: after the first run of
        // two or more spaces past the indent.
        let value_column = |line: &str| {
            let key_end = line[2..].find("  ").map_or(line.len(), |i| i + 2);
            key_end + line[key_end..].len() - line[key_end..].trim_start().len()
        };
        // The last lines repeat the answer, the figures that decided it and the command: what
        // a short terminal keeps in view.
        let (body, last) = text.trim_end().rsplit_once("\n\n").unwrap();
        let last = last.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(
            last,
            "move: this repository belongs on the Linux disk (git status 951 ms here, 5.3 ms on \
             the Linux disk) wsl-place migrate /mnt/c/Users/dev/src/webapp",
            "{text}"
        );
        let columns: std::collections::BTreeSet<usize> = body
            .lines()
            .skip(2)
            .filter(|l| l.starts_with("  ") && !l[2..].starts_with(' '))
            .filter(|l| !l.contains('█') && !l.contains('▏'))
            // A command too long for the values' column starts under the keys, whole.
            .filter(|l| !l.starts_with("  wsl-place ") && !l.starts_with("  git "))
            .map(value_column)
            .collect();
        assert_eq!(
            columns.len(),
            1,
            "{width} columns: keys in more than one column {columns:?}\n{text}"
        );
    }
}

#[test]
fn one_number_style() {
    let text = verbose(110);
    for wanted in [
        "5,000 files",
        "13,126 files",
        "6,569 files, 31 symlinks",
        "µs",
        "1,050 directories",
    ] {
        assert!(text.contains(wanted), "no {wanted:?} in\n{text}");
    }
    for unwanted in [" us", "13126", "6569", "1 tracked files", "lstat"] {
        assert!(!text.contains(unwanted), "{unwanted:?} in\n{text}");
    }
    let markdown = report::render(&fixture(), Format::Markdown, &Style::plain(80)).unwrap();
    assert!(markdown.contains("| files | 13,126 |"), "{markdown}");
    assert!(
        markdown.contains("| tracked by git | 5,000 |"),
        "{markdown}"
    );
}

#[test]
fn chart_is_human_only_and_scaled_to_the_terminal() {
    let bar = |text: &str| {
        text.lines()
            .find(|l| l.contains("here") && l.contains('█'))
            .map(|l| l.chars().filter(|&c| c == '█').count())
            .unwrap_or(0)
    };
    let (narrow, wide) = (bar(&human(60)), bar(&human(110)));
    assert!(
        narrow >= 8 && wide >= narrow + 45,
        "bars {narrow} and {wide} cells"
    );
    for format in [Format::Markdown, Format::Github, Format::Json] {
        let text = report::render(&fixture(), format, &Style::plain(110)).unwrap();
        assert!(!text.contains('█'), "{format:?} has a chart");
    }
}

#[test]
fn github_format_gives_every_advice_a_notice() {
    let report = fixture();
    assert!(
        report.verdict.advice.len() >= 2,
        "{:?}",
        report.verdict.advice
    );
    let text = report::render(&report, Format::Github, &Style::plain(80)).unwrap();
    let notices = text.lines().filter(|l| l.starts_with("::notice ")).count();
    assert_eq!(notices, report.verdict.advice.len(), "{text}");
    for advice in &report.verdict.advice {
        if let Some(command) = &advice.command {
            assert!(
                text.contains(command.as_str()),
                "{command} missing:\n{text}"
            );
        }
    }
}
