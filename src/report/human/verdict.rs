//! The verdict, why, and what to do, in the same key column as everything above.

use super::{Screen, Style, Tone};
use crate::decide::advice::AdviceId;
use crate::decide::policy::{Level, Rule, Verdict};

pub fn level_label(level: Level, style: &Style) -> String {
    match level {
        Level::Ok => style.good("ok"),
        Level::Advise => style.warn("advise"),
        Level::Moved => style.warn("moved"),
        Level::Move => style.bad("move"),
    }
}

/// The answer, the figures that decided it and the command to run, again, as the report's
/// last lines: on a terminal shorter than the report they are what stays in view. The figures
/// are worded as the hook's line words them.
/// `measured`: the figure to give where none decided the verdict (`ok`: git status here).
pub fn last_lines(screen: &mut Screen, verdict: &Verdict, measured: Option<String>) {
    let (headline, tone) = headline(verdict);
    screen.blank();
    let line = match crate::assess::hook_line::deciding_figures(verdict).or(measured) {
        Some(figures) => format!("{headline} ({figures})"),
        None => headline.to_string(),
    };
    screen.headline(&line, tone);
    if let Some(command) = verdict.advice.first().and_then(|a| a.command.as_deref()) {
        let command = crate::base::pathtext::display_text(command);
        let painted = screen.style().bold(&command);
        screen.raw(&format!("  {painted}"));
    }
}

/// The verdict in a few words, and its colour.
fn headline(verdict: &Verdict) -> (&'static str, Tone) {
    // On WSL 1 the Linux disk is NTFS as well: the advice is WSL 2, and the headline says so.
    let first = verdict.advice.first().map(|a| a.id);
    let wsl1 = first == Some(AdviceId::Wsl2);
    let folder = first == Some(AdviceId::Survey);
    let (headline, tone) = match verdict.level {
        _ if folder => (
            "this folder holds repositories: judge each with `wsl-place survey`",
            Tone::Warn,
        ),
        Level::Ok => ("ok: this repository is fine where it is", Tone::Good),
        Level::Advise if wsl1 => (
            "advise: this repository would be faster on WSL 2",
            Tone::Warn,
        ),
        Level::Move if wsl1 => (
            "move: this repository is slow here; WSL 2 is the fix",
            Tone::Bad,
        ),
        Level::Advise => (
            "advise: this repository would be faster on the Linux disk",
            Tone::Warn,
        ),
        Level::Move => ("move: this repository belongs on the Linux disk", Tone::Bad),
        Level::Moved => (
            "moved: this is the old place of a finished migration",
            Tone::Warn,
        ),
    };
    (headline, tone)
}

pub fn rows(screen: &mut Screen, verdict: &Verdict) {
    let (headline, tone) = headline(verdict);
    screen.blank();
    screen.row("verdict", headline, tone);
    // The old place's reason is its headline already.
    let reasons = verdict.reasons.iter().filter(|r| r.rule != Rule::Moved);
    for (i, reason) in reasons.enumerate() {
        screen.item(
            if i == 0 { "why" } else { "" },
            &reason.message.sentence(),
            Tone::Plain,
        );
    }
    for (i, advice) in verdict.advice.iter().enumerate() {
        let key = if i == 0 { "what to do" } else { "" };
        screen.item(key, &advice.message.sentence(), Tone::Plain);
        if let Some(command) = &advice.command {
            screen.command(command);
        }
    }
}
