//! A migration plan and its result, for a person (the same key column as `check`) and as
//! markdown.

use super::{Screen, Style, Tone};
use crate::migrate::{MigrationReport, Plan, Question};
use crate::report::markdown::{cell, code};
use crate::units::{self, count, counted};
use std::fmt::Write;

/// "6,811 files, 1,050 directories, 3 symlinks, 1.2 GiB"
fn content(files: u64, dirs: u64, symlinks: u64, bytes: u64) -> String {
    format!(
        "{}, {}, {}, {}",
        counted(files, "file", "files"),
        counted(dirs, "directory", "directories"),
        counted(symlinks, "symlink", "symlinks"),
        units::bytes(bytes)
    )
}

fn space(plan: &Plan) -> (String, Tone) {
    let needed = units::bytes(plan.needed_bytes);
    match plan.free_bytes {
        Some(free) if free < plan.needed_bytes => (
            format!("needs {needed}, only {} free", units::bytes(free)),
            Tone::Bad,
        ),
        Some(free) => (
            format!("needs {needed}, {} free", units::bytes(free)),
            Tone::Good,
        ),
        None => (format!("needs {needed}, free space unknown"), Tone::Plain),
    }
}

fn node_modules_fate(skipped: bool, install: &str, asking: bool) -> String {
    if skipped {
        format!("left behind; reinstall it at the destination (`{install}`)")
    } else if asking {
        format!("asked below: copy it, or leave it behind and reinstall it (`{install}`)")
    } else {
        "copied (--skip-node-modules leaves it behind to reinstall)".to_string()
    }
}

/// The plan, before anything is copied.
pub fn plan(plan: &Plan, style: &Style) -> String {
    let mut screen = Screen::new(style);
    screen.headline("Migration plan", Tone::Bold);
    screen.row("from", &crate::pathtext::display(&plan.source), Tone::Plain);
    screen.row(
        "to",
        &crate::pathtext::display(&plan.destination),
        Tone::Bold,
    );
    screen.row(
        "content",
        &content(plan.files, plan.dirs, plan.symlinks, plan.bytes),
        Tone::Plain,
    );
    if plan.resumed_files > 0 {
        screen.row(
            "resume",
            &format!(
                "{} ({}) already copied and verified by an interrupted run",
                counted(plan.resumed_files, "file", "files"),
                units::bytes(plan.resumed_bytes)
            ),
            Tone::Plain,
        );
    }
    let (space, tone) = space(plan);
    screen.row("space", &space, tone);
    if let Some(ms) = plan.predicted_copy_ms {
        screen.row(
            "time",
            &format!(
                "about {} to copy, verify and fix up ({})",
                units::duration_ms(ms as f64),
                plan.prediction_basis
            ),
            Tone::Plain,
        );
    }
    let asking = asks_about_node_modules(plan);
    for nm in &plan.node_modules {
        let place = if nm.path == "node_modules" {
            String::new()
        } else {
            format!("{}: ", nm.path)
        };
        screen.row(
            "node_modules",
            &format!(
                "{place}{}; {}",
                units::tree(nm.files, nm.symlinks, nm.bytes, false),
                node_modules_fate(nm.skipped, &nm.install.to_string(), asking)
            ),
            Tone::Plain,
        );
        if !nm.windows_builds.is_empty() {
            screen.more(
                &format!(
                    "holds native Windows builds ({}); they do not run on Linux",
                    nm.windows_builds.join(", ")
                ),
                Tone::Warn,
            );
        }
    }
    for worktree in &plan.worktrees {
        let (text, tone) = match (&worktree.destination, &worktree.why_not) {
            (Some(to), _) => (
                format!(
                    "{} ({}, {}): can move along to {}",
                    crate::pathtext::display(&worktree.path),
                    counted(worktree.files, "file", "files"),
                    units::bytes(worktree.bytes),
                    crate::pathtext::display(to)
                ),
                Tone::Plain,
            ),
            (None, why) => (
                format!(
                    "{} stays attached to the old copy{}; removing the source breaks it",
                    crate::pathtext::display(&worktree.path),
                    why.as_ref().map_or_else(String::new, |w| format!(" ({w})"))
                ),
                Tone::Warn,
            ),
        };
        screen.row("worktree", &text, tone);
    }
    problems(&mut screen, plan);
    for (i, other) in plan.interrupted_elsewhere.iter().enumerate() {
        let key = if i == 0 { "interrupted" } else { "" };
        screen.item(key, &other.sentence(&plan.source), Tone::Warn);
    }
    for (i, question) in plan.questions.iter().enumerate() {
        let key = if i == 0 { "questions" } else { "" };
        screen.item(key, &question_line(question), Tone::Plain);
    }
    screen.finish()
}

