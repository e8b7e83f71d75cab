//! A migration plan and its result, for a person (the same key column as `check`).

use super::{Screen, Style, Tone};
use crate::base::pathtext::RelPath;
use crate::base::units::{self, count, counted};
use crate::migrate::{MigrationReport, PlanDocument};
use crate::report::text::migrate::{
    asks_about_node_modules, content, node_modules_fate, question_line, space, took,
};

/// Whether the copy fits, and how long the model says it takes.
fn space_and_time(screen: &mut Screen, plan: &PlanDocument) {
    let (space, short) = space(plan);
    let tone = match short {
        Some(true) => Tone::Bad,
        Some(false) => Tone::Good,
        None => Tone::Plain,
    };
    screen.row("space", &space, tone);
    if let Some(ms) = plan.predicted_copy_ms {
        screen.row(
            "time",
            &format!(
                "about {} to copy, verify and fix up, {}",
                units::duration_ms(ms as f64),
                plan.prediction_basis
            ),
            Tone::Plain,
        );
    }
}

/// Each folder of build output its tool writes again after a move, and what leaving it saves.
fn build_output_rows(screen: &mut Screen, plan: &PlanDocument) {
    for output in &plan.build_output {
        let saving = output.saved_ms.map_or(String::new(), |ms| {
            format!(", about {} of copying", units::duration_ms(ms as f64))
        });
        let fate = if output.skipped {
            format!("left behind{saving}")
        } else {
            format!(
                "rebuilt after a move: leaving it saves {}{saving}",
                units::bytes(output.bytes)
            )
        };
        screen.row(
            "build output",
            &format!(
                "{} ({}): {}; {fate}",
                output.path,
                output.kind,
                units::tree(output.files, 0, output.bytes, false)
            ),
            Tone::Plain,
        );
    }
}

/// Each virtualenv: its size, and that it is tied to its path (rewritten, or left behind); a
/// root that is one, left as it is.
fn virtualenv_rows(screen: &mut Screen, plan: &PlanDocument) {
    if let Some(recreate) = &plan.root_virtualenv {
        screen.row(
            "virtualenv",
            &crate::migrate::root_left_alone(recreate),
            Tone::Warn,
        );
    }
    for venv in &plan.virtualenvs {
        let (fate, tone) = if venv.windows {
            (
                format!(
                    "made by Windows Python, cannot run on Linux: left behind; make it again there with `{}`",
                    venv.recreate
                ),
                Tone::Warn,
            )
        } else {
            let when = if venv.rewrite {
                "the old path is rewritten inside it once the copy is verified"
            } else {
                "left naming the old place"
            };
            (format!("tied to its path: {when}"), Tone::Plain)
        };
        screen.row(
            "virtualenv",
            &format!(
                "{}: {}; {fate}",
                venv.path,
                units::tree(venv.files, 0, venv.bytes, false)
            ),
            tone,
        );
    }
}

