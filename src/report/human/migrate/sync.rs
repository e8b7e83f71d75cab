//! `--sync` in a migration's result: what reached the copy, the history, each conflict.

use super::super::late::Shared;
use super::super::{Screen, Tone, columns};
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
pub(super) fn sync_rows(screen: &mut Screen, sync: &SyncReport, copy: &std::path::Path) {
    let (text, tone) = summary(sync);
    screen.row("sync", &text, tone);
    history_rows(screen, sync);
    conflict_rows(screen, sync, copy);
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

/// How many conflicts the result lists before the rest is a count (all are in the JSON).
const LISTED: usize = 10;

/// Each conflict on a line of its own, under what they share; then how to settle them.
fn conflict_rows(screen: &mut Screen, sync: &SyncReport, copy: &std::path::Path) {
    if sync.conflicts.is_empty() {
        return;
    }
    let shared = Shared::of(&sync.conflicts);
    let kept = "the copy's version is kept";
    let heading = shared.heading(sync.conflicts.len(), kept);
    screen.row("conflicts", &heading, Tone::Warn);
    for c in sync.conflicts.iter().take(LISTED) {
        screen.item("", &shared.item(c), Tone::Warn);
    }
    if sync.conflicts.len() > LISTED {
        let more = sync.conflicts.len() - LISTED;
        let more = format!("and {} more (each one: --format json)", count(more as u64));
        screen.more(&more, Tone::Warn);
    }
    saved_rows(screen, sync, copy);
}

/// How to settle the saved versions, with the first one's commands to see and merge it (each
/// one's are in the JSON: the screen keeps to a terminal's height).
fn saved_rows(screen: &mut Screen, sync: &SyncReport, copy: &std::path::Path) {
    let with_commands: Vec<_> = sync
        .conflicts
        .iter()
        .filter(|c| c.diff.is_some() || c.merge.is_some())
        .collect();
    if sync.conflicts.iter().all(|c| c.saved_as.is_none()) {
        return;
    }
    let which = match with_commands.len() {
        0 => "",
        1 => ":",
        _ => "; for the first (each one's commands: --format json):",
    };
    screen.row(
        "saved versions",
        &format!(
            "in the copy: see the difference, or merge (conflict markers where both changed a line), then delete the saved file{which}"
        ),
        Tone::Plain,
    );
    if let Some(first) = with_commands.first() {
        for command in first.diff.iter().chain(&first.merge) {
            command_lines(screen, command);
        }
    }
    // Named from the copy, where the commands above run: the copy's path is said above.
    let copy = format!("{}/", crate::base::pathtext::display(copy));
    let kept_out = match &sync.excluded_in {
        Some(file) => format!(
            "kept out of `git add .` by an entry in {}, dropped by the next sync once the saved file is gone",
            file.to_string()
                .strip_prefix(&copy)
                .unwrap_or(&file.to_string())
        ),
        None => "not kept out of `git add .`: delete them before you commit".to_string(),
    };
    screen.more(&kept_out, Tone::Plain);
}

/// A command to copy, under the value column; one too wide for it is broken between its
/// words with a shell line continuation, so no path is cut and it still pastes whole.
fn command_lines(screen: &mut Screen, command: &str) {
    use super::super::{INDENT, KEY_WIDTH};
    let width = screen.style().width;
    if INDENT + KEY_WIDTH + 2 + columns(command) <= width {
        return screen.command(command);
    }
    let words = shell_words(command);
    // A path too long for the value column moves the whole command left, as a command does.
    let longest = words.iter().map(|w| columns(w)).max().unwrap_or(0);
    let margin = match INDENT + KEY_WIDTH + 2 + 2 + longest + 2 <= width {
        true => INDENT + KEY_WIDTH + 2,
        false => 2 * INDENT,
    };
    let room = width.saturating_sub(margin + 2).max(20);
    let mut lines: Vec<String> = Vec::new();
    for word in words {
        let lead = if lines.len() <= 1 { 0 } else { 2 };
        match lines.last_mut() {
            Some(line) if lead + columns(line) + 1 + columns(&word) <= room => {
                line.push(' ');
                line.push_str(&word);
            }
            _ => lines.push(word),
        }
    }
    let last = lines.len().saturating_sub(1);
    for (i, line) in lines.iter().enumerate() {
        let lead = if i == 0 { margin } else { margin + 2 };
        let tail = if i == last { "" } else { " \\" };
        let painted = screen.style().bold(line);
        screen.raw(&format!("{:lead$}{painted}{tail}", ""));
    }
}

/// A command's words as the shell splits them: a quoted path's spaces stay inside it.
fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let (mut quoted, mut escaped) = (false, false);
    for c in command.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '\'' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                continue;
            }
            _ => {}
        }
        word.push(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The sync's answer again, last, with the figures that decide what is left to do: a person
/// whose terminal scrolled reads it without scrolling back.
pub(super) fn answer_row(screen: &mut Screen, sync: &SyncReport) {
    if !sync.done || !sync.has_work() {
        return;
    }
    let mut text = format!(
        "{} added, {} changed, {} removed at the copy",
        count(sync.added),
        count(sync.changed),
        count(sync.removed)
    );
    let tone = match sync.conflicts.len() {
        0 => Tone::Good,
        n => {
            text.push_str(&format!(
                "; {} to settle there (listed above)",
                units::counted(n as u64, "conflict", "conflicts")
            ));
            Tone::Warn
        }
    };
    screen.row("synced", &text, tone);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quoted_path_is_one_word() {
        assert_eq!(
            shell_words("git diff --no-index 'a b.txt' 'it'\\''s'"),
            ["git", "diff", "--no-index", "'a b.txt'", "'it'\\''s'"]
        );
    }

    #[test]
    fn a_long_command_breaks_between_words_with_a_continuation() {
        let style = super::super::super::Style::plain(60);
        let mut screen = Screen::new(&style);
        let long = "git merge-file -L copy -L base -L source some/deep/path/file.js /dev/null some/deep/path/file.js.from-source-20261206";
        command_lines(&mut screen, long);
        let out = screen.finish();
        for line in out.lines() {
            assert!(columns(line) <= 60, "{line:?} in\n{out}");
        }
        let joined: Vec<&str> = out
            .lines()
            .map(|l| l.trim().trim_end_matches(" \\"))
            .collect();
        assert_eq!(joined.join(" "), long, "{out}");
    }
}
