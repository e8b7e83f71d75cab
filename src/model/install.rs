//! A dependency reinstall: the package manager's own work, timed on a sample or estimated, and
//! the file-system work on the mount, partly overlapping.

use super::costs::{MountCosts, SMALL_FILE};
use super::figures::{InstallFigures, InstallSource};
use crate::measure::deps::manager_timing::ManagerTiming;
use crate::measure::deps::managers::{self, Manager, Waits};
use crate::measure::probe::CPU_BOUND_US;

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
/// pip's: it asks the index about each package before it reads the wheel from its cache, and
/// that query, not the files, is most of its work. A least-squares fit of pip 23.2's installs
/// from cache into a virtualenv on a journaled ext4, 16 random subsets of 4-68 of
/// pallets/werkzeug's 68 locked packages (254-13,336 files), less the empty install (365 ms):
/// 152 ms per package and 0.22 ms per file, the subsets of 24 or more within 11% but one
/// (+33%). With npm's weight, psf/requests' 37 packages came out 63% high from a sample of 12:
/// the sample's files per package were not the project's.
pub const PIP_FILES_PER_PACKAGE_WORK: f64 = 700.0;

/// uv's: it links each file from its cache (the file-system part prices the link), so its
/// own work follows its packages (reading each wheel's record, the lock's entry) far more than
/// their files. With npm's weight (15) every file of a project counted as much own work as a
/// fifteenth of a package: a sync from the same cache of pallets/werkzeug's 38 packages
/// (fitting project, ext4, load 6: 756 ms) came out at 2.3 s, of pallets/click's 31 (7,887
/// files, held out) at 3.1 s for 704 ms, the sample's files being few and the project's many.
/// pip's weight, whose files also cost it little beside its per-package work, is kept.
pub const UV_FILES_PER_PACKAGE_WORK: f64 = PIP_FILES_PER_PACKAGE_WORK;

/// pip, and poetry, which installs the same way: one thread that asks the index about each
/// package, then extracts and compiles its files in turn.
fn pip_like(manager: Manager) -> bool {
    managers::of(manager).waits() == Waits::Serial
}

/// One package's weight in `manager`'s own work, in files; poetry, never timed, gets pip's.
fn files_per_package_work(manager: Manager) -> f64 {
    if pip_like(manager) {
        PIP_FILES_PER_PACKAGE_WORK
    } else if manager == Manager::Uv {
        UV_FILES_PER_PACKAGE_WORK
    } else {
        FILES_PER_PACKAGE_WORK
    }
}

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
        + install.links as f64 * link_us(c)
        + extra_bytes / c.bytes_per_us();
    us / 1e3 * fs_share(install)
}

/// One symlink a manager makes (pnpm's, per dependency edge): a call that creates a directory
/// entry with no contents, priced as a folder's `mkdir`, and the check for one already there
/// (the emulator counted a `symlink` per link for unjs/c12's 997, and lookups).
pub fn link_us(c: &MountCosts) -> f64 {
    c.scratch.mkdir + c.scratch.lstat
}

/// The part of the file-system work a reinstall waits for: `INSTALL_FS_SHARE` for a package
/// manager, all of it for the files of a rebuilt `target/`, which are written one after the
/// other with nothing to hide them behind. (With the share, hexyl's target/ written afresh came
/// out 34% low on ext4 and 14% low on the emulator.)
fn fs_share(install: &InstallFigures) -> f64 {
    if install.source == InstallSource::Target {
        1.0
    } else {
        INSTALL_FS_SHARE
    }
}

fn sample_of(timing: &ManagerTiming) -> InstallFigures {
    InstallFigures {
        files: timing.sample_files,
        dirs: timing.sample_dirs,
        bytes: timing.sample_bytes,
        packages: timing.sample_packages,
        source: InstallSource::Sample,
        depth: 0.0,
        links: 0,
        cache_links: None,
    }
}

pub(super) fn work_units(install: &InstallFigures, manager: Manager) -> f64 {
    install.packages as f64 + install.files as f64 / files_per_package_work(manager)
}

