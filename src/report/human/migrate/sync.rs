//! `--sync` in a migration's result: what reached the copy, the history, each conflict.

use super::super::{Screen, Tone};
use crate::base::units::{self, count};
use crate::migrate::SyncReport;

/// `--sync`: the old place's history, and each branch or tag it moved.
fn history_rows(screen: &mut Screen, sync: &SyncReport) {
    let Some(history) = &sync.history else {
        return;
    };
    use crate::report::text::migrate::{history_line, history_summary};
    if let Some(summary) = history_summary(history, sync.done) {
        let tone = match history.failed {
            Some(_) => Tone::Warn,
            None => Tone::Plain,
        };
        screen.row("history", &summary, tone);
    }
    for (i, r) in history.refs.iter().enumerate() {
        let tone = match r.action {
            crate::migrate::RefAction::FastForward | crate::migrate::RefAction::Create => {
                Tone::Good
            }
            _ => Tone::Warn,
        };
        screen.item(
            if i == 0 { "branches" } else { "" },
            &history_line(r, sync.done),
            tone,
        );
    }
}

/// `--sync`: what reached the copy, and each conflict with where the source's version went.
pub(super) fn sync_rows(screen: &mut Screen, sync: &SyncReport) {
    let (text, tone) = summary(sync);
    screen.row("sync", &text, tone);
    history_rows(screen, sync);
    conflict_rows(screen, sync);
    for (i, path) in sync.not_copied.iter().enumerate() {
        screen.item(if i == 0 { "not copied" } else { "" }, path, Tone::Warn);
    }
}

/// The sync's line: how many files it added, changed and removed (or would have), or that there
/// was nothing to copy.
fn summary(sync: &SyncReport) -> (String, Tone) {
    let saved = sync
        .conflicts
        .iter()
        .filter(|c| c.saved_as.is_some())
        .count() as u64;
    let saved = match saved {
        0 => String::new(),
        n => format!(", {} saved beside the copy's", count(n)),
    };
    let what = format!(
        "{} added, {} changed, {} removed{saved} at the destination ({})",
        count(sync.added),
        count(sync.changed),
        count(sync.removed),
        units::bytes(sync.bytes)
    );
    let nothing = sync.added + sync.changed + sync.removed + sync.conflicts.len() as u64 == 0;
    let history = sync.history.as_ref().is_some_and(|h| !h.refs.is_empty());
    match sync.done {
        true if nothing && history => (
            "no file to copy: what changed at the source is in its commits (below)".to_string(),
            Tone::Plain,
        ),
        true if nothing => (
            "nothing to copy: nothing changed at the source since".to_string(),
            Tone::Plain,
        ),
        true => (format!("{what}, each file verified by CRC32"), Tone::Good),
        false => (format!("would be {what}; nothing was copied"), Tone::Plain),
    }
}

/// Each conflict with the commands that show or merge it, and where the saved versions are.
fn conflict_rows(screen: &mut Screen, sync: &SyncReport) {
    for (i, c) in sync.conflicts.iter().enumerate() {
        let text = match &c.saved_as {
            Some(saved) => format!(
                "{}: {}; the copy's is kept, the source's saved as {saved}",
                c.path, c.why
            ),
            None => format!("{}: {}", c.path, c.why),
        };
        screen.item(if i == 0 { "conflict" } else { "" }, &text, Tone::Warn);
        for command in c.diff.iter().chain(&c.merge) {
            screen.command(command);
        }
    }
    if sync.conflicts.iter().any(|c| c.saved_as.is_some()) {
        let kept_out = match &sync.excluded_in {
            Some(file) => format!(
                "kept out of `git add .` by an entry in {file}, dropped by the next sync once the saved file is gone"
            ),
            None => "not kept out of `git add .`: delete them before you commit".to_string(),
        };
        screen.row(
            "saved versions",
            &format!(
                "in the copy: see the difference, or merge (conflict markers where both changed a line), then delete the saved file; {kept_out}"
            ),
            Tone::Plain,
        );
    }
}
