//! The phrases a migration's plan and result share across formats.

use crate::base::counts::TreeCounts;
use crate::base::units::{self, counted};
use crate::migrate::{
    HistorySync, MigrationReport, PlanDocument, Question, QuestionId, RefAction, RefKind, RefSync,
};

/// "6,811 files, 1,050 directories, 3 symlinks, 1.2 GiB"
pub fn content(totals: TreeCounts) -> String {
    format!(
        "{}, {}, {}, {}",
        counted(totals.files, "file", "files"),
        counted(totals.dirs, "directory", "directories"),
        counted(totals.symlinks, "symlink", "symlinks"),
        units::bytes(totals.bytes)
    )
}

/// The space the copy needs, what it is made of, and whether the destination is short of it
/// (None: unknown): "needs 85.0 MiB on the Linux disk, 12.3 GiB free: 62.2 MiB of files,
/// each rounded up to whole 4 KiB blocks (+19.5 MiB), and a 4 KiB block for each of 848
/// folders and links (3.3 MiB)".
pub fn space(plan: &PlanDocument) -> (String, Option<bool>) {
    let needed = units::bytes(plan.needed_bytes);
    let (free, short) = match plan.free_bytes {
        Some(free) if free < plan.needed_bytes => {
            (format!("only {} free", units::bytes(free)), Some(true))
        }
        Some(free) => (format!("{} free", units::bytes(free)), Some(false)),
        None => ("free space unknown".to_string(), None),
    };
    let others = plan.needed_other_entries * 4096;
    let rounding = plan
        .needed_bytes
        .saturating_sub(plan.needed_file_bytes + others);
    let mut made_of = format!("{} of files", units::bytes(plan.needed_file_bytes));
    if rounding > 0 {
        made_of.push_str(&format!(
            ", each rounded up to whole 4 KiB blocks (+{})",
            units::bytes(rounding)
        ));
    }
    if plan.needed_other_entries > 0 {
        made_of.push_str(&format!(
            ", and a 4 KiB block for each of {} ({})",
            counted(
                plan.needed_other_entries,
                "folder or link",
                "folders and links"
            ),
            units::bytes(others)
        ));
    }
    (
        format!("needs {needed} on the Linux disk, {free}: {made_of}"),
        short,
    )
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

/// The time the run took against the model's, as the plan priced it: "took 9.8 s; the plan
/// said 9.2 s (+7%)".
pub fn took(report: &MigrationReport) -> Option<String> {
    if report.already_migrated {
        return None;
    }
    let took = units::duration_ms(report.copy_ms as f64);
    // Priced again after answers that left something behind, as the last question said.
    let without = match report.planned_without.as_slice() {
        [] => String::new(),
        left => format!(" with {} left behind", left.join(" and ")),
    };
    Some(match report.planned_ms {
        Some(planned) => format!(
            "took {took} to copy, verify and fix up; the plan said {}{without} ({})",
            units::duration_ms(planned as f64),
            crate::base::units::signed_percent(
                crate::model::accuracy::Checked::new(planned as f64, report.copy_ms as f64).error
            )
        ),
        None => format!("took {took} to copy, verify and fix up"),
    })
}

/// One branch or tag of a sync's history, as the plan (`done` false) or the result says it:
/// "main: 1 commit at the old place, 1 here: kept both; merge with: git -C /copy merge ...".
pub fn history_line(r: &RefSync, done: bool) -> String {
    let what = match r.kind {
        RefKind::Branch => r.name.clone(),
        RefKind::Tag => format!("tag {}", r.name),
    };
    let commits = match (r.old_place_commits, r.here_commits) {
        (0, _) => String::new(),
        (there, 0) => format!("{} at the old place", counted(there, "commit", "commits")),
        (there, here) => format!(
            "{} at the old place, {here} here",
            counted(there, "commit", "commits")
        ),
    };
    let then = |did: &str, will: &str| if done { did } else { will }.to_string();
    let (state, fate) = match r.action {
        RefAction::FastForward => (commits, then("fast-forwarded", "fast-forwards")),
        RefAction::Create => (
            "new at the old place".to_string(),
            then("created here", "to be created here"),
        ),
        RefAction::KeepBoth => (
            commits,
            format!(
                "{}; {}merge with: {}",
                then("kept both", "keeps both"),
                first_commit_or_stash(r),
                r.merge.as_deref().unwrap_or("")
            ),
        ),
        RefAction::Refused => (
            commits,
            format!(
                "not fast-forwarded ({}); the old place's is {}{}",
                r.why.as_deref().unwrap_or("refused"),
                r.old_place_ref,
                r.merge.as_ref().map_or(String::new(), |m| format!(
                    "; later: {}{m}",
                    first_commit_or_stash(r)
                ))
            ),
        ),
        RefAction::TagDiffers => (
            "names another commit at the old place".to_string(),
            format!("the copy's stays; the old place's is {}", r.old_place_ref),
        ),
    };
    match state.is_empty() {
        true => format!("{what}: {fate}"),
        false => format!("{what}: {state}: {fate}"),
    }
}

/// "commit or stash the copy's 2 changed files first, then ": git refuses a merge over them.
fn first_commit_or_stash(r: &RefSync) -> String {
    match r.copy_changes {
        0 => String::new(),
        n => format!(
            "commit or stash the copy's {} first (git merges over none), then ",
            counted(n, "changed file", "changed files")
        ),
    }
}

/// What a sync does with the old place's history, one line, before the branches: None when
/// there is nothing to say.
pub fn history_summary(h: &HistorySync, done: bool) -> Option<String> {
    if let Some(why) = &h.failed {
        return Some(format!("not synced: {why}"));
    }
    let committed = match h.committed_files {
        0 => String::new(),
        n => format!(
            "; {} changed at the old place {} committed there and {} with its history, not as files",
            counted(n, "file", "files"),
            if n == 1 { "is" } else { "are" },
            match (done, n) {
                (true, _) => "came",
                (false, 1) => "comes",
                (false, _) => "come",
            }
        ),
    };
    let fetch = match (done, h.fetched) {
        (true, true) => "its branches and tags fetched into refs/wsl-place/old-place/",
        (true, false) => "nothing fetched",
        (false, _) => "its branches and tags to be fetched into refs/wsl-place/old-place/",
    };
    let earlier = match h.kept_earlier.len() as u64 {
        0 => String::new(),
        n => format!(
            "; {} the old place moved away from, on no branch here, kept under refs/wsl-place/old-place-earlier/",
            counted(n, "earlier tip", "earlier tips")
        ),
    };
    if h.refs.is_empty() && committed.is_empty() && earlier.is_empty() {
        return (done && h.fetched).then(|| format!("{fetch}; no branch or tag to move"));
    }
    Some(format!("through git: {fetch}{committed}{earlier}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn branch(action: RefAction, there: u64, here: u64) -> RefSync {
        RefSync {
            name: "main".into(),
            kind: RefKind::Branch,
            action,
            old_place_commits: there,
            here_commits: here,
            old_place_ref: "refs/wsl-place/old-place/heads/main".into(),
            merge: Some("git -C /copy merge refs/wsl-place/old-place/heads/main".into()),
            copy_changes: 0,
            why: None,
        }
    }

    #[test]
    fn history_lines_speak_of_commits_and_branches() {
        assert_eq!(
            history_line(&branch(RefAction::KeepBoth, 1, 1), true),
            "main: 1 commit at the old place, 1 here: kept both; merge with: git -C /copy merge refs/wsl-place/old-place/heads/main"
        );
        assert_eq!(
            history_line(&branch(RefAction::FastForward, 2, 0), false),
            "main: 2 commits at the old place: fast-forwards"
        );
        let mut tag = branch(RefAction::TagDiffers, 0, 0);
        tag.kind = RefKind::Tag;
        assert_eq!(
            history_line(&tag, true),
            "tag main: names another commit at the old place: the copy's stays; the old place's is refs/wsl-place/old-place/heads/main"
        );
    }
}
