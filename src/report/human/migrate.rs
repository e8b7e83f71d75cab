//! The human form of a migration plan and its result.

use super::Style;
use crate::migrate::{MigrationReport, Plan};
use crate::units::{bytes, duration_ms};
use std::fmt::Write;

/// Lists at most `limit` items, then how many more there are.
fn list(out: &mut String, items: &[String], limit: usize) {
    for item in items.iter().take(limit) {
        let _ = writeln!(out, "      {item}");
    }
    if items.len() > limit {
        let _ = writeln!(out, "      ... and {} more", items.len() - limit);
    }
}

pub fn plan(plan: &Plan, style: &Style) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", style.bold("Migration plan"));
    let _ = writeln!(out, "  from     {}", plan.source.display());
    let _ = writeln!(out, "  to       {}", plan.destination.display());
    let _ = writeln!(
        out,
        "  content  {} files, {} directories, {} symlinks, {}",
        plan.files,
        plan.dirs,
        plan.symlinks,
        bytes(plan.bytes)
    );
    if plan.resumed_files > 0 {
        let _ = writeln!(
            out,
            "  resume   {} files ({}) already copied and verified by an interrupted run",
            plan.resumed_files,
            bytes(plan.resumed_bytes)
        );
    }
    let space = match plan.free_bytes {
        Some(free) if free < plan.needed_bytes => style.bad(&format!(
            "needs {}, only {} free",
            bytes(plan.needed_bytes),
            bytes(free)
        )),
        Some(free) => style.good(&format!(
            "needs {}, {} free",
            bytes(plan.needed_bytes),
            bytes(free)
        )),
        None => format!("needs {}, free space unknown", bytes(plan.needed_bytes)),
    };
    let _ = writeln!(out, "  space    {space}");
    if let Some(ms) = plan.predicted_copy_ms {
        let _ = writeln!(
            out,
            "  time     about {} to copy and verify {}",
            duration_ms(ms as f64),
            style.dim(&format!("({})", plan.prediction_basis))
        );
    }
    for nm in &plan.node_modules {
        let what = if nm.skipped {
            format!(
                "left behind; reinstall it at the destination (`{}`)",
                nm.install
            )
        } else {
            "copied (--skip-node-modules leaves it behind to reinstall)".to_string()
        };
        let _ = writeln!(
            out,
            "  deps     {} ({} files, {}): {what}",
            nm.path,
            nm.files,
            bytes(nm.bytes)
        );
    }
    problems(&mut out, plan, style);
    out
}

/// What will not be copied, and what will not survive a trip back to Windows.
fn problems(out: &mut String, plan: &Plan, style: &Style) {
    if !plan.skipped.is_empty() {
        let _ = writeln!(
            out,
            "  {} special files are skipped:",
            style.warn(&plan.skipped.len().to_string())
        );
        let items: Vec<String> = plan
            .skipped
            .iter()
            .map(|s| format!("{}: {}", s.path, s.reason))
            .collect();
        list(out, &items, 10);
    }
    if !plan.unreadable.is_empty() {
        let _ = writeln!(
            out,
            "  {} entries cannot be read:",
            style.bad(&plan.unreadable.len().to_string())
        );
        let items: Vec<String> = plan
            .unreadable
            .iter()
            .map(|p| format!("{}: {}", p.path, p.error))
            .collect();
        list(out, &items, 10);
    }
    if !plan.case_collisions.is_empty() {
        let _ = writeln!(
            out,
            "  {} groups of names differ only by case (fine on ext4, they collide on Windows):",
            plan.case_collisions.len()
        );
        let items: Vec<String> = plan.case_collisions.iter().map(|g| g.join("  ")).collect();
        list(out, &items, 5);
    }
    if !plan.windows_invalid.is_empty() {
        let _ = writeln!(
            out,
            "  {} names are not valid on Windows (fine on ext4, Windows tools cannot open them):",
            plan.windows_invalid.len()
        );
        list(out, &plan.windows_invalid, 5);
    }
}

pub fn result(report: &MigrationReport, style: &Style) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {} files, {} directories, {} symlinks ({}) copied and verified by CRC32.",
        style.good("Migrated."),
        report.files,
        report.dirs,
        report.symlinks,
        bytes(report.bytes)
    );
    let _ = writeln!(
        out,
        "  linux    {}",
        style.bold(&report.destination.display().to_string())
    );
    if let Some(w) = &report.windows_path {
        let _ = writeln!(out, "  windows  {w}");
    }
    if let Some(w) = &report.windows_legacy_path {
        let _ = writeln!(
            out,
            "           {}",
            style.dim(&format!("{w} (older Windows 10)"))
        );
    }
    let _ = writeln!(out, "  manifest {}", report.manifest.display());
    let _ = writeln!(
        out,
        "  open it  cd {} && code .",
        crate::pathtext::shell_quote(&report.destination)
    );
    for done in &report.fixups.done {
        let _ = writeln!(out, "  fixed    {done}");
    }
    for advice in &report.fixups.advice {
        let _ = writeln!(out, "  {}  {advice}", style.warn("note"));
    }
    for p in &report.not_copied {
        let _ = writeln!(out, "  {} {}: {}", style.warn("skipped"), p.path, p.error);
    }
    match &report.removal {
        Some(r) => {
            let _ = writeln!(
                out,
                "  source   removed {} files, {} symlinks, {} directories proven copied; kept {}",
                r.removed_files, r.removed_symlinks, r.removed_dirs, r.kept_count
            );
            list(&mut out, &r.kept, 10);
        }
        None => {
            let _ = writeln!(
                out,
                "  source   left in place at {} (--remove-source deletes what the manifest proves was copied)",
                report.source.display()
            );
        }
    }
    out
}
