//! What a person or a machine sees. One file per output format.

mod github;
pub mod human;
mod markdown;
pub mod survey;

use crate::assess::pipeline::CheckReport;
use crate::base::error::{Failure, Result};

pub use human::Style;
pub use human::migrate;
pub use human::probe::{markdown as probe_markdown, table as probe_table};

/// What `check` can print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckFormat {
    Human,
    Json,
    Markdown,
    Github,
}

pub fn render_check(report: &CheckReport, format: CheckFormat, style: &Style) -> Result<String> {
    match format {
        CheckFormat::Human => Ok(human::check(report, style)),
        CheckFormat::Json => to_json(report),
        CheckFormat::Markdown => Ok(markdown::check(report)),
        CheckFormat::Github => Ok(github::check(report)),
    }
}

pub fn to_json<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string_pretty(value)
        .map(|mut s| {
            s.push('\n');
            s
        })
        .map_err(|e| Failure::internal(format!("cannot encode the report as JSON: {e}")))
}
