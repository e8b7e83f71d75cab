//! `--format json`: the report itself, pretty-printed, one document per run, each with a
//! `schema` version (docs/json.md).

use crate::base::error::{Failure, Result};
use serde::Serialize;

/// `probe --format json`.
pub const PROBE_SCHEMA: u32 = 1;
/// `migrate --dry-run --format json` (and the plan `migrate` shows before it asks).
pub const PLAN_SCHEMA: u32 = 1;
/// `migrate --format json`: what the migration did.
pub const MIGRATION_SCHEMA: u32 = 1;
/// `check --advisory --format json`: the hook's cached entry.
pub const ADVISORY_SCHEMA: u32 = 1;
/// `doctor --format json` and the record `doctor --record FILE` writes.
pub const DOCTOR_SCHEMA: u32 = 1;

/// A report that has no `schema` field of its own, with one in front of its keys.
#[derive(Serialize)]
struct Versioned<'a, T: ?Sized> {
    schema: u32,
    #[serde(flatten)]
    body: &'a T,
}

/// `value` as JSON; `schema` is added as its first key when given.
pub fn render<T: Serialize + ?Sized>(value: &T, schema: Option<u32>) -> Result<String> {
    let encoded = match schema {
        Some(schema) => serde_json::to_string_pretty(&Versioned {
            schema,
            body: value,
        }),
        None => serde_json::to_string_pretty(value),
    };
    encoded
        .map(|mut s| {
            s.push('\n');
            s
        })
        .map_err(|e| Failure::internal(format!("cannot encode the report as JSON: {e}")))
}
