//! The report for a person at a terminal: the headline first and unindented, then every fact as
//! a key and a value, keys in one column, values wrapped to the terminal's width.

mod accuracy;
mod chart;
pub mod late;
mod location;
pub mod migrate;
pub mod notice;
pub mod probe;
mod scan;
pub mod survey;
mod timing;
mod verdict;

use crate::assess::pipeline::CheckReport;
use crate::decide::policy::Level;
use console::Style as Paint;

pub use verdict::level_label;

/// Colours and width, as [`crate::host::terminal`] decided them.
#[derive(Debug, Clone)]
pub struct Style {
    pub color: bool,
    /// Columns a line may use.
    pub width: usize,
    /// `--verbose`: every row, where the default keeps to what fits one screen.
    pub verbose: bool,
}

impl Style {
    pub fn new(terminal: &crate::host::terminal::Terminal) -> Self {
        Self {
            color: terminal.color,
            width: terminal.width,
            verbose: false,
        }
    }

    /// No colour, `width` columns (tests, snapshots).
    pub fn plain(width: usize) -> Self {
        Self {
            color: false,
            width,
            verbose: false,
        }
    }

    fn paint(&self, paint: Paint, text: &str) -> String {
        if self.color {
            paint.force_styling(true).apply_to(text).to_string()
        } else {
            text.to_string()
        }
    }
    pub fn bold(&self, text: &str) -> String {
        self.paint(Paint::new().bold(), text)
    }
    pub fn good(&self, text: &str) -> String {
        self.paint(Paint::new().green(), text)
    }
    pub fn warn(&self, text: &str) -> String {
        self.paint(Paint::new().yellow().bold(), text)
    }
    pub fn bad(&self, text: &str) -> String {
        self.paint(Paint::new().red().bold(), text)
    }
    pub fn dim(&self, text: &str) -> String {
        self.paint(Paint::new().dim(), text)
    }
    pub fn paint_tone(&self, tone: Tone, text: &str) -> String {
        match tone {
            Tone::Plain => text.to_string(),
            Tone::Bold => self.bold(text),
            Tone::Good => self.good(text),
            Tone::Warn => self.warn(text),
            Tone::Bad => self.bad(text),
            Tone::Dim => self.dim(text),
        }
    }
}

/// `check`'s report.
pub fn check(report: &CheckReport, style: &Style) -> String {
    if let Some(old) = &report.moved {
        return moved(report, old, style);
    }
    let mut screen = Screen::new(style);
    timing::headline(&mut screen, report);
    accuracy::rows(&mut screen, report);
    // Where the repository is fine, or both sides are one disk, what a move would change is noise.
    let same_disk = report.probe.as_ref().is_some_and(|p| p.baseline_same_mount);
    let move_matters = report.verdict.level != Level::Ok && !same_disk;
    if let Some(predict) = report
        .predict
        .as_ref()
        .filter(|_| report.scan.git.is_some() && move_matters)
    {
        chart::comparison(&mut screen, predict, &report.verdict);
    }
    location::rows(&mut screen, &report.location);
    if let Some(windows) = report.windows.as_ref().filter(|_| style.verbose) {
        location::windows_rows(&mut screen, windows);
    }
    if let Some(probes) = &report.probe {
        screen.blank();
        timing::rows(&mut screen, probes, report.predict.as_ref(), move_matters);
    }
    screen.blank();
    scan::rows(&mut screen, &report.scan);
    verdict::rows(&mut screen, &report.verdict);
    let git_status_here = report.predict.as_ref().map(|p| {
        let (shown, _) = report
            .verdict
            .shown(crate::decide::policy::Rule::GitStatus, &p.git_status_ms);
        let here = format!(
            "git status {} here",
            crate::base::units::duration_ms(shown.current)
        );
        match shown.baseline.filter(|_| !same_disk) {
            Some(there) => format!(
                "{here}, {} on the Linux disk",
                crate::base::units::duration_ms(there)
            ),
            None => here,
        }
    });
    verdict::last_lines(&mut screen, &report.verdict, git_status_here);
    screen.finish()
}

/// `check` at the old place of a finished migration: where it went, when, what changed here
/// since and the one command that follows; the figures of the mount it left are not the story.
fn moved(report: &CheckReport, old: &crate::measure::changes::OldPlace, style: &Style) -> String {
    let mut screen = Screen::new(style);
    screen.headline(
        &crate::report::text::capitalised(&old.message.sentence()),
        Tone::Warn,
    );
    screen.blank();
    screen.row(
        "copy",
        &crate::base::pathtext::display(&old.destination),
        Tone::Plain,
    );
    let mut when = format!("migrated on {}", old.finished_day);
    if let Some(synced) = old.synced_unix {
        when.push_str(&format!(
            ", last synced on {}",
            crate::store::moved::day(synced)
        ));
    }
    screen.row("when", &when, Tone::Plain);
    for other in &old.other_copies {
        let value = format!(
            "{}: made before the copy above, which --sync updates",
            crate::base::pathtext::display(other)
        );
        screen.row("other copy", &value, Tone::Plain);
    }
    screen.row("changed here", &changed_here(old), Tone::Plain);
    if let Some(verified) = &report.verify {
        let (line, tone) = accuracy::verified_line(verified, None);
        screen.row("verified", &line, tone);
    }
    screen.row(
        "old place",
        &crate::base::pathtext::display(&report.location.paths.linux),
        Tone::Plain,
    );
    verdict::rows(&mut screen, &report.verdict);
    screen.finish()
}

