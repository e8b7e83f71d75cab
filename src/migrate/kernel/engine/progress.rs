//! The migration's progress bar: the model's ETA where the model priced the work (its phases
//! of unmeasured length use `base::progress::Drawn::spinner`). Drawn by `base::progress`;
//! hidden when the command layer says no (not a terminal, `-q`, JSON).

use crate::base::progress::Drawn;
use crate::model::migration;

/// A bar over `total` units of the model's weight for a phase the model put at `predicted_ms`:
/// the ETA is the model's, corrected by the pace only as the work done grows
/// (`migration::eta_ms`).
pub fn bar(show: bool, total: u64, predicted_ms: f64) -> Drawn {
    Drawn::with_eta(show, total, move |fraction, elapsed_ms| {
        migration::eta_ms(predicted_ms, fraction, elapsed_ms)
    })
}
