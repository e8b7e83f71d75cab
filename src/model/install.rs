//! A dependency reinstall: the package manager's own work, timed on a sample or estimated, and
//! the file-system work on the mount, partly overlapping.

use super::costs::{MountCosts, SMALL_FILE};
use super::figures::{InstallFigures, InstallSource};
use crate::measure::probe::manager::ManagerTiming;

/// Of the shorter of the manager's own work and the file-system work of an install, the part
/// that runs while the other does: npm's main thread unpacks the next package while libuv's
/// worker threads wait on the file calls of the last.
pub const INSTALL_OVERLAP: f64 = 0.3;
/// The file-system work npm waits for, as a share of the floor below. Fitted with the overlap
/// on `npm install --offline` of the 406-package express tree on the slowfs emulator
/// (drvfs-9p, scale 0.2) against ext4 on this project's 2-core machines: with npm and the
/// emulator given cores of their own (real-time priority) the install added 20 s over ext4
/// for a 27 s floor (0.77 of it, with the overlap), at a load of 4-5 it added 26 s for a 24 s
/// floor (1.1); 0.9 keeps both within 26%. A busier machine hides more of the file system
/// behind npm's slower CPU work (at a load of 9-12 about half of the floor showed).
pub const INSTALL_FS_SHARE: f64 = 0.9;
/// One package's weight in a manager's own work, in files: resolving it from the lock file,
/// reading its tarball from the cache, checking its integrity and placing it cost about as
/// much as extracting 15 of its files. A least-squares fit of npm 11's offline installs on this
/// project's machines, less the empty install: leaf samples of 15-174 packages and the whole
/// tree of express (406 packages, 6,600 files) and of a tree of few, large packages
/// (typescript, lodash, date-fns, rxjs, webpack: 100 packages, 13,600 files, 98 MB) gave
/// 6.5 ms per package and 0.43 ms per file, the whole trees within 5%. (The earlier 65, from
/// two samples of one tree, put the express tree 30-40% high.)
pub const FILES_PER_PACKAGE_WORK: f64 = 15.0;

/// The file-system work of recreating a dependency tree (warm package cache): create + write
/// and an `lstat` per file, mkdir and an `lstat` per directory, bandwidth for the rest. npm
/// makes more calls than that (strace of the express tree: per file about 2.4 `statx`, 1.1
/// `mkdir` that finds the directory there, one create), but spreads them over libuv's four
/// worker threads; on the emulator npm waits for `INSTALL_FS_SHARE` of this floor.
pub fn install_fs_ms(install: &InstallFigures, c: &MountCosts) -> f64 {
    let files = install.files as f64;
    let extra_bytes = (install.bytes as f64 - files * SMALL_FILE).max(0.0);
    let us = files * (c.scratch.create + c.lstat_us)
        + install.dirs as f64 * (c.scratch.mkdir + c.lstat_us)
        + extra_bytes / c.bytes_per_us();
    us / 1e3 * INSTALL_FS_SHARE
}

fn sample_of(timing: &ManagerTiming) -> InstallFigures {
    InstallFigures {
        files: timing.sample_files,
        dirs: timing.sample_dirs,
        bytes: timing.sample_bytes,
        packages: timing.sample_packages,
        source: InstallSource::Sample,
    }
}

pub(super) fn work_units(install: &InstallFigures) -> f64 {
    install.packages as f64 + install.files as f64 / FILES_PER_PACKAGE_WORK
}