/// The fixed cost of an install that places anything, out of a sample's `work`: about one
/// start-up, at most half of the work; none for npm's sample installed from a lock. `npm ci`
/// reads the tree from the lock and resolves nothing: paired runs of koajs/koa 3.2.0 (376
/// packages) on a journaled ext4, the empty install, a sample of 120 leaves and the whole tree
/// in turns four times, put the whole tree at the empty install plus the sample's work times
/// their units' ratio (4.4) within 15% with no fixed cost, and 26-42% low with one. The fixed
/// cost was fitted on installs from package.json, which resolve each package from the cache's
/// metadata.
fn placing_ms(timing: &ManagerTiming, work: f64) -> f64 {
    // uv's sync from a lock: its empty run made the virtualenv, the sync's fixed cost.
    if timing.sample_from_lock && matches!(timing.manager, Manager::Npm | Manager::Uv) {
        0.0
    } else {
        timing.startup_ms.min(work / 2.0)
    }
}

/// The manager's own work for `install`: its start-up, the fixed cost of an install that places
/// anything, and the sample's per-unit cost (the sample's time less those two and less the
/// file-system work it did on the baseline, as the model prices it) times the project's units.
/// The fixed cost is about one more start-up (loading the reifier, the tar and cache modules):
/// the least-squares intercept of npm 11's offline installs of 15-174 leaf packages and of the
/// whole express tree was 324 ms, on top of the 309 ms of installing nothing. Without it a
/// sample of a third of the tree put the whole 11-28% high. A sample too small to show both
/// keeps at least half of its work per unit. The project's own lifecycle scripts add their
/// start-ups (`lifecycle_startups`), pip's editable build its own (`build_startups`).
pub fn manager_work_ms(
    timing: &ManagerTiming,
    install: &InstallFigures,
    baseline: Option<&MountCosts>,
) -> f64 {
    let sample = sample_of(timing);
    // uv and bun link their sample from the cache on the baseline (the cache's disk): so it
    // is priced. Priced as written, bun's sample (hono's: 2,124 files, 252 MB, placed in
    // 115 ms) came out dearer than its whole time, and its own work per package as nothing.
    let sample_fs = baseline.map_or(0.0, |c| {
        if managers::of(timing.manager).links_from_cache() {
            uv_link_ms(&sample, c, 0.0)
        } else {
            install_fs_ms(&sample, c)
        }
    });
    let work = (timing.sample_ms - timing.startup_ms - sample_fs).max(0.0);
    let placing = placing_ms(timing, work);
    let units = work_units(&sample, timing.manager);
    let per_unit = if units > 0.0 {
        (work - placing) / units
    } else {
        0.0
    };
    let project = work_units(install, timing.manager);
    if project > 0.0 {
        timing.startup_ms
            + placing
            + per_unit * project
            + (timing.lifecycle_startups + timing.build_startups) * timing.startup_ms
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

/// Calls that name an installed file by its whole path, per file, when uv copies it (see
/// `copy_through_temp_us`) and when pip extracts it (and compiles its bytecode, for a module).
/// Fitted on the emulator's request counts (drvfs-9p, every component a lookup) for
/// pallets/flask's virtualenv: uv sent 59.7 lookups per file and pip 64.8, for files 11.6 and
/// 11.3 components below the mount's root; less the one lookup each call the probe times
/// includes (6 for uv, 3 for pip), that is 5.1 and 6.0 calls naming the whole path.
pub const UV_COPY_PATH_CALLS: f64 = 5.0;
pub const PIP_PATH_CALLS: f64 = 6.0;

/// One path component looked up again: on a mount where every call is a round trip, a
/// lookup, about 0.8 of an `lstat` one level below an open directory. That `lstat` is a lookup
/// and, now and then, a request for the attributes (the kernel takes them from the lookup's
/// reply within the same tick): on the emulator (drvfs-9p, scale 0.2) the probe's `lstat` took
/// 0.41 ms where a lookup's request is 0.17 ms plus the round trip (about 0.16 ms), and flask's
/// uv install sent 60 lookups per file but one `getattr`. Where an `lstat` is CPU work in the
/// kernel the components are in the dentry cache and cost next to nothing.
pub fn component_us(c: &MountCosts) -> f64 {
    if c.scratch.lstat < CPU_BOUND_US {
        0.0
    } else {
        LOOKUP_SHARE_OF_LSTAT * c.scratch.lstat
    }
}

/// See `component_us`.
pub const LOOKUP_SHARE_OF_LSTAT: f64 = 0.8;

/// What naming each file of `install` by its whole path costs `calls` times over, beyond the
/// one component each timed call includes.
pub fn path_walk_per_file_us(install: &InstallFigures, c: &MountCosts, calls: f64) -> f64 {
    calls * (install.depth - 1.0).max(0.0) * component_us(c)
}

/// What each file costs pip beyond the floor: besides the create, it asks for the file's
/// attributes about four more times (the emulator counted 4.6 `getattr` per file; two at
/// `lstat` cost), and every call names the whole path. Its bytecode goes through a temporary
/// file renamed into place, but for one file in seven (flask's tree: 1,290 of 9,401), which
/// the path walk covers.
pub fn pip_extra_us(install: &InstallFigures, c: &MountCosts) -> f64 {
    2.0 * c.scratch.lstat + path_walk_per_file_us(install, c, PIP_PATH_CALLS)
}

/// uv on its cache's own disk: it links each file from the cache (no contents written; a
/// directory entry made, priced as a rename) where the floor creates and writes it. On ext4,
/// psf/requests' 6,846 files took 454 ms where the floor's creates (147 us each in that run's
/// probe, at a load of 4) came to 1.3 s.
pub fn uv_link_ms(install: &InstallFigures, c: &MountCosts, manager_ms: f64) -> f64 {
    let linked = InstallFigures {
        bytes: 0,
        ..install.clone()
    };
    let instead_of_create = c.scratch.rename - c.scratch.create;
    install_ms(&linked, c, manager_ms, instead_of_create, Waits::Overlapped)
}

/// What each file costs uv beyond the floor when it copies from a cache on another disk.
pub fn uv_copy_extra_us(install: &InstallFigures, c: &MountCosts) -> f64 {
    copy_through_temp_us(c) + path_walk_per_file_us(install, c, UV_COPY_PATH_CALLS)
}

/// A warm-cache reinstall: the manager's own work (the same on both mounts) plus the
/// file-system work on this mount (and `extra_per_file_us` for each file beyond the floor),
/// less the part of the shorter that overlaps the longer. Network is not counted.
pub fn install_ms(
    install: &InstallFigures,
    c: &MountCosts,
    manager_ms: f64,
    extra_per_file_us: f64,
    waits: Waits,
) -> f64 {
    let fs_ms = install_fs_ms(install, c)
        + install.files as f64 * extra_per_file_us / 1e3 * fs_share(install);
    match waits {
        Waits::Overlapped => manager_ms + fs_ms - INSTALL_OVERLAP * manager_ms.min(fs_ms),
        Waits::Serial => manager_ms + fs_ms / fs_share(install),
    }
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
            manager: Manager::Npm,
            version: "11".into(),
            startup_ms,
            sample_ms,
            sample_packages: 60,
            sample_files: 600,
            sample_dirs: 0,
            sample_bytes: 0,
            source: crate::measure::deps::manager_timing::TimingSource::Measured,
            cpu_sha1_us_per_mib: None,
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

    #[test]
    fn install_is_the_managers_work_plus_the_mounts_share() {
        let i = InstallFigures {
            files: 6000,
            dirs: 0,
            bytes: 0,
            packages: 400,
            source: InstallSource::NodeModules,
            depth: 0.0,
            links: 0,
            cache_links: None,
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
        assert!((install_ms(&i, &c, manager, 0.0, Waits::Overlapped) - both).abs() < 1e-9);
        assert_eq!(install_ms(&i, &c, 0.0, 0.0, Waits::Overlapped), fs);
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
    fn each_file_pays_its_path_walk_on_a_slow_mount_only() {
        let i = InstallFigures {
            files: 1000,
            dirs: 100,
            bytes: 0,
            packages: 10,
            source: InstallSource::Virtualenv,
            depth: 11.0,
            links: 0,
            cache_links: None,
        };
        // slow(): an lstat one level down is 400 us, a component 0.8 of it.
        let (c, l) = (slow(), local());
        assert!((component_us(&c) - 320.0).abs() < 1e-9);
        assert_eq!(component_us(&l), 0.0);
        // Ten components beyond the one each timed call includes, five calls for uv.
        let walk = path_walk_per_file_us(&i, &c, UV_COPY_PATH_CALLS);
        assert!((walk - 5.0 * 10.0 * 320.0).abs() < 1e-9, "{walk}");
        assert_eq!(path_walk_per_file_us(&i, &l, UV_COPY_PATH_CALLS), 0.0);
        // uv's copy: an open (3,000), a rename (0) and two lstats (800) and the walk.
        assert!((uv_copy_extra_us(&i, &c) - (3800.0 + walk)).abs() < 1e-9);
        // pip: two more lstats and six calls' walk.
        let pip = pip_extra_us(&i, &c);
        assert!((pip - (800.0 + 6.0 * 10.0 * 320.0)).abs() < 1e-9, "{pip}");
        // Without a known depth, no walk beyond the timed calls.
        let shallow = InstallFigures {
            depth: 0.0,
            links: 0,
            cache_links: None,
            ..i.clone()
        };
        assert_eq!(path_walk_per_file_us(&shallow, &c, PIP_PATH_CALLS), 0.0);
    }

    #[test]
    fn pips_own_work_grows_with_its_packages_more_than_with_their_files() {
        // psf/requests: a sample of 12 packages and 1,363 files, the project 37 and 7,777.
        let mut t = timing(330.0, 2570.0);
        (t.sample_packages, t.sample_files) = (12, 1363);
        let project = InstallFigures {
            files: 7777,
            dirs: 1145,
            bytes: 0,
            packages: 37,
            source: InstallSource::Virtualenv,
            depth: 12.0,
            links: 0,
            cache_links: None,
        };
        t.manager = Manager::Pip;
        let pip = manager_work_ms(&t, &project, None);
        t.manager = Manager::Npm;
        let npm = manager_work_ms(&t, &project, None);
        // The sample's work less two start-ups, 1,910 ms, times 3.4 (pip) or 5.4 (npm).
        assert!((7000.0..8000.0).contains(&pip), "{pip}");
        assert!(npm > 10_000.0, "{npm}");
    }

    #[test]
    fn uv_copies_off_its_caches_disk_and_pip_waits_for_every_call() {
        let i = InstallFigures {
            files: 1000,
            dirs: 100,
            bytes: 0,
            packages: 10,
            source: InstallSource::Virtualenv,
            depth: 11.0,
            links: 0,
            cache_links: None,
        };
        let r = RepoFigures {
            install: Some(i.clone()),
            ..repo(10, 10, 1)
        };
        let (c, l) = (slow(), local());
        let mut t = timing(100.0, 200.0);
        let manager = manager_work_ms(&t, &i, Some(&l));
        let npm = predict(&r, &c, Some(&l), 1.0, Some(&t)).install_ms.unwrap();
        t.manager = Manager::Uv;
        let uv = predict(&r, &c, Some(&l), 1.0, Some(&t)).install_ms.unwrap();
        // uv's sample linked its files on the baseline: less of it was file-system work
        // than npm's floor, and that link is not counted as uv's own work.
        let uv_manager = manager_work_ms(&t, &i, Some(&l));
        let sample = sample_of(&t);
        assert!(uv_link_ms(&sample, &l, 0.0) < install_fs_ms(&sample, &l));
        assert!(uv_manager < manager_work_ms(&t, &i, None), "{uv_manager}");
        assert!(manager > 0.0);
        // The slow side pays the copies and their walks; the cache's own disk links.
        let fs = install_fs_ms(&i, &c) + 1000.0 * uv_copy_extra_us(&i, &c) / 1e3 * INSTALL_FS_SHARE;
        let want = uv_manager + fs - INSTALL_OVERLAP * uv_manager.min(fs);
        assert!((uv.current - want).abs() < 1e-6, "{} vs {want}", uv.current);
        assert!(uv.current > npm.current);
        // A link is a rename and an lstat per file (local(): 0 and 1 us), a mkdir and an lstat
        // per directory (8 and 1), no bytes.
        let links = (1000.0 * 1.0 + 100.0 * 9.0) / 1e3 * INSTALL_FS_SHARE;
        assert!((uv_link_ms(&i, &l, 0.0) - links).abs() < 1e-9);
        let want = uv_manager + links - INSTALL_OVERLAP * uv_manager.min(links);
        assert!((uv.baseline.unwrap() - want).abs() < 1e-9);
        // pip: one thread, every call waited for, nothing overlapped.
        t.manager = Manager::Pip;
        let pip = predict(&r, &c, Some(&l), 1.0, Some(&t)).install_ms.unwrap();
        let pip_manager = manager_work_ms(&t, &i, Some(&l));
        let fs = install_fs_ms(&i, &c) / INSTALL_FS_SHARE + 1000.0 * pip_extra_us(&i, &c) / 1e3;
        assert!(
            (pip.current - (pip_manager + fs)).abs() < 1e-6,
            "{} vs {}",
            pip.current,
            pip_manager + fs
        );
        let local_fs =
            install_fs_ms(&i, &l) / INSTALL_FS_SHARE + 1000.0 * pip_extra_us(&i, &l) / 1e3;
        assert!((pip.baseline.unwrap() - (pip_manager + local_fs)).abs() < 1e-6);
        assert_eq!(managers::of(Manager::Poetry).waits(), Waits::Serial);
        assert_eq!(managers::of(Manager::Uv).waits(), Waits::Overlapped);
    }

    #[test]
    fn a_rebuilt_target_waits_for_all_of_its_writes() {
        let i = InstallFigures {
            files: 1000,
            dirs: 100,
            bytes: 1000 * 4096 + 10 * 1_048_576,
            packages: 0,
            source: InstallSource::Target,
            depth: 0.0,
            links: 0,
            cache_links: None,
        };
        let want = (1000.0 * 16_000.0 + 100.0 * 11_000.0 + 10.0 * 40_000.0) / 1e3;
        let got = install_ms(&i, &slow(), 0.0, 0.0, Waits::Overlapped);
        assert!((got - want).abs() < 1e-6, "{got} vs {want}");
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
            depth: 0.0,
            links: 0,
            cache_links: None,
        };
        for manager in Manager::ALL {
            let Some(fit) = managers::of(manager).reference_fit() else {
                continue;
            };
            let (startup, per_unit) = (fit.startup_ms, fit.per_unit_ms);
            let t = super::super::manager_fits::estimated(
                manager,
                "x".into(),
                REFERENCE_SHA1_US_PER_MIB,
            );
            let got = manager_work_ms(&t, &i, None);
            let want = 2.0 * startup + per_unit * work_units(&i, manager);
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
            depth: 0.0,
            links: 0,
            cache_links: None,
        };
        let c = slow();
        let got = install_ms(&i, &c, 0.0, 0.0, Waits::Overlapped);
        let want =
            (1000.0 * 16_000.0 + 100.0 * 11_000.0 + 10.0 * 40_000.0) / 1e3 * INSTALL_FS_SHARE;
        assert!((got - want).abs() < 1e-6, "{got} vs {want}");
        let r = repo(1000, 1000, 10);
        assert!(checkout_ms(&r, &c, 0.0) > 1000.0 * 15.0);
        assert!(checkout_ms(&r, &c, 0.0) / checkout_ms(&r, &local(), 0.0) > 100.0);
    }
}