/// The plan, before anything is copied.
pub fn plan(plan: &PlanDocument, style: &Style) -> String {
    let mut screen = Screen::new(style);
    screen.headline("Migration plan", Tone::Bold);
    screen.row(
        "from",
        &crate::base::pathtext::display(&plan.source),
        Tone::Plain,
    );
    screen.row(
        "to",
        &crate::base::pathtext::display(&plan.destination),
        Tone::Bold,
    );
    screen.row("content", &content(plan.totals), Tone::Plain);
    if plan.resumed_files > 0 {
        screen.row(
            "resume",
            &format!(
                "{} ({}) already copied and verified by an interrupted run",
                counted(plan.resumed_files, "file", "files"),
                units::bytes(plan.resumed_bytes)
            ),
            Tone::Plain,
        );
    }
    space_and_time(&mut screen, plan);
    let asking = asks_about_node_modules(plan);
    for nm in &plan.node_modules {
        let place = if nm.path.as_path() == std::path::Path::new("node_modules") {
            String::new()
        } else {
            format!("{}: ", nm.path)
        };
        screen.row(
            "node_modules",
            &format!(
                "{place}{}; {}",
                units::tree(nm.files, nm.symlinks, nm.bytes, false),
                node_modules_fate(nm.skipped, &nm.install.to_string(), asking)
            ),
            Tone::Plain,
        );
        if !nm.windows_builds.is_empty() {
            screen.more(
                &format!(
                    "holds native Windows builds ({}); they do not run on Linux",
                    RelPath::joined(&nm.windows_builds, ", ")
                ),
                Tone::Warn,
            );
        }
    }
    virtualenv_rows(&mut screen, plan);
    build_output_rows(&mut screen, plan);
    for worktree in &plan.worktrees {
        let (text, tone) = match (&worktree.destination, &worktree.why_not) {
            (Some(to), _) => (
                format!(
                    "{} ({}, {}): can move along to {}",
                    crate::base::pathtext::display(&worktree.path),
                    counted(worktree.files, "file", "files"),
                    units::bytes(worktree.bytes),
                    crate::base::pathtext::display(to)
                ),
                Tone::Plain,
            ),
            (None, why) => (
                format!(
                    "{} stays attached to the old copy{}; removing the source breaks it",
                    crate::base::pathtext::display(&worktree.path),
                    why.as_ref().map_or_else(String::new, |w| format!(" ({w})"))
                ),
                Tone::Warn,
            ),
        };
        screen.row("worktree", &text, tone);
    }
    problems(&mut screen, plan);
    if let Some(windows) = &plan.windows {
        windows_plan(&mut screen, windows);
    }
    for (i, other) in plan.interrupted_elsewhere.iter().enumerate() {
        let key = if i == 0 { "interrupted" } else { "" };
        screen.item(key, &other.sentence(&plan.source), Tone::Warn);
    }
    for (i, question) in plan.questions.iter().enumerate() {
        let key = if i == 0 { "questions" } else { "" };
        screen.item(key, &question_line(question), Tone::Plain);
    }
    screen.finish()
}

/// Lists at most `limit` items under `key`, then how many more there are.
fn list(screen: &mut Screen, key: &str, heading: &str, items: &[String], limit: usize, tone: Tone) {
    screen.row(key, heading, tone);
    for item in items.iter().take(limit) {
        screen.item("", item, Tone::Plain);
    }
    if items.len() > limit {
        screen.item(
            "",
            &format!("and {} more", count((items.len() - limit) as u64)),
            Tone::Dim,
        );
    }
}

