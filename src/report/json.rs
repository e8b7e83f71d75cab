//! `--format json`: the report itself, pretty-printed, one document per run.

use crate::base::error::{Failure, Result};

pub fn render<T: serde::Serialize + ?Sized>(value: &T) -> Result<String> {
    serde_json::to_string_pretty(value)
        .map(|mut s| {
            s.push('\n');
            s
        })
        .map_err(|e| Failure::internal(format!("cannot encode the report as JSON: {e}")))
}
