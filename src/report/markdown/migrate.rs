//! `migrate --format markdown`: the plan (with `--dry-run`) and the result as tables.

use super::cell;
use crate::base::units::{self, count, counted};
use crate::migrate::{MigrationReport, Plan};
use crate::report::text::migrate::{
    asks_about_node_modules, content, node_modules_fate, question_line, space,
};
use std::fmt::Write;

/// `migrate --format markdown --dry-run`: the plan as a table.
pub fn plan(plan: &Plan) -> String {
    let mut out = String::from("### wsl-place: migration plan\n\n| | |\n|---|---|\n");
    let mut row = |key: &str, value: &str| {
        let _ = writeln!(out, "| {key} | {} |", cell(value));
    };
    row("from", &format!("`{}`", plan.source.display()));
    row("to", &format!("`{}`", plan.destination.display()));
    row(
        "content",
        &content(plan.files, plan.dirs, plan.symlinks, plan.bytes),
    );
    if plan.resumed_files > 0 {
        row(
            "resume",
            &format!(
                "{} already copied and verified",
                counted(plan.resumed_files, "file", "files")
            ),
        );
    }
    row("space", &space(plan).0);
    if let Some(ms) = plan.predicted_copy_ms {
        row("time", &format!("about {}", units::duration_ms(ms as f64)));
    }
    let asking = asks_about_node_modules(plan);
    for nm in &plan.node_modules {
        row(
            "node_modules",
            &format!(
                "`{}`: {}; {}",
                nm.path,
                units::tree(nm.files, nm.symlinks, nm.bytes, false),
                node_modules_fate(nm.skipped, &nm.install.to_string(), asking)
            ),
        );
    }
    for question in &plan.questions {
        row("question", &question_line(question));
    }
    for (what, n) in [
        ("special files skipped", plan.skipped.len()),
        ("unreadable entries", plan.unreadable.len()),
        ("names differing only by case", plan.case_collisions.len()),
        ("names not valid on Windows", plan.windows_invalid.len()),
        ("entries past PATH_MAX", plan.past_path_max as usize),
    ] {
        if n > 0 {
            row(what, &count(n as u64));
        }
    }
    out
}

/// `migrate --format markdown`: what a finished migration did, as a table.
pub fn result(report: &MigrationReport) -> String {
    let mut out = if report.already_migrated {
        String::from("### wsl-place: already migrated ✅\n\n| | |\n|---|---|\n")
    } else {
        String::from("### wsl-place: migrated ✅\n\n| | |\n|---|---|\n")
    };
    let mut row = |key: &str, value: &str| {
        let _ = writeln!(out, "| {key} | {} |", cell(value));
    };
    row("from", &format!("`{}`", report.source.display()));
    row("to", &format!("`{}`", report.destination.display()));
    if let Some(w) = &report.windows_path {
        row("windows path", &format!("`{w}`"));
    }
    row(
        "copied and verified (CRC32)",
        &content(report.files, report.dirs, report.symlinks, report.bytes),
    );
    row("manifest", &format!("`{}`", report.manifest.display()));
    for step in &report.next_steps {
        row("next", &format!("`{}` ({})", step.command, step.why));
    }
    for done in &report.fixups.done {
        row("fixed", done);
    }
    for advice in &report.fixups.advice {
        row("note", advice);
    }
    if !report.not_copied.is_empty() {
        row("not copied", &count(report.not_copied.len() as u64));
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