/// What will not be copied, and what will not survive a trip back to Windows.
fn problems(screen: &mut Screen, plan: &PlanDocument) {
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

/// The result's first line: what this run did (synced, removed the source, migrated), or that
/// it found the migration finished.
fn result_headline(report: &MigrationReport) -> String {
    let synced = report.sync.as_ref().filter(|s| s.done && s.has_work());
    let holds = content(report.totals);
    let destination = crate::base::pathtext::display(&report.destination);
    if let Some(sync) = synced.filter(|s| !s.not_copied.is_empty()) {
        format!(
            "Synced, except {} that could not be read (listed below, still only at the source); the copy now holds {holds}.",
            units::counted(sync.not_copied.len() as u64, "file", "files"),
        )
    } else if synced.is_some() {
        format!(
            "Synced: the late edits are in the copy, which now holds {holds}; the manifest says so."
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
            "{what}: {} is the repository now, holding {holds}.",
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
        sync_rows(&mut screen, sync);
    }
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
    if let Some(took) = took(report) {
        screen.row("time", &took, Tone::Plain);
    }
    if let Some(first) = &report.first_status {
        let checked = &first.checked;
        let kept = match &first.not_kept {
            None => "kept in this machine's record".to_string(),
            Some(why) => format!(
                "not kept in this machine's record: {why}, so later plans on this disk do not learn from it"
            ),
        };
        screen.row(
            "first status",
            &format!(
                "the first git status at the copy (its index refresh) predicted ~{}, measured {} ({}); {kept}",
                units::duration_ms(checked.predicted_ms),
                units::duration_ms(checked.measured_ms),
                crate::base::units::signed_percent(checked.error)
            ),
            match first.not_kept {
                None => Tone::Dim,
                Some(_) => Tone::Warn,
            },
        );
    }
    for (i, step) in report.next_steps.iter().enumerate() {
        let key = if i == 0 { "next" } else { "" };
        screen.item(key, &step.why, Tone::Plain);
        screen.command(&step.command);
    }
    for (i, done) in report.fixups.done.iter().enumerate() {
        screen.item(if i == 0 { "fixed" } else { "" }, done, Tone::Plain);
    }
    for (i, advice) in report.fixups.advice.iter().enumerate() {
        screen.item(if i == 0 { "note" } else { "" }, advice, Tone::Warn);
    }
    if let Some(windows) = &report.windows {
        windows_result(&mut screen, windows);
    }
    still_pointing(&mut screen, &report.still_points_to_old_place);
    for (i, p) in report.not_copied.iter().enumerate() {
        let text = format!("{}: {}", p.path, p.error);
        screen.item(if i == 0 { "not copied" } else { "" }, &text, Tone::Warn);
    }
    source_rows(&mut screen, report);
    screen.finish()
}

/// What became of the source: removed (what was kept and why), or left in place; and after a
/// removal, where the shell that ran it should go.
fn source_rows(screen: &mut Screen, report: &MigrationReport) {
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
    list(screen, "source", &heading, &r.kept, 50, Tone::Plain);
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
    if let Some(cd) = &r.cd {
        let place = if r.shell_folder_removed {
            "your shell is still in the removed folder"
        } else {
            "your shell is still at the old place"
        };
        screen.row("shell", &format!("{place}; run:"), Tone::Warn);
        screen.command(cd);
    }
}

/// One line per Windows tool: what to expect after the move, and the fix.
fn tool_lines(screen: &mut Screen, tools: &[crate::decide::windows::ToolLine]) {
    for (i, tool) in tools.iter().enumerate() {
        let key = if i == 0 { "windows tools" } else { "" };
        let text = format!("{}: {}; {}", tool.name, tool.expect, tool.fix);
        screen.item(key, &text, Tone::Plain);
    }
}

/// The Windows side of the plan: the tools' lines, and what the safe.directory offer adds.
fn windows_plan(screen: &mut Screen, windows: &crate::migrate::WindowsPlan) {
    if let Some(note) = &windows.note {
        screen.row("windows tools", &format!("unknown: {note}"), Tone::Dim);
    }
    tool_lines(screen, &windows.tools);
    let Some(offer) = &windows.safe_directory else {
        return;
    };
    if let Some(refused) = &offer.refused {
        screen.row("safe.directory", &sentence(refused), Tone::Warn);
        return;
    }
    let config = crate::base::pathtext::display(&offer.config);
    if offer.missing.is_empty() {
        screen.row(
            "safe.directory",
            &format!("the copy's entries are in {config} already"),
            Tone::Plain,
        );
        return;
    }
    screen.row(
        "safe.directory",
        &format!("asks to add to {config}, in a [safe] section of their own:"),
        Tone::Plain,
    );
    for entry in &offer.missing {
        screen.more(entry, Tone::Plain);
    }
}

/// The Windows side of the result: the tools' lines, and the safe.directory entries added, or
/// the commands that add them.
fn windows_result(screen: &mut Screen, windows: &crate::migrate::WindowsOutcome) {
    tool_lines(screen, &windows.tools);
    let Some(done) = &windows.safe_directory else {
        return;
    };
    let config = crate::base::pathtext::display(&done.config);
    if let Some(refused) = &done.refused {
        screen.row("safe.directory", &sentence(refused), Tone::Warn);
    } else if !done.added.is_empty() {
        screen.row(
            "safe.directory",
            &format!("added to {config} (--abort takes them out again):"),
            Tone::Plain,
        );
        for entry in &done.added {
            screen.more(entry, Tone::Plain);
        }
    } else if done.declined {
        let why = done
            .problem
            .as_ref()
            .map_or_else(String::new, |p| format!(" ({p})"));
        screen.row(
            "safe.directory",
            &format!("not added to {config}{why}; Git for Windows refuses the copy until you run:"),
            Tone::Warn,
        );
        for command in &done.commands {
            screen.command(command);
        }
    } else {
        screen.row(
            "safe.directory",
            &format!("the copy's entries are in {config} already"),
            Tone::Plain,
        );
    }
}

/// `text` as a sentence of its own: capital first, full stop last.
fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    let first = chars.next().map(|c| c.to_uppercase().to_string());
    format!("{}{}.", first.unwrap_or_default(), chars.as_str())
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

/// `--sync`: the old place's history, and each branch or tag it moved.
fn history_rows(screen: &mut Screen, sync: &crate::migrate::SyncReport) {
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
fn sync_rows(screen: &mut Screen, sync: &crate::migrate::SyncReport) {
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
    let (text, tone) = match sync.done {
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
    };
    screen.row("sync", &text, tone);
    history_rows(screen, sync);
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
    for (i, path) in sync.not_copied.iter().enumerate() {
        screen.item(if i == 0 { "not copied" } else { "" }, path, Tone::Warn);
    }
}
