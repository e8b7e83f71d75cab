//! pnpm's reinstall on a mount: its tree (a folder per package under `node_modules/.pnpm`, a
//! symlink per dependency edge) placed from its store, linked where the store shares the
//! project's file system and copied file by file where it does not (a project on a Windows
//! drive, the store on the Linux disk).

use super::costs::MountCosts;
use super::figures::InstallFigures;
use super::install::{component_us, install_ms};
use crate::measure::deps::managers::Waits;

/// Calls that name an entry of pnpm's tree (a file, a folder, a link) by its whole path, each
/// component of which is a lookup on a mount where every call is a round trip. Fitted on the
/// emulator's request counts (drvfs-9p, scale 0.2) for pnpm 10.34's offline install of unjs/c12
/// 2d19d39 with its store on another file system: 122,272 lookups for 8,931 files, 1,861
/// folders and 999 links 8.5 components below the mount's root on average, less the one lookup
/// each created entry's timed call includes: 1.23 whole-path calls per entry (unjs/unbuild
/// 4cce495: 150,144 lookups for 10,325 files, 2,508 folders and 1,152 links 8.8 components
/// down, 1.25).
pub const PNPM_PATH_CALLS: f64 = 1.23;

/// What each copied file costs beyond the floor's create: pnpm copies through libuv's
/// `copyfile`, which after the create asks for the new file's attributes (`fstat`), truncates it
/// and sets its mode (strace: an `ftruncate` and an `fchmod` per file; the emulator counted 2.0
/// `setattr` and 1.2 `getattr` per file for c12), each a round trip priced as an `lstat`.
pub const PNPM_COPY_ATTR_CALLS: f64 = 3.0;

/// pnpm's reinstall of `install` on the mount `c`, its own work `manager_ms`: `copies` when its
/// store is on another file system (every file copied), else each file hard-linked from the
/// store (a directory entry made, no contents written: priced as a rename, as uv's links).
/// Either way every file, folder and link is named by its whole path.
pub fn pnpm_install_ms(
    install: &InstallFigures,
    c: &MountCosts,
    manager_ms: f64,
    copies: bool,
) -> f64 {
    let files = install.files.max(1) as f64;
    let entries = (install.files + install.dirs + install.links) as f64;
    let walk_per_file = entries * path_walk_us(install, c) / files;
    if copies {
        let extra = PNPM_COPY_ATTR_CALLS * c.scratch.lstat + walk_per_file;
        install_ms(install, c, manager_ms, extra, Waits::Overlapped)
    } else {
        let linked = InstallFigures {
            bytes: 0,
            ..install.clone()
        };
        let instead_of_create = c.scratch.rename - c.scratch.create;
        install_ms(
            &linked,
            c,
            manager_ms,
            instead_of_create + walk_per_file,
            Waits::Overlapped,
        )
    }
}

/// The lookups beyond the one each timed call includes when pnpm names an entry of its tree.
fn path_walk_us(install: &InstallFigures, c: &MountCosts) -> f64 {
    PNPM_PATH_CALLS * (install.depth - 1.0).max(0.0) * component_us(c)
}

#[cfg(test)]
mod tests {
    use super::super::figures::InstallSource;
    use super::super::fixtures::{local, slow};
    use super::super::install::{INSTALL_FS_SHARE, install_fs_ms, link_us};
    use super::*;

    fn tree() -> InstallFigures {
        InstallFigures {
            files: 1000,
            dirs: 200,
            bytes: 0,
            packages: 40,
            source: InstallSource::PnpmLock,
            depth: 9.0,
            links: 100,
            cache_links: None,
        }
    }

    #[test]
    fn a_copy_pays_its_attribute_calls_and_every_entrys_path_walk() {
        let (i, c) = (tree(), slow());
        // slow(): an lstat one level down is 400 us, a component 0.8 of it; eight components
        // beyond the timed one, 1.23 calls for each of the 1,300 entries.
        let walk = 1300.0 * 1.23 * 8.0 * 320.0;
        let fs = install_fs_ms(&i, &c) + (1000.0 * 3.0 * 400.0 + walk) / 1e3 * INSTALL_FS_SHARE;
        let got = pnpm_install_ms(&i, &c, 0.0, true);
        assert!((got - fs).abs() < 1e-6, "{got} vs {fs}");
        // The links are in the floor: a mkdir and an lstat each.
        let no_links = InstallFigures {
            links: 0,
            ..i.clone()
        };
        let links = install_fs_ms(&i, &c) - install_fs_ms(&no_links, &c);
        assert!((links - 100.0 * link_us(&c) / 1e3 * INSTALL_FS_SHARE).abs() < 1e-6);
        // Linking from a store on the same file system writes no contents and is cheaper.
        assert!(pnpm_install_ms(&i, &c, 0.0, false) < got);
    }

    #[test]
    fn on_a_local_disk_there_is_no_walk() {
        let (i, l) = (tree(), local());
        let linked = pnpm_install_ms(&i, &l, 100.0, false);
        let copied = pnpm_install_ms(&i, &l, 100.0, true);
        assert!(linked < copied, "{linked} {copied}");
        assert!(linked >= 100.0);
    }
}
