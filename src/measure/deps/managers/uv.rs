//! uv: `uv.lock` synced whole, or the sample installed with `uv pip` (`samplers::install`); it
//! links files from its cache.

use super::rules::{Ecosystem, PackageManager, ReferenceFit};

pub struct Uv;

impl PackageManager for Uv {
    fn runtime(&self) -> &'static str {
        "uv"
    }

    fn ecosystem(&self) -> Ecosystem {
        Ecosystem::Python
    }

    fn lock_files(&self) -> &'static [&'static str] {
        &["uv.lock"]
    }

    /// Its per-unit figure is a token one, as bun's: it links each file from its cache.
    fn reference_fit(&self) -> Option<ReferenceFit> {
        Some(ReferenceFit {
            startup_ms: 130.0,
            per_unit_ms: 0.05,
        })
    }

    fn links_from_cache(&self) -> bool {
        true
    }
}