/// The manager's own work for `install`: its start-up, the fixed cost of an install that places
/// anything, and the sample's per-unit cost (the sample's time less those two and less the
/// file-system work it did on the baseline, as the model prices it) times the project's units.
/// The fixed cost is about one more start-up (loading the reifier, the tar and cache modules):
/// the least-squares intercept of npm 11's offline installs of 15-174 leaf packages and of the
/// whole express tree was 324 ms, on top of the 309 ms of installing nothing. Without it a
/// sample of a third of the tree put the whole 11-28% high. A sample too small to show both
/// keeps at least half of its work per unit.
pub fn manager_work_ms(
    timing: &ManagerTiming,
    install: &InstallFigures,
    baseline: Option<&MountCosts>,
) -> f64 {
    let sample = sample_of(timing);
    let sample_fs = baseline.map_or(0.0, |c| install_fs_ms(&sample, c));
    let work = (timing.sample_ms - timing.startup_ms - sample_fs).max(0.0);
    let placing = timing.startup_ms.min(work / 2.0);
    let units = work_units(&sample);
    let per_unit = if units > 0.0 {
        (work - placing) / units
    } else {
        0.0
    };
    let project = work_units(install);
    if project > 0.0 {
        timing.startup_ms + placing + per_unit * project
    } else {
        timing.startup_ms
    }
}

/// What each file costs beyond the floor when uv copies it from a cache on another disk (as
/// onto a slow mount: it links files where the cache shares the disk). strace of `uv pip
/// install` shows per file a temporary file created, opened again, written, its mode set,
/// renamed into place and a final unlink that finds nothing: beyond the floor's create and
/// `lstat`, an open (the probe's `read`), a rename and two calls at `lstat` cost.
pub fn copy_through_temp_us(c: &MountCosts) -> f64 {
    c.scratch.read + c.scratch.rename + 2.0 * c.scratch.lstat
}

/// A warm-cache reinstall: the manager's own work (the same on both mounts) plus the
/// file-system work on this mount (and `extra_per_file_us` for each file beyond the floor),
/// less the part of the shorter that overlaps the longer. Network is not counted.
pub fn install_ms(
    install: &InstallFigures,
    c: &MountCosts,
    manager_ms: f64,
    extra_per_file_us: f64,
) -> f64 {
    let extra_ms = install.files as f64 * extra_per_file_us / 1e3 * INSTALL_FS_SHARE;
    let fs_ms = install_fs_ms(install, c) + extra_ms;
    manager_ms + fs_ms - INSTALL_OVERLAP * manager_ms.min(fs_ms)
}

#[cfg(test)]
mod tests {
    use super::super::costs::REFERENCE_SHA1_US_PER_MIB;
    use super::super::figures::RepoFigures;
    use super::super::fixtures::{local, repo, slow};
    use super::super::git_status::checkout_ms;
    use super::super::prediction::predict;
    use super::*;

    fn timing(startup_ms: f64, sample_ms: f64) -> ManagerTiming {
        ManagerTiming {
            manager: "npm".into(),
            version: "11".into(),
            startup_ms,
            sample_ms,
            sample_packages: 60,
            sample_files: 600,
            sample_dirs: 0,
            sample_bytes: 0,
            source: "measured".into(),
            cpu_sha1_us_per_mib: None,
        }
    }

    #[test]
    fn install_is_the_managers_work_plus_the_mounts_share() {
        let i = InstallFigures {
            files: 6000,
            dirs: 0,
            bytes: 0,
            packages: 400,
            source: InstallSource::NodeModules,
        };
        // 100 units in the sample (60 packages + 600 files / 15): 7 ms each past the start-up
        // and the fixed cost of placing anything (one more start-up); the project has 800
        // (400 packages + 6,000 files / 15).
        let t = timing(300.0, 1300.0);
        let manager = manager_work_ms(&t, &i, None);
        assert!((manager - (600.0 + 7.0 * 800.0)).abs() < 1e-6, "{manager}");
        // A sample too small to show both keeps half of its work per unit.
        let small = manager_work_ms(&timing(300.0, 500.0), &i, None);
        assert!((small - (400.0 + 1.0 * 800.0)).abs() < 1e-6, "{small}");
        // Nothing to install: the start-up alone.
        let nothing = InstallFigures {
            files: 0,
            packages: 0,
            ..i.clone()
        };
        assert_eq!(manager_work_ms(&t, &nothing, None), 300.0);
        // The sample's own file-system work on the baseline is not the manager's.
        let c = slow();
        assert!(manager_work_ms(&t, &i, Some(&c)) < manager);
        let fs = install_fs_ms(&i, &c);
        assert!((fs - 6000.0 * 16_000.0 / 1e3 * INSTALL_FS_SHARE).abs() < 1e-6);
        // The shorter side partly overlaps the longer.
        let both = manager + fs - INSTALL_OVERLAP * manager.min(fs);
        assert!((install_ms(&i, &c, manager, 0.0) - both).abs() < 1e-9);
        assert_eq!(install_ms(&i, &c, 0.0, 0.0), fs);
        // The manager's part is paid on both sides, so it caps the speedup.
        let on_local = manager_work_ms(&t, &i, Some(&local()));
        let p = predict(
            &RepoFigures {
                install: Some(i),
                ..repo(10, 10, 1)
            },
            &c,
            Some(&local()),
            1.0,
            Some(&t),
        );
        let install = p.install_ms.unwrap();
        assert!(install.speedup.unwrap() < install.current / on_local);
        assert_eq!(p.install_manager_ms, Some(on_local));
    }

