//! Policies: the thresholds that turn measurements into a verdict, and the verdict itself.
//!
//! Loading is text in, `Policy` out; evaluation is `Observations` in, `Verdict` out. Neither touches
//! the file system, so both are tested on fixed values.
//!
//! One file per concern: `schema` (the keys and their defaults), `shape` (the kind of value
//! each key takes), `validation` (what parsing cannot check), `loading` (reading a file, with
//! error locations and suggestions), `verdict` (the verdict as a value), `rules` (observations
//! to verdict) and `steady` (the medians of the last checks and the last verdict kept within
//! its margin). Callers use the re-exports below.

mod fault;
mod loading;
mod rules;
mod schema;
mod shape;
mod steady;
mod validation;
mod verdict;

pub use fault::{Fault, TomlKind};
pub use loading::load;
pub use rules::{evaluate, evaluate_after};
pub use schema::{Policy, PolicySource};
pub use steady::{MEDIAN_FROM_CHECKS, Previous};
pub use verdict::{Level, Predicts, Reason, Recent, Rule, Verdict, Why, WindowsChoice};

#[cfg(test)]
pub(crate) mod fixtures;
