//! The Windows side of a move: the Windows tools' lines and the safe.directory entries, as
//! the plan offers them and as the result added them.

use super::super::{Screen, Tone};

/// One line per Windows tool: what to expect after the move, and the fix.
fn tool_lines(screen: &mut Screen, tools: &[crate::decide::windows::ToolLine]) {
    for (i, tool) in tools.iter().enumerate() {
        let key = if i == 0 { "windows tools" } else { "" };
        let text = format!("{}: {}; {}", tool.name, tool.expect, tool.fix);
        screen.item(key, &text, Tone::Plain);
    }
}

/// The Windows side of the plan: the tools' lines, and what the safe.directory offer adds.
pub(super) fn windows_plan(screen: &mut Screen, windows: &crate::migrate::WindowsPlan) {
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
pub(super) fn windows_result(screen: &mut Screen, windows: &crate::migrate::WindowsOutcome) {
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