    #[test]
    fn uv_copies_through_a_temporary_file_off_its_caches_disk() {
        let i = InstallFigures {
            files: 1000,
            dirs: 100,
            bytes: 0,
            packages: 10,
            source: InstallSource::Virtualenv,
        };
        let r = RepoFigures {
            install: Some(i.clone()),
            ..repo(10, 10, 1)
        };
        let mut t = timing(100.0, 200.0);
        let npm = predict(&r, &slow(), Some(&local()), 1.0, Some(&t));
        t.manager = "uv".into();
        let uv = predict(&r, &slow(), Some(&local()), 1.0, Some(&t));
        let (npm, uv) = (npm.install_ms.unwrap(), uv.install_ms.unwrap());
        let c = slow();
        let extra = 1000.0 * copy_through_temp_us(&c) / 1e3 * INSTALL_FS_SHARE;
        assert!(extra > 0.0);
        // The slow side pays the copies; the cache's own disk links and pays nothing more.
        assert!(uv.current > npm.current + 0.5 * extra, "{uv:?} {npm:?}");
        assert_eq!(uv.baseline, npm.baseline);
        // pip writes bytecode through a temporary file on every disk.
        t.manager = "pip".into();
        let pip = predict(&r, &slow(), Some(&local()), 1.0, Some(&t));
        let pip = pip.install_ms.unwrap();
        assert_eq!(pip.current, uv.current);
        assert!(pip.baseline.unwrap() > npm.baseline.unwrap());
    }

    #[test]
    fn an_estimated_managers_work_is_its_reference_fit() {
        // At the reference pace, each manager's estimate reads back as two start-ups plus its
        // per-unit figure times the project's units, whatever the sizes of the two figures.
        let i = InstallFigures {
            files: 6600,
            dirs: 968,
            bytes: 0,
            packages: 406,
            source: InstallSource::NodeModules,
        };
        for &(manager, startup, per_unit) in crate::measure::probe::manager::REFERENCE_FITS {
            let t = crate::measure::probe::manager::estimated(
                manager,
                "x".into(),
                REFERENCE_SHA1_US_PER_MIB,
            );
            let got = manager_work_ms(&t, &i, None);
            let want = 2.0 * startup + per_unit * work_units(&i);
            assert!((got - want).abs() < 1e-6, "{manager}: {got} vs {want}");
        }
    }

    #[test]
    fn install_and_checkout_scale_with_files_dirs_and_bytes() {
        let i = InstallFigures {
            files: 1000,
            dirs: 100,
            bytes: 1000 * 4096 + 10 * 1_048_576,
            packages: 60,
            source: InstallSource::NodeModules,
        };
        let c = slow();
        let got = install_ms(&i, &c, 0.0, 0.0);
        let want =
            (1000.0 * 16_000.0 + 100.0 * 11_000.0 + 10.0 * 40_000.0) / 1e3 * INSTALL_FS_SHARE;
        assert!((got - want).abs() < 1e-6, "{got} vs {want}");
        let r = repo(1000, 1000, 10);
        assert!(checkout_ms(&r, &c, 0.0) > 1000.0 * 15.0);
        assert!(checkout_ms(&r, &c, 0.0) / checkout_ms(&r, &local(), 0.0) > 100.0);
    }
}