fn asks_about_node_modules(plan: &Plan) -> bool {
    plan.questions.iter().any(|q| q.id == "node_modules")
}

/// "Copy, verify and move it to …? (Enter and --yes: yes)"
fn question_line(question: &Question) -> String {
    let word = |b: bool| if b { "yes" } else { "no" };
    if question.default == question.with_yes {
        format!(
            "{} (Enter and --yes: {})",
            question.text,
            word(question.default)
        )
    } else {
        format!(
            "{} (Enter: {}, --yes: {})",
            question.text,
            word(question.default),
            word(question.with_yes)
        )
    }
}

/// Lists at most `limit` items under `key`, then how many more there are.
fn list(screen: &mut Screen, key: &str, heading: &str, items: &[String], limit: usize, tone: Tone) {
    screen.row(key, heading, tone);
    for item in items.iter().take(limit) {
        screen.item("", item, Tone::Plain);
    }
    if items.len() > limit {
        screen.item(
            "",
            &format!("and {} more", count((items.len() - limit) as u64)),
            Tone::Dim,
        );
    }
}

/// What will not be copied, and what will not survive a trip back to Windows.
fn problems(screen: &mut Screen, plan: &Plan) {
    if !plan.skipped.is_empty() {
        let items: Vec<String> = plan
            .skipped
            .iter()
            .map(|s| format!("{}: {}", s.path, s.reason))
            .collect();
        let heading = format!(
            "{} skipped:",
            counted(items.len() as u64, "special file is", "special files are")
        );
        list(screen, "skipped", &heading, &items, 10, Tone::Warn);
    }
    if !plan.unreadable.is_empty() {
        let items: Vec<String> = plan
            .unreadable
            .iter()
            .map(|p| format!("{}: {}", p.path, p.error))
            .collect();
        let heading = format!(
            "{} not be read:",
            counted(items.len() as u64, "entry can", "entries cannot")
        );
        list(screen, "unreadable", &heading, &items, 10, Tone::Bad);
    }
    if !plan.case_collisions.is_empty() {
        let items: Vec<String> = plan.case_collisions.iter().map(|g| g.join("  ")).collect();
        let heading = format!(
            "{} of names differ only by case (fine on ext4, they collide on Windows):",
            counted(items.len() as u64, "group", "groups")
        );
        list(screen, "case", &heading, &items, 5, Tone::Plain);
    }
    if plan.past_path_max > 0 {
        let heading = format!(
            "{} past PATH_MAX (4,096 bytes of path): copied and verified through open folders, but git and most tools cannot open them by path (git add skips them with 'unable to access').",
            counted(plan.past_path_max, "entry lies", "entries lie")
        );
        screen.row("deep", &heading, Tone::Warn);
    }
    if !plan.windows_invalid.is_empty() {
        let heading = format!(
            "{} not valid on Windows (fine on ext4, Windows tools cannot open them):",
            counted(plan.windows_invalid.len() as u64, "name is", "names are")
        );
        list(
            screen,
            "names",
            &heading,
            &plan.windows_invalid,
            5,
            Tone::Plain,
        );
    }
}

/// What a finished migration did.
pub fn result(report: &MigrationReport, style: &Style) -> String {
    let mut screen = Screen::new(style);
    let headline = if report.already_migrated {
        format!(
            "Already migrated: {} were copied and verified by CRC32 (its manifest says so); nothing was copied now.",
            content(report.files, report.dirs, report.symlinks, report.bytes)
        )
    } else {
        format!(
            "Migrated: {} copied and verified by CRC32.",
            content(report.files, report.dirs, report.symlinks, report.bytes)
        )
    };
    screen.headline(&headline, Tone::Good);
    let destination = crate::pathtext::display(&report.destination);
    screen.row("linux path", &destination, Tone::Bold);
    if let Some(w) = &report.windows_path {
        screen.row("windows path", w, Tone::Plain);
    }
    if let Some(w) = &report.windows_legacy_path {
        screen.more(&format!("{w} (older Windows 10)"), Tone::Dim);
    }
    screen.row(
        "manifest",
        &crate::pathtext::display(&report.manifest),
        Tone::Plain,
    );
    for (i, step) in report.next_steps.iter().enumerate() {
        let key = if i == 0 { "next" } else { "" };
        screen.item(key, &step.why, Tone::Plain);
        screen.command(&step.command);
    }
    for (i, done) in report.fixups.done.iter().enumerate() {
        screen.item(if i == 0 { "fixed" } else { "" }, done, Tone::Plain);
    }
    for (i, advice) in report.fixups.advice.iter().enumerate() {
        screen.item(if i == 0 { "note" } else { "" }, advice, Tone::Warn);
    }
    for (i, p) in report.not_copied.iter().enumerate() {
        let text = format!("{}: {}", p.path, p.error);
        screen.item(if i == 0 { "not copied" } else { "" }, &text, Tone::Warn);
    }
    match &report.removal {
        Some(r) => {
            let heading = format!(
                "removed {} ({} unchanged since the copy by their stat, {} read again and identical), {}, {} proven copied; kept {}",
                counted(r.removed_files, "file", "files"),
                count(r.proven_by_stat),
                count(r.proven_by_reading),
                counted(r.removed_symlinks, "symlink", "symlinks"),
                counted(r.removed_dirs, "directory", "directories"),
                counted(r.kept_count, "entry", "entries")
            );
            list(&mut screen, "source", &heading, &r.kept, 50, Tone::Plain);
        }
        None => screen.row(
            "source",
            &format!(
                "left in place at {} (--remove-source deletes what the manifest proves was copied)",
                crate::pathtext::display(&report.source)
            ),
            Tone::Plain,
        ),
    }
    screen.finish()
}

