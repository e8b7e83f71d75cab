//! npm: `package-lock.json`, whose entries its sample installs with `npm ci` (the lock's
//! entries read in `packages`), and its `_cacache` read before (`samplers::npm_cache`).

use super::rules::{Ecosystem, PackageManager, ReferenceFit};

pub struct Npm;

/// Its reference fit, which also stands for a manager with none of its own.
pub const REFERENCE_FIT: ReferenceFit = ReferenceFit {
    startup_ms: 310.0,
    per_unit_ms: 6.3,
};

/// npm installing a lock: only the tarballs its `resolved` URLs name are read from the cache,
/// as a cache filled by `npm ci` (or `npm install` from a lock) holds them, never the
/// registry's metadata that installing from package.json alone needs.
const CI_ARGS: &[&str] = &[
    "ci",
    "--offline",
    "--ignore-scripts",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
];

impl PackageManager for Npm {
    fn runtime(&self) -> &'static str {
        "Node.js"
    }

    fn ecosystem(&self) -> Ecosystem {
        Ecosystem::Node
    }

    fn lock_files(&self) -> &'static [&'static str] {
        &["package-lock.json", "npm-shrinkwrap.json"]
    }

    fn tested_majors(&self) -> Option<(u32, u32)> {
        Some((10, 11))
    }

    fn lock_install_args(&self) -> Option<&'static [&'static str]> {
        Some(CI_ARGS)
    }

    fn manifest_install_args(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "install",
            "--offline",
            "--ignore-scripts",
            "--no-audit",
            "--no-fund",
            "--no-package-lock",
            "--loglevel=error",
        ])
    }

    fn reference_fit(&self) -> Option<ReferenceFit> {
        Some(REFERENCE_FIT)
    }
}
