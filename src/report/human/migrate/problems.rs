//! What a plan cannot copy, and what will not survive a trip back to Windows.

use super::super::{Screen, Tone};
use super::list;
use crate::base::pathtext::RelPath;
use crate::base::units::counted;
use crate::migrate::PlanDocument;

/// What will not be copied, and what will not survive a trip back to Windows.
pub(super) fn problems(screen: &mut Screen, plan: &PlanDocument) {
    not_copied(screen, plan);
    awkward_names(screen, plan);
}

/// Special files the copy skips and entries it cannot read.
fn not_copied(screen: &mut Screen, plan: &PlanDocument) {
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
}

/// Names copied as they are that Windows or most tools cannot use: differing only by case,
/// past PATH_MAX, not valid on Windows.
fn awkward_names(screen: &mut Screen, plan: &PlanDocument) {
    if !plan.case_collisions.is_empty() {
        let items: Vec<String> = plan
            .case_collisions
            .iter()
            .map(|g| RelPath::joined(g, "  "))
            .collect();
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
            &plan
                .windows_invalid
                .iter()
                .map(RelPath::to_string)
                .collect::<Vec<_>>(),
            5,
            Tone::Plain,
        );
    }
}
