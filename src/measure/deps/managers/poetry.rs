//! poetry: never sampled; it installs as pip does, so it is priced as pip.

use super::rules::Waits;
use super::rules::{Ecosystem, PackageManager, ReferenceFit};

pub struct Poetry;

impl PackageManager for Poetry {
    fn runtime(&self) -> &'static str {
        "Python"
    }

    /// No sample: priced as pip, by its reference fit.
    fn sampled(&self) -> bool {
        false
    }

    fn ecosystem(&self) -> Ecosystem {
        Ecosystem::Python
    }

    fn lock_files(&self) -> &'static [&'static str] {
        &["poetry.lock"]
    }

    fn reference_fit(&self) -> Option<ReferenceFit> {
        Some(ReferenceFit {
            startup_ms: 300.0,
            per_unit_ms: 125.0,
        })
    }

    fn waits(&self) -> Waits {
        Waits::Serial
    }
}
