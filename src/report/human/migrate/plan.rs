//! The plan, before anything is copied: what moves, what is tied to its path, what it asks.

use super::super::{Screen, Style, Tone};
use super::problems::problems;
use super::windows::windows_plan;
use crate::base::pathtext::RelPath;
use crate::base::units::{self, counted};
use crate::migrate::PlanDocument;
use crate::report::text::migrate::{
    asks_about_node_modules, content, node_modules_fate, question_line, space,
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
                "about {} to copy, verify and fix up{}, {}",
                units::duration_ms(ms as f64),
                match (plan.walk_predicted, plan.dry_run) {
                    (true, true) => " with --yes, which copies while it walks (the walk included)",
                    (true, false) => ", the walk that copied as it went included",
                    (false, _) => "",
                },
                plan.prediction_basis
            ),
            Tone::Plain,
        );
    }
    if let Some(p) = &plan.prediction {
        // The figure the result is judged against (git's start-up included, as it is timed).
        let first = p.refresh_ms + crate::model::GIT_STARTUP_MS;
        screen.row(
            "first status",
            &format!(
                "about {} for the first git status at the copy, which reads every file once",
                units::duration_ms(first)
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
                output.kind.name(),
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
    what_moves(&mut screen, plan);
    space_and_time(&mut screen, plan);
    node_modules_rows(&mut screen, plan);
    virtualenv_rows(&mut screen, plan);
    build_output_rows(&mut screen, plan);
    worktree_rows(&mut screen, plan);
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

/// Where from, where to, what the copy holds, and what an interrupted run already copied.
fn what_moves(screen: &mut Screen, plan: &PlanDocument) {
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
}

/// Each node_modules folder: its size, whether it is copied or installed again, and the native
/// Windows builds in it.
fn node_modules_rows(screen: &mut Screen, plan: &PlanDocument) {
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
}

/// Each linked worktree: moved along, or left attached to the old copy and why.
fn worktree_rows(screen: &mut Screen, plan: &PlanDocument) {
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
}
