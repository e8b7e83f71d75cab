//! pip: pinned `requirements*.txt` or a virtualenv name it (`managers::detect`); its sample is
//! installed into a virtualenv of the scratch folder (`samplers::install`).

use super::rules::{Ecosystem, PackageManager, ReferenceFit, Waits};

pub struct Pip;

impl PackageManager for Pip {
    fn runtime(&self) -> &'static str {
        "Python"
    }

    fn ecosystem(&self) -> Ecosystem {
        Ecosystem::Python
    }

    /// Its unit is a package and `PIP_FILES_PER_PACKAGE_WORK` files (`model::install`).
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
