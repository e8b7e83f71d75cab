//! poetry: never sampled; it installs as pip does, so it is priced as pip.

use super::pip::Pip;
use super::rules::{Ecosystem, PackageManager, ReferenceFit, Waits};

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
        Pip.reference_fit()
    }

    fn waits(&self) -> Waits {
        Pip.waits()
    }
}
