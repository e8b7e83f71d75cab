//! What a person or a machine sees, in the manner of one exporter per format: every report type
//! is a [`Document`], [`render`] is the one place a format is chosen, and each format lives in a
//! file (or folder) of its own: `human/`, `json.rs`, `markdown/`, `github.rs`. Wording that
//! several formats share is in `text/`. Progress on the terminal is drawn by `base::progress`, below every layer that
//! reports it.

mod format;
mod github;
pub mod human;
mod json;
mod markdown;
mod text;

use crate::assess::advisory::CachedResult;
use crate::assess::pipeline::CheckReport;
use crate::assess::survey::SurveyReport;
use crate::base::error::Result;
use crate::measure::probe::ProbeReport;
use crate::migrate::{MigrationReport, PlanDocument};

pub use format::{Format, Output};
pub use human::Style;

/// A report every format can show. JSON is the value itself, so it needs no method here.
pub trait Document: serde::Serialize {
    /// The JSON schema version `render` adds as the document's first key (docs/json.md); None
    /// for a report that carries its own `schema` field (check, survey).
    const SCHEMA: Option<u32>;
    fn human(&self, style: &Style) -> String;
    fn markdown(&self) -> String;
    fn github(&self) -> String;
}

/// `document` in `format`.
pub fn render<D: Document + ?Sized>(document: &D, format: Format, style: &Style) -> Result<String> {
    // The last gate for a name a repository chose: no format passes on a control or a
    // bidirectional character of one (docs/security.md).
    use crate::base::pathtext::{bidi_neutralized, json_bidi_escaped, neutralized};
    let text = match format {
        Format::Human => bidi_neutralized(&document.human(style)),
        Format::Json => return json::render(document, D::SCHEMA).map(|j| json_bidi_escaped(&j)),
        Format::Markdown => neutralized(&document.markdown()),
        Format::Github => neutralized(&document.github()),
    };
    Ok(with_escaped_note(text))
}

/// `text` and, when a name in this run was shown escaped, one line that says so.
fn with_escaped_note(mut text: String) -> String {
    if crate::base::pathtext::anything_escaped() {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(crate::base::pathtext::ESCAPED_NOTE);
        text.push('\n');
    }
    text
}

impl Document for CheckReport {
    const SCHEMA: Option<u32> = None;
    fn human(&self, style: &Style) -> String {
        human::check(self, style)
    }
    fn markdown(&self) -> String {
        markdown::check(self)
    }
    fn github(&self) -> String {
        github::check(self)
    }
}

impl Document for SurveyReport {
    const SCHEMA: Option<u32> = None;
    fn human(&self, style: &Style) -> String {
        human::survey::table(self, style)
    }
    fn markdown(&self) -> String {
        markdown::survey::survey(self)
    }
    fn github(&self) -> String {
        github::survey(self)
    }
}

impl Document for ProbeReport {
    const SCHEMA: Option<u32> = Some(json::PROBE_SCHEMA);
    fn human(&self, style: &Style) -> String {
        human::probe::table(self, style)
    }
    fn markdown(&self) -> String {
        markdown::probe::probe(self)
    }
    fn github(&self) -> String {
        github::probe(self)
    }
}

impl Document for crate::assess::accuracy::ProbeWithRecord {
    const SCHEMA: Option<u32> = Some(json::PROBE_SCHEMA);
    fn human(&self, style: &Style) -> String {
        let mut out = human::probe::table(&self.probe, style);
        if let Some(record) = &self.record {
            out.push_str(&human::probe::record_line(record, style));
        }
        out
    }
    fn markdown(&self) -> String {
        markdown::probe::probe(&self.probe)
    }
    fn github(&self) -> String {
        github::probe(&self.probe)
    }
}

impl Document for PlanDocument {
    const SCHEMA: Option<u32> = Some(json::PLAN_SCHEMA);
    fn human(&self, style: &Style) -> String {
        human::migrate::plan(self, style)
    }
    fn markdown(&self) -> String {
        markdown::migrate::plan(self)
    }
    fn github(&self) -> String {
        github::plan(self)
    }
}

impl Document for MigrationReport {
    const SCHEMA: Option<u32> = Some(json::MIGRATION_SCHEMA);
    fn human(&self, style: &Style) -> String {
        human::migrate::result(self, style)
    }
    fn markdown(&self) -> String {
        markdown::migrate::result(self)
    }
    fn github(&self) -> String {
        github::migration(self)
    }
}

/// The hook's answer: its one line in every format but JSON (nothing when all is well).
impl Document for CachedResult {
    const SCHEMA: Option<u32> = Some(json::ADVISORY_SCHEMA);
    fn human(&self, _style: &Style) -> String {
        line(&self.line)
    }
    fn markdown(&self) -> String {
        line(&self.line)
    }
    fn github(&self) -> String {
        line(&self.line)
    }
}

fn line(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!("{text}\n")
    }
}

impl Document for crate::assess::doctor::DoctorReport {
    const SCHEMA: Option<u32> = Some(json::DOCTOR_SCHEMA);
    fn human(&self, style: &Style) -> String {
        let mut screen = human::Screen::new(style);
        screen.headline(&text::doctor::headline(self), human::Tone::Bold);
        screen.blank();
        for (key, value) in text::doctor::rows(self) {
            screen.row(&key, &value, human::Tone::Plain);
        }
        screen.finish()
    }
    fn markdown(&self) -> String {
        let mut out = format!(
            "### wsl-place doctor\n\n{}\n\n| | |\n|---|---|\n",
            markdown::prose(&text::doctor::headline(self))
        );
        for (key, value) in text::doctor::rows(self) {
            out.push_str(&format!(
                "| {} | {} |\n",
                markdown::cell(&key),
                markdown::cell(&value)
            ));
        }
        out
    }
    fn github(&self) -> String {
        format!(
            "::notice title=wsl-place doctor::{}\n",
            github::escape_data(&text::doctor::headline(self))
        )
    }
}
