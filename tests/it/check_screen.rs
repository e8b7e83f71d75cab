//! What `check` says about its own figures (issue 39): ranges whose low end is a figure a person
//! can use, where and when the figures were measured, and one figure per quantity (a first look
//! never joins the median of full checks; no "median" of fewer than three).

use crate::support;
use crate::support::{Outcome, Run};

use std::fs;
use std::path::PathBuf;
use support::gitrepo::files_repo;

/// A home (the cache) and a repository on this machine's disk.
struct Place {
    home: tempfile::TempDir,
    repo: tempfile::TempDir,
}

impl Place {
    fn new() -> Self {
        let place = Self {
            home: tempfile::tempdir().unwrap(),
            repo: tempfile::tempdir().unwrap(),
        };
        files_repo(place.repo.path(), 120);
        place
    }

    fn run(&self, args: &[&str]) -> Outcome {
        support::Sandbox::at(self.home.path())
            .cmd()
            .env("TZ", "UTC")
            .env("COLUMNS", "200")
            .args(args)
            .args(["--probe-budget-ms", "150"])
            .arg(self.repo.path())
            .run()
    }

    fn human(&self) -> String {
        // Where the figures were measured is a detail `--verbose` shows.
        let out = self.run(&["check", "--verbose"]);
        out.ok();
        String::from_utf8(out.stdout.clone()).unwrap()
    }

    fn json(&self) -> serde_json::Value {
        self.run(&["check", "--format", "json"]).ok_json()
    }

    fn cache_files(&self, folder: &str) -> Vec<PathBuf> {
        let dir = self.home.path().join(".cache/wsl-place").join(folder);
        let files: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        assert!(!files.is_empty(), "nothing cached in {}", dir.display());
        files
    }

    /// Rewrites every cached file in `folder` with `edit`.
    fn edit_cache(&self, folder: &str, edit: impl Fn(&mut serde_json::Value)) {
        for file in self.cache_files(folder) {
            let mut entry: serde_json::Value =
                serde_json::from_slice(&fs::read(&file).unwrap()).unwrap();
            edit(&mut entry);
            fs::write(&file, serde_json::to_vec(&entry).unwrap()).unwrap();
        }
    }
}

fn now_unix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// The row of `screen` that starts with `key`, trimmed.
fn row<'s>(screen: &'s str, key: &str) -> &'s str {
    screen
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with(key))
        .unwrap_or_else(|| panic!("no {key} row in\n{screen}"))
}

/// A probe this noisy (its p10 a tenth of the median, its p90 ten times it, four samples)
/// supports no low end above zero: the range shows its high end only, and JSON a null low end.
fn make_noisy(entry: &mut serde_json::Value) {
    let ops = entry["report"]["ops"].as_object_mut().unwrap();
    for stats in ops.values_mut() {
        let median = stats["median_us"].as_f64().unwrap();
        stats["p10_us"] = (median * 0.1).into();
        stats["p90_us"] = (median * 10.0).into();
        stats["samples"] = 4.into();
    }
}

#[test]
fn a_range_never_starts_at_zero_on_any_screen() {
    let place = Place::new();
    let quiet = place.json();
    // A measured low end is a positive share of the figure, or there is none.
    for key in ["git_status_ms", "checkout_ms"] {
        let figure = &quiet["predict"][key];
        let current = figure["current"].as_f64().unwrap();
        let low = &figure["current_range"][0];
        assert!(
            low.is_null() || low.as_f64().unwrap() >= current * 0.1,
            "{key}: {figure}"
        );
    }
    place.edit_cache("mounts", make_noisy);
    let noisy = place.json();
    for key in ["git_status_ms", "checkout_ms"] {
        let range = &noisy["predict"][key]["current_range"];
        assert!(range[0].is_null(), "{key}: {range}");
        assert!(range[1].as_f64().unwrap() > 0.0, "{key}: {range}");
    }
    let screen = place.human();
    assert!(!screen.contains("0.0 µs-"), "{screen}");
    let headline = screen.lines().next().unwrap();
    assert!(
        headline.contains(" here (up to ") && headline.contains(" ms)"),
        "{screen}"
    );
    assert!(
        row(&screen, "fresh checkout").contains(" here (up to "),
        "{screen}"
    );
}

