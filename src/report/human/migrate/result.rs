//! What a finished migration did: the headline, where the copy is, what was fixed and what
//! still names the old place.

use super::super::{Screen, Style, Tone};
use super::source::source_rows;
use super::sync::sync_rows;
use super::windows::windows_result;
use crate::base::units::{self, counted};
use crate::migrate::{InCopy, MigrationReport};
use crate::report::text::migrate::{content, took};

/// The result's first line: what this run did (synced, removed the source, migrated), or that
/// it found the migration finished.
fn result_headline(report: &MigrationReport) -> String {
    let synced = report.sync.as_ref().filter(|s| s.done && s.has_work());
    let holds = content(report.totals);
    let destination = crate::base::pathtext::display(&report.destination);
    if report.run_in_copy.is_some() {
        format!(
            "This repository is the copy of {} and is on the Linux disk already, holding {holds}; nothing was copied now.",
            crate::base::pathtext::display(&report.source)
        )
    } else if let Some(sync) = synced.filter(|s| !s.not_copied.is_empty()) {
        format!(
            "Synced, except {} that could not be read (listed below, still only at the source); the copy now holds {holds}, .git included.",
            units::counted(sync.not_copied.len() as u64, "file", "files"),
        )
    } else if synced.is_some() {
        format!(
            "Synced: the late edits are in the copy, which now holds {holds}, .git included; the manifest says so."
        )
    } else if let Some(removal) = report.removal.as_ref().filter(|_| report.already_migrated) {
        let what = match removal.kept_count {
            0 => "Removed the source".to_string(),
            n => format!(
                "Removed from the source what was proven copied ({} kept there, listed below)",
                counted(n, "entry", "entries")
            ),
        };
        format!(
            "{what}: {} is the repository now, holding {holds}, .git included.",
            destination
        )
    } else if report.already_migrated {
        format!(
            "Already migrated: {holds} were copied and verified by CRC32 (its manifest says so); nothing was copied now."
        )
    } else if report.removal.is_some() {
        format!("Migrated: {holds} copied and verified by CRC32; the source was removed, as asked.")
    } else {
        format!("Migrated: {holds} copied and verified by CRC32.")
    }
}

/// What a finished migration did.
pub fn result(report: &MigrationReport, style: &Style) -> String {
    let mut screen = Screen::new(style);
    let headline = result_headline(report);
    screen.headline(&headline, Tone::Good);
    if let Some(sync) = &report.sync {
        sync_rows(&mut screen, sync, &report.destination);
    }
    where_it_is(&mut screen, report);
    if let Some(took) = took(report) {
        screen.row("time", &took, Tone::Plain);
    }
    first_status_row(&mut screen, report);
    after_the_move(&mut screen, report);
    if let Some(windows) = &report.windows {
        windows_result(&mut screen, windows);
    }
    still_pointing(&mut screen, &report.still_points_to_old_place);
    for (i, p) in report.not_copied.iter().enumerate() {
        let text = format!("{}: {}", p.path, p.error);
        screen.item(if i == 0 { "not copied" } else { "" }, &text, Tone::Warn);
    }
    match &report.run_in_copy {
        Some(in_copy) => old_place_rows(&mut screen, report, in_copy),
        None => source_rows(&mut screen, report),
    }
    if let Some(sync) = &report.sync {
        super::sync::answer_row(&mut screen, sync);
    }
    screen.finish()
}

/// Run in the copy: the old place is removed already, or what is left to run there.
fn old_place_rows(screen: &mut Screen, report: &MigrationReport, in_copy: &InCopy) {
    let old = crate::base::pathtext::display(&report.source);
    if let Some(command) = &in_copy.abort {
        let value = "--abort deletes this copy and goes back to the old place; it is run naming the old place, not from inside the copy:";
        screen.row("abort", value, Tone::Plain);
        screen.command(command);
    }
    match &in_copy.remove_source {
        None => screen.row("old place", &format!("{old} is removed"), Tone::Plain),
        Some(command) => {
            let value = format!(
                "{old} is left in place; once you no longer need it, remove what the manifest proves copied:"
            );
            screen.row("left to do", &value, Tone::Plain);
            screen.command(command);
        }
    }
}

/// The copy's Linux and Windows paths, its manifest, and the source's other copies.
fn where_it_is(screen: &mut Screen, report: &MigrationReport) {
    let destination = crate::base::pathtext::display(&report.destination);
    screen.row("linux path", &destination, Tone::Bold);
    if let Some(w) = &report.windows_path {
        screen.row("windows path", w, Tone::Plain);
    }
    if let Some(w) = &report.windows_legacy_path {
        screen.more(&format!("{w} (older Windows 10)"), Tone::Dim);
    }
    screen.row(
        "manifest",
        &crate::base::pathtext::display(&report.manifest),
        Tone::Plain,
    );
    for other in &report.other_copies {
        let value = format!(
            "{}: another copy of the source (--sync updates only the newest)",
            crate::base::pathtext::display(other)
        );
        screen.row("other copy", &value, Tone::Plain);
    }
}

/// The first git status at the copy, predicted against measured, and whether the machine's
/// record learned from it.
fn first_status_row(screen: &mut Screen, report: &MigrationReport) {
    let Some(first) = &report.first_status else {
        return;
    };
    let checked = &first.checked;
    let kept = match &first.not_kept {
        None => "kept in this machine's record".to_string(),
        Some(why) => format!(
            "not kept in this machine's record: {why}, so later plans on this disk do not learn from it"
        ),
    };
    // The prediction is shown only where the measurement bears it out; a miss says why.
    // The figure the plan showed ("about ~X for the first git status"), never a range it did
    // not show.
    let planned = units::duration_ms(checked.predicted_ms);
    let against = match &first.missed {
        None => format!("as the plan said (~{planned})"),
        Some(why) => format!("where the plan said ~{planned}: {why}"),
    };
    screen.row(
        "first status",
        &format!(
            "the first git status at the copy took {}, {against}; {kept}",
            units::duration_ms(checked.measured_ms),
        ),
        match first.not_kept {
            None => Tone::Dim,
            Some(_) => Tone::Warn,
        },
    );
}

/// The next steps to run, and what the fix-ups after the move did or advise.
fn after_the_move(screen: &mut Screen, report: &MigrationReport) {
    for (i, step) in report.next_steps.iter().enumerate() {
        let key = if i == 0 { "next" } else { "" };
        screen.item(key, &step.why, Tone::Plain);
        screen.command(&step.command);
    }
    for (i, done) in report.fixups.done.iter().enumerate() {
        let done = done.to_string();
        screen.item(if i == 0 { "fixed" } else { "" }, &done, Tone::Plain);
    }
    for (i, advice) in report.fixups.advice.iter().enumerate() {
        let advice = advice.to_string();
        screen.item(if i == 0 { "note" } else { "" }, &advice, Tone::Warn);
    }
}

/// Each settings line that still names the old place, with what to write instead.
fn still_pointing(screen: &mut Screen, found: &[crate::migrate::StillPointing]) {
    for (i, hit) in found.iter().enumerate() {
        let key = if i == 0 { "old place" } else { "" };
        screen.item(
            key,
            &format!(
                "{}:{} names the old place ({}); change it to {}",
                hit.file, hit.line, hit.old, hit.change_to
            ),
            Tone::Warn,
        );
        screen.more(&hit.text, Tone::Dim);
    }
}
