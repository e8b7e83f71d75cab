//! How a command's output is shown: one format for every command, and one setting that carries
//! it with quiet, style and liveness from the command layer down to the renderers.

use super::Style;
use crate::host::terminal::Terminal;

/// Every output format; every report renders in each (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The report for a person.
    Human,
    /// Every figure, for scripts (schema in docs/json.md).
    Json,
    /// A summary table, e.g. for `$GITHUB_STEP_SUMMARY`.
    Markdown,
    /// GitHub Actions annotations (`::warning`, `::notice`).
    Github,
}

impl Format {
    pub const ALL: [Format; 4] = [
        Format::Human,
        Format::Json,
        Format::Markdown,
        Format::Github,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::Human => "human",
            Format::Json => "json",
            Format::Markdown => "markdown",
            Format::Github => "github",
        }
    }

    pub fn about(self) -> &'static str {
        match self {
            Format::Human => "The report for a person.",
            Format::Json => "Every figure, for scripts (schema in docs/json.md).",
            Format::Markdown => "A summary table, e.g. for $GITHUB_STEP_SUMMARY.",
            Format::Github => "GitHub Actions annotations (::warning, ::notice).",
        }
    }
}

/// What every command's output needs to know, decided once by the command layer.
#[derive(Debug, Clone)]
pub struct Output {
    pub format: Format,
    /// Nothing on standard output but what a script asked for.
    pub quiet: bool,
    pub style: Style,
    /// The terminal takes cursor movement: progress bars, spinners and arrow-key prompts.
    pub live: bool,
}

impl Output {
    pub fn new(format: Format, quiet: bool, terminal: &Terminal) -> Self {
        Self {
            format,
            quiet,
            style: Style::new(terminal),
            live: terminal.live,
        }
    }

    /// Whether a progress bar or spinner is drawn: on a live terminal, for a person.
    pub fn shows_progress(&self) -> bool {
        self.live && !self.quiet && self.format != Format::Json
    }
}