#[test]
fn figures_from_another_runs_probe_say_when_they_were_measured_not_where() {
    let place = Place::new();
    let first = place.json();
    assert!(
        first["probe"]["current"]["cached_unix"].is_null(),
        "{first}"
    );
    // Measured two hours ago at 17:21 UTC, by another run whose folder is gone.
    let two_hours_ago = now_unix() - 7200;
    let at = two_hours_ago - two_hours_ago % 86_400 + 17 * 3600 + 21 * 60;
    let at = if at > now_unix() { at - 86_400 } else { at };
    let gone = "/tmp/.tmpGone42/repo";
    place.edit_cache("mounts", |entry| {
        entry["created_unix"] = at.into();
        entry["report"]["dir"] = gone.into();
    });
    let screen = place.human();
    assert_eq!(
        row(&screen, "measured"),
        "measured         on this mount at 17:21, cached",
        "{screen}"
    );
    assert!(!screen.contains(gone), "{screen}");
    let cached = place.json();
    assert_eq!(cached["probe"]["current"]["cached_unix"], at, "{cached}");
    // A probe of this run names the folder it measured in, which it just used.
    let fresh = place.run(&["check", "--fresh", "--verbose"]);
    let screen = String::from_utf8(fresh.stdout.clone()).unwrap();
    let measured = row(&screen, "measured");
    assert!(measured.starts_with("measured in      /"), "{screen}");
    assert!(!measured.contains("cached"), "{screen}");
}

/// The git status figures the verdict weighed: `[here, there]` and over how many checks.
fn weighed(report: &serde_json::Value) -> (f64, u64) {
    let w = report["verdict"]["weighed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["rule"] == "git-status")
        .unwrap_or_else(|| panic!("no git status weighed in {report}"));
    (
        w["here_ms"].as_f64().unwrap(),
        w["checks"].as_u64().unwrap(),
    )
}

#[test]
fn a_first_look_never_joins_the_median_of_full_checks() {
    let place = Place::new();
    let hook = place.run(&["check", "--advisory"]);
    hook.ok();
    let advisory = place.cache_files("advisory");
    let entry: serde_json::Value =
        serde_json::from_slice(&fs::read(&advisory[0]).unwrap()).unwrap();
    assert_eq!(entry["recent"][0]["first_look"], true, "{entry}");
    // The first full check after the hook's first look: its own figure, not a median of two.
    let first = place.json();
    let own = first["predict"]["git_status_ms"]["current"]
        .as_f64()
        .unwrap();
    assert_eq!(weighed(&first), (own, 1), "{first}");
    let recent = first["verdict"]["recent"].as_array().unwrap();
    assert_eq!(recent.len(), 1, "the first look was kept: {first}");
    // A first look of 41 s and two full checks of 119 s: 80 s (41 s's share of a median of
    // four) is a figure nothing measured; the median of the three full checks is 119 s.
    let planted = serde_json::json!([
        {"git_status_ms": [41_000.0, 5.0], "first_look": true},
        {"git_status_ms": [119_000.0, 5.0]},
        {"git_status_ms": [119_000.0, 5.0]},
    ]);
    place.edit_cache("advisory", |entry| entry["recent"] = planted.clone());
    let report = place.json();
    assert_eq!(weighed(&report), (119_000.0, 3), "{report}");
    place.edit_cache("advisory", |entry| entry["recent"] = planted.clone());
    let screen = place.human();
    let headline = screen.lines().next().unwrap();
    assert!(
        headline.contains("~1 min 59 s here")
            && headline.contains("the median of the last 3 checks"),
        "{screen}"
    );
    assert!(!screen.contains("80 s"), "{screen}");
    // Two checks give no median: the run's own figure, said without the word.
    place.edit_cache("advisory", |entry| {
        entry["recent"] = serde_json::json!([{"git_status_ms": [119_000.0, 5.0]}])
    });
    let two = place.json();
    assert_eq!(weighed(&two).1, 1, "{two}");
    place.edit_cache("advisory", |entry| {
        entry["recent"] = serde_json::json!([{"git_status_ms": [119_000.0, 5.0]}])
    });
    assert!(!place.human().contains("median"));
}
