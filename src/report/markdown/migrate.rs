//! `migrate --format markdown`: the plan (with `--dry-run`) and the result as tables.

use super::{cell, code};
use crate::base::units::{self, count, counted};
use crate::migrate::{MigrationReport, PlanDocument, SyncReport};
use crate::report::text::migrate::{
    asks_about_node_modules, content, node_modules_fate, question_line, space, took,
};
use std::fmt::Write;

/// `migrate --format markdown --dry-run`: the plan as a table.
pub fn plan(plan: &PlanDocument) -> String {
    let mut out = String::from("### wsl-place: migration plan\n\n| | |\n|---|---|\n");
    // Values are markdown already: plain text through `cell`, names through `code`.
    let mut row = |key: &str, value: &str| {
        let _ = writeln!(out, "| {key} | {value} |");
    };
    what_moves(&mut row, plan);
    let asking = asks_about_node_modules(plan);
    for nm in &plan.node_modules {
        row(
            "node_modules",
            &format!(
                "{}: {}; {}",
                code(&crate::base::pathtext::display_text(&nm.path.to_string())),
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
    problem_counts(&mut row, plan);
    out
}

/// Where from, where to, what the copy holds, what an interrupted run copied, whether it fits
/// and how long it takes.
fn what_moves(row: &mut impl FnMut(&str, &str), plan: &PlanDocument) {
    row("from", &code(&crate::base::pathtext::display(&plan.source)));
    row(
        "to",
        &code(&crate::base::pathtext::display(&plan.destination)),
    );
    row("content", &cell(&content(plan.totals)));
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
            &cell(&format!(
                "about {} to copy, verify and fix up, {}",
                units::duration_ms(ms as f64),
                plan.prediction_basis
            )),
        );
    }
}

/// How many entries the copy skips, cannot read, or copies under names Windows or most tools
/// cannot use (the human form lists them).
fn problem_counts(row: &mut impl FnMut(&str, &str), plan: &PlanDocument) {
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
}

/// `migrate --format markdown`: what a finished migration did, as a table.
pub fn result(report: &MigrationReport) -> String {
    let title = match (&report.removal, report.already_migrated) {
        (Some(_), true) => "source removed",
        (None, true) => "already migrated",
        (_, false) => "migrated",
    };
    let mut out = format!("### wsl-place: {title} ✅\n\n| | |\n|---|---|\n");
    // Values are markdown already: plain text through `cell`, names through `code`.
    let mut row = |key: &str, value: &str| {
        let _ = writeln!(out, "| {key} | {value} |");
    };
    row(
        "from",
        &code(&crate::base::pathtext::display(&report.source)),
    );
    if let Some(sync) = &report.sync {
        sync_rows(&mut row, sync);
    }
    where_it_is(&mut row, report);
    after_the_move(&mut row, report);
    if !report.not_copied.is_empty() {
        row("not copied", &cell(&count(report.not_copied.len() as u64)));
    }
    source_rows(&mut row, report);
    out
}

/// `--sync`: what it added, changed and removed (or plans to), and each branch or tag it moved.
fn sync_rows(row: &mut impl FnMut(&str, &str), sync: &SyncReport) {
    row(
        "sync",
        &cell(&format!(
            "{}{} added, {} changed, {} removed, {} conflicts (both versions kept)",
            if sync.done { "" } else { "planned: " },
            count(sync.added),
            count(sync.changed),
            count(sync.removed),
            count(sync.conflicts.len() as u64)
        )),
    );
    for line in sync.history.iter().flat_map(|h| &h.refs) {
        row(
            "history",
            &cell(&crate::report::text::migrate::history_line(line, sync.done)),
        );
    }
}

/// The copy's paths, what it holds, its manifest, and how long the run took.
fn where_it_is(row: &mut impl FnMut(&str, &str), report: &MigrationReport) {
    row(
        "to",
        &code(&crate::base::pathtext::display(&report.destination)),
    );
    if let Some(w) = &report.windows_path {
        row(
            "windows path",
            &code(&crate::base::pathtext::display_text(w)),
        );
    }
    row(
        "copied and verified (CRC32)",
        &cell(&content(report.totals)),
    );
    row(
        "manifest",
        &code(&crate::base::pathtext::display(&report.manifest)),
    );
    if let Some(took) = took(report) {
        row("time", &cell(&took));
    }
}

/// The next steps, what the fix-ups did or advise, and each setting still naming the old place.
fn after_the_move(row: &mut impl FnMut(&str, &str), report: &MigrationReport) {
    for step in &report.next_steps {
        row(
            "next",
            &format!("{} ({})", code(&step.command), cell(&step.why)),
        );
    }
    for done in &report.fixups.done {
        row("fixed", &cell(&done.to_string()));
    }
    for advice in &report.fixups.advice {
        row("note", &cell(&advice.to_string()));
    }
    for hit in &report.still_points_to_old_place {
        row(
            "old place",
            &format!(
                "{} names it ({}); change it to {}",
                code(&format!("{}:{}", hit.file, hit.line)),
                code(&hit.old),
                code(&hit.change_to)
            ),
        );
    }
}

/// What became of the source, and after a removal where the shell that ran it should go.
fn source_rows(row: &mut impl FnMut(&str, &str), report: &MigrationReport) {
    row(
        "source",
        &match &report.removal {
            Some(r) => format!(
                "removed {} and {} proven copied{}, kept {}",
                counted(r.removed_files, "file", "files"),
                counted(r.removed_dirs, "emptied folder", "emptied folders"),
                if r.removed_source_folder {
                    ", and the folder itself"
                } else {
                    ""
                },
                count(r.kept_count)
            ),
            None => "left in place".to_string(),
        },
    );
    if let Some(cd) = report.removal.as_ref().and_then(|r| r.cd.as_ref()) {
        row(
            "shell",
            &format!(
                "{}; run {}",
                cell(
                    if report
                        .removal
                        .as_ref()
                        .is_some_and(|r| r.shell_folder_removed)
                    {
                        "your shell is still in the removed folder"
                    } else {
                        "your shell is still at the old place"
                    }
                ),
                code(cd)
            ),
        );
    }
}
