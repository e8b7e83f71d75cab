//! `survey` as a person sees it (issue 39): a bar that only rises, columns a narrow terminal
//! drops named, and no bookkeeping lines in the default output.

use crate::support;
use crate::support::Run;

use std::path::Path;
use std::process::Command;

/// Three small repositories below one folder.
fn folder() -> tempfile::TempDir {
    let top = tempfile::tempdir().unwrap();
    for name in ["alpha", "beta", "gamma"] {
        support::gitrepo::files_repo(&top.path().join(name), 40);
    }
    top
}

fn survey(home: &Path, top: &Path, columns: &str) -> String {
    let out = support::Sandbox::at(home)
        .cmd()
        .env("COLUMNS", columns)
        .args(["survey", "--fresh"])
        .arg(top)
        .run();
    out.ok();
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Every "done/total" the bar drew, in order.
fn counts(drawn: &str) -> Vec<(u64, u64)> {
    drawn
        .split(['\r', '\n'])
        .filter_map(|frame| {
            frame.split_whitespace().find_map(|word| {
                let (done, total) = word.trim_end_matches(',').split_once('/')?;
                Some((done.parse().ok()?, total.parse().ok()?))
            })
        })
        .collect()
}

#[test]
fn the_survey_bar_only_rises_over_one_count() {
    let home = tempfile::tempdir().unwrap();
    let top = folder();
    // util-linux `script` gives the survey a terminal, so the bar is drawn on its stderr.
    let command = format!(
        "{} survey --fresh {} 2>&1 >/dev/null",
        support::binary_path().display(),
        top.path().display()
    );
    let mut script = Command::new("script");
    script
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .env("TERM", "xterm")
        .env_remove("NO_COLOR");
    let out = support::Sandbox::at(home.path()).apply(&mut script).run();
    let drawn = String::from_utf8_lossy(&out.stdout);
    let counts = counts(&drawn);
    assert!(counts.len() >= 2, "too few frames: {drawn:?}");
    let total = counts[0].1;
    // One probe at least, then the three scans: one count, never started again.
    assert!(total >= 4, "{counts:?}");
    assert!(counts.iter().all(|&(_, t)| t == total), "{counts:?}");
    assert!(
        counts.windows(2).all(|w| w[0].0 <= w[1].0),
        "the bar went back: {counts:?}"
    );
    // Time left is said once a step gives a pace, and only then.
    for frame in drawn.split(['\r', '\n']) {
        if frame.contains(" 0/") {
            assert!(!frame.contains("left"), "{frame:?}");
        }
    }
}

#[test]
fn a_narrow_table_names_the_columns_it_hides_and_no_bookkeeping_is_printed() {
    let home = tempfile::tempdir().unwrap();
    let top = folder();
    let narrow = survey(home.path(), top.path(), "60");
    assert!(
        narrow.contains("hidden at this width: tracked, size"),
        "{narrow}"
    );
    let wide = survey(home.path(), top.path(), "160");
    assert!(!wide.contains("hidden at this width"), "{wide}");
    for screen in [&narrow, &wide] {
        assert!(!screen.contains("threads"), "{screen}");
        assert!(!screen.contains("searched "), "{screen}");
        assert!(!screen.contains("budget"), "{screen}");
    }
    // JSON keeps the figures the screen leaves out.
    let out = support::Sandbox::at(home.path())
        .cmd()
        .args(["survey", "--format", "json"])
        .arg(top.path())
        .run();
    let report = out.ok_json();
    assert!(report["scans"]["threads"].as_u64().unwrap() > 0, "{report}");
    assert!(report["discovery"]["budget_ms"].as_u64().unwrap() > 0);
}