/// What the old place has that the copy lacks: its commits (each one change, as people count
/// them), then the files that differ otherwise, "1 commit and 1 file (0 added, 1 changed, 0
/// removed), 12 B".
fn changed_here(old: &crate::measure::changes::OldPlace) -> String {
    let commits = old.commits_not_in_copy.filter(|n| *n > 0);
    let files = match (old.added, old.changed, old.removed, old.bytes) {
        _ if old.copy_missing => return "not counted: the copy is no longer there".to_string(),
        (Some(a), Some(c), Some(r), Some(bytes)) if a + c + r > 0 => format!(
            "{} ({a} added, {c} changed, {r} removed), {}",
            crate::report::text::old_place::files(a + c + r),
            crate::base::units::bytes(bytes)
        ),
        (Some(_), ..) if commits.is_some() => String::new(),
        (Some(_), ..) => "nothing".to_string(),
        _ => "not counted".to_string(),
    };
    match commits.map(crate::report::text::old_place::commits) {
        Some(commits) if files.is_empty() => commits,
        Some(commits) => format!("{commits} and {files}"),
        None => files,
    }
}

/// How wide the key column is: the longest key ("each file check") and two spaces.
const KEY_WIDTH: usize = 17;
const INDENT: usize = 2;

/// How a value is painted once it is wrapped (colour escapes must not count as columns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Plain,
    Bold,
    Good,
    Warn,
    Bad,
    Dim,
}

/// The report being laid out.
pub struct Screen<'a> {
    out: String,
    style: &'a Style,
}

impl<'a> Screen<'a> {
    pub fn new(style: &'a Style) -> Self {
        Self {
            out: String::new(),
            style,
        }
    }

    pub fn style(&self) -> &Style {
        self.style
    }

    fn tone(&self, tone: Tone, text: &str) -> String {
        self.style.paint_tone(tone, text)
    }

    /// A line at the left margin, wrapped with a two-space hang.
    pub fn headline(&mut self, text: &str, tone: Tone) {
        // Room for the hang: a wrapped line never reaches past the width.
        let lines = wrap(text, self.style.width.saturating_sub(INDENT));
        for (i, line) in lines.iter().enumerate() {
            let hang = if i == 0 { "" } else { "  " };
            let painted = self.tone(tone, line);
            self.out.push_str(&format!("{hang}{painted}\n"));
        }
    }

    /// `key` in the key column and `value` beside it, wrapped under itself.
    pub fn row(&mut self, key: &str, value: &str, tone: Tone) {
        self.indented_row(key, value, tone);
    }

    /// A value under the previous one, with no key (a second item).
    pub fn more(&mut self, value: &str, tone: Tone) {
        self.indented_row("", value, tone);
    }

    /// One item of a list: "- " and the text, wrapped under the text; the key on the first.
    pub fn item(&mut self, key: &str, text: &str, tone: Tone) {
        let margin = INDENT + KEY_WIDTH;
        let lines = wrap(text, self.style.width.saturating_sub(margin + 2));
        for (i, line) in lines.iter().enumerate() {
            let (key, bullet) = if i == 0 { (key, "- ") } else { ("", "  ") };
            let painted = self.tone(tone, line);
            self.out.push_str(&format!(
                "{:INDENT$}{key:<KEY_WIDTH$}{bullet}{painted}\n",
                ""
            ));
        }
    }

    /// A command to copy, under the item it belongs to; never wrapped, so it pastes whole.
    /// Too long for the value column, it moves left instead.
    pub fn command(&mut self, command: &str) {
        let command = crate::base::pathtext::display_text(command);
        let command = command.as_str();
        let painted = self.tone(Tone::Bold, command);
        // Too long for the item's text, it starts in the values' column; too long for that,
        // under the keys, as the last line's command does: always aligned with something.
        let width = columns(command);
        let margin = [INDENT + KEY_WIDTH + 2, INDENT + KEY_WIDTH]
            .into_iter()
            .find(|margin| margin + width <= self.style.width)
            .unwrap_or(INDENT);
        self.out.push_str(&format!("{:margin$}{painted}\n", ""));
    }

