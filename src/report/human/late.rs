//! The plans shown before `--sync` and `--remove-source` ask: what each will do, path by path
//! where it keeps something.

use crate::base::units;
use crate::migrate::{Conflict, Kept, RemovalShown, SyncReport};
use crate::store::moved::Moved;

/// How many paths a list in a plan shows before the rest is a count.
const LISTED: usize = 10;

/// A sync's plan for a person, before the question, laid out for `width` columns: `report` is
/// what it will do.
pub fn sync_plan(moved: &Moved, report: &SyncReport, width: usize) -> String {
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
    let mut out = String::new();
    let heading = format!(
        "Syncing late edits from {} to {} (migrated on {}{removed}):",
        moved.source.display(),
        moved.destination.display(),
        moved.finished_day(),
    );
    for (i, line) in super::wrap(&heading, width.saturating_sub(2))
        .iter()
        .enumerate()
    {
        out.push_str(if i == 0 { "" } else { "  " });
        out.push_str(line);
        out.push('\n');
    }
    let copies = format!(
        "{} ({} added, {} changed{saved}), {}{time}",
        units::counted(r.added + r.changed + saved_count, "file", "files"),
        units::count(r.added),
        units::count(r.changed),
        units::bytes(r.bytes),
    );
    let removes = format!(
        "{} removed here since and unchanged there",
        units::counted(r.removed, "file", "files")
    );
    let plan = PlanRows { width };
    plan.row(&mut out, "copies", &copies);
    plan.row(&mut out, "removes", &removes);
    conflicts(&mut out, &plan, r);
    history(&mut out, &plan, r);
    if r.changed_at_destination > 0 {
        let keeps = format!(
            "{} changed at the destination since, as they are",
            units::counted(r.changed_at_destination, "file", "files")
        );
        plan.row(&mut out, "keeps", &keeps);
    }
    out
}

/// The sync plan's rows: a key, and its value wrapped beside it at word and path boundaries.
struct PlanRows {
    width: usize,
}

impl PlanRows {
    /// Two spaces, the longest key ("conflicts") and two more.
    const MARGIN: usize = 13;

    fn row(&self, out: &mut String, key: &str, value: &str) {
        let lines = super::wrap(value, self.width.saturating_sub(Self::MARGIN));
        for (i, line) in lines.iter().enumerate() {
            let key = if i == 0 { key } else { "" };
            out.push_str(&format!("  {key:<11}{line}\n"));
        }
    }
}

/// What the conflicts of a sync have in common, said once above them: why (when it is the
/// same for all) and how the saved version is named beside the copy's.
pub(crate) struct Shared {
    why: Option<String>,
    /// `.from-source-YYYYMMDD`, the name a saved version adds to its file's.
    suffix: Option<String>,
}

impl Shared {
    pub fn of(conflicts: &[Conflict]) -> Self {
        let first = conflicts.first().map(|c| c.why.as_str());
        let why = first
            .filter(|why| conflicts.iter().all(|c| c.why == *why))
            .map(str::to_string);
        let suffix = conflicts.iter().find_map(|c| {
            let (path, saved) = (c.path.to_string(), c.saved_as.as_ref()?.to_string());
            saved.strip_prefix(&path).map(str::to_string)
        });
        Self { why, suffix }
    }

    /// The heading's words after the count, `kept` saying what stays at the copy.
    pub fn heading(&self, count: usize, kept: &str) -> String {
        let why = self
            .why
            .as_deref()
            .map(|w| format!(" {w}"))
            .unwrap_or_default();
        let saved = match &self.suffix {
            Some(suffix) => format!(", the source's saved beside it as NAME{suffix}"),
            None => String::new(),
        };
        format!("{}{why}: {kept}{saved}", units::count(count as u64))
    }

    /// One conflict: its path, and what the heading does not say of it.
    pub fn item(&self, c: &Conflict) -> String {
        let mut text = c.path.to_string();
        if self.why.is_none() {
            text.push_str(&format!(": {}", c.why));
        }
        if let Some(saved) = &c.saved_as {
            let named = format!("{}{}", c.path, self.suffix.as_deref().unwrap_or_default());
            if saved.to_string() != named {
                text.push_str(&format!("; saved as {saved}"));
            }
        }
        text
    }
}

/// Each conflict of a sync's plan (at most `LISTED`), what they share said once.
fn conflicts(out: &mut String, plan: &PlanRows, r: &SyncReport) {
    if r.conflicts.is_empty() {
        return;
    }
    let shared = Shared::of(&r.conflicts);
    let kept = "the destination's version stays";
    plan.row(out, "conflicts", &shared.heading(r.conflicts.len(), kept));
    for c in r.conflicts.iter().take(LISTED) {
        plan.row(out, "", &shared.item(c));
    }
    if r.conflicts.len() > LISTED {
        let more = format!(
            "and {} more",
            units::count((r.conflicts.len() - LISTED) as u64)
        );
        plan.row(out, "", &more);
    }
}

/// The old place's history a sync's plan brings along: its summary, and each branch or tag.
fn history(out: &mut String, plan: &PlanRows, r: &SyncReport) {
    let Some(history) = &r.history else {
        return;
    };
    if let Some(summary) = crate::report::text::migrate::history_summary(history, false) {
        plan.row(out, "history", &summary);
    }
    for line in &history.refs {
        plan.row(
            out,
            "",
            &crate::report::text::migrate::history_line(line, false),
        );
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
