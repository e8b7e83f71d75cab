//! The plans shown before `--sync` and `--remove-source` ask: what each will do, path by path
//! where it keeps something.

use crate::base::units;
use crate::migrate::{Kept, RemovalShown, SyncReport};
use crate::store::moved::Moved;

/// How many paths a list in a plan shows before the rest is a count.
const LISTED: usize = 10;

/// A sync's plan for a person, before the question: `report` is what it will do.
pub fn sync_plan(moved: &Moved, report: &SyncReport) -> String {
    let r = report;
    let time = r
        .predicted_ms
        .map(|ms| format!(" (about {})", units::duration_ms(ms as f64)))
        .unwrap_or_default();
    // A conflict's version from here is copied too, saved beside the copy's: counted once.
    let saved_count = r.conflicts.iter().filter(|c| c.saved_as.is_some()).count() as u64;
    let saved = match saved_count {
        0 => String::new(),
        n => format!(", {} saved beside the copy's", units::count(n)),
    };
    // After --remove-source the old place holds only what the removal kept: said first.
    let removed = match (moved.source_removed, moved.removed_day()) {
        (false, _) => String::new(),
        (true, Some(day)) => format!("; removed by wsl-place on {day}, what it kept there"),
        (true, None) => "; removed by wsl-place, what it kept there".to_string(),
    };
    let mut out = format!(
        "Syncing late edits from {} to {} (migrated on {}{removed}):\n  copies   {} ({} added, {} changed{saved}), {}{time}\n  removes  {} removed here since and unchanged there\n",
        moved.source.display(),
        moved.destination.display(),
        moved.finished_day(),
        units::counted(r.added + r.changed + saved_count, "file", "files"),
        units::count(r.added),
        units::count(r.changed),
        units::bytes(r.bytes),
        units::counted(r.removed, "file", "files"),
    );
    conflicts(&mut out, r);
    history(&mut out, r);
    if r.changed_at_destination > 0 {
        out.push_str(&format!(
            "  keeps    {} changed at the destination since, as they are\n",
            units::counted(r.changed_at_destination, "file", "files")
        ));
    }
    out
}

/// Each conflict of a sync's plan (at most `LISTED`), and where this side's version is saved.
fn conflicts(out: &mut String, r: &SyncReport) {
    if r.conflicts.is_empty() {
        return;
    }
    out.push_str(&format!(
        "  conflicts {} (changed at both places; the destination's version stays, this one is saved beside it):\n",
        units::count(r.conflicts.len() as u64)
    ));
    for c in r.conflicts.iter().take(LISTED) {
        match &c.saved_as {
            Some(saved) => out.push_str(&format!(
                "           {}: {}; saved as {saved}\n",
                c.path, c.why
            )),
            None => out.push_str(&format!("           {}: {}\n", c.path, c.why)),
        }
    }
    if r.conflicts.len() > LISTED {
        out.push_str(&format!(
            "           and {} more\n",
            units::count((r.conflicts.len() - LISTED) as u64)
        ));
    }
}

/// The old place's history a sync's plan brings along: its summary, and each branch or tag.
fn history(out: &mut String, r: &SyncReport) {
    let Some(history) = &r.history else {
        return;
    };
    if let Some(summary) = crate::report::text::migrate::history_summary(history, false) {
        out.push_str(&format!("  history  {summary}\n"));
    }
    for line in &history.refs {
        out.push_str(&format!(
            "           {}\n",
            crate::report::text::migrate::history_line(line, false)
        ));
    }
}

/// `--remove-source`'s plan for a person, before the question. `verified` is the day an
/// earlier run verified the copy, or None when this run did.
pub fn removal_plan(shown: &RemovalShown) -> String {
    let (plan, source, destination) = (shown.plan, shown.source, shown.destination);
    let verified = shown.verified;
    let when = match verified {
        Some(day) => format!(
            "its copy at {} was verified on {day}",
            destination.display()
        ),
        None => format!("its copy at {} was just verified", destination.display()),
    };
    let time = plan
        .predicted_ms
        .map(|ms| format!(" (about {})", units::duration_ms(ms)))
        .unwrap_or_default();
    // The source folder itself goes last, and only when nothing in it is kept: counted apart,
    // as the result counts it.
    let itself = match plan.source_emptied {
        true => format!(" and {} itself", source.display()),
        false => String::new(),
    };
    let mut out = format!(
        "{} the source {} ({when}):\n  deletes  {}, then {}{itself}{time}\n",
        match shown.dry_run {
            true => "Would remove",
            false => "Removing",
        },
        source.display(),
        units::tree(
            plan.totals.files,
            plan.totals.symlinks,
            plan.totals.bytes,
            false
        ),
        units::counted(plan.totals.dirs, "emptied folder", "emptied folders"),
    );
    for git in plan.git.iter().filter(|g| g.kept.is_none()) {
        out.push_str(&format!(
            "  history  {}: every branch, tag and staged change there is in the copy (checked with git); removed whole ({})\n",
            crate::base::pathtext::display(git.path.as_path()),
            units::counted(git.files, "file", "files")
        ));
    }
    out.push_str(&kept_rows(&plan.kept));
    out
}

/// The plan's "keeps" rows: what stays in the source, listed in the order of their text
/// (paths first), the first `LISTED` of them.
fn kept_rows(kept: &[Kept]) -> String {
    if kept.is_empty() {
        return "  keeps    nothing: everything there was copied and is unchanged\n".to_string();
    }
    let mut out = format!(
        "  keeps    {}:\n",
        units::counted(kept.len() as u64, "entry", "entries")
    );
    let mut listed: Vec<String> = kept.iter().map(ToString::to_string).collect();
    listed.sort();
    for one in listed.iter().take(LISTED) {
        out.push_str(&format!("           {one}\n"));
    }
    if kept.len() > LISTED {
        out.push_str(&format!(
            "           and {} more\n",
            units::count((kept.len() - LISTED) as u64)
        ));
    }
    out
}
