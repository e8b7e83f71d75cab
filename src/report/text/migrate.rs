//! The phrases a migration's plan and result share across formats.

use crate::base::units::{self, counted};
use crate::migrate::{PlanDocument, Question, QuestionId};

/// "6,811 files, 1,050 directories, 3 symlinks, 1.2 GiB"
pub fn content(files: u64, dirs: u64, symlinks: u64, bytes: u64) -> String {
    format!(
        "{}, {}, {}, {}",
        counted(files, "file", "files"),
        counted(dirs, "directory", "directories"),
        counted(symlinks, "symlink", "symlinks"),
        units::bytes(bytes)
    )
}

/// The space the copy needs, and whether the destination is short of it (None: unknown).
pub fn space(plan: &PlanDocument) -> (String, Option<bool>) {
    let needed = units::bytes(plan.needed_bytes);
    match plan.free_bytes {
        Some(free) if free < plan.needed_bytes => (
            format!("needs {needed}, only {} free", units::bytes(free)),
            Some(true),
        ),
        Some(free) => (
            format!("needs {needed}, {} free", units::bytes(free)),
            Some(false),
        ),
        None => (format!("needs {needed}, free space unknown"), None),
    }
}

pub fn node_modules_fate(skipped: bool, install: &str, asking: bool) -> String {
    if skipped {
        format!("left behind; reinstall it at the destination (`{install}`)")
    } else if asking {
        format!("asked below: copy it, or leave it behind and reinstall it (`{install}`)")
    } else {
        "copied (--skip-node-modules leaves it behind to reinstall)".to_string()
    }
}

pub fn asks_about_node_modules(plan: &PlanDocument) -> bool {
    plan.questions
        .iter()
        .any(|q| q.id == QuestionId::NodeModules)
}

/// "Copy, verify and move it to …? (Enter and --yes: yes)"
pub fn question_line(question: &Question) -> String {
    let word = |b: bool| if b { "yes" } else { "no" };
    if question.default == question.with_yes {
        format!(
            "{} (Enter and --yes: {})",
            question.text,
            word(question.default)
        )
    } else {
        format!(
            "{} (Enter: {}, --yes: {})",
            question.text,
            word(question.default),
            word(question.with_yes)
        )
    }
}