/// `migrate --format markdown --dry-run`: the plan as a table.
pub fn plan_markdown(plan: &Plan) -> String {
    let mut out = String::from("### wsl-place: migration plan\n\n| | |\n|---|---|\n");
    // Values are markdown already: plain text through `cell`, names through `code`.
    let mut row = |key: &str, value: &str| {
        let _ = writeln!(out, "| {key} | {value} |");
    };
    row("from", &code(&crate::pathtext::display(&plan.source)));
    row("to", &code(&crate::pathtext::display(&plan.destination)));
    row(
        "content",
        &cell(&content(plan.files, plan.dirs, plan.symlinks, plan.bytes)),
    );
    if plan.resumed_files > 0 {
        row(
            "resume",
            &cell(&format!(
                "{} already copied and verified",
                counted(plan.resumed_files, "file", "files")
            )),
        );
    }
    row("space", &cell(&space(plan).0));
    if let Some(ms) = plan.predicted_copy_ms {
        row(
            "time",
            &cell(&format!("about {}", units::duration_ms(ms as f64))),
        );
    }
    let asking = asks_about_node_modules(plan);
    for nm in &plan.node_modules {
        row(
            "node_modules",
            &format!(
                "{}: {}; {}",
                code(&crate::pathtext::display_text(&nm.path)),
                cell(&units::tree(nm.files, nm.symlinks, nm.bytes, false)),
                cell(&node_modules_fate(
                    nm.skipped,
                    &nm.install.to_string(),
                    asking
                ))
            ),
        );
    }
    for question in &plan.questions {
        row("question", &cell(&question_line(question)));
    }
    for (what, n) in [
        ("special files skipped", plan.skipped.len()),
        ("unreadable entries", plan.unreadable.len()),
        ("names differing only by case", plan.case_collisions.len()),
        ("names not valid on Windows", plan.windows_invalid.len()),
        ("entries past PATH_MAX", plan.past_path_max as usize),
    ] {
        if n > 0 {
            row(what, &cell(&count(n as u64)));
        }
    }
    out
}

/// `migrate --format markdown`: what a finished migration did, as a table.
pub fn result_markdown(report: &MigrationReport) -> String {
    let mut out = if report.already_migrated {
        String::from("### wsl-place: already migrated ✅\n\n| | |\n|---|---|\n")
    } else {
        String::from("### wsl-place: migrated ✅\n\n| | |\n|---|---|\n")
    };
    // Values are markdown already: plain text through `cell`, names through `code`.
    let mut row = |key: &str, value: &str| {
        let _ = writeln!(out, "| {key} | {value} |");
    };
    row("from", &code(&crate::pathtext::display(&report.source)));
    row("to", &code(&crate::pathtext::display(&report.destination)));
    if let Some(w) = &report.windows_path {
        row("windows path", &code(&crate::pathtext::display_text(w)));
    }
    row(
        "copied and verified (CRC32)",
        &cell(&content(
            report.files,
            report.dirs,
            report.symlinks,
            report.bytes,
        )),
    );
    row(
        "manifest",
        &code(&crate::pathtext::display(&report.manifest)),
    );
    for step in &report.next_steps {
        row(
            "next",
            &format!("{} ({})", code(&step.command), cell(&step.why)),
        );
    }
    for done in &report.fixups.done {
        row("fixed", &cell(done));
    }
    for advice in &report.fixups.advice {
        row("note", &cell(advice));
    }
    if !report.not_copied.is_empty() {
        row("not copied", &cell(&count(report.not_copied.len() as u64)));
    }
    row(
        "source",
        &match &report.removal {
            Some(r) => format!(
                "removed {} proven copied, kept {}",
                counted(r.removed_files, "file", "files"),
                count(r.kept_count)
            ),
            None => "left in place".to_string(),
        },
    );
    out
}
