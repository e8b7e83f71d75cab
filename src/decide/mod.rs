//! From figures to a verdict: what was observed before (`observations`), what to advise, and
//! the policy whose thresholds turn predictions into `ok`, `advise` or `move`.

pub(crate) mod advice;
pub mod correction;
pub mod moved;
pub mod observations;
pub mod policy;
pub mod windows;
