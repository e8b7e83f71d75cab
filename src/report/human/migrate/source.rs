//! What became of the source after a migration, and where the shell that ran it should go.

use super::super::{Screen, Tone};
use super::list;
use crate::base::units::{count, counted};
use crate::migrate::MigrationReport;

/// What became of the source: removed (what was kept and why), or left in place; and after a
/// removal, where the shell that ran it should go.
pub(super) fn source_rows(screen: &mut Screen, report: &MigrationReport) {
    let Some(r) = &report.removal else {
        screen.row(
            "source",
            &format!(
                "left in place at {} (--remove-source deletes what the manifest proves was copied)",
                crate::base::pathtext::display(&report.source)
            ),
            Tone::Plain,
        );
        return;
    };
    let itself = if r.removed_source_folder {
        format!(
            " and {} itself",
            crate::base::pathtext::display(&report.source)
        )
    } else {
        String::new()
    };
    let heading = format!(
        "removed {} ({} unchanged since the copy by their stat, {} read again and identical), {}, {}{itself}, all proven copied; kept {}",
        counted(r.removed_files, "file", "files"),
        count(r.proven_by_stat),
        count(r.proven_by_reading),
        counted(r.removed_symlinks, "symlink", "symlinks"),
        counted(r.removed_dirs, "emptied folder", "emptied folders"),
        counted(r.kept_count, "entry", "entries")
    );
    let kept: Vec<String> = r.kept.iter().map(ToString::to_string).collect();
    list(screen, "source", &heading, &kept, 50, Tone::Plain);
    for git in r.git.iter().filter(|g| g.kept.is_none()) {
        screen.more(
            &format!(
                "{} removed whole: its history is in the copy (checked with git)",
                crate::base::pathtext::display(git.path.as_path())
            ),
            Tone::Plain,
        );
    }
    if let Some(rm) = &r.plain_folder {
        screen.row(
            "old folder",
            &format!(
                "{} holds only what was kept and is no git repository now; once you no longer need it:",
                crate::base::pathtext::display(&report.source)
            ),
            Tone::Plain,
        );
        screen.command(rm);
    }
    shell_row(screen, report);
}

/// After a removal, where the shell that ran it should go.
fn shell_row(screen: &mut Screen, report: &MigrationReport) {
    let Some(r) = &report.removal else {
        return;
    };
    let Some(cd) = &r.cd else {
        return;
    };
    let place = if r.shell_folder_removed {
        "your shell is still in the removed folder"
    } else {
        "your shell is still at the old place"
    };
    screen.row("shell", &format!("{place}; run:"), Tone::Warn);
    screen.command(cd);
}