    fn indented_row(&mut self, key: &str, value: &str, tone: Tone) {
        let margin = INDENT + KEY_WIDTH;
        let lines = wrap(value, self.style.width.saturating_sub(margin));
        for (i, line) in lines.iter().enumerate() {
            let key = if i == 0 { key } else { "" };
            let painted = self.tone(tone, line);
            let lead = format!("{:INDENT$}{key:<KEY_WIDTH$}", "");
            if painted.is_empty() {
                self.out.push_str(lead.trim_end());
            } else {
                self.out.push_str(&lead);
                self.out.push_str(&painted);
            }
            self.out.push('\n');
        }
    }

    /// A line laid out by the caller, already no wider than the screen.
    pub fn raw(&mut self, line: &str) {
        self.out.push_str(line.trim_end());
        self.out.push('\n');
    }

    pub fn blank(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with("\n\n") {
            self.out.push('\n');
        }
    }

    pub fn finish(self) -> String {
        self.out
    }
}

/// Columns `text` takes on a terminal: a CJK character takes two, a combining mark none.
pub fn columns(text: &str) -> usize {
    console::measure_text_width(text)
}

/// Breaks `text` into lines of at most `width` columns at spaces; a word longer than a line
/// (a long path) gets a line of its own, whole: cut, it could not be copied or searched for,
/// while the terminal's own soft wrap keeps it one word.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    // Every fact passes here; a path's control characters (ESC, CR) must not reach the terminal.
    let text = crate::base::pathtext::display_text(text);
    let width = width.max(10);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in unbreakable_words(&text) {
        let needed = if line.is_empty() { 0 } else { 1 } + columns(&word);
        if !line.is_empty() && columns(&line) + needed > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Units a figure is printed with; a line never ends between a figure and its unit ("9.6 / s").
const UNITS: &[&str] = &[
    "µs", "ms", "s", "min", "h", "B", "KiB", "MiB", "GiB", "TiB", "files", "file",
];

/// The text's words, with each figure kept together with the unit after it.
fn unbreakable_words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        // A range's unit is followed by its next figure: "(1.1 s-1.8 s)" splits as "s-1.8".
        let unit = word
            .split('-')
            .next()
            .unwrap_or(word)
            .trim_end_matches([',', ';', ')', '.', ':']);
        let after_figure = words
            .last()
            .and_then(|last| last.chars().last())
            .is_some_and(|c| c.is_ascii_digit());
        match words.last_mut() {
            Some(last) if after_figure && UNITS.contains(&unit) => {
                last.push(' ');
                last.push_str(word);
            }
            _ => words.push(word.to_string()),
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_figure_stays_with_its_unit() {
        assert_eq!(
            wrap("here and 9.6 s on the disk", 12),
            ["here and", "9.6 s on the", "disk"]
        );
        assert_eq!(
            wrap("took 1,234 ms, then", 9),
            ["took", "1,234 ms,", "then"]
        );
        assert_eq!(
            wrap("here (1.1 s-1.8 s) x", 14),
            ["here", "(1.1 s-1.8 s)", "x"]
        );
    }

    #[test]
    fn wraps_at_spaces_and_never_cuts_a_word() {
        assert_eq!(
            wrap("a bb ccc dddd eeeee f", 10),
            ["a bb ccc", "dddd eeeee", "f"]
        );
        assert_eq!(
            wrap("at /a/very/long/path/indeed x", 10),
            ["at", "/a/very/long/path/indeed", "x"]
        );
        assert_eq!(wrap("", 10), [""]);
    }

    #[test]
    fn rows_keep_the_key_column_and_the_width() {
        let style = Style::plain(40);
        let mut screen = Screen::new(&style);
        screen.headline("a headline at the very left", Tone::Bold);
        screen.row("path", "one two three four five six seven", Tone::Plain);
        screen.item("why", "one two three four five six", Tone::Plain);
        screen.command("git config x y");
        let text = screen.finish();
        assert_eq!(
            text,
            "a headline at the very left\n\
             \x20 path             one two three four\n\
             \x20                  five six seven\n\
             \x20 why              - one two three four\n\
             \x20                    five six\n\
             \x20                    git config x y\n"
        );
        assert!(text.lines().all(|l| columns(l) <= 40), "{text}");
    }

    #[test]
    fn wide_characters_take_two_columns() {
        assert_eq!(columns("日本"), 4);
        assert_eq!(columns("e\u{301}"), 1);
        // Measured in columns: 9 characters, 18 columns, past a 16-column line.
        let lines = wrap("in プロジェクト/とても is slow", 16);
        assert_eq!(lines, ["in", "プロジェクト/とても", "is slow"]);
        assert_eq!(wrap("日本 日本 日本 日本", 10), ["日本 日本", "日本 日本"]);
    }
}
