//! The Windows side of a move: the Windows tools' lines, the safe.directory entries (as the
//! plan offers them and as the result added them, or the commands) and the line-ending warning.

use super::super::{Screen, Tone};
use crate::host::windows_git::GlobalConfig;
use crate::migrate::LineEndings;

/// What plan and result both say of the offer.
struct Offer<'a> {
    refused: Option<&'a String>,
    trusts_all: bool,
    reachable: bool,
    git_config: &'a GlobalConfig,
    clients: &'a [crate::measure::windows_tools::ToolId],
    commands: &'a [String],
}

/// One line per Windows tool: what to expect after the move, and the fix.
fn tool_lines(screen: &mut Screen, tools: &[crate::decide::windows::ToolLine]) {
    for (i, tool) in tools.iter().enumerate() {
        let key = if i == 0 { "windows tools" } else { "" };
        let (expect, fix) = crate::report::text::windows::expect_and_fix(tool);
        let text = format!("{}: {expect}; {fix}", tool.name);
        screen.item(key, &text, Tone::Plain);
    }
}

/// Windows' git would show every line of the copy changed, and the two ways out.
fn line_endings(screen: &mut Screen, warning: Option<&LineEndings>) {
    let Some(warning) = warning else {
        return;
    };
    screen.row(
        "line endings",
        &format!(
            "{} sets core.autocrlf=true (Git for Windows' installer default), so Windows' git \
             shows every line of the copy changed; in the copy, run either:",
            warning.config
        ),
        Tone::Warn,
    );
    for command in &warning.fix {
        screen.command(command);
    }
}

/// The offer's rows that plan and result share: refused, every folder trusted, or a file WSL
/// cannot reach (the commands, then). True when one of them said all there is.
fn settled(screen: &mut Screen, offer: Offer<'_>) -> bool {
    let config = offer.git_config.shown();
    if let Some(refused) = offer.refused {
        screen.row("safe.directory", &sentence(refused), Tone::Warn);
    } else if offer.trusts_all {
        screen.row(
            "safe.directory",
            &format!("{config} trusts every folder (safe.directory = *): nothing to add"),
            Tone::Plain,
        );
    } else if !offer.reachable {
        screen.row(
            "safe.directory",
            &format!(
                "Windows' git reads {config} (from {}), which WSL cannot reach; {} {} the copy until you run:",
                offer.git_config.chosen_by,
                crate::measure::windows_tools::names(offer.clients),
                if offer.clients.len() == 1 { "refuses" } else { "refuse" }
            ),
            Tone::Warn,
        );
        for command in offer.commands {
            screen.command(command);
        }
    } else {
        return false;
    }
    true
}

/// The Windows side of the plan: the tools' lines, and what the safe.directory offer adds.
pub(super) fn windows_plan(screen: &mut Screen, windows: &crate::migrate::WindowsPlan) {
    if let Some(note) = windows.note.as_ref() {
        let note = crate::base::reason::Worded::sentence(note);
        screen.row("windows tools", &format!("unknown: {note}"), Tone::Dim);
    }
    tool_lines(screen, &windows.tools);
    line_endings(screen, windows.line_endings.as_ref());
    let Some(offer) = &windows.safe_directory else {
        return;
    };
    let shared = Offer {
        refused: offer.refused.as_ref(),
        trusts_all: offer.trusts_all,
        reachable: offer.config.is_some(),
        git_config: &offer.git_config,
        clients: &offer.clients,
        commands: &offer.commands,
    };
    if settled(screen, shared) {
        return;
    }
    let config = offer.git_config.shown();
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
pub(super) fn windows_result(screen: &mut Screen, windows: &crate::migrate::WindowsOutcome) {
    tool_lines(screen, &windows.tools);
    line_endings(screen, windows.line_endings.as_ref());
    let Some(done) = &windows.safe_directory else {
        return;
    };
    let shared = Offer {
        refused: done.refused.as_ref(),
        trusts_all: done.trusts_all,
        reachable: done.config.is_some(),
        git_config: &done.git_config,
        clients: &done.clients,
        commands: &done.commands,
    };
    if settled(screen, shared) {
        return;
    }
    let config = done.git_config.shown();
    if !done.added.is_empty() {
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
            &format!(
                "not added to {config}{why}; {} {} the copy until you run:",
                crate::measure::windows_tools::names(&done.clients),
                if done.clients.len() == 1 {
                    "refuses"
                } else {
                    "refuse"
                }
            ),
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
