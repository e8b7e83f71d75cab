//! What a person or a machine sees. One file per output format.

mod github;
mod human;
mod markdown;
pub mod migrate;
mod probe;
mod scan;
pub mod verdict;

use crate::check::CheckReport;
use crate::cli::Format;
use crate::error::{Failure, Result};

pub use human::Style;
pub use probe::table as probe_table;

pub fn render_check(report: &CheckReport, format: Format, style: &Style) -> Result<String> {
    match format {
        Format::Human => Ok(human::check(report, style)),
        Format::Json => to_json(report),
        Format::Markdown => Ok(markdown::check(report)),
        Format::Github => Ok(github::check(report)),
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
