//! What each package manager's own work costs at the model's reference pace, for a manager or
//! project that could not be timed on this machine (`measure::deps::manager`).
//!
//! Each manager's own work at the model's reference pace (`REFERENCE_SHA1_US_PER_MIB`) on this
//! project's 2-core machines, its `PackageManager::reference_fit` (start-up ms, ms per
//! package-sized unit of work, `FILES_PER_PACKAGE_WORK`), in each manager's file. Only used, scaled
//! by the machine's pace, when no sample can be installed. Measured on warm-cache reinstalls of the
//! express tree (406 packages, 6,600 files, 846 units) on ext4 against an empty install, five
//! interleaved runs each, medians, at about 1.25 times the reference pace, and divided by that: npm
//! 11.19 390 ms empty and 7.8 s whole; pnpm 12.23 52 ms and 356 ms (it links files from its store,
//! so little of the install is its own work); yarn 1.22 272 ms and 4.1 s; bun 1.4 8 ms and 79 ms,
//! less than the file-system floor the model prices (its per-unit figure is a token one). Per unit:
//! the whole less two empty installs and the model's file-system floor on ext4, over 846. Python,
//! on this project's fitting set (flask, requests, numpy, pandas, rich, pydantic, sqlalchemy,
//! pyyaml, httpx, pytest: 35 packages; uv's tree 4,900 files, pip's 8,200 with the bytecode it
//! compiles), reinstalled from cache on ext4 at a load of about 4 (about 1.4 times the reference
//! pace): uv 0.13 180 ms empty and 390 ms whole (it links files from its cache: its per-unit figure
//! is a token one, as bun's). pip 23.2 into a virtualenv (its unit is a package and 700 files,
//! `PIP_FILES_PER_PACKAGE_WORK` in `install.rs`): subsets of pallets/werkzeug's 68 packages on a
//! journaled ext4 at about 1.2 times the reference pace, 365 ms empty and 152 ms per unit. poetry,
//! never timed, gets pip's. cargo has none: rebuilding target/ is priced as its file writes alone.

use super::costs::REFERENCE_SHA1_US_PER_MIB;
use crate::measure::cpu::pace;
use crate::measure::deps::manager_timing::{ManagerTiming, TimingSource};
use crate::measure::deps::managers::{self, Manager};

/// Package-sized units in an estimated sample, at least: enough that its per-unit work
/// outweighs the second start-up (more for uv, whose per-unit figure is a token one), so `manager_work_ms` reads the fit back
/// unchanged (with 100, pnpm's and bun's came out 36% and 68% high).
const ESTIMATED_SAMPLE_UNITS: f64 = 1000.0;

/// The manager's reference fit (`PackageManager::reference_fit`, npm's for one without) scaled by this
/// machine's pace `cpu` (`cpu::sha1_us_per_mib`), for managers or projects that cannot
/// be sampled: a sample of `ESTIMATED_SAMPLE_UNITS` package-sized units with no file-system
/// work of its own.
pub fn estimated(manager: Manager, version: String, cpu: f64) -> ManagerTiming {
    let pace = pace(cpu, REFERENCE_SHA1_US_PER_MIB);
    let fit = managers::of(manager)
        .reference_fit()
        .unwrap_or(managers::NPM_REFERENCE_FIT);
    let (startup, per_unit) = (fit.startup_ms, fit.per_unit_ms);
    let startup_ms = startup * pace;
    // Enough units that their work outweighs the second start-up, so the fit reads back.
    let units = ESTIMATED_SAMPLE_UNITS.max((startup / per_unit).ceil());
    ManagerTiming {
        manager,
        version,
        startup_ms,
        // The second start-up is the fixed cost of placing anything (`manager_work_ms`).
        sample_ms: 2.0 * startup_ms + units * per_unit * pace,
        sample_packages: units as u64,
        sample_files: 0,
        sample_dirs: 0,
        sample_bytes: 0,
        source: TimingSource::Estimated,
        cpu_sha1_us_per_mib: Some(cpu),
        sample_failed: Default::default(),
        sample_skipped: Default::default(),
        sample_skipped_cause: None,
        windows_program: None,
        sample_left_out: 0,
        sample_from_lock: false,
        lifecycle_startups: 0.0,
        build_startups: 0.0,
        sample_source: None,
        sample_uncached: 0,
        sample_not_shared: Default::default(),
        sample_cache_lacks_all: false,
        copies_from_store: false,
        pnpm_store: None,
        pnpm_store_setting: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_keeps_startup_below_the_sample() {
        let t = estimated(Manager::Pnpm, "9".into(), 580.0);
        assert!(t.startup_ms > 0.0 && t.sample_ms > t.startup_ms);
        assert_eq!(t.source, TimingSource::Estimated);
        // Twice as slow a CPU, twice the figures.
        let slow = estimated(Manager::Pnpm, "9".into(), 1160.0);
        assert!((slow.sample_ms - 2.0 * t.sample_ms).abs() < 1e-9);
    }

    #[test]
    fn each_manager_has_its_own_fit() {
        let npm = estimated(Manager::Npm, "11".into(), 580.0);
        let pnpm = estimated(Manager::Pnpm, "12".into(), 580.0);
        let uv = estimated(Manager::Uv, "0.13".into(), 580.0);
        let pip = estimated(Manager::Pip, "23".into(), 580.0);
        // pnpm and uv link from their stores: a tenth of npm's own work or less.
        assert!(pnpm.sample_ms * 10.0 < npm.sample_ms);
        assert!(uv.sample_ms * 10.0 < npm.sample_ms);
        assert!(pnpm.startup_ms < npm.startup_ms);
        // pip compiles every module it installs: far dearer per package than npm.
        assert!(pip.sample_ms > 5.0 * npm.sample_ms);
        assert_eq!(uv.manager, Manager::Uv);
        // A manager with no fit of its own gets npm's, under its own name.
        let other = estimated(Manager::Cargo, "1.95".into(), 580.0);
        assert_eq!(other.sample_ms, npm.sample_ms);
        assert_eq!(other.manager, Manager::Cargo);
    }
}
